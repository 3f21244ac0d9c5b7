import Testing
@testable import TreeEngine
@testable import TreeReference

/// Ids recorded while building and indexed all at once (`ForestBuilder.defersIDChecks`,
/// `IDTable.indexDeferred`), against a `Set`: on random ids, few enough distinct ones that
/// duplicates come up, in forests large enough for the table to be filled in many partitions.
@Suite struct DeferredIDTests {
    /// A flat forest of `ids` (integers when they parse as one; nil: a node without an id),
    /// built with deferred checks.
    static func build(_ ids: [String?]) throws -> (ForestBuilder, Bool) {
        var builder = ForestBuilder()
        builder.defersIDChecks = true
        for id in ids {
            try builder.beginNode()
            guard let id else {
                builder.endNode()
                continue
            }
            if let n = Int64(id), String(n) == id {
                try builder.setIntegerID(n)
            } else {
                var text = id
                try text.withUTF8 { try builder.setStringID(UnsafeRawBufferPointer($0)) }
            }
            builder.endNode()
        }
        let unique = builder.indexDeferredIDs()
        return (builder, unique)
    }

    @Test(arguments: [(1, 10), (2, 300), (3, 5_000), (4, 40_000), (5, 150_000)])
    func deferredIndexingAgreesWithASet(seed: UInt64, count: Int) throws {
        var rng = SeededRandom(seed: seed)
        for round in 0 ..< 6 {
            // Even rounds: all distinct; odd: drawn from about `count` values (duplicates).
            // From round 2 on some nodes have no id (the slots with ids stop following one
            // another: first at a random place, then from the first node on).
            let distinct = round % 2 == 0
            let idless = round < 2 ? count : round < 4 ? Int(rng.next() % UInt64(count)) : 0
            let ids = (0 ..< count).map { k -> String? in
                let n = distinct ? k : Int(rng.next() % UInt64(count * 3))
                if k >= idless, rng.next() % 4 == 0 { return nil }
                switch (n + round) % 3 {
                case 0: return String(n)
                case 1: return "node-\(n)-" + String(repeating: "x", count: n % 23)
                default: return "/path/\(n % 7)/\(n)"
                }
            }
            let named = ids.compactMap { $0 }
            let expected = Set(named).count == named.count
            var (builder, unique) = try Self.build(ids)
            #expect(unique == expected, "seed \(seed) round \(round)")
            guard unique else { continue }
            let forest = builder.finish()
            for (k, id) in ids.enumerated() {
                guard let id else { continue }
                let node = forest.node(withID: id)
                #expect(node.map { forest.position(of: $0) } == Position(k), "id \(id)")
            }
            #expect(forest.node(withID: "absent") == nil)
            #expect(forest.node(withID: String(count * 10)) == nil)
        }
    }

    /// Runs of deferred ids against plain arrays: slots kept only once they stop following
    /// one another, moved, and walked across runs in any range.
    @Test func deferredRunsAgreeWithArrays() {
        var rng = SeededRandom(seed: 11)
        for _ in 0 ..< 200 {
            var runs: [DeferredIDs] = [], model: [(UInt64, Slot)] = []
            for _ in 0 ..< Int(rng.next() % 4) + 1 {
                var run = DeferredIDs(), items: [(UInt64, Slot)] = []
                var slot = Slot(Int(rng.next() % 50))
                for _ in 0 ..< Int(rng.next() % 40) {
                    slot = Slot(slot.index + (rng.next() % 8 == 0 ? Int(rng.next() % 5) + 2 : 1))
                    let hash = rng.next()
                    run.append(slot: slot, hash: hash)
                    items.append((hash, slot))
                }
                let shift = Int32(rng.next() % 1000)
                run.moveSlots(by: shift)
                runs.append(run)
                model += items.map { ($0.0, Slot(rawValue: $0.1.rawValue + shift)) }
            }
            #expect(runs.reduce(0) { $0 + $1.count } == model.count)
            let a = Int(rng.next() % UInt64(model.count + 1)), b = Int(rng.next() % UInt64(model.count + 1))
            let range = min(a, b) ..< max(a, b)
            var seen: [(UInt64, Slot)] = []
            DeferredIDs.forEach(in: runs, range) { seen.append(($0, $1)) }
            #expect(seen.map(\.0) == model[range].map(\.0) && seen.map(\.1) == model[range].map(\.1))
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
            let duplicate = IDTable.$indexingHalves.withValue(2) { table.indexDeferred(slots, hashes: hashes) }
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
            #expect((middle ..< middle + 40).contains { table.buckets[$0] >= Int32(others.count) })
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
