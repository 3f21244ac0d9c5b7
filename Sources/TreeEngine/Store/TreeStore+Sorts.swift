/// Sorted layouts (`SortedLayout`): the nodes in the order a sort gives siblings, built when
/// first asked for, the `sortCapacity` most recently used kept, and kept by every edit: a
/// node put into the tree goes where the sort places it among its siblings, one whose title
/// or data changed moves there, with the packed-memory array's gaps as in the tree's own
/// order (O(log² n) positions moved amortized). Each edit finds the place among at most 64
/// siblings by walking them, among more by a binary search with the layout's `DepthBase` of
/// their level (`Siblings`).
extension TreeStore {
    /// Builds the layout of `sort` unless kept (its data fields' columns first), and makes it
    /// the most recently used; drops the oldest that no view is sorted by past
    /// `sortCapacity`, at least 1 (not in a transaction). Readers that find a layout kept do
    /// not reorder them.
    /// - Complexity: as `SortedLayout.init`, O(sorts) when kept
    public mutating func prepareSort(_ sort: SortKeys) {
        precondition(layoutKeys == nil, "sorts are built in the tree's order")
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
            dropUnusedLayouts()
            dropUnusedFields()
        }
    }

    /// Whether the layout of `sort` is kept.
    public func hasSort(_ sort: SortKeys) -> Bool { sortedLayouts.contains { $0.keys == sort } }

    /// The bytes the kept sorted layouts take (their bases included, their views not).
    public var sortBytes: Int { sortedLayouts.reduce(0) { $0 + $1.columns.bytes + $1.childBases.reduce(0) { $0 + $1.bytes } } }

    // MARK: Following edits in a layout

    /// The subtrees of `roots` (in the tree) as runs in the order of each layout's keys, by layout.
    /// - Complexity: O(k log k) per layout for k nodes
    func sortedRuns(of roots: [Slot]) -> [[Run]] {
        sortedLayouts.map { layout in
            forest.withPooledValues(layout.keys.fields) { values in roots.map { sortedRun(of: $0, layout.keys, values) } }
        }
    }

    /// Where `node` (not in the layout swapped in) goes among the children of `parent` there:
    /// before the first child it orders before (by `keys`, then by their order in the tree,
    /// whose positions by slot are `tree`), else after the last.
    /// - Complexity: O(log² n) comparisons (`Siblings`)
    mutating func sortedPlace(of node: Slot, parent: Slot?, _ keys: SortKeys, tree: ContiguousArray<Int32>) -> Position {
        let siblings = siblings(under: parent)
        return forest.withPooledValues(keys.fields) { values in
            var order = SiblingOrder(keys)
            let k = siblings.firstAfter { order.isBefore(node, siblings.sorted.slot(at: $0), values, tree: tree) }
            return k.map { siblings[$0] } ?? siblings.appended
        }
    }

    /// Whether `node` is where `keys` place it among its siblings in the layout swapped in:
    /// after the one before it and before the one after it.
    /// - Complexity: O(log n) comparisons (`Siblings`)
    mutating func isInPlace(_ node: Slot, _ keys: SortKeys, tree: ContiguousArray<Int32>) -> Bool {
        let siblings = siblings(under: forest.parent(ofSlot: node))
        let (before, after) = siblings.neighbours(of: siblings.sorted.position(ofSlot: node))
        return forest.withPooledValues(keys.fields) { values in
            var order = SiblingOrder(keys)
            return before.map { order.isBefore(siblings.sorted.slot(at: $0), node, values, tree: tree) } ?? true
                && after.map { order.isBefore(node, siblings.sorted.slot(at: $0), values, tree: tree) } ?? true
        }
    }

    /// Whether keys that read the title or the data (as `title` and `data` say) of a node
    /// order it anew when those change.
    static func reorders(_ keys: SortKeys, title: Bool, data: Bool) -> Bool {
        keys.keys.contains { $0.field == .title ? title : data }
    }

    // MARK: Following a rollback

    // A rollback moves the nodes of every layout back (their views are restored after,
    // `TreeStore+Transaction.swift`): only the bases of the layouts' sibling searches follow.

    /// The layouts take out the subtree of `node`, before the tree does (its parent links
    /// still those of the layouts); returns each one's run, for `sortsFollowArrival`.
    mutating func sortsTakeOut(_ node: Slot) -> [Run] {
        var runs: [Run] = []
        forEachSortedWorld { store, _, _, _ in runs.append(store.takeOutOfLayout(node)) }
        return runs
    }

    /// The layouts follow the insertion of the subtrees of `roots` (just put into the tree,
    /// under `parent`): each subtree sorted, and put where the sort places its root.
    mutating func sortsFollowInsertion(of roots: [Slot], parent: Slot?) {
        let runs = sortedRuns(of: roots)
        forEachSortedWorld { store, i, keys, tree in
            for run in runs[i] { store.putIntoLayout(run, parent: parent, keys, tree: tree) }
        }
    }

    /// The layouts put back the runs `sortsTakeOut` gave, where the sort places `node`
    /// under its parent now.
    mutating func sortsFollowArrival(of node: Slot, _ runs: [Run]) {
        let parent = forest.parent(ofSlot: node)
        forEachSortedWorld { store, i, keys, tree in store.putIntoLayout(runs[i], parent: parent, keys, tree: tree) }
    }

    /// The layouts whose keys read the title (`title`) or the data of `node` move it to its
    /// new place among its siblings, unless it is still in place (moving it moves its subtree).
    mutating func sortsFollowUpdate(of node: Slot, title: Bool, data: Bool) {
        let parent = forest.parent(ofSlot: node)
        forEachSortedWorld { store, _, keys, tree in
            guard TreeStore.reorders(keys, title: title, data: data), !store.isInPlace(node, keys, tree: tree) else { return }
            store.putIntoLayout(store.takeOutOfLayout(node), parent: parent, keys, tree: tree)
        }
    }

    /// Takes the subtree of `node` out of the layout swapped in: its run in the layout's order.
    private mutating func takeOutOfLayout(_ node: Slot) -> Run {
        let p = forest.position(ofSlot: node)
        let positions = forest.subtree(of: p)
        let run = forest.takeOut(p)
        updateChildBases(positions)
        if let relocation = forest.shrinkIfSparse() { updateChildBases(relocation.range) }
        return run
    }

    /// Puts `run` (a subtree in the layout's order) under `parent` where `keys` place its root.
    private mutating func putIntoLayout(_ run: Run, parent: Slot?, _ keys: SortKeys, tree: ContiguousArray<Int32>) {
        let q = sortedPlace(of: run.slots[0], parent: parent, keys, tree: tree)
        let (start, relocation) = forest.makeRoom(run.count, at: q)
        if let relocation { updateChildBases(relocation.range) }
        forest.put(run, at: start, parent: parent)
        updateChildBases(start ..< start + run.count)
    }

    /// The bases of children follow the nodes at `range`.
    private mutating func updateChildBases(_ range: Range<Position>) {
        for i in childBases.indices { childBases[i].update(range.lowerBound.offset ..< range.upperBound.offset, forest) }
    }

    // MARK: Siblings

    /// The children of `parent` in the layout swapped in: listed when there are at most
    /// `Siblings.listed`, else counted by the layout's `DepthBase` of their level (built if
    /// missing, then the most recently used of `SortedLayout.baseCapacity`).
    private mutating func siblings(under parent: Slot?) -> Siblings {
        let p = parent.map { forest.position(ofSlot: $0) }
        let range = forest.descendantPositions(of: p)
        let appended = p.map { forest.subtreeEnd(of: $0) } ?? forest.endOfNodes(before: forest.positions.upperBound)
        var list: [Position] = []
        forest.forEachChild(ofPosition: p, { list.append($0) }, while: { list.count <= Siblings.listed })
        if list.count <= Siblings.listed { return Siblings(sorted: forest, range: range, appended: appended, list: list, base: nil) }
        let depth = Int32(p.map { forest.level(at: $0) } ?? -1) + 1
        if let i = childBases.firstIndex(where: { $0.depth == depth }) {
            childBases.append(childBases.remove(at: i))
        } else {
            childBases.append(DepthBase(depth: depth, forest: forest))
            // Every edit updates them: the most recently used few are kept.
            if childBases.count > SortedLayout.baseCapacity { childBases.removeFirst() }
        }
        return Siblings(sorted: forest, range: range, appended: appended, list: [], base: childBases.last!)
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
}
