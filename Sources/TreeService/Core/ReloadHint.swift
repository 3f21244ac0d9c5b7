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
        /// Every row list of one view but the one named (a change of its selection through
        /// rows that only the named list has).
        case otherRows(ViewRef)

        func includes(_ rows: ViewRef) -> Bool {
            switch self {
            case .everywhere: true
            case .rows(let r): r == rows
            case .view(let v): v == rows.view
            case .otherRows(let r): r.view == rows.view && r != rows
            }
        }
    }

    /// Which rows of a node may have changed, besides its ancestors'.
    private enum Extent {
        /// Its own row.
        case node
        /// Its own row and its visible descendants'.
        case subtree
        /// The rows from its own to the row of another node (a range of rows), every row
        /// when either is gone or hidden.
        case through(ItemID)
    }

    /// Where every row may have changed.
    private var whole: Set<Scope> = []
    /// Nodes whose rows, and whose ancestors' rows, may have changed, and where.
    private var nodes: [(id: ItemID, extent: Extent, scope: Scope)] = []

    private init(whole: Set<Scope> = [], nodes: [(id: ItemID, extent: Extent, scope: Scope)] = []) {
        self.whole = whole
        self.nodes = nodes
    }

    /// No row.
    init() {}

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
        ReloadHint(nodes: nodes.map { (id(of: $0, forest), .node, .everywhere) })
    }

    /// The rows of `node` and of its ancestors in `view` alone (a change of its expansion);
    /// with `subtree`, its visible descendants' rows too (a change of the whole subtree's).
    static func path(_ node: NodeHandle, subtree: Bool = false, _ forest: Forest, in view: ViewRef) -> ReloadHint {
        ReloadHint(nodes: [(id(of: node, forest), subtree ? .subtree : .node, .rows(view))])
    }

    /// The rows of `node` and of its ancestors in every row list of `view` (a change of
    /// its selection); with `subtree`, its visible descendants' rows too.
    static func path(_ node: NodeHandle, subtree: Bool = false, _ forest: Forest, inView view: ViewID?) -> ReloadHint {
        ReloadHint(nodes: [(id(of: node, forest), subtree ? .subtree : .node, .view(view))])
    }

    /// The rows from `first`'s to `last`'s in `view` and their ancestors', and every row of
    /// the view's other row lists (a change of the selection of a range of rows).
    static func rows(from first: NodeHandle, through last: NodeHandle, _ forest: Forest, in view: ViewRef) -> ReloadHint {
        ReloadHint(whole: [.otherRows(view)], nodes: [(id(of: first, forest), .through(id(of: last, forest)), .rows(view))])
    }

    private static func id(of node: NodeHandle, _ forest: Forest) -> ItemID {
        ItemID(forest.id(of: node).description)
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
        let everything = total > 0 ? [(index: 0, count: total)] : []
        if whole.contains(where: { $0.includes(view) }) { return everything }
        let forest = store.forest
        func row(_ node: NodeHandle) -> Int? { store.keptPlacement(of: node, view)?.index }
        var spans: [Range<Int>] = []
        for (id, extent, scope) in nodes {
            guard scope.includes(view) else { continue }
            guard let node = forest.node(withID: id.text) else {
                if case .through = extent { return everything }
                continue
            }
            for n in forest.path(of: node) {
                if let r = row(n) { spans.append(r ..< r + 1) }
            }
            switch extent {
            case .node:
                if let r = row(node) { spans.append(r ..< r + 1) }
            case .subtree:
                spans.append(store.keptRows(ofSubtree: node, view)!)
            case .through(let lastID):
                guard let last = forest.node(withID: lastID.text), let a = row(node), let b = row(last), a <= b else { return everything }
                spans.append(a ..< b + 1)
            }
        }
        spans.sort { $0.lowerBound < $1.lowerBound }
        var ranges: [(index: Int, count: Int)] = []
        for span in spans where !span.isEmpty {
            if let last = ranges.last, span.lowerBound <= last.index + last.count {
                ranges[ranges.count - 1].count = max(last.count, span.upperBound - last.index)
            } else {
                ranges.append((span.lowerBound, span.count))
            }
        }
        return ranges
    }
}
