extension TreeStore {
    /// Runs `body` as one all-or-nothing change: when it throws, the store is
    /// exactly as it was before (forest, every kept view with its rows, expansion
    /// and match count, the kept views and their order), and the error is
    /// rethrown; otherwise everything `body` did is kept.
    ///
    /// Edits inside cost what they cost outside. What a rollback needs is kept on
    /// the way: the inverse of each structural edit, the old titles and data (no
    /// release and no pool compaction until the end), the slots of deleted nodes,
    /// and copy-on-write snapshots of the per-node flags and of each filtered view's
    /// expansion and matches. A rollback undoes the edits in reverse and recomputes
    /// the views' indexes. No view is dropped while a transaction runs; filtered
    /// views it built are kept only when it succeeds. Transactions do not nest.
    /// - Complexity: O(what `body` does), plus copying the per-node flags (n bytes)
    ///   at their first change and a view's expansion or match bits (n / 8 bytes) at
    ///   theirs; a rollback costs O(n · views)
    public mutating func transaction<R, E: Error>(_ body: (inout TreeStore) throws(E) -> R) throws(E) -> R {
        precondition(undo == nil, "transactions do not nest")
        undo = UndoLog(self)
        forEachSortedWorld { store, _, keys, _ in store.undo!.layouts[keys] = UndoLog(store) }
        forest.held = Forest.HeldReleases()
        do {
            let result = try body(&self)
            let suspended = undo!.suspended
            undo = nil
            forest.releaseHeld()
            resumeViews(suspended)
            if filtered.count > filteredViewCapacity { filtered.removeFirst(filtered.count - filteredViewCapacity) }
            dropFiltersPastCapacity()
            forEachSortedWorld { store, _, _, _ in store.dropFiltersPastCapacity() }
            return result
        } catch {
            rollBack()
            throw error
        }
    }

    /// From this edit of a transaction on, views other than the one the edits name stop
    /// following them: they are rebuilt from their exceptions when it ends (`resumeViews`),
    /// so that a batch of e edits costs O(e + views · changes) and not O(e · views).
    /// (Debug builds: 2, so that the model tests suspend and resume.)
    #if TREE_INVARIANTS
    static let editsBeforeSuspending = 2
    #else
    static let editsBeforeSuspending = 32
    #endif

    /// Inside a transaction, before an edit naming `view`: past `editsBeforeSuspending`,
    /// suspends the other views.
    mutating func countTransactionEdit(_ view: ViewRef) {
        guard undo != nil else { return }
        undo!.edits += 1
        guard undo!.edits > TreeStore.editsBeforeSuspending, undo!.suspended.isEmpty else { return }
        suspendViews(except: view.view, saved: undo!)
        forEachSortedWorld { store, _, keys, _ in
            if let saved = store.undo!.layouts[keys] { store.suspendViews(except: view.view, saved: saved) }
        }
    }

    /// Suspends the views of the order swapped in that existed when the transaction began
    /// (`saved` has them), but `named`.
    private mutating func suspendViews(except named: ViewID?, saved: UndoLog) {
        for (id, user) in userViews where id != named && saved.userViews[id] != nil && user.dense == nil {
            undo!.suspended[id] = user.cover.total
        }
    }

    /// Resumes the view now when it is suspended (an operation names it).
    mutating func wake(_ view: ViewRef) {
        guard let id = view.view, let total = undo?.suspended[id] else { return }
        undo!.suspended[id] = nil
        resumeViews([id: total])
    }

    /// Whether the view's unfiltered rows wait for the transaction's end.
    func isSuspended(_ id: ViewID) -> Bool { undo?.suspended[id] != nil }

    /// Rebuilds the suspended views from their exceptions as the transaction began (nodes
    /// deleted since dropped, moved ones judged against the rule where they are now); an
    /// observed one records one splice of all its rows.
    /// - Complexity: O(their exceptions · log n)
    mutating func resumeViews(_ suspended: [ViewID: Int]) {
        for (id, oldTotal) in suspended {
            inWorld(of: id) { store in
                let cover = TreeStore.rebuilt(store.userViews[id]!.cover, over: store.depthBases[store.userViews[id]!.depth]!.base, store.forest)
                store.userViews[id]!.cover = cover
                let rows = ViewRef(id)
                if store.observedViews.contains(rows) && (oldTotal > 0 || cover.total > 0) {
                    store.observedSplices[rows, default: []].append(Splice(index: 0, removed: oldTotal, inserted: cover.total))
                }
            }
        }
        checkInvariants()
    }

    /// Records the inverse of a structural edit, inside a transaction.
    mutating func recordUndo(_ step: @autoclosure () -> UndoLog.Step) {
        if undo != nil { undo!.steps.append(step()) }
    }

