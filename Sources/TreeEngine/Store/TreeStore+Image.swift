/// A store's columns compact, for the storage layer (`TreeStorage`): read out in
/// pre-order without gaps, and a store built straight from such columns in O(n).
///
/// Node `i` is the i-th node in pre-order. Slots do not survive (the built store has
/// slot = position = i), ids do: a node whose id is the implicit `~i` is stored
/// without an id; every other id is stored with its string form and whether it is an
/// integer (an implicit `~s` of another number `s` becomes the explicit string `~s`,
/// which names the node exactly as before). Nothing here does I/O.

/// The per-node bits of the compact columns.
package struct CompactNodeFlags: OptionSet, Sendable {
    package var rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Expanded in the unfiltered view.
    package static let expanded = CompactNodeFlags(rawValue: 1 << 0)
    /// Uploaded with `hasChildren: true`.
    package static let declaresChildren = CompactNodeFlags(rawValue: 1 << 1)
    /// The id is stored; without this bit node `i` is named `~i`.
    package static let storedID = CompactNodeFlags(rawValue: 1 << 2)
    /// The node has `data`.
    package static let hasData = CompactNodeFlags(rawValue: 1 << 3)
    /// Every bit in use.
    package static let known: CompactNodeFlags = [.expanded, .declaresChildren, .storedID, .hasData]
}

