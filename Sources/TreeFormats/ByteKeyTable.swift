/// The seed of the readers' hashes of client-chosen bytes (ids, path names), drawn once
/// per process: a body whose keys collide under one process's hash does not under another's,
/// and nobody outside knows this one's.
let hashSeed = UInt64.random(in: 1 ... .max)

/// The readers' one hash table of client-chosen keys (a row table's ids, a path list's names
/// under their parents, an export's sibling titles): open addressing over entries, which are
/// indices into the caller's lists, keyed by bytes the caller keeps. Each bucket holds its
/// entry and the low half of its key's hash, so the table grows without the keys and
/// compares a key (`matches`) only where the hashes agree. Linear probing, at most half full.
struct ByteKeyTable {
    /// Per bucket: the hash's low 32 bits, then the entry + 1 (0: an empty bucket).
    private var buckets: [UInt64]
    private var mask: Int
    private(set) var count = 0

    /// A table with room for `capacity` entries before it grows.
    init(capacity: Int = 0) {
        var size = 16
        while size < 2 * capacity { size <<= 1 }
        buckets = Array(repeating: 0, count: size)
        mask = size - 1
    }

    /// The entry whose key hashes to `hash` and `matches`, or nil.
    /// - Complexity: O(1) expected
    @inline(__always)
    func find(_ hash: UInt64, where matches: (Int32) -> Bool) -> Int32? {
        let tag = hash & 0xFFFF_FFFF
        var i = Int(truncatingIfNeeded: hash) & mask
        while true {
            let bucket = buckets[i]
            if bucket == 0 { return nil }
            let entry = Int32(truncatingIfNeeded: bucket) &- 1
            if bucket >> 32 == tag, matches(entry) { return entry }
            i = (i &+ 1) & mask
        }
    }

    /// Adds `entry`, whose key hashes to `hash`, unless an entry whose key `matches` is in
    /// the table: then that one, and nothing changes.
    /// - Complexity: amortized O(1) expected
    @inline(__always)
    mutating func insert(_ entry: Int32, hash: UInt64, unlessMatching matches: (Int32) -> Bool) -> Int32? {
        if (count &+ 1) &* 2 > buckets.count { grow() }
        let tag = hash & 0xFFFF_FFFF
        var i = Int(truncatingIfNeeded: hash) & mask
        while true {
            let bucket = buckets[i]
            if bucket == 0 { break }
            let other = Int32(truncatingIfNeeded: bucket) &- 1
            if bucket >> 32 == tag, matches(other) { return other }
            i = (i &+ 1) & mask
        }
        buckets[i] = tag << 32 | UInt64(UInt32(bitPattern: entry &+ 1))
        count &+= 1
        return nil
    }

    /// Doubles the buckets, placing each entry again by the hash bits it keeps.
    private mutating func grow() {
        let old = buckets
        buckets = Array(repeating: 0, count: old.count * 2)
        mask = buckets.count - 1
        for bucket in old where bucket != 0 {
            var i = Int(truncatingIfNeeded: bucket >> 32) & mask
            while buckets[i] != 0 { i = (i &+ 1) & mask }
            buckets[i] = bucket
        }
    }

    /// A fast hash of `bytes` and `extra` (a parent's index, say): eight bytes at a time,
    /// multiplied and mixed, from a seed drawn once per process (`hashSeed`), so that a body
    /// cannot choose keys that collide (the table probes linearly, and an insert is parsed
    /// while its session is locked). The seed goes in first, the length last, and the state
    /// is finished by a full avalanche (MurmurHash3's 64-bit finalizer): every bit of it
    /// reaches every bit of the result, so the bucket (the low bits) depends on the seed and
    /// on every byte. It cannot undo a collision of the states themselves: multiply-and-shift
    /// over 8-byte blocks lets keys that differ in the top bits of two blocks collide whatever
    /// the seed. Such keys are not valid UTF-8, which every reader checks before it hashes, so
    /// a body cannot send them; a reader that hashes bytes it has not validated needs a keyed
    /// per-block hash (SipHash) instead.
    /// - Complexity: O(`bytes.count`)
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer, extra: UInt64 = 0, seed: UInt64 = hashSeed) -> UInt64 {
        var h = seed ^ extra
        let n = bytes.count
        var i = 0
        var tail: UInt64 = 0
        if let base = bytes.baseAddress {
            while i &+ 8 <= n {
                h = (h ^ base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
                h ^= h >> 32
                i &+= 8
            }
            var shift: UInt64 = 0
            while i < n {
                tail |= UInt64(base.load(fromByteOffset: i, as: UInt8.self)) << shift
                shift &+= 8
                i &+= 1
            }
        }
        h = (h ^ tail ^ UInt64(n)) &* 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 33
        h = h &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        h = h &* 0xC4CE_B9FE_1A85_EC53
        return h ^ (h >> 33)
    }
}
