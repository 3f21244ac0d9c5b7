/// Selection (issue 36): each view, the default one too, selects nodes of its own
/// (`Selection`: the nodes whose state differs from their parent's). Selecting a node
/// selects its subtree unless `recursive` is false; a node put into the forest later takes
/// its parent's state (a root: what `selectAll`, `selectNone` and `invert` last set). The
/// selection follows every edit: a moved node keeps its state, a deleted one leaves the
/// counts.
extension TreeStore {
    // MARK: Reading

    /// Whether `node` is selected in `view` (nil: the default view).
    /// - Complexity: O(log t) for t nodes whose state differs from their parent's
    public func isSelected(_ node: NodeHandle, in view: ViewID?) -> Bool {
        if sortedWorld(of: view) != nil { return readInWorld(of: view) { $0.isSelected(node, in: view) } }
        return selections[view]?.isSelected(at: forest.position(of: node).offset, forest) ?? false
    }

    /// The number of selected nodes in `view`.
    /// - Complexity: O(1)
    public func selectedCount(in view: ViewID?) -> Int {
        if sortedWorld(of: view) != nil { return readInWorld(of: view) { $0.selectedCount(in: view) } }
        return selections[view]?.selectedCount ?? 0
    }

    /// Whether `view` selects a node, or will select a root put into the forest (else its
    /// rows' selection fields are all false and 0).
    /// - Complexity: O(1)
    public func hasSelection(in view: ViewID?) -> Bool {
        if sortedWorld(of: view) != nil { return readInWorld(of: view) { $0.hasSelection(in: view) } }
        return selections[view] != nil
    }

    /// The views that keep a selection (`hasSelection`).
    /// - Complexity: O(views that keep one)
    public var viewsWithSelection: Set<ViewID?> {
        sortedLayouts.reduce(into: Set(selections.keys)) { $0.formUnion($1.views.selections.keys) }
    }

    /// `node` in `view`: whether it is selected, how many of its descendants are, and whether
    /// its subtree holds both selected and unselected nodes.
    /// - Complexity: O(log t + log n)
    public func selectionState(of node: NodeHandle, in view: ViewID?) -> (selected: Bool, below: Int, partial: Bool) {
        if sortedWorld(of: view) != nil { return readInWorld(of: view) { $0.selectionState(of: node, in: view) } }
        guard let selection = selections[view] else { return (false, 0, false) }
        return selection.state(at: forest.position(of: node).offset, forest, nodeBase)
    }

    /// The selected nodes of `view` in tree order after `after` (from the first node when
    /// nil), at most `limit`; `topMost`: only those whose parent is not selected (what to
    /// delete, move or export).
    /// - Complexity: O(log t + depth + nodes returned + toggles passed)
    public func selectedNodes(in view: ViewID?, after: NodeHandle?, limit: Int, topMost: Bool) -> [NodeHandle] {
        if sortedWorld(of: view) != nil { return readInWorld(of: view) { $0.selectedNodes(in: view, after: after, limit: limit, topMost: topMost) } }
        guard let selection = selections[view], limit > 0 else { return [] }
        var result: [NodeHandle] = []
        let start = after.map { forest.position(of: $0).offset + 1 } ?? 0
        selection.forEachSelected(from: start, topMost: topMost, forest) { p in
            result.append(NodeHandle(slot: forest.slot(at: Position(p))))
            return result.count < limit
        }
        return result
    }

    /// The selected nodes of `view` that have no selected ancestor, in tree order: what
    /// acting on the selection takes, each with its whole subtree.
    /// - Complexity: O(log t + depth + top-most selected nodes + toggles)
    public func outermostSelectedNodes(in view: ViewID?) -> [NodeHandle] {
        if sortedWorld(of: view) != nil { return readInWorld(of: view) { $0.outermostSelectedNodes(in: view) } }
        var result: [NodeHandle] = []
        var end = Position(0)
        for node in selectedNodes(in: view, after: nil, limit: .max, topMost: true) {
            let p = forest.position(of: node)
            guard p >= end else { continue }
            result.append(node)
            end = forest.subtreeEnd(of: p)
        }
        return result
    }

