import TreeEngine
import TreeFormats

/// Request bodies read into operations: every check of a body's shape and types happens
/// here, before the session is locked.
extension SessionOperation {
    /// The members a `PATCH` of a view may have, exactly one of them.
    static let viewPatchMembers = ["expandAll", "collapseAll", "expandDepth", "selectAll", "selectNone", "invertSelection", "selectRows", "sort"]

    /// The body of `PATCH /sessions/{sid}` (and of a view): exactly one of `expandAll`,
    /// `collapseAll`, `expandDepth`, `selectAll`, `selectNone`, `invertSelection`, `selectRows`.
    static func sessionPatch(_ members: Members) throws(ServiceError) -> SessionOperation {
        try members.allowOnly(Set(viewPatchMembers))
        guard members.keys.count == 1 else {
            throw .unprocessable("the body must have exactly one of \(viewPatchMembers.joined(separator: ", "))")
        }
        if members.has("expandAll") { return try expandAll(members) }
        if members.has("collapseAll") { return try collapseAll(members) }
        if members.has("selectAll") { return try flag("selectAll", members, .selectAll) }
        if members.has("selectNone") { return try flag("selectNone", members, .selectNone) }
        if members.has("invertSelection") { return try flag("invertSelection", members, .invertSelection) }
        if members.has("selectRows") { return try selectRows(members) }
        if members.has("sort") { return try sort(members) }
        return try expandDepth(members)
    }

    /// `{"sort": "-data.size,title"}` (the syntax of the `sort` query parameter), or
    /// `{"sort": null}`: the tree's order.
    static func sort(_ members: Members) throws(ServiceError) -> SessionOperation {
        try members.allowOnly(["sort"])
        switch members["sort"] {
        case .null?: return .setSort(nil)
        case .string(let text)?:
            do throws(FieldSyntax.Failure) {
                return .setSort(try FieldSyntax.sort(text))
            } catch {
                throw .unprocessable("\"sort\": \(error.message) (at character \(error.position))", member: "sort")
            }
        default:
            throw .unprocessable("\"sort\" must be a string of keys (\"-data.size,title\") or null (the tree's order)", member: "sort")
        }
    }

    /// `{"<key>": true}`: the operation it names.
    static func flag(_ key: String, _ members: Members, _ operation: SessionOperation) throws(ServiceError) -> SessionOperation {
        try members.allowOnly([key])
        guard try members.bool(key) == true else { throw .unprocessable("\"\(key)\" must be true", member: key) }
        return operation
    }

    /// `{"selectRows": {"offset": N, "count": N, "selected": Bool, "recursive": Bool}}`,
    /// `recursive` optional (true).
    static func selectRows(_ members: Members) throws(ServiceError) -> SessionOperation {
        try members.allowOnly(["selectRows"])
        guard case .object(let pairs)? = members["selectRows"] else {
            throw .unprocessable("\"selectRows\" must be an object: {\"offset\", \"count\", \"selected\", \"recursive\"}", member: "selectRows")
        }
        let rows = Members(pairs.map { ($0.key, $0.value) })
        do throws(ServiceError) {
            try rows.allowOnly(["offset", "count", "selected", "recursive"])
            guard let offset = try rows.nonNegativeInt("offset") else { throw .unprocessable("\"offset\" is missing: a non-negative integer", member: "offset") }
            guard let count = try rows.nonNegativeInt("count") else { throw .unprocessable("\"count\" is missing: a non-negative integer", member: "count") }
            guard let selected = try rows.bool("selected") else { throw .unprocessable("\"selected\" is missing: true or false", member: "selected") }
            return .selectRows(offset: offset, count: count, selected: selected, recursive: try rows.bool("recursive") ?? true)
        } catch {
            var pointer = JSONPointer()
            pointer.append(key: "selectRows")
            throw ServiceError(error.type, detail: error.detail, pointer: pointer.text + (error.pointer ?? ""))
        }
    }

    /// `{"expandAll": true}`
    static func expandAll(_ members: Members) throws(ServiceError) -> SessionOperation {
        try members.allowOnly(["expandAll"])
        guard try members.bool("expandAll") == true else { throw .unprocessable("\"expandAll\" must be true", member: "expandAll") }
        return .expandAll
    }

    /// `{"collapseAll": true}`
    static func collapseAll(_ members: Members) throws(ServiceError) -> SessionOperation {
        try members.allowOnly(["collapseAll"])
        guard try members.bool("collapseAll") == true else { throw .unprocessable("\"collapseAll\" must be true", member: "collapseAll") }
        return .collapseAll
    }

    /// `{"expandDepth": N}`
    static func expandDepth(_ members: Members) throws(ServiceError) -> SessionOperation {
        try members.allowOnly(["expandDepth"])
        guard let depth = try members.nonNegativeInt("expandDepth") else {
            throw .unprocessable("\"expandDepth\" is missing: a non-negative integer", member: "expandDepth")
        }
        return .expandToDepth(depth)
    }

