#if canImport(Glibc)
import Glibc
#endif

/// Monotonic nanoseconds, the time base of connection deadlines.
enum MonotonicClock {
    @inline(__always)
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

extension UInt64 {
    /// `self - other`, or 0 when `other` is later (readings from different threads).
    @inline(__always)
    func saturatingSubtract(_ other: UInt64) -> UInt64 { self > other ? self - other : 0 }
}
