import HTTP1
import Synchronization
import TreeEngine

/// Publishing the session's version steps to its event streams (see `EventHub`).
extension TreeService {
    /// Publishes the version step just made (under the session's exclusive lock): `event`
    /// gives the change data of a followed view, from the store and version given to it;
    /// then the store records the splices of exactly the views followed from now on.
    func publish(_ session: Session, _ state: inout Session.State, mark: JournalMark?,
                 _ event: (_ view: FilterQuery?, _ store: TreeStore, _ version: Int) -> EventHub.Event) {
        let store = state.core.store, version = state.core.version
        session.events.publish(version: version, mark: mark, store: store) { event($0, store, version) }
        state.core.store.observedViews = Set(session.events.followedViews.map { ViewRef(filter: $0) })
    }

    /// Publishes a version step that rebuilt `filter`'s view (it had changed, then been
    /// dropped): its streams reset; nothing changed in the other views.
    func publishViewReset(_ filter: FilterQuery, _ session: Session, _ state: inout Session.State, mark: JournalMark?) {
        publish(session, &state, mark: mark) { view, store, version in
            view == filter ? .reset : .change(ResponseJSON.changes(version: version, total: store.keptRowCount(view)!, [], reload: [], index: .absent))
        }
    }

    /// Sends the heartbeat comment on every open event stream (`--sse-heartbeat`).
    public func sendHeartbeats() {
        for session in registry.all { session.events.heartbeat() }
    }

    /// The number of open event streams.
    public var openStreamCount: Int { openStreams.load(ordering: .relaxed) }
}

extension TreeService {
    /// The event streams' lines of `/metrics`.
    func eventMetrics() -> [UInt8] {
        Array("""
            # HELP tree_event_streams_open Event streams open (GET /sessions/{sid}/events).
            # TYPE tree_event_streams_open gauge
            tree_event_streams_open \(openStreamCount)

            """.utf8)
    }
}
