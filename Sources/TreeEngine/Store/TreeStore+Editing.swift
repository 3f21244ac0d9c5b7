/// Where inserted nodes go.
public enum InsertPlacement: Sendable, Equatable {
    /// Children of `parent` (roots when nil) at `index` among its children; nil: after the last.
    case child(of: NodeHandle?, index: Int?)
    /// Siblings just before `node`.
    case before(NodeHandle)
    /// Siblings just after `node`.
    case after(NodeHandle)
}

extension TreeStore {
    /// A builder of nodes to insert into this store (a format reader fills it): their
    /// ids are checked against the forest's, and `limits.maxNodes` counts the forest's
    /// nodes too. Id-less nodes get their ids when the fragment is inserted.
    /// - Complexity: O(1); each id given costs an O(1) expected lookup in the forest
    public func fragmentBuilder(limits: ForestLimits, expectedBytes: Int = 0) -> ForestBuilder {
        let forest = self.forest
        return ForestBuilder(limits: limits, expectedBytes: expectedBytes, existingCount: forest.count,
                             isTakenOutside: { forest.idExists($0) }, isFragment: true)
    }

    /// A builder of nodes to insert into a store not known yet (a request's body read before
    /// its session is locked): their ids are checked among themselves only, and
    /// `limits.maxNodes` counts them alone. `admits` then says whether the store they go
    /// into takes them as its own `fragmentBuilder` would have.
    /// - Complexity: O(1)
    public static func detachedFragmentBuilder(limits: ForestLimits, expectedBytes: Int = 0) -> ForestBuilder {
        ForestBuilder(limits: limits, expectedBytes: expectedBytes, existingCount: 0, isTakenOutside: { _ in false }, isFragment: true)
    }

    /// Whether `fragment` (built by `detachedFragmentBuilder` with `limits`) is what this
    /// store's `fragmentBuilder` would have built from the same nodes: no id of it taken
    /// here, and this forest's nodes and its within `limits.maxNodes`. When not, a read
    /// through `fragmentBuilder` finds the node that breaks the rule.
    /// - Complexity: O(fragment nodes + their ids' bytes) expected
    public func admits(_ fragment: Forest, limits: ForestLimits) -> Bool {
        guard forest.count <= limits.maxNodes - fragment.count else { return false }
        let forest = self.forest
        return (0 ..< fragment.count).allSatisfy { slot in
            !fragment.ids.hasID(slot: Slot(slot)) || !fragment.ids.withKey(slot: Slot(slot)) { forest.idExists($0) }
        }
    }

    /// Inserts `fragment` (built by `fragmentBuilder`, e.g. through `parseFragment`) at
    /// `placement`. Every view follows (see `ViewState+Edits.swift`).
    /// - Returns: the splices of the named view, and the inserted roots.
    /// - Complexity: O(fragment size + depth · log n · views), plus the room made
    ///   (O(log² n) moved positions amortized per node)
    public mutating func insert(_ fragment: Forest, _ placement: InsertPlacement, _ view: ViewRef)
        throws(EditError) -> (splices: [Splice], roots: [NodeHandle]) {
        let parent: NodeHandle?
        let q: Position
        switch placement {
        case .child(let of, let index):
            parent = of
            q = try forest.insertionPoint(parent: of, index: index)
        case .before(let node):
            parent = forest.parent(of: node)
            q = forest.position(of: node)
        case .after(let node):
            parent = forest.parent(of: node)
            q = forest.subtreeEnd(of: forest.position(of: node))
        }
        use(view)
        if fragment.isEmpty { return ([], []) }
        let run = forest.adopt(fragment)
        var splices = putIn(run, at: q, parent: parent?.slot, view)
        let roots = zip(run.slots, run.depths).filter { $0.1 == 0 }.map(\.0)
        // In a sorted order each subtree goes where the sort places its root.
        let sortedRuns = sortedRuns(of: roots)
        forEachSortedWorld { store, i, keys, tree in
            for run in sortedRuns[i] {
                let q = store.sortedPlace(of: run.slots[0], parent: parent?.slot, keys, tree: tree)
                splices += store.putIn(run, at: q, parent: parent?.slot, view)
            }
        }
        recordUndo(.inserted(roots: roots))
        settleAllFollowers()
        checkInvariants()
        return (splices, roots.map { NodeHandle(slot: $0) })
    }

