import Foundation
import TreeEngine

/// A node of the naive reference model: an object with a children array.
final class RefNode {
    /// nil until the engine has assigned a generated id (nodes uploaded without one).
    var id: NodeID?
    var title: String { didSet { refreshTitle() } }
    var children: [RefNode] = []
    weak var parent: RefNode?
    /// Expanded in the unfiltered view.
    var expanded: Bool
    var declaresChildren: Bool
    var data: [UInt8]?
    /// Selected in a view (nil key: the default view); absent: not selected
    /// (`ReferenceForest+Selection.swift`).
    var selected: [ViewID?: Bool] = [:]
    /// The title with its folds, made again when the title changes.
    private(set) var folding = RefTitle("")

    init(id: NodeID?, title: String, expanded: Bool, declaresChildren: Bool, data: [UInt8]?) {
        self.id = id
        self.title = title
        self.expanded = expanded
        self.declaresChildren = declaresChildren
        self.data = data
        refreshTitle()
    }

    private func refreshTitle() { folding = RefTitle(title) }

    var hasChildren: Bool { !children.isEmpty || declaresChildren }
    var key: String { id!.description }

    var level: Int {
        var n = 0
        var p = parent
        while let q = p { n += 1; p = q.parent }
        return n
    }

    /// Ancestors, root first.
    var path: [RefNode] {
        var result: [RefNode] = []
        var p = parent
        while let q = p { result.append(q); p = q.parent }
        return result.reversed()
    }

    func isAncestorOrSelf(of other: RefNode) -> Bool {
        var p: RefNode? = other
        while let q = p { if q === self { return true }; p = q.parent }
        return false
    }

    /// The node and all its descendants, pre-order.
    var subtree: [RefNode] {
        var out: [RefNode] = []
        appendSubtree(to: &out)
        return out
    }

    func appendSubtree(to out: inout [RefNode]) {
        out.append(self)
        for c in children { c.appendSubtree(to: &out) }
    }
}

/// A row as the reference computes it; ids by string form.
struct RefRow: Equatable, CustomStringConvertible {
    var id: String
    var level: Int
    var expanded: Bool
    var hasChildren: Bool
    var parentID: String?
    var isMatch: Bool
    /// Filtered rows: the matches among the node's descendants; nil where not compared.
    var matchesBelow: Int? = nil

    var key: RefKey { RefKey(id: id, level: level) }
    var description: String {
        "(\(id) L\(level)\(expanded ? " exp" : "")\(hasChildren ? " kids" : "") p=\(parentID ?? "-")\(isMatch ? " M" : "")"
            + "\(matchesBelow.map { " below=\($0)" } ?? ""))"
    }
}

/// What identifies a row for `changes`.
struct RefKey: Equatable, CustomStringConvertible {
    var id: String
    var level: Int
    var description: String { "\(id)@\(level)" }
}

/// The reference model: the forest as objects, and each view's expansion as a set,
/// computed recursively by the definitions and nothing cleverer.
///
/// The default view (`ViewRef(nil)`) keeps its unfiltered expansion in the nodes'
/// `expanded` flags; every other view (issue 35, `ReferenceForest+Views.swift`) is a
/// `RefView`. Each view keeps its own filtered rows (`RefFilteredStates`).
final class ReferenceForest {
    var roots: [RefNode]
    /// How many filtered views the engine keeps per view (`TreeStore.filteredViewCapacity`).
    var capacity: Int
    /// The default view's filtered rows.
    var defaultFiltered = RefFilteredStates()
    /// The views besides the default one.
    var views: [ViewID: RefView] = [:]
    /// What a root put into the forest is in each view's selection (nil key: the default
    /// view's); absent: not selected.
    var rootSelection: [ViewID?: Bool] = [:]
    /// Filtered views the default view keeps, most recently used last.
    var kept: [FilterQuery] { defaultFiltered.kept }