    /// Where a node taken out of its place goes back: under `parent` (a root when
    /// nil), before `before` (its next sibling then), or last when nil.
    func placeOfReturn(_ node: Slot) -> (parent: Slot?, before: Slot?) {
        let parent = forest.parent(ofSlot: node)
        let next = forest.nextNode(from: forest.subtreeEnd(of: forest.position(ofSlot: node)))
        let sibling = next < forest.positions.upperBound && forest.parent(ofSlot: forest.slot(at: next)) == parent ? forest.slot(at: next) : nil
        return (parent, sibling)
    }

    /// Each view of the order swapped in keeps at most `filteredViewCapacity` filtered rows.
    private mutating func dropFiltersPastCapacity() {
        for id in Array(userViews.keys) where userViews[id]!.filtered.count > filteredViewCapacity { dropLeastUsedFilters(of: id) }
    }

    private mutating func rollBack() {
        let log = undo!
        undo = nil
        for step in log.steps.reversed() {
            switch step {
            case .inserted(let roots):
                for root in roots.reversed() {
                    _ = sortsTakeOut(root)
                    let run = forest.takeOut(forest.position(ofSlot: root))
                    for slot in run.slots {
                        forest.ids.remove(slot: slot)
                        forest.releasePayload(of: slot)
                    }
                }
            case .deleted(let run, let parent, let before, let ids):
                putBack(run, parent: parent, before: before)
                sortsFollowInsertion(of: zip(run.slots, run.depths).filter { $0.1 == 0 }.map(\.0), parent: parent)
                for id in ids { id.key.withUnsafeBytes { forest.ids.insert(slot: id.slot, key: $0, isInteger: id.isInteger) } }
            case .moved(let node, let parent, let before):
                let sortedRuns = sortsTakeOut(node)
                putBack(forest.takeOut(forest.position(ofSlot: node)), parent: parent, before: before)
                sortsFollowArrival(of: node, sortedRuns)
            case .retitled(let node, let old):
                forest.titles.release(forest.titleRef[node.index])
                forest.titleRef[node.index] = old
                sortsFollowUpdate(of: node, title: true, data: false)
            case .redata(let node, let old):
                forest.dataPool.release(forest.dataRef[node.index] - 1)
                forest.dataRef[node.index] = old
                forest.readFields(of: CollectionOfOne(node))
                sortsFollowUpdate(of: node, title: false, data: true)
            }
        }
        // Slots first used inside the transaction stay, free.
        let added = forest.flags.count - log.flags.count
        forest.flags = log.flags
        forest.flags.append(contentsOf: repeatElement(.free, count: added))
        forest.freeSlots = log.freeSlots + (0 ..< added).map { Slot(log.flags.count + $0) }
        forest.nextGeneratedID = log.nextGeneratedID
        forest.held = nil
        restoreViews(log)
        forEachSortedWorld { store, _, keys, _ in
            if let log = log.layouts[keys] {
                store.restoreViews(log)
            } else {
                // Built inside the transaction: no view is sorted by it yet.
                for i in store.childBases.indices { store.childBases[i].rebuild(store.forest) }
            }
        }
        checkInvariants()
    }

    /// The views of the order swapped in as `log` saved them, over the forest put back.
    private mutating func restoreViews(_ log: UndoLog) {
        if layoutKeys == nil { unfiltered.reindex(forest) }
        filtered = TreeStore.restored(log.views, from: filtered, forest)
        // The views' rules as they were, and each base counted anew.
        var users: [Int32: Int] = [:]
        for saved in log.userViews.values { users[saved.depth, default: 0] += 1 }
        selections = log.selections
        if !selections.isEmpty { users[DepthBase.all, default: 0] += selections.count }
        depthBases = users.reduce(into: [:]) { bases, entry in bases[entry.key] = (DepthBase(depth: entry.key, forest: forest), entry.value) }
        for i in aggregateIndexes.indices { aggregateIndexes[i].rebuild(forest) }
        for i in childBases.indices { childBases[i].rebuild(forest) }
        // The shared states as they were (one dropped on the way built again), their
        // followers from their saved exceptions.
        let current = filterBases
        filterBases = [:]
        for saved in log.filterBases {
            if current[saved.query] == nil { readyFields(saved.query) }
            var base = current[saved.query] ?? (try! ViewState.filtered(forest, query: saved.query, workers: filterWorkers, isCancelled: { false }))
            base.restore(expanded: saved.expanded, matches: saved.matches, matchCount: saved.matchCount, in: forest)
            base.filter!.isShared = true
            base.followers = Followers()
            filterBases[saved.query] = base
        }
        for (id, saved) in log.userViews {
            let base = depthBases[saved.depth]!.base
            userViews[id]!.depth = saved.depth
            userViews[id]!.cover = TreeStore.rebuilt(saved.cover, over: base, forest)
            userViews[id]!.dense = saved.dense.map { ViewState.dense($0, depth: saved.depth, forest) }
            let now = userViews[id]!.filtered
            userViews[id]!.filtered = saved.filtered.map { entry in
                switch entry {
                case .own(let saved):
                    var view = now.first { $0.query == saved.query }!.own!
                    view.restore(expanded: saved.expanded, matches: saved.matches, matchCount: saved.matchCount, in: forest)
                    return (saved.query, view)
                case .shared(let query, let cover):
                    filterBases[query]!.followers!.covers[id] = TreeStore.rebuilt(cover, over: filterBases[query]!, forest)
                    return (query, nil)
                }
            }
        }
    }

