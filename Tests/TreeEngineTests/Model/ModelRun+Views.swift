@testable import TreeEngine
@testable import TreeReference

/// Issue 35: views besides the default one, each with its own expansion and kept filtered
/// rows over the one forest (`RefView` in the reference). Steps name random views; every
/// view (its unfiltered rows and every kept filtered state) is checked after each step,
/// and every view's rows are observed, so each one's splices are checked too.
extension ModelRun {
    /// At most this many views besides the default one.
    static let maximumViews = 6
    /// What `named` is in a step that names no view's rows (a view created or deleted).
    static let noView = ViewRef(ViewID(.max))

    /// 1–6 views with random starts.
    func createViews() {
        for _ in 0 ..< rng.int(1 ... Self.maximumViews) { createView() }
    }

    /// A random start: collapsed, expanded, a depth, or a copy of a view or of the default view.
    func randomStart() -> ViewStart {
        let ids = model.viewIDs
        switch rng.int(0 ... 9) {
        case 0, 1: return .collapsed
        case 2, 3: return .expanded
        case 4, 5: return .depth(rng.int(0 ... 3))
        case 6 ... 7 where !ids.isEmpty: return .copy(of: rng.pick(ids))
        default: return .copy(of: nil)
        }
    }

    func createView() {
        nextViewID += UInt64(rng.chance(0.2) ? rng.int(1 ... 3) : 0)  // numbers need not be dense
        let id = ViewID(nextViewID)
        nextViewID += 1
        let start = randomStart()
        record("createView(\(id), \(start))")
        store.createView(id, start)
        model.createView(id, start)
    }

    /// With some chance a step of views alone (returns true): a view created or deleted,
    /// or a filter named in a view (a new query, one the view keeps, one another view
    /// keeps), sometimes with a build that is cancelled.
    func viewStep() -> Bool {
        let ids = model.viewIDs
        switch rng.int(0 ... 99) {
        case 0 ..< 4 where ids.count < Self.maximumViews:
            createView()
            return true
        case 4 ..< 6 where !ids.isEmpty:
            let id = rng.pick(ids)
            record("deleteView(\(id))")
            store.deleteView(id)
            model.deleteView(id)
            if store.contains(view: id) { problem("view \(id) is still there after deleteView") }
            return true
        case 6 ..< 16:
            let view: ViewID? = ids.isEmpty || rng.chance(0.2) ? nil : rng.pick(ids)
            let ref = ViewRef(view, filter: switchedFilter(in: view))
            named = ref
            let cancelled = rng.chance(0.15)
            record("prepareView(\(viewName(ref))\(cancelled ? ", cancelled" : ""))")
            let wasKept = model.isKept(ref)
            expectEqual(store.isKept(ref), wasKept, "before prepareView(\(viewName(ref))): isKept")
            do {
                try store.prepareView(ref, isCancelled: { cancelled })
                if cancelled && !wasKept { problem("a cancelled build of a view that is not kept did not throw") }
                model.use(ref)
            } catch {
                if !cancelled || wasKept { problem("prepareView(\(viewName(ref))) threw") }
            }
            return true
        case 18 ..< 22 where !ids.isEmpty:
            // Issue 37: a view sorted anew (by a kept sort, a new one, or none), keeping
            // every node's expansion and selection; its rows (all of them) change order.
            let id = rng.pick(ids)
            let sort: SortKeys? = rng.chance(0.25) ? nil : (sorts.isEmpty || rng.chance(0.4) ? RandomTrees.sortKeys(&rng) : rng.pick(sorts))
            let kept = model.keptFilters(in: id)
            let ref = ViewRef(id, filter: kept.isEmpty || rng.chance(0.6) ? nil : rng.pick(kept))
            named = ref
            treeEdit = true
            record("setSort(\(sort.map(String.init(describing:)) ?? "none"), of: \(viewName(ref)))")
            model.use(ref)
            let old = model.rows(ref, matchesBelow: false).map(\.key)
            let splices = store.setSort(sort, of: ref)
            model.views[id]!.sort = sort
            checkSplices(splices, old: old, new: model.rows(ref, matchesBelow: false).map(\.key), "setSort")
            expectEqual(store.sort(of: id), sort, "sort of view \(id)")
            return true
        case 16 ..< 18:
            // Issue 35: the views through the snapshot image (the run goes on with the loaded store).
            named = Self.noView
            record("image round trip")
            checkImage("image round trip with \(ids.count) views")
            return true
        default:
            return false
        }
    }

