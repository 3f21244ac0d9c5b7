import Foundation
import Synchronization
import Testing
@testable import TreeService

/// One notion of time: expiry on the service's monotonic clock, spans as `Duration`,
/// the wall clock only for the timestamps the API shows.
@Suite struct ServiceTimeTests {
    @Test func createdAtStaysAndExpiresAtFollowsTheLastUse() {
        let h = ServiceHarness { $0.sessionTTL = .seconds(100) }
        let created = h.call("POST", "/sessions", json: "[{\"title\": \"a\"}]")
        #expect(created["createdAt"]?.stringValue == "2027-01-15T08:00:00.000Z")
        #expect(created["expiresAt"]?.stringValue == "2027-01-15T08:01:40.000Z")
        let sid = created["id"]!.stringValue!
        h.clock.advance(.milliseconds(60_250))
        let later = h.call("GET", "/sessions/\(sid)")
        #expect(later["createdAt"]?.stringValue == "2027-01-15T08:00:00.000Z")
        #expect(later["expiresAt"]?.stringValue == "2027-01-15T08:02:40.250Z")
    }

    @Test func aSessionExpiresAfterItsTTLOfIdleTime() {
        let h = ServiceHarness { $0.sessionTTL = .seconds(100) }
        let sid = h.createSample()
        h.clock.advance(.seconds(100))
        #expect(h.call("GET", "/sessions/\(sid)").status == 200)
        h.clock.advance(.seconds(100) + .milliseconds(1))
        #expect(h.call("GET", "/sessions/\(sid)").status == 404)
    }

    @Test func requestDurationsAreMeasuredOnTheServiceClock() {
        let h = ServiceHarness()
        h.call("GET", "/healthz")
        let text = h.call("GET", "/metrics").text
        // The test clock stands still: every request took no time.
        #expect(text.contains("tree_http_request_duration_seconds_bucket{le=\"0.0005\"} 1\n"))
        #expect(text.contains("tree_http_request_duration_seconds_bucket{le=\"2.5\"} 1\n"))
        #expect(text.contains("tree_http_request_duration_seconds_sum 0.0\n"))
    }

    @Test func durationsInSecondsAndMicroseconds() {
        #expect(Duration.microseconds(500).seconds == 0.0005)
        #expect(Duration.milliseconds(2500).seconds == 2.5)
        #expect((Duration.seconds(3) + .nanoseconds(1500)).wholeMicroseconds == 3_000_001)
    }

    @Test func aLastUseNeverMovesBack() {
        let start = ContinuousClock.now
        let instant = AtomicInstant(start)
        instant.advance(to: start.advanced(by: .seconds(5)))
        instant.advance(to: start.advanced(by: .seconds(3)))
        #expect(instant.load() == start.advanced(by: .seconds(5)))
        DispatchQueue.concurrentPerform(iterations: 1000) { i in instant.advance(to: start.advanced(by: .milliseconds(i))) }
        #expect(instant.load() == start.advanced(by: .seconds(5)))
        DispatchQueue.concurrentPerform(iterations: 1000) { i in instant.advance(to: start.advanced(by: .seconds(6) + .nanoseconds(i))) }
        #expect(instant.load() == start.advanced(by: .seconds(6) + .nanoseconds(999)))
    }

    @Test func aPeriodicTaskIsClaimedOncePerInterval() {
        let start = ContinuousClock.now
        let last = AtomicInstant(start)
        let early = last.advance(to: start.advanced(by: .seconds(9)), ifOlderThan: .seconds(10))
        #expect(!early)
        let claims = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 100) { _ in
            if last.advance(to: start.advanced(by: .seconds(10)), ifOlderThan: .seconds(10)) { claims.add(1, ordering: .relaxed) }
        }
        #expect(claims.load(ordering: .relaxed) == 1)
        #expect(last.load() == start.advanced(by: .seconds(10)))
    }
}
