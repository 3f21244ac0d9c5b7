import Dispatch
import HTTP1
import Synchronization
import TreeEngine
import TreeFormats
import TreeStorage

/// The event streams of one session (`GET /sessions/{sid}/events` for its default view,
/// `GET /sessions/{sid}/views/{vid}/events` for another): who follows which rows of which
/// view (`ViewRef`: a view, and its unfiltered or filtered rows), the recent events of each
/// followed rows, and their delivery in version order.
///
/// Every version step is published here under the session's exclusive lock, to the views it
/// stepped (every view for a tree edit, one view for a change of its state), as one event per
/// followed rows of those views, at that view's version: `change` with those rows' splices,
/// or `reset` when their splices are not known (the view dropped them, or rebuilt them in a
/// version step). Rows are followed from their first subscription while their view keeps
/// them: their backlog lasts that long, so a client that reconnects with `Last-Event-ID` gets
/// what it missed even when it was their only subscriber. A view dropped (deleted, expired)
/// ends its streams with `end`.
///
/// Delivery runs off the session's lock, one drainer at a time, in publication order; a
/// publication whose journal entry is not yet durable waits for it (the session's
/// committer), so a client never sees a change a crash could take back. Sending never
/// blocks: a client too slow to take its events is dropped by the HTTP layer (it then
/// reconnects with `Last-Event-ID`).
final class EventHub: Sendable {
    /// The backlog of each followed view: its last events, at most this many...
    static let backlogEvents = 1024
    /// ...and at most this many bytes: half of what the HTTP layer lets a stream queue
    /// (`maxPushQueueBytes`), so that a reconnecting client can take a whole replay.
    static let backlogBytes = 512 << 10
    /// A change whose event would be larger (a batch of many thousands of operations) is
    /// sent as a `reset` (`large`): the client fetches its rows instead.
    static let maxEventBytes = 256 << 10

    /// Why a stream must fetch its rows again.
    enum ResetReason: String {
        /// The stream has just started without `Last-Event-ID`.
        case subscribed
        /// `Last-Event-ID` names a version the backlog no longer (or never) holds.
        case backlog
        /// The view was dropped from the session's cache of filtered views, or built anew
        /// in a version step: its splices are not known.
        case view
        /// The change's event would be larger than `maxEventBytes`.
        case large
    }

    /// Why a session's streams end.
    enum EndReason: String {
        case deleted
        case expired
    }

    /// What a followed view gets at a version step.
    enum Event {
        /// `change` with this data (the change response for that view).
        case change([UInt8])
        /// `reset`.
        case reset
    }

    private struct View {
        var subscribers: [ObjectIdentifier: HTTPPushStream] = [:]
        /// Subscriptions published but not yet delivered (the view stays followed meanwhile).
        var attaching = 0
        /// When its last subscriber left (nil while it has one).
        var idleSince: ContinuousClock.Instant? = nil
        var backlog: Backlog
        /// Whether its splices were recorded at every version step since the backlog began
        /// (false after a step found it dropped, until a reset restarts it kept).
        var intact = true
    }

    /// Events of the versions after `start`, oldest first, bounded by `backlogEvents` and `backlogBytes`.
    private struct Backlog {
        private(set) var start: Int
        private var events: [(version: Int, bytes: [UInt8])] = []
        private var head = 0
        private var bytes = 0

        init(start: Int) { self.start = start }

        mutating func append(_ version: Int, _ event: [UInt8]) {
            events.append((version, event))
            bytes += event.count
            while events.count - head > EventHub.backlogEvents || bytes > EventHub.backlogBytes {
                start = events[head].version
                bytes -= events[head].bytes.count
                events[head].bytes = []
                head += 1
            }
            if head > 64 && head * 2 > events.count {
                events.removeFirst(head)
                head = 0
            }
        }

        /// Forgets everything: the view's history starts again after `version`.
        mutating func restart(at version: Int) {
            self = Backlog(start: version)
        }

        /// The events after `version` up to `current`, concatenated (empty when there are
        /// none); nil when the backlog does not hold them all.
        func events(after version: Int, current: Int) -> [UInt8]? {
            guard version >= start, version <= current else { return nil }
            var out: [UInt8] = []
            for e in events[head...] where e.version > version { out += e.bytes }
            return out
        }
    }

