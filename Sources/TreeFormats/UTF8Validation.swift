/// Validates one multi-byte UTF-8 sequence whose lead byte (>= 0x80) is at `index`
/// (Unicode Table 3-7: no overlongs, no surrogates, nothing above U+10FFFF).
/// - Returns: the index after it, or nil when it is invalid.
@inline(__always)
func utf8SequenceEnd(_ base: UnsafeRawPointer, at index: Int, end: Int) -> Int? {
    let lead = base.load(fromByteOffset: index, as: UInt8.self)
    let length: Int
    var low: UInt8 = 0x80
    var high: UInt8 = 0xBF
    switch lead {
    case 0xC2...0xDF: length = 2
    case 0xE0: length = 3; low = 0xA0
    case 0xE1...0xEC, 0xEE, 0xEF: length = 3
    case 0xED: length = 3; high = 0x9F
    case 0xF0: length = 4; low = 0x90
    case 0xF1...0xF3: length = 4
    case 0xF4: length = 4; high = 0x8F
    default: return nil
    }
    guard index &+ length <= end else { return nil }
    let second = base.load(fromByteOffset: index &+ 1, as: UInt8.self)
    guard second >= low && second <= high else { return nil }
    var offset = 2
    while offset < length {
        guard base.load(fromByteOffset: index &+ offset, as: UInt8.self) & 0xC0 == 0x80 else { return nil }
        offset &+= 1
    }
    return index &+ length
}

/// The error for invalid UTF-8 at `index`.
func invalidUTF8<E: ReaderError>(_ base: UnsafeRawPointer, at index: Int) -> E {
    .syntax("invalid UTF-8 (byte 0x\(JSONScanner.hex2(base.load(fromByteOffset: index, as: UInt8.self))))", at: index)
}
