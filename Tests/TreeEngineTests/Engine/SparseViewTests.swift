import Testing
@testable import TreeEngine
import TreeFormats
@testable import TreeReference

/// The views' unfiltered rows (`SparseCover` over a `DepthBase`) under random toggles and
/// edits through the store: after every step each view's rows equal a walk of the forest
/// with a plain dictionary of the view's own values over its rule, and the splices each
/// view observed turn its rows before the step into its rows after. Debug builds also
/// check every cover's invariants (`TREE_INVARIANTS`) after every step.
@Suite struct SparseViewTests {
    /// A view as the test keeps it: its rule and its own values.
    struct Expected {
        var depth: Int  // Int.max: all
        var own: [Slot: Bool] = [:]

        func isExpanded(_ slot: Slot, _ forest: Forest) -> Bool {
            own[slot] ?? (forest.level(at: forest.position(ofSlot: slot)) < depth)
        }

        /// Sets a value, kept only where it differs from the rule.
        mutating func set(_ slot: Slot, _ value: Bool, _ forest: Forest) {
            own[slot] = value == (forest.level(at: forest.position(ofSlot: slot)) < depth) ? nil : value
        }
    }

    static func rows(_ expected: Expected, _ forest: Forest) -> [Slot] {
        var rows: [Slot] = []
        var p = forest.nextNode(from: Position(0))
        while p < forest.positions.upperBound {
            let slot = forest.slot(at: p)
            rows.append(slot)
            p = forest.nextNode(from: expected.isExpanded(slot, forest) ? p + 1 : forest.subtreeEnd(of: p))
        }
        return rows
    }

    static func applied(_ splices: [Splice], to old: [Slot], new: [Slot]) -> [Slot]? {
        var rows: [Slot?] = old
        for s in splices {
            guard s.index >= 0, s.index + s.removed <= rows.count else { return nil }
            rows.replaceSubrange(s.index ..< s.index + s.removed, with: repeatElement(nil, count: s.inserted))
        }
        guard rows.count == new.count else { return nil }
        return zip(rows, new).map { $0 ?? $1 }
    }

