import Testing
import TreeEngine
@testable import TreeService

/// A newer filter request cancels an older one's build; naming a kept view cancels nothing.
@Suite struct FilterCancellationTests {
    @Test func aStaleTicketCancelsTheBuildAndChangesNothing() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let session = try #require(h.service.registry.lookup(sid))
        let stale = h.service.ticket(FilterQuery("Grid"), sid)
        let newer = h.service.ticket(FilterQuery("List"), sid)
        #expect(newer == stale + 1)
        let outcome: ServiceError? = session.state.withLock { state in
            do throws(ServiceError) {
                try h.service.prepare(FilterQuery("Grid"), session, &state, ticket: stale)
                return nil
            } catch { return error }
        }
        #expect(outcome?.status == 409)
        #expect(outcome?.type.rawValue == "filter-superseded")
        #expect(session.state.withLock { $0.core.store.hasView(FilterQuery("Grid")) } == false)
        #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == 1)
    }

    /// A change in a view the session does not keep, whose build a newer filter request
    /// cancels: 409, and neither the view nor the change is made.
    @Test func aChangeWhoseBuildIsCancelledMakesNothing() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let session = try #require(h.service.registry.lookup(sid))
        let stale = h.service.ticket(FilterQuery("Grid"), sid)
        _ = h.service.ticket(FilterQuery("List"), sid)
        let outcome: ServiceError? = session.state.withLock { state in
            do throws(ServiceError) {
                _ = try h.service.change(FilterQuery("Grid"), session, &state, ticket: stale) { _ throws(ServiceError) in
                    (.expandAll, .expandAll)
                }
                return nil
            } catch { return error }
        }
        #expect(outcome?.type.rawValue == "filter-superseded")
        #expect(session.state.withLock { $0.core.store.hasView(FilterQuery("Grid")) } == false)
        #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == 1)
    }

    @Test func namingAKeptViewTakesNoNewTicket() {
        let h = ServiceHarness()
        let sid = h.createSample()
        _ = h.call("GET", "/sessions/\(sid)/rows?filter=Grid&limit=0")
        let before = h.service.ticket(FilterQuery("List"), sid)
        #expect(h.service.ticket(FilterQuery("Grid"), sid) == before)
        #expect(h.service.ticket(FilterQuery("Other"), sid) == before + 1)
    }
}
