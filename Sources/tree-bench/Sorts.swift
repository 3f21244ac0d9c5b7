// The sorts of tree-bench (`sort.*`, issue 37), on the data set of Fields.swift: building the
// layout of a sort by title and by a numeric data field (its column kept), and an edit that
// moves a node in a kept layout, side by side with the same edits without one; then sorted
// views (`sort.view.*`): switching a view between two built sorts, and toggles, pages, row
// indexes and edits in a sorted view side by side with a view in the tree's order.
import TreeEngine

@MainActor func measureSorts(_ d: Dataset, _ store: TreeStore, handles: [NodeHandle], runs: Int, rng: inout SplitMix64) {
    let nodes = store.forest.count
    let byTitle = SortKeys([SortKeys.Key(.title)])
    let bySize = SortKeys([SortKeys.Key(.data(FieldPath(["size"])), descending: true)])
    func build(_ op: String, _ sort: SortKeys) {
        var bytes = 0
        report(d, nodes: nodes, op: op, samples: (0 ..< runs).map { _ in
            var copy = store
            let elapsed = seconds { copy.prepareSort(sort) }
            bytes = copy.sortBytes
            return elapsed
        }, extra: ["bytes_per_node": Double(bytes) / Double(nodes)])
    }
    build("sort.build.title", byTitle)
    build("sort.build.number", bySize)
    // Renames and data edits, each on a copy without a sort and on one that keeps the sort
    // the edit moves the node in, alternating.
    var plain = store, sorted = store
    sorted.prepareSort(byTitle)
    sorted.prepareSort(bySize)
    var renames: [Double] = [], sortedRenames: [Double] = [], data: [Double] = [], sortedData: [Double] = []
    for i in 0 ..< 400 {
        let node = handles[Int.random(in: 0 ..< handles.count, using: &rng)]
        let title = "Level \(Int.random(in: 0 ..< 14, using: &rng)), item: \(Int.random(in: 1 ... 3, using: &rng))"
        let bytes = Array("{\"size\":\(Int.random(in: 0 ... 5_000_000, using: &rng)),\"owner\":\"user 1\"}".utf8)
        if i % 2 == 0 {
            renames.append(seconds { _ = plain.update(node, title: title, data: nil, nil) })
            sortedRenames.append(seconds { _ = sorted.update(node, title: title, data: nil, nil) })
        } else {
            data.append(seconds { _ = plain.update(node, title: nil, data: bytes, nil) })
            sortedData.append(seconds { _ = sorted.update(node, title: nil, data: bytes, nil) })
        }
    }
    report(d, nodes: nodes, op: "sort.edit.rename", samples: sortedRenames,
           extra: ["unsorted_us": median(renames) * 1e6, "x_unsorted": median(sortedRenames) / median(renames)])
    report(d, nodes: nodes, op: "sort.edit.data", samples: sortedData,
           extra: ["unsorted_us": median(data) * 1e6, "x_unsorted": median(sortedData) / median(data)])
    measureSortedViews(d, plain: plain, sorted: sorted, sorts: [byTitle, bySize], handles: handles, rng: &rng)
}

