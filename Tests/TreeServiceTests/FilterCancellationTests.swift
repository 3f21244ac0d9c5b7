import Testing
import TreeEngine
@testable import TreeService

/// A newer filter request cancels an older one's build; naming a kept view cancels nothing.
@Suite struct FilterCancellationTests {
    @Test func aStaleTicketCancelsTheBuildAndChangesNothing() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let session = try #require(h.service.registry.lookup(sid))
        let stale = h.service.ticket(ViewRef(nil, filter: FilterQuery("Grid")), session)
        let newer = h.service.ticket(ViewRef(nil, filter: FilterQuery("List")), session)
        #expect(newer == stale + 1)
        let outcome: ServiceError? = session.state.withLock { state in
            do throws(ServiceError) {
                try h.service.prepare(ViewRef(nil, filter: FilterQuery("Grid")), session, &state, ticket: stale)
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
        let stale = h.service.ticket(ViewRef(nil, filter: FilterQuery("Grid")), session)
        _ = h.service.ticket(ViewRef(nil, filter: FilterQuery("List")), session)
        let outcome: ServiceError? = session.state.withLock { state in
            do throws(ServiceError) {
                _ = try h.service.change(ViewRef(nil, filter: FilterQuery("Grid")), session, &state, ticket: stale) { _ throws(ServiceError) in
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
        let session = h.service.registry.lookup(sid)!
        let before = h.service.ticket(ViewRef(nil, filter: FilterQuery("List")), session)
        #expect(h.service.ticket(ViewRef(nil, filter: FilterQuery("Grid")), session) == before)
        #expect(h.service.ticket(ViewRef(nil, filter: FilterQuery("Other")), session) == before + 1)
    }
}
