/// The explicit ids of a forest: a slot-indexed reference into a byte pool, and an
/// open-addressing hash table from an id's string form to its slot.
///
/// Each pool entry is a tag byte (`0` string, `1` integer) followed by the id's
/// string form, so `42` and `"42"` collide as the contract demands. The hash is
/// seeded per process, so uploaded ids cannot be chosen to collide on purpose.
///
/// A derived entry (tag `2`, for the paths of a path list and the JSON Pointers of a
/// document) holds only the id's last segment and the slot of the node it was derived
/// from: the whole id is that node's id, the scheme's separator and the segment (for a
/// root, the scheme's root prefix and the segment). It costs a few bytes where the whole
/// path would repeat every ancestor's; the key is composed when it is read. A node whose
/// id is derived keeps that parent: a move first stores its whole id (`storeWhole`), and a
/// deletion removes descendants' ids before their ancestors'.

@usableFromInline
struct IDTable: Sendable {
    /// Slot-indexed: offset + 1 of the slot's entry in `pool`, 0 when it has none.
    /// Empty until the first explicit id arrives.
    @usableFromInline var refs: ContiguousArray<UInt32> = []
    @usableFromInline var pool = BytePool()
    /// Slots (as a column stores them), or `empty` / `deleted`.
    var buckets: ContiguousArray<Int32> = []
    private(set) var count = 0
    private var used = 0  // live + deleted buckets

    static let empty: Int32 = -1
    static let deleted: Int32 = -2
    static let tagString: UInt8 = 0
    @usableFromInline static let tagInteger: UInt8 = 1
    @usableFromInline static let tagDerived: UInt8 = 2
    /// How derived entries compose their ids; nil while the forest has none.
    @usableFromInline var scheme: DerivedIDScheme?

    /// How an id is stored.
    @usableFromInline enum Form {
        /// Whole, given as a string or as an integer.
        case string, integer
        /// Derived: the last `segmentCount` bytes of the key, after `parent`'s id (nil: a
        /// root's, after the root prefix).
        case derived(parent: Slot?, segmentCount: Int)
    }

    init() {}

    /// Stores the entry of `slot`'s id (not indexed).
    @inline(__always)
    mutating func appendEntry(slot: Slot, key: UnsafeRawBufferPointer, form: Form) {
        let entry = IDTable.entry(key, form)
        setRef(slot: slot, offset: pool.append(prefix: entry.prefix, prefixCount: entry.prefixCount, entry.payload))
    }

    /// Stores the entry of `slot`'s id (not indexed) through `stage`, which holds it until
    /// flushed into `pool` (see `PoolStage`).
    @inline(__always)
    mutating func appendEntry(slot: Slot, key: UnsafeRawBufferPointer, form: Form, stage: inout PoolStage) {
        let entry = IDTable.entry(key, form)
        setRef(slot: slot, offset: stage.append(to: &pool, prefix: entry.prefix, prefixCount: entry.prefixCount, entry.payload))
    }

    /// A pool entry of an id: its tag, for a derived id the parent's slot, then the key or
    /// the segment.
    @inline(__always)
    private static func entry(_ key: UnsafeRawBufferPointer, _ form: Form) -> (prefix: UInt64, prefixCount: Int, payload: UnsafeRawBufferPointer) {
        switch form {
        case .string: (UInt64(tagString), 1, key)
        case .integer: (UInt64(tagInteger), 1, key)
        case .derived(let parent, let segmentCount):
            (UInt64(tagDerived) | UInt64(UInt32(bitPattern: parent?.rawValue ?? -1)) << 8, 5, UnsafeRawBufferPointer(rebasing: key[(key.count - segmentCount)...]))
        }
    }

    @inline(__always)
    private mutating func setRef(slot: Slot, offset: UInt32) {
        if refs.count == slot.index {
            refs.append(offset + 1)  // the common case: the next slot's id
        } else {
            growRefs(to: slot.index + 1)
            refs[slot.index] = offset + 1
        }
    }