    /// The forest as the last edit left it (or as uploaded): each node's parent and title,
    /// by node. Holds the nodes, so no identifier of a node known here is reused by a new one.
    private var synced: [ObjectIdentifier: Synced] = [:]

    struct Synced {
        var node: RefNode
        var parent: RefNode?
        var title: RefTitle
        var data: [UInt8]?
        var hasChildren: Bool
    }

    init(roots: [RefNode], capacity: Int) {
        self.roots = roots
        self.capacity = capacity
        sync()
    }

    /// A reference holding the nodes of `forest` as they are (ids, titles, expansion, data).
    convenience init(mirroring forest: Forest, capacity: Int) {
        func node(_ h: NodeHandle, _ parent: RefNode?) -> RefNode {
            let n = RefNode(id: forest.id(of: h), title: forest.title(of: h), expanded: forest.isExpandedUnfiltered(h),
                            declaresChildren: forest.declaresChildren(h), data: forest.data(of: h))
            n.parent = parent
            n.children = forest.children(of: h).map { node($0, n) }
            return n
        }
        self.init(roots: forest.children(of: nil).map { node($0, nil) }, capacity: capacity)
    }

    /// Remembers the forest as it is now: the "before" of the next edit.
    private func sync() {
        synced.removeAll(keepingCapacity: true)
        for n in allNodes {
            synced[ObjectIdentifier(n)] = Synced(node: n, parent: n.parent, title: n.folding, data: n.data, hasChildren: n.hasChildren)
        }
    }

    // MARK: Nodes

    var allNodes: [RefNode] {
        var out: [RefNode] = []
        for r in roots { r.appendSubtree(to: &out) }
        return out
    }

    /// Siblings in the order a view shows them: its sort's (issue 37), or the tree's.
    func ordered(_ siblings: [RefNode], _ view: ViewID?) -> [RefNode] {
        guard let sort = view.flatMap({ views[$0]?.sort }) else { return siblings }
        return Self.sorted(siblings, sort)
    }

    /// Every node in the order a view shows them (pre-order, siblings `ordered`).
    func allNodes(in view: ViewID?) -> [RefNode] {
        var out: [RefNode] = []
        func visit(_ node: RefNode) {
            out.append(node)
            for c in ordered(node.children, view) { visit(c) }
        }
        for r in ordered(roots, view) { visit(r) }
        return out
    }

    func siblings(of parent: RefNode?) -> [RefNode] { parent?.children ?? roots }

    private func setChildren(of parent: RefNode?, _ children: [RefNode]) {
        if let parent { parent.children = children } else { roots = children }
    }

    // MARK: Matching

    /// Whether `node` matches: its fields and conditions do (`RefFields.swift`), and with
    /// `leavesOnly` it has no children (`hasChildren` false).
    static func matches(_ node: RefNode, _ f: FilterQuery) -> Bool { matches(node, RefQuery(f)) }

    static func matches(_ node: RefNode, _ q: RefQuery) -> Bool {
        matches(title: node.folding, data: node.data, hasChildren: node.hasChildren, q)
    }

    /// M: the matching nodes.
    func matchSet(_ f: FilterQuery) -> Set<ObjectIdentifier> {
        let q = RefQuery(f)
        return Set(allNodes.filter { Self.matches($0, q) }.map(ObjectIdentifier.init))
    }

    /// A: every ancestor of a matching node.
    func ancestorSet(_ f: FilterQuery) -> Set<ObjectIdentifier> {
        let q = RefQuery(f)
        var result = Set<ObjectIdentifier>()
        /// Whether the subtree of `node` holds a match; a node is in A when a child's does.
        func visit(_ node: RefNode) -> Bool {
            var below = false
            for c in node.children where visit(c) { below = true }
            if below { result.insert(ObjectIdentifier(node)) }
            return below || Self.matches(node, q)
        }
        for r in roots { _ = visit(r) }
        return result
    }

