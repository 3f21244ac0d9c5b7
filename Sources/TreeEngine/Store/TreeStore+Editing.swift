/// Where inserted nodes go.
public enum InsertPlacement: Sendable, Equatable {
    /// Children of `parent` (roots when nil) at `index` among its children; nil: after the last.
    case child(of: NodeHandle?, index: Int?)
    /// Siblings just before `node`.
    case before(NodeHandle)
    /// Siblings just after `node`.
    case after(NodeHandle)
}

extension TreeStore {
    /// A builder of nodes to insert into this store (a format reader fills it): their
    /// ids are checked against the forest's, and `limits.maxNodes` counts the forest's
    /// nodes too. Id-less nodes get their ids when the fragment is inserted.
    /// - Complexity: O(1); each id given costs an O(1) expected lookup in the forest
    public func fragmentBuilder(limits: ForestLimits, expectedBytes: Int = 0) -> ForestBuilder {
        let forest = self.forest
        return ForestBuilder(limits: limits, expectedBytes: expectedBytes, existingCount: forest.count,
                             isTakenOutside: { forest.idExists($0) }, isFragment: true)
    }

    /// Inserts `fragment` (built by `fragmentBuilder`, e.g. through `parseFragment`) at `placement`.
    /// - Returns: the splices of the named view, and the inserted roots.
    /// - Complexity: O(n + fragment size)
    public mutating func insert(_ fragment: Forest, _ placement: InsertPlacement, _ filter: FilterQuery?)
        throws(EditError) -> (splices: [Splice], roots: [NodeHandle]) {
        let parent: NodeHandle?
        let p: Int
        switch placement {
        case .child(let of, let index):
            parent = of
            p = try forest.insertionPosition(parent: of, index: index)
        case .before(let node):
            parent = forest.parent(of: node)
            p = forest.position(of: node)
        case .after(let node):
            parent = forest.parent(of: node)
            p = forest.position(of: node) + forest.subtreeCount(node)
        }
        let rootCount = fragment.childCount(of: nil)
        let k = fragment.count
        let splices = edit(filter) { store in
            store.forest.insert(fragment, at: p, parent: parent)
            store.unfiltered.reindex(store.forest)
            let inserted = store.unfiltered.index.zeros(in: p ..< p + k)
            return inserted == 0 ? [] : [Splice(index: store.unfiltered.index.zeros(before: p), removed: 0, inserted: inserted)]
        }
        var roots: [NodeHandle] = []
        var q = p
        for _ in 0 ..< rootCount {
            roots.append(forest.node(atPosition: q))
            q += Int(forest.subtreeSize[q])
        }
        return (splices, roots)
    }

    /// Deletes `node` and its subtree.
    /// - Complexity: O(n)
    public mutating func delete(_ node: NodeHandle, _ filter: FilterQuery?) -> [Splice] {
        edit(filter) { store in
            let p = store.forest.position(of: node)
            let range = p ..< p + store.forest.subtreeCount(node)
            let removed = store.unfiltered.index.zeros(in: range)
            let at = store.unfiltered.index.zeros(before: p)
            store.forest.removeSubtree(at: p)
            store.unfiltered.reindex(store.forest)
            return removed == 0 ? [] : [Splice(index: at, removed: removed, inserted: 0)]
        }
    }

