/// A view's number, chosen by the store's owner, unique within one store.
public struct ViewID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public static func < (a: ViewID, b: ViewID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { String(rawValue) }
}

/// What an operation reads or changes: a view (nil: the session's default view) and,
/// in it, the rows of a filter (nil: its unfiltered rows).
public struct ViewRef: Hashable, Sendable {
    public var view: ViewID?
    public var filter: FilterQuery?
    public init(_ view: ViewID? = nil, filter: FilterQuery? = nil) {
        self.view = view
        self.filter = filter
    }
}

/// How a new view starts.
public enum ViewStart: Hashable, Sendable {
    /// Every node collapsed: only the roots visible.
    case collapsed
    /// Every node expanded.
    case expanded
    /// The nodes at a level below N expanded (0: `collapsed`).
    case depth(Int)
    /// Another view's state (nil: the default view's): its unfiltered expansion and its
    /// kept filtered rows with their expansion, in the same order of use.
    case copy(of: ViewID?)
}

/// A view other than the default one: its unfiltered rows as exceptions over a shared
/// depth base, and its kept filtered rows.
struct UserView: Sendable {
    /// The rule of its base (`DepthBase.depth`).
    var depth: Int32
    var cover: SparseCover
    /// Its unfiltered rows as a dense state of its own once it changed more nodes than
    /// exceptions hold in the bytes a dense state takes (`TreeStore.isTooManyForSparse`);
    /// `cover` is empty then. A rebase (expand all, collapse all, to a depth) ends it.
    var dense: ViewState? = nil
    /// Most recently used last; `own` nil: exceptions over the text's shared state
    /// (`TreeStore+SharedFilters.swift`).
    var filtered: [(query: FilterQuery, own: ViewState?)] = []
}

/// A view's rows stored as exceptions, with the base they are read against.
struct SparseRows<Base: CoverBase> {
    var cover: SparseCover
    var base: Base
}

extension TreeStore {
    // MARK: Creating and deleting views

    /// The views, ascending (the default view is not among them).
    /// - Complexity: O(v log v)
    public var views: [ViewID] { (Array(userViews.keys) + sortedLayouts.flatMap { $0.views.userViews.keys }).sorted() }

    /// Whether the view exists (nil: the default view, always).
    /// - Complexity: O(1)
    public func contains(view: ViewID?) -> Bool { view.map { userViews[$0] != nil || viewSorts[$0] != nil } ?? true }

    /// The number of nodes whose expansion the view changed from its start rule (what its
    /// unfiltered rows cost: `viewBytes`).
    /// - Complexity: O(1); O(n) for a view with a dense state of its own
    public func changedNodes(in view: ViewID) -> Int {
        if sortedWorld(of: view) != nil { return readInWorld(of: view) { $0.changedNodes(in: view) } }
        guard let own = userViews[view]!.dense?.own else { return userViews[view]!.cover.exceptionCount }
        var count = 0
        forest.forEachPosition { p in
            if own.expanded.contains(forest.slot(at: p).index) != own.rule(level: forest.level(at: p)) { count += 1 }
        }
        return count
    }

    /// The bytes the view holds: its exceptions or dense states (the shared bases and filtered
    /// states not counted).
    /// - Complexity: O(1)
    public func viewBytes(_ view: ViewID) -> Int {
        if sortedWorld(of: view) != nil { return readInWorld(of: view) { $0.viewBytes(view) } }
        return userViews[view]!.cover.bytes + (userViews[view]!.dense?.bytes ?? 0) + sharedBytes(view)
    }

    /// Adds the view `id` in its start state.
    /// - Precondition: `id` is not a view; the view a copy names exists.
    /// - Complexity: O(1) over a base some view uses; O(n) for the first view over a base;
    ///   a copy: O(the source's changes), O(n) of the default view
    public mutating func createView(_ id: ViewID, _ start: ViewStart) {
        precondition(!contains(view: id), "view \(id) exists")
        precondition(undo == nil && layoutKeys == nil, "views are created outside transactions")
        // A copy of a sorted view is sorted the same way, made in its order.
        if case .copy(of: let source?) = start, let sort = viewSorts[source] { viewSorts[id] = sort }
        inWorld(of: id) { $0.addView(id, start) }
    }

