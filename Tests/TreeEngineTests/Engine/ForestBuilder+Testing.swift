import Testing
@testable import TreeEngine

extension ForestBuilder {
    /// The forest, its ids indexed first when they were deferred (expecting no duplicate).
    mutating func finishExpectingUniqueIDs(_ label: String) -> Forest {
        if defersIDChecks {
            let unique = indexDeferredIDs()
            #expect(unique, "\(label): no duplicate id")
        }
        return finish()
    }
}
