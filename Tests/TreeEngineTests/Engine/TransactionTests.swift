import Testing
@testable import TreeEngine
import TreeFormats

/// `TreeStore.transaction`: a body that throws leaves nothing behind.
@Suite struct TransactionTests {
    struct Stop: Error {}

    /// Everything a client can see of a store: every view's rows with expansion
    /// and matches, match counts, and each node's id, title, data and level.
    static func snapshot(_ store: inout TreeStore, _ filters: [FilterQuery]) -> String {
        var out: [String] = []
        store.forest.forEachNode { node, level in
            let data = store.forest.data(of: node).map { String(decoding: $0, as: UTF8.self) } ?? "-"
            out.append("\(store.forest.id(of: node)) \(level) \(store.forest.title(of: node)) \(data)")
        }
        for f in [nil] + filters.map(Optional.some) {
            let rows = store.rows(f, offset: 0, limit: .max)
            out.append("\(f.map { "\($0)" } ?? "unfiltered"): " + rows.map { "\(store.forest.id(of: $0.node))/\($0.level)/\($0.isExpanded)/\($0.isMatch)" }.joined(separator: " "))
            if let f { out.append("matches \(store.matchCount(f))") }
        }
        out.append("kept \(store.keptFilters)")
        return out.joined(separator: "\n")
    }

    static func fragment(_ json: String, for store: TreeStore) throws -> Forest {
        try Array(json.utf8).withUnsafeBytes { (raw) throws(TreeInputError) -> Forest in
            try store.parseFragment(raw, limits: ForestLimits()).fragment
        }
    }

    /// Every kind of change, then a failure: the store is as before, and a later
    /// successful transaction still works on it.
    @Test(arguments: 0 ..< 12)
    func failedTransactionChangesNothing(failAfter: Int) throws {
        var json = "["
        for i in 0 ..< 40 {
            json += (i > 0 ? "," : "") + #"{"id":"n\#(i)","title":"node \#(i % 7)","expanded":\#(i % 3 == 0),"children":["#
            json += (0 ..< 3).map { #"{"id":"n\#(i)-\#($0)","title":"leaf \#($0) of \#(i % 5)","data":\#($0)}"# }.joined(separator: ",")
            json += "]}"
        }
        json += "]"
        var store = TreeStore(forest: try Forest.parse(Array(json.utf8)).forest)
        let filters = [FilterQuery("node 3"), FilterQuery("of 2"), FilterQuery("leaf 1")]
        for f in filters { try store.prepareView(f) }
        _ = store.setExpanded(store.forest.node(withID: "n4")!, false, filters[0])
        let before = Self.snapshot(&store, filters)
        let changes: [(inout TreeStore) throws -> Void] = [
            { s in _ = try s.insert(try Self.fragment(#"[{"id":"x","title":"node 3 new","children":[{"title":"leaf 1 of 2"}]}]"#, for: s), .child(of: s.forest.node(withID: "n5")!, index: 1), filters[0]) },
            { s in _ = s.delete(s.forest.node(withID: "n7")!, filters[1]) },
            { s in _ = try s.move(s.forest.node(withID: "n9")!, to: s.forest.node(withID: "n3")!, index: 0, filters[2]) },
            { s in _ = s.update(s.forest.node(withID: "n10-1")!, title: "node 3 renamed", data: Array("[1]".utf8), filters[0]) },
            { s in _ = s.setExpanded(s.forest.node(withID: "n3")!, true, recursive: true, filters[0]) },
            { s in _ = s.collapseAll(filters[1]) },
            { s in _ = s.expandAll(nil) },
            { s in _ = s.reveal(s.forest.node(withID: "n12-2")!, filters[2]) },
            { s in _ = try s.insert(try Self.fragment(#"[{"id":"n7","title":"takes the deleted id"}]"#, for: s), .before(s.forest.node(withID: "n1")!), nil) },
            { s in _ = s.delete(s.forest.node(withID: "n5")!, nil) },
            { s in try s.prepareView(FilterQuery("built inside")); _ = s.rowCount(FilterQuery("built inside")) },
            { s in _ = s.update(s.forest.node(withID: "n20")!, title: "leaf 1", data: nil, nil) },
        ]
        #expect(throws: Stop.self) {
            try store.transaction { (s: inout TreeStore) throws(Stop) in
                for change in changes.prefix(failAfter + 1) { do { try change(&s) } catch { Issue.record("\(error)") } }
                throw Stop()
            }
        }
        #expect(Self.snapshot(&store, filters) == before)
        store.forest.checkInvariants()
        // The store still takes changes, and a successful transaction keeps them.
        try store.transaction { (s: inout TreeStore) throws in for change in changes.prefix(failAfter + 1) { try change(&s) } }
        #expect(Self.snapshot(&store, filters) != before)
    }
}