    /// Moves `node` to be the child at `index` of `parent` (a root when nil), `index`
    /// counted once the node has left its old place (nil: after the last child).
    /// - Complexity: O(n)
    public mutating func move(_ node: NodeHandle, to parent: NodeHandle?, index: Int?, _ filter: FilterQuery?) throws(EditError) -> [Splice] {
        if let parent, forest.isAncestorOrSelf(node, of: parent) {
            throw EditError(kind: .cycle, message: "cannot move \(forest.id(of: node)) into its own subtree")
        }
        // Validate the index against the parent's children without the node.
        let siblings = forest.childCount(of: parent) - (forest.parent(of: node) == parent ? 1 : 0)
        if let index, index < 0 || index > siblings {
            throw EditError(kind: .indexOutOfRange,
                            message: "index \(index) is out of range: the parent has \(siblings) other children (0...\(siblings) allowed)")
        }
        return try editThrowing(filter) { (store) throws(EditError) in
            let s = store.forest.subtreeCount(node)
            let p = store.forest.position(of: node)
            let removed = store.unfiltered.index.zeros(in: p ..< p + s)
            let removedAt = store.unfiltered.index.zeros(before: p)
            try store.forest.move(node, to: parent, index: index)
            store.unfiltered.reindex(store.forest)
            let q = store.forest.position(of: node)
            let inserted = store.unfiltered.index.zeros(in: q ..< q + s)
            var splices: [Splice] = []
            if removed > 0 { splices.append(Splice(index: removedAt, removed: removed, inserted: 0)) }
            if inserted > 0 { splices.append(Splice(index: store.unfiltered.index.zeros(before: q), removed: 0, inserted: inserted)) }
            return splices
        }
    }

    /// Replaces the title and/or the data (raw JSON) of `node`.
    /// Rows keep their nodes in the unfiltered view, so its changes are empty;
    /// a filtered view is rebuilt, as after any edit.
    /// - Complexity: O(title + data length); O(n) when a filtered view is named
    public mutating func update(_ node: NodeHandle, title: String?, data: [UInt8]?, _ filter: FilterQuery?) -> [Splice] {
        edit(filter) { store in
            if var title { title.withUTF8 { store.forest.setTitle(of: node, to: UnsafeRawBufferPointer($0)) } }
            if let data { data.withUnsafeBytes { store.forest.setData(of: node, to: $0) } }
            return []
        }
    }

    // MARK: Edits and views

    /// Runs an edit. Filtered views are dropped (rebuilt when next named); when the
    /// edit names a filtered view, its splices compare that view before the edit with
    /// its rebuilt self after it. `body` returns the unfiltered view's splices.
    private mutating func edit(_ filter: FilterQuery?, _ body: (inout TreeStore) -> [Splice]) -> [Splice] {
        try! editThrowing(filter) { (store) throws(EditError) in body(&store) }
    }

    private mutating func editThrowing(_ filter: FilterQuery?, _ body: (inout TreeStore) throws(EditError) -> [Splice]) throws(EditError) -> [Splice] {
        guard let filter else {
            let splices = try body(&self)
            filtered.removeAll()
            checkInvariants()
            return splices
        }
        let before = visibleRowKeys(filter)
        _ = try body(&self)
        filtered.removeAll()
        let after = visibleRowKeys(filter)
        checkInvariants()
        return Splice.trimmedDiff(before, after)
    }

    /// The visible rows of a view as (slot, level) pairs: which node is on each row, and how deep.
    /// - Complexity: O(visible rows · log n / 64)
    mutating func visibleRowKeys(_ filter: FilterQuery?) -> [RowKey] {
        readView(filter) { view, forest in
            var keys: [RowKey] = []
            keys.reserveCapacity(view.index.zeroCount)
            view.index.forEachZero(from: 0, limit: view.index.zeroCount) { p in
                keys.append(RowKey(slot: forest.slotAt[p], level: forest.depth[p]))
            }
            return keys
        }
    }
}

/// Which node is on a row, and how deep: what a row's identity is for `changes`.
struct RowKey: Equatable {
    var slot: Slot
    var level: Int32
}

extension Splice {
    /// One splice covering everything between the common prefix and suffix of two row lists.
    /// - Complexity: O(rows)
    static func trimmedDiff(_ old: [RowKey], _ new: [RowKey]) -> [Splice] {
        var prefix = 0
        while prefix < old.count && prefix < new.count && old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix && suffix < new.count - prefix
                && old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        let removed = old.count - prefix - suffix, inserted = new.count - prefix - suffix
        return removed == 0 && inserted == 0 ? [] : [Splice(index: prefix, removed: removed, inserted: inserted)]
    }
}
