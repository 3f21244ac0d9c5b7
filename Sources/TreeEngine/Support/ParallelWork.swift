import Dispatch
import Foundation
import Synchronization

/// Work split between threads: how many to use, and running the parts.
public enum ParallelWork {
    /// The most threads one job uses, however many processors the machine has: past
    /// this, a job over a few million titles gains little and takes processors from
    /// the other requests.
    public static let maximumWorkers = 8

    /// A thread is worth its hand-over only for at least this many items.
    public static let minimumItemsPerWorker = 1 << 15

    /// The processors this process may run on, read once.
    public static let activeProcessors = ProcessInfo.processInfo.activeProcessorCount

    /// How many threads a job over `items` items uses: one per `minimumItemsPerWorker`
    /// items, at most one per processor and at most `cap`, at least one.
    /// - Complexity: O(1)
    public static func workerCount(items: Int, processors: Int = activeProcessors, cap: Int = maximumWorkers) -> Int {
        max(1, min(items / minimumItemsPerWorker, processors, cap))
    }

    /// Runs two jobs at once, each on a thread of its own, and returns what each returned. Each job is
    /// *sent* to its thread, so the compiler refuses one that captures what the caller or
    /// the other job may still use (a `var` read after, a non-Sendable value both hold): a
    /// job owns what it captures, shares only Sendable values (such as `SharedBytes`), and
    /// hands back its result.
    package static func both<A, B>(_ first: sending @escaping () -> A, _ second: sending @escaping () -> B) -> (A, B) {
        // Safe: each closure was sent here and runs once; each result is written by one
        // thread and read after `concurrentPerform` has joined both.
        nonisolated(unsafe) let jobs = (first, second)
        nonisolated(unsafe) var results: (A?, B?) = (nil, nil)
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            if k == 0 { results.0 = jobs.0() } else { results.1 = jobs.1() }
        }
        return (results.0!, results.1!)
    }

    /// Runs `body(0 ..< parts)` in parallel and returns when all are done. For parts that
    /// write disjoint ranges of buffers through pointers (the engine's columns); jobs with
    /// results of their own use `both`.
    package static func run(_ parts: Int, _ body: (Int) -> Void) {
        if parts == 1 { body(0); return }
        withoutActuallyEscaping(body) { body in
            let box = SendableBox(body)
            DispatchQueue.concurrentPerform(iterations: parts) { box.value($0) }
        }
    }

    /// Runs `body(0 ..< items)` on `min(workers, items)` threads (one: in order, on this
    /// thread), each taking the next item not yet taken, and returns when all are done: for
    /// more items than threads, so that uneven items even out (give the largest first).
    static func run(_ items: Int, workers: Int, _ body: (Int) -> Void) {
        if items <= 0 { return }
        let parts = max(1, min(workers, items))
        if parts == 1 {
            for i in 0 ..< items { body(i) }
            return
        }
        let next = Atomic<Int>(0)
        run(parts) { _ in
            while true {
                let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                if i >= items { return }
                body(i)
            }
        }
    }
}

/// Bytes that concurrent jobs read and nobody writes while they run (a request body being
/// parsed, a stored image being loaded): the one non-Sendable thing `ParallelWork.both`'s
/// jobs may share, by this promise. A reader made from `buffer` inside a job, or before it
/// and sent with it, is that job's own.
package struct SharedBytes: @unchecked Sendable {
    package let buffer: UnsafeRawBufferPointer
    package init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }
}

/// Moves a value into a concurrent closure whose synchronization is known to be safe.
struct SendableBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// A flag set by any thread and read by all.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}