    /// Makes `refs` cover `slotCount` slots.
    @inline(__always)
    mutating func growRefs(to slotCount: Int) {
        if refs.count &+ 1 == slotCount {
            refs.append(0)  // the common case: the next slot's id
        } else if refs.count < slotCount {
            refs.append(contentsOf: repeatElement(0, count: slotCount - refs.count))
        }
    }

    /// The slot whose id has this string form.
    /// - Complexity: O(1) expected
    
    func slot(forKey key: UnsafeRawBufferPointer) -> Slot? {
        if buckets.isEmpty { return nil }
        let mask = buckets.count - 1
        var i = Int(truncatingIfNeeded: IDTable.hash(key)) & mask
        while true {
            let s = buckets[i]
            if s == IDTable.empty { return nil }
            if s >= 0 && keyEquals(slot: Slot(rawValue: s), key) { return Slot(rawValue: s) }
            i = (i + 1) & mask
        }
    }

    /// Whether some slot has this id string.
    func contains(_ key: UnsafeRawBufferPointer) -> Bool { slot(forKey: key) != nil }

    /// Records `key` as the id of `slot`; the caller has checked it is not taken.
    /// - Complexity: amortized O(1) expected
    mutating func insert(slot: Slot, key: UnsafeRawBufferPointer, isInteger: Bool) {
        appendEntry(slot: slot, key: key, form: isInteger ? .integer : .string)
        if (used + 1) * 2 > buckets.count { rehash(minimumCapacity: (count + 1) * 2) }
        let mask = buckets.count - 1
        var i = Int(truncatingIfNeeded: IDTable.hash(key)) & mask
        while buckets[i] >= 0 { i = (i + 1) & mask }
        if buckets[i] == IDTable.empty { used += 1 }
        buckets[i] = slot.rawValue
        count += 1
    }

    /// Records `key` as the id of `slot` unless some slot has it already (then false, and
    /// nothing changes): one hash and one probe sequence for the check and the insert.
    /// - Complexity: amortized O(1) expected
    mutating func insertIfAbsent(slot: Slot, key: UnsafeRawBufferPointer, form: Form) -> Bool {
        if (used + 1) * 2 > buckets.count { rehash(minimumCapacity: (count + 1) * 2) }
        let mask = buckets.count - 1
        var i = Int(truncatingIfNeeded: IDTable.hash(key)) & mask
        var reusable = -1  // the first deleted bucket on the way
        while true {
            let s = buckets[i]
            if s == IDTable.empty { break }
            if s == IDTable.deleted {
                if reusable < 0 { reusable = i }
            } else if keyEquals(slot: Slot(rawValue: s), key) {
                return false
            }
            i = (i + 1) & mask
        }
        appendEntry(slot: slot, key: key, form: form)
        if reusable >= 0 { i = reusable } else { used += 1 }
        buckets[i] = slot.rawValue
        count += 1
        return true
    }

    /// Records `key` as the id of `slot` without indexing it: `indexDeferred` indexes such
    /// ids later, in bulk.
    /// - Complexity: amortized O(length of the key)
    mutating func store(slot: Slot, key: UnsafeRawBufferPointer, form: Form) {
        appendEntry(slot: slot, key: key, form: form)
    }

    /// Stores the whole id of `slot` in place of a derived entry (before the node moves
    /// away from the parent its id is derived from). The key, and so its bucket, stays.
    /// - Complexity: O(the id's length + depth)
    mutating func storeWhole(slot: Slot) {
        guard isDerived(slot: slot) else { return }
        let old = refs[slot.index] - 1
        let key = withKey(slot: slot) { Array($0) }
        key.withUnsafeBytes { appendEntry(slot: slot, key: $0, form: .string) }
        pool.release(old)
    }