/// Two views with the same 50 folders expanded (every third revealed), view 2 sorted by the
/// first of `sorts` in `sorted` (which keeps them all), both in the tree's order in `plain`.
@MainActor func measureSortedViews(_ d: Dataset, plain: TreeStore, sorted: TreeStore, sorts: [SortKeys],
                                   handles: [NodeHandle], rng: inout SplitMix64) {
    let nodes = plain.forest.count
    let unsortedView = ViewRef(ViewID(1)), sortedView = ViewRef(ViewID(2))
    var folders: [NodeHandle] = []
    while folders.count < 50 {
        let node = handles[Int.random(in: 0 ..< handles.count, using: &rng)]
        if plain.forest.childCount(of: node) > 0 { folders.append(node) }
    }
    func browsed(_ store: TreeStore) -> TreeStore {
        var store = store
        store.createView(unsortedView.view!, .collapsed)
        for (i, node) in folders.enumerated() {
            if i % 3 == 0 { _ = store.reveal(node, unsortedView) }
            _ = store.setExpanded(node, true, unsortedView)
        }
        store.createView(sortedView.view!, .copy(of: unsortedView.view!))
        return store
    }
    var plain = browsed(plain), sorted = browsed(sorted)
    _ = sorted.setSort(sorts[0], of: sortedView)
    // Switching the view between two built sorts, and back.
    let switches = (0 ..< 100).map { i in seconds { _ = sorted.setSort(sorts[(i + 1) % 2], of: sortedView) } }
    reportWithTail(d, nodes: nodes, op: "sort.view.switch", samples: switches,
                   extra: ["changes": Double(sorted.changedNodes(in: sortedView.view!))])
    // The same with filtered rows kept, which no other view in either order keeps: each switch
    // builds them in the new order (a pass over the tree), on a copy.
    var filtering = sorted
    try! filtering.prepareView(ViewRef(sortedView.view!, filter: FilterQuery("item: 2")))
    let filteredSwitches = (0 ..< 6).map { i in seconds { _ = filtering.setSort(sorts[(i + 1) % 2], of: sortedView) } }
    report(d, nodes: nodes, op: "sort.view.switch.filtered", samples: filteredSwitches)
    // Reads and toggles: the sorted view beside the same view in the tree's order.
    var toggles: ([Double], [Double]) = ([], []), pages: ([Double], [Double]) = ([], []), indexes: ([Double], [Double]) = ([], [])
    for _ in 0 ..< 500 {
        let node = handles[Int.random(in: 0 ..< handles.count, using: &rng)]
        for view in [unsortedView, sortedView] {
            let total = sorted.rowCount(view)
            let offset = Int.random(in: 0 ..< max(1, total - 50), using: &rng)
            let page = seconds { _ = sorted.rows(view, offset: offset, limit: 50) }
            let index = seconds { _ = sorted.rowIndex(of: node, view) }
            let row = sorted.rows(view, offset: Int.random(in: 0 ..< total, using: &rng), limit: 1)[0].node
            let expanded = sorted.isExpanded(row, view)
            let toggle = seconds { _ = sorted.setExpanded(row, !expanded, view) } + seconds { _ = sorted.setExpanded(row, expanded, view) }
            if view == unsortedView {
                pages.0.append(page); indexes.0.append(index); toggles.0.append(toggle / 2)
            } else {
                pages.1.append(page); indexes.1.append(index); toggles.1.append(toggle / 2)
            }
        }
    }
    for (op, pair) in [("sort.view.page", pages), ("sort.view.indexOf", indexes), ("sort.view.toggle", toggles)] {
        reportWithTail(d, nodes: nodes, op: op, samples: pair.1,
                       extra: ["unsorted_us": median(pair.0) * 1e6, "x_unsorted": median(pair.1) / median(pair.0)])
    }
    // Edits through the sorted view (every view and sort following), beside the same edits
    // through the same view of the store without sorts.
    func bench(_ store: TreeStore) -> EditBench {
        var bench = EditBench(store: store, filters: [], pool: NodePool(handles: handles), rng: SplitMix64(state: 7))
        _ = bench.insert(sortedView)  // the first edit spreads the positions (O(n), once)
        return bench
    }
    var withSorts = bench(sorted), without = bench(plain)
    let edits: [(String, (inout EditBench) -> Double)] = [("insert", { $0.insert(sortedView) }), ("delete", { $0.delete(sortedView) }),
                                                          ("move", { $0.move(sortedView) }), ("rename", { $0.rename(sortedView) })]
    for (op, edit) in edits {
        var a: [Double] = [], b: [Double] = []
        for _ in 0 ..< 200 {
            a.append(edit(&withSorts))
            b.append(edit(&without))
        }
        reportWithTail(d, nodes: nodes, op: "sort.view." + op, samples: a,
                       extra: ["unsorted_us": median(b) * 1e6, "x_unsorted": median(a) / median(b)])
    }
    withSorts.audit(after: "edits through a sorted view")
}