    /// Puts `run` (new to the positions) at the insertion point `q` under `parent`, every
    /// view of the order swapped in following.
    private mutating func putIn(_ run: Run, at q: Position, parent: Slot?, _ view: ViewRef) -> [Splice] {
        let range = place(run, at: q, parent: parent)
        selectionsFollowInsertion(range)
        var splices = updateViews(view) { view, forest, splices in
            view.inserted(range, parent: parent, in: forest, splices: &splices)
        }
        let added = baseMinimums(range)
        splices += updateCovers(view) { cover, base, forest, _ in
            cover.inserted(range.lowerBound.offset ..< range.upperBound.offset, run: added[base.depth]!, base, forest)
        }
        return splices
    }

    /// Deletes `node` and its subtree.
    /// - Complexity: O(subtree positions + depth · log n · views); O(n) when most
    ///   positions are gaps afterwards and the columns shrink
    public mutating func delete(_ node: NodeHandle, _ view: ViewRef) -> [Splice] {
        use(view)
        let back = undo != nil ? placeOfReturn(node.slot) : (nil, nil)
        var splices: [Splice] = []
        forEachSortedWorld { store, _, _, _ in
            splices += store.takeOut(node, view, deleting: true).2
            store.afterDeletion()
        }
        let (run, _, treeSplices) = takeOut(node, view, deleting: true)
        splices += treeSplices
        if undo != nil {
            let ids = run.slots.filter { forest.ids.hasID(slot: $0) }.map { slot in
                (slot, forest.ids.withKey(slot: slot) { Array($0) }, forest.ids.isInteger(slot: slot))
            }
            recordUndo(.deleted(run, parent: back.0, before: back.1, ids: ids))
        }
        forest.free(run)
        afterDeletion()
        settleAllFollowers()
        checkInvariants()
        return splices
    }

    /// What follows a deletion in the order swapped in.
    private mutating func afterDeletion() {
        dropEmptySelections()
        if let relocation = forest.shrinkIfSparse() { relocate(relocation) }
    }

    /// Why `insert` at `placement` would be refused (an index out of range), or nil: the
    /// one refusal of an insert of a fragment built for this store, checked before anything
    /// changes, so a caller can check first and then insert knowing it succeeds.
    /// - Complexity: as `insert`'s choice of its place: O(1) without an index
    public func insertionProblem(_ placement: InsertPlacement) -> EditError? {
        guard case .child(let parent, let index?) = placement else { return nil }
        do throws(EditError) {
            _ = try forest.insertionPoint(parent: parent, index: index)
            return nil
        } catch {
            return error
        }
    }

    /// Why `move` would be refused (into the node's own subtree, an index out of range),
    /// or nil: checked before anything changes.
    /// - Complexity: O(depth), plus O(children of `parent`) with an `index`
    public func moveProblem(_ node: NodeHandle, to parent: NodeHandle?, index: Int?) -> EditError? {
        if let parent, forest.isAncestorOrSelf(node, of: parent) {
            return EditError(kind: .cycle, message: "cannot move \(forest.id(of: node)) into its own subtree")
        }
        // The index counts the parent's children without the node.
        guard let index else { return nil }
        let siblings = forest.childCount(of: parent) - (forest.parent(of: node) == parent ? 1 : 0)
        guard index < 0 || index > siblings else { return nil }
        return EditError(kind: .indexOutOfRange,
                         message: "index \(index) is out of range: the parent has \(siblings) other children (0...\(siblings) allowed)")
    }

    /// Moves `node` to be the child at `index` of `parent` (a root when nil), `index`
    /// counted once the node has left its old place (nil: after the last child).
    /// Every node keeps its state in every view.
    /// - Complexity: O(subtree positions + depth · log n · views), plus the room made,
    ///   plus O(children of `parent`) with an `index`
    public mutating func move(_ node: NodeHandle, to parent: NodeHandle?, index: Int?, _ view: ViewRef) throws(EditError) -> [Splice] {
        if let problem = moveProblem(node, to: parent, index: index) { throw problem }
        use(view)
        if undo != nil {
            let back = placeOfReturn(node.slot)
            recordUndo(.moved(node.slot, parent: back.parent, before: back.before))
        }
        // A derived id names the parent it was derived from: it is stored whole first.
        forest.ids.storeWhole(slot: node.slot)
        // Every order takes the subtree out while the parent links are those it has.
        var sorted: [(Run, Departures)] = []
        var splices: [Splice] = []
        forEachSortedWorld { store, _, _, _ in
            let (run, departures, out) = store.takeOut(node, view, deleting: false)
            sorted.append((run, departures))
            splices += out
        }
        let (run, departures, splicesOut) = takeOut(node, view, deleting: false)
        splices += splicesOut
        let q = try! forest.insertionPoint(parent: parent, index: index)
        splices += arrive(run, departures, at: q, parent: parent?.slot, view)
        forEachSortedWorld { store, i, keys, tree in
            let q = store.sortedPlace(of: node.slot, parent: parent?.slot, keys, tree: tree)
            splices += store.arrive(sorted[i].0, sorted[i].1, at: q, parent: parent?.slot, view)
        }
        settleAllFollowers()
        checkInvariants()
        return splices
    }

