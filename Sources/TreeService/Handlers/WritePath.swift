import Foundation
import HTTP1
import TreeEngine
import TreeFormats

/// The one write path: every change to a session, whichever route asked for it, runs
/// through `mutateSession`, in this order:
///
/// 1. the session is looked up (404), and the view the request names (404 for a view that
///    is not there or expired); the session is locked exclusively (404 too when it, or the
///    view, was removed meanwhile);
/// 2. `If-Match` is checked against the version of that view (412): the session's for the
///    default view;
/// 3. an insert's body is parsed against the session (400 / 422 / 429, and from the server's
///    memory budget 413 when the parse could never fit it, 503 when it cannot now); the ids
///    the operation names are looked up (404); a new view's place is checked (429 beyond
///    `--max-views`);
/// 4. the engine's refusals are checked (409 / 422), and the nodes an insert adds are
///    reserved in the server's node budget (503); a refused change prepares its view's
///    filtered rows as a read of them would before it answers (a build, or a reset: a
///    version step of that view);
/// 5. the change is written to the session's journal (when the server keeps a data
///    directory) as the operations it applies and the view it is made through
///    (`ChangeRecord`), or as the view made or dropped: 507 when the disk refuses it. The
///    filtered rows the change is made in are built first when the view does not keep them
///    (409 when a newer filter request through the same view cancels the build), in a
///    transaction of the store with the record, so a refused build or record leaves nothing
///    built or dropped.
/// 6. the operation is applied to the store (it cannot fail any more), and the versions it
///    changes step by one: every view's for a tree edit, the named view's for a change of
///    its state, none for a view made or dropped; the events of the streams that follow the
///    views that stepped are published;
/// 7. the response lists the splices of the named view, with its new version as `ETag`.
///
/// The response is sent once the record is durable (`--fsync`): with `always` before the
/// lock is released; with `batch` after, without holding a worker thread, so that the
/// changes arriving meanwhile share one fsync. A change of one view's own state (not the
/// default view's: its expansion, the view made or dropped) shares fsyncs that way under
/// `always` too (`JournalMark.grouped`), so many users' views never hold the lock edits
/// need. Replaying the journal runs steps 3 to 6 again from the records, with the session's
/// files detached and without the server's limits (what was applied is applied again).
///
/// A batch (`mutateSession(_:_:view:batch:)`) builds its view's filtered rows, runs 3, 4 and
/// 6 for each of its operations in order, then 5, all inside one `TreeStore.transaction` (a
/// refusal, or a record the disk refuses, rolls everything back), then the version step and
/// 7 once.
extension TreeService {
    /// An operation and the record the journal keeps of it (nil: a view made or dropped,
    /// which has an entry of its own).
    typealias DecodedChange = (operation: SessionOperation, record: RecordedOperation?)

    /// Applies an operation decoded from the request before the lock (any but an insert).
    func mutateSession(_ request: HTTPRequest, _ sid: String, view: ViewName, _ operation: SessionOperation) throws(ServiceError) -> HTTPResponse {
        let record = operation.isViewChange ? nil : RecordedOperation(operation)
        let session = try liveSession(sid)
        let ref = try liveView(view, in: session)
        return try mutateSession(request, session, view: ref, ticket: ticket(ref, session)) { _ throws(ServiceError) in (operation, record) }
    }

    /// Applies the change to a session already looked up, through a view already looked up
    /// (a request holds them from here on, even if they are removed before it gets the
    /// lock): the operation `decode` gives under the lock, after `If-Match` (an insert's
    /// nodes are checked against the session there: its ids, and for rows and path lists
    /// the parents and paths they meet). The response waits until its record is durable.
    func mutateSession(_ request: HTTPRequest, _ session: Session, view: ViewRef, ticket: Int,
                       decode: (TreeStore) throws(ServiceError) -> DecodedChange) throws(ServiceError) -> HTTPResponse {
        try committing(request, session, view: view.view) { session, state throws(ServiceError) in
            try change(view, session, &state, ticket: ticket, decode: decode)
        }
    }

    /// Steps 1, 2 and 7 around a change (`apply`, steps 3 to 6): under the session's lock,
    /// the view's presence and `If-Match`, then the change; the response once its record is
    /// durable.
    private func committing(_ request: HTTPRequest, _ session: Session, view: ViewID?,
                            _ apply: (Session, inout Session.State) throws(ServiceError) -> (HTTPResponse, JournalMark?)) throws(ServiceError) -> HTTPResponse {
        let (response, entry) = try withSession(session, view: view) { session, state throws(ServiceError) in
            try requireView(view, state)
            try request.checkIfMatch(version: state.core.version(of: view))
            let (response, entry) = try apply(session, &state)
            return (response, try durableUnderLock(entry, session, &state))
        }
        return sentWhenDurable(response, entry, session)
    }

