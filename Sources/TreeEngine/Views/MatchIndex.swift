/// The matches of a filtered view in tree order: a bit per position, with the number of
/// matches before each block of 64 words, so that "how many matches come before position p"
/// (rank) and "where is the k-th match" (select) cost O(log n + 64) word operations, not a
/// scan of the view. Built from the view's match bits when first asked for; any edit of the
/// forest drops it (positions and matches move), expanding and collapsing do not.
struct MatchIndex: Sendable {
    private var words: ContiguousArray<UInt64>
    /// `before[b]`: the matches in the words before block `b` (64 words a block); one more
    /// entry at the end, the total.
    private var before: ContiguousArray<Int>
    private static let blockWords = 64

    /// - Complexity: O(positions)
    init(_ forest: Forest, matches: Bitset) {
        let n = forest.capacity
        var words = ContiguousArray<UInt64>(repeating: 0, count: (n + 63) >> 6)
        forest.slotAt.withUnsafeBufferPointer { slotAt in
            words.withUnsafeMutableBufferPointer { out in
                for p in 0 ..< n {
                    let slot = slotAt[p]
                    if slot >= 0 && matches.contains(Int(slot)) { out[p >> 6] |= 1 << UInt64(p & 63) }
                }
            }
        }
        self.init(positions: words)
    }

    /// From the match bits by position (a filter build has them).
    /// - Complexity: O(positions / 64)
    init(positions words: ContiguousArray<UInt64>) {
        var before = ContiguousArray<Int>()
        before.reserveCapacity(words.count / MatchIndex.blockWords + 2)
        var total = 0
        for w in words.indices {
            if w % MatchIndex.blockWords == 0 { before.append(total) }
            total += words[w].nonzeroBitCount
        }
        before.append(total)
        self.words = words
        self.before = before
    }

    /// The number of matches.
    var count: Int { before.last! }

    /// The number of matches at positions before `p`.
    /// - Complexity: O(64)
    func rank(_ p: Position) -> Int {
        let p = p.offset
        let w = min(p >> 6, words.count)
        let block = w / MatchIndex.blockWords
        var r = before[block]
        for i in block * MatchIndex.blockWords ..< w { r += words[i].nonzeroBitCount }
        if w < words.count { r += (words[w] & ((1 << UInt64(p & 63)) - 1)).nonzeroBitCount }
        return r
    }

    /// The position of the match with `k` matches before it (0 ≤ k < count).
    /// - Complexity: O(log n + 64)
    func select(_ k: Int) -> Position {
        precondition(k >= 0 && k < count, "no match \(k) of \(count)")
        // The last block with fewer than k + 1 matches before it.
        var lo = 0, hi = before.count - 2
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if before[mid] <= k { lo = mid } else { hi = mid - 1 }
        }
        var left = k - before[lo]
        var w = lo * MatchIndex.blockWords
        while words[w].nonzeroBitCount <= left {
            left -= words[w].nonzeroBitCount
            w += 1
        }
        var word = words[w]
        for _ in 0 ..< left { word &= word - 1 }
        return Position(w << 6 + word.trailingZeroBitCount)
    }
}
