import TreeEngine

/// Writing a node's strings as JSON, straight from the forest's byte pools: the
/// engine's accessors are inlinable, so a row costs no call into the engine.
extension Forest {
    /// Writes the id of `node` with its JSON type: a number for integer ids, else a string.
    /// - Complexity: O(length of the id)
    public func writeID(of node: NodeHandle, to out: inout JSONWriter) {
        withID(of: node) { key, isInteger in
            if isInteger { out.raw(key) } else { out.string(key) }
        }
    }

    /// Writes the title of `node` as a JSON string.
    /// - Complexity: O(length of the title)
    public func writeTitle(of node: NodeHandle, to out: inout JSONWriter) {
        withTitle(of: node) { out.string($0) }
    }

    /// Writes the raw `data` of `node` and returns true, or returns false when it has none.
    /// - Complexity: O(length of the data)
    @discardableResult
    public func writeData(of node: NodeHandle, to out: inout JSONWriter) -> Bool {
        withData(of: node) { raw in
            guard let raw else { return false }
            out.raw(raw)
            return true
        }
    }

    /// Writes the members of `node` that the upload formats carry only when set, each after
    /// a comma: `"expanded":true` (the unfiltered view's), `"hasChildren":true`, `"data":…`.
    /// - Complexity: O(length of the data)
    public func writeOptionalMembers(of node: NodeHandle, to out: inout JSONWriter) {
        if isExpandedUnfiltered(node) { out.raw(",\"expanded\":true") }
        if declaresChildren(node) { out.raw(",\"hasChildren\":true") }
        if hasData(node) {
            out.raw(",\"data\":")
            writeData(of: node, to: &out)
        }
    }
}