    /// The journal's entry of a change through `view`: the operations as applied (a view made
    /// or dropped has an entry of its own), made at `time`.
    private func journalEntry(_ operation: SessionOperation, _ resolved: ResolvedOperation, _ record: RecordedOperation?,
                              view: ViewRef) -> (entry: JournalEntry, time: Date) {
        switch resolved {
        case .createView(let id, let start, let createdAt):
            return (.viewCreated(id, start), createdAt)
        case .deleteView(let id):
            let expired = if case .deleteView(_, let expired) = operation { expired } else { false }
            return (.viewDeleted(id, expired: expired), registry.clock.wallNow)
        default:
            return (.operations(ChangeRecord(view: view.view, filter: view.filter, isBatch: false, operations: [record!])), registry.clock.wallNow)
        }
    }

    /// Steps 3 to 7 of a change, for a request and for its replay from the journal: every
    /// check, then the record (when the session has files), then the change, which
    /// cannot fail by then: a refused change leaves nothing in the journal.
    func change(_ view: ViewRef, _ session: Session, _ state: inout Session.State, ticket: Int,
                decode: (TreeStore) throws(ServiceError) -> DecodedChange) throws(ServiceError) -> (HTTPResponse, JournalMark?) {
        let (operation, record) = try decode(state.core.store)
        let resolved = try resolve(operation, in: state.core, session, view: view.view, replaying: state.replaying)
        _ = state.core.store.takeObservedSplices()  // what a refused batch left
        let accountedBefore = state.accountedNodes
        do throws(ServiceError) {
            try admit(resolved, state.core.store, accounted: &state.accountedNodes, force: state.replaying)
        } catch {
            // Refused, the change still prepares its view as a read of it would (a reset
            // stays; it is journaled as a read's): a newer filter request that cancels
            // the build answers first.
            _ = try prepare(view, session, &state, ticket: ticket)
            throw error
        }
        let keptBefore = state.core.store.keptFilters(in: view.view)
        let prepared: (built: Bool, mark: JournalMark?)
        do throws(ServiceError) {
            let (entry, time) = journalEntry(operation, resolved, record, view: view)
            prepared = try self.record(entry, at: time, preparing: view, session, &state, ticket: ticket)
        } catch {
            registry.release(state.accountedNodes - accountedBefore)
            state.accountedNodes = accountedBefore
            throw error
        }
        var mark = prepared.mark
        // A change of a view's own state, and a view made or dropped, waits for a shared
        // fsync, off the lock.
        mark?.grouped = (view.view != nil || operation.isViewChange) && !resolved.editsTree
        // Filtered rows that were changed and then dropped come back in their initial
        // state: a change (the record, with the version before it, replays the build and so
        // the step).
        if state.core.notePrepared(view, built: prepared.built, keptBefore: keptBefore) { publishViewReset(view, session, &state, mark: mark) }
        let (outcome, stepped) = state.core.apply(resolved, in: view)
        releaseDeletedNodes(state.core.store, accounted: &state.accountedNodes)
        // The record replays the build and the rows it dropped.
        if state.core.contains(view.view) { state.journaledFilters[view.view] = state.core.store.keptFilters(in: view.view) }
        switch resolved {
        case .createView(let id, _, _):
            state.journaledFilters[id] = state.core.store.keptFilters(in: id)
            session.views.add(id, now: registry.clock.now)
            session.keptFilters.withLock { $0[id] = Set(state.core.store.keptFilters(in: id)) }
            observeFollowedViews(session, &state)
            return (createdViewResponse(id, session, state), mark)
        case .deleteView(let id):
            state.journaledFilters[id] = nil
            state.recordedViewUse[id] = nil
            session.views.remove(id)
            session.keptFilters.withLock { $0[id] = nil }
            session.filterTickets.withLock { $0[id] = nil }
            if case .deleteView(_, let expired) = operation { session.events.end(view: id, expired ? .expired : .deleted, mark: mark) }
            observeFollowedViews(session, &state)
            return (HTTPResponse(status: 204), mark)
        default:
            break
        }
        let observed = state.core.store.takeObservedSplices()
        publish(session, &state, stepped, mark: mark) { other, store, version in
            let splices = other == view ? outcome.splices : observed[other] ?? []
            return .change(changeBody(outcome, splices, store, version: version, view: other))
        }
        return (changeResponse(outcome, session: session, state: state, view: view), mark)
    }

