import TreeEngine

/// What a view expands where it set nothing itself: its start rule, or the last
/// `expandAll` / `collapseAll` / `expand(toDepth:)` of its unfiltered rows.
enum RefRule: Equatable, CustomStringConvertible {
    case collapsed
    case expanded
    /// The nodes at a level below N.
    case depth(Int)

    /// The rule for a node at `level` as it is now (whether it has children does not count).
    func expands(level: Int) -> Bool {
        switch self {
        case .collapsed: false
        case .expanded: true
        case .depth(let n): level < n
        }
    }

    var description: String {
        switch self {
        case .collapsed: "collapsed"
        case .expanded: "expanded"
        case .depth(let n): "depth(\(n))"
        }
    }
}

/// The filtered rows a view keeps: the queries, least recently used first, and each
/// one's expansion as a set of nodes (today's kept filtered views, one set per view).
struct RefFilteredStates {
    var kept: [FilterQuery] = []
    var expanded: [FilterQuery: Set<ObjectIdentifier>] = [:]

    /// Names `f` (the engine's `prepareView`): most recently used, built with `ancestors`
    /// (its fresh expansion: the ancestors of matches) when not kept; the least recently
    /// used dropped past `capacity`.
    mutating func use(_ f: FilterQuery, capacity: Int, builtWith ancestors: (FilterQuery) -> Set<ObjectIdentifier>) {
        if let i = kept.firstIndex(of: f) {
            kept.append(kept.remove(at: i))
            return
        }
        kept.append(f)
        expanded[f] = ancestors(f)
        while kept.count > capacity { expanded[kept.removeFirst()] = nil }
    }

    mutating func set(_ node: RefNode, _ value: Bool, _ f: FilterQuery) {
        let id = ObjectIdentifier(node)
        if value { expanded[f]!.insert(id) } else { expanded[f]!.remove(id) }
    }
}

/// One view besides the default one: its rule, the nodes whose expansion it set to
/// something else than the rule gives, and its kept filtered rows.
struct RefView {
    var rule: RefRule
    /// Only values that differ from the rule at the node's level when they were set.
    var explicit: [ObjectIdentifier: Bool] = [:]
    var filtered = RefFilteredStates()
    /// The order of its siblings (issue 37), nil: the tree's.
    var sort: SortKeys?

    init(rule: RefRule) { self.rule = rule }

    /// Whether the node's children are shown (in the unfiltered rows); `level`: the node's.
    func opens(_ node: RefNode, level: Int) -> Bool { explicit[ObjectIdentifier(node)] ?? rule.expands(level: level) }

    /// `isExpanded` as reported for the node: the rule counts only for a node with children.
    func isExpanded(_ node: RefNode, level: Int? = nil) -> Bool {
        explicit[ObjectIdentifier(node)] ?? (rule.expands(level: level ?? node.level) && node.hasChildren)
    }

    /// Sets the node's expansion: an entry only when it differs from the rule.
    mutating func set(_ node: RefNode, _ value: Bool) {
        explicit[ObjectIdentifier(node)] = value == rule.expands(level: node.level) ? nil : value
    }

    /// A new rule for every node (`expandAll`, `collapseAll`, `expand(toDepth:)`): no entries left.
    mutating func reset(to rule: RefRule) {
        self.rule = rule
        explicit = [:]
    }
}
