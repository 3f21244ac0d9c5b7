@testable import TreeEngine
import TreeFormats
@testable import TreeReference

/// Batches: `TreeStore.transaction` with a random list of operations on one named view,
/// mirrored in the reference; sometimes one operation is invalid, and then nothing at
/// all may have changed (issue 10).
extension ModelRun {
    /// Why a batch's closure threw.
    enum BatchAbort: Error {
        /// The operation the test made invalid failed, as it should.
        case invalid(String)
        /// Engine and reference disagree (already a problem; the run stops).
        case unexpected(String)
    }

    /// What an engine shows, read without naming a view: the forest (ids, titles, data,
    /// structure, unfiltered expansion), the kept filtered views in order, and each kept
    /// view's rows, matchCount and every node's placement (row, expansion, match); the
    /// same for every view besides the default one (issue 35).
    /// Lines compare by their UTF-8 bytes (String equality would take "é" for "e\u{301}").
    struct EngineState {
        var forest: [String]
        var kept: [FilterQuery]
        var views: [[String]]
    }

    func engineState() -> EngineState {
        let forest = store.forest
        var nodes: [NodeHandle] = []
        func walk(_ h: NodeHandle?) { for c in forest.children(of: h) { nodes.append(c); walk(c) } }
        walk(nil)
        let lines = nodes.map { h in
            "\(forest.id(of: h)) \(forest.title(of: h).debugDescription) parent \(forest.parent(of: h).map { forest.id(of: $0).description } ?? "-")"
                + " expanded \(forest.isExpandedUnfiltered(h)) declares \(forest.declaresChildren(h))"
                + " data \(forest.data(of: h).map { String(decoding: $0, as: UTF8.self) } ?? "-")"
        }
        var views: [[String]] = []
        for f in [nil] + store.keptFilters.map(Optional.some) {
            let count = store.keptRowCount(f) ?? -1
            var v = ["\(f.map { "[\($0)]" } ?? "unfiltered"): \(count) rows, \(f.map { store.keptMatchCount($0) ?? -1 } ?? 0) matches"]
            v += (store.keptRows(f, offset: 0, limit: max(0, count)) ?? []).map { refRow($0).description }
            v += nodes.map { h in
                store.keptPlacement(of: h, f).map { "\(forest.id(of: h)): row \($0.index.map(String.init) ?? "-") expanded \($0.expanded) match \($0.match)" }
                    ?? "\(forest.id(of: h)): no placement"
            }
            views.append(v)
        }
        // Issue 35: every other view, each kept row list of it.
        views.append(["views \(store.views)"])
        for id in store.views {
            views.append(["view \(id) keeps \(store.keptFilters(in: id).map { "[\($0)]" })"])
            for ref in [ViewRef(id)] + store.keptFilters(in: id).map({ ViewRef(id, filter: $0) }) {
                let count = store.keptRowCount(ref) ?? -1
                var v = ["\(viewName(ref)): \(count) rows, \(ref.filter == nil ? 0 : store.keptMatchCount(ref) ?? -1) matches"]
                v += (store.keptRows(ref, offset: 0, limit: max(0, count)) ?? []).map { refRowWithMatches($0).description }
                v += nodes.map { h in
                    store.keptPlacement(of: h, ref).map { "\(forest.id(of: h)): row \($0.index.map(String.init) ?? "-") expanded \($0.expanded) match \($0.match)" }
                        ?? "\(forest.id(of: h)): no placement"
                }
                views.append(v)
            }
        }
        return EngineState(forest: lines, kept: store.keptFilters, views: views)
    }

    static func firstDifference(_ a: [String], _ b: [String]) -> Int? {
        var i = 0
        while i < a.count && i < b.count && a[i].utf8.elementsEqual(b[i].utf8) { i += 1 }
        return i == a.count && i == b.count ? nil : i
    }

    func expectUnchanged(_ before: EngineState, _ context: String) {
        let after = engineState()
        if let i = Self.firstDifference(after.forest, before.forest) {
            problem("\(context): the forest changed (\(before.forest.count) → \(after.forest.count) nodes), first at node \(i): "
                    + "before \(i < before.forest.count ? before.forest[i] : "-"), after \(i < after.forest.count ? after.forest[i] : "-")")
        }
        expectEqual(after.kept, before.kept, "\(context): kept filtered views")
        if after.kept != before.kept { return }
        for (a, b) in zip(after.views, before.views) {
            if let i = Self.firstDifference(a, b) {
                problem("\(context): a view changed: \(b.first ?? "?"); first difference: before \(i < b.count ? b[i] : "-"), after \(i < a.count ? a[i] : "-")")
                return
            }
        }
    }

