import Foundation
@testable import TreeEngine
import TreeFormats
@testable import TreeReference

/// One seed: a random tree uploaded to the engine and to the reference, then a
/// random operation sequence applied to both, comparing everything after each step:
/// the forest (walked by handle), every kept filtered view as it is (read without
/// naming it: rows, matchCount, each node's row, expansion and match, the kept list in
/// order), some views by naming them, and the splices of each step. Steps are
/// expansion changes, edits (which keep every filtered view, issue 10) and batches.
///
/// With `views` (issue 35, `ModelRun+Views.swift`) the run also creates and deletes views
/// besides the default one, names random views in its steps, observes every view's rows
/// and checks every view after each step.
final class ModelRun {
    let seed: UInt64
    var rng: SeededRandom
    var store: TreeStore
    let model: ReferenceForest
    /// The filtered views this run uses; view 0 is unfiltered, view i is `filters[i - 1]`.
    var filters: [FilterQuery] = []
    var treeJSON: String
    /// Every operation so far, for the failure message.
    var log: [String] = []
    var problems: [String] = []
    let verbose: Bool
    /// Check every view after each step (else the named one and a few others).
    let checkAllViews: Bool
    /// Views besides the default one (issue 35): created, deleted and named by the steps.
    let viewsMode: Bool
    /// The sorts the store kept from the start (children pages name others too).
    var sorts: [SortKeys] = []
    /// The number the next view created gets.
    var nextViewID: UInt64 = 1

    /// Loads a random tree. Problems are recorded (see `failed`).
    init(seed: UInt64, size: Int? = nil, views: Bool = false, verbose: Bool = false) {
        self.seed = seed
        viewsMode = views
        self.verbose = verbose
        rng = SeededRandom(seed: seed)
        var used = Set<String>()
        let n = size ?? RandomTrees.size(&rng)
        let gen = RandomTrees.forest(&rng, nodes: n, used: &used, extraTilde: n + 3)
        treeJSON = RandomTrees.json(gen, &rng)
        let capacity = rng.chance(0.2) ? rng.int(1 ... 2) : 4
        model = ReferenceForest(roots: gen.map { $0.refNode(parent: nil) }, capacity: capacity)
        store = TreeStore(forest: Forest())
        let coin = rng.chance(0.5)
        checkAllViews = coin
        if verbose { print("seed \(seed): tree \(treeJSON)") }
        do {
            store = TreeStore(forest: try Forest.parse(Array(treeJSON.utf8)).forest)
            store.dataReader = JSONFieldReader()
        } catch {
            problems.append("upload refused: \(error)")
            return
        }
        store.filteredViewCapacity = capacity
        // Filters split their titles between 1, 3 or 7 threads (or the default), even on small trees.
        store.filterWorkers = [nil, 1, 3, 7][Int(seed % 4)]
        // Children pages count with their bases, or walk (small subtrees) and evict bases often.
        store.childWalkLimit = [0, 8, 4096][Int(seed / 4 % 3)]
        store.childBaseCapacity = 2 + Int(seed / 12 % 3)
        // Sorted layouts (issue 37), from a random generator of their own: kept by every edit
        // from the start (the invariants compare each with a fresh sort after every change),
        // and named by children pages.
        var sortRng = SeededRandom(seed: seed &+ 0x5027)
        store.sortCapacity = sortRng.int(1 ... 3)
        sorts = (0 ..< sortRng.int(0 ... 2)).map { _ in RandomTrees.sortKeys(&sortRng) }
        for sort in sorts { store.prepareSort(sort) }
        adoptIDs(model.roots, store.forest.children(of: nil), "upload")
        checkForest(store.forest, "after upload")
        let k = rng.int(2 ... 3)
        for _ in 0 ..< k {
            var f = randomFilter()
            var tries = 0
            while filters.contains(f) && tries < 10 { f = randomFilter(); tries += 1 }
            if !filters.contains(f) { filters.append(f) }
        }
        // Issue 14: filters that extend each other, so that a view is often built from a
        // kept view whose query it narrows (`FilterQuery.isNarrowing`): a shorter one (the
        // text cut at the end) and a longer one (a title piece or more of a title added).
        if let f = filters.first(where: { $0.mode != .exact }), rng.chance(0.6) {
            let scalars = Array(f.text.unicodeScalars)
            var variants: [String] = []
            if scalars.count >= 2 {
                var s = String.UnicodeScalarView()
                s.append(contentsOf: scalars[0 ..< rng.int(1 ... scalars.count - 1)])
                variants.append(String(s))
            }
            variants.append(f.text + (rng.chance(0.5) ? rng.pick(RandomTrees.titlePieces) : String(rng.pick(["a", " ", "e", "\u{301}", "é"]))))
            for text in variants {
                let query = FilterQuery(text, mode: f.mode, caseSensitive: f.caseSensitive)
                if !filters.contains(query) { filters.append(query) }
            }
        }
        // Sometimes a canonically equivalent twin of a filter (NFC vs NFD): a different view,
        // since matching compares scalars (these once shared a view: Regressions.swift).
        if let f = filters.first, rng.chance(0.3) {
            let twin = rng.chance(0.5) ? f.text.decomposedStringWithCanonicalMapping : f.text.precomposedStringWithCanonicalMapping
            let query = FilterQuery(twin, mode: f.mode, caseSensitive: f.caseSensitive,
                                    diacriticInsensitive: f.diacriticInsensitive, leavesOnly: f.leavesOnly)
            if !filters.contains(query) { filters.append(query) }
        }
        // Filters that search data fields or compare them (issue 37), and one that extends
        // another's text (a narrowing build).
        if rng.chance(0.6) {
            let f = RandomTrees.fieldFilter(&rng)
            if !filters.contains(f) { filters.append(f) }
            if !f.text.isEmpty && f.mode != .exact && rng.chance(0.5) {
                var longer = f
                longer.text += rng.pick(["m", " ", "2", "é"])
                if !filters.contains(longer) { filters.append(longer) }
            }
        }
        log.append("capacity \(capacity), filters: " + filters.map { "[\($0)]" }.joined(separator: " "))
    }