    /// Indexes the ids `store` recorded for `slots` (none indexed yet; `hashes` are their
    /// keys' hashes, taken as they were stored), partition by partition: the hashes are
    /// grouped by the range of buckets they start probing in (a radix pass), and each group
    /// is inserted while its range (1/1,024 of the table, or 4,096 buckets) stays in cache.
    /// Inserting in any order gives a valid linear-probing table, as nothing is deleted
    /// meanwhile. A fingerprint of each bucket's hash, kept while this runs, spares
    /// comparing keys that differ.
    /// - Returns: a slot of `slots` whose id an earlier slot (or an indexed id) has, or nil.
    ///   After a duplicate the table is incomplete: the forest is of no further use.
    /// - Complexity: O(slots) expected, plus the keys compared on equal fingerprints
    mutating func indexDeferred(_ slots: [Slot], hashes: [UInt64]) -> Slot? {
        precondition(slots.count == hashes.count, "indexDeferred: a hash for each slot")
        return indexDeferred([DeferredIDs(hashes: hashes, slots: slots)])
    }

    /// How many threads fill the table's halves in `indexDeferred` whatever the ids' count
    /// and the processors (1 or 2; nil: as they say): the one value tests set.
    @TaskLocal static var indexingHalves: Int? = nil

    /// Indexes the ids of `runs`, in order, as `indexDeferred(_:hashes:)` does.
    mutating func indexDeferred(_ runs: [DeferredIDs]) -> Slot? {
        let total = runs.reduce(0) { $0 + $1.count }
        reserve(count + total)
        var table = buckets
        buckets = []  // `table` is the only reference while it is filled
        defer { buckets = table }
        let mask = table.count - 1
        // Fingerprints (never 0) of the hashes of the occupied buckets; 0 for the others.
        var prints = [UInt16](repeating: 0, count: table.count)
        if count > 0 {
            for (i, s) in table.enumerated() where s >= 0 {
                prints[i] = withKey(slot: Slot(rawValue: s)) { IDTable.fingerprint(IDTable.hash($0)) }
            }
        }
        // Partitions of at least 4,096 buckets (16 KB of slots, 8 KB of fingerprints), at
        // most 1,024 of them (as many write streams as the radix pass can keep apart).
        let bucketBits = table.count.trailingZeroBitCount
        let partitionBits = max(0, min(10, bucketBits - 12))
        let shift = bucketBits - partitionBits
        // Grouped by partition (a counting sort), on two threads for many ids: each counts
        // and then places its half of the ids, after the other's in each partition.
        let partitions = 1 << partitionBits
        let workers = total >= IDTable.parallelIndexing && ParallelWork.activeProcessors > 1 ? 2 : 1
        var counts = [Int](repeating: 0, count: workers * partitions)
        /// The ids of worker `w`.
        func share(_ w: Int) -> Range<Int> { total * w / workers ..< total * (w + 1) / workers }
        counts.withUnsafeMutableBufferPointer { counts in
            ParallelWork.run(workers) { w in
                DeferredIDs.forEach(in: runs, share(w)) { hash, _ in
                    counts[w * partitions + (Int(truncatingIfNeeded: hash) & mask) >> shift] &+= 1
                }
            }
        }
        // Where each worker's ids of each partition start: partition by partition, worker by worker.
        var partitionStarts = [Int](repeating: 0, count: partitions + 1)
        var next = 0
        for p in 0 ..< partitions {
            partitionStarts[p] = next
            for w in 0 ..< workers {
                let c = counts[w * partitions + p]
                counts[w * partitions + p] = next
                next += c
            }
        }
        partitionStarts[partitions] = next
        // Stable within a partition: of two equal ids (same hash, same partition), the
        // later one is found to be the duplicate.
        var groupedHashes = [UInt64](repeating: 0, count: total)
        var groupedSlots = [Slot](repeating: Slot(rawValue: 0), count: total)
        counts.withUnsafeMutableBufferPointer { starts in
            groupedHashes.withUnsafeMutableBufferPointer { groupedHashes in
                groupedSlots.withUnsafeMutableBufferPointer { groupedSlots in
                    ParallelWork.run(workers) { w in
                        DeferredIDs.forEach(in: runs, share(w)) { hash, slot in
                            let p = w * partitions + (Int(truncatingIfNeeded: hash) & mask) >> shift
                            let at = starts[p]
                            starts[p] = at &+ 1
                            groupedHashes[at] = hash
                            groupedSlots[at] = slot
                        }
                    }
                }
            }
        }
        // The partitions of each half of the table are filled on a thread of their own (with
        // many ids and two processors); a probe that would run past its half's last bucket
        // is left for a pass on one thread after both. Equal ids start in one partition,
        // so each half finds its own duplicates, and the later of two is also left over
        // when the earlier was.
        let halves = partitionBits < 1 ? 1
            : IDTable.indexingHalves ?? (total >= IDTable.parallelIndexing && ParallelWork.activeProcessors > 1 ? 2 : 1)
        var results = [(duplicate: Slot?, inserted: Int, leftOver: [Int])](repeating: (nil, 0, []), count: halves)
        let keys = self  // only read while the table fills
        table.withUnsafeMutableBufferPointer { table in
            prints.withUnsafeMutableBufferPointer { prints in
                results.withUnsafeMutableBufferPointer { results in
                    ParallelWork.run(halves) { half in
                        let perHalf = partitions / halves
                        let end = halves == 1 ? -1 : ((half + 1) * perHalf << shift) & mask
                        var result: (duplicate: Slot?, inserted: Int, leftOver: [Int]) = (nil, 0, [])
                        items: for k in partitionStarts[half * perHalf] ..< partitionStarts[(half + 1) * perHalf] {
                            switch keys.place(groupedSlots[k], hash: groupedHashes[k], table, prints, stoppingAt: end) {
                            case .inserted: result.inserted += 1
                            case .duplicate:
                                result.duplicate = groupedSlots[k]
                                break items
                            case .stopped: result.leftOver.append(k)
                            }
                        }
                        results[half] = result
                    }
                    for half in 0 ..< halves {
                        count += results[half].inserted
                        used += results[half].inserted
                    }
                    guard results.allSatisfy({ $0.duplicate == nil }) else { return }
                    for half in 0 ..< halves {
                        for k in results[half].leftOver {
                            if case .duplicate = keys.place(groupedSlots[k], hash: groupedHashes[k], table, prints, stoppingAt: -1) {
                                results[half].duplicate = groupedSlots[k]
                                return
                            }
                            count += 1
                            used += 1
                        }
                    }
                }
            }
        }
        return results.lazy.compactMap(\.duplicate).first
    }

