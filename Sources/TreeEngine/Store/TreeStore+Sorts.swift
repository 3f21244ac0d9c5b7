/// Sorted layouts (`SortedLayout`): the nodes in the order a sort gives siblings, built when
/// first asked for, the `sortCapacity` most recently used kept, and kept by every edit: a
/// node put into the tree goes where the sort places it among its siblings, one whose title
/// or data changed moves there, with the packed-memory array's gaps as in the tree's own
/// order (O(log² n) positions moved amortized). Each edit finds the place by a binary
/// search of the siblings (by the layout's `DepthBase` of their level, built for a parent of
/// more than `childWalkLimit` positions) or a walk of them.
extension TreeStore {
    /// Builds the layout of `sort` unless kept (its data fields' columns first), and makes it
    /// the most recently used; drops the oldest past `sortCapacity` (not in a transaction).
    /// - Complexity: as `SortedLayout.init`, O(sorts) when kept
    public mutating func prepareSort(_ sort: SortKeys) {
        if let i = sortedLayouts.firstIndex(where: { $0.keys == sort }) {
            sortedLayouts.append(sortedLayouts.remove(at: i))
            return
        }
        if !sort.dataPaths.isEmpty {
            guard let dataReader else { preconditionFailure("a sort by data fields needs the store's dataReader") }
            forest.addFieldColumns(sort.dataPaths, reader: dataReader, workers: filterWorkers)
        }
        sortedLayouts.append(SortedLayout(sort, of: forest, workers: filterWorkers))
        if sortedLayouts.count > sortCapacity && undo == nil {
            sortedLayouts.removeFirst(sortedLayouts.count - sortCapacity)
            dropUnusedFields()
        }
    }

    /// Whether the layout of `sort` is kept.
    public func hasSort(_ sort: SortKeys) -> Bool { sortedLayouts.contains { $0.keys == sort } }

    /// The bytes the kept sorted layouts take (their bases included).
    public var sortBytes: Int { sortedLayouts.reduce(0) { $0 + $1.columns.bytes + $1.childBases.reduce(0) { $0 + $1.bytes } } }

    // MARK: Following edits

    /// The layouts follow the insertion of the subtrees of `roots` (just put into the tree,
    /// under `parent`): each subtree sorted, and put where the sort places its root.
    mutating func sortsFollowInsertion(of roots: [Slot], parent: Slot?) {
        guard !sortedLayouts.isEmpty else { return }
        withLayouts { store, layout in
            for root in roots { store.place(store.sortedRun(of: root, layout.keys), parent: parent, in: &layout) }
        }
    }

    /// The layouts take out the subtree of `node`, before the tree does (its parent links
    /// still those of the layouts); returns each one's run, for `sortsFollowArrival`.
    mutating func sortsTakeOut(_ node: Slot) -> [Run] {
        guard !sortedLayouts.isEmpty else { return [] }
        var runs: [Run] = []
        withLayouts { store, layout in runs.append(store.takeOut(node, from: &layout)) }
        return runs
    }

    /// The layouts put back the runs `sortsTakeOut` gave, where the sort places `node`
    /// under its parent now.
    mutating func sortsFollowArrival(of node: Slot, _ runs: [Run]) {
        guard !sortedLayouts.isEmpty else { return }
        let parent = forest.parent(ofSlot: node)
        var i = 0
        withLayouts { store, layout in
            store.place(runs[i], parent: parent, in: &layout)
            i += 1
        }
    }

    /// The layouts whose keys read the title (`title`) or the data of `node` move it to its
    /// new place among its siblings.
    mutating func sortsFollowUpdate(of node: Slot, title: Bool, data: Bool) {
        guard !sortedLayouts.isEmpty else { return }
        let parent = forest.parent(ofSlot: node)
        withLayouts { store, layout in
            guard layout.keys.keys.contains(where: { $0.field == .title ? title : data }) else { return }
            let run = store.takeOut(node, from: &layout)
            store.place(run, parent: parent, in: &layout)
        }
    }

    /// Runs `body` on each kept layout, moved out of the store so that changing its columns
    /// copies nothing.
    private mutating func withLayouts(_ body: (inout TreeStore, inout SortedLayout) -> Void) {
        var layouts = sortedLayouts
        sortedLayouts = []
        for i in layouts.indices { body(&self, &layouts[i]) }
        sortedLayouts = layouts
    }

    /// Takes the subtree of `node` out of `layout`: its run in the layout's order.
    private mutating func takeOut(_ node: Slot, from layout: inout SortedLayout) -> Run {
        forest.swapLayout(&layout.columns)
        defer { forest.swapLayout(&layout.columns) }
        let p = forest.position(ofSlot: node)
        let positions = forest.subtree(of: p)
        let run = forest.takeOut(p)
        for i in layout.childBases.indices { layout.childBases[i].update(positions.lowerBound.offset ..< positions.upperBound.offset, forest) }
        if let relocation = forest.shrinkIfSparse() { layout.updateBases(relocation.range, forest) }
        return run
    }

    /// Puts `run` (a subtree in the layout's order) under `parent` where the sort places its root.
    private mutating func place(_ run: Run, parent: Slot?, in layout: inout SortedLayout) {
        let q = sortedPlace(of: run.slots[0], parent: parent, in: &layout)
        // Slots new to the forest have no position in the layout yet.
        if layout.columns.positionOf.count < forest.flags.count {
            layout.columns.positionOf.append(contentsOf: repeatElement(-1, count: forest.flags.count - layout.columns.positionOf.count))
        }
        forest.swapLayout(&layout.columns)
        defer { forest.swapLayout(&layout.columns) }
        let (start, relocation) = forest.makeRoom(run.count, at: q)
        if let relocation { layout.updateBases(relocation.range, forest) }
        forest.put(run, at: start, parent: parent)
        layout.updateBases(start ..< start + run.count, forest)
    }

