/// The seed library's changes, each one request: expansion (no precondition: it names nodes by
/// id), and tree edits (`If-Match` with the version held; on 412, a refresh and one more try).
/// Each answers the `ListUpdate` of what it applied.
extension RemoteListTreeDataSource {
    // MARK: Expansion

    /// Expands a collapsed row, collapses an expanded one.
    @discardableResult
    public func toggleExpand(_ item: RemoteTreeItem) async throws -> ListUpdate {
        try await setExpanded(item.id, !item.isExpanded)
    }

    /// Expands or collapses the node `id` (`recursive`: with its whole subtree).
    @discardableResult
    public func setExpanded(_ id: NodeId, _ expanded: Bool, recursive: Bool = false) async throws -> ListUpdate {
        try await change {
            try await $0.client.patchItem($0.session, view: $0.view, id,
                                          .setExpanded(SetExpanded(expanded: expanded, recursive: recursive ? true : nil)),
                                          filter: $0.filter)
        }
    }

    /// SwiftListTreeDataSource's `updateAllLevels(of:isExpanded:)`: the item and its subtree.
    @discardableResult
    public func updateAllLevels(of item: RemoteTreeItem, isExpanded: Bool) async throws -> ListUpdate {
        try await setExpanded(item.id, isExpanded, recursive: true)
    }

    /// Expands every ancestor of `id` so that its row shows.
    @discardableResult
    public func reveal(_ id: NodeId) async throws -> ListUpdate {
        try await change { try await $0.client.patchItem($0.session, view: $0.view, id, .reveal(Reveal()), filter: $0.filter) }
    }

    /// Expands every node with children.
    @discardableResult
    public func expandAll() async throws -> ListUpdate {
        try await change { try await $0.client.patchView($0.session, view: $0.view, .expandAll(ExpandAll()), filter: $0.filter) }
    }

    /// Collapses every node.
    @discardableResult
    public func collapseAll() async throws -> ListUpdate {
        try await change { try await $0.client.patchView($0.session, view: $0.view, .collapseAll(CollapseAll()), filter: $0.filter) }
    }

    /// Expands the nodes at a level below `depth`, collapses the others.
    @discardableResult
    public func expand(toDepth depth: Int) async throws -> ListUpdate {
        try await change {
            try await $0.client.patchView($0.session, view: $0.view, .expandToDepth(ExpandToDepth(expandDepth: depth)), filter: $0.filter)
        }
    }

    // MARK: Selection and order

    /// Selects or deselects `id` in the view's selection: with its subtree, or (`recursive`
    /// false) alone. Rows carry `selected` (in `row`) once the view selects something.
    @discardableResult
    public func setSelected(_ id: NodeId, _ selected: Bool, recursive: Bool = true) async throws -> ListUpdate {
        try await change {
            try await $0.client.patchItem($0.session, view: $0.view, id,
                                          .setSelected(SetSelected(selected: selected, recursive: recursive ? nil : false)),
                                          filter: $0.filter)
        }
    }

    /// Selects every node, or none, or flips every node's state.
    @discardableResult
    public func selectAll() async throws -> ListUpdate {
        try await change { try await $0.client.patchView($0.session, view: $0.view, .selectAll(SelectAll()), filter: $0.filter) }
    }

    @discardableResult
    public func selectNone() async throws -> ListUpdate {
        try await change { try await $0.client.patchView($0.session, view: $0.view, .selectNone(SelectNone()), filter: $0.filter) }
    }

    @discardableResult
    public func invertSelection() async throws -> ListUpdate {
        try await change { try await $0.client.patchView($0.session, view: $0.view, .invertSelection(InvertSelection()), filter: $0.filter) }
    }

    /// Orders the view's siblings by `keys` (`"-data.size,title"`), or by the tree's order (nil),
    /// keeping every node's expansion and selection: a view's only (the default view answers 422).
    @discardableResult
    public func setSort(_ keys: String?) async throws -> ListUpdate {
        try await change { try await $0.client.patchView($0.session, view: $0.view, .setSort(SetSort(sort: keys)), filter: $0.filter) }
    }

    // MARK: Tree edits

    /// Appends `nodes` to the children of `parent` (nil: to the roots).
    @discardableResult
    public func append(_ nodes: [Node], to parent: NodeId? = nil) async throws -> ListUpdate {
        try await insert(.asChildren(InsertAsChildren(nodes: nodes, parentId: Nullable(parent))))
    }