    /// Indexing this many ids or more takes two threads.
    static let parallelIndexing = 1 << 16

    /// What `place` did.
    enum Placement { case inserted, duplicate, stopped }

    /// Puts `slot` (its id's hash `hash`) into the first empty bucket of its probe sequence,
    /// unless an equal id is on the way (`.duplicate`) or the sequence reaches bucket
    /// `stoppingAt` first (`.stopped`, nothing changed).
    @inline(__always)
    private func place(_ slot: Slot, hash h: UInt64, _ table: UnsafeMutableBufferPointer<Int32>,
                       _ prints: UnsafeMutableBufferPointer<UInt16>, stoppingAt end: Int) -> Placement {
        let mask = table.count - 1
        let print = IDTable.fingerprint(h)
        var i = Int(truncatingIfNeeded: h) & mask
        while table[i] != IDTable.empty {
            if prints[i] == print, table[i] >= 0, withKey(slot: slot, { keyEquals(slot: Slot(rawValue: table[i]), $0) }) {
                return .duplicate
            }
            i = (i + 1) & mask
            if i == end { return .stopped }
        }
        table[i] = slot.rawValue
        prints[i] = print
        return .inserted
    }

    /// A nonzero 16-bit fingerprint of a hash (from its high bits; the low bits pick the
    /// bucket): two different keys in a probe sequence are compared once in 32,768.
    @inline(__always)
    static func fingerprint(_ hash: UInt64) -> UInt16 { UInt16(truncatingIfNeeded: hash >> 48) | 1 }

    /// Makes room for `total` ids in all, so that inserting up to that many never rehashes
    /// (a reader that knows how many ids are coming calls it once).
    /// - Complexity: O(`total`) when the table grows, else O(1)
    mutating func reserve(_ total: Int) {
        // Deleted buckets count until a rehash drops them.
        if (max(total, count) + used - count + 1) * 2 > buckets.count { rehash(minimumCapacity: (max(total, count) + 1) * 2) }
    }

