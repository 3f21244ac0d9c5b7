import Dispatch
import Foundation
import Synchronization

/// A bounded pool of threads for work that may block: a server's responders, which wait for
/// session locks, fsyncs and slow clients (a streamed body's writer blocks on back-pressure).
///
/// At most `threadLimit` jobs run at once, each on a thread of the pool's own; the others wait
/// in one queue, in order, and all of them run. Threads start as jobs need them and end after
/// `idleTimeout` with nothing to do, so an idle pool holds none. Being the pool's own, they
/// never take from Dispatch's shared threads, which the timers, the background loading and
/// the end of event streams go on using however long requests block.
///
/// Thread-safe. - Complexity: ``execute(_:)`` is O(1) amortized (a thread start when one is
/// needed and the pool is below its limit).
final class WorkerPool: Sendable {
    typealias Job = @Sendable () -> Void

    /// The most jobs that run at once (the most threads).
    let threadLimit: Int
    /// How long a thread waits for a job before it ends.
    let idleTimeout: Duration
    private let name: String
    private let state = Mutex(State())
    /// One signal for each idle thread given a job to look for (``State/idle`` counts the
    /// idle threads not yet given one).
    private let wakeup = DispatchSemaphore(value: 0)

    private struct State {
        /// Jobs not taken yet: `jobs[head...]`.
        var jobs: [Job] = []
        var head = 0
        /// Threads alive.
        var threads = 0
        /// Threads waiting for a job, and not yet signalled.
        var idle = 0
        /// Jobs running now, and the most that ever ran at once (for tests).
        var running = 0
        var mostRunning = 0
        /// Threads started so far.
        var started = 0

        var hasJobs: Bool { head < jobs.count }

        mutating func append(_ job: @escaping Job) {
            jobs.append(job)
        }

        /// The oldest job, counted as running.
        mutating func take() -> Job? {
            guard hasJobs else { return nil }
            let job = jobs[head]
            head += 1
            // Compacted once the taken half is the larger one: O(1) amortized per job.
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: jobs.count <= 1024)
                head = 0
            } else if head >= 1024 && head * 2 >= jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            running += 1
            mostRunning = max(mostRunning, running)
            return job
        }
    }

    /// - Parameters:
    ///   - threadLimit: the most jobs that run at once; at least 1.
    ///   - idleTimeout: how long an idle thread waits for a job before it ends.
    ///   - name: the threads' `Thread.name` (`name-1`, `name-2`, ...).
    init(threadLimit: Int, idleTimeout: Duration = .seconds(10), name: String = "http-worker") {
        precondition(threadLimit >= 1, "a pool needs a thread")
        self.threadLimit = threadLimit
        self.idleTimeout = idleTimeout
        self.name = name
    }

    /// Runs `job` on a thread of the pool: at once when fewer than ``threadLimit`` jobs run,
    /// after the jobs queued before it otherwise. Never blocks. Any thread.
    func execute(_ job: @escaping Job) {
        enum Next { case none, signal, start(Int) }
        let next = state.withLock { s -> Next in
            s.append(job)
            if s.idle > 0 {
                s.idle -= 1
                return .signal
            }
            guard s.threads < threadLimit else { return .none }  // a busy thread takes it next
            s.threads += 1
            s.started += 1
            return .start(s.started)
        }
        switch next {
        case .none:
            break
        case .signal:
            wakeup.signal()
        case .start(let number):
            let thread = Thread { [self] in work() }
            thread.name = "\(name)-\(number)"
            thread.start()
        }
    }

    /// Jobs waiting for a thread now.
    var queued: Int { state.withLock { $0.jobs.count - $0.head } }

    /// Threads alive now.
    var threadCount: Int { state.withLock { $0.threads } }

    /// The most jobs that ran at once so far.
    var mostRunning: Int { state.withLock { $0.mostRunning } }

    /// A thread's life: runs jobs while there are any, waits for more, and ends after
    /// `idleTimeout` without one.
    private func work() {
        var finished = false
        while true {
            let job = state.withLock { s -> Job? in
                if finished { s.running -= 1 }
                if let job = s.take() { return job }
                s.idle += 1
                return nil
            }
            finished = job != nil
            if let job {
                job()
                continue
            }
            // Idle: woken by `execute` (a job to look for), or the timeout.
            if wakeup.wait(timeout: (MonotonicInstant.now() + idleTimeout).dispatchTime) == .success { continue }
            let ends = state.withLock { s -> Bool in
                // More idle threads than signals on their way: this one may end. Otherwise a
                // signal is on its way for every waiting thread, this one included: take it.
                guard s.idle > 0 else { return false }
                s.idle -= 1
                s.threads -= 1
                return true
            }
            if ends { return }
            wakeup.wait()
        }
    }
}
