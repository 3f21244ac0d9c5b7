import Foundation
import Testing
@testable import TreeEngine
import TreeFormats
@testable import TreeReference

/// The backbone: the engine against a naive recursive reference (`ReferenceForest`)
/// on seeded random trees and operation sequences.
///
/// `MODEL_SEEDS=N` runs N seeds (default below), `MODEL_SEED=S` runs only seed S,
/// `MODEL_VERBOSE=1` prints every operation before it runs (for crashes).
///
/// Issue 10: the reference keeps filtered views through edits (`ReferenceForest.editDone`),
/// every kept view is checked after each step (`ModelRun.checkKeptViews`), and batches run
/// in `TreeStore.transaction` (`ModelRun+Batch.swift`), some with an invalid operation at
/// a random place, after which nothing may have changed.
@Suite struct ModelTests {
    static let environment = ProcessInfo.processInfo.environment
    static let seedCount = environment["MODEL_SEEDS"].flatMap { Int($0) } ?? 320
    /// Trees for `exportRoundTrip`: half as many as `MODEL_SEEDS`, at least 400.
    static let exportSeedCount = max(400, seedCount / 2)
    static let singleSeed = environment["MODEL_SEED"].flatMap { UInt64($0) }
    static let verbose = environment["MODEL_VERBOSE"] != nil
    /// Seeds are split into this many test cases, which run in parallel.
    static let parts = 8

    static func seeds(part: Int) -> [UInt64] {
        if let singleSeed { return part == 0 && singleSeed < viewSeedBase ? [singleSeed] : [] }
        return stride(from: part, to: seedCount, by: parts).map { UInt64($0) }
    }

    /// Issue 35: seeds of `randomViewOperations` start here (`MODEL_SEED` picks the test).
    static let viewSeedBase: UInt64 = 3_000_000
    /// `VIEW_SEEDS=N` runs N seeds of `randomViewOperations`.
    static let viewSeedCount = environment["VIEW_SEEDS"].flatMap { Int($0) } ?? 120

    static func viewSeeds(part: Int) -> [UInt64] {
        if let singleSeed { return part == 0 && singleSeed >= viewSeedBase ? [singleSeed] : [] }
        return stride(from: part, to: viewSeedCount, by: parts).map { viewSeedBase + UInt64($0) }
    }

    @Test(arguments: 0 ..< parts)
    func randomOperations(part: Int) {
        var failures = 0
        var ops = 0, nodes = 0, narrowed = 0
        let seeds = Self.seeds(part: part)
        defer {
            print("randomOperations part \(part): \(seeds.count) seeds, \(nodes) uploaded nodes, \(ops) operations, "
                + "\(narrowed) views built by narrowing a kept one")
        }
        for seed in seeds {
            let run = ModelRun(seed: seed, verbose: Self.verbose)
            let uploaded = run.model.allNodes.count
            defer { ops += run.log.count - 1; nodes += uploaded; narrowed += run.store.narrowedBuilds }
            // Mostly shorter sequences; long ones on small and middling trees.
            let n = run.model.allNodes.count
            let steps = n > 100 ? run.rng.int(20 ... 50) : run.rng.chance(0.25) ? run.rng.int(100 ... 200) : run.rng.int(20 ... 80)
            run.run(steps: steps)
            if run.failed {
                Issue.record(Comment(rawValue: run.report))
                failures += 1
                if failures >= 2 { return }
            }
        }
    }

    /// Issue 35: views besides the default one (`ModelRun+Views.swift`): 1–6 views with
    /// random starts, created and deleted on the way; expansion, filters and edits through
    /// random views; every view and each of its kept filtered states checked after each
    /// step, every view's splices observed, and no splice where nothing was edited.
    @Test(arguments: 0 ..< parts)
    func randomViewOperations(part: Int) {
        var failures = 0
        var ops = 0, views = 0
        let seeds = Self.viewSeeds(part: part)
        defer { print("randomViewOperations part \(part): \(seeds.count) seeds, \(ops) operations, \(views) views at the end") }
        for seed in seeds {
            let run = ModelRun(seed: seed, views: true, verbose: Self.verbose)
            defer { ops += run.log.count - 1; views += run.model.views.count }
            let n = run.model.allNodes.count
            let steps = n > 100 ? run.rng.int(15 ... 30) : run.rng.int(20 ... 60)
            run.run(steps: steps)
            if run.failed {
                Issue.record(Comment(rawValue: run.report))
                failures += 1
                if failures >= 2 { return }
            }
        }
    }

