/// One view of a forest: its expansion state, its filter, and the index of its
/// visible rows.
///
/// The unfiltered view keeps expansion in the forest's per-node flags; a filtered
/// view keeps its own per-slot state. Both follow every edit in place (see
/// `ViewState+Edits.swift`).
///
/// A filtered view shows the matches (M), the ancestors of matches (A) and the
/// descendants of matches that are not themselves excluded; a node is *excluded*
/// when its parent is in A (or it is a root) and it is neither in A nor in M, and an
/// excluded node hides its subtree. The cover of a position (see `CoverIndex`) is
/// the number of its collapsed strict ancestors plus the number of excluded nodes
/// among it and its ancestors.
struct ViewState: Sendable {
    var filter: FilterState?
    var index: CoverIndex
    /// The views following this filtered state when it is shared (`ViewState+Followers.swift`).
    var followers: Followers? = nil
    /// An unfiltered state's own expansion (a user's view that changed too many nodes to keep
    /// them as exceptions, see `TreeStore+Views.swift`); nil: the forest's `expanded` flags.
    var own: OwnExpansion? = nil

    /// A user's view's expansion, a bit per slot, and the rule of its start, which nodes put
    /// into the forest follow: expanded iff their level is below `depth` (`DepthBase`). A
    /// node that moves keeps its bit when it differs from the rule at its old level, and
    /// else follows the rule at its new one, as a view's exceptions do.
    struct OwnExpansion: Sendable {
        var expanded: Bitset
        let depth: Int32
        @inline(__always) func rule(level: Int) -> Bool { level < Int(depth) }
    }

    /// What a filtered view knows besides its index, by slot.
    struct FilterState: Sendable {
        let matcher: NodeMatcher
        /// Matching nodes (M).
        var matches: Bitset
        /// Expansion in this view.
        var expanded: Bitset
        /// Ancestors of matches (A).
        var ancestors: Bitset
        /// The number of matches among each node's descendants (not zero exactly in A):
        /// counted when the view first follows an edit, kept by edits. Before that, the match
        /// index a build leaves gives the same counts (`matchesBelow(slot:at:in:)`).
        var matchesBelow: MatchCounts?
        var matchCount: Int
        /// How many threads matched the titles when the view was built.
        let workers: Int
        /// A shared state: its expansion is always exactly A (a node entering A is
        /// expanded, one leaving it collapsed), its followers keep their own differences.
        var isShared = false
        /// The matches in tree order, for rank and select: built when first asked for,
        /// dropped by every edit of the forest.
        var matchIndex: MatchIndex? = nil

        /// The matches among the descendants of the node in `slot` at position `p`: from the
        /// counts edits keep, or (before the first edit) from the match index a build leaves.
        /// - Complexity: O(1), or O(64) from the index
        func matchesBelow(slot: Slot, at p: Position, in forest: Forest) -> Int {
            if let counts = matchesBelow { return Int(counts[slot.index]) }
            return matchIndex!.rank(forest.subtreeEnd(of: p)) - matchIndex!.rank(p + 1)
        }

        @inline(__always) func isAncestorOfMatch(_ slot: Slot) -> Bool { ancestors.contains(slot.index) }
        /// In A or in M: never excluded.
        @inline(__always) func isIncluded(_ slot: Slot) -> Bool { isAncestorOfMatch(slot) || matches.contains(slot.index) }
    }

    /// Where the view's columns are stored (see `CoverIndex.storageAddresses`).
    var storageAddresses: [UInt] {
        guard let filter else { return index.storageAddresses }
        return index.storageAddresses + [filter.matches.words, filter.expanded.words, filter.ancestors.words].map(\.storageAddress)
            + [filter.matchesBelow?.storageAddress ?? 0]
    }

    /// Bytes held (its followers not counted).
    var bytes: Int {
        guard let filter else { return index.bytes }
        return index.bytes + [filter.matches, filter.expanded, filter.ancestors].reduce(0) { $0 + $1.words.capacity * 8 }
            + (filter.matchesBelow?.bytes ?? 0)
    }

    /// Signals that a filter build was cancelled.
    struct Cancelled: Error {}

    // MARK: Building

    /// The unfiltered view of `forest`, from its nodes' expanded flags.
    /// - Complexity: O(positions)
    static func unfiltered(_ forest: Forest) -> ViewState {
        ViewState(filter: nil, index: CoverIndex(covers: unfilteredCovers(forest)))
    }

