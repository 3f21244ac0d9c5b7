/// A fixed-size set of positions, one bit each.
struct Bitset: Sendable, Equatable {
    private(set) var words: ContiguousArray<UInt64>
    private(set) var count: Int

    /// An empty set over `0 ..< count`.
    /// Room is reserved for a quarter more members, so that a set that grows with the
    /// forest's slots is not copied soon (untouched capacity costs no resident memory).
    init(count: Int) {
        self.count = count
        let n = (count + 63) >> 6
        words = []
        words.reserveCapacity(n + n / 4 + 1)
        words.append(contentsOf: repeatElement(0, count: n))
    }

    @inline(__always) func contains(_ i: Int) -> Bool { words[i >> 6] & (1 << UInt64(i & 63)) != 0 }
    @inline(__always) mutating func insert(_ i: Int) { words[i >> 6] |= 1 << UInt64(i & 63) }
    @inline(__always) mutating func remove(_ i: Int) { words[i >> 6] &= ~(1 << UInt64(i & 63)) }
    @inline(__always) mutating func set(_ i: Int, _ value: Bool) { if value { insert(i) } else { remove(i) } }

    /// Extends the set to `0 ..< count` (new members absent).
    /// - Complexity: O(added words), amortized
    mutating func grow(to count: Int) {
        guard count > self.count else { return }
        self.count = count
        let words = (count + 63) >> 6
        if words > self.words.count { self.words.append(contentsOf: repeatElement(0, count: words - self.words.count)) }
    }

    /// The number of members.
    /// - Complexity: O(n / 64)
    var population: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }

    /// The members of one set and not the other, ascending (the shorter set read as absent past its end).
    /// - Complexity: O(n / 64 + differences)
    func differences(from other: Bitset) -> [Int] {
        var result: [Int] = []
        for w in 0 ..< max(words.count, other.words.count) {
            var x = (w < words.count ? words[w] : 0) ^ (w < other.words.count ? other.words[w] : 0)
            while x != 0 {
                result.append(w << 6 | x.trailingZeroBitCount)
                x &= x - 1
            }
        }
        return result
    }

    /// Calls `body` with the words, 64 positions each, lowest position in the lowest bit.
    mutating func withWordBuffer<R>(_ body: (UnsafeMutableBufferPointer<UInt64>) -> R) -> R {
        words.withUnsafeMutableBufferPointer { body($0) }
    }
}