    @Test(arguments: 0 ..< 2)
    func exportRoundTrip(part: Int) {
        for seed in stride(from: UInt64(part), to: UInt64(Self.singleSeed == nil ? Self.exportSeedCount : 0), by: 2) {
            let run = ModelRun(seed: seed &+ 1_000_000, verbose: Self.verbose)
            run.checkExport("fresh upload")
            if !run.failed { run.run(steps: 10) }
            if run.failed {
                Issue.record(Comment(rawValue: run.report))
                return
            }
        }
    }

    /// Past 65,536 nodes the engine matches titles on several threads.
    @Test func largeTreeAgainstReference() {
        let run = ModelRun(seed: 424_242, size: 66_000)
        run.run(steps: 2)
        if run.failed {
            run.treeJSON = "(large)"
            Issue.record(Comment(rawValue: run.report))
        }
    }

    /// Long titles, data and ids replaced and deleted many times: the byte pools compact
    /// (garbage over 64 KiB) and everything still reads back right.
    @Test(arguments: 0 ..< 2)
    func poolCompactionUnderChurn(part: Int) {
        let run = ModelRun(seed: 9_000 + UInt64(part), size: 12 + 10 * part)
        run.bigPayloads = true
        func shrank(_ sizes: [Int]) -> Bool { zip(sizes, sizes.dropFirst()).contains { $0 > $1 } }
        // Up to three rounds of 250 steps, until every pool has compacted: whether one does in
        // a round depends on how much its garbage reaches, which the seed's ops decide.
        for _ in 0 ..< 3 {
            run.run(steps: 250)
            if run.failed {
                Issue.record(Comment(rawValue: run.report))
                return
            }
            if shrank(run.poolSizes.map(\.titles)) && shrank(run.poolSizes.map(\.data)) && shrank(run.poolSizes.map(\.ids)) { break }
        }
        #expect(shrank(run.poolSizes.map(\.titles)), "the title pool never compacted")
        #expect(shrank(run.poolSizes.map(\.data)), "the data pool never compacted")
        #expect(shrank(run.poolSizes.map(\.ids)), "the id pool never compacted")
    }

    /// 2,500 roots with one child each, every other one expanded: expanding or
    /// collapsing all of them changes rows at 1,250 places.
    static func twoThousandFiveHundredPairs() throws -> TreeStore {
        let nodes = (0 ..< 2_500).map { i in
            #"{"id":\#(i),"title":"r\#(i)","expanded":\#(i % 2 == 0),"children":[{"title":"c\#(i)"}]}"#
        }
        return TreeStore(forest: try Forest.parse(Array(("[" + nodes.joined(separator: ",") + "]").utf8)).forest)
    }

    /// The rows of the unfiltered view as (id, level).
    static func rowKeys(_ store: TreeStore) -> [RefKey] {
        var store = store
        return store.rows(nil, offset: 0, limit: store.rowCount(nil)).map {
            RefKey(id: store.forest.id(of: $0.node).description, level: $0.level)
        }
    }

    /// A change with more than `Splice.maximumCount` splices ends in one splice to the end.
    @Test func manySplicesStayCorrect() throws {
        var store = try Self.twoThousandFiveHundredPairs()
        func keys() -> [RefKey] { Self.rowKeys(store) }
        let run = ModelRun(seed: 0, size: 0)
        for step in 0 ..< 2 {
            let old = keys()
            let splices = step == 0 ? store.expandAll(nil) : store.collapseAll(nil)
            #expect(splices.count <= Splice.maximumCount)
            run.checkSplices(splices, old: old, new: keys(), "step \(step)")
        }
        #expect(store.rowCount(nil) == 2_500)
        #expect(run.problems.isEmpty, Comment(rawValue: run.problems.joined(separator: "\n")))
    }