/// A store read as compact pre-order columns. Holds a copy of the store (copy on
/// write: nothing is copied while the store is not changed).
package struct CompactStore: Sendable {
    let store: TreeStore
    /// The position of node `i`.
    let positions: ContiguousArray<Int32>

    /// - Complexity: O(positions)
    init(_ store: TreeStore) {
        precondition(store.undo == nil, "no image of a store inside a transaction")
        self.store = store
        var positions = ContiguousArray<Int32>()
        positions.reserveCapacity(store.forest.count)
        store.forest.forEachPosition { positions.append($0.entry) }
        self.positions = positions
    }

    /// The number of nodes.
    package var count: Int { positions.count }
    /// The next number tried for a generated id.
    package var nextGeneratedID: Int64 { store.forest.nextGeneratedID }
    /// How many filtered views the store keeps.
    package var filteredViewCapacity: Int { store.filteredViewCapacity }
    /// The kept filtered views, least recently used first.
    package var keptFilters: [FilterQuery] { store.keptFilters }

    @inline(__always) func slot(_ i: Int) -> Slot { store.forest.slot(at: Position(entry: positions[i])) }

    /// The level of node `i` (0 for roots).
    /// - Complexity: O(1)
    package func level(_ i: Int) -> Int32 { store.forest.depth[Int(positions[i])] }

    /// The bits of node `i`.
    /// - Complexity: O(1)
    package func flags(_ i: Int) -> CompactNodeFlags {
        let s = slot(i)
        let f = store.forest.flags[s.index]
        var out: CompactNodeFlags = []
        if f.contains(.expanded) { out.insert(.expanded) }
        if f.contains(.declaresChildren) { out.insert(.declaresChildren) }
        if store.forest.ids.hasID(slot: s) || s.index != i { out.insert(.storedID) }
        if store.forest.hasData(NodeHandle(slot: s)) { out.insert(.hasData) }
        return out
    }

    /// Calls `body` with the title of node `i` as UTF-8.
    package func withTitle<R>(_ i: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try store.forest.withTitle(of: NodeHandle(slot: slot(i)), body)
    }

    /// Calls `body` with the string form of the id of node `i` and whether it is an
    /// integer; meant for nodes with `storedID`.
    package func withID<R>(_ i: Int, _ body: (UnsafeRawBufferPointer, _ isInteger: Bool) throws -> R) rethrows -> R {
        try store.forest.withID(of: NodeHandle(slot: slot(i)), body)
    }

    /// How the store's derived ids (path lists', documents' pointers) are composed: a
    /// parent's id, `separator`, a segment; a root's `rootPrefix`, a segment. Nil when no
    /// id is derived.
    package var derivedIDScheme: (separator: [UInt8], rootPrefix: [UInt8])? {
        store.forest.ids.scheme.map { ($0.separator, $0.rootPrefix) }
    }

    /// Calls `body` with the id of node `i` as an image keeps it, for nodes with
    /// `storedID`: a tag (`CompactColumns.idTagString`, `…Integer`) and the id's string
    /// form, or `…Derived` and only its last segment when the id is its parent's id, the
    /// separator and that segment (a root's: the root prefix and the segment).
    ///
    /// Not generic, as the next one, and its closures capture no store: an image writer calls
    /// them once a node from another module, where a generic call is not specialized (a type
    /// looked up at run time) and a captured store or forest is copied (each of its columns
    /// retained and released). The two were four fifths of writing a JSON document's image
    /// (tree-bench's `snapshotDocument`).
    package func withStoredID(_ i: Int, _ body: (_ tag: UInt8, _ bytes: UnsafeRawBufferPointer) throws -> Void) rethrows {
        let s = slot(i), nodeParent = store.forest.parent(ofSlot: s)
        // A derived entry names the slot its id extends: the node's parent, always (a move
        // stores the id whole first); written whole should that ever not hold.
        let derived = try store.forest.ids.withDerivedEntry(slot: s) { parent, segment in
            guard parent == nodeParent else { return false }
            try body(CompactColumns.idTagDerived, segment)
            return true
        }
        if derived == true { return }
        try withID(i) { key, isInteger in try body(isInteger ? CompactColumns.idTagInteger : CompactColumns.idTagString, key) }
    }

    /// Calls `body` with the raw JSON of the `data` of node `i` (empty when it has none).
    package func withData(_ i: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        try store.forest.withData(of: NodeHandle(slot: slot(i))) { try body($0 ?? UnsafeRawBufferPointer(start: nil, count: 0)) }
    }

    /// The bits of every node, in pre-order.
    /// - Complexity: O(n)
    package func flagsColumn() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let forest = store.forest
        forest.flags.withUnsafeBufferPointer { flags in
            forest.slotAt.withUnsafeBufferPointer { slotAt in
                for i in 0 ..< count {
                    let s = Int(slotAt[Int(positions[i])])
                    var f = flags[s].rawValue & (NodeFlags.expanded.rawValue | NodeFlags.declaresChildren.rawValue)
                    if forest.ids.hasID(slot: Slot(s)) || s != i { f |= CompactNodeFlags.storedID.rawValue }
                    if s < forest.dataRef.count && forest.dataRef[s] != 0 { f |= CompactNodeFlags.hasData.rawValue }
                    out[i] = f
                }
            }
        }
        return out
    }

    /// Writes the levels of nodes `start ..< start + out.count / 4` into `out`, as
    /// little-endian UInt32s.
    /// - Complexity: O(nodes written)
    package func levels(from start: Int, into out: UnsafeMutableRawBufferPointer) {
        store.forest.depth.withUnsafeBufferPointer { depth in
            for k in 0 ..< out.count >> 2 {
                out.storeBytes(of: UInt32(depth[Int(positions[start + k])]).littleEndian, toByteOffset: 4 * k, as: UInt32.self)
            }
        }
    }

    /// Calls `body` with every title in pre-order.
    package func forEachTitle(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        let forest = store.forest
        try forest.titles.bytes.withUnsafeBytes { pool in
            for i in 0 ..< count { try body(BytePool.entry(in: pool, at: forest.titleRef[Int(forest.slotAt[Int(positions[i])])])) }
        }
    }

    /// Calls `body` with the title pool when it holds exactly the titles in pre-order,
    /// each a LEB128 length and the bytes (as after an upload), else with nil.
    /// - Complexity: O(n)
    package func withTitlesInOrder<R>(_ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        let forest = store.forest
        return try forest.titles.bytes.withUnsafeBytes { pool in
            var o = 0
            for i in 0 ..< count {
                let ref = forest.titleRef[Int(forest.slotAt[Int(positions[i])])]
                guard Int(ref) == o else { return try body(nil) }
                let (start, length) = BytePool.bounds(in: pool, at: ref)
                o = start + length
            }
            return try body(o == pool.count ? pool : nil)
        }
    }

    /// The bytes of all titles as LEB128 lengths and bytes.
    /// - Complexity: O(n)
    package func titleBytes() -> Int {
        let forest = store.forest
        return forest.titles.bytes.withUnsafeBytes { pool in
            var total = 0
            for i in 0 ..< count {
                let ref = forest.titleRef[Int(forest.slotAt[Int(positions[i])])]
                let (start, length) = BytePool.bounds(in: pool, at: ref)
                total += start - Int(ref) + length
            }
            return total
        }
    }

    /// The expansion of kept filtered view `v` (least recently used first): bit `i & 7`
    /// of byte `i >> 3` is node `i`; `(count + 7) / 8` bytes, unused bits zero.
    /// - Complexity: O(n)
    package func expansion(ofKeptView v: Int) -> [UInt8] { expansion(store.filtered[v].view.filter!.expanded) }

    private func expansion(_ expanded: Bitset) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: (count + 7) >> 3)
        for i in 0 ..< count where expanded.contains(slot(i).index) { bytes[i >> 3] |= 1 << UInt8(i & 7) }
        return bytes
    }

    // MARK: The other views

    /// The store with the layout of view `id`'s sort swapped in (its positions then those of
    /// the sort: these readers take only its views' state by slot from it).
    private func world(_ id: ViewID) -> TreeStore { store.readInWorld(of: id) { $0 } }

    /// The views other than the default one, ascending.
    package var views: [ViewID] { store.views }

    /// The rule of view `id`'s fresh state: nodes at a level below it are expanded
    /// (`Int32.max`: every node).
    package func depthRule(ofView id: ViewID) -> Int32 { world(id).userViews[id]!.depth }

    /// The nodes whose expansion view `id` changed from its rule, ascending: (node, expanded).
    /// - Complexity: O(changes · log n)
    package func changes(ofView id: ViewID) -> [(index: Int, expanded: Bool)] {
        let view = world(id).userViews[id]!
        if let own = view.dense?.own {
            return (0 ..< count).compactMap { i in
                let slot = slot(i), level = store.forest.level(at: Position(Int(positions[i])))
                let expanded = own.expanded.contains(slot.index)
                return expanded == own.rule(level: level) ? nil : (i, expanded)
            }
        }
        return nodeChanges(view.cover.exceptions)
    }

    /// Exceptions as node numbers, ascending (a sorted view lists them in its order).
    /// - Complexity: O(exceptions · log n)
    private func nodeChanges(_ exceptions: [(slot: Slot, expanded: Bool)]) -> [(index: Int, expanded: Bool)] {
        exceptions.map { exception in
            let p = store.forest.positionOf[exception.slot.index]
            // `positions` ascends: node i is at positions[i].
            var lo = 0, hi = positions.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if positions[mid] < p { lo = mid + 1 } else { hi = mid }
            }
            return (lo, exception.expanded)
        }.sorted { $0.index < $1.index }
    }

    /// The nodes whose expansion view `id`'s kept filtered rows `v` changed from the fresh
    /// state (exactly the ancestors of matches expanded), ascending: (node, expanded).
    /// - Complexity: O(changes · log n) for rows over the text's shared state, O(n) for rows
    ///   of the view's own
    package func changes(ofView id: ViewID, keptFilter v: Int) -> [(index: Int, expanded: Bool)] {
        let world = world(id)
        let entry = world.userViews[id]!.filtered[v]
        guard let own = entry.own else { return nodeChanges(world.filterBases[entry.query]!.followers!.covers[id]!.exceptions) }
        let filter = own.filter!
        return (0 ..< count).compactMap { i in
            let s = slot(i).index
            return filter.expanded.contains(s) == filter.ancestors.contains(s) ? nil : (i, filter.expanded.contains(s))
        }
    }

    /// The filtered rows view `id` keeps, least recently used first.
    package func keptFilters(ofView id: ViewID) -> [FilterQuery] { store.keptFilters(in: id) }

    /// The expansion of view `id`'s kept filtered rows `v`, as `expansion(ofKeptView:)`.
    /// - Complexity: O(n)
    package func expansion(ofView id: ViewID, keptFilter v: Int) -> [UInt8] {
        let world = world(id)
        return expansion(world.filteredExpansion(world.userViews[id]!.filtered[v].query, in: id))
    }

    /// The sorted views with their sorts, ascending.
    package var viewSorts: [(view: ViewID, sort: SortKeys)] {
        store.viewSorts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    // MARK: Selections

    /// Every view's selection that selects something (nil: the default view's), by view:
    /// what a root takes, and the nodes whose state differs from their parent's, ascending.
    /// - Complexity: O(toggles · log n)
    package var selections: [CompactSelection] {
        store.sortedLayouts.reduce(into: store.selections) { all, layout in all.merge(layout.views.selections) { a, _ in a } }.sorted { ($0.key?.rawValue ?? 0, $0.key == nil ? 0 : 1) < ($1.key?.rawValue ?? 0, $1.key == nil ? 0 : 1) }
            .map { view, selection in
                CompactSelection(view: view, all: selection.all,
                                 toggles: nodeChanges(selection.toggles.map { (Slot(rawValue: $0), false) }).map(\.index))
            }
    }
}