    /// Looks up the views and the items `operation` names (404 for one that is not in the
    /// session); a new view gets its id and its time (to the millisecond, as its journal
    /// entry keeps it) here, and must fit in `--max-views` (429; expired views are dropped
    /// first), unless `replaying` its entry.
    private func resolve(_ operation: SessionOperation, in core: SessionCore, _ session: Session, view: ViewID?,
                         replaying: Bool) throws(ServiceError) -> ResolvedOperation {
        switch operation {
        case .createView(let start, let time):
            if case .copy(let source?) = start, !core.contains(source) { throw TreeService.removedView(source.text) }
            guard replaying || core.views.count < configuration.maxViewsPerSession else {
                let ttl = viewTTL(of: session)
                throw ServiceError(.tooManyViews,
                                   detail: "session \(session.id) has its maximum of \(configuration.maxViewsPerSession) views (--max-views)"
                                       + (ttl == .zero ? "; delete one first" : "; delete one, or wait: a view expires after \(ttl.components.seconds) s without use"),
                                   headers: [("Retry-After", "60")])
            }
            return .createView(core.nextViewID, start, createdAt: time ?? JournalEntry.wholeMilliseconds(registry.clock.wallNow))
        case .deleteView(let id, _):
            guard core.contains(id) else { throw TreeService.removedView(id.text) }
            return .deleteView(id)
        default:
            return try resolve(operation, in: core.store, view: view)
        }
    }

    /// Looks up the items `operation` names (404 for one that is not in the session).
    /// - Parameter pointing: a 404 points at the body member that names the item (in a
    ///   batch, where every item is named in the body).
    private func resolve(_ operation: SessionOperation, in store: TreeStore, view: ViewID?, pointing: Bool = false) throws(ServiceError) -> ResolvedOperation {
        func node(_ id: ItemID, _ member: String = "id") throws(ServiceError) -> NodeHandle {
            do throws(ServiceError) {
                return try self.node(id.text, in: store)
            } catch {
                guard pointing else { throw error }
                var pointer = JSONPointer()
                pointer.append(key: member)
                throw ServiceError(error.type, detail: error.detail, pointer: pointer.text)
            }
        }
        switch operation {
        case .expandAll: return .expandAll
        case .collapseAll: return .collapseAll
        case .expandToDepth(let depth): return .expandToDepth(depth)
        case .setExpanded(let item, let expanded, let recursive): return .setExpanded(try node(item), expanded: expanded, recursive: recursive)
        case .reveal(let item): return .reveal(try node(item))
        case .setSelected(let item, let selected, let recursive): return .setSelected(try node(item), selected: selected, recursive: recursive)
        case .selectAll: return .selectAll
        case .selectNone: return .selectNone
        case .invertSelection: return .invertSelection
        case .selectRows(let offset, let count, let selected, let recursive):
            return .selectRows(offset: offset, count: count, selected: selected, recursive: recursive)
        case .setExpansion(let items):
            let nodes = items.compactMap { store.forest.node(withID: $0.text) }
            return .setExpansion(nodes, unknown: items.count - nodes.count)
        case .setSort(let sort):
            guard view != nil else {
                throw .unprocessable("the default view shows the tree's order: make a view (POST /sessions/{sid}/views) to sort", member: "sort")
            }
            return .setSort(sort)
        case .move(let item, let parent, let index):
            let moved = try node(item)
            return .move(moved, parent: try parent.map { (id) throws(ServiceError) in try node(id, "parentId") }, index: index)
        case .update(let item, let title, let data): return .update(try node(item), title: title, data: data)
        case .insert(let fragment, let point):
            switch point {
            case .child(let parent, let index):
                return .insert(fragment, .child(of: try parent.map { (id) throws(ServiceError) in try node(id, "parentId") }, index: index))
            case .before(let sibling): return .insert(fragment, .before(try node(sibling, "before")))
            case .after(let sibling): return .insert(fragment, .after(try node(sibling, "after")))
            }
        case .insertGroups(let groups): return .insertGroups(groups)
        case .delete(let item): return .delete(try node(item))
        case .deleteSelected: return .deleteNodes(store.outermostSelectedNodes(in: view))
        case .moveSelected(let parent, let index):
            let target = try parent.map { (id) throws(ServiceError) in try node(id, "parentId") }
            let nodes = store.outermostSelectedNodes(in: view)
            // The children that stay, and the one the nodes go before.
            let staying = store.forest.children(of: target).filter { !nodes.contains($0) }
            if let index, index > staying.count {
                throw .unprocessable("index \(index) is out of range: the parent has \(staying.count) children that stay (0...\(staying.count) allowed)",
                                     member: "index")
            }
            return .moveNodes(nodes, parent: target, before: index.flatMap { $0 < staying.count ? staying[$0] : nil })
        case .createView, .deleteView: preconditionFailure("views are resolved against the session's core")
        }
    }

