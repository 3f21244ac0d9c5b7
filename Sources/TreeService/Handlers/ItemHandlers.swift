import HTTP1
import TreeEngine
import TreeFormats

extension TreeService {
    /// `GET /sessions/{sid}/items/{itemId}?filter=`
    func itemInfo(_ request: HTTPRequest, _ sid: String, _ itemID: String) throws(ServiceError) -> HTTPResponse {
        let filter = try request.filterQuery()
        let ticket = ticket(filter, sid)
        return try withSession(sid) { session, state throws(ServiceError) in
            try prepare(filter, session, &state, ticket: ticket)
            let node = try self.node(itemID, in: state.store)
            if let notModified = notModified(request, version: state.version) { return notModified }
            let forest = state.store.forest
            var out = JSONWriter(reservingCapacity: 256)
            out.raw("{\"id\":")
            forest.writeID(of: node, to: &out)
            out.raw(",\"title\":")
            forest.writeTitle(of: node, to: &out)
            out.raw(",\"level\":")
            out.int(forest.level(of: node))
            out.raw(",\"parentId\":")
            if let parent = forest.parent(of: node) { forest.writeID(of: parent, to: &out) } else { out.null() }
            out.raw(",\"path\":[")
            for (i, ancestor) in forest.path(of: node).enumerated() {
                if i > 0 { out.raw(",") }
                forest.writeID(of: ancestor, to: &out)
            }
            out.raw("],\"hasChildren\":")
            out.bool(forest.hasChildren(node))
            out.raw(",\"childCount\":")
            out.int(forest.childCount(of: node))
            out.raw(",\"expanded\":")
            out.bool(state.store.isExpanded(node, filter))
            out.raw(",\"index\":")
            if let index = state.store.rowIndex(of: node, filter) { out.int(index) } else { out.null() }
            if let filter {
                out.raw(",\"match\":")
                out.bool(state.store.isMatch(node, filter))
            }
            if forest.hasData(node) {
                out.raw(",\"data\":")
                forest.writeData(of: node, to: &out)
            }
            out.raw("}")
            return json(200, out.bytes, headers: [("ETag", ETag.of(state.version))])
        }
    }

    /// `PATCH /sessions/{sid}/items/{itemId}?filter=`: expand/collapse, reveal, update, or move.
    func patchItem(_ request: HTTPRequest, _ sid: String, _ itemID: String) throws(ServiceError) -> HTTPResponse {
        let filter = try request.filterQuery()
        let members = Members(try request.jsonObjectBody())
        let kinds: [(String, Set<String>)] = [
            ("expanded", ["expanded", "recursive"]), ("reveal", ["reveal"]),
            ("parentId", ["parentId", "index"]), ("title", ["title", "data"]), ("data", ["title", "data"]),
        ]
        guard let (_, allowed) = kinds.first(where: { members.has($0.0) }) else {
            throw .unprocessable("the body must have one of: expanded, reveal, title/data, parentId (move)", pointer: "")
        }
        try members.allowOnly(allowed)
        let ticket = ticket(filter, sid)
        return try withSession(sid) { session, state throws(ServiceError) in
            try request.checkIfMatch(version: state.version)
            try prepare(filter, session, &state, ticket: ticket)
            let node = try self.node(itemID, in: state.store)
            let splices: [Splice]
            if let expanded = try members.bool("expanded") {
                let recursive = try members.bool("recursive") ?? false
                splices = state.store.setExpanded(node, expanded, recursive: recursive, filter)
            } else if members.has("reveal") {
                guard try members.bool("reveal") == true else { throw .unprocessable("\"reveal\" must be true", pointer: "/reveal") }
                splices = state.store.reveal(node, filter)
            } else if let parentID = try members.itemID("parentId") {
                let parent = try parentID.map { (id) throws(ServiceError) in try self.node(id, in: state.store) }
                let index = try members.nonNegativeInt("index")
                do throws(EditError) {
                    splices = try state.store.move(node, to: parent, index: index, filter)
                } catch {
                    throw error.kind == .cycle
                        ? ServiceError(status: 409, slug: "cycle", detail: error.message)
                        : ServiceError.unprocessable(error.message, pointer: "/index")
                }
            } else {
                var title: String? = nil
                if let value = members["title"] {
                    guard case .string(let text) = value else { throw .unprocessable("\"title\" must be a string", pointer: "/title") }
                    title = text
                }
                splices = state.store.update(node, title: title, data: members["data"]?.serialize(), filter)
            }
            if members.has("expanded") || members.has("reveal") { state.expansionChanged(filter) } else { state.treeEdited() }
            state.version += 1
            return changeResponse(200, state: &state, filter: filter, splices, itemIndex: .some(state.store.rowIndex(of: node, filter)))
        }
    }

