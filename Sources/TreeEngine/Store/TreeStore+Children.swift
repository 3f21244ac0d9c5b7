/// A node's children in a view's rows, by the page: what grids that load a tree group by group
/// ask for (`GET …/items/{id}/children`).
///
/// The children of a node at level d are the nodes of its subtree at level d + 1: exactly the
/// positions of its subtree whose cover is 0 under the `DepthBase` that expands every level up
/// to d. So counting them and finding the k-th are that base's rank and select, O(log n),
/// whatever their number; the store keeps the bases of the `childBaseCapacity` levels most
/// recently built for this (besides those its views share), kept by edits like theirs. A
/// subtree of at most `childWalkLimit` positions is walked instead, with no base.
///
/// In filtered rows, a node that is an ancestor of a match shows only its children that match
/// or are ancestors of matches: those are walked, O(children). Any other node in the rows shows
/// all of its children, as in unfiltered rows; a node the filter hides has none.
extension TreeStore {
    /// A page of children (`keptChildren(of:_:sort:offset:limit:)`).
    public struct ChildPage: Sendable {
        /// The number of the node's children in the rows.
        public var total: Int
        public var children: [Child]
    }

    /// One child on a page: its row (whose `index` is its place among the node's children in
    /// the rows), its row index in the rows (nil while a collapsed ancestor hides it), and the
    /// number of its own children in the rows.
    public struct Child: Sendable {
        public var row: Row
        public var rowIndex: Int?
        public var childCount: Int
    }

    /// The children of `parent` (the roots when nil) in the rows `view` names, from the
    /// `offset`-th, at most `limit`, in tree order or in the order of `sort`; nil when the
    /// rows, the sort or a base they need are not kept (`prepareChildren` builds them).
    /// A sorted view's children are in its sort's order (`sort` nil or the same).
    /// Changes nothing: for readers.
    /// - Complexity: O((limit + 1) · log n), plus O(children) of each node on the page and of
    ///   `parent` that is an ancestor of a match in filtered rows
    public func keptChildren(of parent: NodeHandle?, _ view: ViewRef, sort: SortKeys? = nil, offset: Int, limit: Int) -> ChildPage? {
        if let viewSort = self.sort(of: view.view), layoutKeys == nil {
            precondition(sort == nil || sort == viewSort, "a sorted view's children are in its order")
            return readInWorld(of: view.view) { $0.keptChildren(of: parent, view, offset: offset, limit: limit) }
        }
        guard isKept(view) else { return nil }
        let filter = view.filter == nil ? nil : keptView(view)?.filter
        var layout: Int?
        if let sort {
            guard let i = sortedLayouts.firstIndex(where: { $0.keys == sort }) else { return nil }
            layout = i
        }
        let order = layout.map { forest.withLayout(sortedLayouts[$0].columns) } ?? forest
        guard let listed = childList(parent.map { order.position(of: $0) }, filter, in: order, layout: layout) else { return nil }
        var page: [Child] = []
        if offset < listed.count {
            for (k, c) in listed.positions(from: offset, limit: limit, order).enumerated() {
                let slot = order.slot(at: c)
                let node = NodeHandle(slot: slot), p = forest.position(ofSlot: slot)
                guard let grandchildren = childList(p, filter, known: true, in: forest, layout: nil),
                      let placement = keptPlacement(of: node, view) else { return nil }
                let row = Row(node: node, index: offset + k, level: forest.level(at: p), isExpanded: placement.expanded,
                              hasChildren: forest.hasChildren(atPosition: p), parent: parent, isMatch: placement.match,
                              matchesBelow: filter?.matchesBelow(slot: slot, at: p, in: forest))
                page.append(Child(row: row, rowIndex: placement.index, childCount: grandchildren.count))
            }
        }
        var rows = page.map(\.row)
        markSelection(&rows, in: view.view)
        for i in page.indices { page[i].row = rows[i] }
        return ChildPage(total: listed.count, children: page)
    }

