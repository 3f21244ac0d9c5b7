import Foundation
import TreeEngine
import TreeFormats

/// Response bodies, written straight into one buffer with TreeFormats' `JSONWriter`.
enum ResponseJSON {
    /// `{"id","version","nodeCount","total","createdAt","expiresAt","ttl"}` (`expiresAt` null
    /// and `ttl` 0 for a session that never expires).
    static func summary(_ session: Session, _ state: Session.State, settings: SessionSettings, expiresAt: Date?, lastUse: Date,
                        ttl: Duration, cursor: String? = nil) -> [UInt8] {
        var out = JSONWriter(reservingCapacity: 384)
        out.raw("{\"id\":")
        out.string(session.id)
        out.raw(",\"name\":")
        if let name = settings.name { out.string(name) } else { out.raw("null") }
        out.raw(",\"labels\":{")
        for (k, key) in settings.labels.keys.sorted().enumerated() {
            if k > 0 { out.raw(",") }
            out.string(key)
            out.raw(":")
            out.string(settings.labels[key]!)
        }
        out.raw("},\"owner\":")
        if let owner = settings.owner { out.string(owner) } else { out.raw("null") }
        out.raw(",\"version\":")
        out.int(state.core.version)
        out.raw(",\"nodeCount\":")
        out.int(state.core.store.forest.count)
        out.raw(",\"total\":")
        out.int(state.core.store.keptRowCount(ViewRef())!)  // the default view's unfiltered rows are always kept
        out.raw(",\"createdAt\":")
        out.string(timestamp(session.createdAt))
        out.raw(",\"lastUse\":")
        out.string(timestamp(lastUse))
        out.raw(",\"expiresAt\":")
        if let expiresAt { out.string(timestamp(expiresAt)) } else { out.raw("null") }
        out.raw(",\"ttl\":")
        out.int(Int(ttl.components.seconds))
        out.raw(",\"tokensValidAfter\":")
        if settings.tokensValidAfter > 0 { out.string(timestamp(Date(timeIntervalSince1970: Double(settings.tokensValidAfter) / 1000))) } else { out.raw("null") }
        if let cursor {
            out.raw(",\"cursor\":")
            out.string(cursor)
        }
        out.raw("}")
        return out.bytes
    }

    /// A change body for a version step that changed none of `view`'s rows (kept rows).
    static func unchanged(_ view: ViewRef, _ store: TreeStore, version: Int) -> [UInt8] {
        changes(version: version, total: store.keptRowCount(view)!, [], reload: [], index: .absent)
    }

    /// The `index` member of a change response.
    enum IndexMember {
        /// No `index` member (a change of the whole session).
        case absent
        /// The item's row in the view, or null when it is not visible there (or deleted).
        case row(Int?)
    }

    /// `{"version","total","changes":[...],"reload":[...]}`, and `index` unless it is `.absent`.
    static func changes(version: Int, total: Int, _ splices: [Splice], reload: [(index: Int, count: Int)], index: IndexMember,
                        extra: ((inout JSONWriter) -> Void)? = nil) -> [UInt8] {
        var out = JSONWriter(reservingCapacity: 64 + 48 * splices.count)
        out.raw("{\"version\":")
        out.int(version)
        out.raw(",\"total\":")
        out.int(total)
        out.raw(",\"changes\":")
        integerObjects(splices, keys: ["{\"index\":", ",\"removed\":", ",\"inserted\":"], &out) { s, k in
            k == 0 ? s.index : k == 1 ? s.removed : s.inserted
        }
        out.raw(",\"reload\":")
        integerObjects(reload, keys: ["{\"index\":", ",\"count\":"], &out) { r, k in k == 0 ? r.index : r.count }
        if case .row(let row) = index {
            out.raw(",\"index\":")
            if let row { out.int(row) } else { out.null() }
        }
        extra?(&out)
        out.raw("}")
        return out.bytes
    }

