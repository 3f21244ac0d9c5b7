import Dispatch
import Foundation
import TreeEngine
import TreeFormats
import TreeStorage

/// Sessions in the data directory: written when made, compacted, touched, removed, and
/// loaded again (snapshot, then the journal replayed) when the server starts.
extension TreeService {
    // MARK: Snapshots

    /// What the snapshot keeps of the session beside its store: its version, times and
    /// flags, and what the service knows of each view (its version, times and changed
    /// filtered rows: the store's image keeps its expansion and kept filtered rows).
    /// - Complexity: O(views log views)
    func metadata(_ session: Session, _ state: Session.State) -> SessionMetadata {
        let uses = session.views.lastUses
        let views = state.core.viewsInOrder.map { id, entry in
            SessionMetadata.View(id: id, serial: entry.serial, version: state.core.version(of: id), createdAt: entry.createdAt,
                                 lastUse: uses[id].map { registry.clock.wallTime(of: $0) } ?? entry.createdAt,
                                 changedFilters: state.core.changedFilters(in: id))
        }
        return SessionMetadata(version: state.core.version, createdAt: session.createdAt,
                               lastUse: registry.clock.wallTime(of: session.lastUsed), changedFilters: state.core.changedFilters,
                               settings: session.settings.withLock { $0 },
                               doublesPathBackslashes: session.doublesPathBackslashes,
                               views: SessionMetadata.Views(key: state.core.viewKey, serial: state.core.viewSerial, views: views))
    }

    /// Writes a new session's first snapshot, durably, before its 201. 507 (and no session)
    /// when the disk refuses it.
    func storeNewSession(_ session: Session) throws(ServiceError) {
        guard let directory = durability.directory else { return }
        do {
            try session.state.withLock { (state) throws(StorageError) in
                let meta = metadata(session, state)
                let caller = meta.encoded
                let store = state.core.store
                state.files = try directory.create(session.id) { sink in
                    _ = try StoreImage.write(store, caller: caller, to: sink)
                }
                state.noteSnapshot(viewUses: meta.viewUses)
                state.recordedUse = registry.clock.wallNow
            }
        } catch {
            registry.remove(session.id, .deleted)
            _ = directory.remove(session.id)
            throw durability.failure(error, writing: "the new session")
        }
    }

    /// Replaces the session's journal with a fresh snapshot, under its exclusive lock (after
    /// an entry that could not be written or made durable, and at shutdown).
    func writeSnapshot(_ session: Session, _ state: inout Session.State) throws(StorageError) {
        guard let files = state.files else { return }
        // A compaction running on another thread (`compactIfDue`) ends first: only one at a time.
        files.waitForCompaction()
        let compaction = try files.beginCompaction()
        let store = state.core.store, meta = metadata(session, state), caller = meta.encoded
        try files.finishCompaction(compaction) { sink in _ = try StoreImage.write(store, caller: caller, to: sink) }
        state.noteSnapshot(viewUses: meta.viewUses)
        state.needsSnapshot = false
    }

    /// Starts a compaction when the session's journal has grown past max(64 MiB, its
    /// snapshot): the journal moves to a new generation under the lock (cheap), then a
    /// copy of the store (copy on write: no copying until the session changes) is written
    /// as the new snapshot on another thread, so readers wait for nothing. After every
    /// change: the sizes are read from `files` without the session's lock, which only a
    /// compaction that is due takes.
    func compactIfDue(_ session: Session, _ files: SessionFiles) {
        func isDue() -> Bool {
            !files.isCompacting && files.journalBytes > max(configuration.journalCompactionBytes, files.snapshotBytes)
        }
        guard isDue() else { return }
        let start: (Compaction, TreeStore, [UInt8])? = session.state.withLock { state in
            // Checked again: another change may have begun one meanwhile.
            guard state.files === files, !state.removed, isDue() else { return nil }
            let compaction: Compaction
            do { compaction = try files.beginCompaction() } catch {
                durability.failedCompactions.add(1, ordering: .relaxed)
                durability.log("storage: compaction of session \(session.id) could not start: \(error)")
                return nil
            }
            let meta = metadata(session, state)
            state.noteSnapshot(viewUses: meta.viewUses)
            return (compaction, state.core.store, meta.encoded)
        }
        guard let (compaction, store, caller) = start else { return }
        DispatchQueue.global(qos: .utility).async { [self] in
            do {
                try files.finishCompaction(compaction) { sink in _ = try StoreImage.write(store, caller: caller, to: sink) }
            } catch {
                // The old snapshot and both journals stay: a start-up replays them all.
                durability.failedCompactions.add(1, ordering: .relaxed)
                durability.log("storage: compaction of session \(session.id) failed: \(error)")
            }
        }
    }

