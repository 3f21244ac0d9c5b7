/// Byte-level building blocks shared by the upload parser and `JSONValue.parse`:
/// whitespace, strings (escapes, UTF-8 validation), numbers, literals, and an iterative
/// validator that skips one value of any depth.
///
/// The scanner reads an `UnsafeRawBufferPointer` it does not own; it is valid only while
/// that buffer is. Every helper keeps `pos` on the first byte it has not consumed.
struct JSONScanner {
    let bytes: UnsafeRawBufferPointer
    let base: UnsafeRawPointer
    let end: Int
    var pos: Int = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        // An empty buffer may have no base address; `end == 0` keeps it from being read.
        self.base = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        self.end = bytes.count
    }

    // MARK: Bytes

    @inline(__always)
    func byte(_ index: Int) -> UInt8 {
        base.load(fromByteOffset: index, as: UInt8.self)
    }

    /// The byte at `pos`, or 0 at the end of input (0 never starts a JSON token).
    @inline(__always)
    var current: UInt8 {
        pos < end ? byte(pos) : 0
    }

    @inline(__always)
    var atEnd: Bool { pos >= end }

    /// The bytes `start..<stop` of the input, without copying.
    @inline(__always)
    func slice(_ start: Int, _ stop: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + start, count: stop - start)
    }

    /// Skips RFC 8259 whitespace: space, tab, CR, LF.
    @inline(__always)
    mutating func skipWhitespace() {
        while pos < end {
            switch byte(pos) {
            case 0x20, 0x0A, 0x0D, 0x09: pos &+= 1
            default: return
            }
        }
    }

    /// True when the input at `index` starts with `literal`.
    @inline(__always)
    func matches(_ literal: StaticString, at index: Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= end else { return false }
        let pointer = literal.utf8Start
        var offset = 0
        while offset < count {
            if byte(index &+ offset) != pointer[offset] { return false }
            offset &+= 1
        }
        return true
    }

    /// An error for an unexpected byte at `pos` (or the end of input), saying what was expected.
    func unexpected(_ expected: String) -> JSONScanError {
        if pos >= end {
            return .syntax("unexpected end of input, \(expected)", at: pos)
        }
        return .syntax("\(expected), found \(Self.describe(byte(pos)))", at: pos)
    }

    /// A short description of a byte for error messages: `'x'` or `byte 0xC3`.
    static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        switch byte {
        case 0x20: return "space"
        case 0x0A: return "line feed"
        case 0x0D: return "carriage return"
        case 0x09: return "tab"
        default: return "byte 0x\(hex2(byte))"
        }
    }

    static func hex2(_ byte: UInt8) -> String {
        let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }

    /// True for a byte that can start a JSON value.
    @inline(__always)
    static func startsValue(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "-"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            return true
        default:
            return false
        }
    }

    // MARK: Strings

    /// Where a string's content lies in the input.
    struct StringToken {
        /// First byte after the opening quote.
        var start: Int
        /// The closing quote.
        var end: Int
        /// The content holds at least one backslash escape, so it must be decoded.
        var hasEscapes: Bool
    }

    /// Eight-byte chunks: a nonzero result flags the bytes that end the fast scan
    /// (`"`, `\`, < 0x20, >= 0x80). The lowest flagged byte is always a true hit.
    @inline(__always)
    static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let control = (word &- ones &* 0x20) & ~word
        let quoteHit = (quote &- ones) & ~quote
        let backslashHit = (backslash &- ones) & ~backslash
        return (control | quoteHit | backslashHit | word) & highs
    }

    /// Scans a string whose opening quote is at `pos`, validating escapes, surrogate
    /// pairs, control characters and UTF-8. Leaves `pos` after the closing quote.
    ///
    /// - Complexity: O(length of the string).
    @inline(__always)
    mutating func scanString() throws(JSONScanError) -> StringToken {
        let open = pos
        var index = pos &+ 1
        var hasEscapes = false
        while true {
            while index &+ 8 <= end {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let hits = Self.specialBytes(word)
                if hits == 0 {
                    index &+= 8
                } else {
                    index &+= hits.trailingZeroBitCount >> 3
                    break
                }
            }
            guard index < end else {
                throw .syntax("unterminated string", at: open)
            }
            let c = byte(index)
            switch c {
            case UInt8(ascii: "\""):
                pos = index &+ 1
                return StringToken(start: open &+ 1, end: index, hasEscapes: hasEscapes)
            case UInt8(ascii: "\\"):
                hasEscapes = true
                index = try scanEscape(at: index, stringStart: open)
            case 0..<0x20:
                throw .syntax("control character U+00\(Self.hex2(c)) must be escaped in a string", at: index)
            case 0x80...:
                index = try validateUTF8Sequence(at: index, stringStart: open)
            default:
                index &+= 1
            }
        }
    }

    /// Validates the escape whose backslash is at `index`; returns the index after it.
    mutating func scanEscape(at index: Int, stringStart: Int) throws(JSONScanError) -> Int {
        guard index &+ 1 < end else { throw .syntax("unterminated string", at: stringStart) }
        switch byte(index &+ 1) {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
             UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return index &+ 2
        case UInt8(ascii: "u"):
            let unit = try hex4(at: index &+ 2, escapeAt: index)
            switch unit {
            case 0xD800...0xDBFF:
                guard index &+ 7 < end, byte(index &+ 6) == UInt8(ascii: "\\"), byte(index &+ 7) == UInt8(ascii: "u") else {
                    throw .syntax("unpaired high surrogate \\u\(Self.hex4String(unit)) in string", at: index)
                }
                let low = try hex4(at: index &+ 8, escapeAt: index &+ 6)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw .syntax("high surrogate \\u\(Self.hex4String(unit)) is not followed by a low surrogate", at: index)
                }
                return index &+ 12
            case 0xDC00...0xDFFF:
                throw .syntax("unpaired low surrogate \\u\(Self.hex4String(unit)) in string", at: index)
            default:
                return index &+ 6
            }
        default:
            if index &+ 1 < end, byte(index &+ 1) >= 0x80 {
                throw .syntax("invalid escape sequence in string", at: index)
            }
            throw .syntax("invalid escape sequence '\\\(Character(Unicode.Scalar(byte(index &+ 1))))' in string", at: index)
        }
    }

    static func hex4String(_ value: UInt16) -> String {
        hex2(UInt8(value >> 8)) + hex2(UInt8(value & 0xFF))
    }

    @inline(__always)
    static func hexValue(_ c: UInt8) -> UInt16? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt16(c &- UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt16(c &- UInt8(ascii: "a") &+ 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt16(c &- UInt8(ascii: "A") &+ 10)
        default: return nil
        }
    }

    /// Four hex digits at `index` (the `XXXX` of `\uXXXX`).
    func hex4(at index: Int, escapeAt: Int) throws(JSONScanError) -> UInt16 {
        var value: UInt16 = 0
        for offset in 0..<4 {
            guard index &+ offset < end, let digit = Self.hexValue(byte(index &+ offset)) else {
                throw .syntax("\\u must be followed by four hexadecimal digits", at: escapeAt)
            }
            value = value << 4 | digit
        }
        return value
    }

    /// Validates one multi-byte UTF-8 sequence whose lead byte (>= 0x80) is at `index`
    /// (`utf8SequenceEnd`). Returns the index after the sequence.
    @inline(__always)
    func validateUTF8Sequence(at index: Int, stringStart: Int) throws(JSONScanError) -> Int {
        if let next = utf8SequenceEnd(base, at: index, end: end) { return next }
        let lead = byte(index)
        guard (0xC2 ... 0xF4).contains(lead) else {
            throw .syntax("invalid UTF-8 byte 0x\(Self.hex2(lead)) in string", at: index)
        }
        let length = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        if index &+ length > end { throw .syntax("truncated UTF-8 sequence in string", at: index) }
        throw .syntax("invalid UTF-8 sequence in string", at: index)
    }

    /// Decodes the content of an already validated string into `output` (cleared first):
    /// escapes resolved, surrogate pairs combined, everything else copied.
    ///
    /// - Complexity: O(length of the string).
    func decode(_ token: StringToken, into output: inout [UInt8]) {
        output.removeAll(keepingCapacity: true)
        var index = token.start
        var runStart = index
        while index < token.end {
            guard byte(index) == UInt8(ascii: "\\") else {
                index &+= 1
                continue
            }
            if runStart < index {
                output.append(contentsOf: UnsafeRawBufferPointer(start: base + runStart, count: index - runStart))
            }
            let escaped = byte(index &+ 1)
            switch escaped {
            case UInt8(ascii: "b"): output.append(0x08); index &+= 2
            case UInt8(ascii: "f"): output.append(0x0C); index &+= 2
            case UInt8(ascii: "n"): output.append(0x0A); index &+= 2
            case UInt8(ascii: "r"): output.append(0x0D); index &+= 2
            case UInt8(ascii: "t"): output.append(0x09); index &+= 2
            case UInt8(ascii: "u"):
                var scalar = UInt32(unsafeHex4(at: index &+ 2))
                index &+= 6
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    let low = UInt32(unsafeHex4(at: index &+ 2))
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    index &+= 6
                }
                Self.appendUTF8(scalar, to: &output)
            default:  // " \ /
                output.append(escaped); index &+= 2
            }
            runStart = index
        }
        if runStart < token.end {
            output.append(contentsOf: UnsafeRawBufferPointer(start: base + runStart, count: token.end - runStart))
        }
    }

    /// A string's content as a Swift `String` (for keys and error messages).
    func string(_ token: StringToken, scratch: inout [UInt8]) -> String {
        if !token.hasEscapes {
            return String(decoding: slice(token.start, token.end), as: UTF8.self)
        }
        decode(token, into: &scratch)
        return String(decoding: scratch, as: UTF8.self)
    }

    /// Four hex digits already validated by `scanString`.
    @inline(__always)
    private func unsafeHex4(at index: Int) -> UInt16 {
        var value: UInt16 = 0
        for offset in 0..<4 {
            value = value << 4 | (Self.hexValue(byte(index &+ offset)) ?? 0)
        }
        return value
    }

    static func appendUTF8(_ scalar: UInt32, to output: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            output.append(UInt8(scalar))
        case 0x80..<0x800:
            output.append(UInt8(0xC0 | scalar >> 6))
            output.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            output.append(UInt8(0xE0 | scalar >> 12))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        default:
            output.append(UInt8(0xF0 | scalar >> 18))
            output.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    // MARK: Numbers and literals

    /// Where a number lies in the input.
    struct NumberToken {
        var start: Int
        var end: Int
        /// Written `-?[0-9]+`: no fraction, no exponent (the value of others may still
        /// be an integer: `integralValue`).
        var isInteger: Bool
    }

    /// Scans a number per the RFC 8259 grammar, `pos` on its first byte (`-` or a digit).
    ///
    /// - Complexity: O(length of the number).
    @inline(__always)
    mutating func scanNumber() throws(JSONScanError) -> NumberToken {
        let start = pos
        var index = pos
        if byte(index) == UInt8(ascii: "-") { index &+= 1 }
        guard index < end else { throw .syntax("unexpected end of input in number", at: index) }
        switch byte(index) {
        case UInt8(ascii: "0"):
            index &+= 1
            if index < end, case UInt8(ascii: "0")...UInt8(ascii: "9") = byte(index) {
                throw .syntax("leading zeros are not allowed in numbers", at: start)
            }
        case UInt8(ascii: "1")...UInt8(ascii: "9"):
            index &+= 1
            while index < end, case UInt8(ascii: "0")...UInt8(ascii: "9") = byte(index) { index &+= 1 }
        default:
            throw .syntax("expected a digit in number, found \(Self.describe(byte(index)))", at: index)
        }
        var isInteger = true
        if index < end, byte(index) == UInt8(ascii: ".") {
            isInteger = false
            index &+= 1
            guard index < end, case UInt8(ascii: "0")...UInt8(ascii: "9") = byte(index) else {
                throw .syntax("expected a digit after the decimal point", at: index)
            }
            while index < end, case UInt8(ascii: "0")...UInt8(ascii: "9") = byte(index) { index &+= 1 }
        }
        if index < end, byte(index) | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index &+= 1
            if index < end, byte(index) == UInt8(ascii: "+") || byte(index) == UInt8(ascii: "-") { index &+= 1 }
            guard index < end, case UInt8(ascii: "0")...UInt8(ascii: "9") = byte(index) else {
                throw .syntax("expected a digit in the exponent", at: index)
            }
            while index < end, case UInt8(ascii: "0")...UInt8(ascii: "9") = byte(index) { index &+= 1 }
        }
        pos = index
        return NumberToken(start: start, end: index, isInteger: isInteger)
    }

    /// The value of an integer token, or nil when it does not fit Int64.
    func int64(_ token: NumberToken) -> Int64? {
        var index = token.start
        let negative = byte(index) == UInt8(ascii: "-")
        if negative { index &+= 1 }
        if token.end &- index <= 18 {
            // At most 18 digits cannot overflow.
            var value: Int64 = 0
            while index < token.end {
                value = value &* 10 &+ Int64(byte(index) &- UInt8(ascii: "0"))
                index &+= 1
            }
            return negative ? -value : value
        }
        // Accumulate negatively so that Int64.min fits.
        var value: Int64 = 0
        while index < token.end {
            let digit = Int64(byte(index) &- UInt8(ascii: "0"))
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.subtractingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = next
            index &+= 1
        }
        if negative { return value }
        let (positive, overflow) = Int64(0).subtractingReportingOverflow(value)
        return overflow ? nil : positive
    }

    /// What an integer reading of a number token found.
    enum IntegralValue: Equatable {
        /// The number's value is this integer (`7`, `7.0`, `70e-1`, `-0.0`).
        case integer(Int64)
        /// The value has a nonzero fraction (`7.5`).
        case fractional
        /// The value is an integer outside the 64-bit range (`1e300`).
        case outOfRange
    }

    /// The value of any number token as an integer, when it is one: a number written
    /// with a fraction or an exponent counts by its value, so `2.0` and `2e0` are 2.
    /// Exact, decimal digit by digit (no floating point).
    ///
    /// - Complexity: O(length of the number).
    func integralValue(_ token: NumberToken) -> IntegralValue {
        if token.isInteger {
            return int64(token).map { .integer($0) } ?? .outOfRange
        }
        var index = token.start
        let negative = byte(index) == UInt8(ascii: "-")
        if negative { index &+= 1 }
        // The significant digits (integer part, then fraction) and where the fraction and exponent start.
        let digitsStart = index
        var fractionDigits = 0
        while index < token.end, case UInt8(ascii: "0")...UInt8(ascii: "9") = byte(index) { index &+= 1 }
        let integerEnd = index
        var fractionStart = index
        if index < token.end, byte(index) == UInt8(ascii: ".") {
            index &+= 1
            fractionStart = index
            while index < token.end, case UInt8(ascii: "0")...UInt8(ascii: "9") = byte(index) { index &+= 1 }
            fractionDigits = index &- fractionStart
        }
        // The exponent, saturated: anything past ±10^9 decides by its sign alone.
        var exponent = 0
        if index < token.end {
            index &+= 1  // e or E
            var exponentNegative = false
            if byte(index) == UInt8(ascii: "+") || byte(index) == UInt8(ascii: "-") {
                exponentNegative = byte(index) == UInt8(ascii: "-")
                index &+= 1
            }
            while index < token.end {
                if exponent < 1_000_000_000 { exponent = exponent &* 10 &+ Int(byte(index) &- UInt8(ascii: "0")) }
                index &+= 1
            }
            if exponentNegative { exponent = -exponent }
        }
        // digit(i) for i over the significant digits, skipping the decimal point.
        func digit(_ i: Int) -> Int64 {
            let at = i < integerEnd &- digitsStart ? digitsStart &+ i : fractionStart &+ (i &- (integerEnd &- digitsStart))
            return Int64(byte(at) &- UInt8(ascii: "0"))
        }
        let count = (integerEnd &- digitsStart) &+ fractionDigits
        var first = 0
        while first < count && digit(first) == 0 { first &+= 1 }
        if first == count { return .integer(0) }  // zero, whatever the exponent
        var last = count
        while digit(last &- 1) == 0 { last &-= 1 }
        // The value is digits[first ..< last] × 10^scale.
        let scale = exponent &- fractionDigits &+ (count &- last)
        if scale < 0 { return .fractional }
        if (last &- first) &+ scale > 19 { return .outOfRange }
        // Accumulate negatively so that Int64.min fits.
        var value: Int64 = 0
        for i in first ..< last &+ scale {
            let d = i < last ? digit(i) : 0
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.subtractingReportingOverflow(d)
            if overflow1 || overflow2 { return .outOfRange }
            value = next
        }
        if negative { return .integer(value) }
        let (positive, overflow) = Int64(0).subtractingReportingOverflow(value)
        return overflow ? .outOfRange : .integer(positive)
    }

    /// Scans `true`, `false` or `null` at `pos`.
    @inline(__always)
    mutating func scanLiteral(_ literal: StaticString) throws(JSONScanError) {
        guard matches(literal, at: pos) else {
            throw .syntax("invalid literal, expected '\(literal)'", at: pos)
        }
        pos &+= literal.utf8CodeUnitCount
    }

    /// Scans a boolean at `pos`; nil (and `pos` unchanged) when the value is not `true` or `false`.
    @inline(__always)
    mutating func scanBool() -> Bool? {
        if matches("true", at: pos) {
            pos &+= 4
            return true
        }
        if matches("false", at: pos) {
            pos &+= 5
            return false
        }
        return nil
    }

    // MARK: Skipping a value of any depth

    /// One open array or object while skipping a value; enough to name the path on error.
    struct ValueFrame {
        /// For an array: the index of the current element. For an object: the offset of
        /// the current member's key (its opening quote), or -1 while that key is being read.
        /// -1 also when the error is at a separator, naming the container itself.
        var position: Int
        var isObject: Bool
    }

    /// Validates one JSON value of any depth starting at `pos` (whitespace skipped),
    /// without building anything and without recursion. Leaves `pos` after the value.
    ///
    /// On error, `stack` holds the open containers from `stack.count` at entry upwards,
    /// so the caller can name the path with `path(of:from:)`.
    ///
    /// - Parameter maxDepth: how many arrays and objects may be open at once.
    /// - Complexity: O(size of the value); O(depth) extra memory in `stack`.
    mutating func skipValue(stack: inout ContiguousArray<ValueFrame>, maxDepth: Int) throws(JSONScanError) {
        let floor = stack.count
        value: while true {
            // A value starts at `pos`.
            switch current {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = byte(pos) == UInt8(ascii: "{")
                guard stack.count - floor < maxDepth else {
                    throw .rule("nesting is deeper than the maximum depth of \(maxDepth)", at: pos)
                }
                pos &+= 1
                skipWhitespace()
                if current == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    pos &+= 1
                    break
                }
                if isObject {
                    stack.append(ValueFrame(position: -1, isObject: true))
                    try scanMemberKey(stack: &stack)
                } else {
                    stack.append(ValueFrame(position: 0, isObject: false))
                }
                continue value
            case UInt8(ascii: "\""):
                _ = try scanString()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                _ = try scanNumber()
            case UInt8(ascii: "t"):
                try scanLiteral("true")
            case UInt8(ascii: "f"):
                try scanLiteral("false")
            case UInt8(ascii: "n"):
                try scanLiteral("null")
            default:
                throw unexpected("expected a value")
            }
            // After a complete value: close containers or move to the next element.
            while stack.count > floor {
                skipWhitespace()
                let top = stack.count &- 1
                switch current {
                case UInt8(ascii: ","):
                    pos &+= 1
                    skipWhitespace()
                    if stack[top].isObject {
                        stack[top].position = -1
                        try scanMemberKey(stack: &stack)
                    } else {
                        stack[top].position &+= 1
                    }
                    continue value
                case UInt8(ascii: "}") where stack[top].isObject,
                     UInt8(ascii: "]") where !stack[top].isObject:
                    pos &+= 1
                    stack.removeLast()
                default:
                    // A separator error names the container, not its last element.
                    stack[top].position = -1
                    throw unexpected(stack[top].isObject
                        ? "expected ',' or '}' after object member"
                        : "expected ',' or ']' after array element")
                }
            }
            return
        }
    }

    /// Reads `"key" :` in an object being skipped and records the key in the top frame.
    @inline(__always)
    private mutating func scanMemberKey(stack: inout ContiguousArray<ValueFrame>) throws(JSONScanError) {
        let key = try scanMemberName()
        stack[stack.count &- 1].position = key.start &- 1
        try scanNameSeparator()
    }

    /// Scans an object member's name, whose opening quote must be at `pos`.
    @inline(__always)
    mutating func scanMemberName() throws(JSONScanError) -> StringToken {
        guard current == UInt8(ascii: "\"") else {
            throw unexpected("expected a member name in double quotes")
        }
        return try scanString()
    }

    /// Reads the `:` after a member's name (whitespace around it skipped), leaving `pos` on
    /// the member's value.
    @inline(__always)
    mutating func scanNameSeparator() throws(JSONScanError) {
        skipWhitespace()
        guard current == UInt8(ascii: ":") else {
            throw unexpected("expected ':' after member name")
        }
        pos &+= 1
        skipWhitespace()
    }

    /// The JSON Pointer suffix naming where `stack[from...]` stands, e.g. `/a/3/b`.
    func path(of stack: ContiguousArray<ValueFrame>, from floor: Int) -> JSONPointer {
        var result = JSONPointer()
        var scratch: [UInt8] = []
        var index = floor
        while index < stack.count {
            let frame = stack[index]
            if frame.isObject {
                if frame.position >= 0 {
                    result.append(key: key(at: frame.position, scratch: &scratch))
                }
            } else if frame.position >= 0 {
                result.append(index: frame.position)
            }
            index += 1
        }
        return result
    }

    /// The decoded text of the (already validated) string whose opening quote is at `offset`.
    func key(at offset: Int, scratch: inout [UInt8]) -> String {
        var copy = self
        copy.pos = offset
        guard let token = try? copy.scanString() else { return "" }
        return copy.string(token, scratch: &scratch)
    }

    // MARK: Whole-document validation

    /// The first syntax error in `document` read as one JSON value, with its path, or
    /// nil when it is well-formed (or nests deeper than `maxDepth`, which is not a
    /// syntax error). Used after a rule error, so that malformed input is always
    /// reported as a syntax error whatever rule it also breaks.
    ///
    /// - Complexity: O(n) in the document size.
    static func firstSyntaxError(in document: UnsafeRawBufferPointer, maxDepth: Int) -> TreeInputError? {
        var scanner = JSONScanner(document)
        var stack = ContiguousArray<ValueFrame>()
        do throws(JSONScanError) {
            scanner.skipWhitespace()
            if scanner.atEnd { throw .syntax("empty document", at: scanner.pos) }
            try scanner.skipValue(stack: &stack, maxDepth: maxDepth)
            scanner.skipWhitespace()
            if !scanner.atEnd { throw scanner.unexpected("unexpected data after the document") }
            return nil
        } catch {
            guard error.kind == .syntax else { return nil }
            return TreeInputError(kind: .syntax, message: error.message, byteOffset: error.offset,
                                  path: scanner.path(of: stack, from: 0), in: document)
        }
    }
}
