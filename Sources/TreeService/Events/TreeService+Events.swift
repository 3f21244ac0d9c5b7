import HTTP1
import Synchronization
import TreeEngine

/// Publishing the session's version steps to its event streams (see `EventHub`).
extension TreeService {
    /// Publishes the version step just made (under the session's exclusive lock) to the
    /// streams of the views it stepped: `event` gives the change data of followed rows, from
    /// the store and that view's version given to it; then the store records the splices of
    /// exactly the rows followed from now on.
    func publish(_ session: Session, _ state: inout Session.State, _ stepped: SessionCore.Stepped, mark: JournalMark?,
                 _ event: (_ view: ViewRef, _ store: TreeStore, _ version: Int) -> EventHub.Event) {
        let core = state.core, store = state.core.store
        session.events.publish(stepped, mark: mark, store: store, version: { core.version(of: $0) }) {
            event($0, store, core.version(of: $0.view))
        }
        observeFollowedViews(session, &state)
    }

    /// Gives the store the rows the session's streams follow, when they changed.
    func observeFollowedViews(_ session: Session, _ state: inout Session.State) {
        if let followed = session.events.followedViews(changedSince: &state.observedGeneration) {
            state.core.store.observedViews = followed
        }
    }

    /// Publishes a version step of `view` that rebuilt its filtered rows (they had changed,
    /// then been dropped): their streams reset; nothing changed in the view's other rows,
    /// nor in any other view.
    func publishViewReset(_ view: ViewRef, _ session: Session, _ state: inout Session.State, mark: JournalMark?) {
        publish(session, &state, .one(view.view), mark: mark) { ref, store, version in
            ref == view ? .reset : .change(ResponseJSON.unchanged(ref, store, version: version))
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