    var failed: Bool { !problems.isEmpty }

    /// Long titles, data and ids, and mostly updates: enough garbage to compact the byte pools.
    var bigPayloads = false
    /// Sizes of the title, data and id pools seen after each step (to see compaction happen).
    var poolSizes: [(titles: Int, data: Int, ids: Int)] = []
    private var longIDCounter = 0


    func problem(_ text: @autoclosure () -> String) { problems.append(text()) }

    func expectEqual<T: Equatable>(_ engine: T, _ reference: T, _ what: @autoclosure () -> String) {
        if engine != reference { problems.append("\(what()): engine \(engine), reference \(reference)") }
    }

    var report: String {
        var text = "model test failed: seed \(seed) (rerun alone: MODEL_SEED=\(seed), trace: MODEL_VERBOSE=1)\n"
        text += treeJSON.count <= 6000 ? "tree: \(treeJSON)\n" : "tree: \(treeJSON.count) bytes of JSON\n"
        text += "ops:\n" + log.enumerated().map { "  \($0.offset): \($0.element)" }.joined(separator: "\n")
        text += "\nproblems:\n" + problems.prefix(20).map { "  " + $0 }.joined(separator: "\n")
        return text
    }

    // MARK: Views and nodes

    func filter(_ view: Int) -> FilterQuery? { view == 0 ? nil : filters[view - 1] }
    func viewName(_ view: Int) -> String { view == 0 ? "unfiltered" : "[\(filters[view - 1])]" }
    /// "unfiltered" or "[query]" in the default view, "view N …" in another.
    func viewName(_ ref: ViewRef) -> String {
        (ref.view.map { "view \($0) " } ?? "") + (ref.filter.map { "[\($0)]" } ?? "unfiltered")
    }

    func handle(_ node: RefNode) -> NodeHandle? { store.forest.node(withID: node.key) }

    func randomFilter() -> FilterQuery {
        let mode = rng.pick(FilterQuery.Mode.allCases)
        let titles = model.allNodes.map(\.title).filter { !$0.isEmpty }
        var text: String
        if !titles.isEmpty && rng.chance(0.8) {
            let title = rng.pick(titles)
            if rng.chance(0.5) {
                let scalars = Array(title.unicodeScalars)
                let start = mode == .contains ? rng.int(0 ... scalars.count - 1) : 0
                let end = mode == .exact ? scalars.count : rng.int(start + 1 ... scalars.count)
                var s = String.UnicodeScalarView()
                s.append(contentsOf: scalars[start ..< end])
                text = String(s)
            } else {
                let chars = Array(title)
                let start = mode == .contains ? rng.int(0 ... chars.count - 1) : 0
                let end = mode == .exact ? chars.count : rng.int(start + 1 ... chars.count)
                text = String(chars[start ..< end])
            }
        } else {
            text = (0 ..< rng.int(1 ... 2)).map { _ in rng.pick(RandomTrees.titlePieces) }.joined()
        }
        if rng.chance(0.3) { text = rng.chance(0.5) ? text.uppercased() : text.lowercased() }
        RandomTrees.vary(&text, mode: mode, &rng)
        if text.isEmpty { text = "a" }
        return FilterQuery(text, mode: mode, caseSensitive: rng.chance(0.3), diacriticInsensitive: rng.chance(0.4),
                           leavesOnly: rng.chance(0.25))
    }

    /// A title that likely matches one of the run's filters (or nearly: another case),
    /// so that renames and inserts change which nodes match and which are in A.
    func matchingTitle() -> String {
        guard !filters.isEmpty else { return RandomTrees.title(&rng) }
        let text = rng.pick(filters).text
        switch rng.int(0 ... 3) {
        case 0: return text
        case 1: return text + RandomTrees.title(&rng)
        case 2: return RandomTrees.title(&rng) + text
        default: return rng.chance(0.5) ? text.uppercased() : text.lowercased()
        }
    }

