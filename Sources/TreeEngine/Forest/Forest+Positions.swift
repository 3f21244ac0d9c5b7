/// A node's index in the position-indexed columns (see `Forest`): nodes are in
/// pre-order with gaps between them; the subtree of position `p` is in
/// `p ..< subtreeEnd(of: p)`. Positions move only when an edit needs room near them
/// (or the columns grow or shrink).
public typealias Position = Int

/// A node's stable number for its lifetime (see `Forest`), what a `NodeHandle` holds.
/// Slot-indexed columns hold one entry per slot; slots of deleted nodes are reused.
/// Stored as 32 bits, like every column entry.
public typealias Slot = Int32

/// Reading the columns by position, so that callers need no casts between
/// positions, slots and column entries.
extension Forest {
    /// `slotAt` of a position that holds no node.
    static let gap: Slot = -1

    /// The number of positions: nodes and gaps.
    /// - Complexity: O(1)
    var capacity: Int { slotAt.count }

    /// Whether no node is at position `p`.
    /// - Complexity: O(1)
    @inline(__always)
    func isGap(_ p: Position) -> Bool { slotAt[p] < 0 }

    /// The slot of the node at position `p`.
    /// - Complexity: O(1)
    @inline(__always)
    func slot(at p: Position) -> Slot { slotAt[p] }

    /// The position of the node in `slot`.
    /// - Complexity: O(1)
    @inline(__always)
    func position(ofSlot slot: Slot) -> Position { Position(positionOf[Int(slot)]) }

    /// The end of the subtree of `p`: its nodes are at positions in `p ..< subtreeEnd(of: p)`.
    /// - Complexity: O(1)
    @inline(__always)
    func subtreeEnd(of p: Position) -> Position { Position(endAt[p]) }

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
    func level(at p: Position) -> Int { Int(depth[p]) }

    /// The flags of the node at `p`.
    /// - Complexity: O(1)
    @inline(__always)
    func flags(at p: Position) -> NodeFlags { flags[Int(slotAt[p])] }

    /// Sets or clears `flag` on the node at `p`.
    /// - Complexity: O(1)
    @inline(__always)
    mutating func setFlag(_ flag: NodeFlags, _ value: Bool, at p: Position) {
        let s = Int(slotAt[p])
        if value { flags[s].insert(flag) } else { flags[s].remove(flag) }
    }

    /// The first position at or after `p` that holds a node, or `capacity`.
    /// - Complexity: O(gap length), empty segments skipped
    func nextNode(from p: Position) -> Position {
        var q = p
        let n = capacity
        while q < n {
            if q & (Forest.segmentSize - 1) == 0 && segmentLoad[q >> Forest.segmentShift] == 0 {
                q += Forest.segmentSize
                continue
            }
            if slotAt[q] >= 0 { return q }
            q += 1
        }
        return n
    }

    /// The last position before `p` that holds a node, or -1.
    /// - Complexity: O(gap length), empty segments skipped
    func previousNode(before p: Position) -> Position {
        var q = p - 1
        while q >= 0 {
            if q & (Forest.segmentSize - 1) == Forest.segmentSize - 1 && segmentLoad[q >> Forest.segmentShift] == 0 {
                q -= Forest.segmentSize
                continue
            }
            if slotAt[q] >= 0 { return q }
            q -= 1
        }
        return -1
    }

    /// Calls `body` with the position of every node, in pre-order.
    /// - Complexity: O(positions)
    @inline(__always)
    func forEachPosition(_ body: (Position) throws -> Void) rethrows {
        try forEachPosition(in: 0 ..< capacity, body)
    }

    /// Calls `body` with the position of every node in `range`, in order.
    /// - Complexity: O(range)
    @inline(__always)
    func forEachPosition(in range: Range<Position>, _ body: (Position) throws -> Void) rethrows {
        try slotAt.withUnsafeBufferPointer { slots in
            for p in range where slots[p] >= 0 { try body(p) }
        }
    }
}