    /// Puts `run` (taken out with `departures`) at the insertion point `q` under `parent`,
    /// every view of the order swapped in following.
    private mutating func arrive(_ run: Run, _ departures: Departures, at q: Position, parent: Slot?, _ view: ViewRef) -> [Splice] {
        let range = place(run, at: q, parent: parent)
        selectionsFollowArrival(range, departures.selections)
        var i = 0
        var splices = updateViews(view) { view, forest, splices in
            view.arrived(range, parent: parent, departures.dense[i], in: forest, splices: &splices)
            i += 1
        }
        let moved = baseMinimums(range)
        splices += updateCovers(view) { cover, base, forest, id in
            cover.arrived(range.lowerBound.offset ..< range.upperBound.offset, run: moved[base.depth]!, departures.sparse[id]!, base, forest)
        }
        return splices
    }

    /// Replaces the title and/or the data (raw JSON) of `node`. Rows keep their
    /// nodes in the unfiltered view; in a filtered view the node may start or stop
    /// matching (by its title, or by its data's fields).
    /// - Complexity: O(title + data length + depth · log n · views)
    public mutating func update(_ node: NodeHandle, title: String?, data: [UInt8]?, _ view: ViewRef) -> [Splice] {
        use(view)
        if let data {
            let old = data.withUnsafeBytes { forest.setData(of: node, to: $0) }
            recordUndo(.redata(node.slot, old: old))
            let p = forest.position(of: node).offset
            updateAggregates(p ..< p + 1)
        }
        if var title {
            let old = title.withUTF8 { forest.setTitle(of: node, to: UnsafeRawBufferPointer($0)) }
            recordUndo(.retitled(node.slot, old: old))
        }
        guard title != nil || data != nil else { return [] }
        let rematch = { (view: inout ViewState, forest: Forest, splices: inout [Splice]?) in view.rematched(node.slot, in: forest, splices: &splices) }
        var splices = updateViews(view, rematch)
        // In a sorted order whose keys read what changed, the node moves to its new place.
        let parent = forest.parent(ofSlot: node.slot)
        forEachSortedWorld { store, _, keys, tree in
            splices += store.updateViews(view, rematch)
            guard TreeStore.reorders(keys, title: title != nil, data: data != nil), !store.isInPlace(node.slot, keys, tree: tree) else { return }
            let (run, departures, out) = store.takeOut(node, view, deleting: false)
            splices += out
            let q = store.sortedPlace(of: node.slot, parent: parent, keys, tree: tree)
            splices += store.arrive(run, departures, at: q, parent: parent, view)
        }
        settleAllFollowers()
        checkInvariants()
        return splices
    }

    // MARK: Edits and views

    /// Makes the named filtered rows the most recently used of their view, building them
    /// if needed, before an edit (their splices compare them before and after the edit),
    /// and readies every kept filtered view to follow the edit.
    private mutating func use(_ view: ViewRef) {
        wake(view)
        countTransactionEdit(view)
        if view.filter != nil { try! prepareView(view) }
        readyForEdits()
        forEachSortedWorld { store, _, _, _ in store.readyForEdits() }
    }

    /// Readies every kept filtered view of the order swapped in to follow an edit.
    private mutating func readyForEdits() {
        func ready(_ view: inout ViewState, _ forest: Forest) {
            view.prepareForEdits(forest)
            view.filter!.matchIndex = nil  // positions and matches are about to move
        }
        for i in filtered.indices { ready(&filtered[i].view, forest) }
        for i in userViews.indexList {
            for j in userViews.values[i].filtered.indices where userViews.values[i].filtered[j].own != nil {
                ready(&userViews.values[i].filtered[j].own!, forest)
            }
        }
        for i in filterBases.indexList { ready(&filterBases.values[i], forest) }
    }

