/// One session's tree and its views.
///
/// A view is what one user sees of the tree: its expansion and, for a text it filters
/// by, its filtered rows. The *default view* (`ViewRef.view == nil`) is the session's
/// own: its unfiltered expansion lives in the forest's node flags and its filtered rows
/// are dense indexes (`ViewState`). Any number of further views (`createView`) each keep
/// their unfiltered expansion as exceptions over a shared base (`SparseCover` over a
/// `DepthBase`, see `TreeStore+Views.swift`) and their own filtered rows. Each view keeps
/// the filtered rows of its `filteredViewCapacity` most recently used filters, built
/// when first named; every edit updates every view in place.
///
/// Every operation names what it reads or changes with a `ViewRef`; the overloads that
/// take a `FilterQuery?` name the default view (`TreeStore+DefaultView.swift`).
///
/// Not thread-safe: the owner serializes access (one session, one lock).
public struct TreeStore: Sendable {
    public internal(set) var forest: Forest
    var unfiltered: ViewState
    /// The default view's filtered rows, most recently used last.
    var filtered: [(query: FilterQuery, view: ViewState)] = []
    /// The other views, by id.
    var userViews: [ViewID: UserView] = [:]
    /// The shared bases of the views' unfiltered rows, by their rule's depth, with the
    /// number of views over each.
    var depthBases: [Int32: (base: DepthBase, users: Int)] = [:]
    /// The bases children pages count with, oldest first (`TreeStore+Children.swift`).
    var childBases: [DepthBase] = []
    /// The sorted layouts kept, least recently used first (`TreeStore+Sorts.swift`).
    var sortedLayouts: [SortedLayout] = []
    /// The sorts of the views sorted (`TreeStore+SortedViews.swift`).
    var viewSorts: [ViewID: SortKeys] = [:]
    /// The keys of the sorted layout swapped in (`swapWorld`), nil in the tree's order.
    var layoutKeys: SortKeys?
    /// How many sorted layouts are kept.
    public var sortCapacity = 4
    /// How many levels' bases the store keeps for children pages.
    var childBaseCapacity = 4
    /// A subtree of at most this many positions has its children walked, with no base.
    var childWalkLimit = 4096
    /// The shared filtered states of the texts views filter by, each with the views that
    /// follow it (`TreeStore+SharedFilters.swift`).
    var filterBases: [FilterQuery: ViewState] = [:]
    /// How many filtered rows each view keeps.
    public var filteredViewCapacity = 4
    /// What a running transaction keeps to roll back.
    var undo: UndoLog?
    /// How many threads match titles when a filtered view is built; nil: as many as
    /// `ParallelWork.workerCount(items:)` gives for the forest's size.
    var filterWorkers: Int?
    /// Views whose splices every edit records besides those of the view it names, for
    /// whoever follows them (event streams): see `takeObservedSplices`.
    public var observedViews: Set<ViewRef> = []
    /// The selections of the views that ever selected a node since their last `selectNone`,
    /// by view (nil: the default view); each holds a user of `depthBases[DepthBase.all]`, which
    /// counts nodes for them.
    var selections: [ViewID?: Selection] = [:]
    /// The splices edits recorded for `observedViews` other than the view they named, since
    /// the last `takeObservedSplices`, in order.
    var observedSplices: [ViewRef: [Splice]] = [:]
    /// How many filtered views were built from a kept view's matches (`FilterQuery.isNarrowing`).
    var narrowedBuilds = 0
    /// Reads data fields out of the nodes' `data` for filters that search or compare them
    /// (`TreeStore+Fields.swift`); a filter naming a data field needs one.
    public var dataReader: (any NodeDataReader)?
    /// The aggregate indexes kept (`aggregates(of:_:)`), least recently used first.
    var aggregateIndexes: [AggregateIndex] = []
    /// How many aggregate indexes are kept.
    public var aggregateCapacity = 8

    /// A store over `forest`, its default view's unfiltered rows from the nodes' `expanded` flags.
    /// - Complexity: O(n)
    public init(forest: Forest) {
        self.forest = forest
        unfiltered = ViewState.unfiltered(forest)
        checkInvariants()
    }