    /// The filter a view switches to: a new query (the run's list grows), one the view
    /// keeps, one another view keeps (the same query in two views), or one of the run's.
    func switchedFilter(in view: ViewID?) -> FilterQuery {
        let mine = model.keptFilters(in: view)
        let others = ([nil] + model.viewIDs.map(Optional.some)).filter { $0 != view }.flatMap { model.keptFilters(in: $0) }
        switch rng.int(0 ... 9) {
        case 0 where filters.count < 8:
            let f = randomFilter()
            if !filters.contains(f) { filters.append(f) }
            return f
        case 1 ... 3 where !mine.isEmpty: return rng.pick(mine)
        case 4 ... 6 where !others.isEmpty: return rng.pick(others)
        default: return rng.pick(filters)
        }
    }

    /// The view a step names: the default view (a filter of the run's or none), or a
    /// view with its unfiltered rows, a filter it keeps, or one of the run's.
    func randomRef() -> ViewRef {
        let ids = model.viewIDs
        if ids.isEmpty || rng.chance(0.25) {
            return ViewRef(nil, filter: rng.chance(0.4) ? nil : rng.pick(filters))
        }
        let view = rng.pick(ids)
        let kept = model.keptFilters(in: view)
        switch rng.int(0 ... 9) {
        case 0 ..< 5: return ViewRef(view)
        case 5 ..< 8 where !kept.isEmpty: return ViewRef(view, filter: rng.pick(kept))
        default: return ViewRef(view, filter: rng.pick(filters))
        }
    }

    /// A node whose subtree holds a node with an explicit expansion in a view under a depth
    /// rule (so that moving it may make the rule say what the entry says), or nil.
    func nodeAboveAnException() -> RefNode? {
        let views = model.views.values.filter { if case .depth = $0.rule { !$0.explicit.isEmpty } else { false } }
        guard !views.isEmpty else { return nil }
        let explicit = rng.pick(views).explicit
        let nodes = model.allNodes.filter { explicit[ObjectIdentifier($0)] != nil }
        guard !nodes.isEmpty else { return nil }
        let node = rng.pick(nodes)
        return rng.pick(node.path + [node])
    }

    /// Before a step: observes every row list of every view (the default one's too).
    func observeEveryView() -> [(ViewRef, [RefKey])] {
        let refs = ([nil] + model.viewIDs.map(Optional.some)).flatMap { model.refs(of: $0) }
        store.observedViews = Set(refs)
        _ = store.takeObservedSplices()
        return refs.map { ($0, model.rows($0, matchesBelow: false).map(\.key)) }
    }

    func refRowWithMatches(_ row: Row) -> RefRow {
        var r = refRow(row)
        r.matchesBelow = row.matchesBelow
        return r
    }

    /// Every view, read without naming it: the views, each one's kept filters in order,
    /// and for each of its row lists all rows (with `matchesBelow`), the counts, and each
    /// node's row index, expansion and match.
    func checkViews(_ context: String) {
        expectEqual(store.views, model.viewIDs, "\(context): views")
        if failed { return }
        let nodes = model.allNodes
        for view in [nil] + model.viewIDs.map(Optional.some) {
            if let view, !store.contains(view: view) { problem("\(context): no view \(view)"); return }
            expectEqual(store.keptFilters(in: view), model.keptFilters(in: view),
                        "\(context): filters kept in view \(view.map(String.init(describing:)) ?? "default") (least recently used first)")
            if failed { return }
            for ref in model.refs(of: view) {
                checkRows(ref, nodes: nodes, context)
                if failed { return }
            }
        }
    }

