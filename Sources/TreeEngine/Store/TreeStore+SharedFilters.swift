/// A view's filtered rows for a text: exceptions over the text's shared state (a
/// `SparseCover` in `filterBases[text].followers`), or, after a bulk change of expansion
/// (expand all, collapse all, to a depth, a recursive change of many nodes), a dense state
/// of its own, which costs what the default view's filtered rows cost and no more.
///
/// The shared state of a text (`ViewState` with `FilterState.isShared`) is built when a
/// first view filters by it and dropped when the last one stops keeping it.
extension TreeStore {
    // MARK: Keeping a view's filtered rows

    /// Makes `filter`'s rows the most recently used of view `id`, building them when it
    /// does not keep them: over the text's shared state, built first when no view has it.
    /// - Complexity: O(log n) when another view filters by the text; else a build
    mutating func prepareShared(_ filter: FilterQuery, in id: ViewID, isCancelled: () -> Bool) throws(Cancelled) {
        if let i = userViews[id]!.filtered.firstIndex(where: { $0.query == filter }) {
            let entry = userViews[id]!.filtered.remove(at: i)
            userViews[id]!.filtered.append(entry)
            return
        }
        // Cancelled before anything changes, even when nothing is to be built.
        if isCancelled() { throw Cancelled() }
        try acquireFilterBase(filter, isCancelled: isCancelled)
        let cover = SparseCover(base: filterBases[filter]!, forest: forest)
        filterBases[filter]!.followers!.covers[id] = cover
        userViews[id]!.filtered.append((filter, nil))
        // A transaction drops no view (see `transaction`).
        if undo == nil { dropLeastUsedFilters(of: id) }
    }

    /// Builds the shared state of `filter` unless some view uses it.
    mutating func acquireFilterBase(_ filter: FilterQuery, isCancelled: () -> Bool) throws(Cancelled) {
        guard filterBases[filter] == nil else { return }
        // A shared state whose query the new one narrows: only its matches can match.
        let slots = forest.flags.count
        let narrowed = filterBases.values.lazy.filter { filter.isNarrowing($0.filter!.matcher.query) && $0.filter!.matches.count == slots }
            .min { $0.filter!.matchCount < $1.filter!.matchCount }
        do {
            var state = try ViewState.filtered(forest, query: filter, workers: filterWorkers, narrowing: narrowed,
                                               isCancelled: isCancelled)
            state.filter!.isShared = true
            state.followers = Followers()
            filterBases[filter] = state
            if narrowed != nil { narrowedBuilds += 1 }
        } catch {
            throw Cancelled()
        }
    }

    /// Drops view `id`'s least recently used filtered rows past `filteredViewCapacity`.
    mutating func dropLeastUsedFilters(of id: ViewID) {
        let excess = userViews[id]!.filtered.count - filteredViewCapacity
        guard excess > 0 else { return }
        for entry in userViews[id]!.filtered.prefix(excess) where entry.own == nil { unfollow(entry.query, id) }
        userViews[id]!.filtered.removeFirst(excess)
    }

    /// View `id` stops following the shared state of `filter`, dropped when it was the last.
    mutating func unfollow(_ filter: FilterQuery, _ id: ViewID) {
        filterBases[filter]!.followers!.covers[id] = nil
        filterBases[filter]!.followers!.splices[id] = nil
        if filterBases[filter]!.followers!.covers.isEmpty { filterBases[filter] = nil }
    }

    /// View `id` keeps (most recently used) the filtered rows of `filter` with the expansion
    /// `expanded` (a bit per slot): exceptions over the text's shared state where the two
    /// differ, or a state of its own when they differ in many nodes.
    /// - Complexity: O(slots / 64 + differences · (log |X| + log n)), plus a build when
    ///   no view filters by the text
    mutating func keepFiltered(_ filter: FilterQuery, in id: ViewID, expanded: Bitset) {
        try! acquireFilterBase(filter, isCancelled: { false })
        let differences = expanded.differences(from: filterBases[filter]!.filter!.expanded).filter { !forest.flags[$0].contains(.free) }
        if isTooManyForSparse(differences.count) {
            userViews[id]!.filtered.append((filter, ViewState.unshared(filterBases[filter]!, expanded: expanded, forest)))
            if filterBases[filter]!.followers!.covers.isEmpty { filterBases[filter] = nil }
            return
        }
        let fresh = SparseCover(base: filterBases[filter]!, forest: forest)
        filterBases[filter]!.followers!.covers[id] = fresh
        withSharedRows(filter, id) { cover, base, forest in
            for slot in differences { cover.setException(Slot(slot), expanded.contains(slot), base, forest) }
        }
        userViews[id]!.filtered.append((filter, nil))
    }

    // MARK: Reading

    /// The shared filtered rows `view` names, without building anything.
    func sharedRows(_ view: ViewRef) -> SparseRows<ViewState>? {
        guard let id = view.view, let filter = view.filter, let base = filterBases[filter],
              let cover = base.followers!.covers[id] else { return nil }
        return SparseRows(cover: cover, base: base)
    }

    /// Makes the filtered rows `view` names kept and most recently used, then gives them
    /// when they are shared.
    mutating func prepareSharedRows(_ view: ViewRef) -> SparseRows<ViewState>? {
        guard view.view != nil, view.filter != nil else { return nil }
        try! prepareView(view)
        return sharedRows(view)
    }