    /// An unfiltered view of `forest` with its own expansion (`OwnExpansion`).
    /// - Complexity: O(positions)
    static func dense(_ expanded: Bitset, depth: Int32, _ forest: Forest) -> ViewState {
        var state = ViewState(filter: nil, index: CoverIndex(covers: []), own: OwnExpansion(expanded: expanded, depth: depth))
        state.reindex(forest)
        return state
    }

    static func unfilteredCovers(_ forest: Forest) -> ContiguousArray<Int32> {
        forest.flags.withUnsafeBufferPointer { flags in
            computeCovers(forest, expanded: { flags[$0.index].contains(.expanded) }, excludedTop: { _, _ in false })
        }
    }

    /// The covers of a view: each collapsed node covers its descendants, and each
    /// excluded node covers itself and its descendants; gaps get `CoverIndex.gapCover`.
    /// - Complexity: O(positions)
    @inline(__always)
    static func computeCovers(_ forest: Forest, expanded: (Slot) -> Bool,
                              excludedTop: (_ slot: Slot, _ depth: Int) -> Bool) -> ContiguousArray<Int32> {
        let n = forest.capacity
        var base: [Int32] = [0]
        return forest.depth.withUnsafeBufferPointer { depth in
            forest.slotAt.withUnsafeBufferPointer { slotAt in
                ContiguousArray<Int32>(unsafeUninitializedCapacity: n) { out, initialized in
                    for p in 0 ..< n {
                        if slotAt[p] < 0 {
                            out[p] = CoverIndex.gapCover
                            continue
                        }
                        let slot = Slot(rawValue: slotAt[p])
                        let d = Int(depth[p])
                        var c = base[d]
                        if excludedTop(slot, d) { c += 1 }
                        out[p] = c
                        let child = c + (expanded(slot) ? 0 : 1)
                        if d + 1 < base.count { base[d + 1] = child } else { base.append(child) }
                    }
                    initialized = n
                }
            }
        }
    }

    /// A filtered view of `forest` for `query`, in its initial state: exactly the
    /// ancestors of matches expanded. The build runs on `workers` threads (by default as
    /// many as `ParallelWork.workerCount` gives for the forest's size); see
    /// `ViewState+FilterBuild.swift`. `narrowing`: a filtered view of this forest whose
    /// query `query` narrows (`FilterQuery.isNarrowing`): only its matches' titles are
    /// matched, and the view is the same as without (when the matches are all of that
    /// view's and it is in its initial state, it is that view's index and bits, shared).
    /// - Complexity: O(positions + total title length), divided by the workers;
    ///   narrowing a view with the same matches: O(matched title length / workers + slots / 64)
    static func filtered(_ forest: Forest, query: FilterQuery, workers: Int? = nil, narrowing base: ViewState? = nil,
                         isCancelled: () -> Bool) throws(Cancelled) -> ViewState {
        let workers = max(1, workers ?? ParallelWork.workerCount(items: forest.count))
        precondition(base.map { $0.filter!.matches.count == forest.flags.count } ?? true, "the narrowed view's matches cover every slot")
        return try buildFiltered(forest, query: query, narrowing: base, workers: workers, isCancelled: isCancelled)
    }

    /// The ancestors of matches: one pass over the positions with the open ancestors
    /// on a stack, marking upwards from each match until a marked one.
    /// - Complexity: O(positions)
    static func ancestorBits(_ forest: Forest, matches: Bitset) -> Bitset {
        var ancestors = Bitset(count: matches.count)
        forest.slotAt.withUnsafeBufferPointer { slotAt in
            forest.depth.withUnsafeBufferPointer { depth in
                var open: [Int32] = []  // the open ancestors' slots, by level
                for p in 0 ..< slotAt.count {
                    let slot = slotAt[p]
                    if slot < 0 { continue }
                    let d = Int(depth[p])
                    if d < open.count { open[d] = slot } else { open.append(slot) }
                    if matches.contains(Int(slot)) {
                        var i = d - 1
                        while i >= 0 && !ancestors.contains(Int(open[i])) {
                            ancestors.insert(Int(open[i]))
                            i -= 1
                        }
                    }
                }
            }
        }
        return ancestors
    }

