// The edit ops of tree-bench: insert, delete, move, rename and batch, on the generated
// trees, with four filtered views kept in the store while editing.
//
// Nodes are picked by handle (a pool collected once by walking `children(of:)`, plus the
// inserted roots, minus the deleted subtrees), never by position. Every edit is checked
// (outside the timing) against what it must have done, and the whole forest is recounted
// after each op's series: a wrong answer stops the run.
import Foundation
import TreeEngine
import TreeFormats

/// The filtered views kept while editing: two that match a third of the nodes each, one
/// that matches every leaf ("Level 13" on 7.2M: two thirds of it), and a small one (the
/// nodes of level 7).
func editFilters(_ d: Dataset) -> [FilterQuery] {
    ["item: 2", "Level \(d.nestLevel - 1)", "item: 1", "Level 7"].map { FilterQuery($0) }
}

/// Every node of `forest`, depth first, by handle.
/// - Complexity: O(n)
func allHandles(_ forest: Forest) -> [NodeHandle] {
    var out: [NodeHandle] = []
    out.reserveCapacity(forest.count)
    var stack = forest.children(of: nil)
    while let h = stack.popLast() {
        out.append(h)
        stack.append(contentsOf: forest.children(of: h))
    }
    return out
}

/// Handles to pick random live nodes from. Deleted nodes are remembered and skipped
/// (dropped from the pool when drawn); inserted roots join it.
struct NodePool {
    var handles: [NodeHandle]
    var dead: Set<NodeHandle> = []

    mutating func random(using rng: inout SplitMix64) -> NodeHandle {
        while true {
            let i = Int.random(in: 0 ..< handles.count, using: &rng)
            let h = handles[i]
            if !dead.contains(h) { return h }
            handles.swapAt(i, handles.count - 1)
            handles.removeLast()
        }
    }

    mutating func added(_ hs: [NodeHandle]) {
        for h in hs {
            dead.remove(h) // a slot may be reused for a new node
            handles.append(h)
        }
    }

    mutating func removed(_ hs: [NodeHandle]) { dead.formUnion(hs) }
}

/// A title of the generator's shape, so that inserted and renamed nodes match (or stop
/// matching) the kept filters as the generated ones do.
func randomTitle(using rng: inout SplitMix64) -> String {
    "Level \(Int.random(in: 0 ... 13, using: &rng)), item: \(Int.random(in: 1 ... 3, using: &rng))"
}

func fragmentJSON(_ titles: [String]) -> [UInt8] {
    Array(("[" + titles.map { "{\"title\":\"\($0)\"}" }.joined(separator: ",") + "]").utf8)
}

/// One edit of a batch, chosen before the timing starts.
enum BatchEdit {
    case insert(parent: NodeHandle, index: Int?, json: [UInt8])
    case delete(NodeHandle)
    case move(NodeHandle, to: NodeHandle, index: Int?)
    case rename(NodeHandle, String)
}

/// What a walk over the whole forest counts, to check the store against.
struct Recount: Equatable {
    var nodes = 0
    var unfilteredRows = 0
    var matches: [Int] = []
}

/// Counts nodes, rows of the unfiltered view (a node is shown when its parent is shown
/// and expanded; roots are shown) and matches of each filter (ASCII, any case: the
/// generated titles are ASCII), independently of the store's views.
/// - Complexity: O(n + total title length)
func recount(_ forest: Forest, _ filters: [FilterQuery]) -> Recount {
    let needles = filters.map { Array($0.text.lowercased().utf8) }
    var r = Recount(matches: Array(repeating: 0, count: filters.count))
    var stack = forest.children(of: nil).map { ($0, true) }
    while let (h, shown) = stack.popLast() {
        r.nodes += 1
        if shown { r.unfilteredRows += 1 }
        forest.withTitle(of: h) { title in
            for (i, needle) in needles.enumerated() where containsLowercased(title, needle) { r.matches[i] += 1 }
        }
        let childrenShown = shown && forest.isExpandedUnfiltered(h)
        for c in forest.children(of: h) { stack.append((c, childrenShown)) }
    }
    return r
}

func containsLowercased(_ haystack: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
    guard needle.count <= haystack.count else { return false }
    func lower(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b | 0x20 : b }
    outer: for i in 0 ... haystack.count - needle.count {
        for j in 0 ..< needle.count where lower(haystack[i + j]) != needle[j] { continue outer }
        return true
    }
    return false
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("tree-bench: \(message)\n".utf8))
    exit(1)
}

