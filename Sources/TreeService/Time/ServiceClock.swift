import Foundation

/// The service's one notion of time. Every instant it compares (a session's last use and
/// so its expiry, the start of a request) is read from one monotonic clock,
/// `ContinuousClock` (it keeps counting while the machine sleeps, so an idle session
/// still expires), and spans between them are `Duration`s. The wall clock is read only
/// for the timestamps the API shows (`createdAt`, `expiresAt`).
///
/// Injected, so that expiry can be tested without waiting.
public protocol ServiceClock: Sendable {
    /// Now, on the monotonic clock.
    var now: ContinuousClock.Instant { get }
    /// Now, on the wall clock.
    var wallNow: Date { get }
}

extension ServiceClock {
    /// The wall-clock time of a monotonic instant (past or future), for a timestamp the API shows.
    func wallTime(of instant: ContinuousClock.Instant) -> Date {
        wallNow.advanced(by: now.duration(to: instant))
    }
}

/// The machine's clocks.
public struct SystemClock: ServiceClock {
    public init() {}
    public var now: ContinuousClock.Instant { ContinuousClock.now }
    public var wallNow: Date { Date() }
}

extension Date {
    /// This time moved by `span`: the one place a `Duration` meets Foundation's seconds.
    func advanced(by span: Duration) -> Date {
        addingTimeInterval(span.seconds)
    }
}

extension Duration {
    /// The span in seconds, for output that wants seconds (Prometheus, `Date`).
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// The span in whole microseconds, rounded down (an atomic counter holds integers).
    var wholeMicroseconds: Int { Int(components.seconds) * 1_000_000 + Int(components.attoseconds / 1_000_000_000_000) }
}
