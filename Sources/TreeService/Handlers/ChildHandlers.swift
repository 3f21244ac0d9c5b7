import HTTP1
import TreeEngine

extension TreeService {
    /// `GET /sessions/{sid}/items/{itemId}/children?offset=&limit=&filter=&aggregate=` (an
    /// item's children) and `GET /sessions/{sid}/children` (the roots), also under
    /// `/sessions/{sid}/views/{vid}/`: a node's children in the view's rows, by the page,
    /// whatever the node's expansion, in tree order or by `sort` (what grids that load a tree
    /// group by group ask for); a sorted view's in its order (`sort` left out, or the same).
    ///
    /// Read beside other readers once the rows and the indexes they need are kept; building
    /// them takes the session's exclusive lock.
    func children(_ request: HTTPRequest, _ sid: String, of itemID: String?, view vid: String?) throws(ServiceError) -> HTTPResponse {
        let filter = try request.filterQuery()
        let offset = try request.integerQuery("offset", default: 0)
        let limit = try request.integerQuery("limit", default: configuration.defaultPageLimit, maximum: configuration.maxPageLimit)
        let aggregates = try request.aggregateQuery()
        let sort = try request.sortQuery()
        let session = try liveSession(sid)
        let view = try liveView(ViewName(id: vid, filter: filter), in: session)
        return try readOrBuild(session, view, prepared: { state in
            let parent = itemID.flatMap { try? self.node($0, in: state.core.store) }
            // An unknown item answers 404, another sort than a sorted view's 400, without building anything.
            guard itemID == nil || parent != nil else { return }
            let order: SortKeys?
            do throws(ServiceError) { order = try Self.childOrder(sort, of: view.view, state.core.store) } catch { return }
            state.core.store.prepareChildren(of: parent, sort: order, in: view.view)
            state.core.store.prepareAggregates(aggregates.map(\.source))
        }) { (state) throws(ServiceError) in
            try childPage(request, state, itemID, view, sort: sort, offset: offset, limit: limit, aggregates: aggregates)
        }
    }

    /// The page (or 304), nil when the rows, the bases that count children or the indexes of
    /// the aggregates would have to be built.
    private func childPage(_ request: HTTPRequest, _ state: Session.State, _ itemID: String?, _ view: ViewRef, sort: SortKeys?,
                           offset: Int, limit: Int,
                           aggregates requests: [AggregateRequest]) throws(ServiceError) -> HTTPResponse? {
        let store = state.core.store
        guard store.isKept(view) else { return nil }
        let parent = try itemID.map { (id) throws(ServiceError) in try node(id, in: store) }
        let order = try Self.childOrder(sort, of: view.view, store)
        let version = state.core.version(of: view.view)
        if let notModified = notModified(request, version: version) { return notModified }
        guard let page = store.keptChildren(of: parent, view, sort: order, offset: offset, limit: limit) else { return nil }
        var aggregates: (requests: [AggregateRequest], values: [[Aggregate]])? = nil
        if !requests.isEmpty {
            guard let values = store.keptAggregates(of: page.children.map(\.row.node), requests.map(\.source)) else { return nil }
            aggregates = (requests, values)
        }
        let body = ResponseJSON.children(page, of: parent, store: store, filter: view.filter, sort: order, version: version,
                                         matchCount: view.filter == nil ? nil : store.keptMatchCount(view), offset: offset, limit: limit,
                                         selectedCount: store.hasSelection(in: view.view) ? store.selectedCount(in: view.view) : nil,
                                         aggregates: aggregates)
        return json(200, body, headers: [("ETag", ETag.of(version))])
    }

    /// The order of a children page: the view's sort, else `sort` (nil: the tree's). 400 for
    /// a sort that is not the sorted view's.
    private static func childOrder(_ sort: SortKeys?, of view: ViewID?, _ store: TreeStore) throws(ServiceError) -> SortKeys? {
        guard let viewSort = store.sort(of: view) else { return sort }
        guard sort == nil || sort == viewSort else {
            throw .badQueryParameter("query parameter sort: the view is sorted by \(viewSort), and its children pages follow it (leave sort out)")
        }
        return viewSort
    }
}