    // MARK: Upkeep

    /// Records the last use of sessions, and of their views, that were only read since their
    /// last entry, so a restart keeps their expiry clocks (at most a minute behind): one entry
    /// per session names every such view, and names a view at most once a minute. Run every 10 s.
    public func recordUse() {
        guard let directory = durability.directory else { return }
        for failure in directory.removeLeftovers() { durability.log("storage: \(failure)") }
        durability.flushRefusals()
        retryUnreadableSessions()
        for session in registry.all {
            let used = registry.clock.wallTime(of: session.lastUsed)
            session.state.withLock { state in
                guard state.files != nil, !state.removed else { return }
                journalUses(session, &state, used: used, olderThan: 60)
            }
        }
    }

    /// Journals the last use of the session and of its views when the files know one more
    /// than `margin` seconds older: a `touch`, or `viewUses` naming those views.
    /// - Complexity: O(views)
    private func journalUses(_ session: Session, _ state: inout Session.State, used: Date, olderThan margin: TimeInterval) {
        var views: [JournalEntry.ViewUse] = []
        if !state.core.views.isEmpty {
            for (id, instant) in session.views.lastUses where state.core.contains(id) {
                let time = JournalEntry.wholeMilliseconds(registry.clock.wallTime(of: instant))
                if time.timeIntervalSince(state.recordedViewUse[id] ?? .distantPast) > margin { views.append(JournalEntry.ViewUse(view: id, time: time)) }
            }
        }
        guard used.timeIntervalSince(state.recordedUse) > margin || !views.isEmpty else { return }
        views.sort { $0.view < $1.view }
        // A view is used after its session's lookup: the entry's time is the latest.
        let time = views.reduce(used) { max($0, $1.time) }
        _ = try? journal(views.isEmpty ? .touch : .viewUses(views), session, &state, at: time)
    }

    /// Shutdown: records every session's last use, compacts the journals worth it (so the
    /// next start replays little) and makes everything durable. Returns false when a journal
    /// could not be made durable (logged): the process should exit non-zero.
    @discardableResult
    public func shutDownStorage() -> Bool {
        guard let directory = durability.directory else { return true }
        for session in registry.all {
            session.state.withLock { state in
                guard let files = state.files, !state.removed else { return }
                journalUses(session, &state, used: registry.clock.wallTime(of: session.lastUsed), olderThan: 0)
                // A journal over a tenth of its snapshot (at least 4 KiB) or over 1 MiB,
                // or a session whose files may lack something (an entry not written, or not made durable).
                if state.needsSnapshot || files.journalBytes > min(1 << 20, max(4096, files.snapshotBytes / 10)) {
                    do {
                        try writeSnapshot(session, &state)
                    } catch {
                        durability.log("storage: at shutdown, no fresh snapshot of session \(session.id) (\(error)); its journal is kept")
                    }
                }
            }
        }
        let failures = directory.syncAll()
        for failure in failures { durability.log("storage: at shutdown: \(failure)") }
        durability.log(failures.isEmpty ? "storage: every journal is durable" : "storage: \(failures.count) journals could not be made durable")
        return failures.isEmpty
    }

    // MARK: Start-up