    /// Gives some nodes of a fragment to insert a `matchingTitle`.
    func giveMatchingTitles(_ gen: inout [GenNode]) {
        for i in gen.indices {
            if rng.chance(0.25) { gen[i].title = matchingTitle() }
            giveMatchingTitles(&gen[i].children)
        }
    }

    /// A random node, preferring one visible in the view.
    func randomNode(visibleIn ref: ViewRef? = nil) -> RefNode? {
        if let ref, rng.chance(0.7) {
            let rows = model.rows(ref, matchesBelow: false)
            if !rows.isEmpty {
                let id = rng.pick(rows).id
                return model.allNodes.first { $0.key == id }
            }
        }
        let all = model.allNodes
        return all.isEmpty ? nil : rng.pick(all)
    }

    // MARK: Checks

    /// Gives reference nodes uploaded without an id the engine's generated ids,
    /// matching nodes by structure.
    func adoptIDs(_ nodes: [RefNode], _ handles: [NodeHandle], _ context: String, forest: Forest? = nil) {
        let forest = forest ?? store.forest
        guard nodes.count == handles.count else {
            problem("\(context): \(handles.count) engine nodes for \(nodes.count) reference nodes")
            return
        }
        for (node, h) in zip(nodes, handles) {
            let id = forest.id(of: h)
            if let mine = node.id {
                expectEqual(id, mine, "\(context): id")
            } else {
                if case .integer = id { problem("\(context): generated id \(id) is an integer") }
                node.id = id
            }
            expectEqual(forest.title(of: h), node.title, "\(context): title of \(id)")
            adoptIDs(node.children, forest.children(of: h), context, forest: forest)
        }
    }

    /// Compares a forest with the reference node by node, in pre-order, walking the
    /// engine's nodes by handle (`children(of:)`), not by position.
    /// `lookups`: resolve every id with `node(withID:)` (else a few).
    func checkForest(_ forest: Forest, _ context: String, lookups: Bool = true) {
        var ids = Set<String>()
        /// Returns the size of the reference subtree.
        @discardableResult
        func visit(_ node: RefNode, _ h: NodeHandle, level: Int) -> Int {
            let what = "\(context): node \(node.key)"
            expectEqual(forest.id(of: h), node.id!, "\(what): id")
            if !ids.insert(node.key).inserted { problem("\(context): reference has id \(node.key) twice") }
            if lookups || rng.chance(0.05) { expectEqual(forest.node(withID: node.key), h, "\(what): node(withID:)") }
            expectEqual(forest.title(of: h), node.title, "\(what): title")
            expectEqual(forest.level(of: h), level, "\(what): level")
            expectEqual(forest.parent(of: h).map { forest.id(of: $0).description }, node.parent?.key, "\(what): parent")
            expectEqual(forest.hasChildren(h), node.hasChildren, "\(what): hasChildren")
            expectEqual(forest.declaresChildren(h), node.declaresChildren, "\(what): declaresChildren")
            expectEqual(forest.data(of: h), node.data, "\(what): data")
            expectEqual(forest.isExpandedUnfiltered(h), node.expanded, "\(what): expanded")
            expectEqual(forest.childCount(of: h), node.children.count, "\(what): childCount")
            let children = forest.children(of: h)
            guard children.count == node.children.count else { return 0 }
            var size = 1
            for (c, ch) in zip(node.children, children) { size += visit(c, ch, level: level + 1) }
            expectEqual(forest.subtreeCount(h), size, "\(what): subtreeCount")
            return size
        }
        let roots = forest.children(of: nil)
        expectEqual(forest.count, model.allNodes.count, "\(context): node count")
        expectEqual(roots.count, model.roots.count, "\(context): root count")
        guard roots.count == model.roots.count else { return }
        for (r, h) in zip(model.roots, roots) { visit(r, h, level: 0) }
    }

    /// Every kept filtered view, read without naming it (so without changing which views
    /// are kept): the kept list and its order, rows, matchCount, and for every node (a
    /// sample on large trees) its row index, expansion and match. This is where filtered
    /// views are seen to survive edits with the client's expansion (issue 10).
    func checkKeptViews(_ context: String) {
        expectEqual(store.keptFilters, model.kept, "\(context): kept filtered views (least recently used first)")
        if failed { return }
        let nodes = model.allNodes
        let sample = nodes.count <= 40 ? nodes : (0 ..< 40).map { _ in rng.pick(nodes) }
        for f in model.kept {
            let what = "\(context), kept view [\(f)]"
            let expected = model.rows(f)
            expectEqual(store.keptRowCount(f), expected.count, "\(what): rowCount")
            guard let rows = store.keptRows(f, offset: 0, limit: expected.count + 1) else {
                problem("\(what): not kept")
                continue
            }
            let got = rows.map(refRow)
            if got != expected {
                problem("\(what): rows differ\n    engine    \(got)\n    reference \(expected)")
                return
            }
            expectEqual(store.keptMatchCount(f), model.matchCount(f), "\(what): matchCount")
            var rowOf: [String: Int] = [:]
            for (i, r) in expected.enumerated() { rowOf[r.id] = i }
            for node in sample {
                guard let h = handle(node), let placement = store.keptPlacement(of: h, f) else {
                    problem("\(what): no placement of \(node.key)")
                    return
                }
                expectEqual(placement.index, rowOf[node.key], "\(what): row index of \(node.key)")
                expectEqual(placement.expanded, model.isExpanded(node, f), "\(what): expanded of \(node.key) (shown or not)")
                expectEqual(placement.match, ReferenceForest.matches(node, f), "\(what): isMatch of \(node.key)")
            }
            if failed { return }
            if rng.chance(0.3) { checkMatchIndex(f, nodes: nodes, sample: sample, what) }
        }
    }