    /// Thrown when a filter build is cancelled.
    public struct Cancelled: Error, Sendable {}

    // MARK: Views

    /// Builds the filtered rows `view` names unless they are kept already (then they
    /// become the view's most recently used). `isCancelled` is polled while titles are matched.
    /// - Complexity: O(n + total title length) to build, O(views) when kept
    public mutating func prepareView(_ view: ViewRef, isCancelled: () -> Bool = { false }) throws(Cancelled) {
        if sortedWorld(of: view.view) != nil {
            // Columns are dropped in the tree's order, where every view's filters are seen.
            let builds = !isKept(view)
            defer { if builds { dropUnusedFields() } }
            return try inWorld(of: view.view) { (store: inout TreeStore) throws(Cancelled) in try store.prepareView(view, isCancelled: isCancelled) }
        }
        guard let filter = view.filter else { return }
        // Kept rows have their columns; a build may drop other rows, and with them the last
        // use of a column.
        let builds = !isKept(view)
        if builds { readyFields(filter) }
        defer { if builds { dropUnusedFields() } }
        if let id = view.view {
            try prepareShared(filter, in: id, isCancelled: isCancelled)
        } else if try prepare(filter, in: &filtered, isCancelled: isCancelled) {
            narrowedBuilds += 1
        }
    }

    /// Makes `filter`'s rows in `list` the most recently used, building them when
    /// missing; whether the build narrowed a kept one's matches.
    private func prepare(_ filter: FilterQuery, in list: inout [(query: FilterQuery, view: ViewState)],
                         isCancelled: () -> Bool) throws(Cancelled) -> Bool {
        if let i = list.firstIndex(where: { $0.query == filter }) {
            let entry = list.remove(at: i)
            list.append(entry)
            return false
        }
        do {
            // A kept view whose query the new one narrows: only its matches can match.
            let slots = forest.flags.count
            let base = list.lazy.filter { filter.isNarrowing($0.query) && $0.view.filter!.matches.count == slots }
                .min { $0.view.filter!.matchCount < $1.view.filter!.matchCount }?.view
            let view = try ViewState.filtered(forest, query: filter, workers: filterWorkers,
                                              narrowing: base, isCancelled: isCancelled)
            list.append((filter, view))
            // A transaction drops no view (see `transaction`).
            if list.count > filteredViewCapacity && undo == nil { list.removeFirst(list.count - filteredViewCapacity) }
            return base != nil
        } catch {
            throw Cancelled()
        }
    }

    /// The splices recorded for each observed view since the last call, by the edits that
    /// named another view (a view absent from the result did not change, except the one an
    /// edit named: its splices are the edit's result). Expanding and collapsing change only
    /// the view they name. A caller that rolls back (a failed transaction) discards them.
    /// - Complexity: O(1)
    public mutating func takeObservedSplices() -> [ViewRef: [Splice]] {
        defer { observedSplices = [:] }
        return observedSplices
    }

    /// Whether reading what `view` names needs no build: its unfiltered rows always, its
    /// filtered rows when kept. False for a view that does not exist.
    /// - Complexity: O(views kept by the view)
    public func isKept(_ view: ViewRef) -> Bool {
        if sortedWorld(of: view.view) != nil { return readInWorld(of: view.view) { $0.isKept(view) } }
        return keptView(view) != nil || (view.filter == nil && contains(view: view.view))
    }

    /// The filtered rows the view keeps, least recently used first.
    public func keptFilters(in view: ViewID?) -> [FilterQuery] {
        if sortedWorld(of: view) != nil { return readInWorld(of: view) { $0.keptFilters(in: view) } }
        return view.map { userViews[$0]!.filtered.map(\.query) } ?? filtered.map(\.query)
    }

