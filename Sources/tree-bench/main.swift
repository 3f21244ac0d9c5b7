// tree-bench: measures the engine on the seed library's generated trees.
//
//   swift run -c release tree-bench -- --json --sizes 88K,350K,797K,7.2M
//
// Prints one JSON object per line ({"dataset","nodes","op","median_s","p90_s","min_s","runs"}),
// or a readable table without --json. Every figure is a median of repeated runs (the JSON adds
// their p90 and the fastest).
// The edit ops (insert, delete, move, rename, batch) run with four filtered views
// kept in the store: see Edits.swift.
import Foundation
import TreeEngine
import TreeFormats
import TreeProcess

struct Dataset {
    let name: String
    let nestLevel: Int
    let itemsInSection: Int

    /// Its number of nodes: itemsInSection¹ + … + itemsInSection^nestLevel.
    var count: Int { (1 ... nestLevel).reduce(0) { sum, level in sum + Int(pow(Double(itemsInSection), Double(level))) } }
}

let datasets: [String: Dataset] = [
    "88K": Dataset(name: "88K", nestLevel: 10, itemsInSection: 3),
    "350K": Dataset(name: "350K", nestLevel: 9, itemsInSection: 4),
    "797K": Dataset(name: "797K", nestLevel: 12, itemsInSection: 3),
    "7.2M": Dataset(name: "7.2M", nestLevel: 14, itemsInSection: 3),
]

// MARK: Options

var json = false
var sizes = ["88K", "350K", "797K", "7.2M"]
var toggleRuns = 2000
var emit: String? = nil
var baseline = false
var editRuns: Int? = nil
var batchSize = 50_000
var batchSingles = 2_000
var formatsOnly = false
var complexity = false
var viewCount = 1000
var fieldRuns = true
var fieldsOnly = false
var childrenOnly = false
var arguments = CommandLine.arguments.dropFirst()
// Memory is measured as tree-server has it: large blocks in their own mappings (see
// ProcessMemory), or freed columns stay in malloc's heaps and count as resident; and on
// transparent huge pages, as tree-server asks (GLIBC_TUNABLES=glibc.malloc.hugetlb=0: not).
let hugePages = ProcessMemory.useTransparentHugePages()
ProcessMemory.fixAllocatorThresholds()
FileHandle.standardError.write(Data("tree-bench: \(hugePages)\n".utf8))
while let arg = arguments.popFirst() {
    switch arg {
    case "--json": json = true
    case "--sizes": sizes = (arguments.popFirst() ?? "").split(separator: ",").map(String.init)
    case "--toggles": toggleRuns = Int(arguments.popFirst() ?? "") ?? toggleRuns
    case "--emit": emit = arguments.popFirst() ?? ""
    case "--baseline": baseline = true
    case "--edits": editRuns = Int(arguments.popFirst() ?? "") ?? editRuns
    case "--batch": batchSize = Int(arguments.popFirst() ?? "") ?? batchSize
    case "--batch-singles": batchSingles = Int(arguments.popFirst() ?? "") ?? batchSingles
    case "--formats": formatsOnly = true
    case "--complexity": complexity = true
    case "--views": viewCount = Int(arguments.popFirst() ?? "") ?? viewCount
    case "--fields": fieldsOnly = true
    case "--no-fields": fieldRuns = false
    case "--children": childrenOnly = true
    case "--help", "-h":
        print("usage: tree-bench [--json] [--baseline] [--sizes 88K,350K,797K,7.2M] [--toggles N]")
        print("                  [--edits N] [--batch N] [--batch-singles N] [--views N] [--formats] [--complexity]")
        print("       --edits N   runs of each edit op, each naming the unfiltered view and a filtered one (21 on 7.2M, 51 else);")
        print("                   0: no edit ops, and no reads of the edited store (toggle.edited, ...)")
        print("       --batch N   edits in the one-transaction batch (50000; 0 skips it), --batch-singles N: the")
        print("                   sample of the same edits applied one by one, extrapolated to N (2000)")
        print("       --formats   only the parse of the nested JSON and the import formats (parseCSV, parseNDJSON,")
        print("                   parsePaths, parseDocument): see Formats.swift")
        print("       --complexity the complexity guard: the toggle, page, indexOf, edit and batch ops on 88K and 797K")
        print("                   nodes with four filtered views kept, in one process, from cold caches; fails (exit 1)")
        print("                   when one grows more than 3x across the 9x larger tree (see Complexity.swift)")
        print("       --views N   views (each user's own expansion) over the edited store: views.* ops (1000; 0: none)")
        print("       --fields    only the parse and the field ops (fields.*: filters on data fields, on the data set with a")
        print("                   data object on every node; see Fields.swift); --no-fields: without them")
        print("       --children  only the parse and the children pages (children.*: a folder of n / 7 children; see")
        print("                   Children.swift)")
        print("       --baseline  also runs the seed library's algorithm (objects, re-flatten per change) on the same data")
        print("       tree-bench --emit SIZE     writes that data set's upload JSON to standard output")
        print("       tree-bench --emit document writes parseDocument's 300 MB JSON document (POST /sessions?format=document)")
        exit(0)
    default:
        FileHandle.standardError.write(Data("tree-bench: unknown argument \(arg)\n".utf8))
        exit(2)
    }
}
for size in sizes + (emit.map { $0 == "document" ? [] : [$0] } ?? []) where datasets[size] == nil {
    FileHandle.standardError.write(Data("tree-bench: unknown size \(size); known: 88K, 350K, 797K, 7.2M\n".utf8))
    exit(2)
}

