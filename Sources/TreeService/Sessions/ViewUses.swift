import Synchronization
import TreeEngine

/// The views of one session as requests see them before they take its lock: which exist,
/// when each was last used (readers mark it too, so it has a lock of its own), and the
/// newest filter ticket of each. The session's `SessionCore` is what decides; this table
/// follows it (a view is added and removed here under the session's exclusive lock, as it
/// is made and dropped there).
final class ViewUses: Sendable {
    private struct Use {
        var lastUse: ContinuousClock.Instant
    }
    private let table = Mutex<[ViewID: Use]>([:])
    /// When the session's views were last checked for expiry.
    private let lastSweep: AtomicInstant

    init(now: ContinuousClock.Instant) { lastSweep = AtomicInstant(now) }

    /// The number of views (the default one not counted).
    var count: Int { table.withLock { $0.count } }

    /// A view made at `now`.
    func add(_ view: ViewID, now: ContinuousClock.Instant) { table.withLock { $0[view] = Use(lastUse: now) } }

    /// A view dropped.
    func remove(_ view: ViewID) { table.withLock { $0[view] = nil } }

    /// When `view` was last used; nil when there is no such view.
    func lastUse(of view: ViewID) -> ContinuousClock.Instant? { table.withLock { $0[view]?.lastUse } }

    /// Every view's last use.
    /// - Complexity: O(views)
    var lastUses: [ViewID: ContinuousClock.Instant] { table.withLock { $0.mapValues(\.lastUse) } }

    /// Marks `view` used at `now` (never back in time); false when there is no such view.
    @discardableResult
    func touch(_ view: ViewID, now: ContinuousClock.Instant) -> Bool {
        table.withLock { t in
            guard t[view] != nil else { return false }
            t[view]!.lastUse = max(t[view]!.lastUse, now)
            return true
        }
    }

    /// Whether `view`, last used at `lastUse`, has expired by `now`: idle for longer than
    /// `ttl` (zero: never) with no stream open on it.
    static func isExpired(lastUse: ContinuousClock.Instant, now: ContinuousClock.Instant, ttl: Duration, streaming: Bool) -> Bool {
        ttl != .zero && !streaming && lastUse.duration(to: now) > ttl
    }

    /// The views that have expired by `now`, at most every 10 s (`force`: now); `streaming`
    /// tells whether a stream keeps a view alive.
    /// - Complexity: O(views)
    func expired(now: ContinuousClock.Instant, ttl: Duration, force: Bool = false, streaming: (ViewID) -> Bool) -> [ViewID] {
        guard ttl != .zero, force || lastSweep.advance(to: now, ifOlderThan: .seconds(10)) else { return [] }
        let idle = table.withLock { t in t.compactMap { $0.value.lastUse.duration(to: now) > ttl ? $0.key : nil } }
        return idle.filter { !streaming($0) }
    }
}
