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

    /// Indexing on two threads, each filling the buckets of one half of the table: ids whose
    /// probes start just before the middle run past it and are placed after both halves,
    /// found again, and a duplicate among them is found.
    @Test func probesThatCrossTheMiddleArePlacedAfterBothHalves() {
        for withDuplicate in [false, true] {
            var table = IDTable()
            table.reserve(5_000)
            let mask = table.buckets.count - 1
            let middle = table.buckets.count / 2
            #expect(table.buckets.count >= 1 << 13, "two halves need two partitions")
            // 60 ids starting in the 12 buckets before the middle, 200 anywhere.
            var crossing: [String] = [], others: [String] = []
            var n = 0
            while crossing.count < 60 || others.count < 200 {
                n += 1
                let id = "id-\(n)"
                let home = Int(truncatingIfNeeded: id.utf8CString.withUnsafeBytes { IDTable.hash(UnsafeRawBufferPointer(rebasing: $0.dropLast())) }) & mask
                if home >= middle - 12 && home < middle { if crossing.count < 60 { crossing.append(id) } } else if others.count < 200 { others.append(id) }
            }
            var ids = others + crossing
            if withDuplicate { ids.append(crossing[59]) }
            var slots: [Slot] = [], hashes: [UInt64] = []
            for (k, id) in ids.enumerated() {
                var text = id
                text.withUTF8 { key in
                    table.store(slot: Slot(k), key: UnsafeRawBufferPointer(key), form: .string)
                    hashes.append(IDTable.hash(UnsafeRawBufferPointer(key)))
                }
                slots.append(Slot(k))
            }
            let duplicate = table.indexDeferred(slots, hashes: hashes, halves: 2)
            if withDuplicate {
                #expect(duplicate == Slot(ids.count - 1))
                continue
            }
            #expect(duplicate == nil)
            for (k, id) in ids.enumerated() {
                var text = id
                #expect(text.withUTF8 { table.slot(forKey: UnsafeRawBufferPointer($0)) } == Slot(k), "\(id)")
            }
            #expect(table.count == ids.count)
            // Some were placed past the middle.
            #expect((middle ..< middle + 40).contains { table.buckets[$0] >= Slot(others.count) })
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