    /// `[[start, length], ...]`
    static func matchRanges(_ ranges: [(start: Int, length: Int)], _ out: inout JSONWriter) {
        out.raw("[")
        for (k, r) in ranges.enumerated() {
            out.raw(k > 0 ? ",[" : "[")
            out.int(r.start)
            out.raw(",")
            out.int(r.length)
            out.raw("]")
        }
        out.raw("]")
    }

    /// `,"matchedFields":[…]`: the fields of `query` whose value in `node` matches its text
    /// (none for a node that is no match), written only for a query with a text that
    /// searches other fields than the title alone.
    static func matchedFields(of node: NodeHandle, isMatch: Bool, _ query: FilterQuery, store: TreeStore, _ out: inout JSONWriter) {
        guard !query.text.isEmpty, query.fields != [.title] else { return }
        out.raw(",\"matchedFields\":")
        fieldNames(isMatch ? store.matchedFields(of: node, query) : [], &out)
    }

    /// `["title","data.size",…]`
    static func fieldNames(_ fields: [NodeField], _ out: inout JSONWriter) {
        out.raw("[")
        for (k, field) in fields.enumerated() {
            if k > 0 { out.raw(",") }
            out.string(field.description)
        }
        out.raw("]")
    }

    /// `,"aggregates":{"count":N,"sum:data.size":{"value":V,"count":K},…}`: a row's aggregates
    /// over its descendants, each of a field with how many descendants had a number (`value`
    /// null for a minimum, maximum or average of none).
    static func aggregates(_ requests: [AggregateRequest], _ values: [Aggregate], _ out: inout JSONWriter) {
        out.raw(",\"aggregates\":{")
        for (k, (request, aggregate)) in zip(requests, values).enumerated() {
            if k > 0 { out.raw(",") }
            out.string(request.key)
            out.raw(":")
            let value: Double?
            switch request.operation {
            case .count:
                out.int(aggregate.count)
                continue
            case .sum: value = aggregate.sum
            case .min: value = aggregate.count > 0 ? aggregate.minimum : nil
            case .max: value = aggregate.count > 0 ? aggregate.maximum : nil
            case .avg: value = aggregate.count > 0 ? aggregate.sum / Double(aggregate.count) : nil
            }
            out.raw("{\"value\":")
            if let value { out.double(value) } else { out.null() }
            out.raw(",\"count\":")
            out.int(aggregate.count)
            out.raw("}")
        }
        out.raw("}")
    }

    /// `,"fields":[…]` and `,"where":"…"` of a query that searches other fields than the
    /// title alone or has conditions, as the service reads them (conditions in a canonical
    /// form: a string operand quoted).
    static func fieldsAndConditions(_ query: FilterQuery, _ out: inout JSONWriter) {
        if query.fields != [.title] {
            out.raw(",\"fields\":")
            fieldNames(query.fields, &out)
        }
        if !query.conditions.isEmpty {
            out.raw(",\"where\":")
            out.string(FieldSyntax.text(of: query.conditions))
        }
    }

    /// `{"version","matchCount","matches":[{"ordinal","id","title","matchRanges","index"}]}`:
    /// the matches of a view's kept filtered rows with these ordinals (their places among all
    /// their matches in tree order), `index` their rows in `rows` (the filtered rows
    /// themselves, or the view's unfiltered rows for a highlight).
    static func matches(_ ordinals: [Int], store: TreeStore, view: ViewRef, version: Int, rowsOf rows: ViewRef) -> [UInt8] {
        let filter = view.filter!
        let forest = store.forest
        var out = JSONWriter(reservingCapacity: 64 + 128 * ordinals.count)
        out.raw("{\"version\":")
        out.int(version)
        out.raw(",\"matchCount\":")
        out.int(store.keptMatchCount(view)!)
        out.raw(",\"matches\":[")
        for (i, ordinal) in ordinals.enumerated() {
            let node = store.keptMatch(ordinal, view)
            out.raw(i > 0 ? ",{\"ordinal\":" : "{\"ordinal\":")
            out.int(ordinal)
            out.raw(",\"id\":")
            forest.writeID(of: node, to: &out)
            out.raw(",\"title\":")
            forest.writeTitle(of: node, to: &out)
            out.raw(",\"matchRanges\":")
            matchRanges(store.matchRanges(of: node, filter), &out)
            matchedFields(of: node, isMatch: true, filter, store: store, &out)
            out.raw(",\"index\":")
            if let row = store.keptPlacement(of: node, rows)!.index { out.int(row) } else { out.null() }
            out.raw("}")
        }
        out.raw("]}")
        return out.bytes
    }

