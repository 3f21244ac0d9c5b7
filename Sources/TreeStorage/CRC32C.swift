/// CRC-32C (Castagnoli): the reflected polynomial 0x82F63B78, initial value and final
/// XOR 0xFFFFFFFF, as iSCSI (RFC 3720), ext4 and SSE 4.2's `crc32` use it. Computed
/// eight bytes at a time with eight tables ("slicing-by-8").
public struct CRC32C: Sendable, Equatable {
    /// The running remainder (before the final XOR).
    private var state: UInt32 = 0xFFFF_FFFF

    /// A checksum of no bytes yet.
    public init() {}

    /// The checksum of the bytes so far.
    public var value: UInt32 { ~state }

    /// The checksum of `bytes`.
    /// - Complexity: O(bytes)
    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32C()
        crc.update(bytes)
        return crc.value
    }

    /// The checksum of a collection of bytes.
    public static func checksum<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var crc = CRC32C()
        crc.update(bytes)
        return crc.value
    }

    /// Adds a collection of bytes.
    public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if let done: Void = bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) { return done }
        let copy = ContiguousArray(bytes)
        copy.withUnsafeBytes { update($0) }
    }

    /// Adds `bytes`.
    /// - Complexity: O(bytes)
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        let n = bytes.count
        guard n > 0 else { return }
        var crc = state
        CRC32C.tables.withUnsafeBufferPointer { t in
            var i = 0
            while n - i >= 8 {
                let lo = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt32.self)) ^ crc
                let hi = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: i + 4, as: UInt32.self))
                crc = t[7 << 8 | Int(lo & 0xFF)] ^ t[6 << 8 | Int((lo >> 8) & 0xFF)]
                    ^ t[5 << 8 | Int((lo >> 16) & 0xFF)] ^ t[4 << 8 | Int(lo >> 24)]
                    ^ t[3 << 8 | Int(hi & 0xFF)] ^ t[2 << 8 | Int((hi >> 8) & 0xFF)]
                    ^ t[1 << 8 | Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
                i += 8
            }
            while i < n {
                crc = t[Int((crc ^ UInt32(bytes[i])) & 0xFF)] ^ (crc >> 8)
                i += 1
            }
        }
        state = crc
    }

    /// Table k (entries k·256 ..< (k+1)·256) holds the remainder of a byte followed by k zero bytes.
    static let tables: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 8 * 256)
        for b in 0 ..< 256 {
            var c = UInt32(b)
            for _ in 0 ..< 8 { c = c & 1 != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
            t[b] = c
        }
        for k in 1 ..< 8 {
            for b in 0 ..< 256 {
                let prev = t[(k - 1) << 8 | b]
                t[k << 8 | b] = (prev >> 8) ^ t[Int(prev & 0xFF)]
            }
        }
        return t
    }()
}
