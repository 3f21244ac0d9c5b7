import TreeEngine

/// Appends JSON text to a byte array, fast: pages of rows and whole-tree exports.
///
/// The writer does not check structure; the caller writes punctuation with `raw` and
/// values with the typed methods. Strings are escaped per RFC 8259 (`"`, `\`, and
/// control characters below U+0020; other UTF-8 is copied as is).
///
/// ```swift
/// var writer = JSONWriter(reservingCapacity: 1024)
/// writer.raw("{\"title\":")
/// writer.string("Documents")
/// writer.raw("}")
/// ```
public struct JSONWriter: Sendable {
    /// The JSON written so far.
    public var bytes: [UInt8]

    /// - Complexity: O(`capacity`).
    public init(reservingCapacity capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Writes a string value (quotes included) from UTF-8 bytes.
    ///
    /// - Complexity: O(length of `utf8`); runs without escapes are copied in bulk.
    public mutating func string(_ utf8: UnsafeRawBufferPointer) {
        bytes.append(UInt8(ascii: "\""))
        guard let base = utf8.baseAddress else {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        let count = utf8.count
        var runStart = 0
        var index = 0
        while index < count {
            // Eight bytes at a time while none needs escaping.
            while index &+ 8 <= count {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let hits = Self.escapeBytes(word)
                if hits == 0 {
                    index &+= 8
                } else {
                    index &+= hits.trailingZeroBitCount >> 3
                    break
                }
            }
            guard index < count else { break }
            let c = base.load(fromByteOffset: index, as: UInt8.self)
            guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") else {
                index &+= 1
                continue
            }
            if runStart < index {
                append(base + runStart, index - runStart)
            }
            appendEscape(c)
            index &+= 1
            runStart = index
        }
        if runStart < count {
            append(base + runStart, count - runStart)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes a string value (quotes included).
    ///
    /// - Complexity: O(length of `text` in UTF-8).
    public mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { string(UnsafeRawBufferPointer($0)) }
    }

    /// Writes an integer in decimal.
    ///
    /// - Complexity: O(1).
    public mutating func int(_ value: Int) {
        int64(Int64(value))
    }

    /// Writes a 64-bit integer in decimal.
    ///
    /// - Complexity: O(1).
    public mutating func int64(_ value: Int64) {
        value.withDecimalText { bytes.append(contentsOf: $0) }
    }

    /// Writes a number: a whole one below 2^53 in decimal digits, any other finite one in
    /// Swift's shortest form that reads back to it (`1.5`, `1e+300`); `null` when not finite.
    ///
    /// - Complexity: O(1).
    public mutating func double(_ value: Double) {
        guard value.isFinite else { return null() }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return int64(Int64(value)) }
        bytes.append(contentsOf: value.description.utf8)
    }

    /// Writes `true` or `false`.
    ///
    /// - Complexity: O(1).
    public mutating func bool(_ flag: Bool) {
        raw(flag ? "true" : "false")
    }

    /// Writes `null`.
    ///
    /// - Complexity: O(1).
    public mutating func null() {
        raw("null")
    }

    /// Writes fixed text as is: punctuation and constant fragments such as `{"id":`.
    ///
    /// - Complexity: O(length of `text`).
    @inline(__always)
    public mutating func raw(_ text: StaticString) {
        guard text.hasPointerRepresentation else {
            text.withUTF8Buffer { bytes.append(contentsOf: $0) }
            return
        }
        if text.utf8CodeUnitCount == 1 {
            bytes.append(text.utf8Start.pointee)
        } else {
            append(UnsafeRawPointer(text.utf8Start), text.utf8CodeUnitCount)
        }
    }

    /// Writes bytes as is, e.g. a node's `data`, already valid JSON.
    ///
    /// - Complexity: O(`rawJSON.count`).
    public mutating func raw(_ rawJSON: UnsafeRawBufferPointer) {
        guard let base = rawJSON.baseAddress else { return }
        append(base, rawJSON.count)
    }

    /// Writes bytes as is.
    ///
    /// - Complexity: O(`rawJSON.count`).
    public mutating func raw(_ rawJSON: [UInt8]) {
        bytes.append(contentsOf: rawJSON)
    }

    /// Writes one byte as is (`,`, `:`, a bracket).
    ///
    /// - Complexity: amortized O(1).
    @inline(__always)
    public mutating func byte(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Writes a `JSONValue` compactly. Recursive in the value's depth, which
    /// `JSONValue.parse` bounds.
    ///
    /// - Complexity: O(size of the output).
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null:
            null()
        case .bool(let flag):
            bool(flag)
        case .number(let text):
            var text = text
            text.withUTF8 { raw(UnsafeRawBufferPointer($0)) }
        case .string(let text):
            string(text)
        case .array(let elements):
            byte(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { byte(UInt8(ascii: ",")) }
                self.value(element)
            }
            byte(UInt8(ascii: "]"))
        case .object(let members):
            byte(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { byte(UInt8(ascii: ",")) }
                string(member.key)
                byte(UInt8(ascii: ":"))
                self.value(member.value)
            }
            byte(UInt8(ascii: "}"))
        }
    }

    // MARK: Internals

    @inline(__always)
    private mutating func append(_ start: UnsafeRawPointer, _ count: Int) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count))
    }

    /// Flags (high bit of each byte) the bytes of `word` that need escaping: `"`, `\`,
    /// and those below 0x20. The lowest flagged byte is always a true hit.
    @inline(__always)
    private static func escapeBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let control = (word &- ones &* 0x20)
        let quoteHit = (quote &- ones) & ~quote
        let backslashHit = (backslash &- ones) & ~backslash
        return (control | quoteHit | backslashHit) & ~word & highs
    }

    private static let hexDigits: StaticString = "0123456789abcdef"

    private mutating func appendEscape(_ c: UInt8) {
        switch c {
        case UInt8(ascii: "\""): raw("\\\"")
        case UInt8(ascii: "\\"): raw("\\\\")
        case 0x0A: raw("\\n")
        case 0x0D: raw("\\r")
        case 0x09: raw("\\t")
        case 0x08: raw("\\b")
        case 0x0C: raw("\\f")
        default:
            raw("\\u00")
            bytes.append(Self.hexDigits.utf8Start[Int(c >> 4)])
            bytes.append(Self.hexDigits.utf8Start[Int(c & 0xF)])
        }
    }
}
