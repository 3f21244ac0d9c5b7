import Foundation
import Testing
@testable import TreeEngine
import TreeFormats

/// How many threads a filter build uses, and that any split gives the same view.
@Suite struct ParallelWorkTests {
    @Test func workerCountFollowsTheProcessorCount() {
        let many = 10_000_000
        #expect(ParallelWork.workerCount(items: many, processors: 1) == 1)
        #expect(ParallelWork.workerCount(items: many, processors: 2) == 2)
        #expect(ParallelWork.workerCount(items: many, processors: 3) == 3)
        #expect(ParallelWork.workerCount(items: many, processors: 6) == 6)
        #expect(ParallelWork.workerCount(items: many, processors: 0) == 1)
    }

    @Test func workerCountIsCapped() {
        let many = 10_000_000
        #expect(ParallelWork.maximumWorkers == 8)
        #expect(ParallelWork.workerCount(items: many, processors: 64) == 8)
        #expect(ParallelWork.workerCount(items: many, processors: 64, cap: 16) == 16)
        #expect(ParallelWork.workerCount(items: many, processors: 12, cap: 16) == 12)
    }

    /// Small jobs stay on fewer threads: one per 32,768 items.
    @Test func smallJobsUseFewerThreads() {
        #expect(ParallelWork.workerCount(items: 0, processors: 64) == 1)
        #expect(ParallelWork.workerCount(items: 65_535, processors: 64) == 1)
        #expect(ParallelWork.workerCount(items: 65_536, processors: 64) == 2)
        #expect(ParallelWork.workerCount(items: 3 << 15, processors: 64) == 3)
    }

    @Test func theDefaultIsTheMachinesActiveProcessorCount() {
        let processors = ProcessInfo.processInfo.activeProcessorCount
        #expect(ParallelWork.activeProcessors == processors)
        #expect(ParallelWork.workerCount(items: .max) == min(processors, ParallelWork.maximumWorkers))
    }

    /// Arrays filled in two halves (from `parallelFillBytes` on) hold every element, each
    /// where it belongs: sizes on both sides of the threshold, odd ones too.
    @Test(arguments: [0, 1, 7, parallelFillBytes / 4 - 1, parallelFillBytes / 4, parallelFillBytes / 4 + 3])
    func filledArraysHoldEveryElement(count: Int) {
        let constant = ContiguousArray<Int32>.filled(with: -1, count: count)
        #expect(constant.count == count)
        #expect(constant.allSatisfy { $0 == -1 })
        let dense = Forest.denseSlots(count)
        #expect(dense.count == count)
        #expect(dense.indices.allSatisfy { dense[$0] == Int32($0) })
    }

    /// 100,000 nodes in chains of ten: the same filtered view whatever the split,
    /// and the kept view reports the threads it used.
    @Test(arguments: [1, 2, 3, 5, 8, 13])
    func everySplitBuildsTheSameView(workers: Int) throws {
        var json = "["
        for chain in 0 ..< 10_000 {
            if chain > 0 { json += "," }
            json += (0 ..< 10).map { #"{"title":"n\#(chain * 10 + $0)","children":["# }.joined()
            json += String(repeating: "]}", count: 10)
        }
        json += "]"
        let forest = try Forest.parse(Array(json.utf8)).forest
        let query = FilterQuery("77")
        var single = TreeStore(forest: forest)
        single.filterWorkers = 1
        var split = TreeStore(forest: forest)
        split.filterWorkers = workers
        try split.prepareView(query)
        #expect(split.keptFilterWorkers(query) == workers)
        #expect(split.matchCount(query) == single.matchCount(query))
        let count = single.rowCount(query)
        #expect(count > 1000)
        #expect(split.rows(query, offset: 0, limit: count) == single.rows(query, offset: 0, limit: count))
    }
}
