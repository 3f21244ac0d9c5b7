import TreeEngine

/// The rows of a view that a change may have altered in place (a title, an `expanded` or
/// `hasChildren` flag, a match), besides the rows its splices insert: a client that applies
/// the splices and fetches these rows again holds exactly the rows `GET rows` gives. A
/// superset: the rows of the nodes an operation touched and of all their ancestors, or every
/// row of a view whose whole expansion changed.
struct ReloadHint {
    /// Views in which every row may have changed.
    private var wholeViews: Set<FilterQuery?> = []
    /// Nodes whose rows, and whose ancestors' rows, may have changed.
    private var nodes: [ItemID] = []

    /// Every row of `view` (an expansion of the whole view).
    static func everything(_ view: FilterQuery?) -> ReloadHint {
        ReloadHint(wholeViews: [view])
    }

    /// The rows of `nodes` and of their ancestors, in every view.
    static func paths(_ nodes: some Sequence<NodeHandle>, _ forest: Forest) -> ReloadHint {
        ReloadHint(nodes: nodes.map { ItemID(forest.id(of: $0).description) })
    }

    /// What either hint covers (the operations of a batch).
    mutating func formUnion(_ other: ReloadHint) {
        wholeViews.formUnion(other.wholeViews)
        nodes += other.nodes
    }

    /// The rows of the hint in a kept view, as sorted disjoint ranges (nodes no longer in
    /// the tree, or hidden in that view, have none).
    /// - Complexity: O(nodes · depth · log n)
    func ranges(in store: TreeStore, _ view: FilterQuery?) -> [(index: Int, count: Int)] {
        let total = store.keptRowCount(view)!
        if wholeViews.contains(view) { return total > 0 ? [(0, total)] : [] }
        let forest = store.forest
        var rows: [Int] = []
        for id in nodes {
            guard let node = forest.node(withID: id.text) else { continue }
            for n in forest.path(of: node) + [node] {
                if let row = store.keptPlacement(of: n, view)?.index { rows.append(row) }
            }
        }
        rows.sort()
        var ranges: [(index: Int, count: Int)] = []
        for row in rows {
            if let last = ranges.last, row <= last.index + last.count {
                ranges[ranges.count - 1].count = max(last.count, row - last.index + 1)
            } else {
                ranges.append((row, 1))
            }
        }
        return ranges
    }
}