    private enum Action {
        /// Send to every subscriber of the view's rows at this point of the order.
        case send(ViewRef, [UInt8])
        /// Send the first bytes to the stream, which then joins the subscribers of the view's rows.
        case attach(ViewRef, HTTPPushStream, [UInt8])
        /// Send to every subscriber of one view (its rows, filtered or not), then end its
        /// streams: the view is gone.
        case endView(ViewID, [UInt8])
        /// Send to every subscriber, then end every stream.
        case end([UInt8])
    }

    private struct Publication {
        let sequence: Int
        var ready: Bool
        var actions: [Action]
    }

    private struct State {
        /// The followed rows, by view, then by filter (nil: the view's unfiltered rows), so
        /// that a change of one view's state visits that view's streams alone.
        var views: [ViewID?: [FilterQuery?: View]] = [:]
        /// Views whose `end` is queued: nothing more is published to them.
        var ended: Set<ViewID> = []
        /// Steps whenever the set of followed rows changes (`followedViews(changedSince:)`).
        var generation = 0
        var queue: [Publication] = []
        var nextSequence = 0
        var draining = false
        /// The `end` event, once the session is removed.
        var end: [UInt8]?
        /// Streams open or being opened (for the per-session limit).
        var streams = 0
        /// The journal entry of the last version step: a stream starts at that version, so
        /// not before it is durable.
        var lastMark: JournalMark?

        subscript(_ ref: ViewRef) -> View? {
            get { views[ref.view]?[ref.filter] }
            set {
                let known = views[ref.view]?[ref.filter] != nil
                if let newValue {
                    views[ref.view, default: [:]][ref.filter] = newValue
                    if !known { generation += 1 }
                } else if known {
                    views[ref.view]![ref.filter] = nil
                    if views[ref.view]!.isEmpty { views[ref.view] = nil }
                    generation += 1
                }
            }
        }
    }

    private let state = Mutex(State())
    private let committer: Committer
    /// How long a view nobody follows any more keeps its backlog (for a client that
    /// reconnects): after that it stops being followed at its next version step.
    private let linger: Duration

    init(committer: Committer, linger: Duration) {
        self.committer = committer
        self.linger = linger
    }

    /// The rows whose events are published (their splices must be recorded).
    /// - Complexity: O(followed)
    var followedViews: Set<ViewRef> {
        state.withLock { s in Set(s.views.flatMap { view, rows in rows.keys.map { ViewRef(view, filter: $0) } }) }
    }

    /// `followedViews` when they changed since `generation` (which then moves to now); nil
    /// when they did not, in O(1): a change of one view need not give the store the set again.
    func followedViews(changedSince generation: inout Int) -> Set<ViewRef>? {
        let now = state.withLock { $0.generation }
        guard now != generation else { return nil }
        generation = now
        return followedViews
    }

    /// Whether a stream follows `view` (its rows, filtered or not), or is being attached to
    /// it: an open stream keeps a view alive.
    func hasStreams(_ view: ViewID) -> Bool {
        state.withLock { s in
            s.views[view]?.values.contains { !$0.subscribers.isEmpty || $0.attaching > 0 } ?? false
        }
    }

    // MARK: Under the session's exclusive lock

    /// Takes one of the session's `limit` stream slots (false when all are taken): a
    /// stream being opened holds it until it is subscribed (or `releaseSlot`).
    func takeSlot(limit: Int) -> Bool {
        state.withLock { s in
            guard s.streams < limit else { return false }
            s.streams += 1
            return true
        }
    }

    /// Gives back a slot whose stream was never subscribed.
    func releaseSlot() {
        state.withLock { $0.streams -= 1 }
    }

    /// Subscribes a stream (which holds a slot) to `view`, kept by `store`, at `version` (that
    /// view's). It gets `retry`, then the events after `lastEventID` from the backlog, or a
    /// `reset`; or, when the session has ended, `end`. It gives back its slot, and runs
    /// `onEnd`, when it ends.
    func subscribe(_ stream: HTTPPushStream, view: ViewRef, lastEventID: Int?, store: TreeStore,
                   version: Int, mark: JournalMark?, onEnd: @escaping @Sendable () -> Void) {
        let id = ObjectIdentifier(stream)
        let mark = state.withLock { s -> JournalMark? in
            var followed = s[view] ?? View(backlog: Backlog(start: version))
            var first = ServerSentEvent.retry
            if let lastEventID, followed.intact, let missed = followed.backlog.events(after: lastEventID, current: version) {
                first += missed
            } else {
                first += EventHub.reset(lastEventID == nil ? .subscribed : .backlog, version: version, total: store.keptRowCount(view))
            }
            followed.attaching += 1
            followed.idleSince = nil
            s[view] = followed
            let pending = (mark ?? s.lastMark).flatMap { $0.files.isDurable($0.position) ? nil : $0 }
            enqueue(&s, mark: pending, [.attach(view, stream, first)])
            return pending
        }
        stream.onEnd { [self] in
            state.withLock { s in
                s.streams -= 1
                guard var followed = s[view] else { return }
                followed.subscribers[id] = nil
                if followed.subscribers.isEmpty { followed.idleSince = .now }
                s[view] = followed
            }
            onEnd()
        }
        afterEnqueue(mark)
    }