    /// Makes room for `run` at the insertion point `q` and puts it there (views
    /// follow the nodes that moved); returns the positions it took.
    private mutating func place(_ run: Run, at q: Position, parent: Slot?) -> Range<Position> {
        let (start, relocation) = forest.makeRoom(run.count, at: q)
        if let relocation { relocate(relocation) }
        forest.put(run, at: start, parent: parent)
        updateBases(start ..< start + run.count)
        // The ancestors whose last node was the one before the run end with it now.
        let before = forest.endOfNodes(before: start).offset - 1
        if before >= 0 { refreshCovers(before ..< before + 1) }
        return start ..< start + run.count
    }

    /// Views follow nodes that moved to make room: the dense ones move their covers, the
    /// shared bases recount the window; the sparse ones name nodes by slot and need nothing.
    mutating func relocate(_ relocation: Relocation) {
        if layoutKeys == nil { unfiltered.relocate(relocation) }
        for i in filtered.indices { filtered[i].view.relocate(relocation) }
        for i in userViews.indexList {
            userViews.values[i].dense?.relocate(relocation)
            for j in userViews.values[i].filtered.indices where userViews.values[i].filtered[j].own != nil {
                userViews.values[i].filtered[j].own!.relocate(relocation)
            }
        }
        for i in filterBases.indexList { filterBases.values[i].relocate(relocation) }
        updateBases(relocation.range)
        // A resize moved every node (old positions may lie past the new columns' end).
        refreshCovers(relocation.resized ? 0 ..< Int(UInt32.max) : relocation.range.lowerBound.offset ..< relocation.range.upperBound.offset)
    }

    /// The views' boundaries cached at the positions `range` read their positions again
    /// (`SparseCover.refreshPositions`).
    private mutating func refreshCovers(_ range: Range<Int>) {
        for i in userViews.indexList where !isSuspended(userViews.keys[i]) && userViews.values[i].dense == nil {
            userViews.values[i].cover.refreshPositions(in: range, forest)
        }
        for i in filterBases.indexList {
            for j in filterBases.values[i].followers!.covers.indexList {
                filterBases.values[i].followers!.covers.values[j].refreshPositions(in: range, forest)
            }
        }
    }

    /// What the views keep of a subtree taking out: each dense view's departure in the
    /// order `updateViews` visits them, each sparse one's, and each selection's.
    private struct Departures {
        var dense: [ViewState.Departure] = []
        var sparse: [ViewID: SparseCover.Departure] = [:]
        var selections: [ViewID?: Selection.Departure] = [:]
    }

    /// Takes the subtree of `node` out of the positions, every view following.
    private mutating func takeOut(_ node: NodeHandle, _ view: ViewRef, deleting: Bool) -> (Run, Departures, [Splice]) {
        let p = forest.position(of: node)
        let positions = forest.subtree(of: p)
        let parent = forest.parent(ofSlot: node.slot)
        var departures = Departures()
        var splices = updateViews(view) { view, forest, splices in
            departures.dense.append(view.departing(p, in: forest, keepingCovers: !deleting, splices: &splices))
        }
        let subtree = baseMinimums(positions)
        splices += updateCovers(view) { cover, base, forest, id in
            let departure = cover.removing(node.slot, subtree: subtree[base.depth]!, base, forest)
            departures.sparse[id] = departure
            return departure.splice
        }
        departures.selections = selectionsDeparting(p)
        let last = forest.subtreeEnd(of: p).offset - 1
        let run = forest.takeOut(p)
        updateBases(positions)
        // The ancestors whose last node was the subtree's end before it now.
        refreshCovers(last ..< last + 1)
        var i = 0
        splices += updateViews(view) { view, forest, splices in
            view.departed(positions, run, parent: parent, &departures.dense[i], deleted: deleting, in: forest, splices: &splices)
            i += 1
        }
        _ = updateCovers(view) { cover, base, forest, id in
            cover.removed(departures.sparse[id]!, base, forest)
            return nil
        }
        return (run, departures, splices)
    }

