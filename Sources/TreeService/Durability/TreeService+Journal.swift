import Foundation
import HTTP1
import TreeEngine
import TreeStorage

/// Where a change's journal entry ended: the response waits until it is durable.
struct JournalMark: Sendable {
    let files: SessionFiles
    let position: JournalPosition
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
        if mark != nil { state.recordedUse = max(state.recordedUse, now) }
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

    /// Appends a change's record (`append`): 507 when the disk refuses it.
    func appendChange(_ record: ChangeRecord, to files: SessionFiles?, version: Int, at time: Date) throws(ServiceError) -> JournalMark? {
        do {
            return try append(.operations(record), to: files, version: version, at: time)
        } catch {
            throw durability.failure(error, writing: "the change")
        }
    }

    /// Journals a single change's record (nil: it has none, a view's own change), and
    /// prepares the view's rows it is made in: filtered rows the view does not keep are built
    /// first, in one transaction of the store with the record, so that a build a newer
    /// filter request cancels (409) or a record the disk refuses (507) leaves nothing built
    /// and nothing dropped. Whether the rows were built.
    func record(_ record: ChangeRecord?, preparing view: ViewRef, _ session: Session, _ state: inout Session.State,
                ticket: Int) throws(ServiceError) -> (built: Bool, mark: JournalMark?) {
        guard let record else {
            // Nothing to journal: the build alone (a cancelled one keeps nothing).
            return (try prepare(view, session, &state.core.store, ticket: ticket), nil)
        }
        let files = try filesForRecord(session, &state)
        let version = state.core.version, time = registry.clock.wallNow
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
        if mark != nil { state.recordedUse = max(state.recordedUse, time) }
        return (built, mark)
    }

    /// Journals the order of the kept filtered views when it differs from what the files
    /// know. A view is not a change: when the entry cannot be written the request goes
    /// on, and the next change writes a fresh snapshot first. Where the entry ended (nil
    /// when none was written).
    @discardableResult
    func journalViewOrder(_ session: Session, _ state: inout Session.State) -> JournalMark? {
        // With a fresh snapshot due, no entry: the snapshot would be taken here, in the
        // middle of a reset (the view built, the version not yet stepped), and the entry
        // replayed over it would not step it. The next change's snapshot holds the views.
        guard state.files != nil, !state.needsSnapshot else { return nil }
        let order = state.core.store.keptFilters
        guard order != state.journaledViews else { return nil }
        do {
            let now = registry.clock.wallNow
            let mark = try append(.views(order), to: state.files, version: state.core.version, at: now)
            state.recordedUse = max(state.recordedUse, now)
            state.journaledViews = order
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
        guard let mark, durability.directory?.fsync == .always else { return mark }
        do {
            try mark.files.waitDurable(mark.position)
        } catch {
            state.needsSnapshot = true
            throw durability.notDurable(error, version: state.core.version)
        }
        return mark
    }

    /// The response to a change, sent once its entry is durable: with `--fsync batch` the
    /// session's committer waits for the fsync off the request's thread, so the changes
    /// that arrive meanwhile share the next one (`always` waited under the lock, `off` does
    /// not wait); then a compaction starts when the journal has outgrown its snapshot. 507
    /// instead when the fsync fails (see `durableUnderLock`).
    func sentWhenDurable(_ response: HTTPResponse, _ mark: JournalMark?, _ session: Session) -> HTTPResponse {
        guard let mark else { return response }
        guard durability.directory?.fsync == .batch else {
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
