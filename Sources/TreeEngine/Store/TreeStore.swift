/// One session's tree and its views: the unfiltered view and a few filtered views.
///
/// Every operation names its view with `filter` (nil: unfiltered). A filtered view
/// is built when first named and kept while it is among the `filteredViewCapacity`
/// most recently used; edits update every kept view in place.
///
/// Not thread-safe: the owner serializes access (one session, one lock).
public struct TreeStore: Sendable {
    public internal(set) var forest: Forest
    var unfiltered: ViewState
    /// Most recently used last.
    var filtered: [(query: FilterQuery, view: ViewState)] = []
    /// How many filtered views are kept.
    public var filteredViewCapacity = 4
    /// What a running transaction keeps to roll back.
    var undo: UndoLog?
    /// How many threads match titles when a filtered view is built; nil: as many as
    /// `ParallelWork.workerCount(items:)` gives for the forest's size.
    var filterWorkers: Int?
    /// Views (nil: the unfiltered one) whose splices every edit records besides those of
    /// the view it names, for whoever follows them (event streams): see `takeObservedSplices`.
    public var observedViews: Set<FilterQuery?> = []
    /// The splices edits recorded for `observedViews` other than the view they named, since
    /// the last `takeObservedSplices`, in order.
    var observedSplices: [FilterQuery?: [Splice]] = [:]
    /// How many filtered views were built from a kept view's matches (`FilterQuery.isNarrowing`).
    var narrowedBuilds = 0

    /// A store over `forest`, its unfiltered view from the nodes' `expanded` flags.
    /// - Complexity: O(n)
    public init(forest: Forest) {
        self.forest = forest
        unfiltered = ViewState.unfiltered(forest)
        checkInvariants()
    }

    /// Thrown when a filter build is cancelled.
    public struct Cancelled: Error, Sendable {}

    // MARK: Views

    /// Builds the filtered view for `filter` unless it is kept already.
    /// `isCancelled` is polled while titles are matched.
    /// - Complexity: O(n + total title length) to build, O(views) when kept
    public mutating func prepareView(_ filter: FilterQuery?, isCancelled: () -> Bool = { false }) throws(Cancelled) {
        guard let filter else { return }
        if let i = filtered.firstIndex(where: { $0.query == filter }) {
            let entry = filtered.remove(at: i)
            filtered.append(entry)
            return
        }
        do {
            // A kept view whose query the new one narrows: only its matches can match.
            let slots = forest.flags.count
            let base = filtered.lazy.filter { filter.isNarrowing($0.query) && $0.view.filter!.matches.count == slots }
                .min { $0.view.filter!.matchCount < $1.view.filter!.matchCount }?.view
            let view = try ViewState.filtered(forest, query: filter, workers: filterWorkers,
                                              narrowing: base, isCancelled: isCancelled)
            if base != nil { narrowedBuilds += 1 }
            filtered.append((filter, view))
            // A transaction drops no view (see `transaction`).
            if filtered.count > filteredViewCapacity && undo == nil { filtered.removeFirst(filtered.count - filteredViewCapacity) }
        } catch {
            throw Cancelled()
        }
    }

    /// The splices recorded for each observed view since the last call, by the edits that
    /// named another view (a view absent from the result did not change, except the one an
    /// edit named: its splices are the edit's result). Expanding and collapsing change only
    /// the view they name. A caller that rolls back (a failed transaction) discards them.
    /// - Complexity: O(1)
    public mutating func takeObservedSplices() -> [FilterQuery?: [Splice]] {
        defer { observedSplices = [:] }
        return observedSplices
    }

    /// Whether the filtered view for `filter` is kept (naming it costs nothing).
    public func hasView(_ filter: FilterQuery) -> Bool { filtered.contains { $0.query == filter } }

    /// The filtered views kept, least recently used first.
    public var keptFilters: [FilterQuery] { filtered.map(\.query) }

    /// Keeps exactly the kept views that `order` names, in that order (least recently
    /// used first): a view it does not name is dropped, and a query it names that is
    /// not kept is skipped (prepare it first). For replaying a recorded order of use.
    /// - Complexity: O(views²)
    public mutating func arrangeViews(_ order: [FilterQuery]) {
        precondition(undo == nil, "no rearranging inside a transaction")
        filtered = order.compactMap { query in filtered.first { $0.query == query } }
    }

    /// Runs `body` on the named view, building it first when needed.
    mutating func withView<R>(_ filter: FilterQuery?, _ body: (inout ViewState, inout Forest) -> R) -> R {
        guard let filter else { return body(&unfiltered, &forest) }
        try! prepareView(filter)
        let i = filtered.count - 1
        return body(&filtered[i].view, &forest)
    }