    /// Loads every session of the data directory on background threads (two at once);
    /// until a session is loaded, requests for it answer 503
    /// with `Retry-After`. Returns at once; `whenLoaded` runs when all are loaded.
    public func loadStoredSessions(whenLoaded: @escaping @Sendable () -> Void = {}) {
        guard let directory = durability.directory else { return whenLoaded() }
        let started = ContinuousClock.now
        var stored: [StoredSessionInfo] = []
        do {
            for id in try directory.storedSessions() {
                do {
                    stored.append(try directory.info(id))
                } catch {
                    // Its load says what is wrong (it answers 503 meanwhile); the others load.
                    stored.append(StoredSessionInfo(id: id))
                }
            }
        } catch {
            durability.log("storage: cannot list the sessions in the data directory: \(error)")
            return whenLoaded()
        }
        for info in stored { registry.willLoad(info.id, nodes: info.nodeCount ?? 0) }
        // Sessions quarantined by an earlier start answer 410 too, never 404.
        for (id, path) in directory.quarantinedSessions() where registry.unavailability(id) == nil {
            registry.setUnavailable(id, .quarantined(path: path))
        }
        let group = DispatchGroup()
        let queue = DispatchQueue(label: "session-loading", attributes: .concurrent)
        let slots = DispatchSemaphore(value: 2)
        for info in stored {
            group.enter()
            queue.async { [self] in
                slots.wait()
                defer { slots.signal(); group.leave() }
                settle(info.id, load(info.id, announced: info.nodeCount ?? 0))
            }
        }
        group.notify(queue: .global()) { [self] in
            let seconds = started.duration(to: .now).seconds
            durability.loadSeconds.withLock { $0 = seconds }
            durability.log("storage: \(registry.loadedCount) sessions loaded in \(String(format: "%.2f", seconds)) s")
            whenLoaded()
        }
    }