    /// One batch of 1–8 operations named with `ref`.
    func batchStep(_ ref: ViewRef) {
        treeEdit = true
        let old = model.rows(ref, matchesBelow: false).map(\.key)
        let count = rng.int(1 ... 8)
        let invalidAt: Int? = rng.chance(0.35) ? rng.int(0 ... count - 1) : nil
        let before = invalidAt == nil ? nil : engineState()
        let checkpoint = model.checkpoint()
        record("batch of \(count) operations in \(viewName(ref))" + (invalidAt.map { ", operation \($0) invalid" } ?? ""))
        var all: [Splice] = []
        batchDeleted = []
        do {
            try store.transaction { (s: inout TreeStore) throws(BatchAbort) -> Void in
                for k in 0 ..< count {
                    let rowsBefore = model.rows(ref, matchesBelow: false).map(\.key)
                    let splices = try batchOperation(&s, ref, k, invalid: k == invalidAt)
                    checkSplices(splices, old: rowsBefore, new: model.rows(ref, matchesBelow: false).map(\.key), "batch operation \(k)")
                    all += splices
                }
            }
        } catch {
            model.restore(checkpoint)
            _ = store.takeObservedSplices()  // rolled back: nothing changed
            switch error {
            case .unexpected(let text): problem(text)
            case .invalid(let text):
                if invalidAt == nil { problem("a valid batch failed: \(text)") }
                expectUnchanged(before!, "batch refused at operation \(invalidAt ?? -1) (\(text))")
            }
            return
        }
        if let invalidAt { problem("the batch succeeded with operation \(invalidAt) invalid"); return }
        checkSplices(Splice.sequence(all, oldTotal: old.count), old: old, new: model.rows(ref, matchesBelow: false).map(\.key),
                     "batch: Splice.sequence of \(all.count) splices")
    }

    private func engineHandle(_ s: TreeStore, _ node: RefNode) throws(BatchAbort) -> NodeHandle {
        guard let h = s.forest.node(withID: node.key) else { throw .unexpected("batch: the engine has no node \(node.key)") }
        return h
    }

