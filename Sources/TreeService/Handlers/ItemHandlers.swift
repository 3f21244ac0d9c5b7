import HTTP1
import TreeEngine
import TreeFormats

extension TreeService {
    /// `GET /sessions/{sid}/items/{itemId}?filter=` (and under `/sessions/{sid}/views/{vid}/`)
    ///
    /// In rows the view keeps, read beside other readers; filtered rows that must be built
    /// first take the session's exclusive lock.
    func itemInfo(_ request: HTTPRequest, _ sid: String, _ itemID: String, view vid: String?) throws(ServiceError) -> HTTPResponse {
        let filter = try request.filterQuery()
        let session = try liveSession(sid)
        let view = try liveView(ViewName(id: vid, filter: filter), in: session)
        return try readOrBuild(session, view) { (state) throws(ServiceError) in try item(request, state, itemID, view) }
    }

    /// The item in a view's kept rows (or 304), nil when they would have to be built.
    private func item(_ request: HTTPRequest, _ state: Session.State, _ itemID: String, _ view: ViewRef) throws(ServiceError) -> HTTPResponse? {
        guard state.core.store.isKept(view) else { return nil }
        let node = try self.node(itemID, in: state.core.store)
        let version = state.core.version(of: view.view)
        if let notModified = notModified(request, version: version) { return notModified }
        let placement = state.core.store.keptPlacement(of: node, view)!
        let forest = state.core.store.forest
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
        out.int(state.core.store.childCount(of: node))
        out.raw(",\"expanded\":")
        out.bool(placement.expanded)
        out.raw(",\"index\":")
        if let index = placement.index { out.int(index) } else { out.null() }
        if view.filter != nil {
            out.raw(",\"match\":")
            out.bool(placement.match)
        }
        if forest.hasData(node) {
            out.raw(",\"data\":")
            forest.writeData(of: node, to: &out)
        }
        out.raw("}")
        return json(200, out.bytes, headers: [("ETag", ETag.of(version))])
    }

    /// `PATCH /sessions/{sid}/items/{itemId}?filter=` (and under `/sessions/{sid}/views/{vid}/`):
    /// expand/collapse, reveal, update, or move.
    func patchItem(_ request: HTTPRequest, _ sid: String, _ itemID: String, view vid: String?, _ caller: Caller) throws(ServiceError) -> HTTPResponse {
        let filter = try request.filterQuery()
        let operation = try SessionOperation.itemPatch(ItemID(itemID), Members(try request.jsonObjectBody()))
        if operation.editsTree { try caller.require(.editor, to: "edit the tree") }
        return try mutateSession(request, sid, view: ViewName(id: vid, filter: filter), operation)
    }

    /// `POST /sessions/{sid}/items?filter=` (and under `/sessions/{sid}/views/{vid}/`): `{"nodes": [...], "parentId", "index"}` or `"before"` / `"after"`;
    /// or CSV / NDJSON rows whose `parentId` names a node of the body or of the session; or
    /// a path list under the node the query's `parentId` names. Nodes and rows are read
    /// before the session is locked, and checked against it under the lock (the body's own
    /// errors come first); a path list is read under the lock, as the paths it meets in the
    /// session decide which nodes it adds.
    func insertItems(_ request: HTTPRequest, _ sid: String, view vid: String?) throws(ServiceError) -> HTTPResponse {
        let filter = try request.filterQuery()
        let format = try request.uploadFormat()
        let parent = request.queryValue("parentId").map(ItemID.init)
        switch format {
        case .document:
            throw .badQueryParameter("format=document opens a session (POST /sessions); an insert takes nested JSON nodes, CSV or NDJSON rows, or a path list")
        case .csv, .ndjson:
            if parent != nil {
                throw .badQueryParameter("query parameter parentId is for path lists: CSV and NDJSON rows name their parents in parentId")
            }
        case .nodes, .paths:
            break
        }
        // The session and the view (404) and `If-Match` (412) come before the body; they
        // are checked again under the lock.
        let session = try liveSession(sid)
        let view = try liveView(ViewName(id: vid, filter: filter), in: session)
        let ticket = ticket(view, session)
        if request.headers["if-match"] != nil {
            try readingSession(session) { _, state throws(ServiceError) in
                try requireView(view.view, state)
                try request.checkIfMatch(version: state.core.version(of: view.view))
            }
        }
        if format == .nodes {
            let read = try withParseBudget(request, peak: 2 * request.body.count) { () throws(ServiceError) in
                try readDetachedNodes(request.body, 0 ..< request.body.count)
            }
            return try mutateSession(request, session, view: view, ticket: ticket) { store throws(ServiceError) in
                let (fragment, members) = try attached(read, to: store) { () throws(ServiceError) in try parseNodes(request, into: store) }
                return (.insert(fragment, try SessionOperation.insertionPoint(members)), .insertNodes(request.body))
            }
        }
        // A path list is spelled as its session spells ids (a session stored before the
        // minimal form doubles backslashes: `Session.doublesPathBackslashes`).
        let record = RecordedOperation.insertRows(request.body, RowsUpload(format: format, parent: parent, doublesBackslashes: session.doublesPathBackslashes))
        let peak = 3 * request.body.count
        let rows = try withParseBudget(request, peak: peak) { () throws(ServiceError) -> DetachedFragments? in
            try readBody(request.body, as: format) { raw, limits throws(TreeInputError) in
                switch format {
                case .csv(let dialect): try TreeStore.parseDetachedCSVFragments(raw, limits: limits, dialect: dialect)
                case .ndjson: try TreeStore.parseDetachedNDJSONFragments(raw, limits: limits)
                default: nil
                }
            }
        }
        return try mutateSession(request, session, view: view, ticket: ticket) { store throws(ServiceError) in
            if let rows, let groups = store.attach(rows, limits: uploadLimits()) { return (.insertGroups(groups), record) }
            let operation = try withParseBudget(request, peak: peak) { () throws(ServiceError) in try insertion(record, in: store) }
            return (operation, record)
        }
    }

    /// `DELETE /sessions/{sid}/items/{itemId}?filter=` (and under `/sessions/{sid}/views/{vid}/`)
    func deleteItem(_ request: HTTPRequest, _ sid: String, _ itemID: String, view vid: String?) throws(ServiceError) -> HTTPResponse {
        let filter = try request.filterQuery()
        return try mutateSession(request, sid, view: ViewName(id: vid, filter: filter), .delete(ItemID(itemID)))
    }
}
