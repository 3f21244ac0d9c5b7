import Foundation
import HTTP1
import TreeEngine
import TreeStorage

/// Where a change's journal entry ended: the response waits until it is durable.
struct JournalMark: Sendable {
    let files: SessionFiles
    let position: JournalPosition
    /// The entry of a change of one view's own state (its expansion, its filtered rows, the
    /// view made or dropped): its fsync is waited for off the session's lock, shared with
    /// every entry that arrives meanwhile, under every fsync mode (`--fsync always` included),
    /// so that many views' changes never hold the lock that edits wait for.
    var grouped = false
}

extension Session.State {
    /// Notes that the files know `entry`, written at `time`: the session's last use, and
    /// the view's it names (its last use, and the order of its kept filtered rows after a
    /// change through it or a view made from another: replaying the entry gives that order).
    mutating func noteJournaled(_ entry: JournalEntry, at time: Date) {
        recordedUse = max(recordedUse, time)
        switch entry {
        case .viewDeleted(let id, _):
            recordedViewUse[id] = nil
            journaledFilters[id] = nil
        case .viewUses(let uses):
            for use in uses where core.contains(use.view) { recordedViewUse[use.view] = max(recordedViewUse[use.view] ?? use.time, use.time) }
        case .operations, .viewCreated, .viewFilters:
            guard let id = entry.view else { break }
            recordedViewUse[id] = max(recordedViewUse[id] ?? time, time)
        case .change, .views, .touch, .settings:
            break
        }
    }

    /// Notes that the files hold every view as it is now (a snapshot was taken, with the
    /// views' last uses `viewUses`).
    mutating func noteSnapshot(viewUses: [ViewID: Date]) {
        journaledFilters = [nil: core.store.keptFilters(in: nil)]
        for id in core.views.keys { journaledFilters[id] = core.store.keptFilters(in: id) }
        recordedViewUse = viewUses
    }
}

extension TreeService {
    /// Appends `entry` to the session's journal, with the session's version before it;
    /// nil when the session has no files (memory-only mode, or a replay). 507 when the
    /// disk refuses the write: the journal is then as before, and so must the session be.
    /// Called under the session's exclusive lock.
    /// - Parameter time: when the session was used (now unless given).
    func journal(_ entry: JournalEntry, _ session: Session, _ state: inout Session.State, at time: Date? = nil) throws(ServiceError) -> JournalMark? {
        let files = try filesForRecord(session, &state)
        let now = time ?? registry.clock.wallNow
        let mark: JournalMark?
        do {
            mark = try append(entry, to: files, version: state.core.version, at: now)
        } catch {
            throw durability.failure(error, writing: "the change")
        }
        if mark != nil { state.noteJournaled(entry, at: now) }
        return mark
    }

    /// The session's files, ready for a record: a fresh snapshot first when one is due (507
    /// when the disk refuses it). nil when the session has no files.
    func filesForRecord(_ session: Session, _ state: inout Session.State) throws(ServiceError) -> SessionFiles? {
        guard let files = state.files else { return nil }
        if state.needsSnapshot {
            do {
                try writeSnapshot(session, &state)
            } catch {
                throw durability.failure(error, writing: "the change")
            }
        }
        return files
    }

    /// Appends `entry`, made at `time`, to `files` (none: nil) with the session's version
    /// before it. When the disk refuses it, the journal is as before.
    func append(_ entry: JournalEntry, to files: SessionFiles?, version: Int, at time: Date) throws(StorageError) -> JournalMark? {
        guard let files else { return nil }
        return JournalMark(files: files, position: try files.append(version: UInt64(version), payload: entry.encoded(at: time)))
    }

    /// Appends a change's entry (`append`): 507 when the disk refuses it.
    func appendChange(_ entry: JournalEntry, to files: SessionFiles?, version: Int, at time: Date) throws(ServiceError) -> JournalMark? {
        do {
            return try append(entry, to: files, version: version, at: time)
        } catch {
            throw durability.failure(error, writing: "the change")
        }
    }

    /// Journals a single change's entry (made at `time`), and prepares the view's rows it is
    /// made in: filtered rows the view does not keep are built first, in one transaction of
    /// the store with the entry, so that a build a newer filter request cancels (409) or an
    /// entry the disk refuses (507) leaves nothing built and nothing dropped. Whether the
    /// rows were built.
    func record(_ record: JournalEntry, at time: Date, preparing view: ViewRef, _ session: Session, _ state: inout Session.State,
                ticket: Int) throws(ServiceError) -> (built: Bool, mark: JournalMark?) {
        let files = try filesForRecord(session, &state)
        let version = state.core.version
        var mark: JournalMark?
        let built: Bool
        if view.filter != nil, !state.core.store.isKept(view) {
            // A cancelled build keeps nothing: the transaction ends without a rollback (which
            // would re-index every view), and the cancellation is answered after it.
            var cancelled: ServiceError?
            try state.core.store.transaction { (store) throws(ServiceError) in
                do throws(ServiceError) {
                    _ = try prepare(view, session, &store, ticket: ticket)
                } catch {
                    cancelled = error
                    return
                }
                mark = try appendChange(record, to: files, version: version, at: time)
            }
            if let cancelled { throw cancelled }
            built = true
        } else {
            mark = try appendChange(record, to: files, version: version, at: time)
            // Kept rows only become the most recently used (as the record's replay makes them).
            _ = try prepare(view, session, &state.core.store, ticket: ticket)
            built = false
        }
        if mark != nil { state.noteJournaled(record, at: time) }
        return (built, mark)
    }