    /// For every slot, the number of matches among its descendants: one pass over
    /// the positions backwards, summing each node's children at the level below.
    /// - Complexity: O(positions)
    static func matchesBelow(_ forest: Forest, matches: Bitset) -> MatchCounts {
        var below = MatchCounts(count: forest.flags.count)
        var sums: [UInt32] = [0, 0]  // sums[d]: matches in the subtrees of the pending nodes at level d
        forest.slotAt.withUnsafeBufferPointer { slotAt in
            forest.depth.withUnsafeBufferPointer { depth in
                var p = slotAt.count - 1
                while p >= 0 {
                    let slot = Int(slotAt[p])
                    if slot >= 0 {
                        let d = Int(depth[p])
                        while sums.count < d + 2 { sums.append(0) }
                        let inside = sums[d + 1]
                        if inside > 0 {
                            sums[d + 1] = 0
                            below[slot] = inside
                        }
                        if matches.contains(slot) { sums[d] &+= inside &+ 1 } else if inside > 0 { sums[d] &+= inside }
                    }
                    p -= 1
                }
            }
        }
        return below
    }

    static func filteredCovers(_ forest: Forest, _ state: FilterState) -> ContiguousArray<Int32> {
        var inAByDepth: [Bool] = []
        return computeCovers(
            forest,
            expanded: { state.expanded.contains($0.index) },
            excludedTop: { slot, d in
                let inA = state.isAncestorOfMatch(slot)
                if d < inAByDepth.count { inAByDepth[d] = inA } else { inAByDepth.append(inA) }
                let parentInA = d == 0 || inAByDepth[d - 1]
                return parentInA && !inA && !state.matches.contains(slot.index)
            })
    }

    // MARK: Reading

    /// Whether the node at `p` is expanded in this view.
    @inline(__always)
    func isExpanded(at p: Position, in forest: Forest) -> Bool { isExpanded(slot: forest.slot(at: p), in: forest) }

    /// Whether the node in `slot` is expanded in this view.
    @inline(__always)
    func isExpanded(slot: Slot, in forest: Forest) -> Bool {
        if let filter { return filter.expanded.contains(slot.index) }
        if let own { return own.expanded.contains(slot.index) }
        return forest.flags[slot.index].contains(.expanded)
    }

    /// What a row reports of the node at `p`: its expansion, except that with its own
    /// expansion a node that follows the rule reports it only when it has children (as a
    /// view's exceptions report it, see `TreeStore.sparseIsExpanded`).
    @inline(__always)
    func reportedExpansion(at p: Position, in forest: Forest) -> Bool {
        let expanded = isExpanded(at: p, in: forest)
        guard let own, expanded == own.rule(level: forest.level(at: p)) else { return expanded }
        return expanded && forest.hasChildren(atPosition: p)
    }

    /// Whether the node at `p` is a match of this view's filter.
    @inline(__always)
    func isMatch(at p: Position, in forest: Forest) -> Bool { filter?.matches.contains(forest.slot(at: p).index) ?? false }

    /// The row index of the node at `p`, or nil when it is not visible.
    /// - Complexity: O(log n)
    func rowIndex(at p: Position) -> Int? { index.rank(ofZero: p) }

    // MARK: Changing expansion

    /// Sets the expansion of the node at `p` and returns the splice of visible rows.
    /// - Complexity: O(log n)
    mutating func setExpanded(at p: Position, to value: Bool, in forest: inout Forest) -> [Splice] {
        if isExpanded(at: p, in: forest) == value { return [] }
        setExpansionBit(at: p, to: value, in: &forest)
        let range = forest.descendants(of: p)
        if range.isEmpty { return [] }
        if value {
            index.add(-1, to: range)
            let inserted = index.zeros(in: range)
            return inserted == 0 ? [] : [Splice(index: index.zeros(before: p) + 1, removed: 0, inserted: inserted)]
        } else {
            let removed = index.zeros(in: range)
            index.add(1, to: range)
            return removed == 0 ? [] : [Splice(index: index.zeros(before: p) + 1, removed: removed, inserted: 0)]
        }
    }

    /// Records the expansion of `p` (the view's bit, or the node's flag in the
    /// unfiltered view) without touching the index.
    @inline(__always)
    mutating func setExpansionBit(at p: Position, to value: Bool, in forest: inout Forest) {
        if filter != nil {
            filter!.expanded.set(forest.slot(at: p).index, value)
        } else if own != nil {
            own!.expanded.set(forest.slot(at: p).index, value)
        } else {
            forest.setFlag(.expanded, value, at: p)
        }
    }

