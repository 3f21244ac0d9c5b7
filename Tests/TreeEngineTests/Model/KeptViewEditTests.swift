import Testing
@testable import TreeEngine
import TreeFormats
@testable import TreeReference

/// Issue 10 by hand: a filtered view keeps the client's expansion through edits, by the
/// rule the reference implements (`ReferenceForest.editDone`). Each step runs on the
/// engine and on the reference, and both must show the rows written out here, so the
/// reference's rule is checked against hand-worked examples too. (Before issue 10 an
/// edit dropped every filtered view and rebuilt the named one: rows differed from step 2 on.)
@Suite struct KeptViewEditTests {
    static let tree = #"""
        [{"id":"r","title":"root","expanded":true,"children":[
          {"id":"a","title":"apple","children":[{"id":"a1","title":"x"},{"id":"a2","title":"pear"}]},
          {"id":"b","title":"box","children":[{"id":"b1","title":"pear"},{"id":"b2","title":"y"}]},
          {"id":"c","title":"cup","children":[{"id":"c1","title":"z"}]}]}]
        """#
    static let pear = FilterQuery("pear")

    /// The engine and the reference, driven together.
    final class Both {
        var store: TreeStore
        let model: ReferenceForest
        var problems: [String] = []

        init() throws {
            store = TreeStore(forest: try Forest.parse(Array(KeptViewEditTests.tree.utf8)).forest)
            model = ReferenceForest(mirroring: store.forest, capacity: 4)
        }

        func ref(_ id: String) -> RefNode { model.allNodes.first { $0.key == id }! }
        func h(_ id: String) -> NodeHandle { store.forest.node(withID: id)! }

        /// Rows as ids, `+` when expanded.
        func engineRows(_ f: FilterQuery?) -> [String] {
            let forest = store.forest
            guard let rows = store.keptRows(f, offset: 0, limit: 1000) else { return ["(not kept)"] }
            return rows.map { forest.id(of: $0.node).description + ($0.isExpanded ? "+" : "") }
        }

        func modelRows(_ f: FilterQuery?) -> [String] { model.rows(f).map { $0.id + ($0.expanded ? "+" : "") } }

        func expect(_ step: String, _ rows: String, _ f: FilterQuery? = KeptViewEditTests.pear,
                    sourceLocation: SourceLocation = #_sourceLocation) {
            let want = rows.split(separator: " ").map(String.init)
            #expect(modelRows(f) == want, "reference, \(step)", sourceLocation: sourceLocation)
            #expect(engineRows(f) == want, "engine, \(step)", sourceLocation: sourceLocation)
            #expect(store.keptFilters == model.kept, "kept views, \(step)", sourceLocation: sourceLocation)
        }

        func insert(_ json: String, under parent: String, index: Int?, _ f: FilterQuery?) throws {
            let fragment = try Array(json.utf8).withUnsafeBytes { (raw) throws(TreeInputError) -> Forest in
                try store.parseFragment(raw, limits: ForestLimits()).fragment
            }
            let (_, roots) = try store.insert(fragment, .child(of: h(parent), index: index), f)
            let forest = store.forest
            func node(_ h: NodeHandle) -> RefNode {
                let n = RefNode(id: forest.id(of: h), title: forest.title(of: h), expanded: forest.isExpandedUnfiltered(h),
                                declaresChildren: forest.declaresChildren(h), data: forest.data(of: h))
                n.children = forest.children(of: h).map { let c = node($0); c.parent = n; return c }
                return n
            }
            _ = model.insert(roots.map(node), parent: ref(parent), index: index)
            model.editDone(f)
        }

        func rename(_ id: String, _ title: String, _ f: FilterQuery?) {
            _ = store.update(h(id), title: title, data: nil, f)
            ref(id).title = title
            model.editDone(f)
        }

        func setExpanded(_ id: String, _ value: Bool, _ f: FilterQuery?) {
            _ = store.setExpanded(h(id), value, f)
            model.setExpanded(ref(id), value, recursive: false, f)
        }
    }

    @Test func clientExpansionSurvivesEditsInAndOutsideTheView() throws {
        let both = try Both()
        let f = Self.pear
        both.model.use(f)
        _ = both.store.rowCount(f)
        both.expect("built: M = {a2, b1}, A = {r, a, b}, expanded = A", "r+ a+ a2 b+ b1")
        both.setExpanded("b", false, f)
        both.expect("the client collapses b", "r+ a+ a2 b")
        both.rename("c1", "Pear!", nil)
        both.expect("c1 matches (edit in the unfiltered view): c joins A and opens, b stays collapsed, f stays kept",
                    "r+ a+ a2 b c+ c1")
        try both.insert(#"[{"id":"m","title":"more","expanded":true,"children":[{"id":"m1","title":"q"}]}]"#,
                        under: "c1", index: nil, f)
        both.expect("m inserted under collapsed c1", "r+ a+ a2 b c+ c1")
        both.setExpanded("c1", true, f)
        both.expect("c1 opened: m is shown collapsed (inserted, not in A)", "r+ a+ a2 b c+ c1+ m")
        try both.insert(#"[{"id":"n","title":"new","children":[{"id":"n1","title":"pear"}]}]"#, under: "c", index: 0, nil)
        both.expect("n inserted with a matching child (unfiltered edit): n is in A, so expanded", "r+ a+ a2 b c+ n+ n1 c1+ m")
        _ = try both.store.move(both.h("a2"), to: both.h("b2"), index: nil, f)
        #expect(both.model.move(both.ref("a2"), to: both.ref("b2"), index: nil) == nil)
        both.model.editDone(f)
        both.expect("a2 moved under b2: a leaves A, b2 joins A (expanded), b keeps its collapse", "r+ b c+ n+ n1 c1+ m")
        both.setExpanded("b", true, f)
        both.expect("b opened", "r+ b+ b1 b2+ a2 c+ n+ n1 c1+ m")
        _ = both.store.delete(both.h("b1"), f)
        both.model.delete(both.ref("b1"))
        both.model.editDone(f)
        both.expect("b1 deleted", "r+ b+ b2+ a2 c+ n+ n1 c1+ m")
        both.rename("a2", "apple", f)
        both.expect("a2 no longer matches: b and b2 leave A (and the view)", "r+ c+ n+ n1 c1+ m")
        both.setExpanded("b", false, f)
        both.rename("a2", "pear", f)
        both.expect("a2 matches again: b and b2 become ancestors again and open, over the client's collapse of b",
                    "r+ b+ b2+ a2 c+ n+ n1 c1+ m")
        #expect(both.store.keptMatchCount(f) == 3)
        both.expect("the unfiltered view kept its own expansion", "r+ a b c", nil)
    }

    /// An edit named with a view that is not kept builds it from the forest before the
    /// edit (so its splices compare the view before and after), and drops no other view.
    @Test func anEditNamingAViewBuildsItBeforeTheEdit() throws {
        let both = try Both()
        let other = FilterQuery("y")
        both.model.use(other)
        _ = both.store.rowCount(other)
        both.setExpanded("b", false, other)
        let old = both.modelRows(Self.pear)
        #expect(old == ["r+", "a+", "a2", "b+", "b1"])
        let splices = both.store.update(both.h("a1"), title: "pear", data: nil, Self.pear)
        both.ref("a1").title = "pear"
        both.model.editDone(Self.pear)
        both.expect("a1 matches too", "r+ a+ a1 a2 b+ b1")
        both.expect("the other view kept the client's collapse of b", "r+ b", other)
        #expect(both.store.keptFilters == [other, Self.pear])
        var rows = old
        for s in splices { rows.replaceSubrange(s.index ..< s.index + s.removed, with: repeatElement("?", count: s.inserted)) }
        #expect(rows.count == 6 && rows.enumerated().allSatisfy { $0.element == "?" || $0.element == both.modelRows(Self.pear)[$0.offset] },
                "splices \(splices)")
    }
}
