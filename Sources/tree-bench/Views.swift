// The views ops of tree-bench (`views.*`): many users' views over the one edited store, in
// the same run as the single-view figures, so the two compare side by side.
//
// `--views N` (default 1,000; 0: none) views are created: 70% start collapsed, 20% expanded,
// 10% expanded to depth 3. Each then expands 50 random folders, every third one revealed
// (its ancestors expanded too), as a user browsing would. Then: toggles, pages of 50 rows
// and row indexes in random views; and each edit kind made through a random view while
// every view follows it. The views are deleted at the end.
import Foundation
import TreeEngine
import TreeProcess

/// The median, p90 and p99 of `samples`, the p99 as an extra field.
@MainActor func reportWithTail(_ d: Dataset, nodes: Int, op: String, samples: [Double], extra: [String: Double] = [:]) {
    let sorted = samples.sorted()
    let p99 = sorted.isEmpty ? .nan : sorted[Int((Double(sorted.count) * 0.99).rounded(.up)) - 1]
    report(d, nodes: nodes, op: op, samples: samples, extra: extra.merging(["p99_us": p99 * 1e6]) { a, _ in a })
}

extension EditBench {
    /// Creates `count` views as users' (see above) and returns the time each creation took.
    mutating func addViews(_ count: Int) -> [Double] {
        var creates: [Double] = []
        for _ in 0 ..< count {
            let id = ViewID(UInt64(views.count + 1))
            let roll = Int.random(in: 0 ..< 10, using: &rng)
            let start: ViewStart = roll < 7 ? .collapsed : roll < 9 ? .expanded : .depth(3)
            creates.append(seconds { store.createView(id, start) })
            views.append(id)
            // The user expands 50 folders.
            var opened = 0
            while opened < 50 {
                let node = pool.random(using: &rng)
                guard store.forest.childCount(of: node) > 0 else { continue }
                if opened % 3 == 0 { _ = store.reveal(node, ViewRef(id)) }
                _ = store.setExpanded(node, true, ViewRef(id))
                opened += 1
            }
        }
        return creates
    }

    mutating func randomView() -> ViewRef { ViewRef(views[Int.random(in: 0 ..< views.count, using: &rng)]) }

    /// The first `count` views filter by one of `texts` each (in turn), and each collapses or
    /// expands 10 random rows of its filtered rows: the time each filter took when another
    /// view had its text already (its rows over the text's shared state).
    mutating func addFilters(_ count: Int, texts: [FilterQuery]) -> [Double] {
        var shared: [Double] = []
        for (i, id) in views.prefix(count).enumerated() {
            let rows = ViewRef(id, filter: texts[i % texts.count])
            let time = seconds { try! store.prepareView(rows) }
            if i >= texts.count { shared.append(time) }
            filtering.append(rows)
            for _ in 0 ..< 10 {
                let total = store.rowCount(rows)
                guard total > 0 else { break }
                let node = store.rows(rows, offset: Int.random(in: 0 ..< total, using: &rng), limit: 1)[0].node
                _ = store.setExpanded(node, !store.isExpanded(node, rows), rows)
            }
        }
        return shared
    }

    mutating func randomFiltering() -> ViewRef { filtering[Int.random(in: 0 ..< filtering.count, using: &rng)] }

    /// Which views an op picks from: any, those filtering (their filtered rows), the sorted ones.
    enum ViewKind { case any, filtered, sorted }

    mutating func random(_ kind: ViewKind) -> ViewRef {
        switch kind {
        case .any: randomView()
        case .filtered: randomFiltering()
        case .sorted: ViewRef(sortedViews[Int.random(in: 0 ..< sortedViews.count, using: &rng)])
        }
    }

    /// A random visible row of a random view collapsed or expanded, and back: two samples.
    mutating func viewToggleSamples(_ count: Int, _ kind: ViewKind = .any) -> [Double] {
        var samples: [Double] = []
        for _ in 0 ..< count {
            let view = random(kind)
            guard store.rowCount(view) > 0 else { continue }
            let node = store.rows(view, offset: Int.random(in: 0 ..< store.rowCount(view), using: &rng), limit: 1)[0].node
            let expanded = store.isExpanded(node, view)
            samples.append(seconds { _ = store.setExpanded(node, !expanded, view) })
            samples.append(seconds { _ = store.setExpanded(node, expanded, view) })
        }
        return samples
    }

    /// Pages of 50 rows at random offsets of random views.
    mutating func viewPageSamples(_ count: Int, _ kind: ViewKind = .any) -> [Double] {
        (0 ..< count).map { _ in
            let view = random(kind)
            let offset = Int.random(in: 0 ..< max(1, store.rowCount(view) - 50), using: &rng)
            return seconds { _ = store.rows(view, offset: offset, limit: 50) }
        }
    }

    /// The row of a random node in a random view.
    mutating func viewIndexOfSamples(_ count: Int, _ kind: ViewKind = .any) -> [Double] {
        (0 ..< count).map { _ in
            let view = random(kind)
            let node = pool.random(using: &rng)
            return seconds { _ = store.rowIndex(of: node, view) }
        }
    }
}

