/// A faster test for the common case of `TitleMatcher.matches`: a plain query
/// (`contains`, `prefix` or `exact`, every other option at its default) against a title of
/// at most 64 bytes, eight bytes at a time.
///
/// Case-sensitive, it compares the title's bytes as they are (as `TitleMatcher.find`
/// does); case-insensitive, it answers only for ASCII titles, lowered eight bytes at a time
/// exactly as `TitleMatcher.lowerASCII` lowers one, and leaves other titles to the
/// matcher (nil). For `contains`, the candidates are the start positions where both the
/// needle's first and last byte fit (eight at a time), each then compared word by word.
struct ASCIIKernel: Sendable {
    static let maximumLength = 64

    let caseSensitive: Bool
    let mode: FilterQuery.Mode
    /// The needle's length in bytes, and its bytes as little-endian words, zero-padded.
    let length: Int
    let needle: [UInt64]
    let first: UInt64, last: UInt64

    /// The kernel for `matcher`, or nil when its query is not a plain one.
    init?(_ matcher: TitleMatcher) {
        let query = matcher.query
        guard !query.text.isEmpty else { return nil }
        let plain = FilterQuery(query.text, mode: query.mode, caseSensitive: query.caseSensitive, fields: query.fields,
                                conditions: query.conditions)
        guard plain == query, query.mode == .contains || query.mode == .prefix || query.mode == .exact else { return nil }
        let bytes = matcher.needle
        guard !bytes.isEmpty, bytes.count <= ASCIIKernel.maximumLength else { return nil }
        caseSensitive = query.caseSensitive
        mode = query.mode
        length = bytes.count
        var words = [UInt64](repeating: 0, count: (bytes.count + 7) / 8)
        for (i, b) in bytes.enumerated() { words[i >> 3] |= UInt64(b) << UInt64((i & 7) * 8) }
        needle = words
        first = UInt64(bytes[0]) &* ASCIIKernel.ones
        last = UInt64(bytes[bytes.count - 1]) &* ASCIIKernel.ones
    }

    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highs: UInt64 = 0x8080_8080_8080_8080
    static let lows: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

    /// 0x80 in each byte of `v` that is zero, 0 elsewhere.
    @inline(__always)
    static func zeroBytes(_ v: UInt64) -> UInt64 { ~(((v & lows) &+ lows) | v | lows) }

    /// Lowers the ASCII capitals of eight bytes that are all below 0x80.
    @inline(__always)
    static func lowered(_ w: UInt64) -> UInt64 {
        let atLeastA = w &+ 0x3F3F_3F3F_3F3F_3F3F  // high bit: byte ≥ "A"
        let pastZ = w &+ 0x2525_2525_2525_2525     // high bit: byte > "Z"
        return w | ((atLeastA & ~pastZ) & highs) >> 2
    }

    /// Whether the title of `length` bytes at `start` in `pool` matches, or nil when the
    /// matcher must decide: a title longer than 64 bytes, one that ends less than eight
    /// bytes before the pool's end (the words read run past the title, never past the
    /// pool), a non-ASCII one when case-insensitive.
    @inline(__always)
    func matches(_ pool: UnsafeRawBufferPointer, start: Int, length h: Int, needle: UnsafePointer<UInt64>) -> Bool? {
        let n = length
        if h > ASCIIKernel.maximumLength || start + h + 8 > pool.count { return nil }
        let src = pool.baseAddress! + start
        @inline(__always) func load(_ i: Int) -> UInt64 {
            let w = src.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            return caseSensitive ? w : ASCIIKernel.lowered(w)
        }
        if !caseSensitive {
            var high: UInt64 = 0
            var i = 0
            while i + 8 <= h { high |= src.loadUnaligned(fromByteOffset: i, as: UInt64.self); i += 8 }
            if i < h { high |= src.loadUnaligned(fromByteOffset: i, as: UInt64.self) & ((1 << UInt64((h - i) * 8)) &- 1) }
            if high & ASCIIKernel.highs != 0 { return nil }
        }
        if n > h || (mode == .exact && n != h) { return false }
        let nw = (n + 7) >> 3
        let tailMask: UInt64 = n & 7 == 0 ? ~0 : (1 << UInt64((n & 7) * 8)) &- 1
        @inline(__always) func equal(at i: Int) -> Bool {
            var j = 0
            while j < nw - 1 {
                if load(i + j * 8) != needle[j] { return false }
                j += 1
            }
            return (load(i + j * 8) ^ needle[j]) & tailMask == 0
        }
        if mode != .contains { return equal(at: 0) }
        let lastStart = h - n
        var b = 0
        while b <= lastStart {
            let x = load(b) ^ first
            let y = load(b + n - 1) ^ last
            var candidates = ASCIIKernel.zeroBytes(x | y)
            let starts = lastStart - b + 1
            if starts < 8 { candidates &= (1 << UInt64(starts * 8)) &- 1 }
            while candidates != 0 {
                if equal(at: b + candidates.trailingZeroBitCount >> 3) { return true }
                candidates &= candidates &- 1
            }
            b += 8
        }
        return false
    }
}