    /// A as it was before the current edit (in the forest `sync` remembered).
    func ancestorSetBeforeEdit(_ f: FilterQuery) -> Set<ObjectIdentifier> {
        let q = RefQuery(f)
        var result = Set<ObjectIdentifier>()
        for entry in synced.values where Self.matches(title: entry.title, data: entry.data, hasChildren: entry.hasChildren, q) {
            var p = entry.parent
            while let q = p, result.insert(ObjectIdentifier(q)).inserted { p = synced[ObjectIdentifier(q)]!.parent }
        }
        return result
    }

    // MARK: Views

    /// The expansion of a filtered view as the engine would see it now (a dropped
    /// view is rebuilt fresh), without counting as a use.
    func expandedSet(_ f: FilterQuery) -> Set<ObjectIdentifier> { expandedSet(ViewRef(nil, filter: f)) }

    /// `expandedSet` of a view's filtered rows (`ref.filter` not nil).
    func expandedSet(_ ref: ViewRef) -> Set<ObjectIdentifier> { filteredStates(ref.view).expanded[ref.filter!] ?? ancestorSet(ref.filter!) }

    /// Mirrors the engine naming the view (`prepareView`): most recently used, built when not kept.
    func use(_ f: FilterQuery?) { use(ViewRef(nil, filter: f)) }

    /// `use` in any view: its unfiltered rows need no build; its filtered rows as above.
    func use(_ ref: ViewRef) { use(ref, builtWith: ancestorSet) }

    /// `use`, building the view's expansion (A) with `ancestors`.
    func use(_ ref: ViewRef, builtWith ancestors: (FilterQuery) -> Set<ObjectIdentifier>) {
        guard let f = ref.filter else { return }
        if let v = ref.view {
            views[v]!.filtered.use(f, capacity: capacity, builtWith: ancestors)
        } else {
            defaultFiltered.use(f, capacity: capacity, builtWith: ancestors)
        }
    }

    func isKept(_ f: FilterQuery) -> Bool { kept.contains(f) }

    /// The filtered rows a view keeps (nil: the default view's).
    func filteredStates(_ view: ViewID?) -> RefFilteredStates { view.map { views[$0]!.filtered } ?? defaultFiltered }

    /// After an edit (insert, delete, move, update; already applied to the nodes) named
    /// with `f`: every kept filtered view is updated in place, none is dropped or rebuilt.
    ///
    /// First `f` becomes the most recently used view, built from the forest before the
    /// edit when it was not kept. Then in each kept view, with A_old and A_new the
    /// ancestors of matches before and after the edit: a node in A_new \ A_old becomes
    /// expanded, an inserted node not in A_new is collapsed, every other node keeps its
    /// bit (moved and renamed nodes too).
    func editDone(_ f: FilterQuery?) { editDone(ViewRef(nil, filter: f)) }

    /// `editDone` for an edit named with `ref`, in every view: each view's kept filtered
    /// rows follow as above; a view's explicit expansion loses the deleted nodes and, when
    /// `moved` (the root of a moved subtree) is given, the entries of the subtree's nodes
    /// (all of them changed level) that now equal the view's rule at their new level.
    func editDone(_ ref: ViewRef, moved: RefNode? = nil) {
        use(ref, builtWith: ancestorSetBeforeEdit)
        let nodes = allNodes
        var ancestors: [FilterQuery: (before: Set<ObjectIdentifier>, after: Set<ObjectIdentifier>)] = [:]
        func follow(_ states: inout RefFilteredStates) {
            for g in states.kept {
                if ancestors[g] == nil { ancestors[g] = (ancestorSetBeforeEdit(g), ancestorSet(g)) }
                let (before, after) = ancestors[g]!
                let bits = states.expanded[g]!
                var updated = Set<ObjectIdentifier>()
                for n in nodes {
                    let id = ObjectIdentifier(n)
                    let expanded: Bool
                    if synced[id] == nil {
                        expanded = after.contains(id)  // inserted
                    } else if after.contains(id) && !before.contains(id) {
                        expanded = true
                    } else {
                        expanded = bits.contains(id)
                    }
                    if expanded { updated.insert(id) }
                }
                states.expanded[g] = updated
            }
        }
        follow(&defaultFiltered)
        let alive = Set(nodes.map(ObjectIdentifier.init))
        let movedNodes = moved?.subtree ?? []
        for v in views.keys {
            follow(&views[v]!.filtered)
            views[v]!.explicit = views[v]!.explicit.filter { alive.contains($0.key) }
            for n in movedNodes {
                let id = ObjectIdentifier(n)
                if views[v]!.explicit[id] == views[v]!.rule.expands(level: n.level) { views[v]!.explicit[id] = nil }
            }
        }
        sync()
    }