/// A view's selection as compact columns describe it (see `CompactStore.selections`).
package struct CompactSelection: Equatable {
    /// The view (nil: the default view).
    package var view: ViewID?
    /// The state of a root that is not a toggle.
    package var all: Bool
    /// The nodes whose state differs from their parent's (a root's: from `all`), ascending.
    package var toggles: [Int]

    package init(view: ViewID?, all: Bool, toggles: [Int]) {
        self.view = view
        self.all = all
        self.toggles = toggles
    }
}

/// A view other than the default one as compact columns describe it (see
/// `CompactColumns.userViews`).
package struct CompactView {
    package var id: ViewID
    /// `CompactStore.depthRule(ofView:)`.
    package var depthRule: Int32
    /// `CompactStore.changes(ofView:)`: ascending node numbers.
    package var changes: [(index: Int, expanded: Bool)]
    /// Its kept filtered rows, least recently used first, each with its expansion.
    package var filtered: [(query: FilterQuery, expansion: FilteredExpansion)]

    /// The expansion of a view's filtered rows: every node's
    /// (`CompactStore.expansion(ofView:keptFilter:)`), or the nodes where it differs from
    /// the fresh state (`CompactStore.changes(ofView:keptFilter:)`).
    package enum FilteredExpansion {
        case bits(UnsafeRawBufferPointer)
        case changes([(index: Int, expanded: Bool)])
    }

    package init(id: ViewID, depthRule: Int32, changes: [(index: Int, expanded: Bool)],
                 filtered: [(query: FilterQuery, expansion: FilteredExpansion)]) {
        self.id = id
        self.depthRule = depthRule
        self.changes = changes
        self.filtered = filtered
    }
}

