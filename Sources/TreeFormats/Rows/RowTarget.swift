import TreeEngine

/// The store rows to insert go into, as their readers ask it: its node count, a builder of
/// fragments for it, and the node a row's `parentId` names when the body has no such row.
/// Detached (no store), for a body read before its session is locked: every such name is
/// kept as it is (`GroupParent.named`), for `TreeStore.attach` to look up under the lock.
struct RowTarget {
    /// The store; nil when detached.
    let store: TreeStore?

    var existingCount: Int { store?.forest.count ?? 0 }

    func fragmentBuilder(limits: ForestLimits, expectedBytes: Int) -> ForestBuilder {
        store?.fragmentBuilder(limits: limits, expectedBytes: expectedBytes)
            ?? TreeStore.detachedFragmentBuilder(limits: limits, expectedBytes: expectedBytes)
    }

    /// Where the rows whose parent `key` (a span of `table`) names no row of the body go:
    /// the store's node with that id, or nil when it has none; detached, the id itself.
    func parent(named key: RowSpan, in table: RowTable) -> GroupParent? {
        guard let store else { return .named(table.withRaw(key) { Array($0) }) }
        return table.existingNode(key, in: store.forest).map(GroupParent.node)
    }
}

/// The existing node a group of inserted rows goes under: found, or (detached) its id.
enum GroupParent: Hashable {
    case node(NodeHandle)
    case named([UInt8])
}

/// A group of rows to insert: under `parent` (nil: the top level), the roots of `fragment`.
typealias RowGroup = (parent: GroupParent?, fragment: Forest)
