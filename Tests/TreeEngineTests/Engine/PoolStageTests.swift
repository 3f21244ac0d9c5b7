import Testing
@testable import TreeEngine
@testable import TreeReference

/// The builder writes titles, data and ids (checked in bulk) through small stages flushed
/// into the pools in batches (`PoolStage`): every entry reads back whole wherever it fell
/// (inside a batch, across a flush, larger than a stage), also after two builders join.
@Suite struct PoolStageTests {
    /// Lengths around the stage's size and the LEB128 boundaries, and small ones.
    static func length(_ rng: inout SeededRandom) -> Int {
        switch rng.next() % 10 {
        case 0: return PoolStage.maxCapacity - 8 + Int(rng.next() % 16)
        case 1: return PoolStage.maxCapacity * 2 + Int(rng.next() % 100)
        case 2: return 120 + Int(rng.next() % 20)
        case 3: return 0
        default: return Int(rng.next() % 40)
        }
    }

    static func text(_ rng: inout SeededRandom, _ tag: String) -> String {
        tag + String(repeating: "abcdefghij", count: length(&rng) / 10 + 1).prefix(length(&rng))
    }

    /// A flat run of `count` nodes with random titles, data and ids, built into `builder`.
    static func fill(_ builder: inout ForestBuilder, _ rng: inout SeededRandom, count: Int, prefix: String)
        throws -> [(id: String, title: String, data: String?)] {
        var nodes: [(id: String, title: String, data: String?)] = []
        for k in 0 ..< count {
            let node = (id: "\(prefix)\(k)-" + String(repeating: "i", count: Int(rng.next() % 30)),
                        title: text(&rng, "t\(k)"), data: rng.next() % 3 == 0 ? nil : "\"" + text(&rng, "d\(k)") + "\"")
            try builder.beginNode()
            var title = node.title, id = node.id
            try title.withUTF8 { try builder.setTitle(UnsafeRawBufferPointer($0)) }
            try id.withUTF8 { try builder.setStringID(UnsafeRawBufferPointer($0)) }
            if var data = node.data { try data.withUTF8 { try builder.setData(UnsafeRawBufferPointer($0)) } }
            builder.endNode()
            nodes.append(node)
        }
        return nodes
    }

    static func expectNodes(_ forest: Forest, _ nodes: [(id: String, title: String, data: String?)], _ label: String) {
        #expect(forest.count == nodes.count, "\(label)")
        for (k, node) in nodes.enumerated() {
            guard let handle = forest.node(withID: node.id) else {
                Issue.record("\(label): id \(node.id) not found")
                continue
            }
            #expect(forest.position(of: handle) == Position(k), "\(label): node \(k)")
            #expect(forest.title(of: handle) == node.title, "\(label): title of node \(k)")
            #expect(forest.data(of: handle).map { String(decoding: $0, as: UTF8.self) } == node.data, "\(label): data of node \(k)")
        }
    }

    @Test(arguments: [1, 2, 3])
    func entriesReadBackWhole(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        // Stages of the most room (a body of unknown size), and of the least (a small insert).
        for (defers, expectedBytes) in [(true, 0), (false, 0), (true, 300), (false, 300)] {
            var builder = ForestBuilder(expectedBytes: expectedBytes)
            builder.defersIDChecks = defers
            let nodes = try Self.fill(&builder, &rng, count: 300, prefix: "n")
            let label = "seed \(seed), deferred \(defers), stages for \(expectedBytes) bytes"
            Self.expectNodes(builder.finishExpectingUniqueIDs(label), nodes, label)
        }
    }

    /// Ids checked as they come after some were staged (a builder that stops deferring):
    /// an id checked at once goes straight into the pool, after the staged ones.
    @Test func immediateIDsAfterStagedOnes() throws {
        var rng = SeededRandom(seed: 9)
        var builder = ForestBuilder()
        builder.defersIDChecks = true
        let staged = try Self.fill(&builder, &rng, count: 40, prefix: "s")
        builder.defersIDChecks = false
        let immediate = try Self.fill(&builder, &rng, count: 40, prefix: "i")
        let unique = builder.indexDeferredIDs()
        #expect(unique)
        Self.expectNodes(builder.finish(), staged + immediate, "staged, then immediate")
    }

    /// Two builders joined (`appendPart`): the part's staged entries come along, moved.
    @Test(arguments: [4, 5])
    func joinedPartsKeepTheirEntries(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        var first = ForestBuilder(), second = ForestBuilder()
        first.defersIDChecks = true
        second.defersIDChecks = true
        let a = try Self.fill(&first, &rng, count: 120, prefix: "a")
        let b = try Self.fill(&second, &rng, count: 150, prefix: "b")
        #expect(first.appendPart(&second, under: Array(repeating: -1, count: b.count)))
        Self.expectNodes(first.finishExpectingUniqueIDs("seed \(seed)"), a + b, "seed \(seed)")
    }
}
