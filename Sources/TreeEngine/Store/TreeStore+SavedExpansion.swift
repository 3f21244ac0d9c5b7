/// A view's expansion as a list of nodes (issue 36): what a client saves of a user's open
/// folders, and gives back another day.
extension TreeStore {
    /// The nodes with children that `view`'s unfiltered rows (nil: the default view's) show
    /// expanded, in tree order.
    /// - Complexity: O(expanded nodes) for a view that starts collapsed and keeps its changes
    ///   as exceptions; O(n) otherwise
    public func expandedNodes(in view: ViewID?) -> [NodeHandle] {
        if sortedWorld(of: view) != nil { return readInWorld(of: view) { $0.expandedNodes(in: view) } }
        var result: [NodeHandle] = []
        func scan(_ isExpanded: (Slot, Position) -> Bool) {
            forest.forEachPosition { p in
                let slot = forest.slot(at: p)
                if forest.hasChildren(atPosition: p) && isExpanded(slot, p) { result.append(NodeHandle(slot: slot)) }
            }
        }
        guard let view else {
            scan { slot, _ in forest.flags[slot.index].contains(.expanded) }
            return result
        }
        let user = userViews[view]!
        if let own = user.dense?.own {
            scan { slot, _ in own.expanded.contains(slot.index) }
        } else if user.depth == 0 {
            for exception in user.cover.exceptions where exception.expanded {
                let p = forest.position(ofSlot: exception.slot)
                if forest.hasChildren(atPosition: p) { result.append(NodeHandle(slot: exception.slot)) }
            }
        } else {
            let explicit = Dictionary(uniqueKeysWithValues: user.cover.exceptions.map { ($0.slot, $0.expanded) })
            scan { slot, p in explicit[slot] ?? (forest.level(at: p) < Int(user.depth)) }
        }
        return result
    }

    /// Sets the expansion of `view`'s unfiltered rows: `nodes` expanded, every other node
    /// collapsed.
    /// - Returns: one splice of every row (or none when there were and are none).
    /// - Complexity: as `collapseAll`, plus O(nodes · log n)
    public mutating func setExpansion(_ nodes: [NodeHandle], in view: ViewID?) -> [Splice] {
        if sortedWorld(of: view) != nil { return inWorld(of: view) { $0.setExpansion(nodes, in: view) } }
        let rows = ViewRef(view)
        let before = rowCount(rows)
        _ = collapseAll(rows)
        for node in nodes { _ = setExpanded(node, true, rows) }
        let after = rowCount(rows)
        return before == 0 && after == 0 ? [] : [Splice(index: 0, removed: before, inserted: after)]
    }
}