    /// `{"version","selectedCount","items":[{"id","title","index"}],"next"}`.
    static func selection(_ nodes: [NodeHandle], more: Bool, store: TreeStore, view: ViewRef, version: Int) -> [UInt8] {
        let forest = store.forest
        var out = JSONWriter(reservingCapacity: 96 + 96 * nodes.count)
        out.raw("{\"version\":")
        out.int(version)
        out.raw(",\"selectedCount\":")
        out.int(store.selectedCount(in: view.view))
        out.raw(",\"items\":[")
        for (i, node) in nodes.enumerated() {
            out.raw(i > 0 ? ",{\"id\":" : "{\"id\":")
            forest.writeID(of: node, to: &out)
            out.raw(",\"title\":")
            forest.writeTitle(of: node, to: &out)
            out.raw(",\"index\":")
            if let row = store.keptPlacement(of: node, view)!.index { out.int(row) } else { out.null() }
            out.raw("}")
        }
        out.raw("],\"next\":")
        if more, let last = nodes.last { forest.writeID(of: last, to: &out) } else { out.null() }
        out.raw("}")
        return out.bytes
    }

    /// `{"version","nodes","fields":[{"field","count","types":{kind: count}}],"truncated"}`:
    /// the fields of `GET /sessions/{sid}/fields`, each type listed when some node has it.
    static func fields(_ stats: FieldStats, version: Int) -> [UInt8] {
        let listed = stats.listed
        var out = JSONWriter(reservingCapacity: 64 + 64 * listed.count)
        out.raw("{\"version\":")
        out.int(version)
        out.raw(",\"nodes\":")
        out.int(stats.nodes)
        out.raw(",\"fields\":[")
        for (i, entry) in listed.enumerated() {
            if i > 0 { out.raw(",") }
            out.raw("{\"field\":")
            out.string(entry.field)
            out.raw(",\"count\":")
            out.int(entry.counts.nodes)
            out.raw(",\"types\":{")
            var first = true
            for kind in FieldStats.Kind.allCases where entry.counts.byKind[kind.rawValue] > 0 {
                if !first { out.raw(",") }
                first = false
                out.string(kind.name)
                out.raw(":")
                out.int(entry.counts.byKind[kind.rawValue])
            }
            out.raw("}}")
        }
        out.raw("],\"truncated\":")
        out.bool(stats.truncated)
        out.raw("}")
        return out.bytes
    }

    /// `{"version","expanded":[id,...]}`: a view's expanded nodes as a list.
    static func expansion(_ nodes: [NodeHandle], forest: Forest, version: Int) -> [UInt8] {
        var out = JSONWriter(reservingCapacity: 64 + 16 * nodes.count)
        out.raw("{\"version\":")
        out.int(version)
        out.raw(",\"expanded\":[")
        for (i, node) in nodes.enumerated() {
            if i > 0 { out.raw(",") }
            forest.writeID(of: node, to: &out)
        }
        out.raw("]}")
        return out.bytes
    }

    /// `[{...},...]`: one object per item, its members integers: `keys[k]` (the text before the
    /// k-th value, from `{`) then `value(item, k)`.
    private static func integerObjects<T>(_ items: [T], keys: [StaticString], _ out: inout JSONWriter,
                                          _ value: (T, Int) -> Int) {
        out.raw("[")
        for (i, item) in items.enumerated() {
            if i > 0 { out.raw(",") }
            for k in keys.indices {
                out.raw(keys[k])
                out.int(value(item, k))
            }
            out.raw("}")
        }
        out.raw("]")
    }