/// Compact columns to build a store from (see `TreeStore.init(compact:)`). The
/// buffers must stay valid during the call; nothing of them is kept.
package struct CompactColumns {
    /// The number of nodes.
    package var count: Int
    /// `count` levels, little-endian UInt32 each, in pre-order.
    package var levels: UnsafeRawBufferPointer
    /// `count` bytes of `CompactNodeFlags`.
    package var flags: UnsafeRawBufferPointer
    /// `count` titles, each a LEB128 length and UTF-8 bytes.
    package var titles: UnsafeRawBufferPointer
    /// One id per node with `storedID`, in pre-order: a LEB128 length, then a tag byte
    /// and the id's string form (the length counts the tag): `idTagString`,
    /// `idTagInteger`, or `idTagDerived` and only the last segment (with `derivedIDScheme`).
    package var ids: UnsafeRawBufferPointer
    /// How derived ids are composed: the parent's id (the parent must have an id), the
    /// separator and the segment; a root's, the root prefix and the segment.
    package var derivedIDScheme: (separator: UnsafeRawBufferPointer, rootPrefix: UnsafeRawBufferPointer)?
    /// One `data` per node with `hasData`, in pre-order: a LEB128 length and raw JSON.
    package var data: UnsafeRawBufferPointer
    package var nextGeneratedID: Int64
    package var filteredViewCapacity: Int
    /// The kept filtered views, least recently used first, each with its expansion as
    /// `CompactStore.expansion(ofKeptView:)` gives it.
    package var views: [(query: FilterQuery, expansion: UnsafeRawBufferPointer)]
    /// The views other than the default one.
    package var userViews: [CompactView] = []
    /// The views' selections.
    package var selections: [CompactSelection] = []
    /// The sorted views' sorts.
    package var sorts: [(view: ViewID, sort: SortKeys)] = []

    package init(count: Int, levels: UnsafeRawBufferPointer, flags: UnsafeRawBufferPointer,
                 titles: UnsafeRawBufferPointer, ids: UnsafeRawBufferPointer,
                 derivedIDScheme: (separator: UnsafeRawBufferPointer, rootPrefix: UnsafeRawBufferPointer)? = nil,
                 data: UnsafeRawBufferPointer, nextGeneratedID: Int64, filteredViewCapacity: Int,
                 views: [(query: FilterQuery, expansion: UnsafeRawBufferPointer)]) {
        self.count = count
        self.levels = levels
        self.flags = flags
        self.titles = titles
        self.ids = ids
        self.derivedIDScheme = derivedIDScheme
        self.data = data
        self.nextGeneratedID = nextGeneratedID
        self.filteredViewCapacity = filteredViewCapacity
        self.views = views
    }

    /// The tags of the entries of `ids`: the id table's own (an image keeps them as they are).
    package static let idTagString = IDTable.tagString, idTagInteger = IDTable.tagInteger, idTagDerived = IDTable.tagDerived
}

/// Compact columns that do not describe a store; the message says what is wrong.
package struct CompactColumnsError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

extension TreeStore {
    /// The store's columns compact, in pre-order (not inside a transaction).
    /// - Complexity: O(positions)
    package var compact: CompactStore { CompactStore(self) }

