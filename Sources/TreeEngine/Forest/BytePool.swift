/// Byte strings appended to one growing buffer, each prefixed by its length as a
/// LEB128 varint, and named by their offset.
///
/// Used for titles, explicit ids and `data`: millions of short strings without an
/// allocation or a reference count each. Replaced entries stay behind as garbage
/// until `compacted(...)`.

@usableFromInline
struct BytePool: Sendable {
    @usableFromInline var bytes: ContiguousArray<UInt8> = []
    /// Bytes that belong to entries nobody refers to any more.
    var garbage: Int = 0

    init() {}

    /// Reserves room for about `capacity` bytes.
    mutating func reserve(_ capacity: Int) { bytes.reserveCapacity(capacity) }

    /// Appends every entry of `other` (its garbage too) and returns the offset they moved
    /// by: an entry of `other` at offset `o` is here at `o` plus it.
    /// - Complexity: O(`other`'s bytes)
    mutating func appendWhole(_ other: BytePool) -> UInt32 {
        let base = Self.entryOffset(bytes.count, size: other.bytes.count)
        bytes.append(contentsOf: other.bytes)
        garbage += other.garbage
        return base
    }

    /// Appends an entry and returns its offset.
    /// - Complexity: amortized O(length)
    @inlinable @discardableResult
    mutating func append(_ entry: UnsafeRawBufferPointer) -> UInt32 {
        append(prefix: 0, prefixCount: 0, entry)
    }

    /// Appends an entry made of the first `prefixCount` bytes of `prefix` (little-endian: a
    /// tag, a word) and `payload` (no temporary copy), and returns its offset.
    /// - Complexity: amortized O(length)
    @usableFromInline @discardableResult
    mutating func append(prefix: UInt64, prefixCount: Int, _ payload: UnsafeRawBufferPointer) -> UInt32 {
        let length = prefixCount + payload.count
        let offset = Self.entryOffset(bytes.count, size: length + Self.headerSize(length))
        // The header (the length and the prefix: at most 18 bytes), then the payload copied
        // as it is (an entry may be megabytes of data).
        withUnsafeTemporaryAllocation(byteCount: 24, alignment: 8) { header in
            let count = Self.write(length: length, prefix: prefix, prefixCount: prefixCount,
                                   UnsafeRawBufferPointer(start: nil, count: 0), at: header.baseAddress!)
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: header[..<count]))
        }
        bytes.append(contentsOf: payload)
        return offset
    }

    /// `offset` as the offset of an entry of `size` bytes (its header included), which must
    /// end well under 4 GiB (references are 32 bits).
    @usableFromInline @inline(__always)
    static func entryOffset(_ offset: Int, size: Int) -> UInt32 {
        precondition(offset < Int(UInt32.max) - size - 16, "byte pool over 4 GiB")
        return UInt32(offset)
    }

    /// The bytes of the LEB128 length of an entry of `length` bytes.
    @usableFromInline @inline(__always)
    static func headerSize(_ length: Int) -> Int {
        var n = UInt(length), size = 1
        while n >= 0x80 { n >>= 7; size &+= 1 }
        return size
    }

    /// Writes an entry at `target`: its LEB128 `length`, the first `prefixCount` bytes of
    /// `prefix` (little-endian), `payload` (`length` = `prefixCount` + its count). Returns
    /// how many bytes it wrote. Short payloads (most) take two overlapping loads and stores
    /// rather than a call to `memmove`.
    @usableFromInline @inline(__always)
    static func write(length: Int, prefix: UInt64, prefixCount: Int, _ payload: UnsafeRawBufferPointer,
                      at target: UnsafeMutableRawPointer) -> Int {
        var n = UInt(length), i = 0
        while n >= 0x80 {
            target.storeBytes(of: UInt8(truncatingIfNeeded: n) | 0x80, toByteOffset: i, as: UInt8.self)
            n >>= 7
            i &+= 1
        }
        target.storeBytes(of: UInt8(n), toByteOffset: i, as: UInt8.self)
        i &+= 1
        var p = prefix
        for _ in 0 ..< prefixCount {
            target.storeBytes(of: UInt8(truncatingIfNeeded: p), toByteOffset: i, as: UInt8.self)
            p >>= 8
            i &+= 1
        }
        let m = payload.count
        guard m > 0, let from = payload.baseAddress else { return i }
        let to = target + i
        if m > 16 {
            to.copyMemory(from: from, byteCount: m)
        } else if m >= 8 {
            let a = from.loadUnaligned(as: UInt64.self), b = from.loadUnaligned(fromByteOffset: m &- 8, as: UInt64.self)
            to.storeBytes(of: a, as: UInt64.self)
            to.storeBytes(of: b, toByteOffset: m &- 8, as: UInt64.self)
        } else if m >= 4 {
            let a = from.loadUnaligned(as: UInt32.self), b = from.loadUnaligned(fromByteOffset: m &- 4, as: UInt32.self)
            to.storeBytes(of: a, as: UInt32.self)
            to.storeBytes(of: b, toByteOffset: m &- 4, as: UInt32.self)
        } else {
            for k in 0 ..< m { to.storeBytes(of: from.load(fromByteOffset: k, as: UInt8.self), toByteOffset: k, as: UInt8.self) }
        }
        return i &+ m
    }

    /// Appends an entry given as a collection of bytes.
    @discardableResult
    mutating func append<C: Collection>(contentsOf entry: C) -> UInt32 where C.Element == UInt8 {
        let array = ContiguousArray(entry)
        return array.withUnsafeBytes { append($0) }
    }

    /// Marks the entry at `offset` as garbage.
    mutating func release(_ offset: UInt32) {
        let (start, length) = bounds(offset)
        garbage += start - Int(offset) + length
    }

    /// The start and length of the entry at `offset`.
    /// - Complexity: O(1)
    @inlinable @inline(__always)
    func bounds(_ offset: UInt32) -> (start: Int, length: Int) {
        bytes.withUnsafeBytes { BytePool.bounds(in: $0, at: offset) }
    }

    /// The start and length of the entry at `offset` of a pool whose bytes are `pool`.
    @inlinable @inline(__always)
    static func bounds(in pool: UnsafeRawBufferPointer, at offset: UInt32) -> (start: Int, length: Int) {
        var i = Int(offset)
        var length = 0
        var shift = 0
        while true {
            let b = pool[i]
            i += 1
            length |= Int(b & 0x7F) << shift
            if b < 0x80 { return (i, length) }
            shift += 7
        }
    }

    /// Calls `body` with the bytes of the entry at `offset`.
    /// - Complexity: O(1) plus `body`
    @inlinable @inline(__always)
    func withEntry<R>(_ offset: UInt32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let (start, length) = bounds(offset)
        return try bytes.withUnsafeBytes { raw in
            try body(UnsafeRawBufferPointer(rebasing: raw[start ..< start + length]))
        }
    }

    /// The entry at `offset` of a pool whose bytes are `pool`.
    @inlinable @inline(__always)
    static func entry(in pool: UnsafeRawBufferPointer, at offset: UInt32) -> UnsafeRawBufferPointer {
        let (start, length) = bounds(in: pool, at: offset)
        return UnsafeRawBufferPointer(rebasing: pool[start ..< start + length])
    }

    /// Whether compaction would pay: more than half of the pool is garbage.
    var wantsCompaction: Bool { garbage > 1 << 16 && garbage > bytes.count / 2 }

    /// Copies the live entries named by `refs` into a fresh pool and rewrites `refs`.
    /// `refs` holds offsets, or offset + 1 when `biased` (0 meaning "no entry").
    /// - Complexity: O(live bytes + refs.count)
    mutating func compact(refs: inout ContiguousArray<UInt32>, biased: Bool, isLive: (Int) -> Bool) {
        var fresh = BytePool()
        fresh.reserve(bytes.count - garbage)
        for i in refs.indices where isLive(i) {
            let r = refs[i]
            if biased && r == 0 { continue }
            let offset = biased ? r - 1 : r
            let moved = withEntry(offset) { fresh.append($0) }
            refs[i] = biased ? moved + 1 : moved
        }
        self = fresh
    }
}