struct EditBench {
    var store: TreeStore
    /// The four filtered views kept while editing.
    let filters: [FilterQuery]
    var pool: NodePool
    var rng: SplitMix64
    /// Time to have the four views kept again before an edit (a rebuild when the engine dropped them).
    var restores: [Double] = []
    /// The users' views (see Views.swift), which follow every edit.
    var views: [ViewID] = []
    /// The views' filtered rows in use (`views.filter.*`).
    var filtering: [ViewRef] = []
    /// The sorted views (`sorted.*`).
    var sortedViews: [ViewID] = []
    /// The complexity guard's store with a folder of n / 7 children (`children.page`).
    var flat: TreeStore? = nil

    /// Names the four filters, so that each is kept (built when the engine dropped it).
    mutating func keepViews() {
        restores.append(seconds { for f in filters { try! store.prepareView(f) } })
        guard filters.allSatisfy({ store.hasView($0) }) else { fail("the four filtered views are not kept") }
    }

    /// Runs one timed edit on `view` with the four views kept before it, and checks that
    /// the view's row count moved by what the returned splices say.
    mutating func timedEdit(_ view: ViewRef, _ body: (inout TreeStore) -> [Splice]) -> Double {
        keepViews()
        let rowsBefore = store.rowCount(view)
        var splices: [Splice] = []
        let t = seconds { splices = body(&store) }
        let rowsAfter = store.rowCount(view)
        let delta = splices.reduce(0) { $0 + $1.inserted - $1.removed }
        if rowsAfter - rowsBefore != delta {
            fail("rows of \(view) went \(rowsBefore) -> \(rowsAfter), the splices say \(delta)")
        }
        return t
    }

    /// A random leaf or near-leaf (a node whose children are all leaves), and its subtree.
    mutating func smallSubtree() -> (NodeHandle, [NodeHandle]) {
        var node = pool.random(using: &rng)
        while true {
            let kids = store.forest.children(of: node)
            if kids.allSatisfy({ store.forest.childCount(of: $0) == 0 }) { return (node, [node] + kids) }
            node = kids[Int.random(in: 0 ..< kids.count, using: &rng)]
        }
    }

    /// A random live node outside `excluded`.
    mutating func randomNode(outside excluded: [NodeHandle]) -> NodeHandle {
        while true {
            let h = pool.random(using: &rng)
            if !excluded.contains(h) { return h }
        }
    }

    mutating func insert(_ view: ViewRef) -> Double {
        let parent = pool.random(using: &rng)
        let index = Int.random(in: 0 ... store.forest.childCount(of: parent), using: &rng)
        let json = fragmentJSON((0 ..< 10).map { _ in randomTitle(using: &rng) })
        let count = store.forest.count
        var roots: [NodeHandle] = []
        let t = timedEdit(view) { store in
            // parsing the 10 nodes is part of an insert, as it was in earlier runs
            let fragment = json.withUnsafeBytes { try! store.parseFragment($0, limits: ForestLimits()).fragment }
            let result = try! store.insert(fragment, .child(of: parent, index: index), view)
            roots = result.roots
            return result.splices
        }
        guard roots.count == 10, roots.allSatisfy({ store.forest.parent(of: $0) == parent }),
              store.forest.count == count + 10 else { fail("insert: the 10 nodes are not where they were put") }
        pool.added(roots)
        return t
    }

    mutating func delete(_ view: ViewRef) -> Double {
        let (node, subtree) = smallSubtree()
        let count = store.forest.count
        let t = timedEdit(view) { $0.delete(node, view) }
        guard store.forest.count == count - subtree.count else { fail("delete: \(subtree.count) nodes should be gone") }
        pool.removed(subtree)
        return t
    }

    mutating func move(_ view: ViewRef) -> Double {
        let (node, subtree) = smallSubtree()
        let target = randomNode(outside: subtree)
        let siblings = store.forest.childCount(of: target) - (store.forest.parent(of: node) == target ? 1 : 0)
        let index = Int.random(in: 0 ... siblings, using: &rng)
        let count = store.forest.count
        let t = timedEdit(view) { try! $0.move(node, to: target, index: index, view) }
        guard store.forest.parent(of: node) == target, store.forest.children(of: target)[index] == node,
              store.forest.count == count else { fail("move: the node is not where it was moved") }
        return t
    }

