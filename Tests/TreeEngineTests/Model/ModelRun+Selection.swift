@testable import TreeEngine
@testable import TreeReference

/// Issue 36: selections. A step changes the selection of the view a `ViewRef` names (the
/// filtered rows for select all, invert and ranges of rows); after every step each view's
/// selection is checked against the reference (`ReferenceForest+Selection.swift`): every
/// node's state and counts, the selected nodes (all and top-most, paged), the rows' fields.
extension ModelRun {
    /// A random change of the selection of the view `ref` names: never an edit.
    func selectionStep(_ ref: ViewRef) -> Bool {
        named = ref
        let vn = viewName(ref)
        if let view = ref.view, model.views[view] == nil { return false }
        switch rng.int(0 ... 10) {
        case 10:
            // A view's expansion saved and set into another view (or the same one).
            let views = [nil] + model.viewIDs.map(Optional.some)
            let from = rng.pick(views), to = ref.view
            let saved = store.expandedNodes(in: from)
            expectEqual(saved.map { store.forest.id(of: $0).description }, model.expandedNodes(in: from).map(\.key),
                        "expandedNodes in view \(from.map(String.init(describing:)) ?? "default")")
            record("setExpansion(\(saved.count) nodes of view \(from.map(String.init(describing:)) ?? "default")) in \(vn)")
            let old = model.rows(ViewRef(to), matchesBelow: false).map(\.key)
            let splices = store.setExpansion(saved, in: to)
            model.setExpansion(model.expandedNodes(in: from), in: to)
            named = ViewRef(to)
            checkSplices(splices, old: old, new: model.rows(ViewRef(to), matchesBelow: false).map(\.key), "setExpansion")
            return to == nil
        case 0 ... 3:
            guard let node = randomNode(visibleIn: rng.chance(0.5) ? ref : nil) else { return false }
            let value = rng.chance(0.6), recursive = rng.chance(0.7)
            record("setSelected(\(node.key), \(value), recursive: \(recursive)) in \(vn)")
            store.setSelected(handle(node)!, value, recursive: recursive, in: ref.view)
            model.setSelected(node, value, recursive: recursive, in: ref.view)
        case 4:
            record("selectAll in \(vn)")
            store.selectAll(ref)
            model.use(ref)
            model.selectAll(ref)
        case 5:
            record("selectNone in \(vn)")
            store.selectNone(in: ref.view)
            model.selectNone(in: ref.view)
        case 6:
            record("invertSelection in \(vn)")
            store.invertSelection(ref)
            model.use(ref)
            model.invertSelection(ref)
        default:
            model.use(ref)
            try? store.prepareView(ref)
            let total = model.rows(ref, matchesBelow: false).count
            let offset = rng.int(0 ... total), count = rng.int(1 ... 12)
            let value = rng.chance(0.6), recursive = rng.chance(0.7)
            record("selectRows(\(offset), \(count), \(value), recursive: \(recursive)) in \(vn)")
            store.selectRows(ref, offset: offset, count: count, value, recursive: recursive)
            model.selectRows(ref, offset: offset, count: count, value, recursive: recursive)
        }
        return false
    }

    /// Every view's selection (the default view's alone unless in views mode) against the
    /// reference.
    func checkSelections(_ context: String) {
        for view in [nil] + (viewsMode ? model.viewIDs.map(Optional.some) : []) {
            let nodes = model.allNodes(in: view)
            let what = "\(context): selection of view \(view.map(String.init(describing:)) ?? "default")"
            var count = 0
            var selected: [String] = [], top: [String] = []
            for node in nodes {
                let state = model.isSelected(node, in: view)
                let below = node.subtree.dropFirst()
                let selectedBelow = below.filter { model.isSelected($0, in: view) }.count
                let partial = !below.isEmpty && (state ? selectedBelow < below.count : selectedBelow > 0)
                let engine = store.selectionState(of: handle(node)!, in: view)
                if engine != (state, selectedBelow, partial) {
                    problem("\(what): node \(node.key) is \(engine), expected \((state, selectedBelow, partial))")
                    return
                }
                if state {
                    count += 1
                    selected.append(node.key)
                    if !(node.parent.map { model.isSelected($0, in: view) } ?? false) { top.append(node.key) }
                }
            }
            expectEqual(store.selectedCount(in: view), count, "\(what): selectedCount")
            let keys = { (handles: [NodeHandle]) in handles.map { self.store.forest.id(of: $0).description } }
            expectEqual(keys(store.selectedNodes(in: view, after: nil, limit: .max, topMost: false)), selected, "\(what): selected nodes")
            expectEqual(keys(store.selectedNodes(in: view, after: nil, limit: .max, topMost: true)), top, "\(what): top-most")
            if let after = nodes.isEmpty ? nil : rng.pick(nodes) {
                let limit = rng.int(1 ... 3), position = nodes.firstIndex { $0 === after }!
                let later = Set(nodes[(position + 1)...].map(\.key))
                for topMost in [false, true] {
                    expectEqual(keys(store.selectedNodes(in: view, after: handle(after)!, limit: limit, topMost: topMost)),
                                Array((topMost ? top : selected).filter { later.contains($0) }.prefix(limit)),
                                "\(what): \(limit) after \(after.key), top-most \(topMost)")
                }
            }
            // The rows carry the states (the unfiltered rows, read without building anything).
            let byKey = Dictionary(uniqueKeysWithValues: nodes.map { ($0.key, $0) })
            for row in store.keptRows(ViewRef(view), offset: 0, limit: .max) ?? [] {
                let node = byKey[store.forest.id(of: row.node).description]!
                if row.isSelected != model.isSelected(node, in: view) { problem("\(what): row \(row.index) isSelected") }
            }
            if failed { return }
        }
    }
}