    /// One row list of a view as it is kept (no build, no change of order).
    func checkRows(_ ref: ViewRef, nodes: [RefNode], _ context: String) {
        let what = "\(context), \(viewName(ref))"
        let expected = model.rows(ref)
        expectEqual(store.isKept(ref), true, "\(what): isKept")
        expectEqual(store.keptRowCount(ref), expected.count, "\(what): rowCount")
        guard let rows = store.keptRows(ref, offset: 0, limit: expected.count + 1) else {
            problem("\(what): not kept")
            return
        }
        let got = rows.map(refRowWithMatches)
        if got != expected {
            problem("\(what): rows differ\n    engine    \(got)\n    reference \(expected)")
            return
        }
        for (i, row) in rows.enumerated() where row.index != i { problem("\(what): row \(i) has index \(row.index)") }
        var rowOf: [String: Int] = [:]
        for (i, r) in expected.enumerated() { rowOf[r.id] = i }
        var matches = Set<ObjectIdentifier>()
        if let f = ref.filter {
            matches = model.matchSet(f)
            expectEqual(store.keptMatchCount(ref), matches.count, "\(what): matchCount")
        }
        for node in nodes {
            guard let h = handle(node), let placement = store.keptPlacement(of: h, ref) else {
                problem("\(what): no placement of \(node.key)")
                return
            }
            expectEqual(placement.index, rowOf[node.key], "\(what): row index of \(node.key)")
            expectEqual(placement.expanded, model.isExpanded(node, ref), "\(what): expanded of \(node.key) (shown or not)")
            expectEqual(placement.match, matches.contains(ObjectIdentifier(node)), "\(what): isMatch of \(node.key)")
            if failed { return }
        }
        for parent in [nil] + (0 ..< min(3, nodes.count)).map({ _ in rng.pick(nodes) }) {
            checkChildren(of: parent, ref, rowOf: rowOf, what)
            if failed { return }
        }
        checkSiblingPlaces(of: (0 ..< min(6, nodes.count)).map { _ in rng.pick(nodes) }, in: ref.view, what)
    }

    /// Random nodes' places among their siblings (`positions`), of parents at any levels at
    /// once, as a rows page asks for them.
    func checkSiblingPlaces(of sample: [RefNode], in view: ViewID?, _ what: String) {
        let handles = sample.compactMap(handle)
        var places = store.keptSiblingPlaces(of: handles, in: view)
        if places == nil {
            store.prepareSiblingPlaces(of: handles, in: view)
            places = store.keptSiblingPlaces(of: handles, in: view)
        }
        guard let places else { problem("\(what): no sibling places after prepareSiblingPlaces"); return }
        for (node, h) in zip(sample, handles) {
            let siblings = model.ordered(node.parent?.children ?? model.roots, view).map(\.key)
            expectEqual(places[h]?.position, siblings.firstIndex(of: node.key), "\(what): position of \(node.key)")
            expectEqual(places[h]?.count, siblings.count, "\(what): sibling count of \(node.key)")
        }
    }