    /// The selected nodes of `view` as a forest of their own, to export: each under its
    /// nearest selected ancestor (a root when it has none), with its id (whole), title, data,
    /// its expansion in the default view and whether it declares children.
    /// - Complexity: O(selected nodes + their titles, ids and data, + log t + toggles)
    public func selectedForest(in view: ViewID?) -> Forest {
        if sortedWorld(of: view) != nil { return readInWorld(of: view) { $0.selectedForest(in: view) } }
        let nodes = selectedNodes(in: view, after: nil, limit: .max, topMost: false)
        var builder = ForestBuilder(expectedNodes: nodes.count)
        var open: [Position] = []  // the subtree ends of the selected ancestors begun
        do {
            for node in nodes {
                let p = forest.position(of: node)
                while let end = open.last, p >= end {
                    builder.endNode()
                    open.removeLast()
                }
                try builder.beginNode()
                try forest.withTitle(of: node) { title in try builder.setTitle(title) }
                try forest.withID(of: node) { id, isInteger in
                    if isInteger, let value = Int64(String(decoding: id, as: UTF8.self)) {
                        try builder.setIntegerID(value)
                    } else {
                        try builder.setStringID(id)
                    }
                }
                try forest.withData(of: node) { data in if let data { try builder.setData(data) } }
                builder.setExpanded(forest.flags[node.slot.index].contains(.expanded))
                if forest.declaresChildren(node) { builder.setHasChildren(true) }
                open.append(forest.subtreeEnd(of: p))
            }
        } catch {
            preconditionFailure("the nodes of a forest make a forest: \(error)")
        }
        for _ in open { builder.endNode() }
        return builder.finish()
    }

    /// The rows' selection fields, from `view`'s selection.
    /// - Complexity: O(rows · (log t + log n)); O(1) when nothing is selected
    func markSelection(_ rows: inout [Row], in view: ViewID?) {
        guard let selection = selections[view] else { return }
        let nodes = nodeBase
        for i in rows.indices {
            (rows[i].isSelected, rows[i].selectedBelow, rows[i].isPartial) = selection.state(at: forest.position(of: rows[i].node).offset, forest, nodes)
        }
    }

    // MARK: Changing

    /// Selects or deselects `node` in `view`: with `recursive` its whole subtree (nodes put
    /// under it later too), else the node alone (its children keep their states).
    /// - Complexity: O((nodes below whose state differs from their parent's + 1) · log t +
    ///   log n); not `recursive`: O(children · (log t + log n))
    public mutating func setSelected(_ node: NodeHandle, _ value: Bool, recursive: Bool = true, in view: ViewID?) {
        if sortedWorld(of: view) != nil { return inWorld(of: view) { $0.setSelected(node, value, recursive: recursive, in: view) } }
        changeSelection(of: view) { selection, forest, nodes in
            if recursive {
                selection.set(subtreeOf: node.slot, value, forest, nodes)
            } else {
                selection.set(nodeIn: node.slot, value, forest, nodes)
            }
        }
    }

    /// Selects every node of the rows `view` names: in filtered rows, every match with its
    /// subtree (a matching folder's descendants too, matching or not).
    /// - Complexity: O(1) unfiltered; filtered O(matches not below another match ·
    ///   (log t + log n)), plus building the rows and their match index
    public mutating func selectAll(_ view: ViewRef) {
        if sortedWorld(of: view.view) != nil { return inWorld(of: view.view) { $0.selectAll(view) } }
        guard view.filter != nil else { return changeSelection(of: view.view) { selection, forest, _ in selection.reset(true, forest) } }
        forEachTopMatch(view) { selection, slot, forest, nodes in selection.set(subtreeOf: slot, true, forest, nodes) }
    }

    /// Deselects every node of `view` (filtered rows or not).
    /// - Complexity: O(1), freeing the selection
    public mutating func selectNone(in view: ViewID?) {
        if sortedWorld(of: view) != nil { return inWorld(of: view) { $0.selectNone(in: view) } }
        changeSelection(of: view) { selection, forest, _ in selection.reset(false, forest) }
    }

    /// Flips every node of the rows `view` names: in filtered rows, every match and its
    /// subtree (each node once, however many matches are above it).
    /// - Complexity: O(1) unfiltered; filtered as `selectAll`
    public mutating func invertSelection(_ view: ViewRef) {
        if sortedWorld(of: view.view) != nil { return inWorld(of: view.view) { $0.invertSelection(view) } }
        guard view.filter != nil else { return changeSelection(of: view.view) { selection, _, _ in selection.invert() } }
        forEachTopMatch(view) { selection, slot, forest, nodes in selection.toggle(slot, forest, nodes) }
    }

