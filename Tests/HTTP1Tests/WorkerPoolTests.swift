import Dispatch
import Foundation
import HTTPTestSupport
import Synchronization
import Testing
@testable import HTTP1

#if canImport(Glibc)
import Glibc
#endif

/// The bounded pool that serves requests: never more jobs at once than its limit, every
/// queued job run, threads that end when idle; and a server whose few workers are all busy
/// still reads, answers errors and serves the rest. Jobs hold on semaphores the tests open,
/// never on sleeps; a timed wait only keeps a broken pool from hanging the run.
@Suite(.timeLimit(.minutes(1))) struct WorkerPoolTests {
    /// Waits for `group`, at most long enough that only a broken pool misses it.
    func finished(_ group: DispatchGroup) -> Bool {
        group.wait(timeout: .now() + 30) == .success
    }

    @Test func runsAtMostItsLimitAtOnceAndQueuesTheRest() {
        let pool = WorkerPool(threadLimit: 3)
        let entered = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for _ in 0 ..< 3 {
            done.enter()
            pool.execute {
                entered.signal()
                gate.wait()
                done.leave()
            }
        }
        // Three jobs hold the three threads...
        for _ in 0 ..< 3 { entered.wait() }
        #expect(pool.threadCount == 3)
        // ...so the next ones wait, and no fourth thread starts.
        let ran = Mutex<[Int]>([])
        for i in 0 ..< 10 {
            done.enter()
            pool.execute {
                ran.withLock { $0.append(i) }
                done.leave()
            }
        }
        #expect(pool.queued == 10)
        #expect(pool.threadCount == 3)
        #expect(ran.withLock { $0.isEmpty })
        for _ in 0 ..< 3 { gate.signal() }
        #expect(finished(done))
        #expect(pool.queued == 0)
        #expect(pool.mostRunning == 3)
        #expect(ran.withLock { $0.sorted() } == Array(0 ..< 10))
    }

    @Test func oneThreadRunsTheQueueInOrder() {
        let pool = WorkerPool(threadLimit: 1)
        let order = Mutex<[Int]>([])
        let done = DispatchGroup()
        for i in 0 ..< 200 {
            done.enter()
            pool.execute {
                order.withLock { $0.append(i) }
                done.leave()
            }
        }
        #expect(finished(done))
        #expect(order.withLock { $0 } == Array(0 ..< 200))
        #expect(pool.mostRunning == 1)
    }

    @Test func neverMoreThanItsLimitWhenManyThreadsSubmit() {
        let limit = 4
        let pool = WorkerPool(threadLimit: limit)
        let running = Atomic<Int>(0), peak = Atomic<Int>(0), ran = Atomic<Int>(0)
        let done = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0 ..< 1000 {
                done.enter()
                pool.execute {
                    let now = running.add(1, ordering: .sequentiallyConsistent).newValue
                    _ = peak.max(now, ordering: .sequentiallyConsistent)
                    sched_yield()
                    running.subtract(1, ordering: .sequentiallyConsistent)
                    ran.add(1, ordering: .relaxed)
                    done.leave()
                }
            }
        }
        #expect(finished(done))
        #expect(ran.load(ordering: .relaxed) == 4000)
        #expect(peak.load(ordering: .relaxed) <= limit)
        #expect(pool.mostRunning <= limit)
        #expect(pool.threadCount <= limit)
    }

    @Test func aJobMayQueueAnother() {
        let pool = WorkerPool(threadLimit: 1)
        let done = DispatchGroup()
        done.enter()
        pool.execute {
            // As a deferred response's sender does from a worker: the job after it runs once
            // this one returns.
            pool.execute { done.leave() }
        }
        #expect(finished(done))
    }

    @Test func idleThreadsEndAndTheNextJobStartsOne() {
        let pool = WorkerPool(threadLimit: 2, idleTimeout: .milliseconds(10))
        let entered = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for _ in 0 ..< 2 {
            done.enter()
            pool.execute {
                entered.signal()
                gate.wait()
                done.leave()
            }
        }
        for _ in 0 ..< 2 { entered.wait() }
        #expect(pool.threadCount == 2)
        for _ in 0 ..< 2 { gate.signal() }
        #expect(finished(done))
        // How soon they end is not the point: that they do.
        let deadline = ContinuousClock.now + .seconds(30)
        while pool.threadCount > 0 && ContinuousClock.now < deadline { usleep(1000) }
        #expect(pool.threadCount == 0)
        done.enter()
        pool.execute { done.leave() }
        #expect(finished(done))
    }

    // MARK: In the server

    @Test func oneWorkerThreadServesManyClientsInTurn() throws {
        try withServer({ $0.workerThreads = 1 }) { _, port in
            let clients = try (0 ..< 8).map { _ in try HTTPTestClient(port: port) }
            for (i, client) in clients.enumerated() {
                client.send("POST /echo/\(i) HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n")
            }
            for (i, client) in clients.enumerated() {
                #expect(client.readResponse()?.text.contains("[\"echo\", \"\(i)\"]") == true)
            }
        }
    }

    /// Every worker busy with a write: the event loops still accept, read and answer what
    /// needs no responder (a malformed request: 400), reads are served (they do not use the
    /// pool), and the waiting write is served once a worker is free.
    @Test func busyWorkersLeaveTheEventLoopsAndReadsFree() throws {
        let responder = GateResponder()
        try withServer({ $0.workerThreads = 1 }, responder: responder) { _, port in
            let holder = try HTTPTestClient(port: port)
            holder.send("POST /hold HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n")
            responder.entered.wait()
            let waiting = try HTTPTestClient(port: port)
            waiting.send("POST /next HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n")
            let malformed = try HTTPTestClient(port: port)
            malformed.send("GET /x HTTP/1.1\r\nHost: h\r\nBad Header\r\n\r\n")
            #expect(malformed.readResponse()?.status == 400)
            let reader = try HTTPTestClient(port: port)
            reader.send("GET /read HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(reader.readResponse()?.status == 200)
            responder.gate.signal()
            #expect(holder.readResponse()?.status == 200)
            #expect(waiting.readResponse()?.status == 200)
        }
    }
}
