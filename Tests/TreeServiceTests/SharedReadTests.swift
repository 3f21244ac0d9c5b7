import Foundation
import Synchronization
import Testing
@testable import TreeService

/// Requests that only read a session share its lock with other readers.
@Suite struct SharedReadTests {
    /// Another thread holds the session's read lock: a read that needs the exclusive lock
    /// can only answer after it lets go, a shared read answers while the lock is still held.
    /// The filtered view `a` is built (kept) before.
    @Test(arguments: ["", "/tree", "/rows", "/rows?filter=a", "/items/1.1", "/items/1.1?filter=a", "/items/1.2.4.2?filter=a"])
    func readsAnswerWhileAnotherReaderHoldsTheSession(path: String) throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        #expect(h.call("GET", "/sessions/\(sid)/rows?filter=a").status == 200)
        let session = try #require(h.service.registry.lookup(sid))
        let (reply, answeredWhileHeld) = h.whileAnotherThreadHolds(session, exclusively: false) {
            h.call("GET", "/sessions/\(sid)\(path)")
        }
        #expect(reply.status == 200)
        #expect(answeredWhileHeld, "GET /sessions/{sid}\(path) waited for the other reader to let go")
    }
}