    /// Keeps exactly the filtered rows of the view that `order` names, in that order
    /// (least recently used first): one it does not name is dropped, and a query it
    /// names that is not kept is skipped (prepare it first). For replaying a recorded
    /// order of use.
    /// - Complexity: O(kept²)
    public mutating func arrangeViews(_ order: [FilterQuery], in view: ViewID?) {
        if sortedWorld(of: view) != nil { return inWorld(of: view) { $0.arrangeViews(order, in: view) } }
        precondition(undo == nil, "no rearranging inside a transaction")
        func arranged<Entry>(_ list: [Entry], _ query: (Entry) -> FilterQuery) -> [Entry] {
            order.compactMap { wanted in list.first { query($0) == wanted } }
        }
        guard let view else {
            filtered = arranged(filtered, \.query)
            return
        }
        let list = userViews[view]!.filtered
        userViews[view]!.filtered = arranged(list, \.query)
        for entry in list where entry.own == nil && !order.contains(entry.query) { unfollow(entry.query, view) }
    }

    /// Runs `body` on the dense rows `view` names (a filter's, or the default view's
    /// unfiltered ones), building them first when needed.
    mutating func withView<R>(_ view: ViewRef, _ body: (inout ViewState, inout Forest) -> R) -> R {
        guard let filter = view.filter else {
            guard let id = view.view else { return body(&unfiltered, &forest) }
            precondition(userViews[id]!.dense != nil, "a view's unfiltered rows are sparse unless dense")
            return body(&userViews[id]!.dense!, &forest)
        }
        try! prepareView(view)
        if let id = view.view {
            let i = userViews[id]!.filtered.count - 1
            precondition(userViews[id]!.filtered[i].query == filter && userViews[id]!.filtered[i].own != nil, "dense filtered rows")
            return body(&userViews[id]!.filtered[i].own!, &forest)
        }
        return body(&filtered[filtered.count - 1].view, &forest)
    }

    /// Reads the dense rows `view` names.
    mutating func readView<R>(_ view: ViewRef, _ body: (ViewState, Forest) -> R) -> R {
        withView(view) { view, forest in body(view, forest) }
    }

    // MARK: Reading

    /// The number of visible rows.
    /// - Complexity: O(1) once the rows are built
    public mutating func rowCount(_ view: ViewRef) -> Int {
        if sortedWorld(of: view.view) != nil { return inWorld(of: view.view) { $0.rowCount(view) } }
        wake(view)
        if let sparse = sparse(view) { return sparse.cover.total }
        if let shared = prepareSharedRows(view) { return shared.cover.total }
        return readView(view) { v, _ in v.index.zeroCount }
    }

    /// The number of matching nodes (|M|) of filtered rows.
    /// - Complexity: O(1) once the rows are built
    public mutating func matchCount(_ view: ViewRef) -> Int {
        if sortedWorld(of: view.view) != nil { return inWorld(of: view.view) { $0.matchCount(view) } }
        if let shared = prepareSharedRows(view) { return shared.base.filter!.matchCount }
        return readView(view) { v, _ in v.filter!.matchCount }
    }

    /// The visible rows `offset ..< offset + limit` (fewer at the end).
    /// - Complexity: O(log n · (limit / 64 + 1) + limit)
    public mutating func rows(_ view: ViewRef, offset: Int, limit: Int) -> [Row] {
        if sortedWorld(of: view.view) != nil { return inWorld(of: view.view) { $0.rows(view, offset: offset, limit: limit) } }
        var rows = unmarkedRows(view, offset: offset, limit: limit)
        markSelection(&rows, in: view.view)
        return rows
    }

    /// `rows` without their selection fields.
    mutating func unmarkedRows(_ view: ViewRef, offset: Int, limit: Int) -> [Row] {
        wake(view)
        if let rows = keptUnmarkedRows(view, offset: offset, limit: limit) { return rows }
        if let shared = prepareSharedRows(view) { return sparseRows(shared, offset: offset, limit: limit, match: matchInfo(shared.base)) }
        return readView(view) { view, forest in TreeStore.rows(view, forest, offset: offset, limit: limit) }
    }

