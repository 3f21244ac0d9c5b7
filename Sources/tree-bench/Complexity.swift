// tree-bench --complexity: the engine's promise checked as a ratio, which the noise of a shared
// machine does not break. The same ops run on the 88K and the 797K tree (9x the nodes), both in
// this one process, each with the four filtered views of the edit ops kept, in alternating
// rounds; the median time of an op may grow at most `growthLimit` times across the larger tree.
// An O(log n) op grows well under 2x, an O(n) one about 9x.
//
// Every sample starts from cold caches (`evictCaches`): warm, the whole 88K store fits in the
// processor's last-level cache and the 797K one does not, so that a 40 ns toggle grows 3-4x
// with no more work done. Cold, both pay for the memory they touch, and the ratio compares that.
import Foundation
import TreeEngine

/// What an op may grow by across the 9x larger tree.
let growthLimit = 3.0

/// The users' views kept besides the default view's filtered rows (`views.*` ops), 30% of
/// them filtering by one of 10 texts (`views.filter.*`).
let guardViews = 100
/// The sorts the guard's stores keep: sorted views use the first, switch to the second and back.
let guardSorts = [SortKeys([SortKeys.Key(.title, descending: true)]), SortKeys([SortKeys.Key(.title)])]

/// Set once, by `--complexity`, before anything is timed: every `seconds` evicts the caches
/// first. tree-bench times on its main thread only.
nonisolated(unsafe) var coldCaches = false

/// Twice the last-level cache (64 MiB when the system does not say), written once.
nonisolated(unsafe) private var evictionBuffer: UnsafeMutableRawBufferPointer = {
    let described = try? String(contentsOfFile: "/sys/devices/system/cpu/cpu0/cache/index3/size", encoding: .utf8)
    let kib = described.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines).dropLast()) } ?? 32 * 1024
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * kib * 1024, alignment: 64)
    buffer.initializeMemory(as: UInt8.self, repeating: 1)
    return buffer
}()
nonisolated(unsafe) private var evictionSum = 0

/// Reads a line of every 64 bytes of a buffer twice the size of the last-level cache, so
/// that what an op reads next comes from memory.
func evictCaches() {
    var sum = 0
    for offset in stride(from: 0, to: evictionBuffer.count, by: 64) {
        sum &+= Int(evictionBuffer.load(fromByteOffset: offset, as: UInt8.self))
    }
    evictionSum &+= sum
}

/// One op of the guard: the samples of one round on one tree; `withViews`: on the store
/// that also keeps `guardViews` users' views (the others run on one without them).
struct GuardOp {
    let name: String
    var withViews = false
    let run: (inout EditBench) -> [Double]
}

