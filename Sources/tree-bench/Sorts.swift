// The sorts of tree-bench (`sort.*`, issue 37), on the data set of Fields.swift: building the
// layout of a sort by title and by a numeric data field (its column kept), and an edit that
// moves a node in a kept layout, side by side with the same edits without one.
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
}
