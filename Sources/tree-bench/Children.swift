// The children pages of tree-bench (`children.*`, issue 37): the data set with one more root,
// `flat`, whose n / 7 leaf children (1.0M on the 7.2M tree) are the folder a grid pages
// through, side by side with a page of 50 rows of the same store.
import TreeEngine
import TreeFormats

/// The data set's JSON with a last root `flat` that has `children` leaves.
func menuItemsWithFlatFolder(_ d: Dataset, children: Int) -> [UInt8] {
    var out = menuItemsJSON(d)
    precondition(out.suffix(2) == Array("]}".utf8), "the data set's JSON ends its roots with ]}")
    out.removeLast(2)
    out.append(contentsOf: Array(",{\"id\":\"flat\",\"title\":\"flat\",\"children\":[".utf8))
    for k in 0 ..< children {
        if k > 0 { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: Array("{\"title\":\"flat item \(k)\"}".utf8))
    }
    out.append(contentsOf: Array("]}]}".utf8))
    return out
}

/// A page of 50 children at a random offset among `total`, with each child's own count and
/// row index: what `GET …/children` reads.
func childPageSamples(_ store: TreeStore, of parent: NodeHandle?, _ view: ViewRef, sort: SortKeys? = nil, count: Int,
                      rng: inout SplitMix64) -> [Double] {
    let total = store.keptChildren(of: parent, view, sort: sort, offset: 0, limit: 0)!.total
    return (0 ..< count).map { _ in
        let offset = Int.random(in: 0 ..< max(1, total - 50), using: &rng)
        return seconds {
            precondition(store.keptChildren(of: parent, view, sort: sort, offset: offset, limit: 50)!.children.count == min(50, total))
        }
    }
}

@MainActor func measureChildren(_ d: Dataset, runs: Int) {
    let flatCount = d.count / 7
    var store = TreeStore(forest: try! Forest.parse(menuItemsWithFlatFolder(d, children: flatCount)).forest)
    let nodes = store.forest.count
    let flat = store.forest.node(withID: "flat")!
    var rng = SplitMix64(state: 7)
    // The first page of a level builds the count of its children's level and theirs.
    report(d, nodes: nodes, op: "children.bases", samples: (0 ..< runs).map { _ in
        var copy = store
        return seconds { copy.prepareChildren(of: flat) }
    }, extra: ["flat_children": Double(flatCount)])
    store.prepareChildren(of: flat)
    let flatPages = childPageSamples(store, of: flat, ViewRef(), count: 200, rng: &rng)
    // Beside it, a page of 50 rows of the same store, all expanded.
    _ = store.expandAll(nil)
    let total = store.rowCount(nil)
    let rowPages = (0 ..< 200).map { _ in
        let offset = Int.random(in: 0 ..< total - 50, using: &rng)
        return seconds { _ = store.keptRows(ViewRef(), offset: offset, limit: 50)! }
    }
    report(d, nodes: nodes, op: "children.page.flat", samples: flatPages,
           extra: ["vs_rows_page": median(flatPages) / median(rowPages), "rows_page_us": median(rowPages) * 1e6])
    // In the order of a sort by title, descending.
    let sort = SortKeys([SortKeys.Key(.title, descending: true)])
    report(d, nodes: nodes, op: "children.sort.build", samples: (0 ..< runs).map { _ in
        var copy = store
        return seconds { copy.prepareChildren(of: flat, sort: sort) }
    })
    store.prepareChildren(of: flat, sort: sort)
    let sortedPages = childPageSamples(store, of: flat, ViewRef(), sort: sort, count: 200, rng: &rng)
    report(d, nodes: nodes, op: "children.page.flat.sorted", samples: sortedPages, extra: ["x_unsorted": median(sortedPages) / median(flatPages)])
    // Children of the first root's children (3 each, in subtrees of n / 9 positions: counted
    // by the index too).
    let parents = store.forest.children(of: store.forest.children(of: nil)[0])
    store.prepareChildren(of: parents[0])
    report(d, nodes: nodes, op: "children.page.level1", samples: (0 ..< 200).flatMap { i in
        childPageSamples(store, of: parents[i % parents.count], ViewRef(), count: 1, rng: &rng)
    })
    // Filtered rows: `flat` is an ancestor of the matches, so its children are walked.
    let filter = FilterQuery("flat item 12")
    try! store.prepareView(filter)
    report(d, nodes: nodes, op: "children.page.flat.filtered", samples: childPageSamples(store, of: flat, ViewRef(filter: filter), count: 9, rng: &rng),
           extra: ["children": Double(store.keptChildren(of: flat, ViewRef(filter: filter), offset: 0, limit: 0)!.total)])
}