    /// `POST /sessions/{sid}/items?filter=`: `{"nodes": [...], "parentId", "index"}` or `"before"` / `"after"`.
    func insertItems(_ request: HTTPRequest, _ sid: String) throws(ServiceError) -> HTTPResponse {
        let filter = try request.filterQuery()
        try request.requireJSONBody()
        let ticket = ticket(filter, sid)
        return try withSession(sid) { session, state throws(ServiceError) in
            try request.checkIfMatch(version: state.version)
            let (fragment, members) = try parseNodes(request, into: state.store)
            try members.allowOnly(["parentId", "index", "before", "after"])
            let placement: InsertPlacement
            if members.has("before") || members.has("after") {
                let key = members.has("before") ? "before" : "after"
                guard members.keys.count == 1 else {
                    throw .unprocessable("\"\(key)\" cannot be combined with parentId, index or the other of before/after", pointer: "/\(key)")
                }
                guard let id = try members.itemID(key), let id else { throw .unprocessable("\"\(key)\" must name an item", pointer: "/\(key)") }
                let sibling = try self.node(id, in: state.store)
                placement = key == "before" ? .before(sibling) : .after(sibling)
            } else {
                let parent = try (try members.itemID("parentId") ?? nil).map { (id) throws(ServiceError) in try self.node(id, in: state.store) }
                placement = .child(of: parent, index: try members.nonNegativeInt("index"))
            }
            try prepare(filter, session, &state, ticket: ticket)
            try registry.reserve(fragment.count)
            let result: (splices: [Splice], roots: [NodeHandle])
            do throws(EditError) {
                result = try state.store.insert(fragment, placement, filter)
            } catch {
                registry.release(fragment.count)
                throw ServiceError.unprocessable(error.message, pointer: "/index")
            }
            state.accountedNodes += fragment.count
            state.treeEdited()
            state.version += 1
            let firstIndex: Int? = result.roots.first.flatMap { state.store.rowIndex(of: $0, filter) }
            let forest = state.store.forest
            var response = changeResponse(201, state: &state, filter: filter, result.splices, itemIndex: .some(firstIndex)) { out in
                out.raw(",\"ids\":[")
                for (i, root) in result.roots.enumerated() {
                    if i > 0 { out.raw(",") }
                    forest.writeID(of: root, to: &out)
                }
                out.raw("]")
            }
            if let first = result.roots.first {
                let id = forest.id(of: first).description
                response.headers.add(name: "Location", value: "/sessions/\(session.id)/items/\(PathSegment.encode(id))")
            }
            return response
        }
    }

    /// `DELETE /sessions/{sid}/items/{itemId}?filter=`
    func deleteItem(_ request: HTTPRequest, _ sid: String, _ itemID: String) throws(ServiceError) -> HTTPResponse {
        let filter = try request.filterQuery()
        let ticket = ticket(filter, sid)
        return try withSession(sid) { session, state throws(ServiceError) in
            try request.checkIfMatch(version: state.version)
            try prepare(filter, session, &state, ticket: ticket)
            let node = try self.node(itemID, in: state.store)
            let splices = state.store.delete(node, filter)
            releaseDeletedNodes(&state)
            state.treeEdited()
            state.version += 1
            return changeResponse(200, state: &state, filter: filter, splices, itemIndex: .some(nil))
        }
    }
}