    /// Where `node` (not in `layout`) goes among the children of `parent` there: before the
    /// first child it orders before (by the keys, then by their order in the tree), else
    /// after the last. A binary search by the layout's base of the children's level when the
    /// parent spans more than `childWalkLimit` positions (the base built if missing), else a walk.
    /// - Complexity: O(log² n) comparisons or O(children)
    private mutating func sortedPlace(of node: Slot, parent: Slot?, in layout: inout SortedLayout) -> Position {
        let level = parent.map { forest.level(at: forest.position(ofSlot: $0)) } ?? -1
        let span = parent.map { forest.subtree(of: forest.position(ofSlot: $0)).count } ?? forest.capacity
        if span > childWalkLimit, !layout.childBases.contains(where: { $0.depth == level + 1 }) {
            layout.childBases.append(DepthBase(depth: Int32(level + 1), forest: forest.withLayout(layout.columns)))
            // Every edit updates them: the most recently built few are kept.
            if layout.childBases.count > SortedLayout.baseCapacity { layout.childBases.removeFirst() }
        }
        return TreeStore.sortedPlace(of: node, parent: parent, in: forest.withLayout(layout.columns), layout, tree: forest,
                                     walkLimit: childWalkLimit)
    }

    private static func sortedPlace(of node: Slot, parent: Slot?, in sorted: Forest, _ layout: SortedLayout, tree: Forest,
                                    walkLimit: Int) -> Position {
        tree.withPooledValues(layout.keys.fields) { values in
            sortedPlace(of: node, parent: parent, in: sorted, layout, tree: tree, values, walkLimit: walkLimit)
        }
    }

    private static func sortedPlace(of node: Slot, parent: Slot?, in sorted: Forest, _ layout: SortedLayout, tree: Forest,
                                    _ values: [PooledValues], walkLimit: Int) -> Position {
        var order = SiblingOrder(layout.keys)
        let pNode = tree.position(ofSlot: node)
        func isBefore(_ c: Position) -> Bool {
            let other = sorted.slot(at: c)
            let byKeys = order.compare(node, other, values)
            return byKeys != 0 ? byKeys < 0 : pNode < tree.position(ofSlot: other)
        }
        let p = parent.map { sorted.position(ofSlot: $0) }
        let appended = p.map { sorted.subtreeEnd(of: $0) } ?? sorted.endOfNodes(before: sorted.positions.upperBound)
        let range = p.map { ($0 + 1).offset ..< sorted.subtreeEnd(of: $0).offset } ?? 0 ..< sorted.capacity
        let depth = Int32(p.map { sorted.level(at: $0) } ?? -1) + 1
        if range.count > walkLimit, let base = layout.childBases.first(where: { $0.depth == depth }) {
            var lo = 0, hi = base.count(0, range.lowerBound, range.upperBound, sorted)
            while lo < hi {
                let mid = (lo + hi) / 2
                if isBefore(Position(base.select(0, mid, range.lowerBound, range.upperBound, sorted))) { hi = mid } else { lo = mid + 1 }
            }
            return lo < base.count(0, range.lowerBound, range.upperBound, sorted)
                ? Position(base.select(0, lo, range.lowerBound, range.upperBound, sorted)) : appended
        }
        var found: Position?
        sorted.forEachChild(ofPosition: p, { c in if isBefore(c) { found = c } }, while: { found == nil })
        return found ?? appended
    }

    /// The subtree of `root` (in the tree) as a run in the order of `keys`.
    /// - Complexity: O(k log k) for k nodes
    private func sortedRun(of root: Slot, _ keys: SortKeys) -> Run {
        forest.withPooledValues(keys.fields) { sortedRun(of: root, keys, $0) }
    }

    private func sortedRun(of root: Slot, _ keys: SortKeys, _ values: [PooledValues]) -> Run {
        var order = SiblingOrder(keys)
        var run = Run()
        var open: [Int] = []  // the run indexes of the nodes whose subtrees are being written
        var stack: [(children: [Int32], next: Int)] = [([root.rawValue], 0)]
        while let top = stack.last {
            if top.next == top.children.count {
                stack.removeLast()
                if let j = open.popLast() { run.ends[j] = Int32(run.slots.count) }
                continue
            }
            stack[stack.count - 1].next += 1
            let slot = Slot(rawValue: top.children[top.next])
            let j = run.slots.count
            run.slots.append(slot)
            run.depths.append(Int32(stack.count - 1))
            run.ends.append(Int32(j + 1))
            var children = forest.childPositions(ofPosition: forest.position(ofSlot: slot)).map { forest.slot(at: $0).rawValue }
            guard !children.isEmpty else { continue }
            children.withUnsafeMutableBufferPointer { order.sort($0, values) }
            open.append(j)
            stack.append((children, 0))
        }
        return run
    }
}

extension SortedLayout {
    /// How many bases a layout keeps, for its children pages and its edits' binary searches.
    static let baseCapacity = 8

    /// The bases follow the nodes at `range` of `forest` (this layout swapped in).
    mutating func updateBases(_ range: Range<Position>, _ forest: Forest) {
        for i in childBases.indices { childBases[i].update(range.lowerBound.offset ..< range.upperBound.offset, forest) }
    }
}
