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

    /// Appends an entry and returns its offset.
    /// - Complexity: amortized O(length)
    @inlinable @discardableResult
    mutating func append(_ entry: UnsafeRawBufferPointer) -> UInt32 {
        let offset = appendLength(entry.count)
        bytes.append(contentsOf: entry)
        return offset
    }

    /// Appends an entry made of `tag` and `entry` (no temporary copy) and returns its offset.
    /// - Complexity: amortized O(length)
    @inlinable @discardableResult
    mutating func append(tag: UInt8, _ entry: UnsafeRawBufferPointer) -> UInt32 {
        let offset = appendLength(entry.count + 1)
        bytes.append(tag)
        bytes.append(contentsOf: entry)
        return offset
    }

    /// Appends an entry made of `tag`, the four bytes of `word` (little-endian) and `entry`,
    /// and returns its offset.
    /// - Complexity: amortized O(length)
    @inlinable @discardableResult
    mutating func append(tag: UInt8, word: UInt32, _ entry: UnsafeRawBufferPointer) -> UInt32 {
        let offset = appendLength(entry.count + 5)
        bytes.append(tag)
        withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: entry)
        return offset
    }

    /// Starts an entry of `length` bytes (its LEB128 length); returns the entry's offset.
    @inlinable @inline(__always)
    mutating func appendLength(_ length: Int) -> UInt32 {
        let offset = bytes.count
        precondition(offset < Int(UInt32.max) - length - 16, "byte pool over 4 GiB")
        var n = UInt(length)
        while n >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: n) | 0x80)
            n >>= 7
        }
        bytes.append(UInt8(n))
        return UInt32(offset)
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