    /// Forgets the id of `slot`, if it has one.
    mutating func remove(slot: Slot) {
        guard slot.index < refs.count, refs[slot.index] != 0 else { return }
        let found = withKey(slot: slot) { key -> Int? in
            let mask = buckets.count - 1
            var i = Int(truncatingIfNeeded: IDTable.hash(key)) & mask
            while buckets[i] != IDTable.empty {
                if buckets[i] == slot.rawValue { return i }
                i = (i + 1) & mask
            }
            return nil
        }
        if let i = found { buckets[i] = IDTable.deleted; count -= 1 }
        pool.release(refs[slot.index] - 1)
        refs[slot.index] = 0
    }

    /// Whether `slot` has an explicit id.
    @inlinable
    func hasID(slot: Slot) -> Bool { slot.index < refs.count && refs[slot.index] != 0 }

    /// Calls `body` with the string form of the id of `slot` (which has one).
    @inlinable
    func withKey<R>(slot: Slot, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try pool.withEntry(refs[slot.index] - 1) { entry in
            if entry[0] == IDTable.tagDerived { return try withDerivedKey(slot: slot, body) }
            return try body(UnsafeRawBufferPointer(rebasing: entry.dropFirst()))
        }
    }

    /// Calls `body` with the composed key of `slot`, whose entry is derived: the segments
    /// from the node up to a root or to an ancestor whose id is stored whole, written
    /// right to left into a temporary buffer.
    /// - Complexity: O(the key's length + depth)
    @usableFromInline
    func withDerivedKey<R>(slot: Slot, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let scheme = self.scheme!
        return try pool.bytes.withUnsafeBytes { pool in
            /// The entry's segment (after the tag, and the parent for a derived one) and the
            /// slot to go on with (nil: the key starts here).
            func step(_ slot: Slot) -> (segment: UnsafeRawBufferPointer, parent: Slot?, prefix: [UInt8]) {
                let entry = BytePool.entry(in: pool, at: refs[slot.index] - 1)
                guard let (parent, segment) = IDTable.derivedParts(of: entry) else {
                    return (UnsafeRawBufferPointer(rebasing: entry.dropFirst()), nil, [])
                }
                return parent == nil ? (segment, nil, scheme.rootPrefix) : (segment, parent, scheme.separator)
            }
            var length = 0
            var next: Slot? = slot
            while let s = next {
                let (segment, parent, prefix) = step(s)
                length += segment.count + prefix.count
                next = parent
            }
            return try withUnsafeTemporaryAllocation(byteCount: length, alignment: 1) { key in
                var end = length
                func put(_ bytes: UnsafeRawBufferPointer) {
                    UnsafeMutableRawBufferPointer(rebasing: key[end - bytes.count ..< end]).copyMemory(from: bytes)
                    end -= bytes.count
                }
                next = slot
                while let s = next {
                    let (segment, parent, prefix) = step(s)
                    put(segment)
                    prefix.withUnsafeBytes { put($0) }
                    next = parent
                }
                return try body(UnsafeRawBufferPointer(key))
            }
        }
    }