    /// `Splice.sequence` of a batch's changes, short (the list itself) and past
    /// `Splice.maximumCount` (one bounding splice), turns the rows before into the rows after.
    @Test(arguments: [false, true])
    func spliceSequenceOfABatch(pastMaximum: Bool) throws {
        var store = try Self.twoThousandFiveHundredPairs()
        func keys() -> [RefKey] { Self.rowKeys(store) }
        let old = keys()
        let all = store.transaction { (s: inout TreeStore) -> [Splice] in
            // expandAll opens 1,250 roots: it lists Splice.maximumCount splices, the last to the end.
            var all = pastMaximum ? s.expandAll(nil) : []
            for i in [7, 4, 1_001, 9] { all += s.setExpanded(s.forest.node(withID: "\(i)")!, i % 2 == 1, nil) }
            return all
        }
        let combined = Splice.sequence(all, oldTotal: old.count)
        #expect(combined.count == (pastMaximum ? 1 : 4), "\(combined)")
        let run = ModelRun(seed: 0, size: 0)
        run.checkSplices(combined, old: old, new: keys(), "Splice.sequence")
        #expect(run.problems.isEmpty, Comment(rawValue: run.problems.joined(separator: "\n")))
    }

    /// Every mode and option on random Unicode titles: the engine's matching, ranges and
    /// fuzzy score against the reference's definitions (`RefTitle`).
    /// `MATCH_SEED=S` picks another seed, `MATCH_TITLES=N` tries N titles (30,000).
    @Test func matchRangesAgainstReference() {
        var rng = SeededRandom(seed: Self.environment["MATCH_SEED"].flatMap { UInt64($0) } ?? 77)
        var failures: [String] = []
        var matched = [FilterQuery.Mode: Int]()
        for _ in 0 ..< (Self.environment["MATCH_TITLES"].flatMap { Int($0) } ?? 30_000) where failures.count < 10 {
            let title = RandomTrees.title(&rng)
            let mode = rng.pick(FilterQuery.Mode.allCases)
            var text = rng.chance(0.5) && !title.isEmpty
                ? String(title.unicodeScalars.dropFirst(rng.int(0 ... title.unicodeScalars.count - 1)).prefix(rng.int(1 ... 3)))
                : RandomTrees.title(&rng)
            if rng.chance(0.3) { text = text.uppercased() }
            RandomTrees.vary(&text, mode: mode, &rng)
            if text.isEmpty { text = rng.pick(RandomTrees.titlePieces) }
            let filter = FilterQuery(text, mode: mode, caseSensitive: rng.chance(0.3), diacriticInsensitive: rng.chance(0.5))
            let bytes = Array(title.utf8)
            let got = bytes.withUnsafeBytes { TreeStore.matchRanges(title: $0, filter: filter) }.map { [$0.start, $0.length] }
            let node = RefNode(id: nil, title: title, expanded: false, declaresChildren: false, data: nil)
            let matches = ReferenceForest.matches(node, filter)
            let engineMatches = bytes.withUnsafeBytes { raw in
                var scratch: [UInt8] = []
                return TitleMatcher(filter).matches(raw, scratch: &scratch)
            }
            if matches { matched[mode, default: 0] += 1 }
            let what = "title \(title.debugDescription) \(title.unicodeScalars.map { String($0.value, radix: 16) }) [\(filter)]"
            if engineMatches != matches { failures.append("\(what): engine matches \(engineMatches), reference \(matches)") }
            guard let want = ReferenceForest.matchRanges(title: title, filter) else { continue }
            if got != want {
                failures.append("\(what): engine \(got), reference \(want)")
            } else if !want.isEmpty && !matches {
                failures.append("\(what): ranges \(want) but no match")
            }
            if mode == .fuzzy {
                let score = bytes.withUnsafeBytes { TreeStore.fuzzyScore(title: $0, filter: filter) }
                let expected = ReferenceForest.fuzzyScore(title: title, filter)
                if let expected, let wanted = expected, score != wanted { failures.append("\(what): score \(score.map(String.init) ?? "nil"), reference \(wanted)") }
                if expected == nil && score != nil { failures.append("\(what): score \(score!) but no match") }
            }
        }
        #expect(failures.isEmpty, Comment(rawValue: failures.joined(separator: "\n")))
        for mode in FilterQuery.Mode.allCases { #expect(matched[mode, default: 0] > 50, "few \(mode) matches: \(matched)") }
    }
}
