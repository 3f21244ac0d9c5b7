import Testing
@testable import TreeEngine
import TreeFormats
@testable import TreeReference
import TreeStorage

/// Selections (issue 36) against a plain map from node to state, over random trees, random
/// selection changes and random edits in between, in several views at once. Every node's
/// state, the counts below it, the list of selected nodes (all, top-most, paged) are
/// compared after each step; the store checks its invariants after each operation.
@Suite struct SelectionTests {
    /// What a selection is, node by node: the nodes' states and what a new root takes.
    struct Plain {
        var selected: [NodeHandle: Bool] = [:]
        var rootState = false

        func state(_ node: NodeHandle) -> Bool { selected[node] ?? false }
    }

    final class Run {
        var rng: SeededRandom
        var store: TreeStore
        var plain: [ViewID?: Plain] = [nil: Plain()]
        var log: [String] = []
        var nextTitle = 0

        init(seed: Int) throws {
            rng = SeededRandom(seed: UInt64(seed) &+ 36_000)
            var used = Set<String>()
            let gen = RandomTrees.forest(&rng, nodes: rng.int(1 ... 60), used: &used, extraTilde: 70)
            store = TreeStore(forest: try Forest.parse(Array(RandomTrees.json(gen, &rng).utf8)).forest)
            for id in 1 ... 2 {
                store.createView(ViewID(UInt64(id)), rng.pick([.collapsed, .expanded, .depth(2)]))
                plain[ViewID(UInt64(id))] = Plain()
            }
        }

        static func nodes(_ store: TreeStore) -> [NodeHandle] {
            var out: [NodeHandle] = []
            store.forest.forEachNode { node, _ in out.append(node) }
            return out
        }

        static func subtree(_ store: TreeStore, _ node: NodeHandle) -> [NodeHandle] {
            var out = [node]
            for child in store.forest.children(of: node) { out += subtree(store, child) }
            return out
        }

        /// One random step.
        func step(_ store: inout TreeStore) throws {
            let view: ViewID? = rng.pick([nil, ViewID(1), ViewID(2)])
            let all = Run.nodes(store)
            switch rng.int(0 ... 99) {
            case 0 ..< 30 where !all.isEmpty:
                let node = rng.pick(all), value = rng.chance(0.6), recursive = rng.chance(0.7)
                log.append("setSelected(\(store.forest.id(of: node)), \(value), recursive: \(recursive), in: \(String(describing: view)))")
                store.setSelected(node, value, recursive: recursive, in: view)
                for n in recursive ? Run.subtree(store, node) : [node] { plain[view]!.selected[n] = value }
            case 30 ..< 34:
                log.append("selectAll(\(String(describing: view)))")
                store.selectAll(ViewRef(view))
                plain[view] = Plain(selected: Dictionary(uniqueKeysWithValues: all.map { ($0, true) }), rootState: true)
            case 34 ..< 37:
                log.append("selectNone(\(String(describing: view)))")
                store.selectNone(in: view)
                plain[view] = Plain()
            case 37 ..< 42:
                log.append("invertSelection(\(String(describing: view)))")
                store.invertSelection(ViewRef(view))
                for n in all { plain[view]!.selected[n] = !plain[view]!.state(n) }
                plain[view]!.rootState.toggle()
            case 42 ..< 50:
                let rows = store.rows(ViewRef(view), offset: 0, limit: .max)
                guard !rows.isEmpty else { return }
                let offset = rng.int(0 ... rows.count - 1), count = rng.int(1 ... 8)
                let value = rng.chance(0.6), recursive = rng.chance(0.7)
                log.append("selectRows(\(String(describing: view)), \(offset), \(count), \(value), recursive: \(recursive))")
                store.selectRows(ViewRef(view), offset: offset, count: count, value, recursive: recursive)
                for row in rows[offset ..< min(rows.count, offset + count)] {
                    for n in recursive && !row.isExpanded ? Run.subtree(store, row.node) : [row.node] { plain[view]!.selected[n] = value }
                }
            case 50 ..< 58 where !all.isEmpty:
                // Filtered rows: select all or invert acts on each match not below another, with its subtree.
                let node = rng.pick(all)
                let title = store.forest.title(of: node)
                guard !title.isEmpty else { return }
                let filter = FilterQuery(String(title.prefix(rng.int(1 ... title.count))))
                let invert = rng.chance(0.5)
                log.append("\(invert ? "invertSelection" : "selectAll")(\(String(describing: view)), filter: \(filter))")
                var top: [NodeHandle] = []
                for n in all where RefTitle(store.forest.title(of: n)).matches(RefQuery(filter)) {
                    if !top.contains(where: { store.forest.isAncestorOrSelf($0, of: n) }) { top.append(n) }
                }
                if invert { store.invertSelection(ViewRef(view, filter: filter)) } else { store.selectAll(ViewRef(view, filter: filter)) }
                for t in top {
                    for n in Run.subtree(store, t) { plain[view]!.selected[n] = invert ? !plain[view]!.state(n) : true }
                }
            case 58 ..< 75:
                // Insert under a random node or as a root: the new nodes take the parent's state.
                let parent: NodeHandle? = all.isEmpty || rng.chance(0.2) ? nil : rng.pick(all)
                nextTitle += 1
                let json = #"[{"title":"new \#(nextTitle)","children":[{"title":"new \#(nextTitle).1"}]}]"#
                let fragment = try Array(json.utf8).withUnsafeBytes { (raw) throws(TreeInputError) -> Forest in
                    try store.parseFragment(raw, limits: ForestLimits()).fragment
                }
                log.append("insert under \(parent.map { store.forest.id(of: $0).description } ?? "nil")")
                let index = rng.chance(0.5) ? nil : rng.int(0 ... store.forest.childCount(of: parent))
                let roots = try store.insert(fragment, .child(of: parent, index: index), ViewRef(view)).roots
                for (id, var p) in plain {
                    let state = parent.map { p.state($0) } ?? p.rootState
                    for root in roots { for n in Run.subtree(store, root) { p.selected[n] = state } }
                    plain[id] = p
                }
            case 75 ..< 85 where !all.isEmpty:
                let node = rng.pick(all)
                log.append("delete \(store.forest.id(of: node))")
                let gone = Run.subtree(store, node)
                _ = store.delete(node, ViewRef(view))
                for id in plain.keys { for n in gone { plain[id]!.selected[n] = nil } }
            case 85 ..< 88 where store.undo == nil:
                // Through the snapshot image: the states by id.
                log.append("image round trip")
                let ids = Dictionary(uniqueKeysWithValues: all.map { ($0, store.forest.id(of: $0).description) })
                store = try StoreImage.image(of: store).withUnsafeBytes { try StoreImage.load($0) }.store
                for (id, p) in plain {
                    var moved = Plain(rootState: p.rootState)
                    for (node, value) in p.selected { moved.selected[store.forest.node(withID: ids[node]!)!] = value }
                    plain[id] = moved
                }
            case 88 ..< 100 where all.count > 1:
                let node = rng.pick(all)
                let parent: NodeHandle? = rng.chance(0.2) ? nil : rng.pick(all)
                guard store.moveProblem(node, to: parent, index: nil) == nil else { return }
                log.append("move \(store.forest.id(of: node)) under \(parent.map { store.forest.id(of: $0).description } ?? "nil")")
                _ = try store.move(node, to: parent, index: nil, ViewRef(view))
            default:
                return
            }
        }

