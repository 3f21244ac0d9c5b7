import Testing
@testable import TreeEngine
import TreeFormats

/// The gapped position columns (`Forest+Layout.swift`): an edit moves the positions
/// near it, not the forest; memory follows the node count down.
@Suite struct LayoutTests {
    /// `roots` roots with `children` leaves each.
    static func store(roots: Int, children: Int) throws -> TreeStore {
        var json = "["
        for r in 0 ..< roots {
            json += (r > 0 ? "," : "") + #"{"id":"r\#(r)","title":"root \#(r)","expanded":true,"children":["#
            json += (0 ..< children).map { #"{"id":"r\#(r)-\#($0)","title":"leaf \#($0)"}"# }.joined(separator: ",")
            json += "]}"
        }
        return TreeStore(forest: try Forest.parse(Array((json + "]").utf8)).forest)
    }

    static func insert(_ title: String, into store: inout TreeStore, _ placement: InsertPlacement) throws {
        let fragment = try Array(#"[{"title":"\#(title)"}]"#.utf8).withUnsafeBytes { (raw) throws(TreeInputError) -> Forest in
            try store.parseFragment(raw, limits: ForestLimits()).fragment
        }
        _ = try store.insert(fragment, placement, nil)
    }

    /// Many insertions at one spot (a watcher adding files to one folder) move few
    /// positions each, amortized: O(log² n), nowhere near the forest's size.
    @Test func insertionsAtOneSpotMoveFewPositions() throws {
        var store = try Self.store(roots: 100, children: 99)
        let parent = store.forest.node(withID: "r50")!
        try Self.insert("first", into: &store, .child(of: parent, index: 0))  // spreads the columns once
        var moved = 0
        for i in 0 ..< 400 {
            let before = store.forest.positionOf
            try Self.insert("new \(i)", into: &store, .child(of: parent, index: 50))
            for slot in before.indices where before[slot] >= 0 && before[slot] != store.forest.positionOf[slot] { moved += 1 }
        }
        #expect(store.forest.count == 10_000 + 401)
        #expect(moved / 400 < 300, "\(moved / 400) positions moved per insertion on average")
        #expect(store.rowCount(nil) == 10_000 + 401)
    }

    /// Deleting most of the forest gives the positions back.
    @Test func largeDeletionShrinksTheColumns() throws {
        var store = try Self.store(roots: 4, children: 4999)
        try Self.insert("spread", into: &store, .child(of: nil, index: 0))
        let spread = store.forest.capacity
        #expect(spread >= 20_001)
        for r in 0 ..< 3 { _ = store.delete(store.forest.node(withID: "r\(r)")!, nil) }
        #expect(store.forest.count == 5001)
        #expect(store.forest.capacity < spread / 2)
        #expect(store.rowCount(nil) == 5001)
        #expect(store.rows(nil, offset: 1, limit: 1).first.map { store.forest.id(of: $0.node).description } == "r3")
    }
}
