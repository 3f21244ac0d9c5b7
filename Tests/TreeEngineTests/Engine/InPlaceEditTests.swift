import Testing
@testable import TreeEngine
import TreeFormats

/// Every edit changes the kept views in place: not one column of a view is copied, whichever
/// view the edit names. A copy costs O(n) a view and made edits on 7.2M nodes with four
/// filtered views kept take 30-40 ms instead of tens of µs (issue 32: the views were passed to
/// the update through a nested function that also used the store).
@Suite struct InPlaceEditTests {
    static let filters = ["item: 2", "Level 6", "item: 1", "Level 3"].map { FilterQuery($0) }

    /// The seed's generated tree: levels 0...7, three items each (3,279 nodes), expanded.
    static func store() throws -> TreeStore {
        func level(_ l: Int) -> String {
            guard l < 8 else { return "[]" }
            return "[" + (1 ... 3).map { #"{"title":"Level \#(l), item: \#($0)","expanded":true,"children":\#(level(l + 1))}"# }
                .joined(separator: ",") + "]"
        }
        var store = TreeStore(forest: try Forest.parse(Array(level(0).utf8)).forest)
        for f in filters { try store.prepareView(f) }
        // Two views besides the default one (issue 35): one with a change, one with filtered rows.
        store.createView(ViewID(1), .collapsed)
        _ = store.setExpanded(store.forest.children(of: nil)[1], true, ViewRef(ViewID(1)))
        store.createView(ViewID(2), .depth(2))
        try store.prepareView(ViewRef(ViewID(2), filter: filters[0]))
        return store
    }

    static func fragment(_ store: TreeStore, _ title: String) throws -> Forest {
        try Array(#"[{"title":"\#(title)"}]"#.utf8).withUnsafeBytes { (raw) throws(TreeInputError) -> Forest in
            try store.parseFragment(raw, limits: ForestLimits()).fragment
        }
    }

    /// The storage of every view, by the view's filter ("" for the unfiltered one).
    static func addresses(_ store: TreeStore) -> [String: [UInt]] {
        var out = ["": store.unfiltered.storageAddresses]
        for (query, view) in store.filtered { out[query.text] = view.storageAddresses }
        for (id, view) in store.userViews {
            out["view \(id)"] = view.cover.storageAddresses
            for (query, state) in view.filtered {
                out["view \(id) \(query.text)"] = state?.storageAddresses ?? store.filterBases[query]!.followers!.covers[id]!.storageAddresses
            }
        }
        for (depth, entry) in store.depthBases { out["base \(depth)"] = entry.base.storageAddresses }
        for (query, base) in store.filterBases { out["shared \(query.text)"] = base.storageAddresses }
        return out
    }

    /// The views whose storage moved since `before` (or that are gone).
    static func copied(_ store: TreeStore, since before: [String: [UInt]]) -> [String] {
        let now = addresses(store)
        return before.keys.filter { now[$0] != before[$0] }.sorted()
    }

    static func leaf(_ store: TreeStore, _ k: Int) -> NodeHandle {
        var node = store.forest.children(of: nil)[k % 3]
        var step = k
        while case let kids = store.forest.children(of: node), !kids.isEmpty {
            node = kids[step % kids.count]
            step /= 3
        }
        return node
    }

    @Test(arguments: [nil] + filters)
    func everyEditKindChangesTheViewsInPlace(_ named: FilterQuery?) throws {
        var store = try Self.store()
        // The first insertion spreads a built forest's positions (new columns, once).
        _ = try store.insert(try Self.fragment(store, "Level 2, item: 2"), .child(of: Self.leaf(store, 0), index: 0), named)
        let capacity = store.forest.capacity
        let before = Self.addresses(store)
        #expect(before.count == 11 && Set(store.keptFilters) == Set(Self.filters), "the four filtered views are kept")

        _ = store.update(Self.leaf(store, 1), title: "Level 7, item: 2", data: nil, named)
        #expect(Self.copied(store, since: before) == [], "rename: views copied")
        _ = store.delete(Self.leaf(store, 2), named)
        #expect(Self.copied(store, since: before) == [], "delete: views copied")
        _ = try store.move(Self.leaf(store, 3), to: Self.leaf(store, 40), index: 0, named)
        #expect(Self.copied(store, since: before) == [], "move: views copied")
        _ = try store.insert(try Self.fragment(store, "Level 5, item: 2"), .child(of: Self.leaf(store, 5), index: nil), named)
        try #require(store.forest.capacity == capacity, "the insert found room without growing the positions")
        #expect(Self.copied(store, since: before) == [], "insert: views copied")
    }
}