        /// Every view's selection against the plain one.
        func check() -> [String] {
            var problems: [String] = []
            let all = Run.nodes(store)
            for (view, p) in plain {
                let name = String(describing: view)
                var count = 0
                for node in all {
                    let below = Run.subtree(store, node).dropFirst()
                    let selectedBelow = below.filter { p.state($0) }.count
                    let state = store.selectionState(of: node, in: view)
                    let partial = !below.isEmpty && (p.state(node) ? selectedBelow < below.count : selectedBelow > 0)
                    if store.isSelected(node, in: view) != p.state(node) || state != (p.state(node), selectedBelow, partial) {
                        problems.append("view \(name): node \(store.forest.id(of: node)): \(state), expected \((p.state(node), selectedBelow, partial))")
                    }
                    if p.state(node) { count += 1 }
                }
                if store.selectedCount(in: view) != count { problems.append("view \(name): selectedCount \(store.selectedCount(in: view)), expected \(count)") }
                let selected = all.filter { p.state($0) }
                let top = selected.filter { n in store.forest.parent(of: n).map { !p.state($0) } ?? true }
                if store.selectedNodes(in: view, after: nil, limit: .max, topMost: false) != selected { problems.append("view \(name): selectedNodes") }
                if store.selectedNodes(in: view, after: nil, limit: .max, topMost: true) != top { problems.append("view \(name): top-most selected nodes") }
                // Paged from a random node, a few at a time.
                if !all.isEmpty {
                    let after = rng.pick(all), limit = rng.int(1 ... 4)
                    let position = all.firstIndex(of: after)!
                    for topMost in [false, true] {
                        let expected = Array(all[(position + 1)...].filter { (topMost ? top : selected).contains($0) }.prefix(limit))
                        if store.selectedNodes(in: view, after: after, limit: limit, topMost: topMost) != expected {
                            problems.append("view \(name): \(limit) selected nodes after \(store.forest.id(of: after)), topMost \(topMost)")
                        }
                    }
                }
                // Rows carry the states.
                for row in store.rows(ViewRef(view), offset: 0, limit: .max) where row.isSelected != p.state(row.node) {
                    problems.append("view \(name): row \(row.index) isSelected")
                }
            }
            return problems
        }
    }

    @Test(arguments: 0 ..< 60)
    func randomSelections(seed: Int) throws {
        let run = try Run(seed: seed)
        for stepNumber in 0 ..< 60 {
            if run.rng.chance(0.1) {
                // A transaction that fails changes no selection.
                let before = run.plain
                struct Refused: Error {}
                run.log.append("failed transaction {")
                _ = try? run.store.transaction { store throws(Refused) in
                    for _ in 0 ..< run.rng.int(1 ... 4) { try? run.step(&store) }
                    throw Refused()
                }
                run.log.append("}")
                run.plain = before
            } else {
                try run.step(&run.store)
            }
            let problems = run.check()
            guard problems.isEmpty else {
                Issue.record("seed \(seed) step \(stepNumber): \(problems.prefix(5).joined(separator: "; "))\n\(run.log.joined(separator: "\n"))")
                return
            }
        }
    }
}
