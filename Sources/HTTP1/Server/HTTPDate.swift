#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The `Date` header value (IMF-fixdate, RFC 9110 §5.6.7), formatted at most once a second.
enum HTTPDate {
    private static let cache = Mutex<(second: Int, bytes: [UInt8])>((-1, []))

    /// `"Sun, 06 Nov 1994 08:49:37 GMT"` as bytes. - Complexity: O(1); formats once a second.
    static func current() -> [UInt8] {
        var now = time(nil)
        return cache.withLock { c in
            if c.second == now { return c.bytes }
            c.second = now
            c.bytes = format(&now)
            return c.bytes
        }
    }

    static func format(_ t: inout time_t) -> [UInt8] {
        var tm = tm()
        gmtime_r(&t, &tm)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let s = "\(days[Int(tm.tm_wday)]), \(two(tm.tm_mday)) \(months[Int(tm.tm_mon)]) \(tm.tm_year + 1900) "
            + "\(two(tm.tm_hour)):\(two(tm.tm_min)):\(two(tm.tm_sec)) GMT"
        return Array(s.utf8)
    }
}
