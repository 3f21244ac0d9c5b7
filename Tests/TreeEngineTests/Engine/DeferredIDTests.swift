import Testing
@testable import TreeEngine
@testable import TreeReference

/// Ids recorded while building and indexed all at once (`ForestBuilder.defersIDChecks`,
/// `IDTable.indexDeferred`), against a `Set`: on random ids, few enough distinct ones that
/// duplicates come up, in forests large enough for the table to be filled in many partitions.
@Suite struct DeferredIDTests {
    /// A flat forest of `ids` (integers when they parse as one), built with deferred checks.
    static func build(_ ids: [String]) throws -> (ForestBuilder, Bool) {
        var builder = ForestBuilder()
        builder.defersIDChecks = true
        for id in ids {
            try builder.beginNode()
            if let n = Int64(id), String(n) == id {
                try builder.setIntegerID(n)
            } else {
                var text = id
                try text.withUTF8 { try builder.setStringID(UnsafeRawBufferPointer($0)) }
            }
            try builder.endNode()
        }
        let unique = builder.indexDeferredIDs()
        return (builder, unique)
    }

    @Test(arguments: [(1, 10), (2, 300), (3, 5_000), (4, 40_000), (5, 150_000)])
    func deferredIndexingAgreesWithASet(seed: UInt64, count: Int) throws {
        var rng = SeededRandom(seed: seed)
        for round in 0 ..< 4 {
            // Round 0 and 2: all distinct; 1 and 3: drawn from about `count` values (duplicates).
            let distinct = round % 2 == 0
            let ids = (0 ..< count).map { k -> String in
                let n = distinct ? k : Int(rng.next() % UInt64(count * 3))
                switch (n + round) % 3 {
                case 0: return String(n)
                case 1: return "node-\(n)-" + String(repeating: "x", count: n % 23)
                default: return "/path/\(n % 7)/\(n)"
                }
            }
            let expected = Set(ids).count == ids.count
            var (builder, unique) = try Self.build(ids)
            #expect(unique == expected, "seed \(seed) round \(round)")
            guard unique else { continue }
            let forest = builder.finish()
            for (k, id) in ids.enumerated() {
                let node = forest.node(withID: id)
                #expect(node.map { forest.position(of: $0) } == k, "id \(id)")
            }
            #expect(forest.node(withID: "absent") == nil)
            #expect(forest.node(withID: String(count * 10)) == nil)
        }
    }

    /// An integer id is stored as its decimal text, negative ones and the extremes too.
    @Test func integerIDsAreTheirDecimalText() throws {
        let values: [Int64] = [0, 7, -7, 10, 1_000_000, .max, .min]
        var (builder, unique) = try Self.build(values.map(String.init))
        #expect(unique)
        let forest = builder.finish()
        for value in values {
            let node = try #require(forest.node(withID: String(value)))
            forest.withID(of: node) { text, isInteger in
                #expect(String(decoding: text, as: UTF8.self) == String(value))
                #expect(isInteger)
            }
        }
    }
}
