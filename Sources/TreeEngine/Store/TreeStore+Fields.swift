/// The data fields that filters search and compare: the forest's field columns, made for
/// the kept filters that need them and dropped with the last of those.
extension TreeStore {
    /// Makes the columns `query` needs, reading data with `dataReader`.
    /// - Complexity: O(slots + data bytes) per column made, O(fields) otherwise
    mutating func readyFields(_ query: FilterQuery) {
        let paths = query.dataPaths
        guard !paths.isEmpty else { return }
        guard let dataReader else { preconditionFailure("a filter on data fields needs the store's dataReader") }
        forest.addFieldColumns(paths, reader: dataReader, workers: filterWorkers)
    }

    /// Drops the columns no kept filter needs (none inside a transaction, whose rollback may
    /// build the filters it restores).
    /// - Complexity: O(kept filters · their fields)
    mutating func dropUnusedFields() {
        guard undo == nil, !forest.fieldColumns.isEmpty else { return }
        var used = Set<FieldPath>()
        for entry in filtered { used.formUnion(entry.query.dataPaths) }
        for view in userViews.values { for entry in view.filtered { used.formUnion(entry.query.dataPaths) } }
        forest.dropFieldColumns(keeping: used)
    }

    /// The fields of `filter` whose value in `node` matches its text, in its order: what a
    /// row reports as `matchedFields` (none without a text).
    /// - Complexity: O(the fields' lengths · the text's length), plus reading the node's
    ///   data for fields without a column
    public func matchedFields(of node: NodeHandle, _ filter: FilterQuery) -> [NodeField] {
        NodeMatcher(filter).matchedFields(node.slot, in: forest, reader: dataReader)
    }

    /// The bytes the field columns take.
    public var fieldColumnBytes: Int { forest.fieldColumns.values.reduce(0) { $0 + $1.byteCount } }
}