    mutating func rename(_ view: ViewRef) -> Double {
        let node = pool.random(using: &rng)
        let title = randomTitle(using: &rng)
        let t = timedEdit(view) { $0.update(node, title: title, data: nil, view) }
        guard store.forest.title(of: node) == title else { fail("rename: the title did not change") }
        return t
    }

    /// Recounts the whole forest and compares: node count, unfiltered rows, and the match
    /// count of every kept filter.
    mutating func audit(after what: String) {
        let r = recount(store.forest, filters)
        var seen = Recount(nodes: store.forest.count, unfilteredRows: store.rowCount(nil))
        seen.matches = filters.map { store.matchCount($0) }
        if r != seen { fail("after \(what): the store says \(seen), a recount \(r)") }
    }

    // MARK: Batches

    /// `count` mixed edits (a quarter each: insert one node, delete a leaf, move a leaf to
    /// a random other node, rename) that stay valid applied in order: a node that receives
    /// children or is moved is never deleted or moved later, a deleted one is never named
    /// again, and indexes are 0 or "after the last".
    mutating func batch(_ count: Int) -> [BatchEdit] {
        var pinned = Set<NodeHandle>(), gone = Set<NodeHandle>()
        var edits: [BatchEdit] = []
        edits.reserveCapacity(count)
        func live(_ bench: inout EditBench) -> NodeHandle {
            while true {
                let h = bench.pool.random(using: &bench.rng)
                if !gone.contains(h) { return h }
            }
        }
        func freeLeaf(_ bench: inout EditBench) -> NodeHandle {
            while true {
                let h = live(&bench)
                if !pinned.contains(h) && bench.store.forest.childCount(of: h) == 0 { return h }
            }
        }
        while edits.count < count {
            let index: Int? = Bool.random(using: &rng) ? 0 : nil
            switch Int.random(in: 0 ..< 4, using: &rng) {
            case 0:
                let parent = live(&self)
                pinned.insert(parent)
                edits.append(.insert(parent: parent, index: index, json: fragmentJSON([randomTitle(using: &rng)])))
            case 1:
                let leaf = freeLeaf(&self)
                pinned.insert(leaf)
                gone.insert(leaf)
                edits.append(.delete(leaf))
            case 2:
                let leaf = freeLeaf(&self)
                pinned.insert(leaf)
                var target = live(&self)
                while target == leaf { target = live(&self) }
                pinned.insert(target)
                edits.append(.move(leaf, to: target, index: index))
            default:
                edits.append(.rename(live(&self), randomTitle(using: &rng)))
            }
        }
        return edits
    }

    /// Applies one batch edit (an insert parses its one-node fragment here, as a single
    /// insert does), naming the unfiltered view.
    static func apply(_ edit: BatchEdit, _ store: inout TreeStore, inserted: inout [NodeHandle]) throws(EditError) -> [Splice] {
        switch edit {
        case .insert(let parent, let index, let json):
            let fragment = json.withUnsafeBytes { try! store.parseFragment($0, limits: ForestLimits()).fragment }
            let result = try store.insert(fragment, .child(of: parent, index: index), nil)
            inserted.append(contentsOf: result.roots)
            return result.splices
        case .delete(let node):
            return store.delete(node, nil)
        case .move(let node, let target, let index):
            return try store.move(node, to: target, index: index, nil)
        case .rename(let node, let title):
            return store.update(node, title: title, data: nil, nil)
        }
    }

    /// `count` edits of `batch(_:)` applied in one transaction, naming the unfiltered view,
    /// with the four views kept; checked against what the edits say and audited after.
    /// - Returns: the time of the transaction
    mutating func timedBatch(_ count: Int) -> Double {
        let edits = batch(count)
        let effect = EditBench.effect(edits)
        keepViews()
        let countBefore = store.forest.count, rowsBefore = store.rowCount(nil)
        var inserted: [NodeHandle] = []
        inserted.reserveCapacity(edits.count)
        var splices: [Splice] = []
        let total = seconds {
            splices = try! store.transaction { (store: inout TreeStore) throws(EditError) -> [Splice] in
                var all: [Splice] = []
                for e in edits { all += try EditBench.apply(e, &store, inserted: &inserted) }
                return Splice.sequence(all, oldTotal: rowsBefore)
            }
        }
        guard store.forest.count == countBefore + effect.nodeDelta,
              store.rowCount(nil) - rowsBefore == splices.reduce(0, { $0 + $1.inserted - $1.removed }) else {
            fail("the batch did not do what its edits say")
        }
        pool.removed(effect.deleted)
        pool.added(inserted)
        audit(after: "the batch")
        return total
    }

