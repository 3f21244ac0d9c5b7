/// Byte classes of RFC 9110/9112 and RFC 3986, as `switch`es the compiler turns into
/// range checks: no tables to initialise, nothing to bounds-check.
enum ByteClass {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let sp: UInt8 = 0x20
    static let htab: UInt8 = 0x09

    /// `tchar` (RFC 9110 §5.6.2): the characters of a token (method, field name).
    @inline(__always)
    static func isTokenChar(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"),
            UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// A byte allowed in a field value: VCHAR, SP, HTAB and obs-text (RFC 9110 §5.5).
    @inline(__always)
    static func isFieldValueChar(_ c: UInt8) -> Bool {
        c == htab || (c >= 0x20 && c != 0x7F)
    }

    /// A byte allowed in a request-target: RFC 3986 `unreserved`, `sub-delims`, `:`, `@`,
    /// `/`, `?` and `%` (for pct-encoded). Excludes SP, CTLs, `"<>\^{|}#` and non-ASCII.
    @inline(__always)
    static func isTargetChar(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
            UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"),
            UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "%"):
            return true
        default:
            return false
        }
    }

    /// A byte allowed in a Host value: reg-name, IP-literal brackets, port.
    @inline(__always)
    static func isHostChar(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "@"):
            return false
        case UInt8(ascii: "["), UInt8(ascii: "]"):
            return true
        default:
            return isTargetChar(c)
        }
    }

    @inline(__always)
    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c &- UInt8(ascii: "A") &+ 10
        default: return nil
        }
    }

    @inline(__always)
    static func lower(_ c: UInt8) -> UInt8 {
        (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z")) ? c | 0x20 : c
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether `self[range]` equals the lowercase ASCII `literal`, ignoring case.
    @inline(__always)
    func equalsLowercase(_ range: Range<Int>, _ literal: StaticString) -> Bool {
        guard range.count == literal.utf8CodeUnitCount else { return false }
        let l = literal.utf8Start
        var i = 0
        for index in range {
            if ByteClass.lower(self[index]) != l[i] { return false }
            i += 1
        }
        return true
    }

    /// `range` without leading and trailing SP / HTAB (OWS).
    @inline(__always)
    func trimmingOWS(_ range: Range<Int>) -> Range<Int> {
        var lo = range.lowerBound, hi = range.upperBound
        while lo < hi, self[lo] == ByteClass.sp || self[lo] == ByteClass.htab { lo += 1 }
        while hi > lo, self[hi - 1] == ByteClass.sp || self[hi - 1] == ByteClass.htab { hi -= 1 }
        return lo..<hi
    }

    /// Splits `range` on commas into OWS-trimmed elements, skipping empty ones
    /// (RFC 9110 §5.6.1 list syntax).
    func listElements(_ range: Range<Int>) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start = range.lowerBound
        for index in range where self[index] == UInt8(ascii: ",") {
            let element = trimmingOWS(start..<index)
            if !element.isEmpty { result.append(element) }
            start = index + 1
        }
        let last = trimmingOWS(start..<range.upperBound)
        if !last.isEmpty { result.append(last) }
        return result
    }

    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: self[range]), as: UTF8.self)
    }
}