    /// Loads one stored session: its snapshot, then its journal replayed through the same
    /// code that made the changes. nil when it cannot be served: quarantined (a snapshot
    /// that fails its checks), removed (expired while the server was down), or left on disk
    /// (an I/O error, logged). `announced`: the nodes `willLoad` accounted for it.
    func load(_ id: String, announced: Int = 0) -> LoadOutcome {
        guard let directory = durability.directory else { return .gone }
        let stored: StoredSession
        do {
            stored = try directory.open(id)
        } catch .incomplete {
            return .gone  // made by an upload that never got its 201: removed
        } catch .notASession(let names) {
            durability.log("storage: sessions/\(id) holds no snapshot or journal but other files (\(names.joined(separator: ", "))): not a session, left as it is")
            return .gone
        } catch .io(let error) {
            durability.count(.loadFailed, "session \(id) cannot be read (\(error)); it stays on disk, answering 503, and loading is tried again")
            return .unreadable(reason: "\(error)")
        } catch {
            return quarantine(id, because: "\(error)")
        }
        for event in stored.events { durability.count(.truncatedTail, "session \(id): \(event)") }
        for cleanup in stored.cleanups { durability.log("storage: session \(id): \(cleanup)") }
        let image: (store: TreeStore, caller: [UInt8])
        do {
            image = try stored.snapshot.withUnsafeBytes { try StoreImage.load($0, dataReader: JSONFieldReader()) }
        } catch {
            stored.files.close()
            return quarantine(id, because: "its snapshot: \(error)")
        }
        guard let meta = SessionMetadata(image.caller) else {
            stored.files.close()
            return quarantine(id, because: "its snapshot's session block is not one this version reads")
        }
        var store = image.store
        store.filteredViewCapacity = configuration.filteredViewsPerSession
        if let views = meta.views {
            guard Set(views.views.map(\.id)) == Set(store.views) else {
                stored.files.close()
                return quarantine(id, because: "its snapshot's session block and its image hold different views")
            }
        } else {
            // A session block from before views were durable (format 3 and earlier) does not
            // know the views an image may hold: the session starts with its default view
            // only, so that no view follows edits unseen.
            for view in store.views { store.deleteView(view) }
        }
        // Announced with another count (its header could not be read): the budget follows the snapshot.
        try? registry.reserve(store.forest.count - announced, force: true)  // forced: never refused
        let clock = registry.clock
        /// The instant, on the service's clock, of a wall-clock time (at the latest now).
        func instant(_ date: Date) -> ContinuousClock.Instant {
            clock.now - .milliseconds(Int64(max(0, clock.wallNow.timeIntervalSince(date)) * 1000))
        }
        let session = Session(id: id, store: store, clock: clock, createdAt: meta.createdAt, lastUsed: instant(meta.lastUse),
                              settings: meta.settings, doublesPathBackslashes: meta.doublesPathBackslashes, viewKey: meta.views?.key,
                              linger: configuration.eventBacklogLinger)
        var lastUse = meta.lastUse
        session.state.withLock { state in
            state.core.version = meta.version
            state.core.changedFilters = meta.changedFilters
            var viewUses = meta.viewUses
            if let views = meta.views {
                state.core.restoreViewSerial(views.serial)
                for view in views.views {
                    state.core.restoreView(view.id, version: view.version, createdAt: view.createdAt, serial: view.serial,
                                           changedFilters: view.changedFilters)
                }
            }
            state.replaying = true
            for (k, record) in stored.records.enumerated() {
                guard let (entry, time) = JournalEntry.decode(record.payload), Int(record.version) == state.core.version else {
                    durability.count(.replayStopped, "session \(id): journal entry \(k) of \(stored.records.count) does not follow (version \(record.version), session at \(state.core.version)); the session is served as the entries before it left it")
                    state.needsSnapshot = true
                    break
                }
                if let problem = replay(entry, at: time, session, &state, index: k) {
                    durability.count(.replayStopped, "session \(id): journal entry \(k) of \(stored.records.count) does not follow (\(problem)); the session is served as the entries before it left it")
                    state.needsSnapshot = true
                    break
                }
                lastUse = max(lastUse, time)
                Self.noteUses(entry, at: time, &viewUses)
            }
            state.replaying = false
            let uses = viewUses.filter { state.core.contains($0.key) }
            for (view, used) in uses { session.views.add(view, now: instant(used)) }
            state.noteSnapshot(viewUses: uses)
            session.keptFilters.withLock { kept in
                kept[nil] = Set(state.core.store.keptFilters)
                for view in uses.keys { kept[view] = Set(state.core.store.keptFilters(in: view)) }
            }
            state.recordedUse = lastUse
            state.files = stored.files
            if let lost = stored.lost { passLostVersions(lost, session, &state) }
            // Stored under other limits: served whole all the same.
            let nodes = state.core.store.forest.count
            if nodes > configuration.maxNodesPerSession {
                durability.log("storage: session \(id) holds \(nodes) nodes, more than --max-nodes \(configuration.maxNodesPerSession) (it was stored under another limit): loaded whole; its inserts are refused until it is smaller")
            }
        }
        // The expiry clock: the time since the last use counts while the server was down.
        let idle = clock.wallNow.timeIntervalSince(lastUse)
        let ttl = registry.ttl(of: session)
        if ttl != .zero && idle > Double(ttl.components.seconds) {
            session.state.withLock { state in
                registry.release(state.accountedNodes - announced)
                state.files?.close()
                state.files = nil
            }
            _ = directory.remove(id)
            durability.count(.expiredWhileDown, "session \(id) expired while the server was down (idle \(Int(idle)) s); removed")
            return .gone
        }
        session.touch(instant(lastUse))
        return .loaded(session)
    }

    /// Recovery dropped records after a damaged one: the versions they stepped to were
    /// issued to clients, so the session's version jumps past every one they could have
    /// reached (an `ETag` or `If-Match` of one of them never matches other content), and a
    /// snapshot stores the jump before any record follows it (now, or before the next change).
    private func passLostVersions(_ lost: LostRecords, _ session: Session, _ state: inout Session.State) {
        // At most what a snapshot's metadata holds (versions below 2^62), however the
        // records' version fields read.
        let most = (1 << 62) - 1
        let issued = min(most, max(state.core.version + min(lost.atMost, most), lost.highestVersion.map { Int(min($0, UInt64(most - 1))) + 1 } ?? 0))
        guard issued > state.core.version else { return }
        durability.log("storage: session \(session.id) lost records after damage; its version goes from \(state.core.version) to \(issued), past every version they could have reached")
        state.core.version = issued
        // Each lost record may have stepped a view's version once (its own change, or an edit).
        state.core.passViewVersions(by: min(most, max(1, lost.atMost)), most: most)
        // A lost record may have made a view: its id is never given again.
        state.core.restoreViewSerial(state.core.viewSerial &+ UInt64(min(most, max(1, lost.atMost))))
        state.needsSnapshot = true
        do {
            try writeSnapshot(session, &state)
        } catch {
            durability.log("storage: session \(session.id): the snapshot storing its new version could not be written (\(error)); its next change writes it first")
        }
    }

