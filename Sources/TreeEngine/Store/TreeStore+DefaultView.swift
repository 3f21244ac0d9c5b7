/// The operations on the default view, named by its filter alone (nil: its unfiltered
/// rows): each is the `ViewRef` operation on `ViewRef(filter: filter)`.
extension TreeStore {
    public mutating func prepareView(_ filter: FilterQuery?, isCancelled: () -> Bool = { false }) throws(Cancelled) {
        try prepareView(ViewRef(filter: filter), isCancelled: isCancelled)
    }

    /// Whether the default view keeps the filtered rows of `filter` (naming them costs nothing).
    public func hasView(_ filter: FilterQuery) -> Bool { isKept(ViewRef(filter: filter)) }

    /// The default view's kept filters, least recently used first.
    public var keptFilters: [FilterQuery] { keptFilters(in: nil) }

    public mutating func arrangeViews(_ order: [FilterQuery]) { arrangeViews(order, in: nil) }

    public mutating func rowCount(_ filter: FilterQuery?) -> Int { rowCount(ViewRef(filter: filter)) }
    public mutating func matchCount(_ filter: FilterQuery) -> Int { matchCount(ViewRef(filter: filter)) }
    public mutating func rows(_ filter: FilterQuery?, offset: Int, limit: Int) -> [Row] {
        rows(ViewRef(filter: filter), offset: offset, limit: limit)
    }
    public func keptRowCount(_ filter: FilterQuery?) -> Int? { keptRowCount(ViewRef(filter: filter)) }
    public func keptMatchCount(_ filter: FilterQuery) -> Int? { keptMatchCount(ViewRef(filter: filter)) }
    public func keptFilterWorkers(_ filter: FilterQuery) -> Int? { keptFilterWorkers(ViewRef(filter: filter)) }
    public func keptRows(_ filter: FilterQuery?, offset: Int, limit: Int) -> [Row]? {
        keptRows(ViewRef(filter: filter), offset: offset, limit: limit)
    }
    public func keptPlacement(of node: NodeHandle, _ filter: FilterQuery?) -> (index: Int?, expanded: Bool, match: Bool)? {
        keptPlacement(of: node, ViewRef(filter: filter))
    }
    public mutating func rowIndex(of node: NodeHandle, _ filter: FilterQuery?) -> Int? { rowIndex(of: node, ViewRef(filter: filter)) }
    public mutating func isExpanded(_ node: NodeHandle, _ filter: FilterQuery?) -> Bool { isExpanded(node, ViewRef(filter: filter)) }
    public mutating func isMatch(_ node: NodeHandle, _ filter: FilterQuery?) -> Bool { isMatch(node, ViewRef(filter: filter)) }

    public mutating func prepareMatchIndex(_ filter: FilterQuery) { prepareMatchIndex(ViewRef(filter: filter)) }
    public func hasMatchIndex(_ filter: FilterQuery) -> Bool { hasMatchIndex(ViewRef(filter: filter)) }
    public func keptMatchRank(of node: NodeHandle, including: Bool = false, _ filter: FilterQuery) -> Int {
        keptMatchRank(of: node, including: including, ViewRef(filter: filter))
    }
    public func keptMatch(_ ordinal: Int, _ filter: FilterQuery) -> NodeHandle { keptMatch(ordinal, ViewRef(filter: filter)) }

    public mutating func setExpanded(_ node: NodeHandle, _ value: Bool, recursive: Bool = false, _ filter: FilterQuery?) -> [Splice] {
        setExpanded(node, value, recursive: recursive, ViewRef(filter: filter))
    }
    public mutating func reveal(_ node: NodeHandle, _ filter: FilterQuery?) -> [Splice] { reveal(node, ViewRef(filter: filter)) }
    public mutating func expandAll(_ filter: FilterQuery?) -> [Splice] { expandAll(ViewRef(filter: filter)) }
    public mutating func expand(toDepth depth: Int, _ filter: FilterQuery?) -> [Splice] { expand(toDepth: depth, ViewRef(filter: filter)) }
    public mutating func collapseAll(_ filter: FilterQuery?) -> [Splice] { collapseAll(ViewRef(filter: filter)) }

    public mutating func insert(_ fragment: Forest, _ placement: InsertPlacement, _ filter: FilterQuery?)
        throws(EditError) -> (splices: [Splice], roots: [NodeHandle]) {
        try insert(fragment, placement, ViewRef(filter: filter))
    }
    public mutating func delete(_ node: NodeHandle, _ filter: FilterQuery?) -> [Splice] { delete(node, ViewRef(filter: filter)) }
    public mutating func move(_ node: NodeHandle, to parent: NodeHandle?, index: Int?, _ filter: FilterQuery?) throws(EditError) -> [Splice] {
        try move(node, to: parent, index: index, ViewRef(filter: filter))
    }
    public mutating func update(_ node: NodeHandle, title: String?, data: [UInt8]?, _ filter: FilterQuery?) -> [Splice] {
        update(node, title: title, data: data, ViewRef(filter: filter))
    }
}
