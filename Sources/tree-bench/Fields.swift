// The field ops of tree-bench (`fields.*`, issue 37): the same data set with a `data`
// object on every node, `{"size": N, "owner": "user K"}` (size spread over 0 to 5,000,000,
// 1,000 owners), filters that search a data field or compare one, side by side with the
// title filter on the same store.
import TreeEngine
import TreeFormats

/// The data of the k-th node (from 1, in pre-order) of the data set with data.
func fieldsData(_ k: Int) -> String {
    "{\"size\":\((k &* 2_654_435_761) % 5_000_001),\"owner\":\"user \(k % 1000)\"}"
}

@MainActor func measureFields(_ d: Dataset, runs: Int) {
    var store = TreeStore(forest: try! Forest.parse(menuItemsJSON(d, data: fieldsData)).forest)
    store.dataReader = JSONFieldReader()
    let nodes = store.forest.count
    let size = NodeField.data(FieldPath(["size"])), owner = NodeField.data(FieldPath(["owner"]))
    let title = FilterQuery("item: 2")
    let twoFields = FilterQuery("item: 2", fields: [.title, owner])
    let condition = FilterQuery("", conditions: [FieldCondition(size, .greater, .number(4_000_000))])
    // The first filter that needs a column reads it from every node's data (each run in a
    // copy of the store that has no column yet).
    func firstFilter(_ op: String, _ query: FilterQuery) {
        var columnBytes = 0
        report(d, nodes: nodes, op: op, samples: (0 ..< runs).map { _ in
            var copy = store
            let elapsed = seconds { try! copy.prepareView(query) }
            columnBytes = copy.fieldColumnBytes
            return elapsed
        }, extra: ["bytes_per_node": Double(columnBytes) / Double(nodes)])
    }
    firstFilter("fields.column.number", condition)
    firstFilter("fields.column.string", twoFields)
    // With both columns kept (by views of the store itself), each filter in a copy that keeps
    // no view of its query, beside the title filter.
    try! store.prepareView(FilterQuery("user", fields: [owner]))
    try! store.prepareView(FilterQuery("", conditions: [FieldCondition(size, .less, .number(1))]))
    func matchCount(_ query: FilterQuery) -> Int {
        var copy = store
        return copy.matchCount(query)
    }
    var titleSamples: [Double] = [], twoSamples: [Double] = [], conditionSamples: [Double] = []
    for _ in 0 ..< runs {
        var a = store, b = store, c = store
        titleSamples.append(seconds { try! a.prepareView(title) })
        twoSamples.append(seconds { try! b.prepareView(twoFields) })
        conditionSamples.append(seconds { try! c.prepareView(condition) })
    }
    report(d, nodes: nodes, op: "fields.filter.title", samples: titleSamples)
    report(d, nodes: nodes, op: "fields.filter.two", samples: twoSamples,
           extra: ["x_title": median(twoSamples) / median(titleSamples)])
    report(d, nodes: nodes, op: "fields.where", samples: conditionSamples,
           extra: ["x_title": median(conditionSamples) / median(titleSamples), "matches": Double(matchCount(condition))])
    // A node's data changed with the field views kept (the columns and the views follow),
    // then with the aggregate indexes kept too.
    try! store.prepareView(twoFields)
    try! store.prepareView(condition)
    let handles = allHandles(store.forest)
    var rng = SplitMix64(state: 7)
    func dataEdits(_ op: String) {
        report(d, nodes: nodes, op: op, samples: (0 ..< 200).map { _ in
            let node = handles[Int.random(in: 0 ..< handles.count, using: &rng)]
            let data = Array("{\"size\":\(Int.random(in: 0 ... 5_000_000, using: &rng)),\"owner\":\"user \(Int.random(in: 0 ..< 1000, using: &rng))\"}".utf8)
            return seconds { _ = store.update(node, title: nil, data: data, nil) }
        })
    }
    dataEdits("fields.edit.data")
    measureSorts(d, store, handles: handles, runs: runs, rng: &rng)
    // Aggregates of a page's rows: building the index of a field whose column is kept, then
    // pages of 50 rows with three aggregates beside the same pages without.
    let sources: [AggregateSource] = [.nodes, .field(FieldPath(["size"]))]
    report(d, nodes: nodes, op: "fields.aggregate.build", samples: (0 ..< runs).map { _ in
        var copy = store
        return seconds { copy.prepareAggregates([.field(FieldPath(["size"]))]) }
    })
    store.prepareAggregates(sources)
    dataEdits("fields.edit.data.aggregates")
    _ = store.expandAll(nil)
    var plain: [Double] = [], aggregated: [Double] = []
    let total = store.rowCount(nil)
    for _ in 0 ..< 1000 {
        let offset = Int.random(in: 0 ..< total - 50, using: &rng)
        plain.append(seconds { _ = store.rows(nil, offset: offset, limit: 50) })
        aggregated.append(seconds {
            let rows = store.rows(nil, offset: offset, limit: 50)
            // count, sum and max: two indexes (sum and max come from the same one).
            _ = store.keptAggregates(of: rows.map(\.node), sources)!
        })
    }
    report(d, nodes: nodes, op: "fields.aggregate.page", samples: aggregated,
           extra: ["without_us": median(plain) * 1e6, "added_us": (median(aggregated) - median(plain)) * 1e6,
                   "index_bytes_per_node": Double(store.aggregateBytes) / Double(nodes)])
}
