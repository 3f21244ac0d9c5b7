import Testing
@testable import TreeEngine
import TreeFormats

/// `setExpanded(recursive:)`: a recursive collapse collapses every node of the subtree,
/// leaves included, exactly as `collapseAll` does.
@Suite struct RecursiveExpansionTests {
    /// `r` expanded, with the expanded leaf `a` and the node `b` whose expanded leaf is `c`.
    static let tree = #"""
        [{"id":"r","title":"r","expanded":true,"children":[
            {"id":"a","title":"a","expanded":true},
            {"id":"b","title":"b","expanded":true,"children":[{"id":"c","title":"c","expanded":true}]}]}]
        """#

    static func store() throws -> TreeStore {
        TreeStore(forest: try Forest.parse(Array(tree.utf8)).forest)
    }

    static func insertChild(_ title: String, under parent: NodeHandle, into store: inout TreeStore) throws {
        let fragment = try Array(#"[{"title":"\#(title)"}]"#.utf8).withUnsafeBytes { (raw) throws(TreeInputError) -> Forest in
            try store.parseFragment(raw, limits: ForestLimits()).fragment
        }
        _ = try store.insert(fragment, .child(of: parent, index: nil), nil)
    }

    @Test(arguments: [false, true])
    func recursiveCollapseCollapsesLeaves(filtered: Bool) throws {
        var store = try Self.store()
        let filter = filtered ? FilterQuery("c") : nil
        let forest = store.forest
        let r = forest.node(withID: "r")!, a = forest.node(withID: "a")!, c = forest.node(withID: "c")!
        if filtered {
            // The filtered view starts from its own expansion: open the leaves there.
            _ = store.setExpanded(a, true, filter)
            _ = store.setExpanded(c, true, filter)
            let opened = store.isExpanded(a, filter) && store.isExpanded(c, filter)
            #expect(opened)
        }
        _ = store.setExpanded(r, false, recursive: true, filter)
        for id in ["r", "a", "b", "c"] {
            let expanded = store.isExpanded(forest.node(withID: id)!, filter)
            #expect(!expanded, "\(id) is still expanded")
        }
    }

    /// The issue's symptom: a child added under a collapsed-recursively leaf shows up open.
    @Test func childAddedAfterRecursiveCollapseIsHidden() throws {
        var store = try Self.store()
        let r = store.forest.node(withID: "r")!, a = store.forest.node(withID: "a")!
        _ = store.setExpanded(r, false, recursive: true, nil)
        try Self.insertChild("new", under: a, into: &store)
        _ = store.setExpanded(r, true, nil)
        let rows = store.rows(nil, offset: 0, limit: 10).map { store.forest.title(of: $0.node) }
        #expect(rows == ["r", "a", "b"], "rows \(rows)")

        var collapsedAll = try Self.store()
        _ = collapsedAll.collapseAll(nil)
        try Self.insertChild("new", under: collapsedAll.forest.node(withID: "a")!, into: &collapsedAll)
        _ = collapsedAll.setExpanded(collapsedAll.forest.node(withID: "r")!, true, nil)
        let collapsedRows = collapsedAll.rows(nil, offset: 0, limit: 10).map { collapsedAll.forest.title(of: $0.node) }
        #expect(collapsedRows == rows)
    }

    /// A recursive expand keeps opening only the nodes that have children (unchanged).
    @Test func recursiveExpandOpensOnlyNodesWithChildren() throws {
        var store = try Self.store()
        _ = store.collapseAll(nil)
        let forest = store.forest
        _ = store.setExpanded(forest.node(withID: "r")!, true, recursive: true, nil)
        let expanded = ["r", "a", "b", "c"].filter { store.isExpanded(forest.node(withID: $0)!, nil) }
        #expect(expanded == ["r", "b"])
    }
}