    /// Publishes a version step of the views `stepped` names: `event` gives each of their
    /// followed rows that are kept and intact its event (it may read them with the store's
    /// `kept…` accessors), at that view's version (`version`); the others get a `reset`.
    /// Rows without subscribers stop being followed once they are no longer kept, or nobody
    /// has followed them for `linger`.
    /// - Complexity: O(followed rows of the views that stepped)
    func publish(_ stepped: SessionCore.Stepped, mark: JournalMark?, store: TreeStore, version: (ViewID?) -> Int,
                 _ event: (ViewRef) -> Event) {
        let published = state.withLock { s -> Bool in
            if let mark { s.lastMark = mark }
            let views: [ViewID?]
            switch stepped {
            case .none: return false
            case .every: views = Array(s.views.keys)
            case .one(let view): views = s.views[view] == nil ? [] : [view]
            }
            var actions: [Action] = []
            let now = ContinuousClock.now
            for view in views {
                if let view, s.ended.contains(view) { continue }
                let at = version(view)
                for (filter, var followed) in s.views[view] ?? [:] {
                    let ref = ViewRef(view, filter: filter)
                    let kept = store.isKept(ref)
                    let unattended = followed.subscribers.isEmpty && followed.attaching == 0
                    if unattended && (!kept || followed.idleSince.map { now - $0 >= linger } ?? false) {
                        s[ref] = nil
                        continue
                    }
                    var data: [UInt8]? = nil
                    if kept && followed.intact, case .change(let change) = event(ref) { data = change }
                    let bytes: [UInt8]
                    if let data, data.count <= EventHub.maxEventBytes {
                        bytes = ServerSentEvent.bytes("change", id: at, data: data)
                        followed.backlog.append(at, bytes)
                    } else {
                        bytes = EventHub.reset(data == nil ? .view : .large, version: at, total: store.keptRowCount(ref))
                        followed.backlog.restart(at: at)
                        followed.intact = kept
                    }
                    s[ref] = followed
                    if !unattended { actions.append(.send(ref, bytes)) }
                }
            }
            if !actions.isEmpty { enqueue(&s, mark: mark, actions) }
            return !actions.isEmpty
        }
        if published { afterEnqueue(mark) }
    }

    /// A view is dropped (deleted, or expired): its streams get `end` (after the events
    /// before it, once `mark`, the dropping's journal entry, is durable) and end.
    func end(view: ViewID, _ reason: EndReason, mark: JournalMark?) {
        let queued = state.withLock { s -> Bool in
            guard s.end == nil, s.views[view] != nil, s.ended.insert(view).inserted else { return false }
            if let mark { s.lastMark = mark }
            let end = ServerSentEvent.bytes("end", id: nil, data: Array("{\"reason\":\"\(reason.rawValue)\"}".utf8))
            enqueue(&s, mark: mark, [.endView(view, end)])
            return true
        }
        if queued { afterEnqueue(mark) }
    }

    /// The session is removed: every stream gets `end` (after the events before it) and ends,
    /// also one subscribed later by a request that had looked the session up before.
    func end(_ reason: EndReason) {
        state.withLock { s in
            guard s.end == nil else { return }
            let end = ServerSentEvent.bytes("end", id: nil, data: Array("{\"reason\":\"\(reason.rawValue)\"}".utf8))
            s.end = end
            enqueue(&s, mark: nil, [.end(end)])
        }
        afterEnqueue(nil)
    }

    // MARK: Any thread

    /// Sends the heartbeat comment to every stream.
    func heartbeat() {
        let streams = state.withLock { s in s.views.values.flatMap { $0.values.flatMap { $0.subscribers.values } } }
        for stream in streams { stream.send(ServerSentEvent.heartbeat) }
    }