// MARK: Data

/// The upload JSON of the seed's `menuItems(targetNestLevel:, itemsInSection:)`: titles
/// "Level L, item: I", items numbered from 1, no ids (the service generates them); with
/// `data`, the k-th node (from 1, in pre-order) has `data(k)` as its `data`.
func menuItemsJSON(_ d: Dataset, data: ((Int) -> String)? = nil) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity((data == nil ? 50 : 90) * Int(pow(Double(d.itemsInSection), Double(d.nestLevel))))
    out.append(contentsOf: Array("{\"nodes\":".utf8))
    var k = 0
    func level(_ l: Int) {
        out.append(UInt8(ascii: "["))
        if l < d.nestLevel {
            for i in 1 ... d.itemsInSection {
                if i > 1 { out.append(UInt8(ascii: ",")) }
                k += 1
                out.append(contentsOf: Array("{\"title\":\"Level \(l), item: \(i)\",".utf8))
                if let data { out.append(contentsOf: Array("\"data\":\(data(k)),".utf8)) }
                out.append(contentsOf: Array("\"children\":".utf8))
                level(l + 1)
                out.append(UInt8(ascii: "}"))
            }
        }
        out.append(UInt8(ascii: "]"))
    }
    level(0)
    out.append(UInt8(ascii: "}"))
    return out
}

if let emit {
    let bytes = emit == "document" ? recordsDocument(megabytes: 300) : menuItemsJSON(datasets[emit]!)
    FileHandle.standardOutput.write(Data(bytes))
    exit(0)
}

// MARK: Measuring

/// Wall time of `body` in seconds, measured with `ContinuousClock` (the one clock of this tool);
/// with `coldCaches` (`--complexity`), from cold caches.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    if coldCaches { evictCaches() }
    let elapsed = try ContinuousClock().measure(body)
    let (whole, attoseconds) = elapsed.components
    return Double(whole) + Double(attoseconds) / 1e18
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.isEmpty ? .nan : s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// The smallest sample with at least 90% of the samples at or below it.
func p90(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.isEmpty ? .nan : s[Int((Double(s.count) * 0.9).rounded(.up)) - 1]
}

func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}

var tableRows: [(String, String, String, String)] = []

@MainActor func report(_ d: Dataset, nodes: Int, op: String, samples: [Double], extra: [String: Double] = [:]) {
    let m = median(samples), p = p90(samples)
    if json {
        var fields = ["\"dataset\":\"\(d.name)\"", "\"nodes\":\(nodes)", "\"op\":\"\(op)\"",
                      "\"median_s\":\(String(format: "%.9f", m))", "\"p90_s\":\(String(format: "%.9f", p))",
                      "\"min_s\":\(String(format: "%.9f", samples.min() ?? 0))", "\"runs\":\(samples.count)"]
        for (k, v) in extra.sorted(by: { $0.key < $1.key }) { fields.append("\"\(k)\":\(String(format: "%.3f", v))") }
        print("{" + fields.joined(separator: ",") + "}")
    } else {
        func shown(_ m: Double) -> String {
            m < 1e-3 ? String(format: "%.2f µs", m * 1e6) : m < 1 ? String(format: "%.2f ms", m * 1e3) : String(format: "%.3f s", m)
        }
        let more = extra.sorted(by: { $0.key < $1.key }).map { String(format: "%@ %.1f", $0.key, $0.value) }.joined(separator: ", ")
        let spread = samples.count > 1 ? ", p90 " + shown(p) : ""
        tableRows.append((d.name, op, shown(m), "\(samples.count) runs" + spread + (more.isEmpty ? "" : ", " + more)))
    }
    fflush(nil)
}

struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// toggle, page, indexOf and filter on `store`'s unfiltered view, reported as op + `suffix`:
/// single collapse/expand of random visible rows, pages of 50 rows at random offsets, the
/// row of random nodes (from `handles`), and fresh filtered views for `query` (each in a
/// copy of the store that shares the forest). Returns the threads the filter used.
@MainActor func measureReads(_ d: Dataset, nodes: Int, _ store: inout TreeStore, handles: [NodeHandle],
                             query: FilterQuery, filterRuns: Int, rng: inout SplitMix64, suffix: String = "") -> Int {
    report(d, nodes: nodes, op: "toggle" + suffix, samples: toggleSamples(&store, toggleRuns / 2, rng: &rng))
    report(d, nodes: nodes, op: "page" + suffix, samples: pageSamples(&store, 1000, rng: &rng))
    let randomNodes = (0 ..< 1000).map { _ in handles[Int.random(in: 0 ..< handles.count, using: &rng)] }
    report(d, nodes: nodes, op: "indexOf" + suffix, samples: indexOfSamples(&store, randomNodes))

    var workers = 0
    report(d, nodes: nodes, op: "filter" + suffix, samples: (0 ..< filterRuns).map { _ in
        var copy = store
        let elapsed = seconds { try! copy.prepareView(query) }
        workers = copy.keptFilterWorkers(query) ?? 0
        return elapsed
    })
    return workers
}

/// `count` random visible rows of the unfiltered view collapsed and expanded again: two
/// samples each.
func toggleSamples(_ store: inout TreeStore, _ count: Int, rng: inout SplitMix64) -> [Double] {
    var samples: [Double] = []
    for _ in 0 ..< count {
        let row = Int.random(in: 0 ..< store.rowCount(nil), using: &rng)
        let node = store.rows(nil, offset: row, limit: 1)[0].node
        samples.append(seconds { _ = store.setExpanded(node, false, nil) })
        samples.append(seconds { _ = store.setExpanded(node, true, nil) })
    }
    return samples
}

/// `count` pages of 50 rows of the unfiltered view at random offsets.
func pageSamples(_ store: inout TreeStore, _ count: Int, rng: inout SplitMix64) -> [Double] {
    let total = store.rowCount(nil)
    return (0 ..< count).map { _ in
        let offset = Int.random(in: 0 ..< max(1, total - 50), using: &rng)
        return seconds { _ = store.rows(nil, offset: offset, limit: 50) }
    }
}

/// The row of each of `nodes` in the unfiltered view.
func indexOfSamples(_ store: inout TreeStore, _ nodes: [NodeHandle]) -> [Double] {
    nodes.map { node in seconds { _ = store.rowIndex(of: node, nil) } }
}

/// The query typed one character at a time: each prefix's view is built (`prepareView`) on a
/// store that keeps the views of the previous prefixes (`filteredViewCapacity` 4, as the
/// service), in a copy of `store` that starts with no filtered view; `rounds` times.
/// Reports the median per keystroke (over all rounds) and the median total of a round.
@MainActor func measureTyping(_ d: Dataset, nodes: Int, _ store: TreeStore, text: String, rounds: Int) {
    var keystrokes: [Double] = []
    var totals: [Double] = []
    for _ in 0 ..< rounds {
        var copy = store
        copy.filteredViewCapacity = 4
        copy.arrangeViews([])
        var total = 0.0
        for length in 1 ... text.count {
            let query = FilterQuery(String(text.prefix(length)))
            let elapsed = seconds { try! copy.prepareView(query) }
            keystrokes.append(elapsed)
            total += elapsed
        }
        totals.append(total)
    }
    report(d, nodes: nodes, op: "filterTyping", samples: keystrokes, extra: ["keystrokes": Double(text.count)])
    report(d, nodes: nodes, op: "filterTyping.total", samples: totals)
}

// MARK: Runs

if complexity { exit(runComplexityGuard()) }

// Resident memory is only honest in a fresh process (an allocator keeps what earlier
// data sets freed), so several sizes run as one child process each.
if sizes.count > 1 {
    for size in sizes {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        var childArguments = (json ? ["--json"] : []) + (baseline ? ["--baseline"] : []) + (formatsOnly ? ["--formats"] : [])
        childArguments += ["--toggles", String(toggleRuns), "--sizes", size]
        if let editRuns { childArguments += ["--edits", String(editRuns)] }
        childArguments += ["--batch", String(batchSize), "--batch-singles", String(batchSingles)]
        childArguments += fieldsOnly ? ["--fields"] : fieldRuns ? [] : ["--no-fields"]
        childArguments += childrenOnly ? ["--children"] : []
        child.arguments = childArguments
        try child.run()
        child.waitUntilExit()
        if child.terminationStatus != 0 { exit(child.terminationStatus) }
    }
    exit(0)
}

