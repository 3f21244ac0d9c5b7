extension TreeStore {
    /// Runs `body` as one all-or-nothing change: when it throws, the store is
    /// exactly as it was before (forest, every kept view, their order), and the
    /// error is rethrown; otherwise everything `body` did is kept.
    ///
    /// Filtered views built inside the transaction are kept only when it succeeds.
    /// - Complexity: O(what `body` does); a rollback costs O(n · views)
    public mutating func transaction<R, E: Error>(_ body: (inout TreeStore) throws(E) -> R) throws(E) -> R {
        // First version: a copy-on-write snapshot (replaced by an undo log).
        let saved = self
        do {
            return try body(&self)
        } catch {
            self = saved
            throw error
        }
    }
}

extension Splice {
    /// The splices of several changes applied one after another, as one change:
    /// the list itself while it has at most `maximumCount` splices, else the one
    /// splice between the rows no splice touched at the start and at the end.
    /// - Complexity: O(splices)
    public static func sequence(_ splices: [Splice], oldTotal: Int) -> [Splice] {
        if splices.count <= maximumCount { return splices }
        var total = oldTotal
        var first = Int.max, tail = Int.max
        for s in splices {
            total += s.inserted - s.removed
            first = min(first, s.index)
            tail = min(tail, total - s.index - s.inserted)
        }
        return [Splice(index: first, removed: oldTotal - first - tail, inserted: total - first - tail)]
    }
}