    /// A store built from compact columns: the forest with slot = position = pre-order
    /// index and no gaps, the unfiltered view from the `expanded` bits, and each kept
    /// filtered view with its matches computed from the titles and its expansion from
    /// the columns. Every column is checked; a column that does not fit throws, never traps.
    /// - Complexity: O(n + total bytes), plus matching the titles once per filtered view
    package init(compact c: CompactColumns, dataReader: (any NodeDataReader)? = nil) throws(CompactColumnsError) {
        let n = c.count
        guard n >= 0, n < Int(Int32.max) else { throw CompactColumnsError("node count \(n) out of range") }
        guard c.levels.count == 4 * n else { throw CompactColumnsError("\(c.levels.count) bytes of levels for \(n) nodes") }
        guard c.flags.count == n else { throw CompactColumnsError("\(c.flags.count) flag bytes for \(n) nodes") }
        guard c.nextGeneratedID >= 0 else { throw CompactColumnsError("negative next generated id") }
        guard c.filteredViewCapacity >= 0 else { throw CompactColumnsError("negative filtered view capacity") }
        for pool in [c.titles, c.ids, c.data] where pool.count >= Int(UInt32.max) - 64 {
            throw CompactColumnsError("a pool over 4 GiB")
        }
        var forest = Forest()

        // Structure: levels to subtree ends and parents, with the open ancestors on a stack.
        var depth = ContiguousArray<Int32>(repeating: 0, count: n)
        var endAt = ContiguousArray<Int32>(repeating: 0, count: n)
        var parent = ContiguousArray<Int32>(repeating: -1, count: n)
        var badLevel: Int? = nil
        depth.withUnsafeMutableBufferPointer { depth in
            endAt.withUnsafeMutableBufferPointer { endAt in
                parent.withUnsafeMutableBufferPointer { parent in
                    var open: [Int32] = []
                    for i in 0 ..< n {
                        let d = Int(UInt32(littleEndian: c.levels.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)))
                        if d > open.count { badLevel = i; return }
                        while open.count > d { endAt[Int(open.removeLast())] = Int32(i) }
                        parent[i] = open.last ?? -1
                        depth[i] = Int32(d)
                        open.append(Int32(i))
                    }
                    for p in open { endAt[Int(p)] = Int32(n) }
                }
            }
        }
        if let i = badLevel { throw CompactColumnsError("node \(i) is more than one level below the node before it") }
        forest.depth = depth
        forest.endAt = endAt
        forest.parentSlot = parent
        forest.slotAt = Forest.denseSlots(n)
        forest.positionOf = forest.slotAt
        forest.segmentLoad = Forest.denseSegmentLoads(n)

        // Flags.
        var flags = ContiguousArray<NodeFlags>(repeating: [], count: n)
        var storedIDs = 0, withData = 0
        for i in 0 ..< n {
            let f = CompactNodeFlags(rawValue: c.flags[i])
            guard CompactNodeFlags.known.isSuperset(of: f) else { throw CompactColumnsError("node \(i) has unknown flags \(f.rawValue)") }
            var g: NodeFlags = f.contains(.storedID) ? [] : .implicitID
            if f.contains(.expanded) { g.insert(.expanded) }
            if f.contains(.declaresChildren) { g.insert(.declaresChildren) }
            if f.contains(.storedID) { storedIDs += 1 }
            if f.contains(.hasData) { withData += 1 }
            flags[i] = g
        }
        forest.flags = flags

        // Titles: the column is a byte pool as it is; the references are the entries' offsets.
        var titleRef = ContiguousArray<UInt32>(repeating: 0, count: n)
        guard let titleEnd = TreeStore.scanEntries(c.titles, count: n, utf8: true, { k, offset in titleRef[k] = offset }),
              titleEnd == c.titles.count else {
            throw CompactColumnsError("the titles are not exactly \(n) entries of UTF-8")
        }
        forest.titleRef = titleRef
        forest.titles.bytes = ContiguousArray(c.titles)

        // Data: likewise, for the nodes that have it.
        if withData > 0 || c.data.count > 0 {
            var offsets = ContiguousArray<UInt32>(repeating: 0, count: withData)
            guard let dataEnd = TreeStore.scanEntries(c.data, count: withData, { k, offset in offsets[k] = offset }),
                  dataEnd == c.data.count else {
                throw CompactColumnsError("the data do not hold exactly \(withData) entries")
            }
            var dataRef = ContiguousArray<UInt32>(repeating: 0, count: n)
            var k = 0
            for i in 0 ..< n where c.flags[i] & CompactNodeFlags.hasData.rawValue != 0 {
                dataRef[i] = offsets[k] + 1
                k += 1
            }
            forest.dataRef = dataRef
            forest.dataPool.bytes = ContiguousArray(c.data)
        }