    /// The matches of a kept view in tree order (rank and select) against the reference's.
    func checkMatchIndex(_ f: FilterQuery, nodes: [RefNode], sample: [RefNode], _ what: String) {
        store.prepareMatchIndex(f)
        let query = RefQuery(f)
        let matches = nodes.filter { ReferenceForest.matches($0, query) }.map(\.key)
        let got = (0 ..< matches.count).map { store.forest.id(of: store.keptMatch($0, f)).description }
        expectEqual(got, matches, "\(what): the matches in tree order")
        for node in sample {
            let before = nodes.prefix { $0 !== node }.filter { ReferenceForest.matches($0, query) }.count
            expectEqual(store.keptMatchRank(of: handle(node)!, f), before, "\(what): matches before \(node.key)")
        }
    }

    /// Compares one view: rows (all fields), counts, row indexes, expansion, matches.
    func checkView(_ view: Int, _ context: String) {
        let f = filter(view)
        let what = "\(context), view \(viewName(view))"
        model.use(f)
        let expected = model.rows(f)
        expectEqual(store.rowCount(f), expected.count, "\(what): rowCount")
        let all = store.rows(f, offset: 0, limit: expected.count + 1)
        let got = all.map(refRow)
        if got != expected {
            problem("\(what): rows differ\n    engine    \(got)\n    reference \(expected)")
            return
        }
        for (i, row) in all.enumerated() where row.index != i { problem("\(what): row \(i) has index \(row.index)") }
        let offset = rng.int(0 ... expected.count + 2), limit = rng.int(0 ... 8)
        let page = store.rows(f, offset: offset, limit: limit)
        let slice = offset >= expected.count ? [] : Array(expected[offset ..< min(expected.count, offset + limit)])
        expectEqual(page.map(refRow), slice, "\(what): page \(offset), \(limit)")
        expectEqual(page.map(\.index), Array(offset ..< offset + slice.count), "\(what): page indexes")
        if let f { expectEqual(store.matchCount(f), model.matchCount(f), "\(what): matchCount") }
        let nodes = model.allNodes
        guard !nodes.isEmpty else { return }
        for _ in 0 ..< 4 {
            let node = rng.pick(nodes)
            guard let h = handle(node) else { problem("\(what): no node \(node.key)"); continue }
            expectEqual(store.rowIndex(of: h, f), expected.firstIndex { $0.id == node.key }, "\(what): rowIndex of \(node.key)")
            expectEqual(store.isExpanded(h, f), model.isExpanded(node, f), "\(what): isExpanded of \(node.key)")
            let match = f.map { ReferenceForest.matches(node, $0) } ?? false
            expectEqual(store.isMatch(h, f), match, "\(what): isMatch of \(node.key)")
            if let f {
                // What highlights read, without a built view; and each row's matched fields.
                expectEqual(store.matches(h, f), match, "\(what): matches of \(node.key)")
                let q = RefQuery(f)
                let fields = f.text.isEmpty ? [] : f.fields.filter { ReferenceForest.textMatches(node.folding, node.data, $0, q) }
                expectEqual(store.matchedFields(of: h, f), fields, "\(what): matchedFields of \(node.key)")
            }
            // The view was just read, so it is kept: the shared readers' placement agrees.
            if let kept = store.keptPlacement(of: h, f) {
                expectEqual(kept.index, expected.firstIndex { $0.id == node.key }, "\(what): kept index of \(node.key)")
                expectEqual(kept.expanded, model.isExpanded(node, f), "\(what): kept expanded of \(node.key)")
                expectEqual(kept.match, match, "\(what): kept match of \(node.key)")
            } else {
                problem("\(what): no kept view right after reading it")
            }
        }
    }

    func refRow(_ row: Row) -> RefRow {
        let forest = store.forest
        return RefRow(id: forest.id(of: row.node).description, level: row.level, expanded: row.isExpanded,
                      hasChildren: row.hasChildren, parentID: row.parent.map { forest.id(of: $0).description },
                      isMatch: row.isMatch)
    }

