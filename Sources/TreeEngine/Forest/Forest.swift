/// A forest of titled nodes stored in pre-order, with columns instead of objects.
///
/// Two coordinate systems describe a node:
/// - its **position** `p` (a `Position`): an index into the position-indexed columns,
///   which hold the nodes in pre-order with *gaps* between them (a packed-memory array,
///   see `Forest+Layout.swift`). The subtree of `p` lies in `p ..< subtreeEnd(of: p)`, so
///   skipping a subtree is one jump; gaps inside that range belong to no node. An
///   edit moves only the positions near it, except when the columns grow or shrink.
/// - its **slot** (a `Slot`): a stable number for the node's lifetime, used by handles,
///   the id table, titles, flags and the parent link. Slots of deleted nodes are reused.
///
/// The columns store both as `Int32` entries; `Forest+Positions.swift` reads them as
/// the two types, so that one is never passed for the other.
///
/// Position-indexed columns: `slotAt` (`Forest.gap` in a gap), `depth`, `endAt`.
/// Slot-indexed columns: `positionOf`, `parentSlot`, `titleRef`, `flags`, and, only
/// when some node needs them, `dataRef` and the id table's `refs`.
/// Titles, explicit ids and `data` live in byte pools; there is no object per node
/// and no reference counting per node.
public struct Forest: Sendable {
    // MARK: Position-indexed
    /// The slot of the node at each position, `Forest.gap` where there is none.
    @usableFromInline var slotAt: ContiguousArray<Int32> = []
    @usableFromInline var depth: ContiguousArray<Int32> = []
    /// One past the position of the node's last descendant (itself for a leaf).
    @usableFromInline var endAt: ContiguousArray<Int32> = []
    /// The number of nodes in each segment of `Forest.segmentSize` positions.
    var segmentLoad: ContiguousArray<Int32> = []

    // MARK: Slot-indexed
    @usableFromInline var positionOf: ContiguousArray<Int32> = []
    /// The slot of the node's parent, -1 for a root.
    @usableFromInline var parentSlot: ContiguousArray<Int32> = []
    @usableFromInline var titleRef: ContiguousArray<UInt32> = []
    @usableFromInline var flags: ContiguousArray<NodeFlags> = []
    /// Offset + 1 of the node's `data` in `dataPool`; empty while no node has data.
    @usableFromInline var dataRef: ContiguousArray<UInt32> = []

    // MARK: Pools
    @usableFromInline var titles = BytePool()
    @usableFromInline var dataPool = BytePool()
    @usableFromInline var ids = IDTable()
    /// The values of the data fields that filters use, by slot (`Forest+FieldColumns.swift`).
    var fieldColumns: [FieldPath: FieldColumn] = [:]

    /// Slots of deleted nodes, reused by inserts.
    var freeSlots: [Slot] = []
    /// Set while a transaction holds releases back.
    var held: HeldReleases?
    /// Slots below this number that carry `NodeFlags.implicitID` are named `~slot`.
    var implicitIDLimit: Int32 = 0
    /// The next number tried for a generated id `~N` of an inserted node.
    var nextGeneratedID: Int64 = 0

    /// An empty forest.
    public init() {}

    /// The number of nodes.
    public internal(set) var count = 0

    /// Whether the forest has no node.
    /// - Complexity: O(1)
    public var isEmpty: Bool { count == 0 }
}

/// Per-node bits, slot-indexed.

@usableFromInline
struct NodeFlags: OptionSet, Sendable {
    @usableFromInline var rawValue: UInt8
    @inlinable init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Expanded in the unfiltered view.
    @inlinable static var expanded: NodeFlags { NodeFlags(rawValue: 1 << 0) }
    /// Uploaded with `hasChildren: true` (children not loaded yet).
    @inlinable static var declaresChildren: NodeFlags { NodeFlags(rawValue: 1 << 1) }
    /// The node's id is the generated `~slot`, stored nowhere.
    @inlinable static var implicitID: NodeFlags { NodeFlags(rawValue: 1 << 2) }
    /// The slot is free.
    static let free = NodeFlags(rawValue: 1 << 7)
}

/// A node of a forest: a stable handle for the node's lifetime.
///
/// Handles are cheap to pass around. A handle of a deleted node must not be used;
/// resolve ids to handles again after edits.
public struct NodeHandle: Hashable, Sendable, Comparable {
    public let slot: Slot
    @usableFromInline init(slot: Slot) { self.slot = slot }
    public static func < (a: NodeHandle, b: NodeHandle) -> Bool { a.slot < b.slot }
}

/// A node's id as the client sees it: a string, or an integer echoed as a JSON number.
public enum NodeID: Hashable, Sendable, CustomStringConvertible {
    case string(String)
    case integer(Int64)

    /// The string form: ids are unique by it, and URLs use it.
    public var description: String {
        switch self {
        case .string(let s): return s
        case .integer(let i): return String(i)
        }
    }
}