        // Ids: each checked for its tag, its integer form and uniqueness (an implicit
        // `~j` is taken by node j when it is stored without an id). A derived id is hashed
        // from its parent's hash state and its segment, as the builder does; all are then
        // indexed at once.
        forest.implicitIDLimit = Int32(n)
        forest.nextGeneratedID = c.nextGeneratedID
        if storedIDs > 0 || c.ids.count > 0 {
            var offsets = ContiguousArray<UInt32>(repeating: 0, count: storedIDs)
            guard let idEnd = TreeStore.scanEntries(c.ids, count: storedIDs, utf8: true, { k, offset in offsets[k] = offset }),
                  idEnd == c.ids.count else {
                throw CompactColumnsError("the ids are not exactly \(storedIDs) entries of UTF-8")
            }
            if let scheme = c.derivedIDScheme {
                for part in [scheme.separator, scheme.rootPrefix] where !TreeStore.isValidUTF8(part) {
                    throw CompactColumnsError("the derived ids' separator or root prefix is not UTF-8")
                }
                forest.ids.scheme = DerivedIDScheme(separator: Array(scheme.separator), rootPrefix: Array(scheme.rootPrefix))
            }
            forest.ids.growRefs(to: n)
            var slots: [Slot] = [], hashes: [UInt64] = []
            slots.reserveCapacity(storedIDs)
            hashes.reserveCapacity(storedIDs)
            // The nodes with ids along the current path, by level: slot (nil: a level without
            // one), hash state, key length.
            var path: [(slot: Slot?, hasher: IDHasher, length: Int)] = []
            var k = 0
            for i in 0 ..< n where c.flags[i] & CompactNodeFlags.storedID.rawValue != 0 {
                let entry = BytePool.entry(in: c.ids, at: offsets[k])
                k += 1
                guard entry.count >= 1, entry[0] <= CompactColumns.idTagDerived else { throw CompactColumnsError("node \(i) has a bad id tag") }
                let bytes = UnsafeRawBufferPointer(rebasing: entry.dropFirst())
                let level = Int(depth[i])
                var hasher = IDHasher()
                var length = 0
                switch entry[0] {
                case CompactColumns.idTagDerived:
                    guard let scheme = c.derivedIDScheme else { throw CompactColumnsError("node \(i) has a derived id, the image no scheme") }
                    let p = parent[i] < 0 ? nil : Slot(rawValue: parent[i])
                    if p == nil {
                        hasher.combine(scheme.rootPrefix)
                        length = scheme.rootPrefix.count
                    } else {
                        guard level - 1 < path.count, path[level - 1].slot == p else {
                            throw CompactColumnsError("node \(i) has a derived id, its parent none")
                        }
                        hasher = path[level - 1].hasher
                        hasher.combine(scheme.separator)
                        length = path[level - 1].length + scheme.separator.count
                    }
                    forest.ids.store(slot: Slot(i), key: bytes, form: .derived(parent: p, segmentCount: bytes.count))
                default:
                    let isInteger = entry[0] == CompactColumns.idTagInteger
                    if isInteger {
                        let text = String(decoding: bytes, as: UTF8.self)
                        guard let value = Int64(text), String(value) == text else {
                            throw CompactColumnsError("node \(i) has an integer id that is not one")
                        }
                    }
                    forest.ids.store(slot: Slot(i), key: bytes, form: isInteger ? .integer : .string)
                }
                hasher.combine(bytes)
                length += bytes.count
                while path.count < level { path.append((nil, IDHasher(), 0)) }
                if path.count == level { path.append((Slot(i), hasher, length)) } else { path[level] = (Slot(i), hasher, length) }
                // Only a short id can be a generated one (`~` and at most 15 digits).
                if length <= 16, let j = forest.ids.withKey(slot: Slot(i), { Forest.generatedNumber($0) }),
                   j < Int64(n), forest.flags[Int(j)].contains(.implicitID) {
                    throw CompactColumnsError("node \(i) has the implicit id of node \(j)")
                }
                slots.append(Slot(i))
                hashes.append(hasher.finalize())
            }
            if let i = forest.ids.indexDeferred(slots, hashes: hashes) {
                throw CompactColumnsError("node \(i) has the id of another node")
            }
        }