    /// The last use of the views `entry`, made at `time`, names: a view made, a change
    /// through it, its filtered rows' order, its uses; a view dropped has none.
    private static func noteUses(_ entry: JournalEntry, at time: Date, _ uses: inout [ViewID: Date]) {
        switch entry {
        case .viewDeleted(let id, _): uses[id] = nil
        case .viewUses(let list): for use in list where uses[use.view] != nil { uses[use.view] = max(uses[use.view]!, use.time) }
        case .viewCreated(let id, _): uses[id] = time
        case .operations, .viewFilters:
            if let id = entry.view { uses[id] = max(uses[id] ?? time, time) }
        case .change, .views, .touch, .settings: break
        }
    }

    /// Applies one journal entry, made at `time`, again. Why it does not follow the entries
    /// before it (it names a view the session does not have, or makes one with another id
    /// than the next), nil when it does: replay stops at such an entry.
    private func replay(_ entry: JournalEntry, at time: Date, _ session: Session, _ state: inout Session.State, index: Int) -> String? {
        // The views an entry names were made by entries before it.
        switch entry {
        case .operations, .viewDeleted, .viewFilters:
            if let view = entry.view, !state.core.contains(view) { return "it names view \(view.text), which the session does not have" }
        case .viewCreated(let id, let start):
            if id != state.core.nextViewID { return "it makes view \(id.text), not the next one, \(state.core.nextViewID.text)" }
            if case .copy(of: let source?) = start, !state.core.contains(source) {
                return "it copies view \(source.text), which the session does not have"
            }
        default:
            break
        }
        do throws(ServiceError) {
            switch entry {
            case .operations(let record) where record.isBatch:
                _ = try change(ViewRef(record.view, filter: record.filter), Batch(record.operations), session, &state, ticket: 0)
            case .operations(let record):
                let operation = record.operations[0]
                _ = try change(ViewRef(record.view, filter: record.filter), session, &state, ticket: 0) { store throws(ServiceError) in
                    if let decoded = operation.operation { return (decoded, operation) }
                    return (try insertion(operation, in: store, replaying: true), operation)
                }
            case .change(let recorded) where recorded.route == .batch:
                _ = try change(ViewRef(nil, filter: recorded.view), try Batch(recorded.body, maxOperations: .max, maxDepth: .max), session, &state, ticket: 0)
            case .change(let recorded):
                _ = try change(ViewRef(nil, filter: recorded.view), session, &state, ticket: 0) { store throws(ServiceError) in
                    try decoded(recorded, in: store)
                }
            case .views(let order):
                try arrange(nil, order, session, &state)
            case .viewFilters(let view, let order):
                try arrange(view, order, session, &state)
            case .viewCreated(_, let start):
                let source: ViewID? = if case .copy(of: let source) = start { source } else { nil }
                _ = try change(ViewRef(source), session, &state, ticket: 0) { _ throws(ServiceError) in (.createView(start, at: time), nil) }
            case .viewDeleted(let view, let expired):
                _ = try change(ViewRef(view), session, &state, ticket: 0) { _ throws(ServiceError) in (.deleteView(view, expired: expired), nil) }
            case .settings(let settings):
                applySettings(settings, session, &state, mark: nil)
            case .touch, .viewUses:
                break
            }
        } catch {
            // A record of format 1 whose change was refused after it was written, and whose
            // take-back was lost: it is refused again, as it was. (A record of a later format
            // is written only for what was applied.)
            durability.count(.refusedOnReplay, "session \(session.id): journal entry \(index) is refused again (\(error.detail))")
        }
        return nil
    }

