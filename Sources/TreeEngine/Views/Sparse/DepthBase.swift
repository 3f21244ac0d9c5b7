/// A view's fresh state given by a rule on each node's level, shared by every view that
/// starts from it: a node is expanded iff its level is below `depth` (0: every node
/// collapsed, `DepthBase.all`: every node expanded).
///
/// Its *base cover* of a position is the number of collapsed strict ancestors the rule
/// gives the node there, `max(0, level - depth)`, read from the forest's `depth` column
/// (a gap: `SparseCover.infinite`). A view stores only where it differs from its base
/// (`SparseCover`); what it needs of the base is the minimum cover over a range of
/// positions and how many positions reach it. So the index keeps no per-position column:
/// per block of 64 positions and per node of a complete binary tree over the blocks, the
/// minimum and its count, 16 bytes per 64 positions, rebuilt where the forest changed.
struct DepthBase: CoverBase, Sendable {
    static let blockShift = 6
    static let blockSize = 1 << blockShift
    /// The rule that expands every node.
    static let all = Int32.max

    /// Nodes at a level below it are expanded.
    let depth: Int32
    /// The number of positions the index covers (the forest's capacity when last updated).
    private(set) var capacity = 0
    /// Number of leaves: a power of two, at least the number of blocks.
    private var leaves = 1
    private var minimum: ContiguousArray<Int32> = []
    private var minimumCount: ContiguousArray<Int32> = []

    /// The base of the rule `depth` over `forest`.
    /// - Complexity: O(positions)
    init(depth: Int32, forest: Forest) {
        self.depth = depth
        rebuild(forest)
    }

    /// The rule: whether the node in `slot` is expanded in the fresh state.
    /// - Complexity: O(1)
    @inline(__always)
    func isExpanded(_ slot: Slot, in forest: Forest) -> Bool {
        forest.depth[Int(forest.positionOf[slot.index])] < depth
    }

    /// A walk of the visible nodes: the next one is the first child of an expanded node, else
    /// the node after its subtree (its ancestors are visible and expanded).
    /// - Complexity: O(visited + gaps crossed)
    func forEachPosition(withCover t: Int32, from p: Int, to end: Int, limit: Int, _ forest: Forest,
                         _ body: (Int) -> Void) -> Int {
        var p = p, visited = 0
        while true {
            body(p)
            visited += 1
            let next = forest.depth[p] < depth ? p + 1 : Int(forest.endAt[p])
            guard visited < limit, next < end else { return visited }
            p = forest.nextNode(from: Position(next)).offset
            guard p < end else { return visited }
        }
    }

    /// No node is excluded by a depth.
    func isExcluded(_ slot: Slot, in forest: Forest) -> Bool { false }

    /// The base cover at position `p`.
    /// - Complexity: O(1)
    @inline(__always)
    func cover(at p: Int, in forest: Forest) -> Int32 {
        if forest.slotAt[p] < 0 { return SparseCover.infinite }
        return max(0, forest.depth[p] &- depth)
    }

    /// Recomputes the whole index.
    /// - Complexity: O(positions)
    mutating func rebuild(_ forest: Forest) {
        capacity = forest.capacity
        let blocks = max(1, (capacity + DepthBase.blockSize - 1) >> DepthBase.blockShift)
        leaves = 1
        while leaves < blocks { leaves <<= 1 }
        minimum = ContiguousArray(repeating: SparseCover.infinite, count: 2 * leaves)
        minimumCount = ContiguousArray(repeating: 0, count: 2 * leaves)
        for block in 0 ..< blocks { recomputeLeaf(block, forest) }
        for node in stride(from: leaves - 1, through: 1, by: -1) { pull(node) }
    }

    /// Follows a change of the nodes at the positions `range` (their number of positions
    /// unchanged); a forest whose capacity changed is indexed anew.
    /// - Complexity: O(range + (range / 64) · log n); O(positions) after a resize
    mutating func update(_ range: Range<Int>, _ forest: Forest) {
        if forest.capacity != capacity { rebuild(forest); return }
        guard !range.isEmpty else { return }
        let first = range.lowerBound >> DepthBase.blockShift, last = (range.upperBound - 1) >> DepthBase.blockShift
        for block in first ... last { recomputeLeaf(block, forest) }
        var lo = (leaves + first) >> 1, hi = (leaves + last) >> 1
        while lo >= 1 {
            for node in lo ... hi { pull(node) }
            lo >>= 1
            hi >>= 1
        }
    }