/// Each round's samples: the reads on the unfiltered view, every edit kind naming the
/// unfiltered view and (`.named`) each of the kept filtered views in turn, the views' ops,
/// the selection ops, and a batch of 1,000 edits in one transaction.
func guardOps() -> [GuardOp] {
    let reads = [
        GuardOp(name: "toggle") { toggleSamples(&$0.store, 20, rng: &$0.rng) },
        GuardOp(name: "page") { pageSamples(&$0.store, 40, rng: &$0.rng) },
        GuardOp(name: "indexOf") { bench in
            let nodes = (0 ..< 40).map { _ in bench.pool.random(using: &bench.rng) }
            return indexOfSamples(&bench.store, nodes)
        },
        // The descendants of each row of a page of 50, from the index every edit keeps.
        GuardOp(name: "aggregate.page") { bench in
            let total = bench.store.rowCount(nil)
            return (0 ..< 40).map { _ in
                let offset = Int.random(in: 0 ..< max(1, total - 50), using: &bench.rng)
                let nodes = bench.store.rows(nil, offset: offset, limit: 50).map(\.node)
                return seconds { _ = bench.store.keptAggregates(of: nodes, [.nodes])! }
            }
        },
        // A page of 50 children at a random place in a folder of n / 7 (`Children.swift`).
        GuardOp(name: "children.page") { bench in
            let flat = bench.flat!.forest.node(withID: "flat")!
            return childPageSamples(bench.flat!, of: flat, ViewRef(), count: 40, rng: &bench.rng)
        },
    ]
    let edits: [(String, (inout EditBench, ViewRef) -> Double)] = [
        ("insert", { $0.insert($1) }), ("delete", { $0.delete($1) }),
        ("move", { $0.move($1) }), ("rename", { $0.rename($1) }),
    ]
    let perRound = 8
    let editOps = edits.flatMap { name, edit in [
        GuardOp(name: name) { bench in (0 ..< perRound).map { _ in edit(&bench, ViewRef()) } },
        GuardOp(name: name + ".named") { bench in (0 ..< perRound).map { i in edit(&bench, ViewRef(filter: bench.filters[i % bench.filters.count])) } },
    ] }
    let viewOps = [
        GuardOp(name: "views.toggle", withViews: true) { $0.viewToggleSamples(20) },
        GuardOp(name: "views.page", withViews: true) { $0.viewPageSamples(40) },
        GuardOp(name: "views.indexOf", withViews: true) { $0.viewIndexOfSamples(40) },
        GuardOp(name: "views.filter.toggle", withViews: true) { $0.viewToggleSamples(20, .filtered) },
        GuardOp(name: "views.filter.page", withViews: true) { $0.viewPageSamples(40, .filtered) },
        GuardOp(name: "views.filter.indexOf", withViews: true) { $0.viewIndexOfSamples(40, .filtered) },
    ] + edits.map { name, edit in
        GuardOp(name: "views." + name, withViews: true) { bench in (0 ..< perRound).map { _ in edit(&bench, bench.randomView()) } }
    }
    // Views sorted by title (see `runComplexityGuard`): reads and edits in them, and a view
    // switched between the two sorts kept and back.
    let sortedOps = [
        GuardOp(name: "sorted.toggle", withViews: true) { $0.viewToggleSamples(20, .sorted) },
        GuardOp(name: "sorted.page", withViews: true) { $0.viewPageSamples(40, .sorted) },
        GuardOp(name: "sorted.indexOf", withViews: true) { $0.viewIndexOfSamples(40, .sorted) },
        GuardOp(name: "sorted.insert", withViews: true) { bench in (0 ..< perRound).map { _ in bench.insert(bench.random(.sorted)) } },
        GuardOp(name: "sorted.rename", withViews: true) { bench in (0 ..< perRound).map { _ in bench.rename(bench.random(.sorted)) } },
        GuardOp(name: "sorted.switch", withViews: true) { bench in
            (0 ..< 10).flatMap { _ in
                let view = bench.random(.sorted)
                return [seconds { _ = bench.store.setSort(guardSorts[1], of: view) }, seconds { _ = bench.store.setSort(guardSorts[0], of: view) }]
            }
        },
    ]
    // The default view's busy selection (see `runComplexityGuard`), on the store with views.
    let selectionOps = [
        GuardOp(name: "selection.subtree", withViews: true) { bench in
            (0 ..< 10).flatMap { _ in
                let node = bench.bigFolder(), was = bench.store.isSelected(node, in: nil)
                return [seconds { bench.store.setSelected(node, !was, in: nil) }, seconds { bench.store.setSelected(node, was, in: nil) }]
            }
        },
        GuardOp(name: "selection.node", withViews: true) { bench in
            (0 ..< 10).flatMap { _ in
                let node = bench.pool.random(using: &bench.rng), was = bench.store.isSelected(node, in: nil)
                return [seconds { bench.store.setSelected(node, !was, recursive: false, in: nil) },
                        seconds { bench.store.setSelected(node, was, recursive: false, in: nil) }]
            }
        },
        GuardOp(name: "selection.page", withViews: true) { pageSamples(&$0.store, 40, rng: &$0.rng) },
        GuardOp(name: "selection.rows", withViews: true) { bench in
            (0 ..< 4).flatMap { _ in
                let offset = Int.random(in: 0 ..< max(1, bench.store.rowCount(ViewRef()) - 1000), using: &bench.rng)
                let value = Bool.random(using: &bench.rng)
                return [seconds { bench.store.selectRows(ViewRef(), offset: offset, count: 1000, value) },
                        seconds { bench.store.selectRows(ViewRef(), offset: offset, count: 1000, !value) }]
            }
        },
        GuardOp(name: "selection.top100", withViews: true) { bench in
            (0 ..< 10).map { _ in seconds { _ = bench.store.selectedNodes(in: nil, after: nil, limit: 100, topMost: true) } }
        },
    ]
    return reads + editOps + viewOps + sortedOps + selectionOps + [GuardOp(name: "batch of 1,000") { [$0.timedBatch(1000)] }]
}

