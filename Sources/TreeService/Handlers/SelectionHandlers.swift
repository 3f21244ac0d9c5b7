import HTTP1
import TreeEngine

extension TreeService {
    /// `GET /sessions/{sid}/selection?after=&limit=&top=&filter=…` (and under
    /// `/sessions/{sid}/views/{vid}/`): the view's selected nodes in tree order after an item
    /// (exclusive; none: from the first), `limit` of them (the page size by default); `top`:
    /// only those whose parent is not selected, the compact form to act on. Each has its
    /// `index` in the rows the view parameters name (its unfiltered rows by default), null
    /// when hidden there. `next` is the `after` of the next page, null after the last.
    ///
    /// Read beside other readers when the view keeps those rows; else built under the
    /// session's exclusive lock.
    func selection(_ request: HTTPRequest, _ sid: String, view vid: String?) throws(ServiceError) -> HTTPResponse {
        let filter = try request.filterQuery()
        let after = request.queryValue("after")
        let limit = try request.integerQuery("limit", default: configuration.defaultPageLimit, maximum: configuration.maxPageLimit)
        let top = try request.booleanQuery("top") ?? false
        let session = try liveSession(sid)
        let view = try liveView(ViewName(id: vid, filter: filter), in: session)
        func page(_ state: Session.State) throws(ServiceError) -> HTTPResponse? {
            let store = state.core.store
            guard store.keptRowCount(view) != nil else { return nil }
            let version = state.core.version(of: view.view)
            if let notModified = notModified(request, version: version) { return notModified }
            let start = try after.map { (id) throws(ServiceError) in try node(id, in: store) }
            // One more than the page tells whether another page follows.
            let nodes = store.selectedNodes(in: view.view, after: start, limit: limit + 1, topMost: top)
            let body = ResponseJSON.selection(Array(nodes.prefix(limit)), more: nodes.count > limit, store: store, view: view, version: version)
            return json(200, body, headers: [("ETag", ETag.of(version))])
        }
        return try readOrBuild(session, view, page)
    }
}