    /// Selects or deselects the nodes on the rows `offset ..< offset + count` of `view` (a
    /// shift-click): each row's node, and with `recursive` a collapsed row's subtree.
    ///
    /// In unfiltered rows with `recursive`, the rows and the subtrees of the collapsed ones are
    /// the nodes at a range of positions: an expanded row whose subtree ends inside it is set
    /// with its subtree at once, and the rows in that subtree are passed over.
    /// - Complexity: O(pieces · (log t + log n)), plus the children of expanded rows set
    ///   alone; pieces: the rows, or unfiltered with `recursive` the subtrees that make up
    ///   the range (about depth × children a node in a balanced tree)
    /// - Returns: the nodes of the first and the last row named, nil when no row is
    @discardableResult
    public mutating func selectRows(_ view: ViewRef, offset: Int, count: Int, _ value: Bool,
                                    recursive: Bool = true) -> (first: NodeHandle, last: NodeHandle)? {
        if sortedWorld(of: view.view) != nil { return inWorld(of: view.view) { $0.selectRows(view, offset: offset, count: count, value, recursive: recursive) } }
        let rows = unmarkedRows(view, offset: offset, limit: count)
        guard let first = rows.first, let last = rows.last else { return nil }
        let lastPosition = forest.position(of: last.node)
        let end = last.isExpanded ? lastPosition + 1 : forest.subtreeEnd(of: lastPosition)
        let coalesce = recursive && view.filter == nil
        changeSelection(of: view.view) { selection, forest, nodes in
            var covered = Position(0)
            for row in rows {
                let p = forest.position(of: row.node)
                guard p >= covered else { continue }
                if recursive && (!row.isExpanded || coalesce && forest.subtreeEnd(of: p) <= end) {
                    selection.set(subtreeOf: row.node.slot, value, forest, nodes)
                    covered = forest.subtreeEnd(of: p)
                } else {
                    selection.set(nodeIn: row.node.slot, value, forest, nodes)
                }
            }
        }
        return (first.node, last.node)
    }

    /// Runs `body` on the selection of `view` (made when it has none), then drops it when it
    /// selects nothing.
    mutating func changeSelection(of view: ViewID?, _ body: (inout Selection, Forest, DepthBase) -> Void) {
        precondition(contains(view: view), "no view \(view.map(String.init(describing:)) ?? "default")")
        if selections[view] == nil {
            acquireBase(DepthBase.all)
            selections[view] = Selection(all: false, forest)
        }
        body(&selections[view]!, forest, nodeBase)
        dropEmptySelections()
        checkInvariants()
    }

    /// Runs `body` on each match of filtered rows that is not below another match, in tree
    /// order.
    private mutating func forEachTopMatch(_ view: ViewRef, _ body: (inout Selection, Slot, Forest, DepthBase) -> Void) {
        try! prepareView(view)
        prepareMatchIndex(view)
        let matches = keptView(view)!.filter!.matchIndex!
        changeSelection(of: view.view) { selection, forest, nodes in
            var k = 0
            while k < matches.count {
                let p = matches.select(k)
                body(&selection, forest.slot(at: p), forest, nodes)
                k = matches.rank(forest.subtreeEnd(of: p))
            }
        }
    }

    /// Counts nodes for the selections: the base that expands every node.
    var nodeBase: DepthBase { depthBases[DepthBase.all]!.base }

    // MARK: Following edits

    /// Nodes new to the forest at `range`: they take their parents' states in every selection.
    mutating func selectionsFollowInsertion(_ range: Range<Position>) {
        guard !selections.isEmpty else { return }
        let nodes = nodeBase
        for i in selections.indexList { selections.values[i].inserted(range.lowerBound.offset ..< range.upperBound.offset, forest, nodes) }
    }

    /// Before the subtree at `p` leaves its place: what each selection keeps of it.
    mutating func selectionsDeparting(_ p: Position) -> [ViewID?: Selection.Departure] {
        guard !selections.isEmpty else { return [:] }
        let nodes = nodeBase
        var result: [ViewID?: Selection.Departure] = [:]
        for i in selections.indexList { result[selections.keys[i]] = selections.values[i].departing(p.offset, forest, nodes) }
        return result
    }

    /// Drops the selections that select nothing (after a change of one, or a deletion).
    mutating func dropEmptySelections() {
        for (view, selection) in selections where selection.isEmpty {
            selections[view] = nil
            releaseBase(DepthBase.all)
        }
    }

    /// The subtree that left with `departures` arrived at `range`.
    mutating func selectionsFollowArrival(_ range: Range<Position>, _ departures: [ViewID?: Selection.Departure]) {
        guard !selections.isEmpty else { return }
        let nodes = nodeBase
        for i in selections.indexList {
            selections.values[i].arrived(range.lowerBound.offset ..< range.upperBound.offset, departures[selections.keys[i]]!, forest, nodes)
        }
    }
}

extension TreeStore {
    /// The bytes `view`'s selection holds, and its toggles (nodes whose state differs from
    /// their parent's): what it costs.
    /// - Complexity: O(1)
    public func selectionCost(in view: ViewID?) -> (bytes: Int, toggles: Int) {
        if sortedWorld(of: view) != nil { return readInWorld(of: view) { $0.selectionCost(in: view) } }
        return selections[view].map { ($0.bytes, $0.toggleCount) } ?? (0, 0)
    }
}