    static func rows(_ view: ViewState, _ forest: Forest, offset: Int, limit: Int) -> [Row] {
        var rows: [Row] = []
        rows.reserveCapacity(max(0, min(limit, view.index.zeroCount - offset)))
        var index = offset
        view.index.forEachZero(from: offset, limit: limit) { p in
            let slot = forest.slot(at: p)
            let parent = forest.parent(ofSlot: slot)
            rows.append(Row(node: NodeHandle(slot: slot), index: index, level: forest.level(at: p),
                            isExpanded: view.reportedExpansion(at: p, in: forest), hasChildren: forest.hasChildren(atPosition: p),
                            parent: parent.map { NodeHandle(slot: $0) }, isMatch: view.isMatch(at: p, in: forest),
                            matchesBelow: view.filter?.matchesBelow(slot: slot, at: p, in: forest)))
            index += 1
        }
        return rows
    }

    // MARK: Reading kept views without changing anything

    /// The dense rows `view` names when no build is needed (the default view's unfiltered
    /// rows always), without touching the order in which filtered rows are kept: for
    /// readers that share the store, e.g. under a read lock. Nil for a view's unfiltered
    /// rows (`sparse`).
    func keptView(_ view: ViewRef) -> ViewState? {
        guard let filter = view.filter else { return view.view.map { userViews[$0]?.dense } ?? unfiltered }
        guard let id = view.view else { return filtered.last { $0.query == filter }?.view }
        return userViews[id]?.filtered.last { $0.query == filter }?.own ?? sharedRows(view)?.base
    }

    /// `rowCount` of kept rows, or nil when they would have to be built.
    /// - Complexity: O(views)
    public func keptRowCount(_ view: ViewRef) -> Int? {
        if sortedWorld(of: view.view) != nil { return readInWorld(of: view.view) { $0.keptRowCount(view) } }
        return sparse(view)?.cover.total ?? sharedRows(view)?.cover.total ?? keptView(view)?.index.zeroCount
    }

    /// `matchCount` of kept filtered rows, or nil when they would have to be built.
    /// - Complexity: O(views)
    public func keptMatchCount(_ view: ViewRef) -> Int? {
        if sortedWorld(of: view.view) != nil { return readInWorld(of: view.view) { $0.keptMatchCount(view) } }
        return keptView(view)?.filter?.matchCount
    }

    /// How many threads matched the titles of kept filtered rows when they were built,
    /// or nil when they are not kept.
    /// - Complexity: O(views)
    public func keptFilterWorkers(_ view: ViewRef) -> Int? {
        if sortedWorld(of: view.view) != nil { return readInWorld(of: view.view) { $0.keptFilterWorkers(view) } }
        return keptView(view)?.filter?.workers
    }

    /// `rows` of kept rows, or nil when they would have to be built.
    /// - Complexity: O(views + log n · (limit / 64 + 1) + limit)
    public func keptRows(_ view: ViewRef, offset: Int, limit: Int) -> [Row]? {
        if sortedWorld(of: view.view) != nil { return readInWorld(of: view.view) { $0.keptRows(view, offset: offset, limit: limit) } }
        guard var rows = keptUnmarkedRows(view, offset: offset, limit: limit) else { return nil }
        markSelection(&rows, in: view.view)
        return rows
    }

    private func keptUnmarkedRows(_ view: ViewRef, offset: Int, limit: Int) -> [Row]? {
        if let sparse = sparse(view) { return sparseRows(sparse, offset: offset, limit: limit) }
        if let shared = sharedRows(view) { return sparseRows(shared, offset: offset, limit: limit, match: matchInfo(shared.base)) }
        return keptView(view).map { TreeStore.rows($0, forest, offset: offset, limit: limit) }
    }