    /// Operation `k` of a batch on store `s`, mirrored in the reference; returns its splices.
    /// `invalid`: make it fail (and check that it does, with the expected error).
    private func batchOperation(_ s: inout TreeStore, _ ref: ViewRef, _ k: Int, invalid: Bool) throws(BatchAbort) -> [Splice] {
        let vn = viewName(ref)
        let nodes = model.allNodes
        var kind = rng.int(0 ... 99)
        if nodes.isEmpty { kind = 0 }
        if invalid {
            // 0: unknown node, 1: move into own subtree, 2: index out of range, 3: duplicate id.
            var how = rng.int(0 ... 3)
            if nodes.isEmpty && how != 2 { how = rng.chance(0.5) ? 0 : 2 }
            switch how {
            case 0:
                var id = "gone-\(seed)-\(log.count)-\(k)"
                if !batchDeleted.isEmpty && rng.chance(0.6) {
                    let deleted = rng.pick(batchDeleted)
                    if !nodes.contains(where: { $0.key == deleted }) { id = deleted }
                }
                let op = rng.pick(["delete", "move", "update", "expand", "reveal"])
                record("  \(k): \(op)(\(id)) in \(vn): unknown node (deleted or never there)")
                if s.forest.node(withID: id) != nil { throw .unexpected("batch: the engine has a node \(id)") }
                throw .invalid("unknown node \(id)")
            case 1:
                let node = rng.pick(nodes)
                let target = rng.pick(node.subtree)
                record("  \(k): move(\(node.key), to: \(target.key)) in \(vn): into its own subtree")
                let h = try engineHandle(s, node), t = try engineHandle(s, target)
                do throws(EditError) {
                    _ = try s.move(h, to: t, index: nil, ref)
                } catch {
                    if error.kind != .cycle { throw .unexpected("batch: move into own subtree refused with \(error.kind)") }
                    throw .invalid("cycle")
                }
                throw .unexpected("batch: move into its own subtree accepted")
            case 2:
                let node = !nodes.isEmpty && rng.chance(0.5) ? rng.pick(nodes) : nil
                var parent: RefNode? = nodes.isEmpty || rng.chance(0.3) ? nil : rng.pick(nodes)
                if let node, let p = parent, node.isAncestorOrSelf(of: p) { parent = nil }
                let others = model.siblings(of: parent).filter { $0 !== node }.count
                let index = rng.chance(0.3) ? -1 : others + rng.int(1 ... 2)
                let nodeHandle = try node.map { (n) throws(BatchAbort) in try engineHandle(s, n) }
                let parentHandle = try parent.map { (p) throws(BatchAbort) in try engineHandle(s, p) }
                let fragment: Forest
                do { fragment = try parse(s, "[{\"title\":\"x\"}]") } catch { throw .unexpected("batch: parseFragment refused: \(error)") }
                do throws(EditError) {
                    if let nodeHandle {
                        record("  \(k): move(\(node!.key), to: \(parent?.key ?? "nil"), index: \(index)) in \(vn): index out of range")
                        _ = try s.move(nodeHandle, to: parentHandle, index: index, ref)
                    } else {
                        record("  \(k): insert at .child(of: \(parent?.key ?? "nil"), index: \(index)) in \(vn): index out of range")
                        _ = try s.insert(fragment, .child(of: parentHandle, index: index), ref)
                    }
                } catch {
                    if error.kind != .indexOutOfRange { throw .unexpected("batch: index \(index) refused with \(error.kind)") }
                    throw .invalid("index out of range")
                }
                throw .unexpected("batch: index \(index) out of range accepted")
            default:
                let taken = rng.pick(nodes).id!
                var used = Set(nodes.map(\.key))
                var gen = RandomTrees.forest(&rng, nodes: rng.int(1 ... 3), used: &used, extraTilde: -1)
                gen[rng.int(0 ... gen.count - 1)].id = taken
                let json = RandomTrees.json(gen, &rng)
                record("  \(k): insert \(json) in \(vn): id \(taken) is taken")
                if (try? parse(s, json)) != nil { throw .unexpected("batch: a fragment with the taken id \(taken) was accepted") }
                throw .invalid("duplicate id")
            }
        }
        switch kind {
        case 0 ..< 20:
            return try batchInsert(&s, ref, k, vn)
        case 20 ..< 32:
            let node = randomNode(visibleIn: ref)!
            record("  \(k): delete(\(node.key)) in \(vn)")
            let h = try engineHandle(s, node)
            let splices = s.delete(h, ref)
            batchDeleted += node.subtree.map(\.key)
            model.delete(node)
            model.editDone(ref)
            return splices
        case 32 ..< 50:
            let node = rng.pick(nodes)
            let candidates = nodes.filter { !node.isAncestorOrSelf(of: $0) }
            let parent: RefNode? = candidates.isEmpty || rng.chance(0.2) ? nil : rng.pick(candidates)
            let others = model.siblings(of: parent).filter { $0 !== node }.count
            let index: Int? = rng.chance(0.3) ? nil : rng.int(0 ... others)
            record("  \(k): move(\(node.key), to: \(parent?.key ?? "nil"), index: \(index.map(String.init) ?? "nil")) in \(vn)")
            let h = try engineHandle(s, node)
            let p = try parent.map { (p) throws(BatchAbort) in try engineHandle(s, p) }
            let splices: [Splice]
            do { splices = try s.move(h, to: p, index: index, ref) } catch { throw .unexpected("batch: move refused: \(error)") }
            if let failure = model.move(node, to: parent, index: index) { throw .unexpected("batch: the reference refused the move: \(failure)") }
            model.editDone(ref, moved: node)
            return splices
        case 50 ..< 65:
            let node = rng.pick(nodes)
            let title = rng.chance(0.7) ? rng.chance(0.5) ? matchingTitle() : RandomTrees.title(&rng) : nil
            let data = title == nil || rng.chance(0.3) ? rng.pick(RandomTrees.dataValues) : nil
            record("  \(k): update(\(node.key), title: \(title.map { $0.debugDescription } ?? "nil"), data: \(data ?? "nil")) in \(vn)")
            let h = try engineHandle(s, node)
            let splices = s.update(h, title: title, data: data.map { Array($0.utf8) }, ref)
            if let title { node.title = title }
            if let data { node.data = Array(data.utf8) }
            model.editDone(ref)
            return splices
        case 65 ..< 80:
            let node = rng.pick(nodes)
            let value = rng.chance(0.5), recursive = rng.chance(0.2)
            record("  \(k): setExpanded(\(node.key), \(value), recursive: \(recursive)) in \(vn)")
            let h = try engineHandle(s, node)
            let splices = s.setExpanded(h, value, recursive: recursive, ref)
            model.setExpanded(node, value, recursive: recursive, ref)
            return splices
        case 80 ..< 87:
            let node = rng.pick(nodes)
            record("  \(k): reveal(\(node.key)) in \(vn)")
            let h = try engineHandle(s, node)
            let splices = s.reveal(h, ref)
            model.reveal(node, ref)
            return splices
        default:
            switch rng.int(0 ... 2) {
            case 0:
                record("  \(k): expandAll in \(vn)")
                model.expand(toDepth: nil, ref)
                return s.expandAll(ref)
            case 1:
                record("  \(k): collapseAll in \(vn)")
                model.collapseAll(ref)
                return s.collapseAll(ref)
            default:
                let depth = rng.int(0 ... 3)
                record("  \(k): expand(toDepth: \(depth)) in \(vn)")
                model.expand(toDepth: depth, ref)
                return s.expand(toDepth: depth, ref)
            }
        }
    }