    /// Builds what `keptChildren` needs for a page of `parent`'s children: the layout of
    /// `sort` (the most recently used of `sortCapacity`), and the bases of its children's
    /// level and theirs in the tree's order (the most recently used `childBaseCapacity`, at
    /// least 2, kept) and of its children's level in the sort's (`SortedLayout.baseCapacity`).
    /// For the children of sorted view `view`, the bases of its sort's layout (`sort` nil).
    /// - Complexity: O(positions) per base built; a sort as `SortedLayout.init`
    public mutating func prepareChildren(of parent: NodeHandle?, sort: SortKeys? = nil, in view: ViewID? = nil) {
        if sortedWorld(of: view) != nil {
            precondition(sort == nil || sort == self.sort(of: view), "a sorted view's children are in its order")
            return inWorld(of: view) { $0.prepareChildren(of: parent) }
        }
        let level = parent.map { forest.level(of: $0) } ?? -1
        let depths = [Int32(level + 1), Int32(level + 2)]
        TreeStore.prepareBases(depths.filter { depthBases[$0] == nil }, in: &childBases, capacity: childBasesKept, undo != nil, forest)
        guard let sort else { return }
        prepareSort(sort)
        let i = sortedLayouts.count - 1
        let sorted = forest.withLayout(sortedLayouts[i].columns)
        TreeStore.prepareBases([depths[0]], in: &sortedLayouts[i].childBases, capacity: SortedLayout.baseCapacity, undo != nil, sorted)
    }

    /// Makes the bases of `depths` in `bases` the most recently used ones, building those
    /// missing over `forest`, and drops the oldest past `capacity` (not in a transaction).
    private static func prepareBases(_ depths: [Int32], in bases: inout [DepthBase], capacity: Int, _ inTransaction: Bool, _ forest: Forest) {
        for depth in depths {
            if let i = bases.firstIndex(where: { $0.depth == depth }) {
                bases.append(bases.remove(at: i))
            } else {
                bases.append(DepthBase(depth: depth, forest: forest))
            }
        }
        if bases.count > capacity && !inTransaction { bases.removeFirst(bases.count - capacity) }
    }

    /// Each node's place among its parent's children (among the roots for a root) in the
    /// tree (in a sorted view, in its order), and their number, as rows report with
    /// `positions`; nil when a base they need is not kept (`prepareSiblingPlaces` builds
    /// them). Changes nothing: for readers.
    /// - Complexity: O(log n) per node; O(children) for a parent of at most `childWalkLimit` positions
    public func keptSiblingPlaces(of nodes: [NodeHandle], in view: ViewID? = nil) -> [NodeHandle: (position: Int, count: Int)]? {
        if sortedWorld(of: view) != nil { return readInWorld(of: view) { $0.keptSiblingPlaces(of: nodes) } }
        var places: [NodeHandle: (position: Int, count: Int)] = [:]
        for node in nodes where places[node] == nil {
            let p = forest.position(of: node)
            let parent = forest.parent(of: node)
            let q = parent.map { forest.position(of: $0) }
            let range = forest.descendantPositions(of: q)
            if range.count <= childWalkLimit {
                // One walk places every child of the parent (the loop skips those placed).
                let children = forest.children(of: parent)
                for (i, child) in children.enumerated() { places[child] = (i, children.count) }
            } else {
                guard let base = childBase(Int32(forest.level(at: p))) else { return nil }
                places[node] = (base.count(0, range.lowerBound, p.offset, forest), base.count(0, range.lowerBound, range.upperBound, forest))
            }
        }
        return places
    }

    /// Builds the bases `keptSiblingPlaces(of: nodes)` needs: the levels of the nodes whose
    /// parent spans more than `childWalkLimit` positions, all kept with the most recently used
    /// others up to `childBaseCapacity`.
    /// - Complexity: O(positions) per base built
    public mutating func prepareSiblingPlaces(of nodes: [NodeHandle], in view: ViewID? = nil) {
        if sortedWorld(of: view) != nil { return inWorld(of: view) { $0.prepareSiblingPlaces(of: nodes) } }
        var depths: [Int32] = []
        for node in nodes {
            let span = forest.descendantPositions(of: forest.parent(of: node).map { forest.position(of: $0) }).count
            let depth = Int32(forest.level(of: node))
            if span > childWalkLimit && !depths.contains(depth) && depthBases[depth] == nil { depths.append(depth) }
        }
        TreeStore.prepareBases(depths, in: &childBases, capacity: max(childBasesKept, depths.count), undo != nil, forest)
    }

    /// The number of `node`'s children (the roots when nil) in the forest.
    /// - Complexity: O(log n) with its children's level's base kept, else O(children)
    public func childCount(of node: NodeHandle?) -> Int {
        let p = node.map { forest.position(of: $0) }
        return childList(p, nil, in: forest, layout: nil)?.count ?? forest.childCount(of: node)
    }

