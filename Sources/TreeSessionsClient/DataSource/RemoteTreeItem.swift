/// A row of a `RemoteListTreeDataSource`: a node as its view shows it, in the words of
/// SwiftListTreeDataSource's `TreeItem` (`level`, `isExpanded`, `parent`).
public struct RemoteTreeItem: Sendable, Equatable, Identifiable {
    public var id: NodeId
    public var title: String
    /// 0 for a root.
    public var level: Int
    /// The node's state in the rows the data source names (its view, its filter).
    public var isExpanded: Bool
    /// The node has children (or was uploaded with `hasChildren: true`).
    public var hasChildren: Bool
    /// The parent's id; nil for a root.
    public var parent: NodeId?
    /// The node's data; nil when it has none (`.null` when it is `null`).
    public var data: JSONValue?
    /// The row as the service sent it (`match`, `matchRanges`, `selected`, …), with `index` its
    /// position in `items` now (later changes may have moved it since it was fetched).
    public var row: Row

    public init(row: Row) {
        id = row.id
        title = row.title
        level = row.level
        isExpanded = row.expanded
        hasChildren = row.hasChildren
        parent = row.parentId
        data = row.data
        self.row = row
    }
}

/// The rows of a `RemoteListTreeDataSource` as a collection of `total` rows: each the cached
/// row, or nil while it is not loaded (`load(_:)` fetches it). A snapshot: the data source's
/// later changes do not reach a value already taken.
///
/// - Complexity: subscript O(log r), r the runs of cached rows; taking the value O(1).
public struct RemoteTreeItems: RandomAccessCollection, Sendable {
    let cache: RowCache<RemoteTreeItem>

    public var startIndex: Int { 0 }
    public var endIndex: Int { cache.total }

    public subscript(position: Int) -> RemoteTreeItem? {
        guard var item = cache.row(at: position) else { return nil }
        item.row.index = position
        return item
    }

    /// The indices of `range` whose rows are not loaded.
    public func missing(in range: Range<Int>) -> [Range<Int>] {
        cache.missing(in: range)
    }
}