    /// Runs `body` on every dense view: the default view's unfiltered rows first, then
    /// its kept filtered rows in order, then each view's; `body` records splices only for
    /// the rows `view` names (returned) and the observed ones (kept in `observedSplices`).
    ///
    /// Each view is passed to `body` straight from its stored property and nothing else of
    /// the store is used during the call: a view handed on through a nested function that
    /// also used the store was not changed in place, every edit copied the views it changed
    /// (O(n) each, issue 32; `InPlaceEditTests` checks the columns stay where they are).
    mutating func updateViews(_ view: ViewRef,
                                      _ body: (inout ViewState, Forest, inout [Splice]?) -> Void) -> [Splice] {
        var result: [Splice] = []
        var splices: [Splice]? = recordsSplices(of: ViewRef(), named: view) ? [] : nil
        if layoutKeys == nil {
            body(&unfiltered, forest, &splices)
            keep(splices, of: ViewRef(), named: view, in: &result)
        }
        for i in filtered.indices {
            let rows = ViewRef(filter: filtered[i].query)
            splices = recordsSplices(of: rows, named: view) ? [] : nil
            body(&filtered[i].view, forest, &splices)
            keep(splices, of: rows, named: view, in: &result)
        }
        for i in userViews.indexList {
            let id = userViews.keys[i]
            if userViews.values[i].dense != nil {
                let rows = ViewRef(id)
                splices = recordsSplices(of: rows, named: view) ? [] : nil
                body(&userViews.values[i].dense!, forest, &splices)
                keep(splices, of: rows, named: view, in: &result)
            }
            for j in userViews.values[i].filtered.indices where userViews.values[i].filtered[j].own != nil {
                let rows = ViewRef(id, filter: userViews.values[i].filtered[j].query)
                splices = recordsSplices(of: rows, named: view) ? [] : nil
                body(&userViews.values[i].filtered[j].own!, forest, &splices)
                keep(splices, of: rows, named: view, in: &result)
            }
        }
        // The shared states, their followers following: each records the splices of the
        // followers whose rows are named or observed.
        for i in filterBases.indexList {
            let query = filterBases.keys[i]
            var recording: [ViewID: [Splice]] = [:]
            if let id = view.view, view.filter == query, filterBases.values[i].followers!.covers[id] != nil { recording[id] = [] }
            for rows in observedViews where rows.filter == query {
                if let id = rows.view, filterBases.values[i].followers!.covers[id] != nil { recording[id] = [] }
            }
            filterBases.values[i].followers!.splices = recording
            splices = nil
            body(&filterBases.values[i], forest, &splices)
            let recorded = filterBases.values[i].followers!.splices
            filterBases.values[i].followers!.splices = [:]
            for (id, list) in recorded { keep(list, of: ViewRef(id, filter: query), named: view, in: &result) }
        }
        return result
    }

    /// Runs `body` on every view's unfiltered rows with their base; the splice it returns
    /// is kept as `updateViews` keeps them.
    private mutating func updateCovers(_ view: ViewRef,
                                       _ body: (inout SparseCover, DepthBase, Forest, ViewID) -> Splice?) -> [Splice] {
        var result: [Splice] = []
        for i in userViews.indexList {
            let id = userViews.keys[i]
            if isSuspended(id) || userViews.values[i].dense != nil { continue }
            let rows = ViewRef(id)
            let base = depthBases[userViews.values[i].depth]!.base
            let splice = body(&userViews.values[i].cover, base, forest, id)
            if recordsSplices(of: rows, named: view) { keep(splice.map { [$0] } ?? [], of: rows, named: view, in: &result) }
        }
        return result
    }

    /// Each base's minimum cover and its count over `range`: what the views over it need
    /// of nodes that arrive or leave there, computed once for all of them.
    private func baseMinimums(_ range: Range<Position>) -> [Int32: (Int32, Int32)] {
        depthBases.mapValues { $0.base.minimumAndCount(range.lowerBound.offset, range.upperBound.offset, forest) }
    }

    /// Whether an edit naming `view` records the splices of the rows `rows`.
    private func recordsSplices(of rows: ViewRef, named view: ViewRef) -> Bool {
        rows == view || observedViews.contains(rows)
    }

    /// Keeps the splices recorded for the rows `rows`: the edit's result when the edit
    /// names them, else the observed rows'.
    private mutating func keep(_ splices: [Splice]?, of rows: ViewRef, named view: ViewRef, in result: inout [Splice]) {
        guard let splices else { return }
        if rows == view { result = splices } else { observedSplices[rows, default: []] += splices }
    }
}