    /// Replays an order of a view's kept filtered rows: builds each one it names that is not
    /// kept (through the same `prepare` as a read: a reset steps the version as it did),
    /// then keeps exactly those, in that order.
    private func arrange(_ view: ViewID?, _ order: [FilterQuery], _ session: Session, _ state: inout Session.State) throws(ServiceError) {
        for query in order where !state.core.store.isKept(ViewRef(view, filter: query)) {
            try prepare(ViewRef(view, filter: query), session, &state, ticket: 0)
        }
        state.core.store.arrangeViews(order, in: view)
    }

    /// The operation of an insert's record, its nodes read against `store` (`replaying`:
    /// without today's limits, as they were accepted).
    func insertion(_ record: RecordedOperation, in store: TreeStore, replaying: Bool = false) throws(ServiceError) -> SessionOperation {
        switch record {
        case .insertNodes(let body):
            let (fragment, members) = try parseNodes(body, 0 ..< body.count, into: store, replaying: replaying)
            return .insert(fragment, try SessionOperation.insertionPoint(members))
        case .insertRows(let body, let rows):
            let parent = try rows.parent.map { (id) throws(ServiceError) in try node(id.text, in: store) }
            let groups = try readBody(body, as: rows.format, replaying: replaying) { raw, limits throws(TreeInputError) in
                switch rows.format {
                case .csv(let dialect): try store.parseCSVFragments(raw, limits: limits, dialect: dialect)
                case .ndjson: try store.parseNDJSONFragments(raw, limits: limits)
                default: try store.parsePathFragments(raw, separator: rows.separator, under: parent, limits: limits,
                                                      doublesBackslashes: rows.doublesBackslashes)
                }
            }
            return .insertGroups(groups)
        default:
            preconditionFailure("not an insert")
        }
    }

    /// A change recorded as its request (record format 1), decoded again as the request was
    /// (without today's limits).
    private func decoded(_ recorded: RecordedChange, in store: TreeStore) throws(ServiceError) -> DecodedChange {
        switch recorded.route {
        case .sessionPatch:
            let operation = try SessionOperation.sessionPatch(Members(try jsonObject(recorded.body)))
            return (operation, RecordedOperation(operation))
        case .itemPatch:
            let operation = try SessionOperation.itemPatch(recorded.item!, Members(try jsonObject(recorded.body)))
            return (operation, RecordedOperation(operation))
        case .deleteItem:
            return (.delete(recorded.item!), .delete(recorded.item!))
        case .insert:
            let record = RecordedOperation.insertNodes(recorded.body)
            return (try insertion(record, in: store, replaying: true), record)
        case .insertRows:
            let record = RecordedOperation.insertRows(recorded.body, recorded.rows!)
            return (try insertion(record, in: store, replaying: true), record)
        case .batch:
            preconditionFailure("a batch is replayed as a batch")
        }
    }

    /// Moves a session's files aside and says so.
    private func quarantine(_ id: String, because reason: String) -> LoadOutcome {
        guard let directory = durability.directory else { return .gone }
        do {
            let path = try directory.quarantine(id)
            durability.count(.quarantined, "session \(id) moved to \(path): \(reason)")
            return .quarantined(path: path)
        } catch {
            durability.count(.loadFailed, "session \(id) cannot be loaded (\(reason)) nor quarantined (\(error)); it stays on disk, answering 503, and loading is tried again")
            return .unreadable(reason: reason)
        }
    }

    /// What became of a stored session at start-up.
    enum LoadOutcome {
        case loaded(Session)
        /// Removed because it expired while the server was down (or never finished).
        case gone
        /// Moved to the quarantine: requests for it answer 410 `session-quarantined`.
        case quarantined(path: String)
        /// Left on disk: requests for it answer 503 `session-unreadable`, until a later
        /// load (`retryUnreadableSessions`) succeeds.
        case unreadable(reason: String)
    }