    /// The engine's and the node budget's refusals of `operation`, checked before it is
    /// journaled (so that applying it cannot fail): a move into the node's own subtree and
    /// an index out of range (409 / 422); the nodes an insert adds are reserved in the node
    /// budget (503) and counted in `accounted`, the node count the registry has accounted
    /// for the session. `holdingReleases` (in a batch): nodes deleted earlier in the batch
    /// are still accounted, and make room first. `force` (a replay): the budget takes them.
    private func admit(_ operation: ResolvedOperation, _ store: TreeStore, accounted: inout Int,
                       holdingReleases: Bool = false, force: Bool) throws(ServiceError) {
        if let problem = SessionCore.problem(of: operation, in: store) { throw ServiceError(problem) }
        let spare = holdingReleases ? accounted - store.forest.count : 0
        let needed = max(0, operation.addedNodes - spare)
        guard needed > 0 else { return }
        try registry.reserve(needed, force: force)
        accounted += needed
    }

    /// The answer to `POST /sessions/{sid}/views`: 201, the view's summary, its `Location`.
    private func createdViewResponse(_ id: ViewID, _ session: Session, _ state: Session.State) -> HTTPResponse {
        json(201, viewSummary(id, session, state),
             headers: [("Location", "/sessions/\(session.id)/views/\(id.text)"), ("ETag", ETag.of(state.core.version(of: id)))])
    }

    /// The change response: the view's splices, total and version, and what the subject needs.
    private func changeResponse(_ outcome: ChangeOutcome, session: Session, state: Session.State, view: ViewRef) -> HTTPResponse {
        let version = state.core.version(of: view.view)
        let body = changeBody(outcome, outcome.splices, state.core.store, version: version, view: view)
        guard case .inserted(let roots) = outcome.subject else { return json(200, body, headers: [("ETag", ETag.of(version))]) }
        var created = json(201, body, headers: [("ETag", ETag.of(version))])
        if let first = roots.first {
            let id = state.core.store.forest.id(of: first).description
            let prefix = view.view.map { "/sessions/\(session.id)/views/\($0.text)" } ?? "/sessions/\(session.id)"
            created.headers.add(name: "Location", value: "\(prefix)/items/\(PathSegment.encode(id))")
        }
        return created
    }

    /// The body of the change response in a view's kept rows: the ones the change named, or
    /// other ones an event stream follows (`splices` are then theirs).
    private func changeBody(_ outcome: ChangeOutcome, _ splices: [Splice], _ store: TreeStore, version: Int, view: ViewRef) -> [UInt8] {
        let reload = outcome.reload.ranges(in: store, view)
        func body(_ index: ResponseJSON.IndexMember, extra: ((inout JSONWriter) -> Void)? = nil) -> [UInt8] {
            ResponseJSON.changes(version: version, total: store.keptRowCount(view)!, splices, reload: reload, index: index, extra: extra)
        }
        func row(_ node: NodeHandle) -> Int? { store.keptPlacement(of: node, view)!.index }
        switch outcome.subject {
        case .session, .createdView:
            return body(.absent)
        case .expansionSet(let unknown):
            return body(.absent) { out in
                out.raw(",\"unknown\":")
                out.int(unknown)
            }
        case .item(let node):
            return body(.row(row(node)))
        case .removed:
            return body(.row(nil))
        case .inserted(let roots):
            let forest = store.forest
            return body(.row(roots.first.flatMap(row))) { out in
                out.raw(",\"ids\":[")
                for (i, root) in roots.enumerated() {
                    if i > 0 { out.raw(",") }
                    forest.writeID(of: root, to: &out)
                }
                out.raw("]")
            }
        }
    }
}

// MARK: Batches

