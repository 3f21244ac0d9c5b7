import Testing
@testable import TreeEngine
@testable import TreeReference

/// Issue 11: the model test's random stores, after random edits, expansion changes and
/// filtered views, round-trip through their snapshot image (`ModelRun.checkImage`), and
/// the run goes on with the loaded store (ids generated after a load stay unique and
/// views keep following edits), then round-trips again.
@Suite struct ImageModelTests {
    static let seedCount = max(80, ModelTests.seedCount / 2)
    static let parts = 4

    @Test(arguments: 0 ..< parts)
    func randomStoresRoundTrip(part: Int) {
        var images = 0
        defer { print("randomStoresRoundTrip part \(part): \(images) images") }
        let seeds = ModelTests.singleSeed.map { part == 0 ? [$0] : [] }
            ?? stride(from: UInt64(part), to: UInt64(Self.seedCount), by: Self.parts).map { $0 &+ 2_000_000 }
        for seed in seeds {
            let run = ModelRun(seed: seed, verbose: ModelTests.verbose)
            if !run.failed { run.checkImage("fresh upload") }
            for round in 0 ..< 2 where !run.failed {
                run.run(steps: run.rng.int(5 ... 30))
                // Name some views, so that several are kept (least recently used first).
                for v in (0 ... run.filters.count).shuffled(using: &run.rng) where !run.failed && run.rng.chance(0.7) {
                    run.checkView(v, "before image \(round)")
                }
                if !run.failed { run.checkImage("round \(round)") }
                images += 1
            }
            if !run.failed { run.run(steps: 5) }
            if run.failed {
                Issue.record(Comment(rawValue: run.report))
                return
            }
        }
    }
}