    /// Calls `body` with the parent slot (nil for a root) and the last segment of `slot`'s
    /// derived id; nil (and no call) when its id is stored whole or it has none.
    /// - Complexity: O(1) plus `body`
    func withDerivedEntry<R>(slot: Slot, _ body: (_ parent: Slot?, _ segment: UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        guard hasID(slot: slot) else { return nil }
        return try pool.withEntry(refs[slot.index] - 1) { entry in
            guard let (parent, segment) = IDTable.derivedParts(of: entry) else { return nil }
            return try body(parent, segment)
        }
    }

    /// The parent slot (nil: a root) and last segment of a pool entry, nil unless it is derived
    /// (tag, parent slot as UInt32 little-endian, -1 for a root, segment).
    @inline(__always)
    static func derivedParts(of entry: UnsafeRawBufferPointer) -> (parent: Slot?, segment: UnsafeRawBufferPointer)? {
        guard entry[0] == tagDerived else { return nil }
        let parent = Int32(bitPattern: UInt32(littleEndian: entry.loadUnaligned(fromByteOffset: 1, as: UInt32.self)))
        return (parent < 0 ? nil : Slot(rawValue: parent), UnsafeRawBufferPointer(rebasing: entry.dropFirst(5)))
    }

    /// Whether `slot` has a derived id.
    func isDerived(slot: Slot) -> Bool {
        hasID(slot: slot) && pool.withEntry(refs[slot.index] - 1) { $0[0] == IDTable.tagDerived }
    }

    /// Whether the id of `slot` was given as an integer.
    @inlinable
    func isInteger(slot: Slot) -> Bool {
        pool.withEntry(refs[slot.index] - 1) { $0[0] == IDTable.tagInteger }
    }

    
    func keyEquals(slot: Slot, _ key: UnsafeRawBufferPointer) -> Bool {
        withKey(slot: slot) { stored in
            bytesEqual(stored, key)
        }
    }

    private mutating func rehash(minimumCapacity: Int) {
        var capacity = 16
        while capacity < minimumCapacity { capacity <<= 1 }
        var fresh = ContiguousArray<Int32>.filled(with: IDTable.empty, count: capacity)
        let mask = capacity - 1
        for s in buckets where s >= 0 {
            let h = withKey(slot: Slot(rawValue: s)) { IDTable.hash($0) }
            var i = Int(truncatingIfNeeded: h) & mask
            while fresh[i] != IDTable.empty { i = (i + 1) & mask }
            fresh[i] = s
        }
        buckets = fresh
        used = count
    }

    /// Compacts the pool when most of it is garbage.
    mutating func compactIfNeeded(isLive: (Int) -> Bool) {
        if pool.wantsCompaction { pool.compact(refs: &refs, biased: true, isLive: isLive) }
    }

    static let seed: UInt64 = UInt64.random(in: 1 ... .max)

    /// A fast seeded hash of short byte strings (see `IDHasher`).
    @inline(__always)
    static func hash(_ key: UnsafeRawBufferPointer) -> UInt64 {
        var hasher = IDHasher()
        hasher.combine(key)
        return hasher.finalize()
    }
}

/// The id hash of a byte string given in pieces: equal to `IDTable.hash` of the whole
/// string however it is cut, so that a derived id is hashed from its parent's state and its
/// own segment, not from its whole path again. Eight bytes a step; the length is mixed in
/// at the end.
struct IDHasher {
    private var h = IDTable.seed
    /// Bytes not yet mixed in (fewer than eight), the first in the lowest byte.
    private var tail: UInt64 = 0
    private var tailCount = 0
    private var length = 0

    @inline(__always)
    private mutating func mix(_ word: UInt64) {
        h = (h ^ word) &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 31
    }

    @inline(__always)
    mutating func combine(_ bytes: UnsafeRawBufferPointer) {
        let n = bytes.count
        length &+= n
        var i = 0
        if tailCount > 0 {
            while tailCount < 8 && i < n {
                tail |= UInt64(bytes[i]) << UInt64(8 &* tailCount)
                tailCount &+= 1
                i &+= 1
            }
            guard tailCount == 8 else { return }
            mix(tail)
            tail = 0
            tailCount = 0
        }
        while i &+ 8 <= n {
            mix(bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i &+= 8
        }
        // The last `rest` bytes (fewer than eight) as one word, the first in the lowest byte:
        // read in at most two loads that stay inside `bytes` (ids are mostly that short).
        let rest = n &- i
        if rest == 0 { return }
        tailCount = rest
        if n >= 8 {
            tail = bytes.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self) >> UInt64(8 &* (8 &- rest))
        } else if rest >= 4 {
            let low = UInt64(bytes.loadUnaligned(fromByteOffset: i, as: UInt32.self))
            let high = UInt64(bytes.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self))
            tail = low | (high >> UInt64(8 &* (8 &- rest))) << 32
        } else {
            tail = 0
            for k in 0 ..< rest { tail |= UInt64(bytes[i &+ k]) << UInt64(8 &* k) }
        }
    }