    /// Reads the named view.
    mutating func readView<R>(_ filter: FilterQuery?, _ body: (ViewState, Forest) -> R) -> R {
        withView(filter) { view, forest in body(view, forest) }
    }

    // MARK: Reading

    /// The number of visible rows of the view.
    /// - Complexity: O(1) once the view is built
    public mutating func rowCount(_ filter: FilterQuery?) -> Int { readView(filter) { v, _ in v.index.zeroCount } }

    /// The number of matching nodes (|M|) of a filtered view.
    /// - Complexity: O(1) once the view is built
    public mutating func matchCount(_ filter: FilterQuery) -> Int { readView(filter) { v, _ in v.filter!.matchCount } }

    /// The visible rows `offset ..< offset + limit` of the view (fewer at the end).
    /// - Complexity: O(log n · (limit / 64 + 1) + limit)
    public mutating func rows(_ filter: FilterQuery?, offset: Int, limit: Int) -> [Row] {
        readView(filter) { view, forest in TreeStore.rows(view, forest, offset: offset, limit: limit) }
    }

    static func rows(_ view: ViewState, _ forest: Forest, offset: Int, limit: Int) -> [Row] {
        var rows: [Row] = []
        rows.reserveCapacity(max(0, min(limit, view.index.zeroCount - offset)))
        var index = offset
        view.index.forEachZero(from: offset, limit: limit) { p in
            let slot = forest.slot(at: p)
            let parent = forest.parent(ofSlot: slot)
            rows.append(Row(node: NodeHandle(slot: slot), index: index, level: forest.level(at: p),
                            isExpanded: view.isExpanded(at: p, in: forest), hasChildren: forest.hasChildren(atPosition: p),
                            parent: parent.map { NodeHandle(slot: $0) }, isMatch: view.isMatch(at: p, in: forest),
                            matchesBelow: view.filter?.matchesBelow(slot: slot, at: p, in: forest)))
            index += 1
        }
        return rows
    }

    // MARK: Reading kept views without changing anything

    /// The named view when no build is needed (the unfiltered view always), without
    /// touching the order in which filtered views are kept: for readers that share
    /// the store, e.g. under a read lock.
    private func keptView(_ filter: FilterQuery?) -> ViewState? {
        guard let filter else { return unfiltered }
        return filtered.last { $0.query == filter }?.view
    }

    /// `rowCount` of a kept view, or nil when the view would have to be built.
    /// - Complexity: O(views)
    public func keptRowCount(_ filter: FilterQuery?) -> Int? { keptView(filter)?.index.zeroCount }

    /// `matchCount` of a kept filtered view, or nil when it would have to be built.
    /// - Complexity: O(views)
    public func keptMatchCount(_ filter: FilterQuery) -> Int? { keptView(filter)?.filter?.matchCount }

    /// How many threads matched the titles of a kept filtered view when it was built,
    /// or nil when it is not kept.
    /// - Complexity: O(views)
    public func keptFilterWorkers(_ filter: FilterQuery) -> Int? { keptView(filter)?.filter?.workers }

    /// `rows` of a kept view, or nil when the view would have to be built.
    /// - Complexity: O(views + log n · (limit / 64 + 1) + limit)
    public func keptRows(_ filter: FilterQuery?, offset: Int, limit: Int) -> [Row]? {
        keptView(filter).map { TreeStore.rows($0, forest, offset: offset, limit: limit) }
    }

    /// `rowIndex`, `isExpanded` and `isMatch` of `node` in a kept view, or nil when the
    /// view would have to be built.
    /// - Complexity: O(views + log n)
    public func keptPlacement(of node: NodeHandle, _ filter: FilterQuery?) -> (index: Int?, expanded: Bool, match: Bool)? {
        guard let view = keptView(filter) else { return nil }
        let p = forest.position(of: node)
        return (view.rowIndex(at: p), view.isExpanded(at: p, in: forest), view.isMatch(at: p, in: forest))
    }

    /// The row index of `node` in the view, or nil when it is not visible there.
    /// - Complexity: O(log n)
    public mutating func rowIndex(of node: NodeHandle, _ filter: FilterQuery?) -> Int? {
        readView(filter) { view, forest in view.rowIndex(at: forest.position(of: node)) }
    }

    /// Whether `node` is expanded in the view.
    /// - Complexity: O(1)
    public mutating func isExpanded(_ node: NodeHandle, _ filter: FilterQuery?) -> Bool {
        readView(filter) { view, forest in view.isExpanded(at: forest.position(of: node), in: forest) }
    }

