/// The views whose filtered rows for one text are exceptions over one shared filtered
/// state: a `SparseCover` each, with the state as its `CoverBase`.
///
/// A shared state is a filtered `ViewState` whose expansion is always exactly A, the
/// ancestors of matches (`FilterState.isShared`): the fresh state of the text's rows. It
/// follows every edit as any filtered state does, and its followers follow each change of
/// its covers on the way (`ViewState+Edits.swift`): a range addition shifts their
/// intervals (`SparseCover.shift`), nodes put or taken out go in or out of their
/// intervals, and a node entering or leaving A (`Flip`) has its exceptions recomputed.
struct Followers: Sendable {
    var covers: [ViewID: SparseCover] = [:]
    /// The views whose splices the running edit records, with what it recorded.
    var splices: [ViewID: [Splice]] = [:]
}

extension ViewState: CoverBase {
    /// The fresh expansion: exactly A in a shared state.
    @inline(__always)
    func isExpanded(_ slot: Slot, in forest: Forest) -> Bool { filter!.expanded.contains(slot.index) }

    /// - Complexity: O(log n)
    @inline(__always)
    func cover(at p: Int, in forest: Forest) -> Int32 {
        forest.slotAt[p] < 0 ? SparseCover.infinite : index.cover(at: Position(p))
    }

    /// - Complexity: O(log n + 128)
    func minimumAndCount(_ l: Int, _ r: Int, _ forest: Forest) -> (Int32, Int32) { index.minimumAndCount(l, r) }

    /// - Complexity: O(log n + 128)
    func select(_ t: Int32, _ k: Int, _ l: Int, _ r: Int, _ forest: Forest) -> Int { index.select(t, k, l, r) }

    /// A walk of the visible nodes as `DepthBase`'s, that steps over hidden (excluded)
    /// subtrees, and past 16 of them in a row selects the next row.
    /// - Complexity: O(visited + steps over hidden subtrees + (blocks entered + selects) · log n)
    func forEachPosition(withCover t: Int32, from p: Int, to end: Int, limit: Int, _ forest: Forest,
                         _ body: (Int) -> Void) -> Int {
        var p = p, visited = 0
        var block = -1, addition: Int32 = 0
        while true {
            body(p)
            visited += 1
            guard visited < limit else { return visited }
            var next = filter!.expanded.contains(Int(forest.slotAt[p])) ? p + 1 : Int(forest.endAt[p])
            var hidden = 0
            while true {
                guard next < end else { return visited }
                p = forest.nextNode(from: Position(next)).offset
                guard p < end else { return visited }
                if p >> CoverIndex.blockShift != block {
                    block = p >> CoverIndex.blockShift
                    addition = index.pathAddition(block)
                }
                if index.rawCover(p) &+ addition == t { break }
                next = Int(forest.endAt[p])
                hidden += 1
                if hidden == 16 {
                    guard next < end, index.minimumAndCount(next, end).0 == t else { return visited }
                    p = index.select(t, 0, next, end)
                    break
                }
            }
        }
    }

    /// Excluded: its parent in A (or a root) and itself neither in A nor a match.
    func isExcluded(_ slot: Slot, in forest: Forest) -> Bool {
        guard let filter else { return false }
        return !filter.isIncluded(slot) && (forest.parent(ofSlot: slot).map { filter.isAncestorOfMatch($0) } ?? true)
    }
}

extension ViewState {
    /// Whether views follow this state (it is shared).
    var hasFollowers: Bool { followers.map { !$0.covers.isEmpty } ?? false }

    /// Runs `body` on each follower with this state as its base, and whether the edit
    /// records its splices; a splice it returns is recorded.
    /// - Complexity: O(followers), plus what `body` costs
    mutating func follow(_ body: (_ id: ViewID, _ cover: inout SparseCover, _ base: ViewState, _ records: Bool) -> Splice?) {
        guard var taken = followers, !taken.covers.isEmpty else { return }
        // Taken out while they change, so that this state can be read as their base.
        followers = nil
        for i in taken.covers.indexList {
            let id = taken.covers.keys[i]
            let records = taken.splices[id] != nil
            if let splice = body(id, &taken.covers.values[i], self, records), records { taken.splices[id]!.append(splice) }
        }
        followers = taken
    }

    /// Adds `delta` to the covers of `range`, the followers following with a splice each
    /// of the rows it hid or showed.
    /// - Complexity: O(log n + followers · (log |X| + log n))
    mutating func add(_ delta: Int32, to range: Range<Position>, in forest: Forest) {
        guard hasFollowers else {
            index.add(delta, to: range)
            return
        }
        let positions = range.lowerBound.offset ..< range.upperBound.offset
        var hidden: [ViewID: Splice] = [:]
        if delta > 0 {
            follow { id, cover, base, records in
                if records, let splice = cover.splice(removing: positions, base, forest) { hidden[id] = splice }
                return nil
            }
        }
        index.add(delta, to: range)
        follow { id, cover, base, records in
            cover.shift(delta, positions, base, forest)
            guard records else { return nil }
            return delta > 0 ? hidden[id] : cover.splice(inserting: positions, base, forest)
        }
    }

    /// A node entered or left A: each follower's value of it as `Flip` says.
    /// - Complexity: O(followers · (log |X| + log n))
    mutating func follow(_ flip: Flip, in forest: Forest) {
        let inner = forest.descendants(of: forest.position(ofSlot: flip.slot))
        let positions = inner.lowerBound.offset ..< inner.upperBound.offset
        follow { _, cover, base, records in
            let before = records ? cover.rows(in: positions, base, forest) : 0
            let value = flip.expanded && !flip.kept ? true : cover.exception(flip.slot, forest) ?? !flip.expanded
            cover.setException(flip.slot, value, base, forest)
            guard records else { return nil }
            let after = cover.rows(in: positions, base, forest)
            return before == after ? nil
                : Splice(index: cover.rows(before: positions.lowerBound, base, forest), removed: before, inserted: after)
        }
    }
}

extension SparseCover {
    /// The splice of the visible rows at `range` leaving.
    func splice(removing range: Range<Int>, _ base: some CoverBase, _ forest: Forest) -> Splice? {
        let n = rows(in: range, base, forest)
        return n > 0 ? Splice(index: rows(before: range.lowerBound, base, forest), removed: n, inserted: 0) : nil
    }

    /// The splice of the visible rows at `range` arriving.
    func splice(inserting range: Range<Int>, _ base: some CoverBase, _ forest: Forest) -> Splice? {
        let n = rows(in: range, base, forest)
        return n > 0 ? Splice(index: rows(before: range.lowerBound, base, forest), removed: 0, inserted: n) : nil
    }
}
