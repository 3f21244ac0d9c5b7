/// Writing a node's strings as JSON: non-generic, so callers in other modules pay no
/// generic dispatch per row.
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
        titles.bytes.withUnsafeBytes { out.string(BytePool.entry(in: $0, at: titleRef[Int(node.slot)])) }
    }

    /// Writes the raw `data` of `node` and returns true, or returns false when it has none.
    /// - Complexity: O(length of the data)
    @discardableResult
    public func writeData(of node: NodeHandle, to out: inout JSONWriter) -> Bool {
        let s = Int(node.slot)
        guard s < dataRef.count, dataRef[s] != 0 else { return false }
        dataPool.bytes.withUnsafeBytes { out.raw(BytePool.entry(in: $0, at: dataRef[s] - 1)) }
        return true
    }

    /// Whether `node` has `data`.
    /// - Complexity: O(1)
    public func hasData(_ node: NodeHandle) -> Bool {
        let s = Int(node.slot)
        return s < dataRef.count && dataRef[s] != 0
    }
}