    /// A page of rows; a row in `places` also has `position` (its index among its parent's
    /// children, or among the roots, in the tree: hidden siblings count) and `siblingCount`
    /// (their number); with `selectedCount` (a view that selects something),
    /// the page has it and each row `selected`, and a row with children `partial` and
    /// `selectedBelow`.
    /// - Complexity: O(rows)
    static func rows(_ rows: [Row], store: TreeStore, filter: FilterQuery?, sort: SortKeys? = nil, version: Int, total: Int,
                     matchCount: Int?, offset: Int, limit: Int, places: [NodeHandle: (position: Int, count: Int)] = [:],
                     selectedCount: Int? = nil,
                     highlight: FilterQuery? = nil, aggregates: (requests: [AggregateRequest], values: [[Aggregate]])? = nil) -> [UInt8] {
        var out = JSONWriter(reservingCapacity: 160 + 160 * rows.count)
        out.raw("{\"version\":")
        out.int(version)
        pageHead(filter: filter, sort: sort, highlight: highlight, total: total, matchCount: matchCount, selectedCount: selectedCount,
                 offset: offset, limit: limit, &out)
        out.raw(",\"rows\":[")
        for (i, row) in rows.enumerated() {
            if i > 0 { out.raw(",") }
            out.raw("{\"index\":")
            out.int(row.index)
            rowMembers(row, store: store, filter: filter, highlight: highlight, selection: selectedCount != nil,
                       place: places[row.node], aggregates: aggregates.map { ($0.requests, $0.values[i]) }, &out)
        }
        out.raw("]}")
        return out.bytes
    }

    /// A page of a node's children (`GET …/children`): the page of `rows` with `parentId`,
    /// and each child with `position` (its place among the children in the rows), `index`
    /// (its row, or null while a collapsed ancestor hides it) and `childCount` (its own
    /// children in the rows).
    static func children(_ page: TreeStore.ChildPage, of parent: NodeHandle?, store: TreeStore, filter: FilterQuery?, sort: SortKeys?, version: Int,
                         matchCount: Int?, offset: Int, limit: Int, selectedCount: Int?,
                         aggregates: (requests: [AggregateRequest], values: [[Aggregate]])?) -> [UInt8] {
        let forest = store.forest
        var out = JSONWriter(reservingCapacity: 200 + 180 * page.children.count)
        out.raw("{\"version\":")
        out.int(version)
        out.raw(",\"parentId\":")
        if let parent { forest.writeID(of: parent, to: &out) } else { out.null() }
        pageHead(filter: filter, sort: sort, highlight: nil, total: page.total, matchCount: matchCount, selectedCount: selectedCount,
                 offset: offset, limit: limit, &out)
        out.raw(",\"children\":[")
        for (i, child) in page.children.enumerated() {
            if i > 0 { out.raw(",") }
            out.raw("{\"position\":")
            out.int(child.row.index)
            out.raw(",\"index\":")
            if let index = child.rowIndex { out.int(index) } else { out.null() }
            rowMembers(child.row, store: store, filter: filter, highlight: nil, selection: selectedCount != nil, childCount: child.childCount,
                       aggregates: aggregates.map { ($0.requests, $0.values[i]) }, &out)
        }
        out.raw("]}")
        return out.bytes
    }

    /// `,"sort":` and a view's sort, or null for the tree's order.
    static func sortMember(_ sort: SortKeys?, _ out: inout JSONWriter) {
        out.raw(",\"sort\":")
        if let sort { out.string(sort.description) } else { out.null() }
    }

