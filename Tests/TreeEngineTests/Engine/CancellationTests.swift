import Testing
@testable import TreeEngine

/// A cancelled filter build changes nothing; a finished one keeps its view.
@Suite struct CancellationTests {
    @Test func aCancelledFilterBuildLeavesTheStoreAsItWas() throws {
        var store = try SeedExampleTests.sampleStore()
        #expect(throws: TreeStore.Cancelled.self) { try store.prepareView(FilterQuery("Grid")) { true } }
        #expect(!store.hasView(FilterQuery("Grid")))
        #expect(store.keptFilters.isEmpty)
        try store.prepareView(FilterQuery("Grid")) { false }
        #expect(store.keptFilters == [FilterQuery("Grid")])
    }
}