    /// Applies `splices` to `old` and compares with `new`.
    func checkSplices(_ splices: [Splice], old: [RefKey], new: [RefKey], _ context: String) {
        var list = old
        for s in splices {
            guard s.index >= 0, s.removed >= 0, s.inserted >= 0, s.removed + s.inserted > 0,
                  s.index + s.removed <= list.count else {
                problem("\(context): bad splice \(s) on \(list.count) rows (all: \(splices))")
                return
            }
            list.replaceSubrange(s.index ..< s.index + s.removed,
                                 with: repeatElement(RefKey(id: "?", level: -1), count: s.inserted))
        }
        guard list.count == new.count else {
            problem("\(context): splices \(splices) turn \(old.count) rows into \(list.count), want \(new.count)\n    old \(old)\n    new \(new)")
            return
        }
        for i in list.indices where list[i].level >= 0 && list[i] != new[i] {
            problem("\(context): splices \(splices) leave \(list[i]) at row \(i), want \(new[i])\n    old \(old)\n    new \(new)")
            return
        }
    }

    /// Everything after a step: the forest, the views, which filtered views are kept.
    func checkAll(_ context: String, namedView: Int, forest: Bool = true, lookups: Bool = true) {
        if forest {
            checkForest(store.forest, context, lookups: lookups)
            if failed { return }
        }
        var views = Array(0 ... filters.count).shuffled(using: &rng)
        if !checkAllViews { views = views.filter { $0 == namedView || rng.chance(0.3) } }
        for v in views { checkView(v, context) }
        for f in filters { expectEqual(store.hasView(f), model.isKept(f), "\(context): hasView [\(f)]") }
        if !failed { checkAggregates(context) }
    }

    /// Issue 37: the aggregates of random nodes' descendants against a recount, for a few
    /// random sources (the indexes stay kept, so later edits must keep them right).
    func checkAggregates(_ context: String) {
        let nodes = model.allNodes
        guard !nodes.isEmpty else { return }
        let sample = (0 ..< min(8, nodes.count)).map { _ in rng.pick(nodes) }
        let sources = [AggregateSource.nodes] + RandomTrees.fieldPaths.map(AggregateSource.field)
        let picked = (0 ..< rng.int(1 ... 3)).map { _ in rng.pick(sources) }
        let got = store.aggregates(of: sample.map { handle($0)! }, picked)
        for (node, row) in zip(sample, got) {
            var below: [RefNode] = []
            for child in node.children { child.appendSubtree(to: &below) }
            for (source, aggregate) in zip(picked, row) {
                expectEqual(aggregate, ReferenceForest.aggregate(below, source), "\(context): aggregate \(source) of \(node.key)")
            }
        }
    }

    /// Exports the forest, parses it back, and compares with the reference.
    func checkExport(_ context: String) {
        var bytes: [UInt8] = []
        var chunks = 0
        let chunkSize = rng.chance(0.5) ? rng.int(1 ... 300) : 1 << 16
        store.forest.export(chunkSize: chunkSize) { chunk in bytes += chunk; chunks += 1 }
        do {
            let back = try Forest.parse(bytes, limits: ForestLimits(maxIDBytes: .max)).forest
            checkForest(back, "\(context): export (chunk size \(chunkSize)) parsed back")
        } catch {
            problem("\(context): export does not parse back: \(error)\n    \(String(decoding: bytes, as: UTF8.self))")
        }
    }

    // MARK: Steps

    func record(_ text: String) {
        log.append(text)
        if verbose { print("seed \(seed) op \(log.count - 1): \(text)") }
    }

    /// Runs `steps` random operations, checking after each; stops at the first problem.
    func run(steps: Int) {
        if failed { return }
        if viewsMode { createViews() }
        checkAll("after upload", namedView: 0)
        if viewsMode { checkViews("after upload") }
        for step in 0 ..< steps {
            if failed { return }
            let inserts = insertCount
            let observed = viewsMode ? observeEveryView() : observeViews()
            treeEdit = false
            let edited = randomStep()
            if failed { return }
            checkObservedSplices(observed, "after op \(log.count - 1)")
            if failed { return }
            checkKeptViews("after op \(log.count - 1)")
            if failed { return }
            checkAll("after op \(log.count - 1)", namedView: 0, forest: edited || rng.chance(0.1),
                     lookups: insertCount != inserts || rng.chance(0.1))
            if viewsMode && !failed {
                checkViews("after op \(log.count - 1)")
                if !failed { checkNamed("after op \(log.count - 1)") }
            }
            if !failed { checkSelections("after op \(log.count - 1)") }
            if bigPayloads {
                let forest = store.forest
                poolSizes.append((forest.titles.bytes.count, forest.dataPool.bytes.count, forest.ids.pool.bytes.count))
            }
            if rng.chance(0.03) || step == steps - 1 { checkExport("after op \(log.count - 1)") }
        }
    }

    /// Before a step: observes a random choice of the views kept (the unfiltered one
    /// among them), with their rows now.
    func observeViews() -> [(ViewRef, [RefKey])] {
        let views = ([nil] + model.kept.map { Optional($0) }).filter { _ in rng.chance(0.7) }.map { ViewRef(nil, filter: $0) }
        store.observedViews = Set(views)
        _ = store.takeObservedSplices()
        return views.map { ($0, model.rows($0, matchesBelow: false).map(\.key)) }
    }