    /// Expanding: sets `p` and every descendant that has children expanded.
    /// Collapsing: collapses `p` and every descendant, leaves included, so that no
    /// node of the subtree stays open (as after `collapseAll`).
    /// - Complexity: O(s log n) for a subtree of s nodes, O(n) when s is large
    mutating func setExpandedRecursively(at p: Position, to value: Bool, in forest: inout Forest) -> [Splice] {
        let end = forest.subtreeEnd(of: p)
        var changed: [Position] = []
        forest.forEachPosition(in: p ..< end) { q in
            if (q == p || !value || forest.hasChildren(atPosition: q)) && isExpanded(at: q, in: forest) != value {
                changed.append(q)
            }
        }
        if changed.isEmpty { return [] }
        if changed.count * 64 > forest.count {
            return rebuild(&forest) { view, forest in
                for q in changed { view.setExpansionBit(at: q, to: value, in: &forest) }
            }
        }
        let inner = forest.descendants(of: p)
        let before = index.zeros(in: inner)
        for q in changed {
            setExpansionBit(at: q, to: value, in: &forest)
            index.add(value ? -1 : 1, to: forest.descendants(of: q))
        }
        let after = index.zeros(in: inner)
        guard before != after, index.isZero(p) else { return [] }
        return [Splice(index: index.zeros(before: p) + 1, removed: before, inserted: after)]
    }

    /// Every node that has children expanded (`depth == nil`), or exactly the nodes
    /// with children at a level below `depth`; all others collapsed.
    /// - Complexity: O(n)
    mutating func expand(belowDepth depth: Int?, in forest: inout Forest) -> [Splice] {
        let limit = depth ?? .max
        return setAll(in: &forest) { p, forest in
            forest.level(at: p) < limit && forest.hasChildren(atPosition: p)
        }
    }

    /// Every node collapsed.
    /// - Complexity: O(n)
    mutating func collapseAll(in forest: inout Forest) -> [Splice] {
        setAll(in: &forest) { _, _ in false }
    }

    /// Sets every node's expansion to `value(position)`, then rebuilds and diffs.
    private mutating func setAll(in forest: inout Forest, _ value: @escaping (Position, Forest) -> Bool) -> [Splice] {
        rebuild(&forest) { view, forest in
            if view.filter != nil {
                var bits = Bitset(count: forest.flags.count)
                forest.forEachPosition { p in if value(p, forest) { bits.insert(forest.slot(at: p).index) } }
                view.filter!.expanded = bits
            } else {
                let snapshot = forest
                forest.flags.withUnsafeMutableBufferPointer { flags in
                    snapshot.forEachPosition { p in
                        let s = snapshot.slot(at: p).index
                        if value(p, snapshot) { flags[s].insert(.expanded) } else { flags[s].remove(.expanded) }
                    }
                }
            }
        }
    }

    /// Applies a bulk change of expansion, rebuilds the index, and diffs the rows.
    /// - Complexity: O(n)
    mutating func rebuild(_ forest: inout Forest, _ change: (inout ViewState, inout Forest) -> Void) -> [Splice] {
        let before = index.zeroBits()
        let oldTotal = index.zeroCount
        change(&self, &forest)
        reindex(forest)
        return Splice.diff(before: before, oldTotal: oldTotal, after: index.zeroBits(), newTotal: index.zeroCount)
    }

    /// Puts back a filtered view's expansion and matches (a transaction's rollback)
    /// and recomputes the rest.
    /// - Complexity: O(positions)
    mutating func restore(expanded: Bitset, matches: Bitset, matchCount: Int, in forest: Forest) {
        filter!.expanded = expanded
        filter!.matches = matches
        filter!.matchCount = matchCount
        filter!.matchesBelow = nil
        filter!.matchIndex = nil
        reserveSlots(forest)
        filter!.matchesBelow = ViewState.matchesBelow(forest, matches: filter!.matches)
        filter!.ancestors = ViewState.ancestorBits(forest, matches: filter!.matches)
        reindex(forest)
    }

    /// Rebuilds the index from the expansion state.
    /// - Complexity: O(n)
    mutating func reindex(_ forest: Forest) {
        index = CoverIndex(covers: covers(forest))
    }

    /// The covers of every position by definition.
    /// - Complexity: O(positions)
    func covers(_ forest: Forest) -> ContiguousArray<Int32> {
        if let own {
            return ViewState.computeCovers(forest, expanded: { own.expanded.contains($0.index) }, excludedTop: { _, _ in false })
        }
        return filter.map { ViewState.filteredCovers(forest, $0) } ?? ViewState.unfilteredCovers(forest)
    }
}
