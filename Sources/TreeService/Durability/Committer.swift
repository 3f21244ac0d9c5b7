import Dispatch
import Synchronization
import TreeStorage

/// Group commit without a thread per waiting request: a change's response registers here
/// and returns its worker; one task at a time waits for the fsyncs (`SessionFiles.waitDurable`)
/// and answers every change its fsync covered. The changes that arrive while an fsync runs
/// share the next one, under every fsync mode: with `--fsync always` the entries of views'
/// own changes come here (`JournalMark.grouped`), and one fsync answers all of them.
final class Committer: Sendable {
    private struct Waiter {
        let mark: JournalMark
        let done: @Sendable (StorageError?) -> Void
    }
    private struct State {
        var waiting: [Waiter] = []
        var running = false
    }
    private let state = Mutex(State())

    /// Calls `done` (on another thread) once `mark` is durable, with the error of a failed fsync.
    func whenDurable(_ mark: JournalMark, _ done: @escaping @Sendable (StorageError?) -> Void) {
        let start = state.withLock { s in
            s.waiting.append(Waiter(mark: mark, done: done))
            defer { s.running = true }
            return !s.running
        }
        if start { DispatchQueue.global(qos: .userInitiated).async { self.run() } }
    }

    private func run() {
        while let batch = state.withLock({ s -> [Waiter]? in
            guard !s.waiting.isEmpty else {
                s.running = false
                return nil
            }
            defer { s.waiting = [] }
            return s.waiting
        }) {
            // The first wait runs the fsync; it covers the others, which return at once
            // (under `--fsync always`, where every wait syncs, they are not waited for).
            for waiter in batch {
                do throws(StorageError) {
                    if !waiter.mark.files.isDurable(waiter.mark.position) { try waiter.mark.files.waitDurable(waiter.mark.position) }
                    waiter.done(nil)
                } catch {
                    waiter.done(error)
                }
            }
        }
    }
}
