/// What is aggregated over a subtree: its nodes, or a data field's numbers.
public enum AggregateSource: Hashable, Sendable, CustomStringConvertible {
    /// Every node: the count of descendants.
    case nodes
    /// The numbers of a data field (numbers, and strings written as JSON numbers): their
    /// count, sum, minimum and maximum.
    case field(FieldPath)

    public var description: String {
        switch self {
        case .nodes: "nodes"
        case .field(let path): path.description
        }
    }
}

/// An aggregate over some nodes: how many have a value, their sum, minimum and maximum
/// (the sum 0, the minimum +∞ and the maximum −∞ when none has).
public struct Aggregate: Equatable, Sendable {
    public var count: Int
    public var sum: Double
    public var minimum: Double
    public var maximum: Double

    public static let empty = Aggregate(count: 0, sum: 0, minimum: .infinity, maximum: -.infinity)

    public init(count: Int, sum: Double, minimum: Double, maximum: Double) {
        self.count = count
        self.sum = sum
        self.minimum = minimum
        self.maximum = maximum
    }

    @inline(__always)
    mutating func add(_ other: Aggregate) {
        count += other.count
        sum += other.sum
        minimum = Swift.min(minimum, other.minimum)
        maximum = Swift.max(maximum, other.maximum)
    }
}

/// The aggregates of a source over ranges of positions, so that a subtree's (its positions
/// after the node up to `endAt`) costs O(log n): per block of 64 positions and per node of
/// a complete binary tree over the blocks, the count, sum, minimum and maximum of the values
/// there (a gap has none), 28 bytes per 64 positions (4 for `nodes`). No per-position
/// column: a block is recounted from the forest (and a field's column, by slot) where the
/// forest changed, as `DepthBase` is; the sums are recomputed from their parts, never
/// adjusted, so they do not drift.
struct AggregateIndex: Sendable {
    static let blockShift = 6
    static let blockSize = 1 << blockShift

    let source: AggregateSource
    /// The number of positions the index covers (the forest's capacity when last updated).
    private(set) var capacity = 0
    private var leaves = 1
    private var count: ContiguousArray<Int32> = []
    /// Empty for `nodes`.
    private var sum: ContiguousArray<Double> = []
    private var minimum: ContiguousArray<Double> = []
    private var maximum: ContiguousArray<Double> = []

    /// The index of `source` over `forest` (a field's column must exist).
    /// - Complexity: O(positions)
    init(_ source: AggregateSource, forest: Forest) {
        self.source = source
        rebuild(forest)
    }

    /// Recomputes the whole index.
    /// - Complexity: O(positions)
    mutating func rebuild(_ forest: Forest) {
        capacity = forest.capacity
        let blocks = max(1, (capacity + AggregateIndex.blockSize - 1) >> AggregateIndex.blockShift)
        leaves = 1
        while leaves < blocks { leaves <<= 1 }
        count = ContiguousArray(repeating: 0, count: 2 * leaves)
        if case .field = source {
            sum = ContiguousArray(repeating: 0, count: 2 * leaves)
            minimum = ContiguousArray(repeating: .infinity, count: 2 * leaves)
            maximum = ContiguousArray(repeating: -.infinity, count: 2 * leaves)
        }
        AggregateIndex.withNumbers(source, forest) { numbers in
            for block in 0 ..< blocks { recomputeLeaf(block, forest, numbers) }
        }
        for node in stride(from: leaves - 1, through: 1, by: -1) { pull(node) }
    }

    /// The positions `range` changed (nodes put, taken out or moved, a node's data): their
    /// blocks are recounted.
    /// - Complexity: O(range + blocks · log n); O(positions) when the forest was resized
    mutating func update(_ range: Range<Int>, _ forest: Forest) {
        if forest.capacity != capacity { rebuild(forest); return }
        let range = range.clamped(to: 0 ..< capacity)
        guard !range.isEmpty else { return }
        let first = range.lowerBound >> AggregateIndex.blockShift, last = (range.upperBound - 1) >> AggregateIndex.blockShift
        AggregateIndex.withNumbers(source, forest) { numbers in
            for block in first ... last { recomputeLeaf(block, forest, numbers) }
        }
        var lo = (leaves + first) >> 1, hi = (leaves + last) >> 1
        while lo >= 1 {
            for node in lo ... hi { pull(node) }
            lo >>= 1
            hi >>= 1
        }
    }