    /// Whether `node` matches the filter (false in the unfiltered view).
    /// - Complexity: O(1)
    public mutating func isMatch(_ node: NodeHandle, _ filter: FilterQuery?) -> Bool {
        readView(filter) { view, forest in view.isMatch(at: forest.position(of: node), in: forest) }
    }

    /// The match ranges of `title` for `filter`, as (start, length) in UTF-16 code units.
    /// - Complexity: O(title length · text length)
    public static func matchRanges(title: UnsafeRawBufferPointer, filter: FilterQuery) -> [(start: Int, length: Int)] {
        TitleMatcher(filter).matchRanges(title)
    }

    /// The match ranges of the title of `node` for `filter`.
    /// - Complexity: O(title length · text length)
    public func matchRanges(of node: NodeHandle, _ filter: FilterQuery) -> [(start: Int, length: Int)] {
        forest.withTitle(of: node) { TitleMatcher(filter).matchRanges($0) }
    }

    // MARK: Matches in tree order

    /// Builds the index of a kept filtered view's matches in tree order, unless it has one
    /// (`keptMatch`, `keptMatchRank` need it).
    /// - Complexity: O(positions) to build, O(views) when it has one
    public mutating func prepareMatchIndex(_ filter: FilterQuery) {
        guard let i = filtered.lastIndex(where: { $0.query == filter }), filtered[i].view.filter!.matchIndex == nil else { return }
        filtered[i].view.filter!.matchIndex = MatchIndex(forest, matches: filtered[i].view.filter!.matches)
    }

    private func keptMatchIndex(_ filter: FilterQuery) -> MatchIndex? { keptView(filter)?.filter?.matchIndex }

    /// Whether the kept filtered view has its match index (reading matches needs no build).
    public func hasMatchIndex(_ filter: FilterQuery) -> Bool { keptMatchIndex(filter) != nil }

    /// The number of matches of the view before `node` in tree order (its ordinal when it
    /// matches); with `including`, also `node` itself. Needs the match index.
    /// - Complexity: O(views + 64)
    public func keptMatchRank(of node: NodeHandle, including: Bool = false, _ filter: FilterQuery) -> Int {
        keptMatchIndex(filter)!.rank(forest.position(of: node) + (including ? 1 : 0))
    }

    /// The match of the view with `ordinal` matches before it in tree order. Needs the match index.
    /// - Complexity: O(views + log n + 64)
    public func keptMatch(_ ordinal: Int, _ filter: FilterQuery) -> NodeHandle {
        NodeHandle(slot: forest.slot(at: keptMatchIndex(filter)!.select(ordinal)))
    }

    // MARK: Expansion

    /// Expands or collapses `node` in the view; with `recursive`, expanding also
    /// expands every descendant that has children, and collapsing collapses every
    /// descendant, leaves included.
    /// - Complexity: O(log n); recursive: O(s log n) for s descendants, at most O(n)
    public mutating func setExpanded(_ node: NodeHandle, _ value: Bool, recursive: Bool = false,
                                     _ filter: FilterQuery?) -> [Splice] {
        let splices = withView(filter) { view, forest in
            let p = forest.position(of: node)
            return recursive ? view.setExpandedRecursively(at: p, to: value, in: &forest)
                             : view.setExpanded(at: p, to: value, in: &forest)
        }
        checkInvariants()
        return splices
    }

    /// Expands every ancestor of `node`, outermost first, so that it becomes visible
    /// (in a filtered view it stays hidden when it or an ancestor is excluded).
    /// - Complexity: O(depth · log n)
    public mutating func reveal(_ node: NodeHandle, _ filter: FilterQuery?) -> [Splice] {
        let path = forest.path(of: node)
        var splices: [Splice] = []
        withView(filter) { view, forest in
            for ancestor in path { splices += view.setExpanded(at: forest.position(of: ancestor), to: true, in: &forest) }
        }
        checkInvariants()
        return splices
    }

    /// Expands every node that has children.
    /// - Complexity: O(n)
    public mutating func expandAll(_ filter: FilterQuery?) -> [Splice] { expand(belowDepth: nil, filter) }

    /// Expands exactly the nodes with children at a level below `depth`.
    /// - Complexity: O(n)
    public mutating func expand(toDepth depth: Int, _ filter: FilterQuery?) -> [Splice] { expand(belowDepth: depth, filter) }

    private mutating func expand(belowDepth depth: Int?, _ filter: FilterQuery?) -> [Splice] {
        let splices = withView(filter) { view, forest in view.expand(belowDepth: depth, in: &forest) }
        checkInvariants()
        return splices
    }

    /// Collapses every node.
    /// - Complexity: O(n)
    public mutating func collapseAll(_ filter: FilterQuery?) -> [Splice] {
        let splices = withView(filter) { view, forest in view.collapseAll(in: &forest) }
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
}
