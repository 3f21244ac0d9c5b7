import Testing
@testable import TreeEngine
import TreeFormats
@testable import TreeReference

/// Issue 35 by hand: views besides the default one, by the semantics the reference
/// implements (`RefView`, `ReferenceForest+Views.swift`). Each step runs on the engine and
/// on the reference, and both must show the rows written out here, so the reference's
/// rules are checked against hand-worked examples too.
@Suite struct ViewModelTests {
    /// r is expanded in the default view only (the uploaded flag).
    static let tree = #"""
        [{"id":"r","title":"root","expanded":true,"children":[
          {"id":"a","title":"apple","children":[{"id":"a1","title":"x","children":[{"id":"a11","title":"y"}]},{"id":"a2","title":"pear"}]},
          {"id":"b","title":"box","children":[{"id":"b1","title":"pear"},{"id":"b2","title":"z"}]},
          {"id":"c","title":"cup"}]}]
        """#
    static let pear = FilterQuery("pear")
    static let one = ViewID(1), two = ViewID(2)

    /// The engine and the reference, driven together.
    final class Both {
        var store: TreeStore
        let model: ReferenceForest

        init() throws {
            store = TreeStore(forest: try Forest.parse(Array(ViewModelTests.tree.utf8)).forest)
            model = ReferenceForest(mirroring: store.forest, capacity: 4)
        }

        func ref(_ id: String) -> RefNode { model.allNodes.first { $0.key == id }! }
        func h(_ id: String) -> NodeHandle { store.forest.node(withID: id)! }

        /// Rows as ids, `+` when expanded.
        func engineRows(_ v: ViewRef) -> [String] {
            let forest = store.forest
            guard let rows = store.keptRows(v, offset: 0, limit: 1000) else { return ["(not kept)"] }
            return rows.map { forest.id(of: $0.node).description + ($0.isExpanded ? "+" : "") }
        }

        func modelRows(_ v: ViewRef) -> [String] { model.rows(v).map { $0.id + ($0.expanded ? "+" : "") } }

        func expect(_ step: String, _ rows: String, _ v: ViewRef, sourceLocation: SourceLocation = #_sourceLocation) {
            let want = rows.split(separator: " ").map(String.init)
            #expect(modelRows(v) == want, "reference, \(step)", sourceLocation: sourceLocation)
            #expect(engineRows(v) == want, "engine, \(step)", sourceLocation: sourceLocation)
            #expect(store.keptFilters(in: v.view) == model.keptFilters(in: v.view), "kept filters, \(step)", sourceLocation: sourceLocation)
        }

        func create(_ id: ViewID, _ start: ViewStart) {
            store.createView(id, start)
            model.createView(id, start)
        }

        @discardableResult
        func setExpanded(_ id: String, _ value: Bool, recursive: Bool = false, _ v: ViewRef) -> [Splice] {
            model.setExpanded(ref(id), value, recursive: recursive, v)
            return store.setExpanded(h(id), value, recursive: recursive, v)
        }

        func use(_ v: ViewRef) {
            try! store.prepareView(v)
            model.use(v)
        }

        func move(_ id: String, to parent: String?, index: Int? = nil, _ v: ViewRef) throws {
            _ = try store.move(h(id), to: parent.map(h), index: index, v)
            #expect(model.move(ref(id), to: parent.map(ref), index: index) == nil)
            model.editDone(v, moved: ref(id))
        }

        func rename(_ id: String, _ title: String, _ v: ViewRef) -> [Splice] {
            let splices = store.update(h(id), title: title, data: nil, v)
            ref(id).title = title
            model.editDone(v)
            return splices
        }
    }

    /// A copy has the source's expansion and kept filtered rows (with their expansion, in
    /// the same order); changing one afterwards leaves the other alone.
    @Test func copyTakesEverythingAndThenGoesItsOwnWay() throws {
        let both = try Both()
        let v1 = ViewRef(Self.one), f1 = ViewRef(Self.one, filter: Self.pear)
        both.create(Self.one, .collapsed)
        both.expect("a collapsed view shows the roots", "r", v1)
        both.setExpanded("r", true, v1)
        both.setExpanded("a", true, v1)
        both.expect("r and a opened in view 1", "r+ a+ a1 a2 b c", v1)
        both.use(ViewRef(Self.one, filter: FilterQuery("x")))
        both.use(f1)
        both.expect("view 1 filters: matches' ancestors expanded", "r+ a+ a2 b+ b1", f1)
        both.setExpanded("b", false, f1)
        both.expect("b collapsed in view 1's filtered rows", "r+ a+ a2 b", f1)
        both.expect("the default view is untouched", "r+ a b c", ViewRef())

        both.create(Self.two, .copy(of: Self.one))
        let v2 = ViewRef(Self.two), f2 = ViewRef(Self.two, filter: Self.pear)
        #expect(both.store.keptFilters(in: Self.two) == [FilterQuery("x"), Self.pear])
        both.expect("the copy's unfiltered rows", "r+ a+ a1 a2 b c", v2)
        both.expect("the copy's filtered rows, with b collapsed", "r+ a+ a2 b", f2)

        both.setExpanded("a", false, v2)
        both.setExpanded("b", true, f2)
        both.expect("view 2 collapsed a", "r+ a b c", v2)
        both.expect("view 1 keeps a open", "r+ a+ a1 a2 b c", v1)
        both.expect("view 2 opened b in its filtered rows", "r+ a+ a2 b+ b1", f2)
        both.expect("view 1 keeps b collapsed there", "r+ a+ a2 b", f1)

        both.create(ViewID(3), .copy(of: nil))
        both.expect("a copy of the default view", "r+ a b c", ViewRef(ViewID(3)))
        #expect(both.store.keptFilters(in: ViewID(3)) == [])
        both.setExpanded("r", false, ViewRef(ViewID(3)))
        both.expect("the default view keeps r open", "r+ a b c", ViewRef())
    }

    /// Under depth(2) an explicit value is kept only while it differs from the rule at
    /// the node's level: after a move to a level where the rule gives the same, it is
    /// dropped, and the rule decides once the node moves again.
    @Test func ruleDecidesAgainAfterAMoveUnderDepthTwo() throws {
        let both = try Both()
        let v = ViewRef(Self.one)
        both.create(Self.one, .depth(2))
        both.expect("levels 0 and 1 expanded (c has no children: not shown expanded)", "r+ a+ a1 a2 b+ b1 b2 c", v)
        both.setExpanded("a1", true, v)   // level 2: the rule says collapsed, so an entry
        both.setExpanded("b", false, v)   // level 1: the rule says expanded, so an entry
        both.expect("a1 opened, b closed", "r+ a+ a1+ a11 a2 b c", v)
        #expect(both.model.views[Self.one]!.explicit.count == 2)

        try both.move("a1", to: nil, v)   // level 0: the rule expands it, its entry goes
        #expect(both.model.views[Self.one]!.explicit.count == 1)
        both.expect("a1 a root, still expanded (by the rule now)", "r+ a+ a2 b c a1+ a11", v)
        try both.move("a1", to: "a", v)   // level 2 again: nothing says expanded any more
        both.expect("a1 back under a, collapsed", "r+ a+ a2 a1 b c", v)

        try both.move("b", to: "c", v)    // level 2: the rule collapses it, its entry goes
        #expect(both.model.views[Self.one]!.explicit.isEmpty)
        both.expect("b under c, collapsed", "r+ a+ a2 a1 c+ b", v)
        try both.move("b", to: nil, index: 0, v)  // level 0: the rule expands it
        both.expect("b a root, expanded by the rule (the collapse was forgotten)", "b+ b1 b2 r+ a+ a2 a1 c", v)
        both.expect("the default view: only r and the flags it had", "b r+ a c", ViewRef())
    }

    /// expandAll, collapseAll and expand(toDepth:) of a view's unfiltered rows replace its
    /// rule and forget its explicit expansion: one splice replaces every row.
    @Test func bulkExpansionReplacesEveryRow() throws {
        let both = try Both()
        let v = ViewRef(Self.one)
        both.create(Self.one, .collapsed)
        both.setExpanded("r", true, v)
        both.setExpanded("b", true, v)
        both.expect("r and b opened", "r+ a b+ b1 b2 c", v)
        both.model.expand(toDepth: nil, v)
        #expect(both.store.expandAll(v) == [Splice(index: 0, removed: 6, inserted: 9)])
        both.expect("everything with children expanded", "r+ a+ a1+ a11 a2 b+ b1 b2 c", v)
        #expect(both.model.views[Self.one]!.explicit.isEmpty)
        both.setExpanded("a", false, v)
        both.expect("a collapsed under expanded", "r+ a b+ b1 b2 c", v)
        both.model.expand(toDepth: 1, v)
        #expect(both.store.expand(toDepth: 1, v) == [Splice(index: 0, removed: 6, inserted: 4)])
        both.expect("depth 1: only the roots expanded", "r+ a b c", v)
        both.model.collapseAll(v)
        #expect(both.store.collapseAll(v) == [Splice(index: 0, removed: 4, inserted: 1)])
        both.expect("collapsed", "r", v)
        both.expect("the default view is untouched", "r+ a b c", ViewRef())
    }

    /// A change of one view's expansion records no splice for any other view; an edit
    /// through one view records each observed view's own splices.
    @Test func isolationAndEditsReachingEveryView() throws {
        let both = try Both()
        both.create(Self.one, .expanded)
        both.create(Self.two, .collapsed)
        let v1 = ViewRef(Self.one), v2 = ViewRef(Self.two), f2 = ViewRef(Self.two, filter: Self.pear)
        both.use(f2)
        let observed: [ViewRef] = [ViewRef(), v1, v2, f2]
        both.store.observedViews = Set(observed)
        _ = both.store.takeObservedSplices()

        let before = observed.map(both.modelRows)
        let splices = both.setExpanded("a", false, v1)
        #expect(splices == [Splice(index: 2, removed: 3, inserted: 0)])
        both.expect("a collapsed in view 1", "r+ a b+ b1 b2 c", v1)
        let recorded = both.store.takeObservedSplices()
        #expect(recorded.values.allSatisfy { $0.isEmpty }, "\(recorded)")
        for (i, v) in observed.enumerated() where v != v1 { #expect(both.engineRows(v) == before[i]) }

        // A rename through view 2 that makes c match: it joins view 2's filtered rows,
        // and every observed view's splices turn its old rows into its new ones.
        let old = observed.map(both.modelRows)
        let named = both.rename("c", "pear", v2)
        #expect(named.isEmpty, "view 2's unfiltered rows keep their nodes")
        let edited = both.store.takeObservedSplices()
        for (i, v) in observed.enumerated() where v != v2 {
            var rows = old[i]
            for s in edited[v] ?? [] {
                rows.replaceSubrange(s.index ..< s.index + s.removed, with: repeatElement("?", count: s.inserted))
            }
            let new = both.modelRows(v)
            #expect(rows.count == new.count && zip(rows, new).allSatisfy { $0 == "?" || $0 == $1 }, "\(v): \(edited[v] ?? [])")
            #expect(both.engineRows(v) == new)
        }
        both.expect("c matches in view 2's filtered rows", "r+ a+ a2 b+ b1 c", f2)
    }
}
