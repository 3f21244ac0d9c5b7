/// The columns of the nodes a `ForestBuilder` began last, held in one small buffer before
/// they join the forest's five node columns in a batch.
///
/// Appending a node to five arrays checks each array's uniqueness (and capacity) once per
/// array; writing it into this buffer checks one. The builder writes a node's title
/// reference, flags and end here too while the node is staged, which is nearly always: a
/// node's title and flags come right after it begins.
///
/// Staged are the slots `first ..< first + count`; the forest's columns hold those before.
@usableFromInline
struct NodeStage: Sendable {
    /// The columns, `capacity` words each, in the order of `Column`.
    @usableFromInline var words: ContiguousArray<UInt32> = []
    @usableFromInline let capacity: Int
    /// The slot of the first staged node.
    @usableFromInline var first = 0
    @usableFromInline var count = 0

    /// A column of the stage (its index times `capacity` is where it starts in `words`).
    @usableFromInline
    enum Column: Int, Sendable {
        case end = 0, level, parent, title, flags
    }

    /// A stage of at most 512 nodes, fewer for a builder that expects fewer.
    init(expectedNodes: Int) {
        capacity = min(512, max(16, expectedNodes))
    }

    /// Whether `slot` (begun, so less than `first + count`) is staged.
    @inlinable @inline(__always)
    func holds(_ slot: Int) -> Bool { slot >= first }

    /// Whether another node needs a flush first.
    @inlinable @inline(__always)
    var isFull: Bool { count == capacity }

    /// Stages the next node: its end (one past its own slot, until its children come),
    /// level and parent; no title, an implicit id.
    /// - Precondition: not `isFull`
    @inlinable @inline(__always)
    mutating func append(end: Int32, level: Int32, parent: Int32) {
        if words.isEmpty { words = ContiguousArray(repeating: 0, count: 5 * capacity) }
        let (k, c) = (count, capacity)
        words.withUnsafeMutableBufferPointer { w in
            w[k] = UInt32(bitPattern: end)
            w[c &+ k] = UInt32(bitPattern: level)
            w[2 &* c &+ k] = UInt32(bitPattern: parent)
            w[3 &* c &+ k] = 0
            w[4 &* c &+ k] = UInt32(NodeFlags.implicitID.rawValue)
        }
        count = k &+ 1
    }

    /// The `column` word of the staged `slot`.
    @inlinable @inline(__always)
    subscript(column: Column, slot: Int) -> UInt32 {
        get { words[column.rawValue &* capacity &+ (slot &- first)] }
        set { words[column.rawValue &* capacity &+ (slot &- first)] = newValue }
    }

    /// Starts staging at `slot` (the builder's nodes before it were added otherwise).
    /// - Precondition: the stage is empty
    mutating func restart(at slot: Int) {
        precondition(count == 0, "restart an empty stage")
        first = slot
    }

    /// Appends the staged nodes to `forest`'s columns and empties the stage.
    /// - Complexity: O(count)
    @usableFromInline
    mutating func flush(into forest: inout Forest) {
        guard count > 0 else { return }
        let (n, c) = (count, capacity)
        words.withUnsafeBufferPointer { w in
            // Int32 and UInt32 may alias: the signed columns read the same words.
            let signed = UnsafeRawPointer(w.baseAddress!).assumingMemoryBound(to: Int32.self)
            forest.endAt.append(contentsOf: UnsafeBufferPointer(start: signed, count: n))
            forest.depth.append(contentsOf: UnsafeBufferPointer(start: signed + c, count: n))
            forest.parentSlot.append(contentsOf: UnsafeBufferPointer(start: signed + 2 * c, count: n))
            forest.titleRef.append(contentsOf: UnsafeBufferPointer(start: w.baseAddress! + 3 * c, count: n))
            let start = forest.flags.count
            forest.flags.append(contentsOf: repeatElement(NodeFlags(), count: n))
            forest.flags.withUnsafeMutableBufferPointer { flags in
                for k in 0 ..< n { flags[start &+ k] = NodeFlags(rawValue: UInt8(truncatingIfNeeded: w[4 &* c &+ k])) }
            }
        }
        first += n
        count = 0
    }
}
