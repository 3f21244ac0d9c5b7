import Testing
@testable import TreeEngine
@testable import TreeReference

/// The builder stages the columns of the nodes it began last (`NodeStage`) and appends them
/// to the forest's columns in batches. A node's end, title and flags are written wherever the
/// node is by then: still staged, or already flushed (an ancestor ending after many
/// descendants, `setHasChildren(_:slot:)` on a node begun long before, ids set late).
@Suite struct NodeStageTests {
    /// What a node must read back as.
    struct Expected {
        var level = 0, parent = -1, size = 1
        var title = "", id: String? = nil
        var expanded = false, declaresChildren = false
    }

    /// Random events into `builder`: nodes at random depths, flags set on the open node and
    /// on random earlier nodes, some ids. Returns what each node (by slot) must be.
    static func fill(_ builder: inout ForestBuilder, seed: UInt64, count: Int, idPrefix: String = "id") throws -> [Expected] {
        var rng = SeededRandom(seed: seed)
        var nodes: [Expected] = []
        var open: [Int] = []
        while nodes.count < count || !open.isEmpty {
            if nodes.count < count && (open.isEmpty || rng.next() % 3 != 0) {
                try builder.beginNode()
                let slot = nodes.count
                var node = Expected(level: open.count, parent: open.last ?? -1, title: "t\(slot)-\(rng.next() % 1000)")
                var title = node.title
                try title.withUTF8 { try builder.setTitle(UnsafeRawBufferPointer($0)) }
                if rng.next() % 4 == 0 {
                    var id = "\(idPrefix)\(slot)"
                    node.id = id
                    try id.withUTF8 { try builder.setStringID(UnsafeRawBufferPointer($0)) }
                }
                if rng.next() % 2 == 0 {
                    node.expanded = rng.next() % 2 == 0
                    builder.setExpanded(node.expanded)
                }
                for ancestor in open { nodes[ancestor].size += 1 }
                nodes.append(node)
                open.append(slot)
            } else {
                builder.endNode()
                open.removeLast()
            }
            if !nodes.isEmpty && rng.next() % 5 == 0 {
                // Any node begun so far, staged or long flushed.
                let slot = Int(rng.next() % UInt64(nodes.count))
                nodes[slot].declaresChildren = rng.next() % 2 == 0
                builder.setHasChildren(nodes[slot].declaresChildren, slot: slot)
            }
        }
        return nodes
    }

    static func expect(_ forest: Forest, _ nodes: [Expected], _ label: String) {
        #expect(forest.count == nodes.count, "\(label)")
        for (slot, node) in nodes.enumerated() {
            let handle = forest.node(atPosition: Position(slot))
            #expect(forest.level(of: handle) == node.level, "\(label): level of \(slot)")
            #expect(forest.parent(of: handle).map { forest.position(of: $0).offset } ?? -1 == node.parent, "\(label): parent of \(slot)")
            #expect(forest.subtreeCount(handle) == node.size, "\(label): subtree of \(slot)")
            #expect(forest.title(of: handle) == node.title, "\(label): title of \(slot)")
            #expect(forest.isExpandedUnfiltered(handle) == node.expanded, "\(label): expanded \(slot)")
            #expect(forest.declaresChildren(handle) == node.declaresChildren, "\(label): declares children \(slot)")
            if let id = node.id {
                #expect(forest.node(withID: id) == handle, "\(label): id of \(slot)")
            } else {
                #expect(forest.id(of: handle).description == "~\(slot)", "\(label): implicit id of \(slot)")
            }
        }
    }

    /// The smallest stage (16 nodes: many flushes) and the largest, ids checked as they come
    /// and in bulk.
    @Test(arguments: [1, 2, 3, 4])
    func nodesReadBackWhereverTheyWereWritten(seed: UInt64) throws {
        for (expectedNodes, defers) in [(1, false), (1, true), (50_000, false), (50_000, true)] {
            var builder = ForestBuilder(expectedNodes: expectedNodes)
            builder.defersIDChecks = defers
            let nodes = try Self.fill(&builder, seed: seed, count: 2_000)
            let label = "seed \(seed), stage for \(expectedNodes) nodes, deferred \(defers)"
            Self.expect(builder.finishExpectingUniqueIDs(label), nodes, label)
        }
    }

    /// Two builders joined: the first goes on staging after the part's nodes.
    @Test func stagingGoesOnAfterAJoin() throws {
        var first = ForestBuilder(expectedNodes: 1)
        first.defersIDChecks = true
        var nodes = try Self.fill(&first, seed: 7, count: 100)
        var part = ForestBuilder(expectedNodes: 1)
        part.defersIDChecks = true
        let partNodes = try Self.fill(&part, seed: 8, count: 100, idPrefix: "part")
        let roots = partNodes.filter { $0.parent < 0 }.count
        #expect(first.appendPart(&part, under: Array(repeating: -1, count: roots)))
        for var node in partNodes {
            if node.parent >= 0 { node.parent += 100 }
            nodes.append(node)
        }
        try first.beginNode()
        var title = "after"
        try title.withUTF8 { try first.setTitle(UnsafeRawBufferPointer($0)) }
        first.setExpanded(true)
        first.setHasChildren(true, slot: 150)
        nodes[150].declaresChildren = true
        first.endNode()
        nodes.append(Expected(level: 0, parent: -1, title: "after", expanded: true))
        Self.expect(first.finishExpectingUniqueIDs("joined"), nodes, "joined")
    }
}