    static func randomForest(_ rng: inout SeededRandom, nodes: Int) throws -> Forest {
        var json = "["
        var open = 0
        for i in 0 ..< nodes {
            if i > 0 {
                if open > 0 && rng.chance(0.45) {
                    json += "]}"
                    open -= 1
                    while open > 0 && rng.chance(0.3) { json += "]}"; open -= 1 }
                }
                json += ","
            }
            json += #"{"id":\#(i),"title":"n\#(i)""#
            if rng.chance(0.5) { json += #","children":["#; open += 1 } else { json += "}" }
        }
        json += String(repeating: "]}", count: open) + "]"
        json = json.replacingOccurrences(of: "[,", with: "[")
        return try Forest.parse(Array(json.utf8)).forest
    }

    @Test(arguments: 0 ..< 40)
    func viewsFollowTogglesAndEdits(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        var store = TreeStore(forest: try Self.randomForest(&rng, nodes: 2 + rng.int(0 ... 150)))
        var expected: [ViewID: Expected] = [:]
        var nextID: UInt64 = 1
        var nextTitle = 10_000
        func addView() {
            let id = ViewID(nextID)
            nextID += 1
            switch rng.int(0 ... 4) {
            case 0: store.createView(id, .collapsed); expected[id] = Expected(depth: 0)
            case 1: store.createView(id, .expanded); expected[id] = Expected(depth: .max)
            case 2:
                let d = rng.int(1 ... 3)
                store.createView(id, .depth(d)); expected[id] = Expected(depth: d)
            case 3 where !expected.isEmpty:
                let source = expected.keys.sorted()[rng.int(0 ... expected.count - 1)]
                store.createView(id, .copy(of: source)); expected[id] = expected[source]
            default:
                store.createView(id, .copy(of: nil))
                var e = Expected(depth: 0)
                store.forest.forEachPosition { p in
                    let slot = store.forest.slot(at: p)
                    if store.forest.flags[slot.index].contains(.expanded) { e.set(slot, true, store.forest) }
                }
                expected[id] = e
            }
        }
        var failed = false
        func check(_ condition: Bool, _ message: @autoclosure () -> String) {
            if !condition { Issue.record(Comment(rawValue: message())); failed = true }
        }
        for _ in 0 ..< rng.int(1 ... 4) { addView() }
        for step in 0 ..< 60 {
            if store.forest.count < 2 { break }
            let ids = expected.keys.sorted()
            let id = ids[rng.int(0 ... ids.count - 1)]
            let named = rng.chance(0.8) ? ViewRef(id) : ViewRef()
            store.observedViews = Set(ids.map { ViewRef($0) })
            _ = store.takeObservedSplices()
            let before = ids.map { Self.rows(expected[$0]!, store.forest) }
            var nodes: [Slot] = []
            store.forest.forEachPosition { nodes.append(store.forest.slot(at: $0)) }
            let node = NodeHandle(slot: nodes[rng.int(0 ... nodes.count - 1)])
            var splices: [Splice]
            var toggled = false
            switch rng.int(0 ... 9) {
            case 0, 1, 2:
                let value = !store.isExpanded(node, ViewRef(id))
                splices = store.setExpanded(node, value, ViewRef(id))
                expected[id]!.set(node.slot, value, store.forest)
                toggled = true
            case 3:
                let value = rng.chance(0.5)
                splices = store.setExpanded(node, value, recursive: true, ViewRef(id))
                let p = store.forest.position(of: node)
                store.forest.forEachPosition(in: store.forest.subtree(of: p)) { q in
                    if q == p || !value || store.forest.hasChildren(atPosition: q) { expected[id]!.set(store.forest.slot(at: q), value, store.forest) }
                }
                toggled = true
            case 4:
                let choice = rng.int(0 ... 2)
                splices = choice == 0 ? store.collapseAll(ViewRef(id)) : choice == 1 ? store.expandAll(ViewRef(id)) : store.expand(toDepth: 2, ViewRef(id))
                expected[id] = Expected(depth: choice == 0 ? 0 : choice == 1 ? .max : 2)
                toggled = true
            case 5, 6:
                let count = rng.int(1 ... 3)
                let json = "[" + (0 ..< count).map { _ in nextTitle += 1; return #"{"title":"x\#(nextTitle)","children":[{"title":"y"}]}"# }.joined(separator: ",") + "]"
                let fragment = try Array(json.utf8).withUnsafeBytes { (raw) throws(TreeInputError) -> Forest in
                    try store.parseFragment(raw, limits: ForestLimits()).fragment
                }
                splices = try store.insert(fragment, rng.chance(0.3) ? .after(node) : .child(of: node, index: nil), named).splices
            case 7:
                for slot in Self.subtreeSlots(node, store.forest) { for key in expected.keys { expected[key]!.own[slot] = nil } }
                splices = store.delete(node, named)
            default:
                let target = NodeHandle(slot: nodes[rng.int(0 ... nodes.count - 1)])
                guard store.moveProblem(node, to: target, index: nil) == nil else { continue }
                splices = try store.move(node, to: target, index: nil, named)
                // Values now equal to the rule at the new level are forgotten.
                for slot in Self.subtreeSlots(node, store.forest) {
                    for key in expected.keys where expected[key]!.own[slot] != nil {
                        expected[key]!.set(slot, expected[key]!.own[slot]!, store.forest)
                    }
                }
            }
            let observed = store.takeObservedSplices()
            for (i, view) in ids.enumerated() {
                let after = Self.rows(expected[view]!, store.forest)
                let actual = store.rows(ViewRef(view), offset: 0, limit: .max).map(\.node.slot)
                check(actual == after, "seed \(seed) step \(step): rows of view \(view)")
                check(store.rowCount(ViewRef(view)) == after.count, "seed \(seed) step \(step): row count")
                let mine = toggled ? (view == id ? splices : []) : (ViewRef(view) == named ? splices : observed[ViewRef(view)] ?? [])
                check(Self.applied(mine, to: before[i], new: after) == after, "seed \(seed) step \(step): splices \(mine) of view \(view)")
                check(!toggled || view == id || observed[ViewRef(view)] == nil, "seed \(seed) step \(step): a toggle changed another view")
                for (r, slot) in after.enumerated() where r % 7 == 0 {
                    check(store.rowIndex(of: NodeHandle(slot: slot), ViewRef(view)) == r, "seed \(seed) step \(step): row index")
                }
            }
            if failed { return }
            if rng.chance(0.1) { addView() }
            if rng.chance(0.05) && expected.count > 1 {
                let gone = expected.keys.sorted()[0]
                store.deleteView(gone)
                expected[gone] = nil
            }
        }
    }

    static func subtreeSlots(_ node: NodeHandle, _ forest: Forest) -> [Slot] {
        var slots: [Slot] = []
        forest.forEachPosition(in: forest.subtree(of: forest.position(of: node))) { slots.append(forest.slot(at: $0)) }
        return slots
    }

    /// A long transaction through one view: the others wait and are rebuilt at its end
    /// (debug builds suspend from the third edit on), each observed one recording one
    /// splice of all its rows; their rows are those of views that followed every edit.
    @Test func aLongTransactionResumesTheOtherViews() throws {
        var rng = SeededRandom(seed: 11)
        var store = TreeStore(forest: try Self.randomForest(&rng, nodes: 120))
        var nodes: [NodeHandle] = []
        store.forest.forEachPosition { nodes.append(NodeHandle(slot: store.forest.slot(at: $0))) }
        let ids = (1 ... 3).map { ViewID(UInt64($0)) }
        store.createView(ids[0], .collapsed)
        store.createView(ids[1], .expanded)
        store.createView(ids[2], .depth(2))
        // Few changes each, so that the views stay exceptions (which a transaction suspends).
        for (k, id) in ids.enumerated() { for node in nodes where node.slot.index % 15 == k { _ = store.setExpanded(node, node.slot.index % 2 == 0, ViewRef(id)) } }
        var reference = store  // follows every edit outside a transaction
        store.observedViews = Set(ids.map { ViewRef($0) })
        let before = ids.map { store.rows(ViewRef($0), offset: 0, limit: .max).map(\.node) }
        func alive(_ store: TreeStore, _ node: NodeHandle) -> Bool { !store.forest.flags[node.slot.index].contains(.free) }
        func edits(_ store: inout TreeStore) {
            for k in 0 ..< 12 {
                let node = nodes[(k * 7) % nodes.count]
                if k % 3 == 0, alive(store, node) { _ = store.delete(node, ViewRef(ids[0])) }
                let target = nodes[(k * 11 + 3) % nodes.count], moved = nodes[(k * 13 + 5) % nodes.count]
                if alive(store, target), alive(store, moved), store.moveProblem(moved, to: target, index: nil) == nil {
                    _ = try! store.move(moved, to: target, index: nil, ViewRef(ids[0]))
                }
            }
        }
        store.transaction { (store: inout TreeStore) in edits(&store) }
        edits(&reference)
        let observed = store.takeObservedSplices()
        for (k, id) in ids.enumerated() {
            let after = store.rows(ViewRef(id), offset: 0, limit: .max).map(\.node)
            #expect(after == reference.rows(ViewRef(id), offset: 0, limit: .max).map(\.node))
            // The named view's splices are the edits' results; the others got one splice of
            // all their rows last.
            guard k > 0 else { continue }
            let splices = observed[ViewRef(id)] ?? []
            #expect(Self.applied(splices, to: before[k].map(\.slot), new: after.map(\.slot)) == after.map(\.slot))
            #expect(splices.last == Splice(index: 0, removed: splices.last!.removed, inserted: after.count))
        }
    }

    /// A batch through a view that fails leaves every view as it was.
    @Test func aFailedTransactionRestoresEveryView() throws {
        var rng = SeededRandom(seed: 7)
        var store = TreeStore(forest: try Self.randomForest(&rng, nodes: 80))
        store.createView(ViewID(1), .depth(1))
        store.createView(ViewID(2), .expanded)
        var nodes: [NodeHandle] = []
        store.forest.forEachPosition { nodes.append(NodeHandle(slot: store.forest.slot(at: $0))) }
        _ = store.setExpanded(nodes[3], true, ViewRef(ViewID(1)))
        _ = store.setExpanded(nodes[5], false, ViewRef(ViewID(2)))
        let rowsBefore = [ViewID(1), ViewID(2)].map { store.rows(ViewRef($0), offset: 0, limit: .max) }
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try store.transaction { (store: inout TreeStore) throws(Refused) in
                _ = store.setExpanded(nodes[7], true, ViewRef(ViewID(1)))
                _ = store.expandAll(ViewRef(ViewID(1)))
                _ = store.delete(nodes[1], ViewRef(ViewID(2)))
                throw Refused()
            }
        }
        #expect([ViewID(1), ViewID(2)].map { store.rows(ViewRef($0), offset: 0, limit: .max) } == rowsBefore)
    }
}
