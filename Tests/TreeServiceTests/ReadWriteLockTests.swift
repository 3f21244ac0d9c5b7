import Foundation
import Synchronization
import Testing
@testable import TreeService

/// The sessions' reader–writer lock: writers alone, readers together, misuse stops the process.
@Suite struct ReadWriteLockTests {
    /// Two counters a writer moves apart and back together: a reader that ever sees them
    /// differ, or a lost increment, shows a writer that was not alone.
    struct Pair: Sendable {
        var first = 0
        var second = 0
    }

    @Test func writersAreAloneAndReadersSeeWholeWrites() {
        let locked = ReadWriteLocked(Pair())
        let torn = Atomic<Int>(0)
        let reads = Atomic<Int>(0)
        let writers = 4, readers = 4, writesEach = 2000, readsEach = 4000
        let group = DispatchGroup()
        for _ in 0 ..< writers {
            group.enter()
            Thread.detachNewThread { [locked] in
                for _ in 0 ..< writesEach {
                    locked.withLock { pair in
                        pair.first += 1
                        // Give another thread the chance to run in between, were it let in.
                        for _ in 0 ..< 20 { sched_yield() }
                        pair.second += 1
                    }
                }
                group.leave()
            }
        }
        for _ in 0 ..< readers {
            group.enter()
            Thread.detachNewThread { [locked] in
                for _ in 0 ..< readsEach {
                    locked.withReadLock { pair in
                        if pair.first != pair.second { torn.add(1, ordering: .relaxed) }
                    }
                    reads.add(1, ordering: .relaxed)
                }
                group.leave()
            }
        }
        group.wait()
        #expect(torn.load(ordering: .relaxed) == 0)
        #expect(reads.load(ordering: .relaxed) == readers * readsEach)
        let final = locked.withReadLock { $0 }
        #expect(final.first == writers * writesEach)
        #expect(final.second == writers * writesEach)
    }

    /// Each of two readers waits, inside its read lock, for the other to be inside too:
    /// both get there only if readers share the lock. (The timeout only ends a failing run.)
    @Test func readersHoldTheLockTogether() {
        let locked = ReadWriteLocked(Pair())
        let inside = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
        let sawOther = Atomic<Int>(0)
        let group = DispatchGroup()
        for me in 0 ..< 2 {
            group.enter()
            Thread.detachNewThread { [locked] in
                locked.withReadLock { _ in
                    inside[me].signal()
                    if inside[1 - me].wait(timeout: .now() + 30) == .success {
                        sawOther.add(1, ordering: .relaxed)
                        inside[1 - me].signal()
                    }
                }
                group.leave()
            }
        }
        group.wait()
        #expect(sawOther.load(ordering: .relaxed) == 2)
    }

    /// Taking the write lock again on the thread that holds it is refused by pthread
    /// (`EDEADLK`); the lock checks the result and stops with its name rather than let
    /// two writers in.
    @Test func relockingOnTheSameThreadStopsWithTheErrorName() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let locked = ReadWriteLocked(Pair())
            locked.withLock { _ in
                locked.withLock { $0.first += 1 }
            }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("pthread_rwlock_wrlock failed: EDEADLK"), "stderr: \(stderr)")
    }

    @Test func errorNamesAreSymbolic() {
        #expect(ReadWriteLocked<Int>.errorName(EDEADLK) == "EDEADLK")
        #expect(ReadWriteLocked<Int>.errorName(EINVAL) == "EINVAL")
        #expect(ReadWriteLocked<Int>.errorName(12345) == "errno 12345")
    }

    @Test func aReadIfFreeRunsUnlessAWriterHoldsTheLock() {
        let locked = ReadWriteLocked(7)
        #expect(locked.withReadLockIfFree { $0 } == 7)
        let held = DispatchSemaphore(value: 0), letGo = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [locked] in
            locked.withLock { _ in
                held.signal()
                _ = letGo.wait(timeout: .now() + 30)
            }
            done.signal()
        }
        held.wait()
        let whileWritten = locked.withReadLockIfFree { $0 }
        letGo.signal()
        done.wait()
        #expect(whileWritten == nil)
        #expect(locked.withReadLockIfFree { $0 + 1 } == 8)
    }
}
