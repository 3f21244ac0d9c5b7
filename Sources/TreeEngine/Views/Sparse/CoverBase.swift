/// What a `SparseCover` reads of the fresh state it stores a view's differences from: the
/// rule that says whether a node starts expanded, and the *base cover* of each position
/// under that rule (the collapsed and excluded ancestors it counts; `SparseCover.infinite`
/// where no node is), as range minima with their counts.
///
/// Two kinds: `DepthBase` (every node's expansion given by its level, for a view's
/// unfiltered rows) and a shared filtered `ViewState` (a filter's fresh rows: exactly the
/// ancestors of matches expanded, for every view filtering by that text).
protocol CoverBase {
    /// Whether the node in `slot` is expanded in the fresh state.
    func isExpanded(_ slot: Slot, in forest: Forest) -> Bool
    /// The base cover at position `p`.
    func cover(at p: Int, in forest: Forest) -> Int32
    /// The minimum base cover over the positions `l ..< r` and how many positions reach it
    /// (`SparseCover.infinite` and 0 when no node is there).
    func minimumAndCount(_ l: Int, _ r: Int, _ forest: Forest) -> (Int32, Int32)
    /// The `k`-th (from 0) position of `l ..< r` whose base cover is `t`, for a `t` not
    /// above the minimum there; there must be more than `k`.
    func select(_ t: Int32, _ k: Int, _ l: Int, _ r: Int, _ forest: Forest) -> Int
    /// Calls `body` with the positions of `p ..< end` whose base cover is `t`, in order, at
    /// most `limit` (from 1) of them, and returns how many: `p` is one, and they are the
    /// visible rows of an interval of a view over this base (no exception inside).
    func forEachPosition(withCover t: Int32, from p: Int, to end: Int, limit: Int, _ forest: Forest,
                         _ body: (Int) -> Void) -> Int
    /// Whether the node in `slot` hides itself and its subtree whatever the expansion (a
    /// filter's excluded nodes): what invariant checks walk by.
    func isExcluded(_ slot: Slot, in forest: Forest) -> Bool
}

extension CoverBase {
    /// The number of positions in `l ..< r` whose base cover is `t`, for a `t` not above
    /// the minimum there.
    @inline(__always)
    func count(_ t: Int32, _ l: Int, _ r: Int, _ forest: Forest) -> Int {
        let (m, c) = minimumAndCount(l, r, forest)
        return m == t ? Int(c) : 0
    }
}

/// Minimum-and-count pairs: the smaller minimum, or the counts added when they are equal.
@inline(__always)
func combineMinimums(_ a: (Int32, Int32), _ b: (Int32, Int32)) -> (Int32, Int32) {
    a.0 < b.0 ? a : b.0 < a.0 ? b : (a.0, a.1 &+ b.1)
}