    /// After a step: the splices recorded for each observed view it did not name, still
    /// kept, turn its rows before the step into its rows now (none recorded: no change).
    /// A step that edits nothing (expansion, a filter named, a view created or deleted)
    /// records no splice for any view but the one it names (issue 35: isolation).
    func checkObservedSplices(_ observed: [(ViewRef, [RefKey])], _ context: String) {
        let recorded = store.takeObservedSplices()
        if !treeEdit {
            for (ref, splices) in recorded where ref != named && !splices.isEmpty {
                problem("\(context): the step edited nothing, yet \(viewName(ref)) recorded splices \(splices)")
                return
            }
        }
        for (ref, old) in observed where ref != named && model.isKept(ref) {
            checkSplices(recorded[ref] ?? [], old: old, new: model.rows(ref, matchesBelow: false).map(\.key),
                         "\(context): observed \(viewName(ref))")
            if failed { return }
        }
    }

    /// One random operation; returns whether it was an edit of the forest
    /// (or an expansion in the unfiltered view, which lives in the forest's flags).
    @discardableResult
    func randomStep() -> Bool {
        if viewsMode {
            named = Self.noView
            if viewStep() { return false }
            let ref = randomRef()
            return rng.chance(0.1) ? selectionStep(ref) : step(ref)
        }
        let view = rng.chance(0.4) ? 0 : rng.int(1 ... filters.count)
        let ref = ViewRef(nil, filter: filter(view))
        // (Not among big payloads: their runs check that the byte pools shrink under churn.)
        return !bigPayloads && rng.chance(0.08) ? selectionStep(ref) : step(ref)
    }

