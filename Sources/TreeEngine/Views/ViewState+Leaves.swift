/// `FilterQuery.leavesOnly`: only nodes without children match.
///
/// A leaf is a node whose row says `hasChildren: false`: no child nodes, and not
/// uploaded with `hasChildren: true` (children not loaded yet count as children).
/// Whether a node is a leaf changes with edits, so the views follow: a node that gains
/// its first child stops matching, one that loses its last may start (see
/// `ViewState+Edits.swift`, `rematch`).
extension ViewState {
    /// Clears the bits of the nodes that have children (or declare them).
    /// - Complexity: O(positions)
    static func keepLeaves(_ matches: inout Bitset, _ forest: Forest) {
        forest.slotAt.withUnsafeBufferPointer { slotAt in
            forest.endAt.withUnsafeBufferPointer { endAt in
                forest.flags.withUnsafeBufferPointer { flags in
                    for p in 0 ..< slotAt.count {
                        let slot = Int(slotAt[p])
                        if slot >= 0 && (Int(endAt[p]) > p + 1 || flags[slot].contains(.declaresChildren)) {
                            matches.remove(slot)
                        }
                    }
                }
            }
        }
    }

    /// Whether the node in `slot` can match a query that wants leaves only.
    @inline(__always)
    static func isLeaf(_ slot: Slot, in forest: Forest) -> Bool {
        !forest.hasChildren(atPosition: forest.position(ofSlot: slot))
    }
}
