/// Times as the API writes and reads them (RFC 3339 §5.6), in whole milliseconds since 1970 UTC:
/// written `2026-12-06T10:00:00.000Z`; read with `T` and `Z` in either case, any fraction of
/// a second (cut to the millisecond) and a `Z` or an offset. Dates are of the proleptic
/// Gregorian calendar, years 1970 to 9999.
enum RFC3339 {
    static func format(milliseconds ms: Int64) -> String {
        let days = ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000
        let inDay = ms - days * 86_400_000
        let (year, month, day) = civil(days)
        func pad(_ n: Int64, _ width: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(inDay / 3_600_000, 2)):\(pad(inDay / 60000 % 60, 2)):"
            + "\(pad(inDay / 1000 % 60, 2)).\(pad(inDay % 1000, 3))Z"
    }

    /// The time `text` names, nil when it is not an RFC 3339 `date-time` of an existing day
    /// (and second: no leap second) from 1970 on.
    static func parse(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        var i = 0
        func digits(_ n: Int) -> Int64? {
            guard i + n <= b.count else { return nil }
            var value: Int64 = 0
            for c in b[i ..< i + n] {
                guard c >= 0x30 && c <= 0x39 else { return nil }
                value = value * 10 + Int64(c - 0x30)
            }
            i += n
            return value
        }
        func take(_ c: UInt8, _ other: UInt8? = nil) -> Bool {
            guard i < b.count, b[i] == c || b[i] == other else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), take(0x2d), let month = digits(2), take(0x2d), let day = digits(2), take(0x54, 0x74),
              let hour = digits(2), take(0x3a), let minute = digits(2), take(0x3a), let second = digits(2),
              year >= 1970, (1 ... 12).contains(month), day >= 1, day <= daysIn(month, year), hour < 24, minute < 60, second < 60 else { return nil }
        var millis: Int64 = 0
        if take(0x2e) {
            let start = i
            while i < b.count, b[i] >= 0x30 && b[i] <= 0x39 {
                if i - start < 3 { millis = millis * 10 + Int64(b[i] - 0x30) }
                i += 1
            }
            guard i > start else { return nil }
            for _ in min(3, i - start) ..< 3 { millis *= 10 }
        }
        var offset: Int64 = 0
        if !take(0x5a, 0x7a) {
            guard i < b.count, b[i] == 0x2b || b[i] == 0x2d else { return nil }
            let sign: Int64 = b[i] == 0x2d ? -1 : 1
            i += 1
            guard let h = digits(2), take(0x3a), let m = digits(2), h < 24, m < 60 else { return nil }
            offset = sign * (h * 60 + m) * 60_000
        }
        guard i == b.count else { return nil }
        let time = ((days(year, month, day) * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis - offset
        return time >= 0 ? time : nil
    }

    private static func daysIn(_ month: Int64, _ year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a date (H. Hinnant's `days_from_civil`).
    private static func days(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date `days` after 1970-01-01 (`civil_from_days`).
    private static func civil(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
