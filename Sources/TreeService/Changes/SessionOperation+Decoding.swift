import TreeEngine

/// Request bodies read into operations: every check of a body's shape and types happens
/// here, before the session is locked.
extension SessionOperation {
    /// The body of `PATCH /sessions/{sid}`: exactly one of `expandAll`, `collapseAll`, `expandDepth`.
    static func sessionPatch(_ members: Members) throws(ServiceError) -> SessionOperation {
        try members.allowOnly(["expandAll", "collapseAll", "expandDepth"])
        guard members.keys.count == 1 else {
            throw .unprocessable("the body must have exactly one of expandAll, collapseAll, expandDepth")
        }
        if members.has("expandAll") {
            guard try members.bool("expandAll") == true else { throw .unprocessable("\"expandAll\" must be true", member: "expandAll") }
            return .expandAll
        }
        if members.has("collapseAll") {
            guard try members.bool("collapseAll") == true else { throw .unprocessable("\"collapseAll\" must be true", member: "collapseAll") }
            return .collapseAll
        }
        return .expandToDepth(try members.nonNegativeInt("expandDepth")!)
    }

    /// The body of `PATCH /sessions/{sid}/items/{itemId}`: expand/collapse, reveal, move,
    /// or update, told apart by the first of `expanded`, `reveal`, `parentId`, `title`/`data`.
    static func itemPatch(_ item: ItemID, _ members: Members) throws(ServiceError) -> SessionOperation {
        if members.has("expanded") {
            try members.allowOnly(["expanded", "recursive"])
            return .setExpanded(item, expanded: try members.bool("expanded")!, recursive: try members.bool("recursive") ?? false)
        }
        if members.has("reveal") {
            try members.allowOnly(["reveal"])
            guard try members.bool("reveal") == true else { throw .unprocessable("\"reveal\" must be true", member: "reveal") }
            return .reveal(item)
        }
        if members.has("parentId") {
            try members.allowOnly(["parentId", "index"])
            return .move(item, parent: try members.itemIDOrNull("parentId"), index: try members.nonNegativeInt("index"))
        }
        if members.has("title") || members.has("data") {
            try members.allowOnly(["title", "data"])
            var title: String? = nil
            if let value = members["title"] {
                guard case .string(let text) = value else { throw .unprocessable("\"title\" must be a string", member: "title") }
                title = text
            }
            return .update(item, title: title, data: members["data"])
        }
        throw .unprocessable("the body must have one of: expanded, reveal, title/data, parentId (move)")
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
