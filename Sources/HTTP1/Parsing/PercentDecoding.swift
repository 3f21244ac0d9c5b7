/// Percent-decoding of path segments and query parts (RFC 3986 §2.1), done once.
///
/// Rejects a `%` not followed by two hex digits, `%00`, and decoded bytes that are not
/// valid UTF-8; callers answer 400. The fast path (no `%`, no `+`) copies the bytes
/// straight into a `String`.
enum PercentDecoding {
    /// - Complexity: O(n)
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, plusAsSpace: Bool) -> String? {
        var needsWork = false
        for b in bytes where b == UInt8(ascii: "%") || (plusAsSpace && b == UInt8(ascii: "+")) {
            needsWork = true
            break
        }
        if !needsWork {
            // The target was validated to be ASCII, so these bytes are valid UTF-8.
            return String(decoding: bytes, as: UTF8.self)
        }
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b == UInt8(ascii: "%") {
                guard i + 2 < n, let hi = ByteClass.hexValue(bytes[i + 1]), let lo = ByteClass.hexValue(bytes[i + 2])
                else { return nil }
                let value = hi << 4 | lo
                if value == 0 { return nil }
                out.append(value)
                i += 3
            } else if plusAsSpace && b == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
                i += 1
            } else {
                out.append(b)
                i += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    static func decode(_ bytes: [UInt8], plusAsSpace: Bool) -> String? {
        bytes.withUnsafeBufferPointer { decode($0, plusAsSpace: plusAsSpace) }
    }
}