    /// Serves, forgets or marks unavailable a stored session after a load: what is
    /// unavailable is recorded before the session stops being pending, so a lookup finds
    /// one or the other.
    private func settle(_ id: String, _ outcome: LoadOutcome) {
        switch outcome {
        case .loaded(let session):
            registry.loaded(id, session)
            registry.setUnavailable(id, nil)
        case .gone:
            registry.setUnavailable(id, nil)
            registry.loaded(id, nil)
        case .quarantined(let path):
            registry.setUnavailable(id, .quarantined(path: path))
            registry.loaded(id, nil)
        case .unreadable(let reason):
            registry.setUnavailable(id, .unreadable(reason: reason))
            registry.loaded(id, nil)
        }
    }

    /// Loads again the stored sessions that could not be read (a permission, a disk that
    /// failed for a while): from the upkeep, every 10 s.
    func retryUnreadableSessions() {
        for id in registry.unreadable { settle(id, load(id)) }
    }
}

// MARK: Metrics

extension TreeService {
    /// The storage lines of `/metrics` (none in the memory-only mode).
    func storageMetrics() -> [UInt8] {
        guard let directory = durability.directory else { return [] }
        let stats = directory.stats
        var text = "# HELP tree_sessions_loading Stored sessions not loaded yet (they answer 503).\n# TYPE tree_sessions_loading gauge\n"
        text += "tree_sessions_loading \(registry.pendingCount)\n"
        text += "# HELP tree_storage_recovery_events_total What start-up found and repaired, by kind.\n# TYPE tree_storage_recovery_events_total counter\n"
        for event in Durability.Event.allCases {
            text += "tree_storage_recovery_events_total{kind=\"\(event.rawValue)\"} \(durability.eventCount(event))\n"
        }
        if let seconds = durability.loadSeconds.withLock({ $0 }) {
            text += "# HELP tree_storage_load_seconds Time the last start-up took to load every stored session.\n# TYPE tree_storage_load_seconds gauge\n"
            text += "tree_storage_load_seconds \(seconds)\n"
        }
        text += "# HELP tree_storage_journal_bytes Bytes in the sessions' journals.\n# TYPE tree_storage_journal_bytes gauge\n"
        text += "tree_storage_journal_bytes \(stats.journalBytes)\n"
        text += "# HELP tree_storage_snapshots_total Snapshots written (new sessions and compactions).\n# TYPE tree_storage_snapshots_total counter\n"
        text += "tree_storage_snapshots_total \(stats.snapshotsWritten)\n"
        text += "# HELP tree_storage_compactions_total Journals replaced by a fresh snapshot.\n# TYPE tree_storage_compactions_total counter\n"
        text += "tree_storage_compactions_total \(stats.compactions)\n"
        text += "# HELP tree_storage_refused_writes_total Changes and uploads refused with 507 because the disk failed them.\n# TYPE tree_storage_refused_writes_total counter\n"
        text += "tree_storage_refused_writes_total \(durability.refusedWrites.load(ordering: .relaxed))\n"
        text += "# HELP tree_storage_compaction_failures_total Compactions that could not start or finish (the journal stays).\n# TYPE tree_storage_compaction_failures_total counter\n"
        text += "tree_storage_compaction_failures_total \(durability.failedCompactions.load(ordering: .relaxed))\n"
        text += "# HELP tree_storage_failed_removals_total Deletions and expiries whose files could not be removed (the session stays).\n# TYPE tree_storage_failed_removals_total counter\n"
        text += "tree_storage_failed_removals_total \(registry.failedRemovals.load(ordering: .relaxed))\n"
        // The storage layer counts its buckets cumulatively already.
        text += Metrics.histogram("tree_storage_fsync_seconds", help: "Time of each fsync round of a journal.",
                                  buckets: stats.fsyncLatencyBuckets().map { ($0.upperBoundSeconds, $0.count) },
                                  sum: stats.fsyncLatencySum, count: stats.fsyncs)
        return Array(text.utf8)
    }
}