    /// The body of `PATCH /sessions/{sid}/items/{itemId}`: expand/collapse, reveal, move,
    /// or update, told apart by the first of `expanded`, `reveal`, `parentId`, `title`/`data`.
    static func itemPatch(_ item: ItemID, _ members: Members) throws(ServiceError) -> SessionOperation {
        if members.has("expanded") { return try expansion(item, members) }
        if members.has("reveal") { return try reveal(item, members) }
        if members.has("selected") { return try selection(item, members) }
        if members.has("parentId") { return try move(item, members) }
        if members.has("title") || members.has("data") { return try update(item, members) }
        throw .unprocessable("the body must have one of: expanded, reveal, selected, title/data, parentId (move)")
    }

    /// The body of `PUT …/expansion`: `{"expanded": [id, ...]}`.
    static func expansionList(_ members: Members) throws(ServiceError) -> SessionOperation {
        try members.allowOnly(["expanded"])
        guard case .array(let values)? = members["expanded"] else {
            throw .unprocessable("\"expanded\" must be an array of item ids", member: "expanded")
        }
        var items: [ItemID] = []
        items.reserveCapacity(values.count)
        for (k, value) in values.enumerated() {
            guard let id = ItemID(value) else {
                var pointer = JSONPointer()
                pointer.append(key: "expanded")
                pointer.append(key: String(k))
                throw ServiceError(.invalidNode, detail: "\"expanded\" must hold item ids (strings or integers)", pointer: pointer.text)
            }
            items.append(id)
        }
        return .setExpansion(items)
    }

    /// `{"selected": Bool, "recursive": Bool}`, `recursive` optional (true: the subtree too).
    static func selection(_ item: ItemID, _ members: Members) throws(ServiceError) -> SessionOperation {
        try members.allowOnly(["selected", "recursive"])
        guard let selected = try members.bool("selected") else {
            throw .unprocessable("\"selected\" is missing: true or false", member: "selected")
        }
        return .setSelected(item, selected: selected, recursive: try members.bool("recursive") ?? true)
    }

    /// `{"expanded": Bool, "recursive": Bool}`, `recursive` optional.
    static func expansion(_ item: ItemID, _ members: Members) throws(ServiceError) -> SessionOperation {
        try members.allowOnly(["expanded", "recursive"])
        guard let expanded = try members.bool("expanded") else {
            throw .unprocessable("\"expanded\" is missing: true or false", member: "expanded")
        }
        return .setExpanded(item, expanded: expanded, recursive: try members.bool("recursive") ?? false)
    }

    /// `{"reveal": true}`
    static func reveal(_ item: ItemID, _ members: Members) throws(ServiceError) -> SessionOperation {
        try members.allowOnly(["reveal"])
        guard try members.bool("reveal") == true else { throw .unprocessable("\"reveal\" must be true", member: "reveal") }
        return .reveal(item)
    }

    /// `{"parentId": ID or null, "index": N}`, `index` optional.
    static func move(_ item: ItemID, _ members: Members) throws(ServiceError) -> SessionOperation {
        try members.allowOnly(["parentId", "index"])
        guard members.has("parentId") else {
            throw .unprocessable("\"parentId\" is missing: an item id, or null for the roots", member: "parentId")
        }
        return .move(item, parent: try members.itemIDOrNull("parentId"), index: try members.nonNegativeInt("index"))
    }

    /// `{"title": String, "data": JSON}`, at least one of them.
    static func update(_ item: ItemID, _ members: Members) throws(ServiceError) -> SessionOperation {
        try members.allowOnly(["title", "data"])
        guard members.has("title") || members.has("data") else { throw .unprocessable("an update needs \"title\", \"data\" or both") }
        var title: String? = nil
        if let value = members["title"] {
            guard case .string(let text) = value else { throw .unprocessable("\"title\" must be a string", member: "title") }
            title = text
        }
        return .update(item, title: title, data: members["data"]?.serialize())
    }

    /// The members of `POST /sessions/{sid}/items` beside `nodes`: `parentId` and `index`,
    /// or one of `before` / `after`.
    static func insertionPoint(_ members: Members) throws(ServiceError) -> InsertionPoint {
        try members.allowOnly(["parentId", "index", "before", "after"])
        if members.has("before") || members.has("after") {
            let key = members.has("before") ? "before" : "after"
            guard members.keys.count == 1 else {
                throw .unprocessable("\"\(key)\" cannot be combined with parentId, index or the other of before/after", member: key)
            }
            let sibling = try members.itemID(key)
            return key == "before" ? .before(sibling) : .after(sibling)
        }
        let parent = members.has("parentId") ? try members.itemIDOrNull("parentId") : nil
        return .child(of: parent, index: try members.nonNegativeInt("index"))
    }
}