@MainActor func measureViews(_ d: Dataset, nodes: Int, bench: inout EditBench, count: Int) {
    guard count > 0 else { return }
    ProcessMemory.returnFreedMemory()
    let before = residentBytes()
    let creates = bench.addViews(count)
    ProcessMemory.returnFreedMemory()
    let viewBytes = Double(residentBytes() - before) / Double(count)
    let changes = Double(bench.views.reduce(0) { $0 + bench.store.changedNodes(in: $1) }) / Double(count)
    let heldBytes = Double(bench.views.reduce(0) { $0 + bench.store.viewBytes($1) }) / Double(count)
    reportWithTail(d, nodes: nodes, op: "views.create", samples: creates, extra: ["views": Double(count)])
    reportWithTail(d, nodes: nodes, op: "views.toggle", samples: bench.viewToggleSamples(toggleRuns / 2))
    reportWithTail(d, nodes: nodes, op: "views.page", samples: bench.viewPageSamples(1000))
    reportWithTail(d, nodes: nodes, op: "views.indexOf", samples: bench.viewIndexOfSamples(1000))

    // 30% of the views filter, by one of 10 texts.
    ProcessMemory.returnFreedMemory()
    let beforeFilters = residentBytes()
    let filteringCount = count * 3 / 10
    let shared = bench.addFilters(filteringCount, texts: viewFilterTexts(d))
    ProcessMemory.returnFreedMemory()
    let filterBytes = Double(residentBytes() - beforeFilters)
    let sharedStates = bench.store.sharedFilters
    reportWithTail(d, nodes: nodes, op: "views.filter.shared", samples: shared, extra: ["views": Double(filteringCount)])
    reportWithTail(d, nodes: nodes, op: "views.filter.toggle", samples: bench.viewToggleSamples(toggleRuns / 2, .filtered))
    reportWithTail(d, nodes: nodes, op: "views.filter.page", samples: bench.viewPageSamples(1000, .filtered))
    reportWithTail(d, nodes: nodes, op: "views.filter.indexOf", samples: bench.viewIndexOfSamples(1000, .filtered))

    let edits: [(String, (inout EditBench, ViewRef) -> Double)] = [
        ("insert", { $0.insert($1) }), ("delete", { $0.delete($1) }),
        ("move", { $0.move($1) }), ("rename", { $0.rename($1) }),
    ]
    let reps = editRuns ?? (nodes > 1_000_000 ? 21 : 51)
    for (name, edit) in edits {
        reportWithTail(d, nodes: nodes, op: "views.edit." + name, samples: (0 ..< reps).map { _ in edit(&bench, bench.randomView()) },
                       extra: ["views": Double(count)])
    }
    func perState(_ states: [(query: FilterQuery, bytes: Int, views: Int)]) -> Double {
        Double(states.reduce(0) { $0 + $1.bytes }) / Double(max(1, states.count)) / Double(nodes)
    }
    // Once edited, a shared state also counts the matches below each node.
    let sharedBytes = perState(sharedStates), editedBytes = perState(bench.store.sharedFilters)
    if json {
        print("{\"dataset\":\"\(d.name)\",\"nodes\":\(nodes),\"op\":\"views.filter.memory\",\"resident_bytes\":\(String(format: "%.0f", filterBytes)),"
            + "\"shared_bytes_per_node\":\(String(format: "%.2f", sharedBytes)),\"edited_shared_bytes_per_node\":\(String(format: "%.2f", editedBytes)),"
            + "\"texts\":\(sharedStates.count),\"views\":\(filteringCount)}")
    } else {
        tableRows.append((d.name, "views.filter.memory", String(format: "%.0f MB", filterBytes / 1e6),
                          String(format: "resident, %d views filtering by %d texts: each text's shared state %.2f B/node, %.2f once edited",
                                 filteringCount, sharedStates.count, sharedBytes, editedBytes)))
    }
    if json {
        print("{\"dataset\":\"\(d.name)\",\"nodes\":\(nodes),\"op\":\"views.memory\",\"bytes_per_view\":\(String(format: "%.0f", viewBytes)),"
            + "\"held_bytes_per_view\":\(String(format: "%.0f", heldBytes)),\"changes_per_view\":\(String(format: "%.1f", changes)),\"views\":\(count)}")
    } else {
        tableRows.append((d.name, "views.memory", String(format: "%.0f B/view", viewBytes),
                          String(format: "resident, %d views with 50 folders expanded each: %.1f changed nodes, %.0f B held per view", count, changes, heldBytes)))
    }
    for id in bench.views { bench.store.deleteView(id) }
    bench.views = []
    bench.filtering = []
}

/// Ten texts of the generated titles that users filter by, from a few matches to many.
func viewFilterTexts(_ d: Dataset) -> [FilterQuery] {
    (0 ..< 10).map { i in FilterQuery("Level \(max(0, d.nestLevel - 2 - i)), item: \(1 + i % 3)") }
}
