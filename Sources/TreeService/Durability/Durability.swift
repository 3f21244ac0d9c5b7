import Foundation
import Synchronization
import TreeEngine
import TreeStorage

/// The service's side of the data directory: what it counts for `/metrics`, how a storage
/// error becomes a problem, and its log.
final class Durability: Sendable {
    /// nil in the memory-only mode (`--data-dir none`).
    let directory: DataDirectory?
    let log: @Sendable (String) -> Void

    /// Recovery events by kind (`/metrics`): a torn or corrupt journal tail truncated, a
    /// session quarantined, a session expired while the server was down, a recorded change
    /// refused again on replay, a replay that stopped at an entry it could not apply.
    enum Event: String, CaseIterable {
        case truncatedTail = "truncated_tail"
        case quarantined
        case expiredWhileDown = "expired_while_down"
        case refusedOnReplay = "refused_on_replay"
        case replayStopped = "replay_stopped"
        case loadFailed = "load_failed"
    }
    private let events = Mutex<[Event: Int]>([:])
    /// Changes refused with 507.
    let refusedWrites = Atomic<Int>(0)
    /// Compactions that could not start or finish (the journal stays, and is replayed).
    let failedCompactions = Atomic<Int>(0)
    /// Seconds the last start-up took to load every stored session.
    let loadSeconds = Mutex<Double?>(nil)
    /// The refused writes' log lines: at most one a second, the others counted in the next.
    private let refusals = Mutex<(last: ContinuousClock.Instant?, unlogged: Int)>((nil, 0))

    init(directory: DataDirectory?, log: @escaping @Sendable (String) -> Void) {
        self.directory = directory
        self.log = log
    }

    func count(_ event: Event, _ message: String) {
        events.withLock { $0[event, default: 0] += 1 }
        log("recovery: \(message)")
    }

    func eventCount(_ event: Event) -> Int { events.withLock { $0[event] ?? 0 } }

    /// The problem for a failed write of the data directory, logged; the change was not
    /// made. 507 `insufficient-storage` when the disk refused it (full, read-only, failing:
    /// `StorageError.isDiskFailure`), else 500 `storage-error` (a permission, too many open
    /// files: the server's setup, which waiting for room would not mend).
    func failure(_ error: any Error, writing what: String) -> ServiceError {
        refusedWrites.add(1, ordering: .relaxed)
        logRefusal("storage: could not write \(what): \(error)")
        guard (error as? StorageError)?.isDiskFailure ?? true else {
            return ServiceError(.storageError,
                                detail: "the server could not store \(what) (\(error)); nothing was changed. The server's data directory needs an operator.")
        }
        return ServiceError(.insufficientStorage,
                            detail: "the server could not store \(what) (\(error)); nothing was changed. Retry once the server's disk has room.")
    }

    /// The problem for a change that was made but whose fsync failed: 507
    /// `change-not-durable`, logged. The change is applied and every client sees it (a retry
    /// would make it twice); it becomes durable with the session's next successful write,
    /// which writes a fresh snapshot first.
    func notDurable(_ error: any Error, version: Int) -> ServiceError {
        refusedWrites.add(1, ordering: .relaxed)
        logRefusal("storage: could not make version \(version)'s change durable (fsync): \(error)")
        return ServiceError(.changeNotDurable,
                            detail: "the change was made (version \(version)) but could not be made durable (fsync: \(error)): "
                                + "every client sees it, and it is stored with the session's next successful write. Do not send it again.",
                            headers: [("ETag", ETag.of(version))])
    }

    /// Logs a refused write, unless one was logged less than a second ago: then it is only
    /// counted, and the next line logged (or `flushRefusals`) says how many were not (a
    /// full disk refuses every change, and logged thousands of lines a second).
    func logRefusal(_ line: String, now: ContinuousClock.Instant = .now) {
        let unlogged: Int? = refusals.withLock { state in
            if let last = state.last, now - last < .seconds(1) {
                state.unlogged += 1
                return nil
            }
            defer { state = (now, 0) }
            return state.unlogged
        }
        guard let unlogged else { return }
        log(unlogged == 0 ? line : line + " (\(unlogged) refused writes since the last line like this were not logged)")
    }

    /// Logs how many refused writes were not logged, if any (from the upkeep: the last
    /// ones of a burst are counted even when no refusal follows).
    func flushRefusals(now: ContinuousClock.Instant = .now) {
        let unlogged = refusals.withLock { state -> Int in
            guard let last = state.last, now - last >= .seconds(1), state.unlogged > 0 else { return 0 }
            defer { state = (now, 0) }
            return state.unlogged
        }
        if unlogged > 0 { log("storage: \(unlogged) refused writes since the last line like this were not logged") }
    }
}
