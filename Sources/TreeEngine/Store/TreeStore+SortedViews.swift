/// Sorted views (issue 37): a view sorted by some keys keeps everything it has (its
/// unfiltered rows over a `DepthBase`, its filtered rows over the texts' shared states, its
/// selection) in the positions of the sorted layout of those keys, where siblings stand in
/// the sort's order. Each sorted layout holds the views sorted by it and what they share
/// (`LayoutViews`), the store's own fields those in the tree's order.
///
/// `swapWorld` exchanges the store's forest positions and view fields with a layout's in
/// O(1), so that all the code of views (rows, toggles, selection, the following of edits)
/// runs on a sorted layout unchanged: an operation that names a sorted view runs with its
/// layout swapped in (`inWorld`), and an edit is followed in the tree's order, then in each
/// layout with its views (`forEachSortedWorld`, `TreeStore+Editing.swift`). The default view
/// is always in the tree's order.
struct LayoutViews: Sendable {
    var userViews: [ViewID: UserView] = [:]
    var depthBases: [Int32: (base: DepthBase, users: Int)] = [:]
    var filterBases: [FilterQuery: ViewState] = [:]
    var selections: [ViewID?: Selection] = [:]
    /// Always empty in a layout: the default view's filtered rows and the aggregates are
    /// the tree order's (an aggregate of a subtree does not depend on the order).
    var filtered: [(query: FilterQuery, view: ViewState)] = []
    var aggregateIndexes: [AggregateIndex] = []

    var isEmpty: Bool { userViews.isEmpty }
}

extension TreeStore {
    // MARK: Which views are sorted

    /// The sort of view `id`, nil when it shows the tree's order (the default view always).
    /// - Complexity: O(1)
    public func sort(of id: ViewID?) -> SortKeys? { id.flatMap { viewSorts[$0] } }

    /// Sorts the view `view` names by `sort` (nil: the tree's order), keeping every node's
    /// expansion and selection in its unfiltered and kept filtered rows; the layout of `sort`
    /// is built first unless kept. Returns the splices of the rows `view` names (all of them
    /// replaced; its filter, if any, kept), and records the same for its observed rows.
    /// - Precondition: `view.view` is a view; not in a transaction.
    /// - Complexity: O(the view's changes · log n), plus O(n) for each kept filtered row set
    ///   whose text no view in the new order filters by, and a sort's build when not kept
    public mutating func setSort(_ sort: SortKeys?, of view: ViewRef) -> [Splice] {
        precondition(undo == nil && layoutKeys == nil, "sorts change outside transactions")
        let id = view.view!
        if view.filter != nil { try! prepareView(view) }
        guard sort != viewSorts[id] else { return [] }
        let lists = [ViewRef(id)] + keptFilters(in: id).map { ViewRef(id, filter: $0) }
        let before = lists.map { keptRowCount($0)! }
        // Built while the view still holds its filters' columns (a build may drop unused ones).
        if let sort { prepareSort(sort) }
        let moving = inWorld(of: id) { $0.takeView(id) }
        viewSorts[id] = sort
        inWorld(of: id) { $0.putView(id, moving) }
        dropUnusedLayouts()
        dropUnusedFields()
        var result: [Splice] = []
        for (rows, total) in zip(lists, before) {
            let now = keptRowCount(rows)!
            let splices = total == 0 && now == 0 ? [] : [Splice(index: 0, removed: total, inserted: now)]
            if rows == view { result = splices } else if observedViews.contains(rows) { observedSplices[rows, default: []] += splices }
        }
        checkInvariants()
        return result
    }

    /// A view as it moves between orders: what it changed, named by slot.
    struct MovingView {
        var depth: Int32
        var exceptions: [(slot: Slot, expanded: Bool)]
        var dense: Bitset?
        var filtered: [(query: FilterQuery, expanded: Bitset)]
        var selection: (all: Bool, toggles: [Slot])?
    }

    /// Takes view `id` out of the order swapped in.
    private mutating func takeView(_ id: ViewID) -> MovingView {
        let view = userViews[id]!
        let moving = MovingView(depth: view.depth, exceptions: view.cover.exceptions, dense: view.dense?.own!.expanded,
                                filtered: view.filtered.map { ($0.query, filteredExpansion($0.query, in: id)) },
                                selection: selections[id].map { ($0.all, $0.toggles.map { Slot(rawValue: $0) }) })
        removeView(id)
        return moving
    }