    /// How many bases of children the order swapped in keeps: a layout's serve its edits' sibling
    /// searches too (`SortedLayout.baseCapacity`).
    private var childBasesKept: Int { layoutKeys == nil ? max(2, childBaseCapacity) : SortedLayout.baseCapacity }

    /// The base whose cover-0 positions in a subtree at level `depth - 1` are its children.
    func childBase(_ depth: Int32) -> DepthBase? {
        depthBases[depth]?.base ?? childBases.first { $0.depth == depth }
    }

    /// The children of the node at `p` (roots: nil) of `forest` (the store's, or that of
    /// the sorted layout `layout` swapped in) in rows filtered by `filter` (nil: unfiltered),
    /// or nil when the base they need is not kept. `known`: the node is in the rows.
    private func childList(_ p: Position?, _ filter: ViewState.FilterState?, known: Bool = false, in forest: Forest,
                           layout: Int?) -> ChildList? {
        let range = forest.descendantPositions(of: p)
        if let filter {
            if p.map({ filter.isAncestorOfMatch(forest.slot(at: $0)) }) ?? true { return .included(listIncluded(range, filter, forest)) }
            if !known, let p, !isInFilteredRows(forest.slot(at: p), filter) { return .included([]) }
        }
        if range.count <= childWalkLimit {
            var count = 0
            forest.forEachChild(ofPosition: p) { _ in count += 1 }
            return .walked(p, count: count)
        }
        let depth = Int32(p.map { forest.level(at: $0) } ?? -1) + 1
        let base = layout.map { sortedLayouts[$0].childBases.first { $0.depth == depth } } ?? childBase(depth)
        return base.map { .indexed($0, range, count: $0.count(0, range.lowerBound, range.upperBound, forest)) }
    }

    /// The children of a node in A among `range` (its subtree): those in A or M.
    private func listIncluded(_ range: Range<Int>, _ filter: ViewState.FilterState, _ forest: Forest) -> [Position] {
        var result: [Position] = []
        var c = forest.nextNode(from: Position(range.lowerBound))
        while c.offset < range.upperBound {
            if filter.isIncluded(forest.slot(at: c)) { result.append(c) }
            c = forest.nextNode(from: forest.subtreeEnd(of: c))
        }
        return result
    }

    /// Whether the node in `node` is in filtered rows: its nearest ancestor-or-self in A or M
    /// is itself, or a match that is not in A (whose whole subtree shows).
    /// - Complexity: O(depth)
    private func isInFilteredRows(_ node: Slot, _ filter: ViewState.FilterState) -> Bool {
        var slot = node
        var isSelf = true
        while !filter.isIncluded(slot) {
            guard let parent = forest.parent(ofSlot: slot) else { return false }
            slot = parent
            isSelf = false
        }
        return isSelf || !filter.isAncestorOfMatch(slot)
    }
}

/// A node's children: those of the node at a position (nil: the roots), walked; a list;
/// or the cover-0 positions of a subtree under a `DepthBase`.
private enum ChildList {
    case walked(Position?, count: Int)
    case included([Position])
    case indexed(DepthBase, Range<Int>, count: Int)

    var count: Int {
        switch self {
        case .walked(_, let count), .indexed(_, _, let count): count
        case .included(let list): list.count
        }
    }

    /// The positions of the children `offset ..< offset + limit` (fewer at the end).
    /// - Complexity: O(log n + limit) for an indexed list
    func positions(from offset: Int, limit: Int, _ forest: Forest) -> [Position] {
        let end = offset >= count ? offset : offset + min(limit, count - offset)  // never past Int.max
        guard offset < end else { return [] }
        switch self {
        case .walked(let p, _):
            var result: [Position] = [], k = 0
            forest.forEachChild(ofPosition: p, { c in
                if k >= offset { result.append(c) }
                k += 1
            }, while: { k < end })
            return result
        case .included(let list):
            return Array(list[offset ..< end])
        case .indexed(let base, let range, _):
            var c = Position(base.select(0, offset, range.lowerBound, range.upperBound, forest))
            var result = [c]
            while result.count < end - offset {
                c = forest.nextNode(from: forest.subtreeEnd(of: c))
                result.append(c)
            }
            return result
        }
    }
}