for size in sizes {
    let d = datasets[size]!
    let bytes = menuItemsJSON(d)
    let big = bytes.count > 100_000_000
    var rng = SplitMix64(state: 42)

    // parse, and memory of the built forest
    var store: TreeStore! = nil
    var parseSamples: [Double] = []
    var bytesPerNode = 0.0, bytesPerNodeWithViews = 0.0, bytesPerNodeEdited = 0.0, bytesPerNodeEditedWithViews = 0.0
    for run in 0 ..< (big ? 3 : 5) {
        store = nil
        let before = residentBytes()
        var built: Forest! = nil
        parseSamples.append(seconds { built = try! Forest.parse(bytes).forest })
        store = TreeStore(forest: built)
        built = nil
        // The first build is measured: later ones reuse memory the allocator kept.
        if run == 0 {
            bytesPerNode = Double(residentBytes() - before) / Double(store.forest.count)
            // The same store with the four filtered views of the edit ops kept (in a copy
            // that shares the forest, dropped right after).
            func perNodeWithViews() -> Double {
                var withViews = store!
                for f in editFilters(d) { try! withViews.prepareView(f) }
                return withExtendedLifetime(withViews) { Double(residentBytes() - before) / Double(store.forest.count) }
            }
            bytesPerNodeWithViews = perNodeWithViews()
            // The unfiltered view only, after a first edit (one node inserted as the first
            // child of the first root): a built forest has no gaps in its position columns,
            // its first insertion spreads them, and that is the size an edited session
            // keeps. The columns it replaced are freed and their pages given back first.
            let one = Array("[{\"title\":\"Level 1, item: 1\"}]".utf8)
            let firstRoot = store.forest.children(of: nil)[0]
            let fragment = one.withUnsafeBytes { try! store.parseFragment($0, limits: ForestLimits()).fragment }
            _ = try! store.insert(fragment, .child(of: firstRoot, index: 0), nil)
            ProcessMemory.returnFreedMemory()
            bytesPerNodeEdited = Double(residentBytes() - before) / Double(store.forest.count)
            // And the four views kept on that edited forest (in a copy, as above).
            bytesPerNodeEditedWithViews = perNodeWithViews()
        }
    }
    let nodes = store.forest.count
    report(d, nodes: nodes, op: "parse", samples: parseSamples,
           extra: ["mb_per_s": Double(bytes.count) / 1e6 / median(parseSamples)])
    if formatsOnly {
        store = nil
        // TREE_BENCH_RUNS=10 (say) repeats each import more often: for profiles of the parse alone.
        let runs = ProcessInfo.processInfo.environment["TREE_BENCH_RUNS"].flatMap { Int($0) } ?? (big ? 3 : 5)
        measureFormats(d, parseMedian: median(parseSamples), nestedBytes: bytes.count, runs: runs)
        continue
    }
    if fieldRuns && !childrenOnly {
        measureFields(d, runs: big ? 5 : 9)
        if fieldsOnly { continue }
    }
    measureChildren(d, runs: big ? 5 : 9)
    if childrenOnly { continue }
    #if canImport(TreeStorage)
    measureSnapshot(d, nodes: nodes, store, parseMedian: median(parseSamples), runs: big ? 3 : 5)
    #endif

    let runs = big ? 5 : 9
    report(d, nodes: nodes, op: "collapseAll", samples: (0 ..< runs).map { _ in
        _ = store.expandAll(nil)
        return seconds { _ = store.collapseAll(nil) }
    })
    report(d, nodes: nodes, op: "expandAll", samples: (0 ..< runs).map { _ in
        _ = store.collapseAll(nil)
        return seconds { _ = store.expandAll(nil) }
    })

    // Random nodes are picked by handle, from one walk of the forest.
    let handles = allHandles(store.forest)
    guard handles.count == nodes else { fail("a walk of children(of:) found \(handles.count) nodes of \(nodes)") }
    let query = FilterQuery("item: 2")
    let filterWorkers = measureReads(d, nodes: nodes, &store!, handles: handles, query: query,
                                     filterRuns: big ? 5 : 9, rng: &rng)
    measureTyping(d, nodes: nodes, store, text: "Level 13, item: 2", rounds: big ? 3 : 5)
    // The threads that matched the titles: one per active processor, capped.
    if json {
        print("{\"dataset\":\"\(d.name)\",\"nodes\":\(nodes),\"op\":\"filter.workers\",\"workers\":\(filterWorkers),"
            + "\"active_processors\":\(ParallelWork.activeProcessors),\"cap\":\(ParallelWork.maximumWorkers)}")
    } else {
        tableRows.append((d.name, "filter.workers", "\(filterWorkers) threads",
                          "of \(ParallelWork.activeProcessors) active processors, cap \(ParallelWork.maximumWorkers)"))
    }

    if baseline {
        var naive = Baseline(store.forest)
        let runs = big ? 3 : 5
        report(d, nodes: nodes, op: "baseline.expandAll", samples: (0 ..< runs).map { _ in seconds { naive.expandAll() } })
        report(d, nodes: nodes, op: "baseline.collapseAll", samples: (0 ..< runs).map { _ in seconds { naive.collapseAll() } })
        naive.expandAll()
        report(d, nodes: nodes, op: "baseline.toggle", samples: (0 ..< (big ? 6 : 20)).map { _ in
            let node = naive.shown[Int.random(in: 0 ..< naive.shown.count, using: &rng)]
            return seconds { naive.toggle(node) }
        })
        var naiveRows = 0
        report(d, nodes: nodes, op: "baseline.filter", samples: (0 ..< runs).map { _ in seconds { naiveRows = naive.filter(Array("item: 2".utf8)) } })
        // Both must compute the same view, or the comparison means nothing.
        var check = store!
        guard naiveRows == check.rowCount(query) else {
            FileHandle.standardError.write(Data("tree-bench: baseline filter shows \(naiveRows) rows, the engine \(check.rowCount(query))\n".utf8))
            exit(1)
        }
    }

    // The edit ops (none with --edits 0): the store moves into the bench (one owner, so no
    // edit copies the forest).
    if editRuns != 0 {
        var bench = EditBench(store: store!, filters: editFilters(d), pool: NodePool(handles: handles), rng: rng)
        store = nil
        runEditOps(d, nodes: nodes, bench: &bench, reps: editRuns ?? (big ? 21 : 51),
                   batchSize: batchSize, singlesSize: batchSingles)
        measureViews(d, nodes: nodes, bench: &bench, count: viewCount)
        measureSelection(d, nodes: nodes, bench: &bench)

        // The reads again on the edited store (the position columns spread by the edits, the
        // four views kept through them), the tree fully expanded again as for `toggle`; the
        // filter is "ITEM: 2" (the same matches as "item: 2", which is one of the kept views).
        _ = bench.store.expandAll(nil)
        _ = measureReads(d, nodes: bench.store.forest.count, &bench.store, handles: allHandles(bench.store.forest),
                         query: FilterQuery("ITEM: 2"), filterRuns: big ? 5 : 9, rng: &bench.rng, suffix: ".edited")
    }

    if json {
        print("{\"dataset\":\"\(d.name)\",\"nodes\":\(nodes),\"op\":\"memory\",\"bytes_per_node\":\(String(format: "%.1f", bytesPerNode))}")
        print("{\"dataset\":\"\(d.name)\",\"nodes\":\(nodes),\"op\":\"memory.views4\",\"bytes_per_node\":\(String(format: "%.1f", bytesPerNodeWithViews))}")
        print("{\"dataset\":\"\(d.name)\",\"nodes\":\(nodes),\"op\":\"memory.edited\",\"bytes_per_node\":\(String(format: "%.1f", bytesPerNodeEdited))}")
        print("{\"dataset\":\"\(d.name)\",\"nodes\":\(nodes),\"op\":\"memory.edited.views4\",\"bytes_per_node\":\(String(format: "%.1f", bytesPerNodeEditedWithViews))}")
    } else {
        tableRows.append((d.name, "memory", String(format: "%.1f B/node", bytesPerNode), "resident, titles included, unfiltered view only"))
        tableRows.append((d.name, "memory.views4", String(format: "%.1f B/node", bytesPerNodeWithViews),
                          "the same with the 4 filtered views of the edit ops kept"))
        tableRows.append((d.name, "memory.edited", String(format: "%.1f B/node", bytesPerNodeEdited),
                          "unfiltered view only, after the first insertion (freed pages given back)"))
        tableRows.append((d.name, "memory.edited.views4", String(format: "%.1f B/node", bytesPerNodeEditedWithViews),
                          "the same with the 4 filtered views kept"))
    }
}

if !json {
    print("dataset  op                    median        notes")
    for (d, op, m, notes) in tableRows {
        print(d.padding(toLength: 8, withPad: " ", startingAt: 0), op.padding(toLength: 21, withPad: " ", startingAt: 0),
              m.padding(toLength: 13, withPad: " ", startingAt: 0), notes)
    }
}
