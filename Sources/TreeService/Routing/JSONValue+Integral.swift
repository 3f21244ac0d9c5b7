import TreeEngine

extension JSONValue {
    /// The number's value when it is an integer that fits in `Int`, however it is written
    /// (`2`, `2.0`, `2e0`, `20e-1`, `-0.0`), read exactly rather than through a `Double`;
    /// nil for a fraction (`2.5`), a value out of range, or anything but a number.
    ///
    /// JSON Schema's `type: integer`, which `openapi.yaml` declares for these members, is
    /// satisfied by any number with a zero fractional part, and so is this.
    /// - Complexity: O(length of the number text)
    var integralValue: Int? {
        guard case .number(let text) = self else { return nil }
        return IntegralNumber.value(of: text.utf8)
    }
}

/// Reading a JSON number's text as an exact integer.
enum IntegralNumber {
    /// The value of a JSON number's text (RFC 8259 grammar) when it is an integer in
    /// `Int`'s range; nil otherwise.
    static func value(of text: some Collection<UInt8>) -> Int? {
        var bytes = text.makeIterator()
        var next = bytes.next()
        var negative = false
        if next == UInt8(ascii: "-") { negative = true; next = bytes.next() }
        // The significant digits, integer part then fraction, and the power of ten they are scaled by.
        var digits: [UInt8] = []
        var scale = 0
        var sawDigit = false
        while let b = next, b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") {
            digits.append(b - UInt8(ascii: "0")); sawDigit = true; next = bytes.next()
        }
        guard sawDigit else { return nil }
        if next == UInt8(ascii: ".") {
            next = bytes.next()
            var sawFractionDigit = false
            while let b = next, b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") {
                digits.append(b - UInt8(ascii: "0")); scale -= 1; sawFractionDigit = true; next = bytes.next()
            }
            guard sawFractionDigit else { return nil }
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            next = bytes.next()
            var exponentNegative = false
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { exponentNegative = next == UInt8(ascii: "-"); next = bytes.next() }
            // Saturates far beyond any exponent that could still give an `Int`.
            var exponent = 0
            var sawExponentDigit = false
            while let b = next, b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") {
                exponent = min(exponent * 10 + Int(b - UInt8(ascii: "0")), 1_000_000); sawExponentDigit = true; next = bytes.next()
            }
            guard sawExponentDigit else { return nil }
            scale += exponentNegative ? -exponent : exponent
        }
        guard next == nil else { return nil }
        // Leading zeros say nothing; trailing zeros move into the scale.
        let first = digits.firstIndex { $0 != 0 }
        guard let first else { return 0 }
        var significant = digits[first...]
        while significant.last == 0 { significant.removeLast(); scale += 1 }
        // A non-zero digit below the units, or more than 19 digits: no `Int`.
        guard scale >= 0, significant.count + scale <= 19 else { return nil }
        var magnitude: UInt64 = 0
        for d in significant { magnitude = magnitude * 10 + UInt64(d) }
        for _ in 0 ..< scale {
            let (product, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            magnitude = product
        }
        if negative {
            guard magnitude <= UInt64(Int.max) + 1 else { return nil }
            return magnitude == UInt64(Int.max) + 1 ? Int.min : -Int(magnitude)
        }
        guard magnitude <= UInt64(Int.max) else { return nil }
        return Int(magnitude)
    }
}
