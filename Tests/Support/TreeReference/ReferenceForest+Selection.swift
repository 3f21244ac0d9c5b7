import TreeEngine

/// Issue 36: each view's selection, by the definitions: every node selected or not (its
/// `selected`), changed only by the selection operations; a node put into the forest takes
/// its parent's state (a root: what select all, none or invert last set), and keeps its
/// own through moves.
extension ReferenceForest {
    func isSelected(_ node: RefNode, in view: ViewID?) -> Bool { node.selected[view] ?? false }

    /// New nodes (`nodes` and their subtrees, just put into the forest) take their parents' states.
    func takeParentStates(_ nodes: [RefNode]) {
        for view in [nil] + viewIDs.map(Optional.some) {
            for node in nodes {
                let state = node.parent.map { isSelected($0, in: view) } ?? rootSelection[view] ?? false
                for n in node.subtree { n.selected[view] = state }
            }
        }
    }

    func setSelected(_ node: RefNode, _ value: Bool, recursive: Bool, in view: ViewID?) {
        for n in recursive ? node.subtree : [node] { n.selected[view] = value }
    }

    /// Unfiltered: every node and what roots take; filtered: each match with its subtree.
    func selectAll(_ ref: ViewRef) {
        guard let f = ref.filter else {
            for n in allNodes { n.selected[ref.view] = true }
            rootSelection[ref.view] = true
            return
        }
        for n in matchSubtrees(f) { n.selected[ref.view] = true }
    }

    func selectNone(in view: ViewID?) {
        for n in allNodes { n.selected[view] = nil }
        rootSelection[view] = nil
    }

    /// Unfiltered: every node and what roots take flip; filtered: each node in a match's
    /// subtree flips once.
    func invertSelection(_ ref: ViewRef) {
        guard let f = ref.filter else {
            for n in allNodes { n.selected[ref.view] = !isSelected(n, in: ref.view) }
            rootSelection[ref.view] = !(rootSelection[ref.view] ?? false)
            return
        }
        for n in matchSubtrees(f) { n.selected[ref.view] = !isSelected(n, in: ref.view) }
    }

    /// The nodes in the subtree of some match of `f`, each once.
    private func matchSubtrees(_ f: FilterQuery) -> [RefNode] {
        let q = RefQuery(f)
        var out: [RefNode] = []
        func visit(_ node: RefNode, inside: Bool) {
            let inside = inside || Self.matches(node, q)
            if inside { out.append(node) }
            for c in node.children { visit(c, inside: inside) }
        }
        for r in roots { visit(r, inside: false) }
        return out
    }

    /// The rows `offset ..< offset + count` of `ref`: each row's node, and with `recursive`
    /// a collapsed row's subtree.
    func selectRows(_ ref: ViewRef, offset: Int, count: Int, _ value: Bool, recursive: Bool) {
        let rows = self.rows(ref, matchesBelow: false)
        guard offset < rows.count else { return }
        let byKey = Dictionary(uniqueKeysWithValues: allNodes.map { ($0.key, $0) })
        for row in rows[offset ..< min(rows.count, offset + count)] {
            setSelected(byKey[row.id]!, value, recursive: recursive && !row.expanded, in: ref.view)
        }
    }

    /// The view forgets its selection (the view was deleted).
    func dropSelection(of view: ViewID) {
        for n in allNodes { n.selected[view] = nil }
        rootSelection[view] = nil
    }
}

/// A view's expansion as a list (issue 36): saved and set again.
extension ReferenceForest {
    /// The nodes with children that the view's unfiltered rows show expanded, in its order.
    func expandedNodes(in view: ViewID?) -> [RefNode] {
        allNodes(in: view).filter { node in node.hasChildren && (view.map { views[$0]!.opens(node, level: node.level) } ?? node.expanded) }
    }

    /// The view's unfiltered rows with exactly `nodes` expanded.
    func setExpansion(_ nodes: [RefNode], in view: ViewID?) {
        collapseAll(ViewRef(view))
        for node in nodes { setExpanded(node, true, recursive: false, ViewRef(view)) }
    }
}