    /// `rowIndex`, `isExpanded` and `isMatch` of `node` in kept rows, or nil when they
    /// would have to be built.
    /// - Complexity: O(views + log n)
    public func keptPlacement(of node: NodeHandle, _ view: ViewRef) -> (index: Int?, expanded: Bool, match: Bool)? {
        if sortedWorld(of: view.view) != nil { return readInWorld(of: view.view) { $0.keptPlacement(of: node, view) } }
        if let sparse = sparse(view) {
            return (sparseRowIndex(of: node, sparse), sparseIsExpanded(node, sparse), false)
        }
        if let shared = sharedRows(view) {
            return (sparseRowIndex(of: node, shared), sparseIsExpanded(node, shared), shared.base.filter!.matches.contains(node.slot.index))
        }
        guard let state = keptView(view) else { return nil }
        let p = forest.position(of: node)
        return (state.rowIndex(at: p), state.reportedExpansion(at: p, in: forest), state.isMatch(at: p, in: forest))
    }

    /// The rows of `node`'s subtree in kept rows: its own row and its visible descendants'
    /// (empty where a collapsed ancestor or the filter hides them all), or nil when the rows
    /// would have to be built.
    /// - Complexity: O(views + log n)
    public func keptRows(ofSubtree node: NodeHandle, _ view: ViewRef) -> Range<Int>? {
        if sortedWorld(of: view.view) != nil { return readInWorld(of: view.view) { $0.keptRows(ofSubtree: node, view) } }
        let subtree = forest.subtree(of: forest.position(of: node))
        func span(_ rowsBefore: (Int) -> Int) -> Range<Int> {
            rowsBefore(subtree.lowerBound.offset) ..< rowsBefore(subtree.upperBound.offset)
        }
        if let sparse = sparse(view) { return span { sparse.cover.rows(before: $0, sparse.base, forest) } }
        if let shared = sharedRows(view) { return span { shared.cover.rows(before: $0, shared.base, forest) } }
        guard let state = keptView(view) else { return nil }
        return span { state.index.zeros(before: Position($0)) }
    }

    /// The row index of `node`, or nil when it is not visible.
    /// - Complexity: O(log n)
    public mutating func rowIndex(of node: NodeHandle, _ view: ViewRef) -> Int? {
        if sortedWorld(of: view.view) != nil { return inWorld(of: view.view) { $0.rowIndex(of: node, view) } }
        wake(view)
        if let sparse = sparse(view) { return sparseRowIndex(of: node, sparse) }
        if let shared = prepareSharedRows(view) { return sparseRowIndex(of: node, shared) }
        return readView(view) { view, forest in view.rowIndex(at: forest.position(of: node)) }
    }

    /// Whether `node` is expanded in the view.
    /// - Complexity: O(1); a view's unfiltered rows: O(log changes)
    public mutating func isExpanded(_ node: NodeHandle, _ view: ViewRef) -> Bool {
        if sortedWorld(of: view.view) != nil { return inWorld(of: view.view) { $0.isExpanded(node, view) } }
        wake(view)
        if let sparse = sparse(view) { return sparseIsExpanded(node, sparse) }
        if let shared = prepareSharedRows(view) { return sparseIsExpanded(node, shared) }
        return readView(view) { view, forest in view.reportedExpansion(at: forest.position(of: node), in: forest) }
    }

    /// Whether `node` matches the filter (false in unfiltered rows).
    /// - Complexity: O(1)
    public mutating func isMatch(_ node: NodeHandle, _ view: ViewRef) -> Bool {
        if sortedWorld(of: view.view) != nil { return inWorld(of: view.view) { $0.isMatch(node, view) } }
        guard view.filter != nil else { return false }
        if let shared = prepareSharedRows(view) { return shared.base.filter!.matches.contains(node.slot.index) }
        return readView(view) { view, forest in view.isMatch(at: forest.position(of: node), in: forest) }
    }

    /// The match ranges of `title` for `filter`, as (start, length) in UTF-16 code units.
    /// - Complexity: O(title length · text length)
    /// None when `filter` has no text or does not search titles.
    public static func matchRanges(title: UnsafeRawBufferPointer, filter: FilterQuery) -> [(start: Int, length: Int)] {
        guard !filter.text.isEmpty, filter.fields.contains(.title) else { return [] }
        return TitleMatcher(filter).matchRanges(title)
    }

