import HTTP1
import Synchronization
import TreeEngine

/// The live sessions, their limits and their expiry.
final class SessionRegistry: Sendable {
    private let sessions = Mutex<[String: Session]>([:])
    /// Sessions in the data directory not loaded yet, with their node counts: a request
    /// for one answers 503 with `Retry-After`, never 404.
    private let pending = Mutex<[String: Int]>([:])
    /// Stored sessions that cannot be served, by id: quarantined (where to), or unreadable
    /// (why; loading is tried again).
    private let unavailable = Mutex<[String: Unavailable]>([:])

    enum Unavailable: Equatable {
        case quarantined(path: String)
        case unreadable(reason: String)
    }
    private let totalNodes = Atomic<Int>(0)
    /// Expiries and removals that failed because the session's files could not be removed
    /// (`/metrics`: the session stays until a later try succeeds).
    let failedRemovals = Atomic<Int>(0)
    /// When expired sessions were last swept (at first: when the registry was made).
    private let lastSweep: AtomicInstant
    let configuration: ServiceConfiguration
    /// Injected so expiry can be tested.
    let clock: any ServiceClock

    /// Gives the memory of dropped large sessions back to the system.
    let freedMemory: FreedMemoryReturn

    /// Called with a session's id and state (its lock held) when it is dropped: the
    /// service removes its files. When it throws (the disk refuses), the session stays.
    let dropped: @Sendable (String, inout Session.State) throws(ServiceError) -> Void

    init(configuration: ServiceConfiguration, clock: any ServiceClock, freedMemory: FreedMemoryReturn? = nil,
         dropped: @escaping @Sendable (String, inout Session.State) throws(ServiceError) -> Void = { _, _ in }) {
        self.configuration = configuration
        self.clock = clock
        self.freedMemory = freedMemory ?? FreedMemoryReturn(trim: configuration.returnFreedMemory)
        self.dropped = dropped
        lastSweep = AtomicInstant(clock.now)
    }

    /// The number of live sessions, and of those still loading.
    var count: Int { sessions.withLock { $0.count } + pending.withLock { $0.count } }
    /// The number of sessions loaded.
    var loadedCount: Int { sessions.withLock { $0.count } }
    /// The number of sessions still loading.
    var pendingCount: Int { pending.withLock { $0.count } }
    /// Every loaded session.
    var all: [Session] { sessions.withLock { Array($0.values) } }
    /// Nodes over all sessions.
    var nodeCount: Int { totalNodes.load(ordering: .relaxed) }

    /// Refuses early when no new session could be stored.
    func checkCapacity() throws(ServiceError) {
        sweepIfDue()
        if count >= configuration.maxSessions {
            throw ServiceError(.tooManySessions,
                               detail: "the server holds its maximum of \(configuration.maxSessions) sessions"
                                   + (configuration.sessionTTL == .zero ? "" : "; idle sessions expire after \(configuration.sessionTTL.components.seconds) s"),
                               headers: [("Retry-After", "60")])
        }
        if nodeCount >= configuration.maxTotalNodes {
            throw ServiceError(.nodeBudgetExhausted,
                               detail: "the server holds its maximum of \(configuration.maxTotalNodes) nodes over all sessions",
                               headers: [("Retry-After", "60")])
        }
    }

    /// Stores a new session for `store` under a fresh random id.
    func create(_ store: TreeStore, settings: SessionSettings = SessionSettings()) throws(ServiceError) -> Session {
        try checkCapacity()
        let nodes = store.forest.count
        try reserve(nodes)
        let session = Session(id: configuration.instance.map { $0 + "." + SessionRegistry.newID() } ?? SessionRegistry.newID(),
                              store: store, clock: clock, settings: settings, linger: configuration.eventBacklogLinger)
        let stored = sessions.withLock { table -> Bool in
            guard table.count < configuration.maxSessions else { return false }
            table[session.id] = session
            return true
        }
        if !stored {
            release(nodes)
            throw ServiceError(.tooManySessions,
                               detail: "the server holds its maximum of \(configuration.maxSessions) sessions",
                               headers: [("Retry-After", "60")])
        }
        return session
    }

    /// Announces a stored session that is loading: its nodes are accounted for at once.
    func willLoad(_ id: String, nodes: Int) {
        pending.withLock { $0[id] = nodes }
        totalNodes.add(nodes, ordering: .relaxed)
    }

    /// Whether a stored session is still loading.
    func isPending(_ id: String) -> Bool { pending.withLock { $0[id] != nil } }

    /// Why a stored session cannot be served, if it cannot.
    func unavailability(_ id: String) -> Unavailable? { unavailable.withLock { $0[id] } }

    /// Records that a stored session cannot be served (nil: it can again).
    func setUnavailable(_ id: String, _ why: Unavailable?) { unavailable.withLock { $0[id] = why } }

    /// The stored sessions that could not be read, to load again.
    var unreadable: [String] {
        unavailable.withLock { table in table.compactMap { id, why in if case .unreadable = why { id } else { nil } }.sorted() }
    }

    /// Stores a session loaded from the data directory (announced by `willLoad` with the
    /// node count of its snapshot; its replay accounted for its changes itself), or
    /// forgets it (nil: it could not be loaded, or had expired; the caller releases what
    /// its replay reserved).
    func loaded(_ id: String, _ session: Session?) {
        // Stored before it stops being pending: a lookup finds one or the other.
        if let session { sessions.withLock { $0[id] = session } }
        let announced = pending.withLock { $0.removeValue(forKey: id) } ?? 0
        if session == nil { release(announced) }
    }

