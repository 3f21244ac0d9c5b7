/// The number of matches among each slot's descendants, a byte a slot: most counts are
/// small, and the few that are not (nodes near the roots of large subtrees) are kept in a
/// table beside. A quarter of the 4 bytes a slot a plain column of counts takes.
struct MatchCounts: Sendable, Equatable {
    /// The count of each slot, or `MatchCounts.large` when it is in `largeCounts`.
    private var small: ContiguousArray<UInt8>
    private var largeCounts: [Int32: UInt32] = [:]
    private static let large: UInt8 = .max

    /// `count` zero counts, with room for a quarter more slots (so that a forest that grows
    /// does not copy the column soon; untouched capacity costs no resident memory).
    init(count: Int) {
        small = []
        small.reserveCapacity(count + count / 4 + 64)
        small.append(contentsOf: repeatElement(0, count: count))
    }

    var count: Int { small.count }

    /// - Complexity: O(1)
    @inline(__always)
    subscript(slot: Int) -> UInt32 {
        get {
            let value = small[slot]
            return value != MatchCounts.large ? UInt32(value) : largeCounts[Int32(slot)]!
        }
        set {
            if newValue < UInt32(MatchCounts.large) {
                if small[slot] == MatchCounts.large { largeCounts[Int32(slot)] = nil }
                small[slot] = UInt8(newValue)
            } else {
                small[slot] = MatchCounts.large
                largeCounts[Int32(slot)] = newValue
            }
        }
    }

    /// Adds `delta` to the count of `slot` (the result not negative): one lookup of the table
    /// for a large count, none for a small one.
    /// - Returns: the count before and after.
    @inline(__always)
    mutating func add(_ delta: Int, at slot: Int) -> (old: UInt32, new: UInt32) {
        let value = small[slot]
        if value != MatchCounts.large {
            let new = Int(value) + delta
            if new < Int(MatchCounts.large) {
                small[slot] = UInt8(new)
                return (UInt32(value), UInt32(new))
            }
            self[slot] = UInt32(new)
            return (UInt32(value), UInt32(new))
        }
        let result = MatchCounts.change(&largeCounts[Int32(slot), default: 0], by: delta)
        if result.new < UInt32(MatchCounts.large) { self[slot] = result.new }
        return result
    }

    @inline(__always)
    private static func change(_ count: inout UInt32, by delta: Int) -> (old: UInt32, new: UInt32) {
        let old = count
        count = UInt32(Int(count) + delta)
        return (old, count)
    }

    /// Zero counts for the slots `count ..< newCount`.
    mutating func grow(to newCount: Int) {
        if newCount > small.count { small.append(contentsOf: repeatElement(0, count: newCount - small.count)) }
    }

    /// Bytes held.
    var bytes: Int { small.capacity + largeCounts.capacity * 8 }

    /// Where the byte column is stored (see `CoverIndex.storageAddresses`).
    var storageAddress: UInt { small.storageAddress }
}