/// Entries bound for a `BytePool`, written into a small buffer of their own and appended to
/// the pool in batches (by `ForestBuilder`, which adds millions of short entries: appending
/// each to the pool's array costs several times what writing it does). Offsets run on from
/// the pool's end through the staged bytes, so an entry's offset is final when it is staged;
/// the pool must not change otherwise, nor be read for staged entries, until `flush`.
struct PoolStage {
    /// `capacity` bytes once used; the first `count` are staged.
    private var buffer: ContiguousArray<UInt8> = []
    private(set) var count = 0
    let capacity: Int
    static let maxCapacity = 1 << 15

    /// A stage for a body of about `expectedBytes` bytes (0: unknown): a small insert needs
    /// no 32 KB.
    init(expectedBytes: Int = 0) {
        capacity = expectedBytes <= 0 ? Self.maxCapacity : min(Self.maxCapacity, max(256, expectedBytes))
    }

    /// Stages an entry of `pool` made of the first `prefixCount` bytes of `prefix` and
    /// `payload` (see `BytePool.append(prefix:prefixCount:_:)`); returns its offset.
    /// - Complexity: amortized O(length)
    @inline(__always)
    mutating func append(to pool: inout BytePool, prefix: UInt64 = 0, prefixCount: Int = 0, _ payload: UnsafeRawBufferPointer) -> UInt32 {
        let length = prefixCount &+ payload.count
        let size = length &+ BytePool.headerSize(length)
        if count &+ size > buffer.count {
            flush(into: &pool)
            if size > capacity { return pool.append(prefix: prefix, prefixCount: prefixCount, payload) }
            if buffer.isEmpty { buffer = ContiguousArray(repeating: 0, count: capacity) }
        }
        let offset = BytePool.entryOffset(pool.bytes.count &+ count, size: size)
        let at = count
        buffer.withUnsafeMutableBytes { buffer in
            _ = BytePool.write(length: length, prefix: prefix, prefixCount: prefixCount, payload, at: buffer.baseAddress! + at)
        }
        count = at &+ size
        return offset
    }

    /// Appends the staged entries to `pool`.
    mutating func flush(into pool: inout BytePool) {
        guard count > 0 else { return }
        buffer.withUnsafeBytes { pool.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        count = 0
    }
}
