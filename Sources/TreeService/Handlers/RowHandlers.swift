import HTTP1
import TreeEngine

extension TreeService {
    /// `GET /sessions/{sid}/rows?offset=&limit=&filter=&match=&caseSensitive=&positions=`, and
    /// `GET /sessions/{sid}/views/{vid}/rows` (the same, in a view of its own).
    ///
    /// Rows the view keeps are read beside other readers; filtered rows that must be built
    /// first take the session's exclusive lock.
    func rows(_ request: HTTPRequest, _ sid: String, view vid: String?) throws(ServiceError) -> HTTPResponse {
        let highlight = try request.highlightQuery()
        let filter = highlight == nil ? try request.filterQuery() : nil
        let offset = try request.integerQuery("offset", default: 0)
        let limit = try request.integerQuery("limit", default: configuration.defaultPageLimit, maximum: configuration.maxPageLimit)
        let positions = try request.booleanQuery("positions") ?? false
        let aggregates = try request.aggregateQuery()
        let session = try liveSession(sid)
        let view = try liveView(ViewName(id: vid, filter: filter), in: session)
        return try readOrBuild(session, view, prepared: { state in
            state.core.store.prepareAggregates(aggregates.map(\.source))
            if positions, let rows = state.core.store.keptRows(view, offset: offset, limit: limit) {
                state.core.store.prepareSiblingPlaces(of: rows.map(\.node), in: view.view)
            }
        }) { state in
            page(request, state, view, offset: offset, limit: limit, positions: positions, highlight: highlight, aggregates: aggregates)
        }
    }

    /// The page of a view's kept rows (or 304), nil when they (or the indexes of its
    /// aggregates, or the counts of its rows' siblings) would have to be built.
    private func page(_ request: HTTPRequest, _ state: Session.State, _ view: ViewRef, offset: Int, limit: Int, positions: Bool,
                      highlight: FilterQuery?, aggregates requests: [AggregateRequest]) -> HTTPResponse? {
        guard let total = state.core.store.keptRowCount(view) else { return nil }
        let version = state.core.version(of: view.view)
        if let notModified = notModified(request, version: version) { return notModified }
        let rows = limit == 0 || offset >= total ? [] : state.core.store.keptRows(view, offset: offset, limit: limit) ?? []
        let store = state.core.store
        var places: [NodeHandle: (position: Int, count: Int)] = [:]
        if positions {
            guard let kept = store.keptSiblingPlaces(of: rows.map(\.node), in: view.view) else { return nil }
            places = kept
        }
        var aggregates: (requests: [AggregateRequest], values: [[Aggregate]])? = nil
        if !requests.isEmpty {
            guard let values = store.keptAggregates(of: rows.map(\.node), requests.map(\.source)) else { return nil }
            aggregates = (requests, values)
        }
        let body = ResponseJSON.rows(rows, store: store, filter: view.filter, sort: store.sort(of: view.view), version: version, total: total,
                                     matchCount: view.filter == nil ? nil : store.keptMatchCount(view), offset: offset, limit: limit,
                                     places: places, selectedCount: store.hasSelection(in: view.view) ? store.selectedCount(in: view.view) : nil,
                                     highlight: highlight, aggregates: aggregates)
        return json(200, body, headers: [("ETag", ETag.of(version))])
    }
}
