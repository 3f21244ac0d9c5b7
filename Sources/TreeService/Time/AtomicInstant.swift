import Synchronization

/// An instant on the service's clock that many threads read and move without a lock (a
/// session's last use is marked by every request, readers included). Held as whole
/// nanoseconds after a fixed origin, since atomics hold integers; read and written only
/// as instants.
struct AtomicInstant: ~Copyable, Sendable {
    private let origin: ContinuousClock.Instant
    private let nanoseconds = Atomic<Int64>(0)

    init(_ instant: ContinuousClock.Instant) { origin = instant }

    /// The instant.
    func load() -> ContinuousClock.Instant { origin.advanced(by: .nanoseconds(nanoseconds.load(ordering: .relaxed))) }

    /// Moves the instant forward to `instant`; never back (a reading taken a little
    /// earlier on another thread may arrive later).
    func advance(to instant: ContinuousClock.Instant) {
        let target = offset(of: instant)
        var current = nanoseconds.load(ordering: .relaxed)
        while target > current {
            let (exchanged, original) = nanoseconds.compareExchange(expected: current, desired: target, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// Moves the instant to `now` when it is at least `interval` before it: true for the
    /// one caller that moved it, so a periodic task runs once per interval.
    func advance(to now: ContinuousClock.Instant, ifOlderThan interval: Duration) -> Bool {
        let current = nanoseconds.load(ordering: .relaxed)
        guard origin.advanced(by: .nanoseconds(current)).duration(to: now) >= interval else { return false }
        return nanoseconds.compareExchange(expected: current, desired: offset(of: now), ordering: .relaxed).exchanged
    }

    private func offset(of instant: ContinuousClock.Instant) -> Int64 {
        let span = origin.duration(to: instant).components
        return span.seconds * 1_000_000_000 + span.attoseconds / 1_000_000_000
    }
}