    /// Adds the view `id` to the order swapped in.
    private mutating func addView(_ id: ViewID, _ start: ViewStart) {
        switch start {
        case .collapsed: userViews[id] = freshView(depth: 0)
        case .expanded: userViews[id] = freshView(depth: DepthBase.all)
        case .depth(let n): userViews[id] = freshView(depth: Int32(clamping: max(0, n)))
        case .copy(of: let source?):
            let copy = userViews[source]!
            acquireBase(copy.depth)
            userViews[id] = copy
            for entry in copy.filtered where entry.own == nil {
                filterBases[entry.query]!.followers!.covers[id] = filterBases[entry.query]!.followers!.covers[source]!
            }
        case .copy(of: nil):
            var view = freshView(depth: 0)
            let base = depthBases[0]!.base
            var expanded: [Slot] = []
            forest.forEachPosition { p in
                let slot = forest.slot(at: p)
                if forest.flags[slot.index].contains(.expanded) { expanded.append(slot) }
            }
            if isTooManyForSparse(expanded.count) {
                var bits = Bitset(count: forest.flags.count)
                for slot in expanded { bits.insert(slot.index) }
                view.dense = ViewState.dense(bits, depth: 0, forest)
            } else {
                for slot in expanded { view.cover.setException(slot, true, base, forest) }
            }
            userViews[id] = view
            for entry in filtered { keepFiltered(entry.query, in: id, expanded: entry.view.filter!.expanded) }
        }
        checkInvariants()
    }

    /// Removes the view `id` and what it keeps.
    /// - Precondition: `id` is a view.
    /// - Complexity: O(1), plus freeing what it keeps
    public mutating func deleteView(_ id: ViewID) {
        precondition(undo == nil, "views are deleted outside transactions")
        inWorld(of: id) { $0.removeView(id) }
        viewSorts[id] = nil
        observedViews = observedViews.filter { $0.view != id }
        observedSplices = observedSplices.filter { $0.key.view != id }
        dropUnusedLayouts()
        dropUnusedFields()
    }

    /// Takes the view `id` out of the order swapped in, with what it keeps.
    mutating func removeView(_ id: ViewID) {
        let view = userViews.removeValue(forKey: id)!
        releaseBase(view.depth)
        if selections.removeValue(forKey: id) != nil { releaseBase(DepthBase.all) }
        for entry in view.filtered where entry.own == nil { unfollow(entry.query, id) }
    }

    /// A view with no change over the base of `depth`.
    mutating func freshView(depth: Int32) -> UserView {
        acquireBase(depth)
        return UserView(depth: depth, cover: SparseCover(base: depthBases[depth]!.base, forest: forest))
    }

    mutating func acquireBase(_ depth: Int32) {
        if depthBases[depth] == nil { depthBases[depth] = (DepthBase(depth: depth, forest: forest), 0) }
        depthBases[depth]!.users += 1
    }

    /// Drops a view's use of the base of `depth`. Up to `idleBases` bases nobody uses stay
    /// (kept by edits like the others), so that a view that comes back to one (a view sorted
    /// anew and back, or made again) does not build it (O(n)): the one just left, and another.
    mutating func releaseBase(_ depth: Int32) {
        depthBases[depth]!.users -= 1
        guard depthBases[depth]!.users == 0 else { return }
        let idle = depthBases.filter { $0.value.users == 0 && $0.key != depth }.keys
        if idle.count >= TreeStore.idleBases { depthBases[idle.first!] = nil }
    }

    /// How many bases nobody uses a store keeps in each order.
    static let idleBases = 2

    /// The bases follow a change of the nodes at `range` (their number of positions unchanged).
    /// - Complexity: O(range · bases)
    mutating func updateBases(_ range: Range<Position>) {
        for i in depthBases.indexList { depthBases.values[i].base.update(range.lowerBound.offset ..< range.upperBound.offset, forest) }
        for i in childBases.indices { childBases[i].update(range.lowerBound.offset ..< range.upperBound.offset, forest) }
        updateAggregates(range.lowerBound.offset ..< range.upperBound.offset)
    }

    // MARK: Reading a view's unfiltered rows

    /// The view's unfiltered rows when `view` names them and they are exceptions.
    func sparse(_ view: ViewRef) -> SparseRows<DepthBase>? {
        guard view.filter == nil, let id = view.view, let user = userViews[id], user.dense == nil, !isSuspended(id) else { return nil }
        return SparseRows(cover: user.cover, base: depthBases[user.depth]!.base)
    }

    /// The view whose unfiltered rows `view` names.
    func sparseID(_ view: ViewRef) -> ViewID? {
        guard view.filter == nil, let id = view.view, userViews[id]?.dense == nil else { return nil }
        return id
    }

    /// Whether `exceptions` exceptions hold more than a dense state of the view would (about
    /// 85 bytes each, against 1.6 to 3.4 bytes a node): at most n/`denseShare` +
    /// `sparseSlack` stay exceptions.
    func isTooManyForSparse(_ exceptions: Int) -> Bool { exceptions > forest.count / TreeStore.denseShare + TreeStore.sparseSlack }

    /// One node in this many changed makes a view dense (see `isTooManyForSparse`).
    static let denseShare = 48

    /// (Debug builds: 4, so that the model tests turn views dense.)
    #if TREE_INVARIANTS
    static let sparseSlack = 4
    #else
    static let sparseSlack = 64
    #endif

