import HTTP1
import TreeEngine
import TreeFormats

/// The one write path: every change to a session, whichever route asked for it, runs
/// through `mutateSession`, in this order:
///
/// 1. the session is looked up (404) and locked exclusively (404 too when it was removed
///    meanwhile);
/// 2. `If-Match` is checked against its version (412);
/// 3. an insert's body is parsed against the session (400 / 422 / 429, and from the server's
///    memory budget 413 when the parse could never fit it, 503 when it cannot now); the ids
///    the operation names are looked up (404), before any view is built;
/// 4. the view the change is made in is prepared (a filtered view built: 409 when a newer
///    filter request cancels the build);
/// 5. the operation is applied to the store (409 / 422 / 429 too many nodes from the engine,
///    503 from the server's node budget);
/// 6. the change is recorded (the view's expansion changed, or the tree edited) and the
///    version moves by one;
/// 7. the response lists the splices of that view, with the new version as `ETag`.
///
/// Between 3 and 4 the change is written to the session's journal (when the server keeps
/// a data directory), as the request that made it; when 4 or 5 fails it is taken back. The
/// response is sent once the entry is durable (`--fsync`): with `always` before the lock
/// is released; with `batch` after, without holding a worker thread, so that the changes
/// arriving meanwhile share one fsync. Replaying the journal runs steps 3 to 6 again from
/// the entries.
///
/// A batch (`mutateSession(_:_:_:batch:)`) runs 4 and the journal once, then 3 and 5 for
/// each of its operations in order, inside one `TreeStore.transaction`, then 6 and 7 once.
extension TreeService {
    /// Applies a change whose operation was decoded from the request before the lock.
    func mutateSession(_ request: HTTPRequest, _ sid: String, _ recorded: RecordedChange, _ operation: SessionOperation) throws(ServiceError) -> HTTPResponse {
        try mutateSession(request, sid, recorded) { _ throws(ServiceError) in operation }
    }

    /// Applies the operation `decode` reads under the lock, after `If-Match` (an insert's
    /// body can only be read against the session: its ids are checked against the
    /// session's, and its generated ids continue the session's numbering). `recorded` is
    /// the request as the journal keeps it; the response waits until its entry is durable.
    func mutateSession(_ request: HTTPRequest, _ sid: String, _ recorded: RecordedChange,
                       decode: (TreeStore) throws(ServiceError) -> SessionOperation) throws(ServiceError) -> HTTPResponse {
        let ticket = ticket(recorded.view, sid)
        return try mutateSession(request, try liveSession(sid), recorded, ticket: ticket, decode: decode)
    }

    /// Applies the change to a session already looked up (a request holds it from here on,
    /// even if the session is removed before it gets the lock).
    func mutateSession(_ request: HTTPRequest, _ session: Session, _ recorded: RecordedChange, ticket: Int,
                       decode: (TreeStore) throws(ServiceError) -> SessionOperation) throws(ServiceError) -> HTTPResponse {
        try committing(request, session) { session, state throws(ServiceError) in
            try change(recorded, session, &state, ticket: ticket, decode: decode)
        }
    }

    /// Steps 1, 2 and 7 around a change (`apply`, steps 3 to 6): under the session's lock,
    /// `If-Match`, then the change; the response once its entry is durable.
    private func committing(_ request: HTTPRequest, _ session: Session,
                            _ apply: (Session, inout Session.State) throws(ServiceError) -> (HTTPResponse, JournalMark?)) throws(ServiceError) -> HTTPResponse {
        let (response, entry) = try withSession(session) { session, state throws(ServiceError) in
            try request.checkIfMatch(version: state.version)
            let (response, entry) = try apply(session, &state)
            return (response, try durableUnderLock(entry, session, &state))
        }
        return sentWhenDurable(response, entry, session)
    }