    // MARK: All or nothing

    /// Everything the reference holds, to go back to when a batch fails.
    struct Checkpoint {
        fileprivate var roots: [RefNode]
        fileprivate var nodes: [(node: RefNode, id: NodeID?, title: String, children: [RefNode], parent: RefNode?,
                                 expanded: Bool, declaresChildren: Bool, data: [UInt8]?, selected: [ViewID?: Bool])]
        fileprivate var rootSelection: [ViewID?: Bool]
        fileprivate var defaultFiltered: RefFilteredStates
        fileprivate var views: [ViewID: RefView]
        fileprivate var synced: [ObjectIdentifier: Synced]
    }

    func checkpoint() -> Checkpoint {
        Checkpoint(roots: roots,
                   nodes: allNodes.map { ($0, $0.id, $0.title, $0.children, $0.parent, $0.expanded, $0.declaresChildren, $0.data, $0.selected) },
                   rootSelection: rootSelection, defaultFiltered: defaultFiltered, views: views, synced: synced)
    }

    /// Puts everything back as it was at `checkpoint` (the same node objects).
    func restore(_ c: Checkpoint) {
        roots = c.roots
        for n in c.nodes {
            n.node.id = n.id
            n.node.title = n.title  // always: String equality would take "é" for "e\u{301}"
            n.node.children = n.children
            n.node.parent = n.parent
            n.node.expanded = n.expanded
            n.node.declaresChildren = n.declaresChildren
            n.node.data = n.data
            n.node.selected = n.selected
        }
        rootSelection = c.rootSelection
        defaultFiltered = c.defaultFiltered
        views = c.views
        synced = c.synced
    }

    func isExpanded(_ node: RefNode, _ f: FilterQuery?) -> Bool { isExpanded(node, ViewRef(nil, filter: f)) }

    /// `isExpanded` of the node in a view's rows (shown or not).
    func isExpanded(_ node: RefNode, _ ref: ViewRef) -> Bool {
        if ref.filter != nil { return expandedSet(ref).contains(ObjectIdentifier(node)) }
        return ref.view.map { views[$0]!.isExpanded(node) } ?? node.expanded
    }

    /// The visible rows of a view, by the definitions.
    func rows(_ f: FilterQuery?) -> [RefRow] { rows(ViewRef(nil, filter: f), matchesBelow: false) }