    /// Whether `node` matches `filter` (its text in one of its fields, every condition, and
    /// with `leavesOnly` it has no children), without building anything: what highlighted
    /// rows flag.
    /// - Complexity: O(the fields' lengths · text length), plus reading the node's data for
    ///   data fields without a column
    public func matches(_ node: NodeHandle, _ filter: FilterQuery) -> Bool {
        var scratch: [UInt8] = []
        return (!filter.leavesOnly || !forest.hasChildren(node))
            && NodeMatcher(filter).matches(node.slot, in: forest, reader: dataReader, scratch: &scratch)
    }

    /// The match ranges of the title of `node` for `filter` (none when it has no text or
    /// does not search titles).
    /// - Complexity: O(title length · text length)
    public func matchRanges(of node: NodeHandle, _ filter: FilterQuery) -> [(start: Int, length: Int)] {
        forest.withTitle(of: node) { TreeStore.matchRanges(title: $0, filter: filter) }
    }

    // MARK: Matches in tree order

    /// Builds the index of kept filtered rows' matches in tree order, unless they have one
    /// (`keptMatch`, `keptMatchRank` need it).
    /// - Complexity: O(positions) to build, O(views) when it has one
    public mutating func prepareMatchIndex(_ view: ViewRef) {
        if sortedWorld(of: view.view) != nil { return inWorld(of: view.view) { $0.prepareMatchIndex(view) } }
        guard let filter = view.filter else { return }
        func prepare(_ state: inout ViewState, _ forest: Forest) {
            if state.filter!.matchIndex == nil { state.filter!.matchIndex = MatchIndex(forest, matches: state.filter!.matches) }
        }
        guard let id = view.view else {
            if let i = filtered.lastIndex(where: { $0.query == filter }) { prepare(&filtered[i].view, forest) }
            return
        }
        if let i = userViews[id]!.filtered.lastIndex(where: { $0.query == filter }), userViews[id]!.filtered[i].own != nil {
            prepare(&userViews[id]!.filtered[i].own!, forest)
        } else if filterBases[filter]?.followers?.covers[id] != nil {
            prepare(&filterBases[filter]!, forest)
        }
    }

    private func keptMatchIndex(_ view: ViewRef) -> MatchIndex? { keptView(view)?.filter?.matchIndex }

    /// Whether kept filtered rows have their match index (reading matches needs no build).
    public func hasMatchIndex(_ view: ViewRef) -> Bool {
        if sortedWorld(of: view.view) != nil { return readInWorld(of: view.view) { $0.hasMatchIndex(view) } }
        return keptMatchIndex(view) != nil
    }

    /// The number of matches before `node` in tree order (its ordinal when it matches);
    /// with `including`, also `node` itself. Needs the match index.
    /// - Complexity: O(views + 64)
    public func keptMatchRank(of node: NodeHandle, including: Bool = false, _ view: ViewRef) -> Int {
        if sortedWorld(of: view.view) != nil { return readInWorld(of: view.view) { $0.keptMatchRank(of: node, including: including, view) } }
        return keptMatchIndex(view)!.rank(forest.position(of: node) + (including ? 1 : 0))
    }

    /// The match with `ordinal` matches before it in tree order. Needs the match index.
    /// - Complexity: O(views + log n + 64)
    public func keptMatch(_ ordinal: Int, _ view: ViewRef) -> NodeHandle {
        if sortedWorld(of: view.view) != nil { return readInWorld(of: view.view) { $0.keptMatch(ordinal, view) } }
        return NodeHandle(slot: forest.slot(at: keptMatchIndex(view)!.select(ordinal)))
    }

    // MARK: Expansion

