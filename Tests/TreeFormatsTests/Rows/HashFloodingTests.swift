import Testing
import TreeEngine
@testable import TreeFormats

/// The readers' table of client-chosen keys (`ByteKeyTable`: row ids, path names) probes
/// linearly, and an insert is parsed while its session is locked: keys that share a bucket make a body cost
/// O(n²). Their hashes were unseeded (and invertible), so such keys could be computed ahead;
/// now each process draws its own seed. The keys here collide in the 12 low bits (the bucket
/// of a 4,096-slot table, as 1,500 rows get) under the old functions, found by search as an
/// attacker would; under today's, they spread like any keys, whatever the seed: each test
/// tries this process's seed and a hundred more (1,500 keys in 4,096 buckets put at most
/// 6 or 7 in one when they spread; 12 or more happens by chance about once in 10^12).
@Suite struct HashFloodingTests {
    static let count = 1500
    static let mask: UInt64 = 4095
    /// Seeds besides this process's, drawn afresh on each run.
    static let seeds = (0 ..< 100).map { _ in UInt64.random(in: 1 ... .max) }

    /// RowTable's hash before it was seeded: the attacker's model.
    static func oldRowHash(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var i = 0
        while i + 8 <= bytes.count {
            var word: UInt64 = 0
            for k in 0 ..< 8 { word |= UInt64(bytes[i + k]) << UInt64(8 * k) }
            h = (h ^ word) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
            i += 8
        }
        if i < bytes.count {
            var tail: UInt64 = 0, shift: UInt64 = 0
            while i < bytes.count { tail |= UInt64(bytes[i]) << shift; shift += 8; i += 1 }
            h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        }
        h ^= h >> 29
        h = h &* 0xFF51_AFD7_ED55_8CCD
        return h ^ (h >> 32)
    }

    /// PathListReader's hash of a root's name before it was seeded.
    static func oldPathHash(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(UInt32(bitPattern: -1))
        var tail: UInt64 = 0, shift: UInt64 = 0
        for b in bytes { tail |= UInt64(b) << shift; shift += 8 }  // names shorter than 8 bytes
        h = (h ^ tail ^ UInt64(bytes.count)) &* 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 29
        return h
    }

    /// `count` seven-letter keys whose `hash` has 0 in the bits of `mask`.
    static func colliding(_ hash: ([UInt8]) -> UInt64) -> [[UInt8]] {
        let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var found: [[UInt8]] = []
        var n = 0
        while found.count < count {
            var key: [UInt8] = [UInt8(ascii: "k")]
            var m = n
            for _ in 0 ..< 6 { key.append(letters[m % letters.count]); m /= letters.count }
            if hash(key) & mask == 0 { found.append(key) }
            n += 1
        }
        return found
    }

    /// The most keys that share a bucket.
    static func largestBucket(_ keys: [[UInt8]], _ hash: (UnsafeRawBufferPointer) -> UInt64) -> Int {
        var load: [Int: Int] = [:]
        for key in keys { key.withUnsafeBytes { load[Int(hash($0) & mask), default: 0] += 1 } }
        return load.values.max() ?? 0
    }

    @Test func rowIDsBuiltToCollideSpreadOut() throws {
        let keys = Self.colliding(Self.oldRowHash)
        #expect(Self.largestBucket(keys) { UInt64(Self.oldRowHash(Array($0))) } == Self.count, "the keys do collide under the old hash")
        #expect(Self.largestBucket(keys) { ByteKeyTable.hash($0) } <= 12)
        for seed in Self.seeds {
            #expect(Self.largestBucket(keys) { ByteKeyTable.hash($0, seed: seed) } <= 12, "seed \(seed)")
        }
        // And such a body reads as any other.
        let csv = "id,parentId,title\n" + keys.map { String(decoding: $0, as: UTF8.self) + ",,t\n" }.joined()
        let forest = try Array(csv.utf8).withUnsafeBytes { try Forest.parseCSV($0) }
        #expect(forest.count == Self.count)
    }

    @Test func pathNamesBuiltToCollideSpreadOut() throws {
        let keys = Self.colliding(Self.oldPathHash)
        #expect(Self.largestBucket(keys) { Self.oldPathHash(Array($0)) } == Self.count, "the keys do collide under the old hash")
        let root = UInt64(UInt32(bitPattern: -1))  // a root's parent, as `PathListReader.hash` mixes it in
        #expect(Self.largestBucket(keys) { PathListReader.hash($0, parent: -1) } <= 12)
        for seed in Self.seeds {
            #expect(Self.largestBucket(keys) { ByteKeyTable.hash($0, extra: root, seed: seed) } <= 12, "seed \(seed)")
        }
        let list = keys.map { String(decoding: $0, as: UTF8.self) + "\n" }.joined()
        let forest = try Array(list.utf8).withUnsafeBytes { try Forest.parsePaths($0) }
        #expect(forest.count == Self.count)
    }
}