    /// Inserts `nodes` among the children of `parent` (nil: the roots) from position `index`.
    @discardableResult
    public func insert(_ nodes: [Node], into parent: NodeId?, at index: Int) async throws -> ListUpdate {
        try await insert(.asChildren(InsertAsChildren(nodes: nodes, parentId: Nullable(parent), index: index)))
    }

    /// Inserts `nodes` as siblings right after `item`.
    @discardableResult
    public func insert(_ nodes: [Node], after item: NodeId) async throws -> ListUpdate {
        try await insert(.after(InsertAfter(nodes: nodes, after: item)))
    }

    /// Inserts `nodes` as siblings right before `item`.
    @discardableResult
    public func insert(_ nodes: [Node], before item: NodeId) async throws -> ListUpdate {
        try await insert(.before(InsertBefore(nodes: nodes, before: item)))
    }

    private func insert(_ body: InsertItemsBody) async throws -> ListUpdate {
        try await edit { try await $0.client.insertItems($0.session, view: $0.view, body, filter: $0.filter, ifMatch: $1) }
    }

    /// Deletes the nodes `ids` with their subtrees (several: one batch, all or nothing).
    @discardableResult
    public func delete(_ ids: [NodeId]) async throws -> ListUpdate {
        if ids.count == 1, let id = ids.first {
            return try await edit { try await $0.client.deleteItem($0.session, view: $0.view, id, filter: $0.filter, ifMatch: $1) }
        }
        return try await batch(ids.map { .delete(DeleteOperation(id: $0)) })
    }

    /// Moves `id` (with its subtree) to position `index` among the children of `parent` (nil: the
    /// roots), counted once it has left its place: SwiftListTreeDataSource's `move(_:toIndex:inParent:)`.
    @discardableResult
    public func move(_ id: NodeId, toIndex index: Int, inParent parent: NodeId?) async throws -> ListUpdate {
        try await edit {
            try await $0.client.patchItem($0.session, view: $0.view, id, .moveItem(MoveItem(parentId: parent, index: index)),
                                          filter: $0.filter, ifMatch: $1)
        }
    }

    /// Replaces the title, the data, or both, of `id`.
    @discardableResult
    public func update(_ id: NodeId, title: String? = nil, data: JSONValue? = nil) async throws -> ListUpdate {
        try await edit {
            try await $0.client.patchItem($0.session, view: $0.view, id, .updateItem(UpdateItem(title: title, data: data)),
                                          filter: $0.filter, ifMatch: $1)
        }
    }

    /// Several changes as one, all or nothing; with `If-Match` when one edits the tree.
    @discardableResult
    public func batch(_ operations: [BatchOperation]) async throws -> ListUpdate {
        let editsTree = operations.contains {
            switch $0 {
            case .insertAsChildren, .insertBefore, .insertAfter, .delete, .move, .update, .deleteSelected, .moveSelected: return true
            default: return false
            }
        }
        if editsTree {
            return try await edit { try await $0.client.batch($0.session, view: $0.view, operations, filter: $0.filter, ifMatch: $1) }
        }
        return try await change { try await $0.client.batch($0.session, view: $0.view, operations, filter: $0.filter) }
    }

    // MARK: Sending

    /// Sends a change of the view's state and applies its answer. It goes out once no filter is
    /// under way (for the rows then named), and again after a 409 `filter-superseded` while
    /// those rows are still the ones named.
    private func change(_ send: (RemoteListTreeDataSource) async throws -> any ChangeResponding) async throws -> ListUpdate {
        await filtersSettled()
        let epoch = self.epoch
        let response = try await whileWanted({ $0.epoch == epoch && $0.filtersInFlight == 0 }, send)
        if epoch == self.epoch { apply(response) }
        return takeUpdate()
    }

    /// Sends a tree edit with `If-Match: "<version held>"`; on 412 `version-mismatch`, catches
    /// up (a refresh) and sends it once more; a second 412 is thrown, and so is the first when
    /// the refresh fails (the refresh's error goes to `onError`).
    private func edit(_ send: (RemoteListTreeDataSource, String) async throws -> any ChangeResponding) async throws -> ListUpdate {
        do {
            return try await change { try await send($0, ETag.version($0.version)) }
        } catch let problem as Problem where problem.status == 412 && problem.slug == "version-mismatch" {
            do {
                try await fetchFirstBlock()
            } catch {
                onError?(error)
                throw problem
            }
            preconditionRetries += 1
            return try await change { try await send($0, ETag.version($0.version)) }
        }
    }
}