extension TreeService {
    /// Applies a batch: its operations in order, each in the named view and through the same
    /// steps as a single change, inside one transaction of the store. All or nothing: when
    /// operation k fails, its error (pointing into `/operations/k`) is the answer and the
    /// session is exactly as before (tree, every view, version, node budget, journal). One
    /// version step for the whole batch, none for an empty one.
    func mutateSession(_ request: HTTPRequest, _ sid: String, view name: ViewName, batch: Batch) throws(ServiceError) -> HTTPResponse {
        let session = try liveSession(sid)
        let view = try liveView(name, in: session)
        let ticket = ticket(view, session)
        return try committing(request, session, view: view.view) { session, state throws(ServiceError) in
            try change(view, batch, session, &state, ticket: ticket)
        }
    }

    /// A batch's steps under the lock, for a request and for its replay. The named view is
    /// built inside the transaction (a failed batch keeps none it built), and the record is
    /// written last inside it: a disk that refuses it rolls the batch back. The record
    /// replays the build and the views it dropped, so no `views` entry follows it; an empty
    /// batch has one too (it may build its view: a reset, a version step).
    func change(_ view: ViewRef, _ batch: Batch, _ session: Session, _ state: inout Session.State,
                ticket: Int) throws(ServiceError) -> (HTTPResponse, JournalMark?) {
        _ = state.core.store.takeObservedSplices()  // what a refused batch left
        let keptBefore = state.core.store.keptFilters(in: view.view)
        let files = try filesForRecord(session, &state)
        let version = state.core.version, time = registry.clock.wallNow
        let accountedBefore = state.accountedNodes
        var accounted = accountedBefore
        let replaying = state.replaying
        var built = false
        var mark: JournalMark?
        let outcome: BatchOutcome
        do throws(ServiceError) {
            outcome = try state.core.store.transaction { (store) throws(ServiceError) -> BatchOutcome in
                built = try prepare(view, session, &store, ticket: ticket)
                let outcome = try applyBatch(batch, view, &store, accounted: &accounted, replaying: replaying)
                // Every operation was applied (an invalid one threw): the record can be made.
                let record = ChangeRecord(view: view.view, filter: view.filter, isBatch: true, operations: batch.records)
                mark = try appendChange(.operations(record), to: files, version: version, at: time)
                return outcome
            }
        } catch {
            // The store is as it was, so the registry's count of its nodes goes back too
            // (only reservations: deletions were held).
            registry.release(accounted - accountedBefore)
            throw error
        }
        if mark != nil { state.noteJournaled(.operations(ChangeRecord(view: view.view, filter: view.filter, isBatch: true, operations: [])), at: time) }
        // A batch of a view's own state only waits for a shared fsync, off the lock.
        mark?.grouped = view.view != nil && !outcome.editsTree
        releaseDeletedNodes(state.core.store, accounted: &accounted)
        state.accountedNodes = accounted
        if state.core.notePrepared(view, built: built, keptBefore: keptBefore) { publishViewReset(view, session, &state, mark: mark) }
        let observed = state.core.store.takeObservedSplices()
        if !batch.entries.isEmpty {
            let stepped = state.core.step(editsTree: outcome.editsTree, changesExpansion: outcome.changesExpansion,
                                          changesSelection: outcome.changesSelection, in: view)
            publish(session, &state, stepped, mark: mark) { other, store, version in
                let splices = other == view ? outcome.splices : observed[other] ?? []
                return .change(batchBody(outcome, splices, store, version: version, view: other))
            }
        }
        // The batch's record replays the rows it built and the ones that dropped.
        state.journaledFilters[view.view] = state.core.store.keptFilters(in: view.view)
        let versionAfter = state.core.version(of: view.view)
        let body = batchBody(outcome, outcome.splices, state.core.store, version: versionAfter, view: view)
        return (json(200, body, headers: [("ETag", ETag.of(versionAfter))]), mark)
    }

    /// What a batch did, for the response.
    private struct BatchOutcome {
        /// Every operation's splices in the named view, in order.
        var splices: [Splice] = []
        /// What every operation may have changed in place.
        var reload = ReloadHint()
        var results: [BatchResult] = []
        var editsTree = false
        var changesExpansion = false
        var changesSelection = false
        /// Whether each operation edited the tree.
        var editsTrees: [Bool] = []
    }

    /// One operation's entry in `results`.
    private enum BatchResult {
        /// A change of the whole view: `{}`.
        case session
        /// An item operation: `{"index"}`, the item's row after the batch.
        case item(ItemID)
        /// A delete: `{"index": null}`.
        case removed
        /// An insert: `{"index", "ids"}`, the row of the first inserted node after the batch,
        /// and the inserted roots' ids (as JSON, written when they were inserted).
        case inserted(first: ItemID?, ids: [UInt8])
    }

