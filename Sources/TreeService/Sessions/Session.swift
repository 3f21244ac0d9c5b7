import Foundation
import HTTP1
import Synchronization
import TreeEngine
import TreeStorage

/// One uploaded tree, its views and its version. Every change runs alone under its
/// lock, reads of views that need no build run beside each other, so operations are
/// linearizable; different sessions run in parallel.
final class Session: Sendable {
    let id: String
    /// When it was created, on the wall clock: only shown.
    let createdAt: Date
    /// Its name, labels, TTL and token cut-off, readable without its lock (which a long
    /// change holds: every request checks its tokens against them).
    let settings: Mutex<SessionSettings>
    /// Its path-list ids double every backslash: a session stored before the minimal form
    /// (`SessionMetadata` format 1 or 2) keeps the spelling its ids were given.
    let doublesPathBackslashes: Bool
    /// Bumped by every filter request that must build; a filter build whose ticket is no
    /// longer the latest of its view (`filterTickets`) gives up, so a newer filter request
    /// through a view never waits for a stale one of the same view.
    let filterTicket = Atomic<Int>(0)
    /// The newest filter ticket of each view (nil: the default view).
    let filterTickets = Mutex<[ViewID?: Int]>([:])
    /// The filtered rows each view keeps, readable without waiting for `state`'s lock
    /// (which a long filter build holds): naming one of them builds nothing, so it
    /// cancels nothing.
    let keptFilters = Mutex<[ViewID?: Set<FilterQuery>]>([:])
    /// The tree's fields as last counted (`GET /sessions/{sid}/fields`), with the count of
    /// tree edits then: good until the next edit.
    let fieldStats = Mutex<(treeEdits: Int, stats: FieldStats)?>(nil)
    /// The event streams opened with a session token, which its revocation ends.
    let tokenStreams = TokenStreams()
    /// The session's views as requests see them before its lock: their last use.
    let views: ViewUses
    let state: ReadWriteLocked<State>
    /// Answers the session's changes once their journal entries are durable (`--fsync batch`).
    let committer = Committer()
    /// The session's event streams.
    let events: EventHub
    /// The instant of the last request (readers update it too), on the service's clock.
    private let lastUse: AtomicInstant

    struct State: Sendable {
        /// The tree, its kept views and its version.
        var core: SessionCore
        /// The node count the registry has accounted for this session.
        var accountedNodes: Int
        /// Set, with `accountedNodes` zeroed, when the registry drops the session: a request
        /// that looked the session up before then answers 404 and changes nothing.
        var removed = false

        // Durability (all unused in the memory-only mode, where `files` is nil).

        /// The session's files in the data directory; nil in the memory-only mode, and
        /// while a stored session is replayed.
        var files: SessionFiles?
        /// The order of each view's kept filtered rows as the files know it (the last
        /// snapshot, change or `views` entry; nil: the default view); a change of the order
        /// is journaled before the next change.
        var journaledFilters: [ViewID?: [FilterQuery]] = [:]
        /// Set when the session changed in a way its journal lacks (an entry that could not
        /// be written or made durable): the next entry is preceded by a fresh snapshot.
        var needsSnapshot = false
        /// The last use the files know of, on the wall clock.
        var recordedUse: Date
        /// The last use of each view (other than the default one) the files know of, on
        /// the wall clock.
        var recordedViewUse: [ViewID: Date] = [:]
        /// Set while the journal is replayed: what was accepted is accepted again,
        /// whatever the server's node budget.
        var replaying = false
        /// The generation of the event hub's followed rows the store observes.
        var observedGeneration = 0
    }

    /// A session made now, or (recovered from the data directory) made at `createdAt`
    /// and last used at `lastUsed`.
    /// - Parameters:
    ///   - linger: how long a view nobody follows keeps its events (`EventHub`).
    ///   - viewKey: the key its view ids are made with (`SessionCore.viewKey`); nil: a new one.
    init(id: String, store: TreeStore, clock: any ServiceClock, createdAt: Date? = nil, lastUsed: ContinuousClock.Instant? = nil,
         settings: SessionSettings = SessionSettings(), doublesPathBackslashes: Bool = false, viewKey: UInt64? = nil, linger: Duration) {
        self.id = id
        self.settings = Mutex(settings)
        self.doublesPathBackslashes = doublesPathBackslashes
        self.createdAt = createdAt ?? clock.wallNow
        events = EventHub(committer: committer, linger: linger)
        views = ViewUses(now: clock.now)
        let core = viewKey.map { SessionCore(store: store, viewKey: $0) } ?? SessionCore(store: store)
        state = ReadWriteLocked(State(core: core, accountedNodes: store.forest.count, recordedUse: clock.wallNow))
        lastUse = AtomicInstant(lastUsed ?? clock.now)
    }

    /// Session tokens minted before this time (milliseconds since 1970) are refused.
    var tokensValidAfter: Int64 { settings.withLock { $0.tokensValidAfter } }

    /// The idle time after which it expires (zero: never); nil: the server's `sessionTTL`,
    /// whatever it is when asked.
    var ttl: Duration? { settings.withLock { $0.ttl } }

    /// The instant of the last request.
    var lastUsed: ContinuousClock.Instant { lastUse.load() }

    /// Marks the session used at `now` (a reading taken earlier on another thread does not move it back).
    func touch(_ now: ContinuousClock.Instant) { lastUse.advance(to: now) }
}

/// A session's event streams opened with a session token, with that token: a revocation
/// (`tokensValidAfter`, or its key removed) ends them, and their clients, reconnecting, are
/// told why (401).
final class TokenStreams: Sendable {
    private let streams = Mutex<[ObjectIdentifier: (stream: HTTPPushStream, token: AccessToken)]>([:])

    func add(_ stream: HTTPPushStream, _ token: AccessToken) {
        let id = ObjectIdentifier(stream)
        streams.withLock { $0[id] = (stream, token) }
        stream.onEnd { [self] in streams.withLock { _ = $0.removeValue(forKey: id) } }
    }

    /// Ends the streams whose tokens were minted before `time` (milliseconds since 1970).
    func end(mintedBefore time: Int64) {
        end { $0.issued < time }
    }

    /// Ends the streams whose tokens were signed by none of `keys` (their ids).
    func end(signedByNoneOf keys: Set<String>) {
        end { !keys.contains($0.key ?? "") }
    }

    private func end(where revoked: (AccessToken) -> Bool) {
        let ended = streams.withLock { $0.values.filter { revoked($0.token) }.map(\.stream) }
        for stream in ended { stream.finish() }
    }
}