    /// Accounts for `n` more nodes, or refuses when the budget would be exceeded
    /// (`force`: never refuses; for a replay of what was accepted before).
    func reserve(_ n: Int, force: Bool = false) throws(ServiceError) {
        let after = totalNodes.add(n, ordering: .relaxed).newValue
        if after > configuration.maxTotalNodes && n > 0 && !force {
            totalNodes.subtract(n, ordering: .relaxed)
            throw ServiceError(.nodeBudgetExhausted,
                               detail: "\(n) more nodes would exceed the server's budget of \(configuration.maxTotalNodes) nodes",
                               headers: [("Retry-After", "60")])
        }
    }

    func release(_ n: Int) { totalNodes.subtract(n, ordering: .relaxed) }

    /// The session with this id, expired or not: the caller checks `isExpired` (before it
    /// takes the session's lock, and `Session.State.removed` under it).
    func lookup(_ id: String) -> Session? {
        sweepIfDue()
        return sessions.withLock { $0[id] }
    }

    /// The idle time after which `session` expires (zero: never).
    func ttl(of session: Session) -> Duration { session.ttl ?? configuration.sessionTTL }

    /// Whether `session` has expired by `now` (idle for longer than its TTL).
    func isExpired(_ session: Session, now: ContinuousClock.Instant) -> Bool {
        let ttl = ttl(of: session)
        return ttl != .zero && session.lastUsed.duration(to: now) > ttl
    }

    /// Drops a session; false when there was none (or it was already dropped).
    @discardableResult
    func remove(_ id: String, _ reason: EventHub.EndReason) -> Bool {
        let freed = drop(id, reason)
        if let freed { freedMemory.nodesFreed(freed) }
        return freed != nil
    }

    /// Drops a session if `check` passes on its state (it throws otherwise, e.g. a 412 for
    /// `If-Match`): the check and the removal run under one exclusive lock of the session,
    /// so no change slips in between. False when there was no session.
    func remove(_ id: String, check: (Session.State) throws(ServiceError) -> Void) throws(ServiceError) -> Bool {
        let freed = try drop(id, .deleted) { (state) throws(ServiceError) in try check(state); return true }
        if let freed { freedMemory.nodesFreed(freed) }
        return freed != nil
    }

    /// Marks the session removed under its exclusive lock (when `check` says so), takes it out
    /// of the table and releases its nodes; the number of nodes released, nil when there was
    /// no session to drop (or `check` kept it). Throws what `check` throws, and a 507 when the
    /// session's files could not be removed (the session then stays, whole). A request that waits for the session's lock meanwhile finds it
    /// marked and answers 404, so its nodes are never reserved or released after this.
    /// Its event streams end with `reason`.
    private func drop(_ id: String, _ reason: EventHub.EndReason,
                      check: (Session.State) throws(ServiceError) -> Bool) throws(ServiceError) -> Int? {
        guard let session = sessions.withLock({ $0[id] }) else { return nil }
        let freed = try session.state.withLock { (state) throws(ServiceError) -> Int? in
            guard !state.removed, try check(state) else { return nil }
            do throws(ServiceError) { try dropped(id, &state) } catch {
                failedRemovals.add(1, ordering: .relaxed)
                throw error
            }
            state.removed = true
            session.events.end(reason)
            defer { state.accountedNodes = 0 }
            return state.accountedNodes
        }
        guard let freed else { return nil }
        sessions.withLock { table in
            if table[id] === session { table[id] = nil }
        }
        release(freed)
        return freed
    }

    /// `drop` for callers with no check: a session whose files could not be removed stays
    /// (the failure is logged and counted where it happened), and nil is returned.
    private func drop(_ id: String, _ reason: EventHub.EndReason) -> Int? {
        do throws(ServiceError) { return try drop(id, reason, check: { _ in true }) } catch { return nil }
    }

    /// Drops every session idle for longer than the TTL, at most every 10 s.
    func sweepIfDue() {
        let now = clock.now
        guard lastSweep.advance(to: now, ifOlderThan: .seconds(10)) else { return }
        let all = sessions.withLock { Array($0.values) }
        var freed = 0
        for session in all where isExpired(session, now: now) {
            // Checked again under the lock: a request may have used the session meanwhile.
            do throws(ServiceError) {
                freed += try drop(session.id, .expired) { _ in isExpired(session, now: now) } ?? 0
            } catch {
                // Its files could not be removed (logged and counted): it stays, whole, and
                // the next sweep tries again.
            }
        }
        freedMemory.nodesFreed(freed)  // one trim for the whole sweep
    }

    /// 128 random bits, URL-safe base64 without padding (22 characters).
    static func newID() -> String {
        var rng = SystemRandomNumberGenerator()
        let bytes = (0 ..< 16).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        var buffer = 0, bits = 0
        for b in bytes {
            buffer = buffer << 8 | Int(b)
            bits += 8
            while bits >= 6 {
                bits -= 6
                out.append(alphabet[(buffer >> bits) & 63])
            }
        }
        if bits > 0 { out.append(alphabet[(buffer << (6 - bits)) & 63]) }
        return String(decoding: out, as: UTF8.self)
    }
}