        forest.count = n
        self.init(forest: forest)
        self.dataReader = dataReader
        filteredViewCapacity = c.filteredViewCapacity

        for view in c.views { try readyImageFields(view.query) }
        filtered = try TreeStore.filteredViews(c.views, self.forest, workers: filterWorkers)
        for view in c.userViews {
            guard userViews[view.id] == nil else { throw CompactColumnsError("view \(view.id) is there twice") }
            guard view.depthRule >= 0 else { throw CompactColumnsError("view \(view.id) has a negative depth") }
            createView(view.id, .depth(Int(view.depthRule)))
            let base = depthBases[view.depthRule]!.base
            try TreeStore.check(view.changes, count: n, of: "view \(view.id)", against: "its rule's") {
                base.isExpanded(Slot($0), in: forest)
            }
            if isTooManyForSparse(view.changes.count) {
                var bits = ruleExpansion(depth: view.depthRule)
                for change in view.changes { bits.set(change.index, change.expanded) }
                userViews[view.id]!.dense = ViewState.dense(bits, depth: view.depthRule, forest)
            } else {
                for change in view.changes { userViews[view.id]!.cover.setException(Slot(change.index), change.expanded, base, forest) }
            }
            var seen: Set<FilterQuery> = []
            for (query, expansion) in view.filtered {
                guard seen.insert(query).inserted else { throw CompactColumnsError("the filtered view [\(query)] is kept twice") }
                try readyImageFields(query)
                switch expansion {
                case .bits(let bytes):
                    keepFiltered(query, in: view.id, expanded: try TreeStore.expansionBits(bytes, count: n))
                case .changes(let changes):
                    try! acquireFilterBase(query, isCancelled: { false })
                    var expanded = filterBases[query]!.filter!.expanded
                    try TreeStore.check(changes, count: n, of: "view \(view.id) [\(query)]", against: "its fresh") { expanded.contains($0) }
                    for change in changes { expanded.set(change.index, change.expanded) }
                    keepFiltered(query, in: view.id, expanded: expanded)
                }
            }
        }
        var selected: Set<ViewID?> = []
        for selection in c.selections {
            let name = selection.view.map { "view \($0)" } ?? "the default view"
            guard contains(view: selection.view) else { throw CompactColumnsError("a selection of \(name), which is not there") }
            guard selected.insert(selection.view).inserted else { throw CompactColumnsError("\(name) has two selections") }
            guard zip(selection.toggles, selection.toggles.dropFirst()).allSatisfy({ $0 < $1 }), selection.toggles.allSatisfy({ (0 ..< n).contains($0) }) else {
                throw CompactColumnsError("the selection of \(name) names nodes out of order or past the last")
            }
            changeSelection(of: selection.view) { state, forest, nodes in
                state.reset(selection.all, forest)
                for node in selection.toggles { state.toggle(Slot(node), forest, nodes) }
            }
        }
        var sorted: Set<ViewID> = []
        for (view, sort) in c.sorts {
            guard contains(view: view) else { throw CompactColumnsError("a sort of view \(view), which is not there") }
            guard sorted.insert(view).inserted else { throw CompactColumnsError("view \(view) has two sorts") }
            guard sort.dataPaths.isEmpty || dataReader != nil else { throw CompactColumnsError("view \(view) is sorted by data fields and the store has no reader") }
            _ = setSort(sort, of: ViewRef(view))
        }
        checkInvariants()
    }

    /// The columns a filtered view of an image reads (`readyFields`); throws when it reads
    /// data fields and the store has no reader.
    private mutating func readyImageFields(_ query: FilterQuery) throws(CompactColumnsError) {
        guard query.dataPaths.isEmpty || dataReader != nil else {
            throw CompactColumnsError("the filtered view [\(query)] reads data fields, and there is no reader")
        }
        readyFields(query)
    }

    /// Checks changed nodes read from columns: ascending within the `n` nodes, each changed
    /// from its value in the state they change (`isExpanded`), named `state` in the error.
    private static func check(_ changes: [(index: Int, expanded: Bool)], count n: Int, of owner: String, against state: String,
                              _ isExpanded: (Int) -> Bool) throws(CompactColumnsError) {
        var previous = -1
        for change in changes {
            guard change.index > previous, change.index < n else {
                throw CompactColumnsError("\(owner): its changed nodes do not ascend within the \(n) nodes")
            }
            previous = change.index
            guard change.expanded != isExpanded(change.index) else {
                throw CompactColumnsError("\(owner): node \(change.index) is listed as changed to \(state) value")
            }
        }
    }

    /// Filtered rows built from the titles, with the expansion the columns give.
    private static func filteredViews(_ views: [(query: FilterQuery, expansion: UnsafeRawBufferPointer)], _ forest: Forest,
                                      workers: Int?) throws(CompactColumnsError) -> [(query: FilterQuery, view: ViewState)] {
        let n = forest.count
        var result: [(query: FilterQuery, view: ViewState)] = []
        for (query, expansion) in views {
            guard !result.contains(where: { $0.query == query }) else { throw CompactColumnsError("the filtered view [\(query)] is kept twice") }
            let expanded = try expansionBits(expansion, count: n)
            var view: ViewState
            do {
                view = try ViewState.filtered(forest, query: query, workers: workers, isCancelled: { false })
            } catch {
                throw CompactColumnsError("the filtered view [\(query)] was not built")
            }
            view.filter!.expanded = expanded
            view.reindex(forest)
            result.append((query, view))
        }
        return result
    }

    /// The expansion bytes of a filtered view's `count` nodes (`CompactStore.expansion`) as
    /// bits by slot (a store built from columns has node i in slot i).
    private static func expansionBits(_ expansion: UnsafeRawBufferPointer, count n: Int) throws(CompactColumnsError) -> Bitset {
        let bytes = (n + 7) >> 3
        guard expansion.count == bytes else { throw CompactColumnsError("\(expansion.count) expansion bytes for \(n) nodes") }
        if n & 7 != 0, expansion[bytes - 1] >> UInt8(n & 7) != 0 {
            throw CompactColumnsError("expansion bits past the last node")
        }
        var expanded = Bitset(count: n)
        expanded.withWordBuffer { words in
            for w in 0 ..< words.count {
                var word: UInt64 = 0
                for b in 0 ..< min(8, bytes - 8 * w) { word |= UInt64(expansion[8 * w + b]) << UInt64(8 * b) }
                words[w] = word
            }
        }
        return expanded
    }

    /// Whether `bytes` are well-formed UTF-8 (no overlong forms, surrogates, or
    /// scalars past U+10FFFF), eight ASCII bytes at a time where it can.
    /// - Complexity: O(bytes)
    static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let n = bytes.count
        var i = 0
        @inline(__always) func isContinuation(_ k: Int) -> Bool { bytes[k] & 0xC0 == 0x80 }
        while i < n {
            while n - i >= 8 && bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 { i += 8 }
            if i == n { break }
            let b0 = bytes[i]
            if b0 < 0x80 {
                i += 1
            } else if b0 < 0xC2 {
                return false
            } else if b0 < 0xE0 {
                guard n - i >= 2, isContinuation(i + 1) else { return false }
                i += 2
            } else if b0 < 0xF0 {
                guard n - i >= 3 else { return false }
                let b1 = bytes[i + 1]
                let low: UInt8 = b0 == 0xE0 ? 0xA0 : 0x80, high: UInt8 = b0 == 0xED ? 0x9F : 0xBF
                guard b1 >= low, b1 <= high, isContinuation(i + 2) else { return false }
                i += 3
            } else if b0 < 0xF5 {
                guard n - i >= 4 else { return false }
                let b1 = bytes[i + 1]
                let low: UInt8 = b0 == 0xF0 ? 0x90 : 0x80, high: UInt8 = b0 == 0xF4 ? 0x8F : 0xBF
                guard b1 >= low, b1 <= high, isContinuation(i + 2), isContinuation(i + 3) else { return false }
                i += 4
            } else {
                return false
            }
        }
        return true
    }

    /// Walks `count` pool entries (a LEB128 length, then the bytes) from the start of
    /// `pool`, calling `body` with each one's index and offset; returns where the last
    /// ends, or nil when an entry does not fit (or, with `utf8`, is not UTF-8).
    /// - Complexity: O(count)
    static func scanEntries(_ pool: UnsafeRawBufferPointer, count: Int, utf8: Bool = false,
                            _ body: (Int, UInt32) -> Void) -> Int? {
        var o = 0
        let end = pool.count
        for k in 0 ..< count {
            let start = o
            var length = 0
            var shift = 0
            while true {
                guard o < end, shift <= 28 else { return nil }
                let b = pool[o]
                o += 1
                length |= Int(b & 0x7F) << shift
                if b < 0x80 { break }
                shift += 7
            }
            guard length <= end - o else { return nil }
            if utf8 && !isValidUTF8(UnsafeRawBufferPointer(rebasing: pool[o ..< o + length])) { return nil }
            body(k, UInt32(start))
            o += length
        }
        return o
    }
}
