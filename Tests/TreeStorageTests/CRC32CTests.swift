import Testing
import TreeStorage

/// Known answers of CRC-32C: RFC 3720 (iSCSI), appendix B.4, and the usual check value.
@Suite struct CRC32CTests {
    @Test func rfc3720Vectors() {
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum((0 ..< 32).map { UInt8($0) }) == 0x46DD_794E)
        #expect(CRC32C.checksum((0 ..< 32).map { UInt8(31 - $0) }) == 0x113F_DB5C)
    }

    @Test func checkValue() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8]()) == 0)
    }

    /// Eight bytes at a time and the byte-wise tail agree with a bit-by-bit reference,
    /// at every length and split point.
    @Test func slicingMatchesBitwise() {
        func bitwise(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for b in bytes {
                crc ^= UInt32(b)
                for _ in 0 ..< 8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            }
            return ~crc
        }
        var state: UInt64 = 12345
        let bytes: [UInt8] = (0 ..< 100).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        for length in 0 ... bytes.count {
            let prefix = Array(bytes[0 ..< length])
            let want = bitwise(prefix)
            #expect(CRC32C.checksum(prefix) == want, "length \(length)")
            let split = length / 3
            var crc = CRC32C()
            crc.update(prefix[0 ..< split])
            crc.update(prefix[split...])
            #expect(crc.value == want, "length \(length) split at \(split)")
        }
    }
}