    /// The members of a page of rows before its list: the order (`sort` when sorted), the
    /// named rows and their counts.
    private static func pageHead(filter: FilterQuery?, sort: SortKeys?, highlight: FilterQuery?, total: Int, matchCount: Int?, selectedCount: Int?,
                                 offset: Int, limit: Int, _ out: inout JSONWriter) {
        if let sort {
            out.raw(",\"sort\":")
            out.string(sort.description)
        }
        out.raw(",\"filter\":")
        if let filter { out.string(filter.text) } else { out.null() }
        if let highlight {
            out.raw(",\"highlight\":")
            out.string(highlight.text)
        }
        if let query = filter ?? highlight { fieldsAndConditions(query, &out) }
        out.raw(",\"total\":")
        out.int(total)
        if let matchCount {
            out.raw(",\"matchCount\":")
            out.int(matchCount)
        }
        if let selectedCount {
            out.raw(",\"selectedCount\":")
            out.int(selectedCount)
        }
        out.raw(",\"offset\":")
        out.int(offset)
        out.raw(",\"limit\":")
        out.int(limit)
    }

    /// A row's members after its first one, and the closing brace.
    private static func rowMembers(_ row: Row, store: TreeStore, filter: FilterQuery?, highlight: FilterQuery?, selection: Bool,
                                   place: (position: Int, count: Int)? = nil, childCount: Int? = nil,
                                   aggregates: (requests: [AggregateRequest], values: [Aggregate])?, _ out: inout JSONWriter) {
        let forest = store.forest
        out.raw(",\"id\":")
        forest.writeID(of: row.node, to: &out)
        out.raw(",\"title\":")
        forest.writeTitle(of: row.node, to: &out)
        out.raw(",\"level\":")
        out.int(row.level)
        out.raw(row.isExpanded ? ",\"expanded\":true" : ",\"expanded\":false")
        out.raw(row.hasChildren ? ",\"hasChildren\":true" : ",\"hasChildren\":false")
        if let childCount {
            out.raw(",\"childCount\":")
            out.int(childCount)
        }
        out.raw(",\"parentId\":")
        if let parent = row.parent { forest.writeID(of: parent, to: &out) } else { out.null() }
        if selection {
            out.raw(row.isSelected ? ",\"selected\":true" : ",\"selected\":false")
            if row.hasChildren {
                out.raw(row.isPartial ? ",\"partial\":true,\"selectedBelow\":" : ",\"partial\":false,\"selectedBelow\":")
                out.int(row.selectedBelow)
            }
        }
        if let place {
            out.raw(",\"position\":")
            out.int(place.position)
            out.raw(",\"siblingCount\":")
            out.int(place.count)
        }
        if let highlight {
            let isMatch = store.matches(row.node, highlight)
            out.raw(isMatch ? ",\"match\":true,\"matchRanges\":" : ",\"match\":false,\"matchRanges\":")
            matchRanges(isMatch ? store.matchRanges(of: row.node, highlight) : [], &out)
            matchedFields(of: row.node, isMatch: isMatch, highlight, store: store, &out)
        }
        if let filter {
            out.raw(row.isMatch ? ",\"match\":true,\"matchRanges\":" : ",\"match\":false,\"matchRanges\":")
            matchRanges(row.isMatch ? store.matchRanges(of: row.node, filter) : [], &out)
            matchedFields(of: row.node, isMatch: row.isMatch, filter, store: store, &out)
            out.raw(",\"matchesBelow\":")
            out.int(row.matchesBelow ?? 0)
            if row.isMatch && filter.mode == .fuzzy, let score = store.fuzzyScore(of: row.node, filter) {
                out.raw(",\"score\":")
                out.int(score)
            }
        }
        if let aggregates { self.aggregates(aggregates.requests, aggregates.values, &out) }
        if forest.hasData(row.node) {
            out.raw(",\"data\":")
            forest.writeData(of: row.node, to: &out)
        }
        out.raw("}")
    }

    /// RFC 3339 UTC with milliseconds.
    static func timestamp(_ date: Date) -> String {
        RFC3339.format(milliseconds: JournalEntry.milliseconds(date))
    }
}
