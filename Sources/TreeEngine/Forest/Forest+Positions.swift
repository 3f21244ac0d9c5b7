/// A node's index in pre-order (see `Forest`): the subtree of position `p` is the
/// positions `p ..< p + subtreeCount`. Positions shift when the tree is edited.
/// Position-indexed columns hold one entry per position.
public typealias Position = Int

/// A node's stable number for its lifetime (see `Forest`), what a `NodeHandle` holds.
/// Slot-indexed columns hold one entry per slot; slots of deleted nodes are reused.
/// Stored as 32 bits, like every column entry.
public typealias Slot = Int32

/// Reading the columns by position, so that callers need no casts between
/// positions, slots and column entries.
extension Forest {
    /// The slot of the node at position `p`.
    /// - Complexity: O(1)
    @inline(__always)
    func slot(at p: Position) -> Slot { slotAt[p] }

    /// The position of the node in `slot`.
    /// - Complexity: O(1)
    @inline(__always)
    func position(ofSlot slot: Slot) -> Position { Position(positionOf[Int(slot)]) }

    /// The end of the subtree of `p`: its positions are `p ..< subtreeEnd(of: p)`.
    /// - Complexity: O(1)
    @inline(__always)
    func subtreeEnd(of p: Position) -> Position { p + Int(subtreeSize[p]) }

    /// The positions of the descendants of `p`.
    /// - Complexity: O(1)
    @inline(__always)
    func descendants(of p: Position) -> Range<Position> { p + 1 ..< subtreeEnd(of: p) }

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
}
