import TreeEngine

/// The rows of a view that a change may have altered in place (a title, an `expanded` or
/// `hasChildren` flag, a match), besides the rows its splices insert: a client that applies
/// the splices and fetches these rows again holds exactly the rows `GET rows` gives. A
/// superset: the rows of the nodes an operation touched and of all their ancestors, or every
/// row of a view whose whole expansion or selection changed.
struct ReloadHint {
    /// Where rows may have changed.
    private enum Scope: Hashable {
        /// Every view's rows (an edit of the tree).
        case everywhere
        /// The rows of one view: unfiltered or filtered (a change of expansion).
        case rows(ViewRef)
        /// Every row list of one view, unfiltered and filtered (a change of its selection).
        case view(ViewID?)

        func includes(_ rows: ViewRef) -> Bool {
            switch self {
            case .everywhere: true
            case .rows(let r): r == rows
            case .view(let v): v == rows.view
            }
        }
    }

    /// Where every row may have changed.
    private var whole: Set<Scope> = []
    /// Nodes whose rows, and whose ancestors' rows, may have changed, and where.
    private var nodes: [(id: ItemID, scope: Scope)] = []

    /// Every row of `view` (an expansion of the whole view).
    static func everything(_ view: ViewRef) -> ReloadHint {
        ReloadHint(whole: [.rows(view)])
    }

    /// Every row of every row list of `view` (a change of its selection).
    static func everything(inView view: ViewID?) -> ReloadHint {
        ReloadHint(whole: [.view(view)])
    }

    /// The rows of `nodes` and of their ancestors, in every view (an edit of the tree).
    static func paths(_ nodes: some Sequence<NodeHandle>, _ forest: Forest) -> ReloadHint {
        ReloadHint(nodes: nodes.map { (ItemID(forest.id(of: $0).description), .everywhere) })
    }

    /// The rows of `node` and of its ancestors in `view` alone (a change of its expansion).
    static func path(_ node: NodeHandle, _ forest: Forest, in view: ViewRef) -> ReloadHint {
        ReloadHint(nodes: [(ItemID(forest.id(of: node).description), .rows(view))])
    }

    /// The rows of `node` and of its ancestors in every row list of `view` (a change of
    /// its selection of the node alone).
    static func path(_ node: NodeHandle, _ forest: Forest, inView view: ViewID?) -> ReloadHint {
        ReloadHint(nodes: [(ItemID(forest.id(of: node).description), .view(view))])
    }

    /// What either hint covers (the operations of a batch).
    mutating func formUnion(_ other: ReloadHint) {
        whole.formUnion(other.whole)
        nodes += other.nodes
    }

    /// The rows of the hint in a kept view, as sorted disjoint ranges (nodes no longer in
    /// the tree, or hidden in that view, have none).
    /// - Complexity: O(nodes · depth · log n)
    func ranges(in store: TreeStore, _ view: ViewRef) -> [(index: Int, count: Int)] {
        let total = store.keptRowCount(view)!
        if whole.contains(where: { $0.includes(view) }) { return total > 0 ? [(0, total)] : [] }
        let forest = store.forest
        var rows: [Int] = []
        for (id, scope) in nodes {
            guard scope.includes(view) else { continue }
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