    /// The nodes a batch deletes, and what it does to the node count.
    static func effect(_ edits: [BatchEdit]) -> (deleted: [NodeHandle], nodeDelta: Int) {
        var deleted: [NodeHandle] = [], delta = 0
        for e in edits {
            switch e {
            case .insert: delta += 1
            case .delete(let h): deleted.append(h); delta -= 1
            default: break
            }
        }
        return (deleted, delta)
    }
}

// MARK: The edit ops

@MainActor func runEditOps(_ d: Dataset, nodes: Int, bench: inout EditBench, reps: Int, batchSize: Int, singlesSize: Int) {
    bench.keepViews()
    if json {
        let views = bench.filters.map { f in
            "{\"filter\":\"\(f.text)\",\"matches\":\(bench.store.matchCount(f)),\"rows\":\(bench.store.rowCount(f))}"
        }
        print("{\"dataset\":\"\(d.name)\",\"nodes\":\(nodes),\"op\":\"edit.views\",\"views\":[\(views.joined(separator: ","))]}")
    } else {
        let counts = bench.filters.map { f in "\(f.text): \(bench.store.matchCount(f)) matches, \(bench.store.rowCount(f)) rows" }
        tableRows.append((d.name, "edit.views", "4 kept", counts.joined(separator: "; ")))
    }

    // The first insertion into a freshly built forest spreads its position columns (once per
    // store, O(n)): timed on its own, so that the series below edit a spread forest.
    report(d, nodes: nodes, op: "insert.first", samples: [bench.insert(ViewRef())])

    // Each op alternates: the edit naming the unfiltered view (`op`), and naming one of the
    // kept filtered views in turn (`op.named`: its splices are that view's).
    let ops: [(String, (inout EditBench, ViewRef) -> Double)] = [
        ("insert", { $0.insert($1) }), ("delete", { $0.delete($1) }),
        ("move", { $0.move($1) }), ("rename", { $0.rename($1) }),
    ]
    for (name, op) in ops {
        var plain: [Double] = [], named: [Double] = []
        for r in 0 ..< reps {
            plain.append(op(&bench, ViewRef()))
            named.append(op(&bench, ViewRef(filter: bench.filters[r % bench.filters.count])))
        }
        bench.audit(after: name)
        report(d, nodes: nodes, op: name, samples: plain)
        report(d, nodes: nodes, op: name + ".named", samples: named)
    }
    report(d, nodes: nodes, op: "edit.viewsRestore", samples: bench.restores)

    // batch: the same kind of edits as single operations on a sample, then `batchSize` of
    // them in one transaction. Both start with the four views kept.
    guard batchSize > 0 else { return }
    let singleEdits = bench.batch(singlesSize)
    bench.keepViews()
    var singles: [Double] = []
    var inserted: [NodeHandle] = []
    for e in singleEdits {
        let rowsBefore = bench.store.rowCount(nil)
        var splices: [Splice] = []
        singles.append(seconds { splices = try! EditBench.apply(e, &bench.store, inserted: &inserted) })
        if bench.store.rowCount(nil) - rowsBefore != splices.reduce(0, { $0 + $1.inserted - $1.removed }) {
            fail("a single edit's splices do not add up")
        }
    }
    let singlesEffect = EditBench.effect(singleEdits)
    bench.pool.removed(singlesEffect.deleted)
    bench.pool.added(inserted)
    bench.audit(after: "the single edits")

    let total = bench.timedBatch(batchSize)

    let singleMean = singles.reduce(0, +) / Double(max(1, singles.count))
    report(d, nodes: nodes, op: "batch.single", samples: singles,
           extra: ["mean_us": singleMean * 1e6])
    report(d, nodes: nodes, op: "batch", samples: [total],
           extra: ["edits": Double(batchSize), "per_edit_us": total / Double(batchSize) * 1e6,
                   "singles_extrapolated_s": singleMean * Double(batchSize),
                   "ratio": singleMean * Double(batchSize) / total])
}
