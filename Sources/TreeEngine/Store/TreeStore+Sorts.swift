/// Sorted layouts (`SortedLayout`): the nodes in the order a sort gives siblings, built when
/// first asked for, the `sortCapacity` most recently used kept, and kept by every edit: a
/// node put into the tree goes where the sort places it among its siblings, one whose title
/// or data changed moves there, with the packed-memory array's gaps as in the tree's own
/// order (O(log² n) positions moved amortized). Each edit finds the place among at most 64
/// siblings by walking them, among more by a binary search with the layout's `DepthBase` of
/// their level (`Siblings`).
extension TreeStore {
    /// Builds the layout of `sort` unless kept (its data fields' columns first), and makes it
    /// the most recently used; drops the oldest past `sortCapacity`, at least 1 (not in a
    /// transaction). Readers that find a layout kept do not reorder them.
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
        if sortedLayouts.count > max(1, sortCapacity) && undo == nil {
            sortedLayouts.removeFirst(sortedLayouts.count - max(1, sortCapacity))
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
    /// new place among its siblings, unless it is still in place (moving it moves its subtree).
    mutating func sortsFollowUpdate(of node: Slot, title: Bool, data: Bool) {
        guard !sortedLayouts.isEmpty else { return }
        let parent = forest.parent(ofSlot: node)
        withLayouts { store, layout in
            guard layout.keys.keys.contains(where: { $0.field == .title ? title : data }), !store.isInPlace(node, in: &layout) else { return }
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
        layout.updateBases(positions, forest)
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
    /// after the last.
    /// - Complexity: O(log² n) comparisons (`Siblings`)
    private mutating func sortedPlace(of node: Slot, parent: Slot?, in layout: inout SortedLayout) -> Position {
        let siblings = siblings(under: parent, in: &layout)
        return forest.withPooledValues(layout.keys.fields) { values in
            var order = SiblingOrder(layout.keys)
            let k = siblings.firstAfter { order.isBefore(node, siblings.sorted.slot(at: $0), values, tree: forest) }
            return k.map { siblings[$0] } ?? siblings.appended
        }
    }

    /// Whether `node` is where the sort places it among its siblings in `layout`: after the
    /// one before it and before the one after it.
    /// - Complexity: O(log n) comparisons (`Siblings`)
    private mutating func isInPlace(_ node: Slot, in layout: inout SortedLayout) -> Bool {
        let siblings = siblings(under: forest.parent(ofSlot: node), in: &layout)
        let (before, after) = siblings.neighbours(of: siblings.sorted.position(ofSlot: node))
        return forest.withPooledValues(layout.keys.fields) { values in
            var order = SiblingOrder(layout.keys)
            return before.map { order.isBefore(siblings.sorted.slot(at: $0), node, values, tree: forest) } ?? true
                && after.map { order.isBefore(node, siblings.sorted.slot(at: $0), values, tree: forest) } ?? true
        }
    }

    /// The children of `parent` in `layout`: listed when there are at most `Siblings.listed`,
    /// else counted by the layout's `DepthBase` of their level (built if missing, then the
    /// most recently used of `SortedLayout.baseCapacity`).
    private mutating func siblings(under parent: Slot?, in layout: inout SortedLayout) -> Siblings {
        let sorted = forest.withLayout(layout.columns)
        let p = parent.map { sorted.position(ofSlot: $0) }
        let range = sorted.descendantPositions(of: p)
        let appended = p.map { sorted.subtreeEnd(of: $0) } ?? sorted.endOfNodes(before: sorted.positions.upperBound)
        var list: [Position] = []
        sorted.forEachChild(ofPosition: p, { list.append($0) }, while: { list.count <= Siblings.listed })
        if list.count <= Siblings.listed { return Siblings(sorted: sorted, range: range, appended: appended, list: list, base: nil) }
        let depth = Int32(p.map { sorted.level(at: $0) } ?? -1) + 1
        if let i = layout.childBases.firstIndex(where: { $0.depth == depth }) {
            layout.childBases.append(layout.childBases.remove(at: i))
        } else {
            layout.childBases.append(DepthBase(depth: depth, forest: sorted))
            // Every edit updates them: the most recently used few are kept.
            if layout.childBases.count > SortedLayout.baseCapacity { layout.childBases.removeFirst() }
        }
        return Siblings(sorted: sorted, range: range, appended: appended, list: [], base: layout.childBases.last!)
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

/// A node's children in a sorted layout, as an edit searches them: a list of at most `listed`,
/// or the cover-0 positions of the parent's subtree under the layout's base of their level.
private struct Siblings {
    static let listed = 64
    let sorted: Forest
    let range: Range<Int>
    /// Where a node goes after the last child.
    let appended: Position
    let list: [Position]
    let base: DepthBase?

    var count: Int { base.map { $0.count(0, range.lowerBound, range.upperBound, sorted) } ?? list.count }
    subscript(k: Int) -> Position { base.map { Position($0.select(0, k, range.lowerBound, range.upperBound, sorted)) } ?? list[k] }

    /// The index of the first child for which `isAfter` holds (they are in order: none
    /// holds before one that does), nil if none: a binary search.
    func firstAfter(_ isAfter: (Position) -> Bool) -> Int? {
        let n = count
        var lo = 0, hi = n
        while lo < hi {
            let mid = (lo + hi) / 2
            if isAfter(self[mid]) { hi = mid } else { lo = mid + 1 }
        }
        return lo < n ? lo : nil
    }

    /// The children just before and after the one at `p`.
    func neighbours(of p: Position) -> (before: Position?, after: Position?) {
        let next = sorted.nextNode(from: sorted.subtreeEnd(of: p))
        let after = next.offset < range.upperBound ? next : nil
        if let base {
            let k = base.count(0, range.lowerBound, p.offset, sorted)
            return (k > 0 ? Position(base.select(0, k - 1, range.lowerBound, range.upperBound, sorted)) : nil, after)
        }
        let k = list.firstIndex(of: p)!
        return (k > 0 ? list[k - 1] : nil, after)
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