    @inline(__always)
    func finalize() -> UInt64 {
        var h = (self.h ^ tail) &* 0x94D0_49BB_1331_11EB
        h ^= UInt64(truncatingIfNeeded: length) &* 0x9E37_79B9_7F4A_7C15
        h ^= h >> 29
        h = h &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 32
        return h
    }
}

/// How derived ids are composed (see `IDTable`).
@usableFromInline
struct DerivedIDScheme: Sendable, Equatable {
    /// Between a parent's id and a child's segment.
    var separator: [UInt8]
    /// Before the segment of a root.
    var rootPrefix: [UInt8]
}

/// Whether two byte strings are equal.
@inline(__always)
func bytesEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    if a.count != b.count { return false }
    var i = 0
    let n = a.count
    while i + 8 <= n {
        if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
        i += 8
    }
    while i < n {
        if a[i] != b[i] { return false }
        i += 1
    }
    return true
}

/// Ids recorded to be indexed all at once (`IDTable.indexDeferred`), in order: their
/// hashes, and their slots, which are kept only once they stop following one another (as
/// they do in a new forest whose nodes all have ids).
struct DeferredIDs {
    private(set) var hashes: [UInt64] = []
    /// The slots; empty while they are `firstSlot`, `firstSlot + 1`, …
    private(set) var slots: [Slot] = []
    private(set) var firstSlot = Slot(rawValue: 0)

    init() {}

    init(hashes: [UInt64], slots: [Slot]) {
        self.hashes = hashes
        self.slots = slots
    }

    var count: Int { hashes.count }
    var isEmpty: Bool { hashes.isEmpty }

    mutating func reserveCapacity(_ n: Int) {
        hashes.reserveCapacity(n)
    }

    /// Records the id of `slot`, hashed to `hash`.
    /// - Complexity: amortized O(1) (O(count) once, when the slots stop following one another)
    @inline(__always)
    mutating func append(slot: Slot, hash: UInt64) {
        if !slots.isEmpty {
            slots.append(slot)
        } else if hashes.isEmpty {
            firstSlot = slot
        } else if slot.rawValue != firstSlot.rawValue &+ Int32(hashes.count) {
            slots.reserveCapacity(hashes.capacity)
            let first = firstSlot.rawValue
            slots.append(contentsOf: (first ..< first &+ Int32(hashes.count)).lazy.map { Slot(rawValue: $0) })
            slots.append(slot)
        }
        hashes.append(hash)
    }

    /// Moves every slot by `shift` (the ids' nodes moved so).
    /// - Complexity: O(1) while the slots follow one another, else O(count)
    mutating func moveSlots(by shift: Int32) {
        firstSlot = Slot(rawValue: firstSlot.rawValue &+ shift)
        slots.withUnsafeMutableBufferPointer { slots in
            for k in slots.indices { slots[k] = Slot(rawValue: slots[k].rawValue &+ shift) }
        }
    }

    /// Calls `body(hash, slot)` for the ids at `range` of the runs one after another.
    @inline(__always)
    static func forEach(in runs: [DeferredIDs], _ range: Range<Int>, _ body: (UInt64, Slot) -> Void) {
        var offset = 0
        for run in runs {
            let lower = max(range.lowerBound - offset, 0), upper = min(range.upperBound - offset, run.count)
            offset += run.count
            guard lower < upper else { continue }
            run.hashes.withUnsafeBufferPointer { hashes in
                if run.slots.isEmpty {
                    let first = run.firstSlot.rawValue
                    for k in lower ..< upper { body(hashes[k], Slot(rawValue: first &+ Int32(truncatingIfNeeded: k))) }
                } else {
                    run.slots.withUnsafeBufferPointer { slots in
                        for k in lower ..< upper { body(hashes[k], slots[k]) }
                    }
                }
            }
        }
    }
}
