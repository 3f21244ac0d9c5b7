#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// A reading of the monotonic clock (`CLOCK_MONOTONIC`): the one time base of connection
/// deadlines. Spans between instants, and every timeout, are `Duration`s.
///
/// Readings taken on different threads may be slightly out of order, so the span from a
/// later instant to an earlier one is zero rather than negative (or a wrapped-around
/// "ages"). - Complexity: O(1) throughout.
struct MonotonicInstant: Comparable, Hashable, Sendable {
    /// Nanoseconds since the clock's (arbitrary) origin.
    let nanoseconds: UInt64

    init(nanoseconds: UInt64) {
        self.nanoseconds = nanoseconds
    }

    @inline(__always)
    static func now() -> MonotonicInstant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MonotonicInstant(nanoseconds: UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec))
    }

    /// The span from `earlier` to this instant; zero when `earlier` is in fact later.
    @inline(__always)
    func duration(since earlier: MonotonicInstant) -> Duration {
        nanoseconds > earlier.nanoseconds ? .nanoseconds(nanoseconds - earlier.nanoseconds) : .zero
    }

    static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    /// The instant `span` later (earlier for a negative span), clamped to the clock's range.
    static func + (instant: MonotonicInstant, span: Duration) -> MonotonicInstant {
        let (result, overflow) = Int64(clamping: instant.nanoseconds).addingReportingOverflow(span.wholeNanoseconds)
        return MonotonicInstant(nanoseconds: UInt64(clamping: overflow ? (span > .zero ? Int64.max : 0) : result))
    }

    static func - (instant: MonotonicInstant, span: Duration) -> MonotonicInstant {
        instant + (.zero - span)
    }

    /// The same instant as a Dispatch deadline (for a semaphore wait): Dispatch's uptime
    /// clock on Linux is `CLOCK_MONOTONIC` too.
    var dispatchTime: DispatchTime { DispatchTime(uptimeNanoseconds: max(1, nanoseconds)) }
}

extension Duration {
    /// The span in whole nanoseconds (rounded toward zero), clamped to `Int64`.
    var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds > 0 ? .max : .min }
        let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflow2 ? (seconds > 0 ? .max : .min) : sum
    }

    /// The span in whole milliseconds, rounded up, clamped to `Int32` (for `epoll_wait`).
    var epollMilliseconds: Int32 {
        let ns = wholeNanoseconds
        guard ns > 0 else { return 0 }
        return Int32(clamping: ns / 1_000_000 + (ns % 1_000_000 == 0 ? 0 : 1))
    }
}
