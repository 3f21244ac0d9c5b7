import Foundation
import Testing
@testable import TreeEngine
import TreeFormats
@testable import TreeReference

/// The filter examples from SwiftListTreeDataSource's own tests, on the outline sample:
/// everything collapsed, then filtered.
@Suite struct SeedExampleTests {
    static func sampleStore() throws -> TreeStore {
        TreeStore(forest: try Forest.parse(TestData.outlineSample).forest)
    }

    @Test(arguments: [
        ("Compositional", 1, 1), ("Supp", 3, 1), ("Gr", 8, 5), ("Grid", 5, 3),
        ("Li", 9, 8), ("L", 23, 22), ("Ce", 8, 6),
    ])
    func filterKeepingParents(text: String, visible: Int, matches: Int) throws {
        var store = try Self.sampleStore()
        _ = store.collapseAll(nil)
        let query = FilterQuery(text)
        #expect(store.rowCount(query) == visible)
        #expect(store.matchCount(query) == matches)
    }

    @Test func unfilteredSampleCollapsedShowsRoots() throws {
        var store = try Self.sampleStore()
        _ = store.collapseAll(nil)
        #expect(store.rowCount(nil) == 5)
        let splices = store.expandAll(nil)
        #expect(store.rowCount(nil) == store.forest.count)
        #expect(!splices.isEmpty)
    }

    @Test func matchRangesInUTF16() {
        let title = Array("Gr😀gr GR".utf8)
        let ranges = title.withUnsafeBytes { TreeStore.matchRanges(title: $0, filter: FilterQuery("gr")) }
        #expect(ranges.map { [$0.start, $0.length] } == [[0, 2], [4, 2], [7, 2]])
    }
}
