/// The data fields that filters search and compare: the forest's field columns, made for
/// the kept filters that need them and dropped with the last of those.
extension TreeStore {
    /// Makes the columns `query` needs, reading data with `dataReader`.
    /// - Complexity: O(slots + data bytes) per column made, O(fields) otherwise
    mutating func readyFields(_ query: FilterQuery) {
        guard !query.isTitleOnly else { return }
        let paths = query.dataPaths
        guard !paths.isEmpty else { return }
        guard let dataReader else { preconditionFailure("a filter on data fields needs the store's dataReader") }
        forest.addFieldColumns(paths, reader: dataReader, workers: filterWorkers)
    }

    /// Drops the columns no kept filter needs (none inside a transaction, whose rollback may
    /// build the filters it restores).
    /// - Complexity: O(kept filters · their fields)
    mutating func dropUnusedFields() {
        guard undo == nil, layoutKeys == nil, !forest.fieldColumns.isEmpty else { return }
        var used = Set<FieldPath>()
        for entry in filtered { used.formUnion(entry.query.dataPaths) }
        for index in aggregateIndexes { if case .field(let path) = index.source { used.insert(path) } }
        for layout in sortedLayouts { used.formUnion(layout.keys.dataPaths) }
        for views in [userViews] + sortedLayouts.map(\.views.userViews) {
            for view in views.values { for entry in view.filtered { used.formUnion(entry.query.dataPaths) } }
        }
        forest.dropFieldColumns(keeping: used)
    }

    /// The fields of `filter` whose value in `node` matches its text, in its order: what a
    /// row reports as `matchedFields` (none without a text).
    /// - Complexity: O(the fields' lengths · the text's length), plus reading the node's
    ///   data for fields without a column
    public func matchedFields(of node: NodeHandle, _ filter: FilterQuery) -> [NodeField] {
        NodeMatcher(filter).matchedFields(node.slot, in: forest, reader: dataReader)
    }

    // MARK: Aggregates

    /// The aggregates of each of `sources` over the descendants of each of `nodes` (the node
    /// itself not counted), by node then source. An index is built for a source not kept
    /// (a field's column first), and the kept ones past `aggregateCapacity`, least recently
    /// used first, are dropped (not inside a transaction).
    /// - Complexity: O(nodes · sources · log n), plus O(n + data bytes) per index built
    public mutating func aggregates(of nodes: [NodeHandle], _ sources: [AggregateSource]) -> [[Aggregate]] {
        prepareAggregates(sources)
        return keptAggregates(of: nodes, sources)!
    }

    /// Builds the indexes of `sources` not kept (a field's column first) and makes them all
    /// the most recently used; drops the kept ones past `aggregateCapacity`, least recently
    /// used first (not inside a transaction).
    /// - Complexity: O(n + data bytes) per index built, O(kept) otherwise
    public mutating func prepareAggregates(_ sources: [AggregateSource]) {
        for source in sources {
            if let i = aggregateIndexes.firstIndex(where: { $0.source == source }) {
                aggregateIndexes.append(aggregateIndexes.remove(at: i))
                continue
            }
            if case .field(let path) = source {
                guard let dataReader else { preconditionFailure("an aggregate of a data field needs the store's dataReader") }
                forest.addFieldColumns([path], reader: dataReader, workers: filterWorkers)
            }
            aggregateIndexes.append(AggregateIndex(source, forest: forest))
        }
        if aggregateIndexes.count > aggregateCapacity && undo == nil {
            aggregateIndexes.removeFirst(aggregateIndexes.count - aggregateCapacity)
            dropUnusedFields()
        }
    }

    /// The aggregates of each of `sources` over the descendants of each of `nodes`, by node
    /// then source; nil when an index is not kept (`prepareAggregates` builds it). Changes
    /// nothing: for readers.
    /// - Complexity: O(nodes · sources · log n)
    public func keptAggregates(of nodes: [NodeHandle], _ sources: [AggregateSource]) -> [[Aggregate]]? {
        var indexes: [AggregateIndex] = []
        for source in sources {
            guard let index = aggregateIndexes.first(where: { $0.source == source }) else { return nil }
            indexes.append(index)
        }
        return nodes.map { node in
            let p = forest.position(of: node)
            let end = forest.subtreeEnd(of: p).offset
            return indexes.map { $0.aggregate(p.offset + 1, end, forest) }
        }
    }

    /// The kept aggregate indexes follow the positions `range` that changed.
    /// - Complexity: O(range + log n) per index
    mutating func updateAggregates(_ range: Range<Int>) {
        for i in aggregateIndexes.indices { aggregateIndexes[i].update(range, forest) }
    }

    /// The bytes the field columns take.
    public var fieldColumnBytes: Int { forest.fieldColumns.values.reduce(0) { $0 + $1.byteCount } }

    /// The bytes the kept aggregate indexes take.
    public var aggregateBytes: Int { aggregateIndexes.reduce(0) { $0 + $1.bytes } }
}