    /// What a row of shared filtered rows reports of its match.
    func matchInfo(_ base: ViewState) -> (Slot, Position) -> (Bool, Int?) {
        { [forest] slot, p in (base.filter!.matches.contains(slot.index), base.filter!.matchesBelow(slot: slot, at: p, in: forest)) }
    }

    // MARK: Changing expansion

    /// Expands or collapses `node` in view `id`'s shared rows of `filter`, as
    /// `setSparseExpanded` does a view's unfiltered rows; nil when a recursive change would
    /// make them hold more than a dense state would (`isTooManyForSparse`): they are a dense
    /// state of the view's own then, and the caller changes that.
    mutating func setSharedExpanded(_ node: NodeHandle, _ value: Bool, recursive: Bool, _ filter: FilterQuery, _ id: ViewID) -> [Splice]? {
        let targets = recursive ? recursiveTargets(of: node, value) : []
        if recursive && isTooManyForSparse(filterBases[filter]!.followers!.covers[id]!.exceptionCount + targets.count) {
            makeOwn(filter, id)
            return nil
        }
        let splice = withSharedRows(filter, id) { cover, base, forest in
            recursive ? cover.setExpanded(targets, below: node.slot, value, base, forest) : cover.setExpanded(node.slot, value, base, forest)
        }
        if isTooManyForSparse(filterBases[filter]!.followers!.covers[id]!.exceptionCount) { makeOwn(filter, id) }
        checkInvariants()
        return splice.map { [$0] } ?? []
    }

    /// Runs `body` on view `id`'s cover of `filter`'s shared state, with the state as its
    /// base: the followers are taken out meanwhile, so that the cover changes in place (a
    /// reference to the state held across the change would copy them and the cover).
    private mutating func withSharedRows<R>(_ filter: FilterQuery, _ id: ViewID,
                                            _ body: (inout SparseCover, ViewState, Forest) -> R) -> R {
        var followers = filterBases[filter]!.followers!
        filterBases[filter]!.followers = nil
        defer { filterBases[filter]!.followers = followers }
        return body(&followers.covers[id]!, filterBases[filter]!, forest)
    }

    /// After an edit: a view whose filtered rows over a shared state now hold more than a
    /// dense state would (nodes leaving A keep each view's expansion, as exceptions) gets a
    /// dense state of its own.
    /// - Complexity: O(views following shared states), plus O(n) for each view that turns dense
    mutating func settleAllFollowers() {
        settleFollowers()
        forEachSortedWorld { store, _, _, _ in store.settleFollowers() }
    }

    private mutating func settleFollowers() {
        var crowded: [(FilterQuery, ViewID)] = []
        for (query, base) in filterBases {
            for (id, cover) in base.followers!.covers where isTooManyForSparse(cover.exceptionCount) { crowded.append((query, id)) }
        }
        for (query, id) in crowded { makeOwn(query, id) }
    }

    /// Turns view `id`'s shared rows of `filter` into a dense state of its own, with the
    /// same expansion.
    /// - Complexity: O(n)
    mutating func makeOwn(_ filter: FilterQuery, _ id: ViewID) {
        let own = ViewState.unshared(filterBases[filter]!, expanded: filteredExpansion(filter, in: id), forest)
        unfollow(filter, id)
        let i = userViews[id]!.filtered.firstIndex { $0.query == filter }!
        userViews[id]!.filtered[i].own = own
    }

    /// The texts views filter by, each with the bytes of its shared state and the number
    /// of views following it, in each order (a text views filter by in two orders: twice).
    /// - Complexity: O(texts)
    public var sharedFilters: [(query: FilterQuery, bytes: Int, views: Int)] {
        ([filterBases] + sortedLayouts.map(\.views.filterBases)).flatMap { bases in
            bases.map { ($0.key, $0.value.bytes, $0.value.followers!.covers.count) }
        }
    }

    /// The bytes view `id`'s shared filtered rows hold (the shared states not counted).
    func sharedBytes(_ id: ViewID) -> Int {
        userViews[id]!.filtered.reduce(0) { sum, entry in
            sum + (entry.own == nil ? filterBases[entry.query]!.followers!.covers[id]!.bytes : 0)
        }
    }

    /// The expansion of view `id`'s filtered rows of `filter`, a bit per slot.
    /// - Complexity: O(slots / 64 + exceptions)
    func filteredExpansion(_ filter: FilterQuery, in id: ViewID) -> Bitset {
        let entry = userViews[id]!.filtered.first { $0.query == filter }!
        if let own = entry.own { return own.filter!.expanded }
        var bits = filterBases[filter]!.filter!.expanded
        for exception in filterBases[filter]!.followers!.covers[id]!.exceptions { bits.set(exception.slot.index, exception.expanded) }
        return bits
    }
}

extension ViewState {
    /// A shared state's copy as a view's state of its own with the expansion `expanded` (no
    /// followers, keeping expansion as a view's own state does).
    /// - Complexity: O(n)
    static func unshared(_ state: ViewState, expanded: Bitset, _ forest: Forest) -> ViewState {
        var own = state
        own.followers = nil
        own.filter!.isShared = false
        own.filter!.expanded = expanded
        own.reindex(forest)
        return own
    }
}