    /// The minimum base cover over the positions `l ..< r` and how many positions reach it
    /// (`SparseCover.infinite` and 0 when no node is there).
    /// - Complexity: O(log n + 128)
    func minimumAndCount(_ l: Int, _ r: Int, _ forest: Forest) -> (Int32, Int32) {
        guard l < r else { return (SparseCover.infinite, 0) }
        let first = l >> DepthBase.blockShift, last = (r - 1) >> DepthBase.blockShift
        if first == last { return scan(l, r, forest) }
        var result = combineMinimums(scan(l, (first + 1) << DepthBase.blockShift, forest),
                                       scan(last << DepthBase.blockShift, r, forest))
        var lo = leaves + first + 1, hi = leaves + last
        while lo < hi {
            if lo & 1 == 1 { result = combineMinimums(result, (minimum[lo], minimumCount[lo])); lo += 1 }
            if hi & 1 == 1 { hi -= 1; result = combineMinimums(result, (minimum[hi], minimumCount[hi])) }
            lo >>= 1
            hi >>= 1
        }
        return result
    }

    /// The position of the `k`-th (from 0) position of `l ..< r` whose base cover is `t`,
    /// for a `t` not above the minimum there; there must be more than `k`.
    /// - Complexity: O(log n + 128)
    func select(_ t: Int32, _ k: Int, _ l: Int, _ r: Int, _ forest: Forest) -> Int {
        var k = k
        let first = l >> DepthBase.blockShift, last = (r - 1) >> DepthBase.blockShift
        if let p = scanSelect(t, &k, l, first == last ? r : (first + 1) << DepthBase.blockShift, forest) { return p }
        precondition(first != last, "select past the range")
        // The whole blocks between: the canonical tree nodes, left to right.
        var lo = leaves + first + 1, hi = leaves + last
        var left: [Int] = [], right: [Int] = []
        while lo < hi {
            if lo & 1 == 1 { left.append(lo); lo += 1 }
            if hi & 1 == 1 { hi -= 1; right.append(hi) }
            lo >>= 1
            hi >>= 1
        }
        for var node in left + right.reversed() {
            let here = minimum[node] == t ? Int(minimumCount[node]) : 0
            if k >= here { k -= here; continue }
            while node < leaves {
                let child = 2 * node
                let inLeft = minimum[child] == t ? Int(minimumCount[child]) : 0
                if k < inLeft { node = child } else { k -= inLeft; node = child + 1 }
            }
            let block = node - leaves
            return scanSelect(t, &k, block << DepthBase.blockShift, min(capacity, (block + 1) << DepthBase.blockShift), forest)!
        }
        return scanSelect(t, &k, last << DepthBase.blockShift, r, forest)!
    }

    /// Where the index is stored (see `CoverIndex.storageAddresses`).
    var storageAddresses: [UInt] { [minimum, minimumCount].map(\.storageAddress) }

    /// Bytes held.
    var bytes: Int { (minimum.capacity + minimumCount.capacity) * 4 }

    private func scan(_ l: Int, _ r: Int, _ forest: Forest) -> (Int32, Int32) {
        var m = SparseCover.infinite, c: Int32 = 0
        let depth = self.depth
        forest.slotAt.withUnsafeBufferPointer { slots in
            forest.depth.withUnsafeBufferPointer { levels in
                for p in l ..< r where slots[p] >= 0 {
                    let x = max(0, levels[p] &- depth)
                    if x < m { m = x; c = 1 } else if x == m { c &+= 1 }
                }
            }
        }
        return (m, c)
    }

    private func scanSelect(_ t: Int32, _ k: inout Int, _ l: Int, _ r: Int, _ forest: Forest) -> Int? {
        for p in l ..< r where cover(at: p, in: forest) == t {
            if k == 0 { return p }
            k -= 1
        }
        return nil
    }

    private mutating func recomputeLeaf(_ block: Int, _ forest: Forest) {
        let start = block << DepthBase.blockShift
        (minimum[leaves + block], minimumCount[leaves + block]) = scan(start, min(capacity, start + DepthBase.blockSize), forest)
    }

    private mutating func pull(_ node: Int) {
        (minimum[node], minimumCount[node]) = combineMinimums((minimum[2 * node], minimumCount[2 * node]),
                                                                 (minimum[2 * node + 1], minimumCount[2 * node + 1]))
    }
}

#if TREE_INVARIANTS
extension DepthBase {
    /// Checks every block and tree node against a recount of the forest.
    func checkInvariants(_ forest: Forest) {
        precondition(capacity == forest.capacity, "depth base capacity \(capacity), forest \(forest.capacity)")
        var copy = self
        copy.rebuild(forest)
        precondition(copy.minimum == minimum && copy.minimumCount == minimumCount, "depth base \(depth) differs from a recount")
    }
}
#endif