    /// The visible rows of a view, by the definitions; with `matchesBelow`, the rows of
    /// filtered rows count the matches among the node's descendants.
    func rows(_ ref: ViewRef, matchesBelow: Bool = true) -> [RefRow] {
        var out: [RefRow] = []
        guard let f = ref.filter else {
            let view = ref.view.map { views[$0]! }
            func visit(_ node: RefNode, _ level: Int) {
                out.append(RefRow(id: node.key, level: level, expanded: view?.isExpanded(node, level: level) ?? node.expanded,
                                  hasChildren: node.hasChildren, parentID: node.parent?.key, isMatch: false))
                if view?.opens(node, level: level) ?? node.expanded { for c in ordered(node.children, ref.view) { visit(c, level + 1) } }
            }
            for r in ordered(roots, ref.view) { visit(r, 0) }
            return out
        }
        let q = RefQuery(f)
        let a = ancestorSet(f)
        let expanded = expandedSet(ref)
        /// The matches among each node's descendants.
        var below: [ObjectIdentifier: Int] = [:]
        /// The matches in the subtree of `node`, itself included.
        func count(_ node: RefNode) -> Int {
            let inside = node.children.reduce(0) { $0 + count($1) }
            below[ObjectIdentifier(node)] = inside
            return inside + (Self.matches(node, q) ? 1 : 0)
        }
        if matchesBelow { for r in roots { _ = count(r) } }
        func visit(_ node: RefNode, _ level: Int, parentInA: Bool) {
            let id = ObjectIdentifier(node)
            let inA = a.contains(id)
            let match = Self.matches(node, q)
            let included = parentInA ? (inA || match) : true
            guard included else { return }
            let exp = expanded.contains(id)
            var row = RefRow(id: node.key, level: level, expanded: exp, hasChildren: node.hasChildren,
                             parentID: node.parent?.key, isMatch: match)
            if matchesBelow { row.matchesBelow = below[id] }
            out.append(row)
            if exp { for c in ordered(node.children, ref.view) { visit(c, level + 1, parentInA: inA) } }
        }
        for r in ordered(roots, ref.view) { visit(r, 0, parentInA: true) }
        return out
    }

    func matchCount(_ f: FilterQuery) -> Int { matchSet(f).count }

    /// The children of `node` (the roots when nil) in a view's rows, whatever the expansion:
    /// in filtered rows, a node in A shows its children in A or M, any other shown node all
    /// of its children, a hidden node none.
    func children(of node: RefNode?, _ ref: ViewRef) -> [RefNode] {
        let all = ordered(node?.children ?? roots, ref.view)
        guard let f = ref.filter else { return all }
        let q = RefQuery(f)
        let a = ancestorSet(f)
        func shows(_ child: RefNode, parentInA: Bool) -> Bool { !parentInA || a.contains(ObjectIdentifier(child)) || Self.matches(child, q) }
        // The path from a root down to `node`: each step shown under its parent.
        var path: [RefNode] = []
        var up = node
        while let n = up { path.insert(n, at: 0); up = n.parent }
        var parentInA = true
        for n in path {
            guard shows(n, parentInA: parentInA) else { return [] }
            parentInA = a.contains(ObjectIdentifier(n))
        }
        return all.filter { shows($0, parentInA: parentInA) }
    }

    // MARK: Expansion (the caller has called `use`)

    /// Sets one node's expansion in a view's rows (unfiltered or filtered).
    private func setFlag(_ node: RefNode, _ value: Bool, _ ref: ViewRef) {
        switch (ref.view, ref.filter) {
        case (nil, nil): node.expanded = value
        case (nil, let f?): defaultFiltered.set(node, value, f)
        case (let v?, nil): views[v]!.set(node, value)
        case (let v?, let f?): views[v]!.filtered.set(node, value, f)
        }
    }

    /// Recursive: expanding opens every descendant that has children; collapsing
    /// collapses every descendant, leaves included (as `collapseAll` does).
    func setExpanded(_ node: RefNode, _ value: Bool, recursive: Bool, _ f: FilterQuery?) {
        setExpanded(node, value, recursive: recursive, ViewRef(nil, filter: f))
    }

    func setExpanded(_ node: RefNode, _ value: Bool, recursive: Bool, _ ref: ViewRef) {
        use(ref)
        setFlag(node, value, ref)
        guard recursive else { return }
        for q in node.subtree.dropFirst() where q.hasChildren || !value { setFlag(q, value, ref) }
    }

    func reveal(_ node: RefNode, _ f: FilterQuery?) { reveal(node, ViewRef(nil, filter: f)) }