    /// Puts `moving` into the order swapped in as view `id`.
    private mutating func putView(_ id: ViewID, _ moving: MovingView) {
        userViews[id] = freshView(depth: moving.depth)
        if let bits = moving.dense {
            userViews[id]!.dense = ViewState.dense(bits, depth: moving.depth, forest)
        } else {
            let base = depthBases[moving.depth]!.base
            for exception in moving.exceptions { userViews[id]!.cover.setException(exception.slot, exception.expanded, base, forest) }
        }
        for (query, expanded) in moving.filtered { keepFiltered(query, in: id, expanded: expanded) }
        if let selection = moving.selection {
            changeSelection(of: id) { state, forest, nodes in
                state.reset(selection.all, forest)
                for slot in selection.toggles { state.toggle(slot, forest, nodes) }
            }
        }
    }

    /// Drops the layouts no view is sorted by past `sortCapacity`, least recently used first
    /// (never the most recently used).
    mutating func dropUnusedLayouts() {
        guard undo == nil, layoutKeys == nil, let newest = sortedLayouts.last?.keys else { return }
        var excess = sortedLayouts.count - max(1, sortCapacity)
        sortedLayouts.removeAll { layout in
            guard excess > 0, layout.views.isEmpty, layout.keys != newest else { return false }
            excess -= 1
            return true
        }
    }

    // MARK: Running in a layout

    /// The index in `sortedLayouts` of the layout whose views hold view `id`, nil when it is
    /// in the tree's order or a layout is swapped in already.
    func sortedWorld(of id: ViewID?) -> Int? {
        guard layoutKeys == nil, let id, let sort = viewSorts[id] else { return nil }
        return sortedLayouts.firstIndex { $0.keys == sort }!
    }

    /// Runs `body` with the layout of view `id`'s sort swapped in (as is when the view is in
    /// the tree's order).
    mutating func inWorld<R, E: Error>(of id: ViewID?, _ body: (inout TreeStore) throws(E) -> R) throws(E) -> R {
        guard let i = sortedWorld(of: id) else { return try body(&self) }
        var layouts = sortedLayouts
        sortedLayouts = []
        swapWorld(&layouts[i])
        defer {
            swapWorld(&layouts[i])
            sortedLayouts = layouts
        }
        return try body(&self)
    }

    /// `inWorld` for readers: a copy of the store (its columns shared) with the layout swapped in.
    func readInWorld<R>(of id: ViewID?, _ body: (TreeStore) -> R) -> R {
        guard let i = sortedWorld(of: id) else { return body(self) }
        var store = self
        var layout = sortedLayouts[i]
        store.sortedLayouts = []
        store.swapWorld(&layout)
        return body(store)
    }

    /// Runs `body` in each sorted layout in turn (swapped in), with its index, its keys and
    /// the tree order's positions by slot (for ties between siblings).
    mutating func forEachSortedWorld(_ body: (inout TreeStore, Int, SortKeys, ContiguousArray<Int32>) -> Void) {
        guard !sortedLayouts.isEmpty, layoutKeys == nil else { return }
        var layouts = sortedLayouts
        sortedLayouts = []
        for i in layouts.indices {
            swapWorld(&layouts[i])
            body(&self, i, layouts[i].keys, layouts[i].columns.positionOf)
            swapWorld(&layouts[i])
        }
        sortedLayouts = layouts
    }

    /// Exchanges the forest's positions and the views' fields with `layout`'s.
    /// - Complexity: O(1)
    mutating func swapWorld(_ layout: inout SortedLayout) {
        // Slots new to the forest have no position in the layout yet.
        if layoutKeys == nil, layout.columns.positionOf.count < forest.flags.count {
            layout.columns.positionOf.append(contentsOf: repeatElement(-1, count: forest.flags.count - layout.columns.positionOf.count))
        }
        forest.swapLayout(&layout.columns)
        swap(&userViews, &layout.views.userViews)
        swap(&depthBases, &layout.views.depthBases)
        swap(&filterBases, &layout.views.filterBases)
        swap(&selections, &layout.views.selections)
        swap(&filtered, &layout.views.filtered)
        swap(&aggregateIndexes, &layout.views.aggregateIndexes)
        swap(&childBases, &layout.childBases)
        layoutKeys = layoutKeys == nil ? layout.keys : nil
    }
}
