import Foundation
import HTTP1
import Synchronization
import Testing
import TreeEngine
@testable import TreeService

/// Removing a session while requests hold it: the node budget stays exact, and a request
/// that got the session before it was removed answers 404 and changes nothing.
@Suite struct SessionRemovalTests {
    let h = ServiceHarness()

    /// (method, path after the session, body) of an edit that adds or drops nodes.
    static let edits: [(String, String, String?)] = [
        ("POST", "/items", "{\"nodes\": [{\"title\": \"new\", \"children\": [{\"title\": \"child\"}]}], \"parentId\": \"4\"}"),
        ("DELETE", "/items/1.1", nil),
    ]

    @Test(arguments: edits)
    func anEditOfASessionRemovedAfterItsLookupAnswers404AndLeavesTheBudgetAtZero(method: String, path: String, body: String?) throws {
        let sid = h.createSample()
        #expect(h.service.registry.nodeCount > 0)
        // The request has looked its session up; the session is removed before it takes the lock.
        let session = try h.service.liveSession(sid)
        #expect(h.service.registry.remove(sid, .deleted))
        #expect(h.service.registry.nodeCount == 0)
        let request = HTTPRequest(method: method, target: "/sessions/\(sid)\(path)",
                                  headers: HTTPHeaders([("Content-Type", "application/json")]), body: Array((body ?? "").utf8))
        var status = 0
        do {
            let response = try h.service.mutateSession(request, session, view: ViewRef(), ticket: 0) { store throws(ServiceError) in
                if method == "DELETE" { return (.delete(ItemID("1.1")), .delete(ItemID("1.1"))) }
                let (fragment, members) = try h.service.parseNodes(request, into: store)
                return (.insert(fragment, try SessionOperation.insertionPoint(members)), .insertNodes(request.body))
            }
            status = response.status
        } catch {
            status = error.response(logTag: "test").status
        }
        #expect(status == 404)
        #expect(h.service.registry.nodeCount == 0)
        #expect(session.state.withReadLock { $0.accountedNodes } == 0)
    }

    @Test func aReadOfASessionRemovedAfterItsLookupAnswers404() throws {
        let sid = h.createSample()
        let session = try h.service.liveSession(sid)
        h.service.registry.remove(sid, .deleted)
        var status = 0
        do {
            status = try h.service.readingSession(session) { _, _ throws(ServiceError) in 200 }
        } catch {
            status = error.response(logTag: "test").status
        }
        #expect(status == 404)
    }

    @Test func removingTwiceReleasesTheNodesOnce() {
        let first = h.createSample(), second = h.createSample()
        let perSession = h.service.registry.nodeCount / 2
        #expect(h.service.registry.remove(first, .deleted))
        #expect(!h.service.registry.remove(first, .deleted))
        #expect(h.service.registry.nodeCount == perSession)
        #expect(h.call("DELETE", "/sessions/\(second)").status == 204)
        #expect(h.service.registry.nodeCount == 0)
    }

    /// DELETE checks If-Match and removes under one exclusive lock: a stale tag never deletes.
    @Test func deleteWithAStaleTagKeepsTheSession() {
        let sid = h.createSample()
        #expect(h.call("PATCH", "/sessions/\(sid)", json: "{\"expandAll\": true}").status == 200)
        let stale = h.call("DELETE", "/sessions/\(sid)", headers: [("If-Match", "\"1\"")])
        #expect(stale.status == 412)
        #expect(stale.headers["etag"] == "\"2\"")
        #expect(h.call("GET", "/sessions/\(sid)").status == 200)
        #expect(h.call("DELETE", "/sessions/\(sid)", headers: [("If-Match", "\"2\"")]).status == 204)
        #expect(h.call("GET", "/sessions/\(sid)").status == 404)
        #expect(h.service.registry.nodeCount == 0)
    }

    /// An expired session is gone for DELETE too, with or without If-Match.
    @Test(arguments: [[], [("If-Match", "\"1\"")]])
    func deletingAnExpiredSessionAnswers404(headers: [(String, String)]) {
        let sid = h.createSample()
        h.clock.advance(ServiceConfiguration().sessionTTL + .seconds(1))
        #expect(h.call("DELETE", "/sessions/\(sid)", headers: headers).status == 404)
        #expect(h.service.registry.count == 0)
        #expect(h.service.registry.nodeCount == 0)
    }

    /// DELETE with If-Match takes the session's exclusive lock before it checks the tag or
    /// removes anything (so no PATCH can move the version in between): while another reader
    /// holds the session, the DELETE waits for the lock with the session still listed.
    @Test func deleteWithIfMatchRemovesNothingBeforeItHoldsTheSessionExclusively() throws {
        let sid = h.createSample()
        let session = try #require(h.service.registry.lookup(sid))
        let status = Mutex<Int>(0)
        let deleted = DispatchSemaphore(value: 0)
        let (stillListed, _) = h.whileAnotherThreadHolds(session, exclusively: false) { [h] in
            Thread.detachNewThread {
                let reply = h.call("DELETE", "/sessions/\(sid)", headers: [("If-Match", "\"1\"")])
                status.withLock { $0 = reply.status }
                deleted.signal()
            }
            // Until the DELETE waits for the exclusive lock: a waiting writer keeps new readers
            // out (30 s only end a failing run).
            let deadline = ContinuousClock.now + .seconds(30)
            while session.state.withReadLockIfFree({ _ in true }) != nil, ContinuousClock.now < deadline { sched_yield() }
            return h.service.registry.lookup(sid) != nil
        }
        deleted.wait()
        #expect(stillListed, "the DELETE took the session out before it held the lock")
        #expect(status.withLock { $0 } == 204)
        #expect(h.service.registry.count == 0)
    }

    /// A sweep checks expiry again under the session's lock: a session used after the sweep
    /// read its last use, while the sweep waited for the lock, is kept.
    @Test func aSweepKeepsASessionUsedWhileItWaitedForTheLock() throws {
        let sid = h.createSample()
        let session = try #require(h.service.registry.lookup(sid))
        h.clock.advance(ServiceConfiguration().sessionTTL + .seconds(11))
        let swept = DispatchSemaphore(value: 0)
        _ = h.whileAnotherThreadHolds(session, exclusively: false) { [h] in
            Thread.detachNewThread {
                h.service.registry.sweepIfDue()
                swept.signal()
            }
            // Until the sweep waits for the exclusive lock: a waiting writer keeps new readers
            // out (30 s only end a failing run). Then the session is used.
            let deadline = ContinuousClock.now + .seconds(30)
            while session.state.withReadLockIfFree({ _ in true }) != nil, ContinuousClock.now < deadline { sched_yield() }
            h.clock.advance(.seconds(1))
            session.touch(h.clock.now)
        }
        swept.wait()
        #expect(h.service.registry.count == 1)
        #expect(h.call("GET", "/sessions/\(sid)").status == 200)
    }
}
