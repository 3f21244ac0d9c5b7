/// One record of a session's journal: the version the change produced and the change
/// itself, as the service encoded it (storage never looks inside).
public struct JournalRecord: Sendable, Equatable {
    public var version: UInt64
    public var payload: [UInt8]

    public init(version: UInt64, payload: [UInt8]) {
        self.version = version
        self.payload = payload
    }
}

/// Where an appended record ends: give it to `waitDurable`.
public struct JournalPosition: Sendable, Equatable {
    /// The journal file's generation (`journal.<generation>`).
    public let generation: UInt64
    /// The record's first byte in that file, and the byte after it.
    public let start: Int, end: Int
    /// The number of the append, counted by the session's files since they were opened.
    let sequence: UInt64
}

/// The journal's record framing, little-endian:
///
///     u32 L         length of what follows the CRC (8 + payload), 8 ... 2^30
///     u32 CRC-32C   of those L bytes
///     u64 version
///     payload       L - 8 bytes
enum Journal {
    static let headerSize = 8
    static let maxLength = 1 << 30

    /// The bytes of one record.
    /// - Complexity: O(payload)
    static func encode(version: UInt64, payload: [UInt8]) -> [UInt8] {
        let length = 8 + payload.count
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerSize + length)
        bytes.appendLE(UInt32(length))
        bytes.appendLE(UInt32(0))
        bytes.appendLE(version)
        bytes += payload
        let crc = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[headerSize...])) }
        withUnsafeBytes(of: crc.littleEndian) { raw in
            for i in 0 ..< 4 { bytes[4 + i] = raw[i] }
        }
        return bytes
    }

    /// The result of reading a journal file's bytes.
    struct Scan {
        /// The good records, in order, with where each starts.
        var records: [(record: JournalRecord, offset: Int)] = []
        /// The byte after the last good record.
        var goodEnd = 0
        /// Why reading stopped before the end, if it did.
        var damage: String?
        /// The damage is a torn tail, what a write cut short by a crash leaves: the bad
        /// record reaches the end of the file (or only zero bytes follow the last good one).
        /// Anything else is damage with records possibly after it.
        var tornTail = false
    }

    /// Reads records until the end or the first bad one (a length out of range or past the
    /// end, a header cut short, a wrong CRC).
    /// - Complexity: O(bytes)
    static func scan(_ bytes: [UInt8]) -> Scan {
        var scan = Scan()
        bytes.withUnsafeBytes { raw in
            var at = 0
            while at < raw.count {
                let left = raw.count - at
                guard left >= headerSize else {
                    scan.damage = "a record header cut short (\(left) of 8 bytes)"
                    scan.tornTail = true
                    break
                }
                let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
                let crc = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self))
                guard length >= 8 && length <= maxLength else {
                    scan.damage = "a bad record length \(length)"
                    break
                }
                guard length <= left - headerSize else {
                    scan.damage = "a record running past the end (\(length) bytes, \(left - headerSize) left)"
                    scan.tornTail = true
                    break
                }
                let body = UnsafeRawBufferPointer(rebasing: raw[(at + headerSize) ..< (at + headerSize + length)])
                guard CRC32C.checksum(body) == crc else {
                    scan.damage = "a record with a bad CRC"
                    scan.tornTail = length == left - headerSize
                    break
                }
                let version = UInt64(littleEndian: body.loadUnaligned(as: UInt64.self))
                let record = JournalRecord(version: version, payload: Array(body[8...]))
                scan.records.append((record, at))
                at += headerSize + length
                scan.goodEnd = at
            }
            if scan.damage != nil && !scan.tornTail {
                scan.tornTail = raw[scan.goodEnd...].allSatisfy { $0 == 0 }
            }
        }
        return scan
    }
}
