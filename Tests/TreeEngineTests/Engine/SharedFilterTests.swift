import Testing
@testable import TreeEngine
import TreeFormats

/// Views filtering by one text share one filtered state and keep only their differences
/// from it (`TreeStore+SharedFilters.swift`). What the rows are is the model test's
/// (`randomViewOperations`); these check what is shared, what a view holds, and when a
/// shared state goes away.
@Suite struct SharedFilterTests {
    /// Levels 0...5, three items each (1,092 nodes), titled as the seed library's generator does.
    static func store() throws -> TreeStore {
        func level(_ l: Int) -> String {
            guard l < 6 else { return "[]" }
            return "[" + (1 ... 3).map { #"{"title":"Level \#(l), item: \#($0)","children":\#(level(l + 1))}"# }
                .joined(separator: ",") + "]"
        }
        return TreeStore(forest: try Forest.parse(Array(level(0).utf8)).forest)
    }

    static let text = FilterQuery("Level 4, item: 2")

    static func shared(_ store: TreeStore) -> [FilterQuery: Int] {
        Dictionary(uniqueKeysWithValues: store.sharedFilters.map { ($0.query, $0.views) })
    }

    @Test func viewsFilteringByOneTextShareItsState() throws {
        var store = try Self.store()
        for id in 1 ... 3 { store.createView(ViewID(UInt64(id)), .collapsed) }
        try store.prepareView(ViewRef(ViewID(1), filter: Self.text))
        let state = store.filterBases[Self.text]!.storageAddresses
        var polls = 0
        try store.prepareView(ViewRef(ViewID(2), filter: Self.text), isCancelled: { polls += 1; return false })
        #expect(polls == 1, "a second view's filter matches no title")
        #expect(store.filterBases[Self.text]!.storageAddresses == state, "the shared state is not rebuilt")
        #expect(Self.shared(store) == [Self.text: 2])
        // A view's own changes are all it holds: a fresh one nearly nothing, a toggle two boundaries.
        #expect(store.viewBytes(ViewID(2)) < 1024)
        let row = store.rows(ViewRef(ViewID(2), filter: Self.text), offset: 3, limit: 1)[0]
        _ = store.setExpanded(row.node, !row.isExpanded, ViewRef(ViewID(2), filter: Self.text))
        #expect(store.viewBytes(ViewID(2)) < 1024)
        #expect(store.filterBases[Self.text]!.bytes > 2 * store.forest.count, "the shared state is dense")
        // The toggle is view 2's alone.
        #expect(store.isExpanded(row.node, ViewRef(ViewID(2), filter: Self.text)) != row.isExpanded)
        #expect(store.isExpanded(row.node, ViewRef(ViewID(1), filter: Self.text)) == row.isExpanded)
        // Deleting views drops the state with the last one that follows it.
        store.deleteView(ViewID(1))
        #expect(Self.shared(store) == [Self.text: 1])
        store.deleteView(ViewID(2))
        #expect(store.sharedFilters.isEmpty)
    }

    @Test func aDroppedFilterStopsFollowing() throws {
        var store = try Self.store()
        store.filteredViewCapacity = 2
        store.createView(ViewID(1), .collapsed)
        store.createView(ViewID(2), .collapsed)
        try store.prepareView(ViewRef(ViewID(2), filter: Self.text))
        for text in ["Level 1", "Level 2", "Level 3"] { try store.prepareView(ViewRef(ViewID(1), filter: FilterQuery(text))) }
        // View 1 keeps its two most recent texts; "Level 1" was dropped and nobody else had it.
        #expect(Self.shared(store) == [Self.text: 1, FilterQuery("Level 2"): 1, FilterQuery("Level 3"): 1])
        store.arrangeViews([FilterQuery("Level 3")], in: ViewID(1))
        #expect(Self.shared(store) == [Self.text: 1, FilterQuery("Level 3"): 1])
    }

    @Test func aBulkChangeGivesTheViewAStateOfItsOwn() throws {
        var store = try Self.store()
        store.createView(ViewID(1), .collapsed)
        store.createView(ViewID(2), .collapsed)
        let rows = ViewRef(ViewID(1), filter: Self.text)
        try store.prepareView(rows)
        try store.prepareView(ViewRef(ViewID(2), filter: Self.text))
        let before = store.rowCount(rows)
        _ = store.expandAll(rows)
        #expect(Self.shared(store) == [Self.text: 1], "view 1 left the shared state")
        #expect(store.userViews[ViewID(1)]!.filtered.last!.own != nil)
        #expect(store.rowCount(rows) > before)
        #expect(store.rowCount(ViewRef(ViewID(2), filter: Self.text)) == before, "view 2 is as it was")
        // A recursive change of a few nodes stays shared; of most of the tree it does not.
        let other = ViewRef(ViewID(2), filter: Self.text)
        let leafParent = store.rows(other, offset: store.rowCount(other) - 1, limit: 1)[0].parent!
        _ = store.setExpanded(leafParent, true, recursive: true, other)
        #expect(Self.shared(store) == [Self.text: 1])
        _ = store.setExpanded(store.forest.children(of: nil)[0], true, recursive: true, other)
        #expect(store.sharedFilters.isEmpty)
    }

    @Test func aCopyOfTheDefaultViewFollowsTheSharedStates() throws {
        var store = try Self.store()
        try store.prepareView(Self.text)
        let first = store.rows(Self.text, offset: 0, limit: 1)[0].node
        _ = store.setExpanded(first, false, Self.text)
        store.createView(ViewID(1), .copy(of: nil))
        #expect(Self.shared(store) == [Self.text: 1])
        #expect(store.userViews[ViewID(1)]!.filtered.map { $0.own == nil } == [true])
        let copied = ViewRef(ViewID(1), filter: Self.text)
        #expect(store.rows(copied, offset: 0, limit: .max) == store.rows(Self.text, offset: 0, limit: .max))
        #expect(store.viewBytes(ViewID(1)) < 1024, "one change, not a copy of the default view's state")
    }

    /// A view's unfiltered rows cost what it changed, and never more than a dense state: past
    /// about n/`denseShare` changed nodes they become one (`TreeStore.isTooManyForSparse`), which a
    /// rebase ends.
    @Test func aViewNeverHoldsMoreThanADenseState() throws {
        var store = try Self.store()
        let n = store.forest.count
        store.createView(ViewID(1), .collapsed)
        _ = store.setExpanded(store.forest.children(of: nil)[1], true, ViewRef(ViewID(1)))
        #expect(store.viewBytes(ViewID(1)) < 1024)
        let rowsBefore = store.rowCount(ViewRef(ViewID(1)))
        for root in store.forest.children(of: nil) { _ = store.setExpanded(root, true, recursive: true, ViewRef(ViewID(1))) }
        #expect(store.userViews[ViewID(1)]!.dense != nil)
        #expect(store.changedNodes(in: ViewID(1)) == n - 729, "every folder expanded (729 leaves)")
        #expect(store.viewBytes(ViewID(1)) <= 2 * n + 1024, "\(store.viewBytes(ViewID(1))) bytes for \(n) nodes")
        #expect(store.rowCount(ViewRef(ViewID(1))) == n && rowsBefore < n)
        _ = store.collapseAll(ViewRef(ViewID(1)))
        #expect(store.userViews[ViewID(1)]!.dense == nil && store.viewBytes(ViewID(1)) < 1024)
    }

    /// A toggle in shared filtered rows changes the view's cover in place: O(log), no copy of
    /// its boundaries or of the followers (a reference to the shared state held across the
    /// change copied both).
    @Test func aToggleInSharedRowsDoesNotCopyTheCover() throws {
        var store = try Self.store()
        for id in 1 ... 2 { store.createView(ViewID(UInt64(id)), .collapsed) }
        let rows = ViewRef(ViewID(2), filter: Self.text)
        try store.prepareView(ViewRef(ViewID(1), filter: Self.text))
        try store.prepareView(rows)
        let row = store.rows(rows, offset: 3, limit: 1)[0]
        // Boundaries made and freed, so that the next toggle reuses them.
        _ = store.setExpanded(row.node, !row.isExpanded, rows)
        _ = store.setExpanded(row.node, row.isExpanded, rows)
        let before = store.filterBases[Self.text]!.followers!.covers[ViewID(2)]!.storageAddresses
        _ = store.setExpanded(row.node, !row.isExpanded, rows)
        #expect(store.filterBases[Self.text]!.followers!.covers[ViewID(2)]!.storageAddresses == before)
    }

    /// Nodes leaving A keep each follower's expansion, as exceptions: edits alone can grow a
    /// view's filtered rows, which then turn dense too, as toggles do.
    @Test func editsGrowingAFollowerTurnItDense() throws {
        var store = try Self.store()
        store.createView(ViewID(1), .collapsed)
        store.createView(ViewID(2), .collapsed)
        try store.prepareView(ViewRef(ViewID(1), filter: Self.text))
        try store.prepareView(ViewRef(ViewID(2), filter: FilterQuery("Level 4")))
        var matches: [NodeHandle] = []
        store.forest.forEachPosition { p in
            let node = NodeHandle(slot: store.forest.slot(at: p))
            if store.forest.withTitle(of: node, { String(decoding: $0, as: UTF8.self) }) == "Level 4, item: 2" { matches.append(node) }
        }
        for node in matches { _ = store.update(node, title: "gone", data: nil, ViewRef(ViewID(2))) }
        #expect(store.userViews[ViewID(1)]!.filtered.last!.own != nil, "view 1's rows of the text are its own now")
        #expect(store.sharedFilters.map(\.query) == [FilterQuery("Level 4")])
        for id in [ViewID(1), ViewID(2)] {
            for entry in store.userViews[id]!.filtered where entry.own == nil {
                let exceptions = store.filterBases[entry.query]!.followers!.covers[id]!.exceptionCount
                #expect(exceptions <= store.forest.count / TreeStore.denseShare + TreeStore.sparseSlack)
            }
        }
    }

    /// Counts of matches below a node past a byte live beside the byte column; edits move
    /// them across the boundary both ways (debug builds recount every node after each edit).
    @Test func matchCountsPastAByte() throws {
        var counts = MatchCounts(count: 4)
        counts[1] = 254
        counts[2] = 255
        counts[3] = 70_000
        #expect([counts[0], counts[1], counts[2], counts[3]] == [0, 254, 255, 70_000])
        counts[3] = 7
        counts[2] = 1_000
        counts.grow(to: 6)
        #expect([counts[2], counts[3], counts[5], UInt32(counts.count)] == [1_000, 7, 0, 6])

        var store = try Self.store()
        let every = FilterQuery("Level")
        try store.prepareView(every)
        store.createView(ViewID(1), .collapsed)
        try store.prepareView(ViewRef(ViewID(1), filter: every))
        let root = store.forest.children(of: nil)[0]
        let first = store.forest.children(of: root)[0]
        let json = #"[{"title":"Level 1, item: 9","children":["# + (0 ..< 130).map { #"{"title":"Level 2, item: \#($0)"}"# }.joined(separator: ",") + "]}]"
        // 363 matches below the root, then 242, then 373: across 255 twice.
        _ = store.delete(first, nil)
        #expect(store.rows(every, offset: 0, limit: 1)[0].matchesBelow == 242)
        let fragment = try Array(json.utf8).withUnsafeBytes { (raw) throws(TreeInputError) -> Forest in
            try store.parseFragment(raw, limits: ForestLimits()).fragment
        }
        _ = try store.insert(fragment, .child(of: root, index: 0), ViewRef(ViewID(1), filter: every))
        #expect(store.rows(ViewRef(ViewID(1), filter: every), offset: 0, limit: 1)[0].matchesBelow == 373)
        #expect(store.rows(every, offset: 0, limit: 1)[0].matchesBelow == 373)
    }
}