/// Runs the guard, prints the table it measured, and returns the exit status: 1 when an op
/// grew more than `growthLimit` times.
@MainActor func runComplexityGuard(rounds: Int = 5) -> Int32 {
    let sizes = [datasets["88K"]!, datasets["797K"]!]
    func bench(_ d: Dataset, views: Int) -> EditBench {
        var store = TreeStore(forest: try! Forest.parse(menuItemsJSON(d)).forest)
        _ = store.expandAll(nil)
        // An aggregate index, which every edit keeps (the `aggregate.page` op reads it).
        store.prepareAggregates([.nodes])
        // The bases that count the children of the first root and of its children, which every
        // edit keeps.
        store.prepareChildren(of: store.forest.children(of: nil)[0])
        // Sorted layouts, which every edit keeps too (a renamed node moves in them).
        for sort in guardSorts.reversed() { store.prepareSort(sort) }
        var bench = EditBench(store: store, filters: editFilters(d), pool: NodePool(handles: allHandles(store.forest)),
                              rng: SplitMix64(state: 42))
        if views == 0 {
            var flat = TreeStore(forest: try! Forest.parse(menuItemsWithFlatFolder(d, children: d.count / 7)).forest)
            flat.prepareChildren(of: flat.forest.node(withID: "flat")!)
            bench.flat = flat
        }
        // The first edit counts each view's matches below every node and spreads the forest's
        // positions, once (O(n) by design): done before anything is timed.
        _ = bench.insert(ViewRef())
        // Users' views, which every edit updates (see Views.swift); 30% of them filtering.
        _ = bench.addViews(views)
        _ = bench.addFilters(views * 3 / 10, texts: viewFilterTexts(d))
        // Selections that every edit follows: the default view's (the `selection.*` ops) and
        // ten of the views'.
        if views > 0 {
            bench.selectRandom(500, in: nil)
            for id in bench.views.prefix(10) { bench.selectRandom(20, in: id) }
            // Ten views sorted, each keeping its state: not among those that filter, whose kept
            // filtered rows a new order builds again when no view there filters by their text
            // (O(n), see `TreeStore.setSort`).
            for id in bench.views.prefix(40).suffix(10) {
                _ = bench.store.setSort(guardSorts[0], of: ViewRef(id))
                bench.sortedViews.append(id)
            }
        }
        return bench
    }
    var benches = sizes.map { bench($0, views: 0) }
    var viewBenches = sizes.map { bench($0, views: guardViews) }
    let ops = guardOps()
    coldCaches = true
    defer { coldCaches = false }
    var samples = Array(repeating: Array(repeating: [Double](), count: sizes.count), count: ops.count)
    for _ in 0 ..< rounds {
        for (o, op) in ops.enumerated() {
            for b in benches.indices {
                samples[o][b] += op.withViews ? op.run(&viewBenches[b]) : op.run(&benches[b])
            }
        }
    }
    for b in benches.indices {
        benches[b].audit(after: "the complexity guard's ops")
        viewBenches[b].audit(after: "the complexity guard's views ops")
    }

    let nodes = benches.map { $0.store.forest.count }
    print("complexity guard: \(nodes[0]) and \(nodes[1]) nodes (\(String(format: "%.1f", Double(nodes[1]) / Double(nodes[0])))x), "
        + "four filtered views kept (views.*: and \(guardViews) views), \(rounds) alternating rounds, cold caches; limit \(growthLimit)x")
    print("op".padding(toLength: 21, withPad: " ", startingAt: 0) + "   88K median   797K median   growth")
    var failed: [String] = []
    for (o, op) in ops.enumerated() {
        let small = median(samples[o][0]), large = median(samples[o][1])
        let growth = large / small
        if !(growth <= growthLimit) { failed.append(op.name) }
        print(op.name.padding(toLength: 21, withPad: " ", startingAt: 0)
            + String(format: " %10.2f µs %10.2f µs %7.2fx", small * 1e6, large * 1e6, growth)
            + (growth <= growthLimit ? "" : "  FAIL"))
    }
    guard failed.isEmpty else {
        print("complexity guard FAILED: \(failed.joined(separator: ", ")) grew more than \(growthLimit)x across a 9x larger tree: "
            + "linear in the tree where the engine promises O(log n)")
        return 1
    }
    print("complexity guard passed")
    return 0
}