    /// A cover with the exceptions of `saved` over `base` as it is now.
    /// - Complexity: O(exceptions · (log |X| + log n))
    static func rebuilt(_ saved: SparseCover, over base: some CoverBase, _ forest: Forest) -> SparseCover {
        var cover = SparseCover(base: base, forest: forest)
        for exception in saved.exceptions where !forest.flags[exception.slot.index].contains(.free) {
            cover.setException(exception.slot, exception.expanded, base, forest)
        }
        return cover
    }

    /// The filtered rows `saved` lists, in its order, with their saved expansion and matches.
    private static func restored(_ saved: [UndoLog.SavedFilter], from current: [(query: FilterQuery, view: ViewState)],
                                 _ forest: Forest) -> [(query: FilterQuery, view: ViewState)] {
        saved.map { saved in
            var view = current.first { $0.query == saved.query }!.view
            view.restore(expanded: saved.expanded, matches: saved.matches, matchCount: saved.matchCount, in: forest)
            return (saved.query, view)
        }
    }

    /// Puts a run taken out back where `placeOfReturn` said.
    private mutating func putBack(_ run: Run, parent: Slot?, before: Slot?) {
        let q = if let before { forest.position(ofSlot: before) }
            else { try! forest.insertionPoint(parent: parent.map { NodeHandle(slot: $0) }, index: nil) }
        let (start, _) = forest.makeRoom(run.count, at: q)
        forest.put(run, at: start, parent: parent)
    }
}

/// What a transaction keeps to roll back (see `TreeStore.transaction`).
struct UndoLog: Sendable {
    /// The inverse of a structural edit or of a title or data change.
    enum Step: Sendable {
        /// Nodes inserted: take them out.
        case inserted(roots: [Slot])
        /// A subtree deleted (its slots held): put it back, with its ids.
        case deleted(Run, parent: Slot?, before: Slot?, ids: [(slot: Slot, key: [UInt8], isInteger: Bool)])
        /// A subtree moved: move it back.
        case moved(Slot, parent: Slot?, before: Slot?)
        case retitled(Slot, old: UInt32)
        /// The old `dataRef` (0: no data).
        case redata(Slot, old: UInt32)
    }

    var steps: [Step] = []
    let flags: ContiguousArray<NodeFlags>
    let freeSlots: [Slot]
    let nextGeneratedID: Int64
    /// Kept filtered rows, with what edits and toggles change of them.
    typealias SavedFilter = (query: FilterQuery, expanded: Bitset, matches: Bitset, matchCount: Int)
    /// The default view's kept filtered rows in order.
    let views: [SavedFilter]
    /// A view's kept filtered rows: its own, or its exceptions over the shared state.
    enum SavedViewFilter {
        case own(SavedFilter)
        case shared(FilterQuery, SparseCover)
    }
    /// The other views: their exceptions (copied on their first change) and filtered rows.
    let userViews: [ViewID: (depth: Int32, cover: SparseCover, dense: Bitset?, filtered: [SavedViewFilter])]
    /// The shared filtered states.
    let filterBases: [SavedFilter]
    /// The views' selections: valid again once the forest is back (they name nodes by slot
    /// and count nodes between them, which the rollback puts back in the same order).
    let selections: [ViewID?: Selection]
    /// The edits made so far.
    var edits = 0
    /// The views of each sorted layout kept when the transaction began, as this saves the
    /// tree order's (`TreeStore+SortedViews.swift`).
    var layouts: [SortKeys: UndoLog] = [:]
    /// The views that stopped following the edits (see `TreeStore.suspendViews`), with
    /// their rows' count then; their exceptions are in `userViews`' covers.
    var suspended: [ViewID: Int] = [:]

    init(_ store: TreeStore) {
        flags = store.forest.flags
        freeSlots = store.forest.freeSlots
        nextGeneratedID = store.forest.nextGeneratedID
        func saved(_ list: [(query: FilterQuery, view: ViewState)]) -> [SavedFilter] {
            list.map { ($0.query, $0.view.filter!.expanded, $0.view.filter!.matches, $0.view.filter!.matchCount) }
        }
        views = saved(store.filtered)
        userViews = store.userViews.map { id, view in
            (id, (view.depth, view.cover, view.dense?.own!.expanded, view.filtered.map { entry -> SavedViewFilter in
                guard let own = entry.own else { return .shared(entry.query, store.filterBases[entry.query]!.followers!.covers[id]!) }
                return .own((entry.query, own.filter!.expanded, own.filter!.matches, own.filter!.matchCount))
            }))
        }.reduce(into: [:]) { $0[$1.0] = $1.1 }
        filterBases = saved(store.filterBases.map { ($0.key, $0.value) })
        selections = store.selections
    }
}