    /// Expands or collapses `node` in the view; with `recursive`, expanding also
    /// expands every descendant that has children, and collapsing collapses every
    /// descendant, leaves included.
    /// - Complexity: O(log n); recursive: O(s log n) for s descendants, at most O(n)
    public mutating func setExpanded(_ node: NodeHandle, _ value: Bool, recursive: Bool = false,
                                     _ view: ViewRef) -> [Splice] {
        if sortedWorld(of: view.view) != nil { return inWorld(of: view.view) { $0.setExpanded(node, value, recursive: recursive, view) } }
        wake(view)
        if let id = sparseID(view) { return setSparseExpanded(node, value, recursive: recursive, id) }
        if prepareSharedRows(view) != nil,
           let splices = setSharedExpanded(node, value, recursive: recursive, view.filter!, view.view!) { return splices }
        let splices = withView(view) { view, forest in
            let p = forest.position(of: node)
            return recursive ? view.setExpandedRecursively(at: p, to: value, in: &forest)
                             : view.setExpanded(at: p, to: value, in: &forest)
        }
        checkInvariants()
        return splices
    }

    /// Expands every ancestor of `node`, outermost first, so that it becomes visible
    /// (in filtered rows it stays hidden when it or an ancestor is excluded).
    /// - Complexity: O(depth · log n)
    public mutating func reveal(_ node: NodeHandle, _ view: ViewRef) -> [Splice] {
        if sortedWorld(of: view.view) != nil { return inWorld(of: view.view) { $0.reveal(node, view) } }
        wake(view)
        let path = forest.path(of: node)
        var splices: [Splice] = []
        if sparseID(view) != nil || prepareSharedRows(view) != nil {
            for ancestor in path { splices += setExpanded(ancestor, true, view) }
            return splices
        }
        withView(view) { view, forest in
            for ancestor in path { splices += view.setExpanded(at: forest.position(of: ancestor), to: true, in: &forest) }
        }
        checkInvariants()
        return splices
    }

    /// Expands every node that has children.
    /// - Complexity: O(n); a view's unfiltered rows: O(its changes), plus O(n) once for
    ///   the first view that starts from this state
    public mutating func expandAll(_ view: ViewRef) -> [Splice] { expand(belowDepth: nil, view) }

    /// Expands exactly the nodes with children at a level below `depth`.
    /// - Complexity: as `expandAll`
    public mutating func expand(toDepth depth: Int, _ view: ViewRef) -> [Splice] { expand(belowDepth: depth, view) }

    private mutating func expand(belowDepth depth: Int?, _ view: ViewRef) -> [Splice] {
        if sortedWorld(of: view.view) != nil { return inWorld(of: view.view) { $0.expand(belowDepth: depth, view) } }
        wake(view)
        if view.filter == nil, let id = view.view { return rebase(id, depth: depth.map { Int32(clamping: $0) } ?? DepthBase.all) }
        if prepareSharedRows(view) != nil { makeOwn(view.filter!, view.view!) }
        let splices = withView(view) { view, forest in view.expand(belowDepth: depth, in: &forest) }
        checkInvariants()
        return splices
    }

    /// Collapses every node.
    /// - Complexity: as `expandAll`
    public mutating func collapseAll(_ view: ViewRef) -> [Splice] {
        if sortedWorld(of: view.view) != nil { return inWorld(of: view.view) { $0.collapseAll(view) } }
        wake(view)
        if view.filter == nil, let id = view.view { return rebase(id, depth: 0) }
        if prepareSharedRows(view) != nil { makeOwn(view.filter!, view.view!) }
        let splices = withView(view) { view, forest in view.collapseAll(in: &forest) }
        checkInvariants()
        return splices
    }
}

/// A visible row of a view.
public struct Row: Hashable, Sendable {
    public var node: NodeHandle
    /// The row's index in the view.
    public var index: Int
    /// 0 for roots.
    public var level: Int
    public var isExpanded: Bool
    public var hasChildren: Bool
    public var parent: NodeHandle?
    /// Whether the node matches the view's filter (false in the unfiltered view).
    public var isMatch: Bool
    /// Filtered views: the matches among the node's descendants (itself not counted).
    public var matchesBelow: Int?
    /// Whether the node is selected in the view (see `TreeStore+Selection.swift`).
    public var isSelected = false
    /// The selected nodes among its descendants.
    public var selectedBelow = 0
    /// Whether its subtree holds both selected and unselected nodes.
    public var isPartial = false
}