    func reveal(_ node: RefNode, _ ref: ViewRef) {
        use(ref)
        for a in node.path { setFlag(a, true, ref) }
    }

    /// expandAll (`depth` nil) or expand(toDepth:).
    func expand(toDepth depth: Int?, _ f: FilterQuery?) { expand(toDepth: depth, ViewRef(nil, filter: f)) }

    /// In a view's unfiltered rows, its rule becomes expanded or depth(N) and its explicit
    /// expansion is emptied; elsewhere each node is set.
    func expand(toDepth depth: Int?, _ ref: ViewRef) {
        use(ref)
        if let v = ref.view, ref.filter == nil {
            views[v]!.reset(to: depth.map { .depth($0) } ?? .expanded)
            return
        }
        func visit(_ node: RefNode, _ level: Int) {
            setFlag(node, node.hasChildren && (depth.map { level < $0 } ?? true), ref)
            for c in node.children { visit(c, level + 1) }
        }
        for r in roots { visit(r, 0) }
    }

    func collapseAll(_ f: FilterQuery?) { collapseAll(ViewRef(nil, filter: f)) }

    func collapseAll(_ ref: ViewRef) {
        use(ref)
        if let v = ref.view, ref.filter == nil {
            views[v]!.reset(to: .collapsed)
            return
        }
        for node in allNodes { setFlag(node, false, ref) }
    }

    // MARK: Edits

    enum EditFailure: Equatable { case indexOutOfRange, cycle }

    /// Inserts `nodes` as children of `parent` at `index` (nil: at the end).
    func insert(_ nodes: [RefNode], parent: RefNode?, index: Int?) -> EditFailure? {
        var list = siblings(of: parent)
        let k = index ?? list.count
        guard k >= 0 && k <= list.count else { return .indexOutOfRange }
        for n in nodes { n.parent = parent }
        list.insert(contentsOf: nodes, at: k)
        setChildren(of: parent, list)
        return nil
    }

    func insert(_ nodes: [RefNode], before node: RefNode) {
        let i = siblings(of: node.parent).firstIndex { $0 === node }!
        _ = insert(nodes, parent: node.parent, index: i)
    }

    func insert(_ nodes: [RefNode], after node: RefNode) {
        let i = siblings(of: node.parent).firstIndex { $0 === node }!
        _ = insert(nodes, parent: node.parent, index: i + 1)
    }

    func delete(_ node: RefNode) {
        setChildren(of: node.parent, siblings(of: node.parent).filter { $0 !== node })
        node.parent = nil
    }

    func move(_ node: RefNode, to parent: RefNode?, index: Int?) -> EditFailure? {
        if let parent, node.isAncestorOrSelf(of: parent) { return .cycle }
        let others = siblings(of: parent).filter { $0 !== node }
        if let index, index < 0 || index > others.count { return .indexOutOfRange }
        delete(node)
        _ = insert([node], parent: parent, index: index)
        return nil
    }

    // MARK: Match ranges

    /// The match ranges of `title` for `f`, in UTF-16 code units (see `RefTitle.matchRanges`);
    /// nil when a fuzzy title has too many ways to match to try them all.
    /// None when `f` has no text or does not search titles.
    static func matchRanges(title: String, _ f: FilterQuery) -> [[Int]]? {
        guard !f.text.isEmpty, f.fields.contains(.title) else { return [] }
        return RefTitle(title).matchRanges(f)
    }

    /// The fuzzy score of `title` for a fuzzy `f`; nil when it does not match; `.some(nil)`
    /// when there are too many ways to match to try them all.
    static func fuzzyScore(title: String, _ f: FilterQuery) -> Int?? {
        let t = RefTitle(title)
        guard f.mode == .fuzzy, !f.text.isEmpty, f.fields.contains(.title), t.matches(f) else { return nil }
        return .some(t.fuzzyBest(f).map(\.score))
    }
}
