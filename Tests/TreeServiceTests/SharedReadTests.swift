import Foundation
import Synchronization
import Testing
@testable import TreeService

/// Requests that only read a session share its lock with other readers.
@Suite struct SharedReadTests {
    /// Another thread holds the session's read lock until told to let go (or 30 s pass,
    /// which only ends a failing run): a read that needs the exclusive lock can only answer
    /// after that, a shared read answers while the lock is still held.
    @Test(arguments: ["", "/tree", "/rows"])
    func readsAnswerWhileAnotherReaderHoldsTheSession(path: String) throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let session = try #require(h.service.registry.lookup(sid))
        let holding = Atomic<Bool>(false)
        let held = DispatchSemaphore(value: 0), letGo = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            session.state.withReadLock { _ in
                holding.store(true, ordering: .sequentiallyConsistent)
                held.signal()
                _ = letGo.wait(timeout: .now() + 30)
                holding.store(false, ordering: .sequentiallyConsistent)
            }
            done.signal()
        }
        held.wait()
        let reply = h.call("GET", "/sessions/\(sid)\(path)")
        let answeredWhileHeld = holding.load(ordering: .sequentiallyConsistent)
        letGo.signal()
        done.wait()
        #expect(reply.status == 200)
        #expect(answeredWhileHeld, "GET /sessions/{sid}\(path) waited for the other reader to let go")
    }
}