    /// Applies the operations of `batch` in order to `store` (inside its transaction).
    private func applyBatch(_ batch: Batch, _ view: ViewRef, _ store: inout TreeStore,
                            accounted: inout Int, replaying: Bool) throws(ServiceError) -> BatchOutcome {
        var outcome = BatchOutcome()
        outcome.results.reserveCapacity(batch.entries.count)
        for (k, entry) in batch.entries.enumerated() {
            // Where the operation's bytes start, while byte offsets count from there.
            var offsetBase: Int? = nil
            do throws(ServiceError) {
                let operation: SessionOperation
                switch entry {
                case .operation(let decoded): operation = decoded
                case .invalid(let error): throw error
                case .insert(let span, let read):
                    offsetBase = span.lowerBound
                    let (fragment, members) = try attached(try read?.get(), to: store) { () throws(ServiceError) in
                        try parseNodes(batch.body, span, into: store, replaying: replaying)
                    }
                    offsetBase = nil
                    operation = .insert(fragment, try SessionOperation.insertionPoint(members.removing("op")))
                }
                let resolved = try resolve(operation, in: store, view: view.view, pointing: true)
                try admit(resolved, store, accounted: &accounted, holdingReleases: true, force: replaying)
                let applied = SessionCore.apply(resolved, view, to: &store)
                outcome.splices += applied.splices
                outcome.reload.formUnion(applied.reload)
                if resolved.editsTree {
                    outcome.editsTree = true
                } else if resolved.changesSelection {
                    outcome.changesSelection = true
                } else {
                    outcome.changesExpansion = true
                }
                outcome.editsTrees.append(resolved.editsTree)
                let forest = store.forest
                switch applied.subject {
                case .session: outcome.results.append(.session)
                case .item(let node): outcome.results.append(.item(ItemID(forest.id(of: node).description)))
                case .removed: outcome.results.append(.removed)
                case .createdView, .expansionSet:
                    preconditionFailure("a batch makes no view and sets no expansion from a list")
                case .inserted(let roots):
                    var ids = JSONWriter(reservingCapacity: 16 * roots.count + 2)
                    ids.raw("[")
                    for (i, root) in roots.enumerated() {
                        if i > 0 { ids.raw(",") }
                        forest.writeID(of: root, to: &ids)
                    }
                    ids.raw("]")
                    outcome.results.append(.inserted(first: roots.first.map { ItemID(forest.id(of: $0).description) }, ids: ids.bytes))
                }
            } catch {
                throw error.inOperation(k, offsetBase: offsetBase)
            }
        }
        return outcome
    }

    /// The change response of a batch in a kept view (the named one, or another one an
    /// event stream follows): `splices`, that view's splices of all its operations, as one
    /// change, and `results`, one entry per operation, with rows after the batch.
    private func batchBody(_ outcome: BatchOutcome, _ splices: [Splice], _ store: TreeStore, version: Int, view: ViewRef) -> [UInt8] {
        func row(_ id: ItemID?) -> Int? {
            guard let id, let node = store.forest.node(withID: id.text) else { return nil }
            return store.keptPlacement(of: node, view)!.index
        }
        var rows: [Int?] = []
        rows.reserveCapacity(outcome.results.count)
        for result in outcome.results {
            switch result {
            case .session, .removed: rows.append(nil)
            case .item(let id), .inserted(let id?, _): rows.append(row(id))
            case .inserted(nil, _): rows.append(nil)
            }
        }
        let total = store.keptRowCount(view)!
        let oldTotal = splices.reduce(total) { $0 - $1.inserted + $1.removed }
        return ResponseJSON.changes(version: version, total: total, Splice.sequence(splices, oldTotal: oldTotal),
                                    reload: outcome.reload.ranges(in: store, view), index: .absent) { out in
            out.raw(",\"results\":[")
            for (i, result) in outcome.results.enumerated() {
                if i > 0 { out.raw(",") }
                switch result {
                case .session:
                    out.raw("{}")
                case .item, .removed:
                    out.raw("{\"index\":")
                    if let row = rows[i] { out.int(row) } else { out.null() }
                    out.raw("}")
                case .inserted(_, let ids):
                    out.raw("{\"index\":")
                    if let row = rows[i] { out.int(row) } else { out.null() }
                    out.raw(",\"ids\":")
                    out.raw(ids)
                    out.raw("}")
                }
            }
            out.raw("]")
        }
    }
}