    private func parse(_ store: TreeStore, _ json: String) throws(TreeInputError) -> Forest {
        let bytes = Array(json.utf8)
        let result = bytes.withUnsafeBytes { (raw) -> Result<Forest, TreeInputError> in
            do throws(TreeInputError) { return .success(try store.parseFragment(raw, limits: ForestLimits()).fragment) } catch { return .failure(error) }
        }
        return try result.get()
    }

    private func batchInsert(_ s: inout TreeStore, _ ref: ViewRef, _ k: Int, _ vn: String) throws(BatchAbort) -> [Splice] {
        let existing = model.allNodes
        var used = Set(existing.map(\.key))
        var gen = RandomTrees.forest(&rng, nodes: rng.int(1 ... 4), used: &used, extraTilde: existing.count + 4)
        giveMatchingTitles(&gen)
        let json = RandomTrees.json(gen, &rng)
        var parent: RefNode? = nil
        var index: Int? = nil
        var anchor: (node: RefNode, before: Bool)? = nil
        let placementText: String
        if existing.isEmpty || rng.chance(0.6) {
            parent = existing.isEmpty || rng.chance(0.2) ? nil : rng.pick(existing)
            index = rng.chance(0.3) ? nil : rng.int(0 ... model.siblings(of: parent).count)
            placementText = ".child(of: \(parent?.key ?? "nil"), index: \(index.map(String.init) ?? "nil"))"
        } else {
            anchor = (rng.pick(existing), rng.chance(0.5))
            placementText = "\(anchor!.before ? ".before" : ".after")(\(anchor!.node.key))"
        }
        record("  \(k): insert \(json) at \(placementText) in \(vn)")
        let fragment: Forest
        do { fragment = try parse(s, json) } catch { throw .unexpected("batch: parseFragment refused: \(error)") }
        let placement: InsertPlacement
        if let anchor {
            let h = try engineHandle(s, anchor.node)
            placement = anchor.before ? .before(h) : .after(h)
        } else {
            placement = .child(of: try parent.map { (p) throws(BatchAbort) in try engineHandle(s, p) }, index: index)
        }
        let result: (splices: [Splice], roots: [NodeHandle])
        do { result = try s.insert(fragment, placement, ref) } catch { throw .unexpected("batch: insert refused: \(error)") }
        let nodes = gen.map { $0.refNode(parent: nil) }
        if let anchor {
            if anchor.before { model.insert(nodes, before: anchor.node) } else { model.insert(nodes, after: anchor.node) }
        } else {
            _ = model.insert(nodes, parent: parent, index: index)
        }
        model.takeParentStates(nodes)
        adoptIDs(nodes, result.roots, "batch: inserted nodes", forest: s.forest)
        model.editDone(ref)
        return result.splices
    }
}