    /// Steps 3 to 7 of a change, for a request and for its replay from the journal: the
    /// entry is written (when the session has files) after every check and before the
    /// store changes, and taken back when the engine refuses the operation.
    func change(_ recorded: RecordedChange, _ session: Session, _ state: inout Session.State, ticket: Int,
                decode: (TreeStore) throws(ServiceError) -> SessionOperation) throws(ServiceError) -> (HTTPResponse, JournalMark?) {
        let operation = try decode(state.store)
        let resolved = try resolve(operation, in: state.store)
        _ = state.store.takeObservedSplices()  // what a refused batch left
        // The entry first: a disk that refuses it leaves everything as it was, also a view
        // the change would have built or reset. Its replay prepares the view the same way.
        let versionBefore = state.version
        let mark = try journal(.change(recorded), session, &state)
        let outcome: ChangeOutcome
        do throws(ServiceError) {
            try prepare(recorded.view, session, &state, ticket: ticket, recordingOrder: false, changeEntry: mark)
            outcome = try apply(resolved, recorded.view, &state.store, accounted: &state.accountedNodes, replaying: state.replaying)
        } catch {
            takeBack(mark, session, &state)
            // What the refused change did to the views stays (a view built or reset, as a
            // read would): recorded as a read records it, at the version before the reset.
            journalViewOrder(session, &state, version: versionBefore)
            throw error
        }
        state.journaledViews = state.store.keptFilters
        if operation.editsTree { state.treeEdited() } else { state.expansionChanged(recorded.view) }
        state.version += 1
        let observed = state.store.takeObservedSplices()
        publish(session, &state, mark: mark) { view, store, version in
            let splices = view == recorded.view ? outcome.splices : observed[view] ?? []
            return .change(changeBody(outcome, splices, store, version: version, view: view))
        }
        return (changeResponse(outcome, session: session, state: state, view: recorded.view), mark)
    }

    /// An operation with its items looked up in the store.
    private enum ResolvedOperation {
        case expandAll
        case collapseAll
        case expandToDepth(Int)
        case setExpanded(NodeHandle, expanded: Bool, recursive: Bool)
        case reveal(NodeHandle)
        case move(NodeHandle, parent: NodeHandle?, index: Int?)
        case update(NodeHandle, title: String?, data: JSONValue?)
        case insert(Forest, InsertPlacement)
        case insertGroups([FragmentGroup])
        case delete(NodeHandle)
    }

    /// What an applied operation changed, for the response.
    private struct ChangeOutcome {
        var splices: [Splice]
        var subject: Subject
        /// Rows that may have changed in place (see `ReloadHint`).
        var reload: ReloadHint

        enum Subject {
            /// The whole session (no `index` in the response).
            case session
            /// An item still in the tree (`index`: its row, or null when hidden).
            case item(NodeHandle)
            /// A deleted item (`index`: null).
            case removed
            /// Inserted roots (201, `ids`, `index` of the first, `Location`).
            case inserted([NodeHandle])
        }
    }

