// The selection ops of tree-bench (`selection.*`, issue 36), on the edited store with its
// views: one view's selection with 1,000 random subtrees selected or deselected in it (a
// user's busy selection), then each op in that view; the range of rows last, as it may
// deselect most of what was selected.
import TreeEngine

extension EditBench {
    /// A random node at level 1 or 2 with children: on 7.2M nodes a subtree of 0.8M or 2.4M.
    mutating func bigFolder() -> NodeHandle {
        while true {
            let node = pool.random(using: &rng)
            let level = store.forest.level(of: node)
            if (1 ... 2).contains(level) && store.forest.childCount(of: node) > 0 { return node }
        }
    }

    /// A random node, selected or deselected with its subtree in `view`.
    mutating func selectRandom(_ count: Int, in view: ViewID?) {
        for _ in 0 ..< count { store.setSelected(pool.random(using: &rng), Bool.random(using: &rng), in: view) }
    }
}

@MainActor func measureSelection(_ d: Dataset, nodes: Int, bench: inout EditBench) {
    let id = ViewID(UInt64(bench.views.count + 1_000_000))
    bench.store.createView(id, .expanded)
    let view = ViewRef(id)
    bench.selectRandom(1000, in: id)
    let toggles = bench.store.selectionCost(in: id).toggles
    report(d, nodes: nodes, op: "selection.subtree", samples: (0 ..< 100).flatMap { _ in
        let node = bench.bigFolder()
        let was = bench.store.isSelected(node, in: id)
        return [seconds { bench.store.setSelected(node, !was, in: id) }, seconds { bench.store.setSelected(node, was, in: id) }]
    }, extra: ["toggles": Double(toggles)])
    report(d, nodes: nodes, op: "selection.node", samples: (0 ..< 500).flatMap { _ in
        let node = bench.pool.random(using: &bench.rng)
        let was = bench.store.isSelected(node, in: id)
        return [seconds { bench.store.setSelected(node, !was, recursive: false, in: id) },
                seconds { bench.store.setSelected(node, was, recursive: false, in: id) }]
    })
    report(d, nodes: nodes, op: "selection.invert", samples: (0 ..< 100).map { _ in seconds { bench.store.invertSelection(view) } })
    let total = bench.store.rowCount(view)
    report(d, nodes: nodes, op: "selection.all", samples: (0 ..< 100).map { _ in seconds { bench.store.selectAll(view) } })
    bench.store.selectNone(in: id)
    bench.selectRandom(1000, in: id)
    // A page of 50 rows with the selection's fields, beside the same pages of a view that
    // selects nothing.
    let plain = ViewID(UInt64(bench.views.count + 1_000_001))
    bench.store.createView(plain, .expanded)
    var withSelection: [Double] = [], without: [Double] = []
    for _ in 0 ..< 1000 {
        let offset = Int.random(in: 0 ..< max(1, total - 50), using: &bench.rng)
        without.append(seconds { _ = bench.store.rows(ViewRef(plain), offset: offset, limit: 50) })
        withSelection.append(seconds { _ = bench.store.rows(view, offset: offset, limit: 50) })
    }
    report(d, nodes: nodes, op: "selection.page", samples: withSelection,
           extra: ["without_us": median(without) * 1e6, "added_us": (median(withSelection) - median(without)) * 1e6])
    report(d, nodes: nodes, op: "selection.top1000", samples: (0 ..< 100).map { _ in
        seconds { _ = bench.store.selectedNodes(in: id, after: nil, limit: 1000, topMost: true) }
    })
    let cost = bench.store.selectionCost(in: id)
    if json {
        print("{\"dataset\":\"\(d.name)\",\"nodes\":\(nodes),\"op\":\"selection.memory\",\"bytes_per_toggle\":\(String(format: "%.1f", Double(cost.bytes) / Double(max(1, cost.toggles)))),\"toggles\":\(cost.toggles)}")
    } else {
        tableRows.append((d.name, "selection.memory", String(format: "%.0f B/toggle", Double(cost.bytes) / Double(max(1, cost.toggles))),
                          "\(cost.toggles) nodes whose state differs from their parent's, after 1000 random subtrees selected or deselected"))
    }
    report(d, nodes: nodes, op: "selection.rows", samples: (0 ..< 20).flatMap { _ in
        let offset = Int.random(in: 0 ..< max(1, total - 10_000), using: &bench.rng)
        return [seconds { bench.store.selectRows(view, offset: offset, count: 10_000, true) },
                seconds { bench.store.selectRows(view, offset: offset, count: 10_000, false) }]
    }, extra: ["rows": 10_000])
    // Select all in filtered rows: each match not below another one with its subtree, one
    // toggle each (the store's filtered rows of "item: 1", a third of the nodes matching).
    let filtered = ViewRef(id, filter: FilterQuery("item: 1"))
    let matches = bench.store.matchCount(filtered)
    var filteredCost = (bytes: 0, toggles: 0)
    report(d, nodes: nodes, op: "selection.filtered.all", samples: (0 ..< 3).map { _ in
        bench.store.selectNone(in: id)
        let t = seconds { bench.store.selectAll(filtered) }
        filteredCost = bench.store.selectionCost(in: id)
        return t
    }, extra: ["matches": Double(matches), "toggles": Double(filteredCost.toggles),
               "bytes_per_node": Double(filteredCost.bytes) / Double(nodes)])
    bench.store.deleteView(id)
    bench.store.deleteView(plain)
}
