/// One step that turns a view's previous visible rows into the new ones: at row
/// `index`, remove `removed` rows, then insert `inserted` rows.
///
/// A change is a list of splices applied in order; each `index` counts rows of the
/// list as the splices before it left it.
public struct Splice: Hashable, Sendable, CustomStringConvertible {
    public var index: Int
    public var removed: Int
    public var inserted: Int

    public init(index: Int, removed: Int, inserted: Int) {
        self.index = index
        self.removed = removed
        self.inserted = inserted
    }

    public var description: String { "@\(index) -\(removed) +\(inserted)" }

    /// The most splices a change lists; past it the rest is one splice to the end.
    public static let maximumCount = 1000

    /// The splices between two sets of visible positions of the same forest: both
    /// are in pre-order, so the rows in both are exactly the rows that stay.
    /// - Complexity: O(n / 64 + changed positions)
    static func diff(before: Bitset, oldTotal: Int, after: Bitset, newTotal: Int) -> [Splice] {
        var result: [Splice] = []
        var open: Splice? = nil
        var newRows = 0  // rows of the new list before the current point
        var oldRows = 0  // rows of the old list before the current point
        let words = before.words.count
        for w in 0 ..< words {
            let o = before.words[w], n = after.words[w]
            if o == n {
                if o != 0 {
                    if let s = open { result.append(s); open = nil }
                    let kept = o.nonzeroBitCount
                    newRows += kept
                    oldRows += kept
                }
                continue
            }
            var bits = o | n
            while bits != 0 {
                let bit = UInt64(1) << UInt64(bits.trailingZeroBitCount)
                bits &= bits - 1
                let inOld = o & bit != 0, inNew = n & bit != 0
                if inOld && inNew {
                    if let s = open { result.append(s); open = nil }
                    newRows += 1
                    oldRows += 1
                    continue
                }
                if open == nil {
                    if result.count == maximumCount - 1 {
                        result.append(Splice(index: newRows, removed: oldTotal - oldRows, inserted: newTotal - newRows))
                        return result
                    }
                    open = Splice(index: newRows, removed: 0, inserted: 0)
                }
                if inOld { open!.removed += 1; oldRows += 1 }
                if inNew { open!.inserted += 1; newRows += 1 }
            }
        }
        if let s = open { result.append(s) }
        return result
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