    /// One random operation named with `ref` (see `randomStep`).
    func step(_ ref: ViewRef) -> Bool {
        let f = ref.filter
        named = ref
        let vn = viewName(ref)
        let old = model.rows(ref, matchesBelow: false).map(\.key)
        let hasNodes = !model.roots.isEmpty
        /// Whether a change of expansion is one of the forest's flags (the default view's).
        let inForest = ref == ViewRef()
        let roll = bigPayloads && rng.chance(0.5) ? rng.pick([95, 95, 95, 66, 50]) : rng.int(0 ... 109)
        switch roll {
        case 100 ..< 110:
            batchStep(ref)
            return true
        case 0 ..< 30 where hasNodes:
            let node = randomNode(visibleIn: ref)!
            let value = rng.chance(0.5)
            let recursive = rng.chance(0.25)
            record("setExpanded(\(node.key), \(value), recursive: \(recursive)) in \(vn)")
            let splices = store.setExpanded(handle(node)!, value, recursive: recursive, ref)
            model.setExpanded(node, value, recursive: recursive, ref)
            checkSplices(splices, old: old, new: model.rows(ref, matchesBelow: false).map(\.key), "setExpanded")
            return inForest
        case 30 ..< 36 where hasNodes:
            let node = randomNode()!
            record("reveal(\(node.key)) in \(vn)")
            let splices = store.reveal(handle(node)!, ref)
            model.reveal(node, ref)
            checkSplices(splices, old: old, new: model.rows(ref, matchesBelow: false).map(\.key), "reveal")
            return inForest
        case 36 ..< 45:
            let kind = rng.int(0 ... 2)
            let depth = rng.int(0 ... 4)
            let splices: [Splice]
            switch kind {
            case 0:
                record("expandAll in \(vn)")
                splices = store.expandAll(ref)
                model.expand(toDepth: nil, ref)
            case 1:
                record("collapseAll in \(vn)")
                splices = store.collapseAll(ref)
                model.collapseAll(ref)
            default:
                record("expand(toDepth: \(depth)) in \(vn)")
                splices = store.expand(toDepth: depth, ref)
                model.expand(toDepth: depth, ref)
            }
            let new = model.rows(ref, matchesBelow: false).map(\.key)
            checkSplices(splices, old: old, new: new, "bulk expansion")
            // A view's unfiltered rows: its rule changes, and one splice replaces every row.
            if ref.view != nil && f == nil {
                expectEqual(splices, old.isEmpty && new.isEmpty ? [] : [Splice(index: 0, removed: old.count, inserted: new.count)],
                            "bulk expansion of \(vn): splices")
            }
            return inForest
        case 45 ..< 47 where f != nil:
            record("prepareView(\(vn), cancelled)")
            do {
                try store.prepareView(ref, isCancelled: { true })
                if !model.isKept(ref) { problem("a cancelled build of a view that is not kept did not throw") }
                model.use(ref)
            } catch {
                if model.isKept(ref) { problem("prepareView of a kept view threw") }
            }
            return false
        case 47 ..< 65:
            insertStep(ref, old)
            return true
        case 65 ..< 72 where hasNodes:
            treeEdit = true
            let node = randomNode()!
            record("delete(\(node.key)) [subtree \(node.subtree.count)] in \(vn)")
            let splices = store.delete(handle(node)!, ref)
            model.delete(node)
            model.editDone(ref)
            checkSplices(splices, old: old, new: model.rows(ref, matchesBelow: false).map(\.key), "delete")
            return true
        case 72 ..< 90 where hasNodes:
            moveStep(ref, old)
            return true
        case 90 ..< 100 where hasNodes:
            treeEdit = true
            let node = randomNode()!
            var title = rng.chance(0.6) ? rng.chance(0.4) ? matchingTitle() : RandomTrees.title(&rng) : nil
            var data = rng.chance(0.4) ? rng.pick(RandomTrees.dataValues) : nil
            if bigPayloads {
                title = title.map { String(repeating: $0 + "x", count: rng.int(500 ... 2500)) }
                data = data.map { "[" + String(repeating: $0 + ",", count: rng.int(1000 ... 4000)) + "0]" }
            }
            record("update(\(node.key), title: \(title.map { "\"\($0.prefix(40))\" (\($0.utf8.count) bytes)" } ?? "nil"), data: \(data.map { "\($0.prefix(40)) (\($0.utf8.count) bytes)" } ?? "nil")) in \(vn)")
            let splices = store.update(handle(node)!, title: title, data: data.map { Array($0.utf8) }, ref)
            if let title { node.title = title }
            if let data { node.data = Array(data.utf8) }
            model.editDone(ref)
            checkSplices(splices, old: old, new: model.rows(ref, matchesBelow: false).map(\.key), "update")
            return true
        default:
            insertStep(ref, old)
            return true
        }
    }

    /// Ids of the nodes deleted by the current batch (an invalid operation may name one).
    var batchDeleted: [String] = []

    /// Inserts that succeeded (ids are then looked up in full).
    var insertCount = 0
    /// The view the current step names.
    var named = ViewRef()
    /// Whether the current step tried to edit the forest (or the store's views: created
    /// or deleted one); else no view but the named one may record a splice.
    var treeEdit = false

    func insertStep(_ ref: ViewRef, _ old: [RefKey]) {
        treeEdit = true
        let vn = viewName(ref)
        let existing = model.allNodes
        var used = Set(existing.map(\.key))
        let size = rng.chance(0.1) ? 0 : rng.chance(0.8) ? rng.int(1 ... 4) : rng.int(5 ... 12)
        // Explicit ids like `~5` may name what would be a generated id (two fixed bugs: Regressions.swift).
        var gen = RandomTrees.forest(&rng, nodes: size, used: &used, extraTilde: existing.count + 4)
        giveMatchingTitles(&gen)
        // Sometimes an id that is taken: the fragment must be refused.
        var expectDuplicate = false
        if size > 0 && rng.chance(0.08) {
            var ids = existing.map { $0.id! }
            func collect(_ g: GenNode) { if let id = g.id { ids.append(id) }; g.children.forEach(collect) }
            gen.forEach(collect)
            if !ids.isEmpty {
                var taken = rng.pick(ids)
                if case .integer(let v) = taken, rng.chance(0.5) { taken = .string(String(v)) }
                if case .string(let s) = taken, let v = Int64(s), String(v) == s, rng.chance(0.5) { taken = .integer(v) }
                func clearTaken(_ g: inout GenNode) {
                    if g.id?.description == taken.description { g.id = nil }
                    for i in g.children.indices { clearTaken(&g.children[i]) }
                }
                for i in gen.indices { clearTaken(&gen[i]) }
                gen[rng.int(0 ... gen.count - 1)].id = taken
                expectDuplicate = existing.contains { $0.key == taken.description }
                if !expectDuplicate {
                    // A duplicate inside the fragment instead.
                    gen.append(GenNode(id: taken, title: "dup"))
                    expectDuplicate = true
                }
            }
        }
        if bigPayloads && !expectDuplicate {
            func lengthen(_ g: inout GenNode) {
                if g.id == nil && rng.chance(0.5) {
                    longIDCounter += 1
                    g.id = .string("long\(longIDCounter)-" + String(repeating: "i", count: rng.int(3000 ... 9000)))
                }
                for i in g.children.indices { lengthen(&g.children[i]) }
            }
            for i in gen.indices { lengthen(&gen[i]) }
        }
        let json = RandomTrees.json(gen, &rng)
        let total = gen.reduce(0) { $0 + $1.count }
        var limits = ForestLimits()
        // Ids of up to 9 KB churn the id pool; the service's 4 KiB cap is a limit like any.
        if bigPayloads { limits.maxIDBytes = .max }
        var expectLimit = false
        if total > 0 && rng.chance(0.08) {
            expectLimit = rng.chance(0.5)
            limits.maxNodes = existing.count + total - (expectLimit ? 1 : 0)
        }
        // Placement.
        let placement: InsertPlacement
        var placementText: String
        var parent: RefNode? = nil
        var index: Int? = nil
        var anchor: (RefNode, before: Bool)? = nil
        if existing.isEmpty || rng.chance(0.6) {
            parent = existing.isEmpty || rng.chance(0.2) ? nil : rng.pick(existing)
            let count = model.siblings(of: parent).count
            index = rng.chance(0.3) ? nil : rng.chance(0.1) ? rng.pick([-1, count + 1, count + 2]) : rng.int(0 ... count)
            placement = .child(of: parent.flatMap(handle), index: index)
            placementText = ".child(of: \(parent?.key ?? "nil"), index: \(index.map(String.init) ?? "nil"))"
        } else {
            let node = rng.pick(existing)
            let before = rng.chance(0.5)
            anchor = (node, before)
            placement = before ? .before(handle(node)!) : .after(handle(node)!)
            placementText = before ? ".before(\(node.key))" : ".after(\(node.key))"
        }
        record("insert \(json.count > 2000 ? "(\(json.count) bytes of JSON)" : json) at \(placementText) in \(vn)\(expectLimit ? " (maxNodes \(limits.maxNodes))" : "")")
        let fragment: Forest
        do {
            // Every other body (chosen without drawing from `rng`, so that a seed's runs stay
            // as they were) is read as the service reads a request's: on its own, then
            // checked against the store, and read against it only when refused.
            let detached = json.utf8.count % 2 == 0
            fragment = try Array(json.utf8).withUnsafeBytes { (raw) throws(TreeInputError) -> Forest in
                if detached {
                    let read = try TreeStore.parseDetachedFragment(raw, limits: limits).fragment
                    if store.admits(read, limits: limits) { return read }
                    if !expectDuplicate && !expectLimit { problem("admits refused a fragment the store takes") }
                }
                return try store.parseFragment(raw, limits: limits).fragment
            }
        } catch {
            if !expectDuplicate && !expectLimit { problem("parseFragment refused: \(error)") }
            return
        }
        if expectDuplicate { problem("parseFragment accepted a taken id"); return }
        if expectLimit { problem("parseFragment accepted more than maxNodes \(limits.maxNodes)"); return }
        let nodes = gen.map { $0.refNode(parent: nil) }
        let expectedFailure: ReferenceForest.EditFailure?
        if let index, index < 0 || index > model.siblings(of: parent).count {
            expectedFailure = .indexOutOfRange
        } else {
            expectedFailure = nil
        }
        let result: (splices: [Splice], roots: [NodeHandle])
        do {
            result = try store.insert(fragment, placement, ref)
        } catch {
            if expectedFailure == nil { problem("insert refused: \(error)") }
            if expectedFailure == .indexOutOfRange && error.kind != .indexOutOfRange { problem("insert refused with \(error.kind)") }
            return
        }
        if expectedFailure != nil { problem("insert accepted an index out of range") ; return }
        if let (node, before) = anchor {
            if before { model.insert(nodes, before: node) } else { model.insert(nodes, after: node) }
        } else {
            _ = model.insert(nodes, parent: parent, index: index)
        }
        model.takeParentStates(nodes)
        model.editDone(ref)
        insertCount += 1
        adoptIDs(nodes, result.roots, "inserted nodes")
        let keys = model.allNodes.map(\.key)
        if Set(keys).count != keys.count {
            let dup = Dictionary(grouping: keys, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
            problem("after insert, several nodes have the ids \(dup)")
        }
        if failed { return }
        checkSplices(result.splices, old: old, new: model.rows(ref, matchesBelow: false).map(\.key), "insert")
    }

    func moveStep(_ ref: ViewRef, _ old: [RefKey]) {
        treeEdit = true
        let all = model.allNodes
        let node = viewsMode && rng.chance(0.4) ? nodeAboveAnException() ?? randomNode(visibleIn: ref)! : randomNode(visibleIn: ref)!
        let parent: RefNode? = rng.chance(0.2) ? nil : rng.chance(0.3) ? node.parent : rng.pick(all)
        let count = model.siblings(of: parent).filter { $0 !== node }.count
        let index: Int? = rng.chance(0.3) ? nil : rng.chance(0.1) ? rng.pick([-1, count + 1, count + 2]) : rng.int(0 ... count)
        record("move(\(node.key), to: \(parent?.key ?? "nil"), index: \(index.map(String.init) ?? "nil")) in \(viewName(ref))")
        let expected = model.move(node, to: parent, index: index)
        do {
            let splices = try store.move(handle(node)!, to: parent.flatMap(handle), index: index, ref)
            if let expected { problem("move accepted, expected \(expected)"); return }
            model.editDone(ref, moved: node)
            checkSplices(splices, old: old, new: model.rows(ref, matchesBelow: false).map(\.key), "move")
        } catch {
            switch (expected, error.kind) {
            case (.cycle?, .cycle), (.indexOutOfRange?, .indexOutOfRange): break
            default: problem("move refused with \(error.kind), expected \(expected.map { "\($0)" } ?? "success")")
            }
        }
    }
}
