import Foundation
import Testing
@testable import TreeEngine
import TreeFormats

/// Issue 14: a view built from a kept view whose query the new one narrows is the view a
/// fresh build gives, field by field; the parallel build agrees with the one-pass
/// algorithms (`ancestorBits`, `filteredCovers`) on edited forests, on 1 to 7 threads.
@Suite struct NarrowingTests {
    /// The seed's generator, `menuItems(targetNestLevel: levels, itemsInSection: 3)`:
    /// 29,523 nodes for 9 levels, enough for several chunks of positions per thread.
    static func menuItems(levels: Int) -> [UInt8] {
        var out = Array("{\"nodes\":".utf8)
        func level(_ l: Int) {
            out.append(UInt8(ascii: "["))
            if l < levels {
                for i in 1 ... 3 {
                    if i > 1 { out.append(UInt8(ascii: ",")) }
                    out += Array("{\"title\":\"Level \(l), item: \(i)\",\"children\":".utf8)
                    level(l + 1)
                    out.append(UInt8(ascii: "}"))
                }
            }
            out.append(UInt8(ascii: "]"))
        }
        level(0)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// A store over the generated tree, edited so that slots and positions disagree and the
    /// position columns have gaps: leaves deleted, subtrees moved, titles changed, nodes
    /// inserted into the freed slots.
    static func editedStore(levels: Int = 9, workers: Int?) throws -> TreeStore {
        var store = TreeStore(forest: try Forest.parse(menuItems(levels: levels)).forest)
        store.filterWorkers = workers
        let roots = store.forest.children(of: nil)
        // Delete a few subtrees, move others across the tree, rename some nodes.
        let second = store.forest.children(of: roots[1])
        _ = store.delete(second[0], nil)
        let third = store.forest.children(of: roots[2])
        _ = try store.move(third[1], to: roots[0], index: 0, nil)
        _ = try store.move(store.forest.children(of: third[2])[0], to: nil, index: 1, nil)
        for (k, node) in store.forest.children(of: roots[0]).enumerated() {
            _ = store.update(node, title: "Level 13, item: \(k)", data: nil, nil)
        }
        let fragmentJSON = Array("[{\"title\":\"Level 13, item: 2\",\"children\":[{\"title\":\"x\"}]},{\"title\":\"Level 1\"}]".utf8)
        let fragment = try fragmentJSON.withUnsafeBytes { try store.parseFragment($0, limits: ForestLimits()).fragment }
        _ = try store.insert(fragment, .child(of: roots[2], index: 0), nil)
        return store
    }

    static let typed = "Level 13, item: 2"

    /// Every field of a filtered view that a build sets.
    static func expectSameView(_ a: ViewState, _ b: ViewState, _ forest: Forest, _ what: String) {
        let fa = a.filter!, fb = b.filter!
        #expect(fa.matches == fb.matches, "matches: \(what)")
        #expect(fa.ancestors == fb.ancestors, "ancestors: \(what)")
        #expect(fa.expanded == fb.expanded, "expanded: \(what)")
        #expect(fa.matchCount == fb.matchCount, "match count: \(what)")
        #expect(a.index.materializedCovers() == b.index.materializedCovers(), "covers: \(what)")
        #expect(a.index.zeroCount == b.index.zeroCount, "rows: \(what)")
        #expect(TreeStore.rows(a, forest, offset: 0, limit: .max) == TreeStore.rows(b, forest, offset: 0, limit: .max), "rows: \(what)")
    }

    @Test func isNarrowing() {
        let base = FilterQuery("item")
        #expect(FilterQuery("item: 2").isNarrowing(base))
        #expect(FilterQuery("item").isNarrowing(base))
        #expect(!FilterQuery("ite").isNarrowing(base))
        #expect(!FilterQuery("xitem").isNarrowing(base))
        #expect(!FilterQuery("item: 2", caseSensitive: true).isNarrowing(base))
        #expect(!FilterQuery("item: 2", mode: .prefix).isNarrowing(base))
        #expect(FilterQuery("item: 2", mode: .prefix).isNarrowing(FilterQuery("item", mode: .prefix)))
        #expect(!FilterQuery("item: 2", mode: .exact).isNarrowing(FilterQuery("item", mode: .exact)))
        #expect(!FilterQuery("item", mode: .exact).isNarrowing(FilterQuery("item", mode: .exact)))
    }

    /// Typing one character at a time, each view built while the previous ones are kept,
    /// equals a fresh build of the same query; the narrowing was taken.
    @Test(arguments: [1, 2, 3, 7])
    func typingEqualsFreshBuilds(workers: Int) throws {
        var store = try Self.editedStore(workers: workers)
        var fresh = store
        var narrowed = 0
        for length in 1 ... Self.typed.count {
            let query = FilterQuery(String(Self.typed.prefix(length)))
            let before = store.narrowedBuilds
            try store.prepareView(query)
            narrowed += store.narrowedBuilds - before
            fresh.arrangeViews([])
            try fresh.prepareView(query)
            Self.expectSameView(store.filtered.last!.view, fresh.filtered.last!.view, store.forest, "\(query), \(workers) workers")
        }
        #expect(narrowed == Self.typed.count - 1)
    }

    /// Narrowing a view to the same matches shares its bits and index only while it is
    /// in its initial state: a kept view the user expanded is not the new view.
    @Test func sameMatchesShareTheViewOnlyInItsInitialState() throws {
        var store = try Self.editedStore(levels: 6, workers: 1)
        try store.prepareView(FilterQuery("Level 1"))
        try store.prepareView(FilterQuery("Level 1,"))  // the same matches: shared
        var fresh = store
        fresh.arrangeViews([])
        try fresh.prepareView(FilterQuery("Level 1,"))
        Self.expectSameView(store.filtered.last!.view, fresh.filtered.last!.view, store.forest, "Level 1,")
        // Expand everything in the kept view: "Level 1, " narrows it to the same matches,
        // but its view is built, not shared.
        _ = store.expandAll(FilterQuery("Level 1,"))
        store.arrangeViews([FilterQuery("Level 1,")])
        try store.prepareView(FilterQuery("Level 1, "))
        fresh.arrangeViews([])
        try fresh.prepareView(FilterQuery("Level 1, "))
        Self.expectSameView(store.filtered.last!.view, fresh.filtered.last!.view, store.forest, "Level 1, ")
        #expect(store.rowCount(FilterQuery("Level 1,")) > store.rowCount(FilterQuery("Level 1, ")))
    }

    /// The kept view with the fewest matches is the one narrowed; a view built from it
    /// follows edits like any other.
    @Test func narrowsTheSmallestKeptViewAndFollowsEdits() throws {
        var store = try Self.editedStore(workers: 2)
        try store.prepareView(FilterQuery("Level"))
        try store.prepareView(FilterQuery("Level 1"))
        try store.prepareView(FilterQuery("item: 2"))
        let before = store.narrowedBuilds
        try store.prepareView(FilterQuery("Level 13"))
        #expect(store.narrowedBuilds == before + 1)
        var fresh = store
        fresh.arrangeViews([])
        try fresh.prepareView(FilterQuery("Level 13"))
        Self.expectSameView(store.filtered.last!.view, fresh.filtered.last!.view, store.forest, "Level 13")
        // An edit, then the narrowed view and a fresh one again.
        let node = store.forest.children(of: nil)[0]
        _ = store.update(node, title: "Level 13, changed", data: nil, FilterQuery("Level 13"))
        try store.prepareView(FilterQuery("Level 13, c"))
        var again = store
        again.arrangeViews([])
        try again.prepareView(FilterQuery("Level 13, c"))
        #expect(store.matchCount(FilterQuery("Level 13, c")) == 1)
        Self.expectSameView(store.filtered.last!.view, again.filtered.last!.view, store.forest, "Level 13, c")
    }

    /// The parallel build gives the covers and A of the one-pass algorithms.
    @Test(arguments: [1, 3, 7])
    func buildAgreesWithOnePassAlgorithms(workers: Int) throws {
        let store = try Self.editedStore(workers: workers)
        let forest = store.forest
        for text in ["item: 2", "Level 13", "x", "no such title", "L"] {
            let view = try ViewState.filtered(forest, query: FilterQuery(text), workers: workers) { false }
            let state = view.filter!
            #expect(state.ancestors == ViewState.ancestorBits(forest, matches: state.matches), "A of \(text)")
            let expected = ViewState.filteredCovers(forest, state)
            let actual = view.index.materializedCovers()
            for p in 0 ..< forest.capacity where !forest.isGap(Position(p)) {
                if actual[p] != expected[p] { Issue.record("cover at \(p) for \(text): \(actual[p]), expected \(expected[p])"); break }
            }
            #expect(view.index.zeroCount == expected.enumerated().filter { !forest.isGap(Position($0.offset)) && $0.element == 0 }.count)
        }
    }

    /// A narrowed build that is cancelled keeps nothing, and the kept views stay.
    @Test func aCancelledNarrowedBuildChangesNothing() throws {
        var store = try Self.editedStore(levels: 6, workers: 1)
        try store.prepareView(FilterQuery("item"))
        #expect(throws: TreeStore.Cancelled.self) { try store.prepareView(FilterQuery("item: 2")) { true } }
        #expect(store.keptFilters == [FilterQuery("item")])
    }
}