    /// Looks up the items `operation` names (404 for one that is not in the session).
    /// - Parameter pointing: a 404 points at the body member that names the item (in a
    ///   batch, where every item is named in the body).
    private func resolve(_ operation: SessionOperation, in store: TreeStore, pointing: Bool = false) throws(ServiceError) -> ResolvedOperation {
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
        }
    }

    /// Applies a resolved operation to the named view of the session's store, keeping the
    /// node budget in step with the forest: `accounted` is the node count the registry has
    /// accounted for the session. `holdingReleases` (in a batch): deleted nodes stay
    /// accounted until the batch settles (later inserts of the batch use them first), so
    /// that a rollback never takes back nodes the registry may have given to another
    /// session meanwhile.
    private func apply(_ operation: ResolvedOperation, _ view: FilterQuery?, _ store: inout TreeStore,
                       accounted: inout Int, holdingReleases: Bool = false, replaying: Bool = false) throws(ServiceError) -> ChangeOutcome {
        switch operation {
        case .expandAll: return ChangeOutcome(splices: store.expandAll(view), subject: .session, reload: .everything(view))
        case .collapseAll: return ChangeOutcome(splices: store.collapseAll(view), subject: .session, reload: .everything(view))
        case .expandToDepth(let depth):
            return ChangeOutcome(splices: store.expand(toDepth: depth, view), subject: .session, reload: .everything(view))
        case .setExpanded(let node, let expanded, let recursive):
            // A recursive change may flip rows of the whole subtree that stay visible.
            return ChangeOutcome(splices: store.setExpanded(node, expanded, recursive: recursive, view), subject: .item(node),
                                 reload: recursive ? .everything(view) : .path(node, store.forest, in: view))
        case .reveal(let node):
            return ChangeOutcome(splices: store.reveal(node, view), subject: .item(node), reload: .path(node, store.forest, in: view))
        case .move(let node, let parent, let index):
            let oldParent = store.forest.parent(of: node)
            do throws(EditError) {
                return ChangeOutcome(splices: try store.move(node, to: parent, index: index, view), subject: .item(node),
                                     reload: .paths([node] + (oldParent.map { [$0] } ?? []), store.forest))
            } catch {
                throw ServiceError(error)
            }
        case .update(let node, let title, let data):
            return ChangeOutcome(splices: store.update(node, title: title, data: data?.serialize(), view), subject: .item(node), reload: .paths([node], store.forest))
        case .insert(let fragment, let placement):
            return try insert([(fragment, placement)], view, &store, accounted: &accounted, holdingReleases: holdingReleases,
                              replaying: replaying)
        case .insertGroups(let groups):
            let parts = groups.map { ($0.fragment, InsertPlacement.child(of: $0.parent, index: nil)) }
            return try insert(parts, view, &store, accounted: &accounted, holdingReleases: holdingReleases, replaying: replaying)
        case .delete(let node):
            let parent = store.forest.parent(of: node)
            let splices = store.delete(node, view)
            if !holdingReleases { releaseDeletedNodes(store, accounted: &accounted) }
            return ChangeOutcome(splices: splices, subject: .removed, reload: .paths(parent.map { [$0] } ?? [], store.forest))
        }
    }

    /// Inserts fragments one after another (in one transaction of the store when there are
    /// several, so that all or none are in), reserving their nodes in the node budget.
    private func insert(_ parts: [(Forest, InsertPlacement)], _ view: FilterQuery?, _ store: inout TreeStore,
                        accounted: inout Int, holdingReleases: Bool, replaying: Bool) throws(ServiceError) -> ChangeOutcome {
        // Nodes a batch deleted earlier are still accounted: they make room first.
        let spare = holdingReleases ? accounted - store.forest.count : 0
        let needed = max(0, parts.reduce(0) { $0 + $1.0.count } - spare)
        try registry.reserve(needed, force: replaying)
        func insertAll(_ store: inout TreeStore) throws(EditError) -> (splices: [Splice], roots: [NodeHandle]) {
            var result: (splices: [Splice], roots: [NodeHandle]) = ([], [])
            for (fragment, placement) in parts {
                let inserted = try store.insert(fragment, placement, view)
                result.splices += inserted.splices
                result.roots += inserted.roots
            }
            return result
        }
        let rowsBefore = parts.count > 1 ? store.keptRowCount(view)! : 0
        let result: (splices: [Splice], roots: [NodeHandle])
        do throws(EditError) {
            result = parts.count == 1 ? try insertAll(&store) : try store.transaction(insertAll)
        } catch {
            registry.release(needed)
            throw ServiceError(error)
        }
        accounted += needed
        // Several groups' splices read as one change (a list of bounded length).
        let splices = parts.count > 1 ? Splice.sequence(result.splices, oldTotal: rowsBefore) : result.splices
        return ChangeOutcome(splices: splices, subject: .inserted(result.roots),
                             reload: .paths(result.roots.prefix(1), store.forest))
    }

    /// The change response: the view's splices, total and version, and what the subject needs.
    private func changeResponse(_ outcome: ChangeOutcome, session: Session, state: Session.State, view: FilterQuery?) -> HTTPResponse {
        let body = changeBody(outcome, outcome.splices, state.store, version: state.version, view: view)
        guard case .inserted(let roots) = outcome.subject else { return json(200, body, headers: [("ETag", ETag.of(state.version))]) }
        var created = json(201, body, headers: [("ETag", ETag.of(state.version))])
        if let first = roots.first {
            let id = state.store.forest.id(of: first).description
            created.headers.add(name: "Location", value: "/sessions/\(session.id)/items/\(PathSegment.encode(id))")
        }
        return created
    }

    /// The body of the change response in a kept view: the one the change named, or
    /// another one an event stream follows (`splices` are then that view's).
    private func changeBody(_ outcome: ChangeOutcome, _ splices: [Splice], _ store: TreeStore, version: Int, view: FilterQuery?) -> [UInt8] {
        let reload = outcome.reload.ranges(in: store, view)
        func body(_ index: ResponseJSON.IndexMember, extra: ((inout JSONWriter) -> Void)? = nil) -> [UInt8] {
            ResponseJSON.changes(version: version, total: store.keptRowCount(view)!, splices, reload: reload, index: index, extra: extra)
        }
        func row(_ node: NodeHandle) -> Int? { store.keptPlacement(of: node, view)!.index }
        switch outcome.subject {
        case .session:
            return body(.absent)
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
    /// session is exactly as before (tree, every view, version, node budget). One version
    /// step for the whole batch, none for an empty one.
    func mutateSession(_ request: HTTPRequest, _ sid: String, _ recorded: RecordedChange, batch: Batch) throws(ServiceError) -> HTTPResponse {
        let ticket = ticket(recorded.view, sid)
        return try committing(request, try liveSession(sid)) { session, state throws(ServiceError) in
            try change(recorded, batch, session, &state, ticket: ticket)
        }
    }

    /// A batch's steps under the lock, for a request and for its replay. The named view is
    /// built inside the transaction (a failed batch keeps none it built); the batch's entry
    /// replays that build and the views it dropped, so no `views` entry follows it.
    func change(_ recorded: RecordedChange, _ batch: Batch, _ session: Session, _ state: inout Session.State,
                ticket: Int) throws(ServiceError) -> (HTTPResponse, JournalMark?) {
        let view = recorded.view
        _ = state.store.takeObservedSplices()  // what a refused batch left
        // Also an empty batch: it may build its view (a reset, a version step).
        let mark = try journal(.change(recorded), session, &state)
        let accountedBefore = state.accountedNodes
        var accounted = accountedBefore
        let replaying = state.replaying
        var built = false
        let outcome: BatchOutcome
        do throws(ServiceError) {
            outcome = try state.store.transaction { (store) throws(ServiceError) -> BatchOutcome in
                built = try prepare(view, session, &store, ticket: ticket)
                return try applyBatch(recorded.body, batch, view, &store, accounted: &accounted, replaying: replaying)
            }
        } catch {
            // The store is as it was, so the registry's count of its nodes goes back too
            // (only reservations: deletions were held).
            registry.release(accounted - accountedBefore)
            takeBack(mark, session, &state)
            throw error
        }
        releaseDeletedNodes(state.store, accounted: &accounted)
        state.accountedNodes = accounted
        if let view, built, state.changedFilters.remove(view) != nil {
            state.version += 1
            publishViewReset(view, session, &state, mark: mark)
        }
        if outcome.editsTree { state.treeEdited() }
        if outcome.changesExpansion { state.expansionChanged(view) }
        let observed = state.store.takeObservedSplices()
        if !batch.entries.isEmpty {
            state.version += 1
            publish(session, &state, mark: mark) { other, store, version in
                let splices = other == view ? outcome.splices : observed[other] ?? []
                return .change(batchBody(outcome, splices, store, version: version, view: other))
            }
        }
        // The batch's entry replays the view it built and the views that dropped.
        state.journaledViews = state.store.keptFilters
        let body = batchBody(outcome, outcome.splices, state.store, version: state.version, view: view)
        return (json(200, body, headers: [("ETag", ETag.of(state.version))]), mark)
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
    private func applyBatch(_ body: [UInt8], _ batch: Batch, _ view: FilterQuery?, _ store: inout TreeStore,
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
                case .insert(let span):
                    offsetBase = span.lowerBound
                    let (fragment, members) = try parseNodes(body, span, into: store, replaying: replaying)
                    offsetBase = nil
                    operation = .insert(fragment, try SessionOperation.insertionPoint(members.removing("op")))
                }
                let applied = try apply(try resolve(operation, in: store, pointing: true), view, &store, accounted: &accounted,
                                        holdingReleases: true, replaying: replaying)
                outcome.splices += applied.splices
                outcome.reload.formUnion(applied.reload)
                if operation.editsTree { outcome.editsTree = true } else { outcome.changesExpansion = true }
                let forest = store.forest
                switch applied.subject {
                case .session: outcome.results.append(.session)
                case .item(let node): outcome.results.append(.item(ItemID(forest.id(of: node).description)))
                case .removed: outcome.results.append(.removed)
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
    private func batchBody(_ outcome: BatchOutcome, _ splices: [Splice], _ store: TreeStore, version: Int, view: FilterQuery?) -> [UInt8] {
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