    /// Turns view `id`'s unfiltered rows into a dense state of its own, with the same rows.
    /// - Complexity: O(n)
    mutating func makeDense(_ id: ViewID) {
        let view = userViews[id]!
        var bits = ruleExpansion(depth: view.depth)
        for exception in view.cover.exceptions { bits.set(exception.slot.index, exception.expanded) }
        userViews[id]!.dense = ViewState.dense(bits, depth: view.depth, forest)
        userViews[id]!.cover = SparseCover(base: depthBases[view.depth]!.base, forest: forest)
    }

    /// The fresh expansion of the rule `depth` (`DepthBase`), a bit per slot.
    /// - Complexity: O(positions)
    func ruleExpansion(depth: Int32) -> Bitset {
        var bits = Bitset(count: forest.flags.count)
        forest.forEachPosition { p in
            if forest.level(at: p) < Int(depth) { bits.insert(forest.slot(at: p).index) }
        }
        return bits
    }

    /// Rows `offset ..< offset + limit` of `rows`; `match` gives what a row reports of its match.
    func sparseRows<Base>(_ rows: SparseRows<Base>, offset: Int, limit: Int,
                          match: (Slot, Position) -> (Bool, Int?) = { _, _ in (false, nil) }) -> [Row] {
        var result: [Row] = []
        result.reserveCapacity(max(0, min(limit, rows.cover.total - offset)))
        var index = offset
        rows.cover.forEachRow(from: offset, limit: limit, rows.base, forest) { p in
            let slot = forest.slot(at: Position(p))
            let node = NodeHandle(slot: slot)
            let (isMatch, below) = match(slot, Position(p))
            result.append(Row(node: node, index: index, level: forest.level(at: Position(p)),
                              isExpanded: sparseIsExpanded(node, rows),
                              hasChildren: forest.hasChildren(atPosition: Position(p)),
                              parent: forest.parent(ofSlot: slot).map { NodeHandle(slot: $0) }, isMatch: isMatch, matchesBelow: below))
            index += 1
        }
        return result
    }

    func sparseRowIndex<Base>(of node: NodeHandle, _ rows: SparseRows<Base>) -> Int? {
        rows.cover.rowIndex(at: forest.position(of: node).offset, rows.base, forest)
    }

    /// What a row reports: the view's own value, else the base's rule for a node with
    /// children (a filter's rule expands no leaf).
    func sparseIsExpanded<Base>(_ node: NodeHandle, _ rows: SparseRows<Base>) -> Bool {
        rows.cover.exception(node.slot, forest)
            ?? (rows.base.isExpanded(node.slot, in: forest) && forest.hasChildren(atPosition: forest.position(of: node)))
    }

    // MARK: Changing a view's unfiltered rows

    mutating func setSparseExpanded(_ node: NodeHandle, _ value: Bool, recursive: Bool, _ id: ViewID) -> [Splice] {
        let base = depthBases[userViews[id]!.depth]!.base
        guard recursive else {
            let splice = userViews[id]!.cover.setExpanded(node.slot, value, base, forest)
            if isTooManyForSparse(userViews[id]!.cover.exceptionCount) { makeDense(id) }
            checkInvariants()
            return splice.map { [$0] } ?? []
        }
        let targets = recursiveTargets(of: node, value)
        if isTooManyForSparse(userViews[id]!.cover.exceptionCount + targets.count) {
            makeDense(id)
            return setExpanded(node, value, recursive: true, ViewRef(id))
        }
        let splice = userViews[id]!.cover.setExpanded(targets, below: node.slot, value, base, forest)
        checkInvariants()
        return splice.map { [$0] } ?? []
    }

    /// The nodes a recursive expand or collapse of `node` sets: it, and every descendant
    /// that has children (expanding) or every descendant (collapsing).
    /// - Complexity: O(subtree)
    func recursiveTargets(of node: NodeHandle, _ value: Bool) -> [Slot] {
        let p = forest.position(of: node)
        var targets: [Slot] = []
        forest.forEachPosition(in: forest.subtree(of: p)) { q in
            if q == p || !value || forest.hasChildren(atPosition: q) { targets.append(forest.slot(at: q)) }
        }
        return targets
    }

    /// Puts the view's unfiltered rows in the fresh state of `depth`: one splice of every row.
    /// - Complexity: O(the view's changes), plus O(n) for a base no view uses
    mutating func rebase(_ id: ViewID, depth: Int32) -> [Splice] {
        let before = userViews[id]!.dense?.index.zeroCount ?? userViews[id]!.cover.total
        releaseBase(userViews[id]!.depth)
        acquireBase(depth)
        userViews[id]!.depth = depth
        userViews[id]!.cover = SparseCover(base: depthBases[depth]!.base, forest: forest)
        userViews[id]!.dense = nil
        let after = userViews[id]!.cover.total
        checkInvariants()
        return before == 0 && after == 0 ? [] : [Splice(index: 0, removed: before, inserted: after)]
    }
}