    /// A random page of a node's children in kept rows against the reference: each child's
    /// row, its row index and the number of its own children there.
    func checkChildren(of parent: RefNode?, _ ref: ViewRef, rowOf: [String: Int], _ what: String) {
        let h = parent.flatMap(handle)
        // Sometimes in the order of a sort: one kept from the start, or a new one; a sorted
        // view's in its own (named or not).
        var sort = rng.chance(0.5) ? (sorts.isEmpty || rng.chance(0.3) ? RandomTrees.sortKeys(&rng) : rng.pick(sorts)) : nil
        if let viewSort = store.sort(of: ref.view) { sort = rng.chance(0.5) ? viewSort : nil }
        var expected = model.children(of: parent, ref)
        if let sort { expected = ReferenceForest.sorted(expected, sort) }
        let offset = rng.int(0 ... expected.count + 1), limit = rng.int(0 ... 6)
        let node = (parent?.key ?? "the roots") + (sort.map { " sorted by \($0)" } ?? "")
        var page = store.keptChildren(of: h, ref, sort: sort, offset: offset, limit: limit)
        if page == nil {
            store.prepareChildren(of: h, sort: sort, in: ref.view)
            page = store.keptChildren(of: h, ref, sort: sort, offset: offset, limit: limit)
        }
        guard let page else { problem("\(what): no children of \(node) after prepareChildren"); return }
        expectEqual(page.total, expected.count, "\(what): children of \(node)")
        let slice = offset >= expected.count ? [] : Array(expected[offset ..< min(expected.count, offset + limit)])
        expectEqual(page.children.map { store.forest.id(of: $0.row.node).description }, slice.map(\.key),
                    "\(what): children \(offset), \(limit) of \(node)")
        guard !failed else { return }
        let q = ref.filter.map(RefQuery.init)
        for (k, (child, ref_)) in zip(page.children, slice).enumerated() {
            var level = 0, up = ref_.parent
            while let p = up { level += 1; up = p.parent }
            var below: Int? = nil
            if let q {
                var nodes: [RefNode] = []
                for c in ref_.children { c.appendSubtree(to: &nodes) }
                below = nodes.filter { ReferenceForest.matches($0, q) }.count
            }
            let row = RefRow(id: ref_.key, level: level, expanded: model.isExpanded(ref_, ref), hasChildren: ref_.hasChildren,
                             parentID: parent?.key, isMatch: q.map { ReferenceForest.matches(ref_, $0) } ?? false, matchesBelow: below)
            expectEqual(refRowWithMatches(child.row), row, "\(what): child \(ref_.key) of \(node)")
            expectEqual(child.row.index, offset + k, "\(what): place of \(ref_.key) among the children of \(node)")
            expectEqual(child.rowIndex, rowOf[ref_.key], "\(what): row index of child \(ref_.key)")
            expectEqual(child.childCount, model.children(of: ref_, ref).count, "\(what): child count of \(ref_.key)")
        }
        if ref.filter == nil && sort == nil { expectEqual(store.childCount(of: h), expected.count, "\(what): childCount of \(node)") }
        // Each child's place among all of the parent's children in the tree (`positions`).
        let nodes = page.children.map(\.row.node)
        var places = store.keptSiblingPlaces(of: nodes, in: ref.view)
        if places == nil {
            store.prepareSiblingPlaces(of: nodes, in: ref.view)
            places = store.keptSiblingPlaces(of: nodes, in: ref.view)
        }
        let siblings = model.ordered(parent?.children ?? model.roots, ref.view).map(\.key)
        for (child, ref_) in zip(nodes, slice) {
            let got = places?[child]
            expectEqual(got?.position, siblings.firstIndex(of: ref_.key), "\(what): position of \(ref_.key)")
            expectEqual(got?.count, siblings.count, "\(what): sibling count of \(ref_.key)")
        }
    }

    /// The view the step named, through the readers that name it (and may build it):
    /// counts, a random page, and a few nodes' row index, expansion and match.
    func checkNamed(_ context: String) {
        let ref = named
        if let view = ref.view, model.views[view] == nil { return }
        let what = "\(context), named \(viewName(ref))"
        model.use(ref)
        let expected = model.rows(ref)
        expectEqual(store.rowCount(ref), expected.count, "\(what): rowCount")
        let offset = rng.int(0 ... expected.count + 2), limit = rng.int(0 ... 8)
        let page = store.rows(ref, offset: offset, limit: limit)
        let slice = offset >= expected.count ? [] : Array(expected[offset ..< min(expected.count, offset + limit)])
        expectEqual(page.map(refRowWithMatches), slice, "\(what): page \(offset), \(limit)")
        expectEqual(page.map(\.index), Array(offset ..< offset + slice.count), "\(what): page indexes")
        if let f = ref.filter { expectEqual(store.matchCount(ref), model.matchCount(f), "\(what): matchCount") }
        let nodes = model.allNodes
        guard !nodes.isEmpty else { return }
        for _ in 0 ..< 4 {
            let node = rng.pick(nodes)
            guard let h = handle(node) else { problem("\(what): no node \(node.key)"); continue }
            expectEqual(store.rowIndex(of: h, ref), expected.firstIndex { $0.id == node.key }, "\(what): rowIndex of \(node.key)")
            expectEqual(store.isExpanded(h, ref), model.isExpanded(node, ref), "\(what): isExpanded of \(node.key)")
            expectEqual(store.isMatch(h, ref), ref.filter.map { ReferenceForest.matches(node, $0) } ?? false,
                        "\(what): isMatch of \(node.key)")
        }
    }
}