    /// The aggregate over the positions `l ..< r`.
    /// - Complexity: O(log n + 128)
    func aggregate(_ l: Int, _ r: Int, _ forest: Forest) -> Aggregate {
        guard l < r else { return .empty }
        return AggregateIndex.withNumbers(source, forest) { numbers in
            let first = l >> AggregateIndex.blockShift, last = (r - 1) >> AggregateIndex.blockShift
            if first == last { return scan(l, r, forest, numbers) }
            var result = scan(l, (first + 1) << AggregateIndex.blockShift, forest, numbers)
            result.add(scan(last << AggregateIndex.blockShift, r, forest, numbers))
            var lo = leaves + first + 1, hi = leaves + last
            while lo < hi {
                if lo & 1 == 1 { result.add(node(lo)); lo += 1 }
                if hi & 1 == 1 { hi -= 1; result.add(node(hi)) }
                lo >>= 1
                hi >>= 1
            }
            return result
        }
    }

    /// The bytes the index holds.
    var bytes: Int { count.capacity * 4 + (sum.capacity + minimum.capacity + maximum.capacity) * 8 }

    /// Checks the index against a fresh one (debug builds, `TreeStore.checkInvariants`).
    func checkInvariants(_ forest: Forest) {
        let fresh = AggregateIndex(source, forest: forest)
        precondition(fresh.capacity == capacity && fresh.count == count && fresh.sum == sum
                     && fresh.minimum == minimum && fresh.maximum == maximum, "aggregate index of \(source)")
    }

    // MARK: Internals

    @inline(__always)
    private func node(_ i: Int) -> Aggregate {
        sum.isEmpty ? Aggregate(count: Int(count[i]), sum: 0, minimum: .infinity, maximum: -.infinity)
            : Aggregate(count: Int(count[i]), sum: sum[i], minimum: minimum[i], maximum: maximum[i])
    }

    /// Calls `body` with the numbers of `source`'s column by slot (empty for `nodes`, or when
    /// no value is a number). Static: a method would hold a copy of the index while `body`
    /// changes it, and every change would copy its columns.
    @inline(__always)
    private static func withNumbers<R>(_ source: AggregateSource, _ forest: Forest, _ body: (UnsafeBufferPointer<Double>) -> R) -> R {
        guard case .field(let path) = source else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        return forest.fieldColumns[path]!.numbers.withUnsafeBufferPointer(body)
    }

    /// The aggregate of the positions `l ..< r` read one by one.
    @inline(__always)
    private func scan(_ l: Int, _ r: Int, _ forest: Forest, _ numbers: UnsafeBufferPointer<Double>) -> Aggregate {
        var result = Aggregate.empty
        forest.slotAt.withUnsafeBufferPointer { slotAt in
            if case .nodes = source {
                for p in l ..< r where slotAt[p] >= 0 { result.count += 1 }
                return
            }
            guard !numbers.isEmpty else { return }
            for p in l ..< r {
                let s = Int(slotAt[p])
                guard s >= 0 else { continue }
                let v = numbers[s]
                guard !v.isNaN else { continue }
                result.count += 1
                result.sum += v
                result.minimum = Swift.min(result.minimum, v)
                result.maximum = Swift.max(result.maximum, v)
            }
        }
        return result
    }

    private mutating func recomputeLeaf(_ block: Int, _ forest: Forest, _ numbers: UnsafeBufferPointer<Double>) {
        let l = block << AggregateIndex.blockShift
        let a = scan(l, min(capacity, l + AggregateIndex.blockSize), forest, numbers)
        set(leaves + block, a)
    }

    private mutating func pull(_ i: Int) {
        var a = node(2 * i)
        a.add(node(2 * i + 1))
        set(i, a)
    }

    @inline(__always)
    private mutating func set(_ i: Int, _ a: Aggregate) {
        count[i] = Int32(a.count)
        guard !sum.isEmpty else { return }
        sum[i] = a.sum
        minimum[i] = a.minimum
        maximum[i] = a.maximum
    }
}