    /// Journals the order of a view's kept filtered rows (nil: the default view's) when it
    /// differs from what the files know. Reading filtered rows is not a change: when the
    /// entry cannot be written the request goes on, and the next change writes a fresh
    /// snapshot first. Where the entry ended (nil when none was written); the entry of a
    /// view other than the default one is `grouped`.
    @discardableResult
    func journalViewOrder(_ view: ViewID?, _ session: Session, _ state: inout Session.State) -> JournalMark? {
        // With a fresh snapshot due, no entry: the snapshot would be taken here, in the
        // middle of a reset (the view built, the version not yet stepped), and the entry
        // replayed over it would not step it. The next change's snapshot holds the views.
        guard state.files != nil, !state.needsSnapshot else { return nil }
        let order = state.core.store.keptFilters(in: view)
        guard order != state.journaledFilters[view] else { return nil }
        do {
            let now = registry.clock.wallNow
            let entry: JournalEntry = view.map { .viewFilters($0, order) } ?? .views(order)
            var mark = try append(entry, to: state.files, version: state.core.version, at: now)
            mark?.grouped = view != nil
            state.noteJournaled(entry, at: now)
            state.journaledFilters[view] = order
            return mark
        } catch {
            durability.log("storage: could not journal the views of session \(session.id) (\(error)); its next change writes a fresh snapshot first")
            state.needsSnapshot = true
            return nil
        }
    }

    /// With `--fsync always`, waits under the session's lock until the change's entry is
    /// durable (no reader sees a change before it is). Gives the entry on to
    /// `sentWhenDurable`. 507 `change-not-durable` when the fsync fails: the change is applied
    /// and journaled but not known durable, so the session's next change writes a fresh
    /// snapshot first.
    func durableUnderLock(_ mark: JournalMark?, _ session: Session, _ state: inout Session.State) throws(ServiceError) -> JournalMark? {
        guard let mark, durability.directory?.fsync == .always, !mark.grouped else { return mark }
        do {
            try mark.files.waitDurable(mark.position)
        } catch {
            state.needsSnapshot = true
            throw durability.notDurable(error, version: state.core.version)
        }
        return mark
    }

    /// The response to a change, sent once its entry is durable: with `--fsync batch`, and
    /// for a `grouped` entry (a view's own change) with `always` too, the session's committer
    /// waits for the fsync off the request's thread, so the changes that arrive meanwhile
    /// share the next one (`always` waited under the lock for the others, `off` does not
    /// wait); then a compaction starts when the journal has outgrown its snapshot. 507
    /// instead when the fsync fails (see `durableUnderLock`).
    func sentWhenDurable(_ response: HTTPResponse, _ mark: JournalMark?, _ session: Session) -> HTTPResponse {
        guard let mark else { return response }
        let fsync = durability.directory?.fsync
        guard fsync == .batch || (fsync == .always && mark.grouped) else {
            compactIfDue(session, mark.files)
            return response
        }
        var deferred = response
        deferred.deferral = { [self] send in
            session.committer.whenDurable(mark) { [self] error in
                // Removed meanwhile (DELETE, expiry: its files are closed): the change came
                // before the removal, which is durable.
                if let error, !session.state.withLock({ $0.removed }) {
                    session.state.withLock { $0.needsSnapshot = true }
                    let version = response.headers["ETag"].flatMap { Int($0.dropFirst().dropLast()) } ?? session.state.withLock { $0.core.version }
                    send(durability.notDurable(error, version: version).response(logTag: response.logTag))
                } else {
                    send(response)
                    compactIfDue(session, mark.files)
                }
            }
        }
        return deferred
    }

    /// Waits until the entry of a read that reset a view (a version step) is durable: when
    /// the fsync fails the read is served all the same (reads keep working, as when the
    /// entry cannot be written), and the session's next change writes a fresh snapshot first.
    func waitUntilDurable(read mark: JournalMark?, _ session: Session) {
        guard let mark else { return }
        do {
            try mark.files.waitDurable(mark.position)
        } catch {
            session.state.withLock { $0.needsSnapshot = true }
            durability.log("storage: a view reset of session \(session.id) is not known durable (\(error)); its next change writes a fresh snapshot first")
        }
    }
}
