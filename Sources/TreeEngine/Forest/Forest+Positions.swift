/// A node's index in the position-indexed columns (see `Forest`): nodes are in
/// pre-order with gaps between them; the subtree of position `p` is in
/// `p ..< subtreeEnd(of: p)`. Positions move only when an edit needs room near them
/// (or the columns grow or shrink). A type of its own, so that a `Slot` is never taken
/// for one; `p + k` and `p - q` are offsets, and `offset` is the column index.
struct Position: Strideable, Sendable, CustomStringConvertible {
    /// The index into the position-indexed columns.
    var offset: Int

    /// The position at index `offset` of the columns.
    @inline(__always) init(_ offset: Int) { self.offset = offset }

    /// A position as a column stores it (`positionOf`, `endAt`).
    @inline(__always) init(entry: Int32) { offset = Int(entry) }

    /// The position as a column stores it.
    @inline(__always) var entry: Int32 { Int32(offset) }

    @inline(__always) func distance(to other: Position) -> Int { other.offset &- offset }
    @inline(__always) func advanced(by n: Int) -> Position { Position(offset &+ n) }
    @inline(__always) static func == (a: Position, b: Position) -> Bool { a.offset == b.offset }
    @inline(__always) static func < (a: Position, b: Position) -> Bool { a.offset < b.offset }
    @inline(__always) static func + (p: Position, n: Int) -> Position { Position(p.offset + n) }
    @inline(__always) static func - (p: Position, n: Int) -> Position { Position(p.offset - n) }
    @inline(__always) static func - (a: Position, b: Position) -> Int { a.offset - b.offset }
    @inline(__always) static func += (p: inout Position, n: Int) { p.offset += n }
    @inline(__always) static func -= (p: inout Position, n: Int) { p.offset -= n }

    /// The index, as messages print it.
    var description: String { String(offset) }
}

/// A node's stable number for its lifetime (see `Forest`), what a `NodeHandle` holds.
/// Slot-indexed columns hold one entry per slot; slots of deleted nodes are reused.
/// Stored as 32 bits, like every column entry; a type of its own, so that a `Position`
/// is never taken for one.
public struct Slot: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The slot as a column stores it (`slotAt`, `parentSlot`, the id table's buckets).
    @usableFromInline package let rawValue: Int32

    @inlinable init(rawValue: Int32) { self.rawValue = rawValue }

    /// The slot numbered `index`.
    @inlinable init(_ index: Int) { rawValue = Int32(index) }

    /// The index of the slot's entries in the slot-indexed columns.
    @inlinable var index: Int { Int(rawValue) }

    @inlinable public static func < (a: Slot, b: Slot) -> Bool { a.rawValue < b.rawValue }

    /// The number, as messages print it.
    public var description: String { String(rawValue) }
}

/// Reading the columns by position and by slot: where a column entry becomes a
/// `Position` or a `Slot`, so that callers need no casts.
extension Forest {
    /// The `slotAt` entry of a position that holds no node.
    static let gap: Int32 = -1

    /// The number of positions: nodes and gaps.
    /// - Complexity: O(1)
    var capacity: Int { slotAt.count }

    /// Every position: nodes and gaps.
    /// - Complexity: O(1)
    var positions: Range<Position> { Position(0) ..< Position(slotAt.count) }

    /// Whether no node is at position `p`.
    /// - Complexity: O(1)
    @inline(__always)
    func isGap(_ p: Position) -> Bool { slotAt[p.offset] < 0 }

    /// The slot of the node at position `p`, which holds one.
    /// - Complexity: O(1)
    @inline(__always)
    func slot(at p: Position) -> Slot { Slot(rawValue: slotAt[p.offset]) }

    /// The position of the node in `slot`.
    /// - Complexity: O(1)
    @inline(__always)
    func position(ofSlot slot: Slot) -> Position { Position(entry: positionOf[slot.index]) }

    /// The slot of the parent of the node in `slot`, nil for a root.
    /// - Complexity: O(1)
    @inline(__always)
    func parent(ofSlot slot: Slot) -> Slot? {
        let parent = parentSlot[slot.index]
        return parent < 0 ? nil : Slot(rawValue: parent)
    }

    /// The end of the subtree of `p`: its nodes are at positions in `p ..< subtreeEnd(of: p)`.
    /// - Complexity: O(1)
    @inline(__always)
    func subtreeEnd(of p: Position) -> Position { Position(entry: endAt[p.offset]) }

    /// The positions of the descendants of `p` (gaps included).
    /// - Complexity: O(1)
    @inline(__always)
    func descendants(of p: Position) -> Range<Position> { p + 1 ..< subtreeEnd(of: p) }

    /// The positions of `p` and its descendants (gaps included).
    /// - Complexity: O(1)
    @inline(__always)
    func subtree(of p: Position) -> Range<Position> { p ..< subtreeEnd(of: p) }

    /// The nesting level of the node at `p`: 0 for roots.
    /// - Complexity: O(1)
    @inline(__always)
    func level(at p: Position) -> Int { Int(depth[p.offset]) }

    /// The flags of the node at `p`.
    /// - Complexity: O(1)
    @inline(__always)
    func flags(at p: Position) -> NodeFlags { flags[slot(at: p).index] }

    /// Sets or clears `flag` on the node at `p`.
    /// - Complexity: O(1)
    @inline(__always)
    mutating func setFlag(_ flag: NodeFlags, _ value: Bool, at p: Position) {
        let s = slot(at: p).index
        if value { flags[s].insert(flag) } else { flags[s].remove(flag) }
    }

    /// The first position at or after `p` that holds a node, or the end of the positions.
    /// - Complexity: O(gap length), empty segments skipped
    func nextNode(from p: Position) -> Position {
        var q = p.offset
        let n = capacity
        while q < n {
            if q & (Forest.segmentSize - 1) == 0 && segmentLoad[q >> Forest.segmentShift] == 0 {
                q += Forest.segmentSize
                continue
            }
            if slotAt[q] >= 0 { return Position(q) }
            q += 1
        }
        return Position(n)
    }

    /// One past the last position before `p` that holds a node, or 0 when none does.
    /// - Complexity: O(gap length), empty segments skipped
    func endOfNodes(before p: Position) -> Position {
        var q = p.offset - 1
        while q >= 0 {
            if q & (Forest.segmentSize - 1) == Forest.segmentSize - 1 && segmentLoad[q >> Forest.segmentShift] == 0 {
                q -= Forest.segmentSize
                continue
            }
            if slotAt[q] >= 0 { return Position(q + 1) }
            q -= 1
        }
        return Position(0)
    }

    /// Calls `body` with the position of every node, in pre-order.
    /// - Complexity: O(positions)
    @inline(__always)
    func forEachPosition(_ body: (Position) throws -> Void) rethrows {
        try forEachPosition(in: positions, body)
    }

    /// Calls `body` with the position of every node in `range`, in order.
    /// - Complexity: O(range)
    @inline(__always)
    func forEachPosition(in range: Range<Position>, _ body: (Position) throws -> Void) rethrows {
        try slotAt.withUnsafeBufferPointer { slots in
            for p in range.lowerBound.offset ..< range.upperBound.offset where slots[p] >= 0 { try body(Position(p)) }
        }
    }
}