    // MARK: Delivery

    /// `reset` with the view's `total` when the store keeps it.
    private static func reset(_ reason: ResetReason, version: Int, total: Int?) -> [UInt8] {
        var out = JSONWriter(reservingCapacity: 64)
        out.raw("{\"version\":")
        out.int(version)
        if let total {
            out.raw(",\"total\":")
            out.int(total)
        }
        out.raw(",\"reason\":")
        out.string(reason.rawValue)
        out.raw("}")
        return ServerSentEvent.bytes("reset", id: version, data: out.bytes)
    }

    private func enqueue(_ s: inout State, mark: JournalMark?, _ actions: [Action]) {
        s.queue.append(Publication(sequence: s.nextSequence, ready: mark == nil, actions: actions))
        s.nextSequence += 1
    }

    /// After a publication was queued (outside the hub's lock): waits for its entry to be
    /// durable, or starts delivering.
    private func afterEnqueue(_ mark: JournalMark?) {
        guard let mark else { return startDraining() }
        let sequence = state.withLock { $0.nextSequence - 1 }
        committer.whenDurable(mark) { [self] _ in
            // A failed fsync answered 507, but the change stays applied: readers see it, so
            // the streams do too.
            state.withLock { s in
                if let i = s.queue.firstIndex(where: { $0.sequence == sequence }) { s.queue[i].ready = true }
            }
            startDraining()
        }
    }

    private func startDraining() {
        let start = state.withLock { s -> Bool in
            guard !s.draining, s.queue.first?.ready == true else { return false }
            s.draining = true
            return true
        }
        if start { DispatchQueue.global(qos: .userInitiated).async { self.drain() } }
    }

    /// One delivery: the streams, the bytes, and whether the streams end after them.
    private struct Delivery {
        var streams: [HTTPPushStream]
        var bytes: [UInt8]
        var finish = false
    }

    /// Delivers the ready publications at the head of the queue, in order, until none is left.
    private func drain() {
        while true {
            let deliveries = state.withLock { s -> [Delivery]? in
                var out: [Delivery] = []
                var taken = 0
                while taken < s.queue.count, s.queue[taken].ready {
                    for action in s.queue[taken].actions { resolve(action, &s, into: &out) }
                    taken += 1
                }
                guard taken > 0 else {
                    s.draining = false
                    return nil
                }
                s.queue.removeFirst(taken)
                return out
            }
            guard let deliveries else { return }
            for delivery in deliveries {
                for stream in delivery.streams {
                    stream.send(delivery.bytes)
                    if delivery.finish { stream.finish() }
                }
            }
        }
    }

    /// The streams an action goes to, as of its place in the order.
    private func resolve(_ action: Action, _ s: inout State, into out: inout [Delivery]) {
        switch action {
        case .send(let ref, let bytes):
            guard let subscribers = s[ref]?.subscribers, !subscribers.isEmpty else { return }
            out.append(Delivery(streams: Array(subscribers.values), bytes: bytes))
        case .attach(let ref, let stream, let bytes):
            if let end = s.end {
                out.append(Delivery(streams: [stream], bytes: bytes + end, finish: true))
                return
            }
            guard var followed = s[ref] else {
                // Its view ended before the stream was attached (it is queued first, so this
                // does not happen; an ended stream is the safe answer).
                out.append(Delivery(streams: [stream], bytes: bytes, finish: true))
                return
            }
            followed.attaching -= 1
            // Ended meanwhile (its end handler has run, or runs after this and removes it).
            if stream.isOpen { followed.subscribers[ObjectIdentifier(stream)] = stream }
            s[ref] = followed
            guard stream.isOpen else { return }
            out.append(Delivery(streams: [stream], bytes: bytes))
        case .endView(let view, let bytes):
            let streams = (s.views[view] ?? [:]).values.flatMap { $0.subscribers.values }
            for filter in Array((s.views[view] ?? [:]).keys) { s[ViewRef(view, filter: filter)] = nil }
            s.ended.remove(view)
            out.append(Delivery(streams: streams, bytes: bytes, finish: true))
        case .end(let bytes):
            let all = s.views.values.flatMap { $0.values.flatMap { $0.subscribers.values } }
            s.views = [:]
            s.generation += 1
            out.append(Delivery(streams: all, bytes: bytes, finish: true))
        }
    }
}
