import HTTP1
import TreeEngine

extension TreeService {
    /// `GET /sessions/{sid}/matches?filter=&match=&caseSensitive=&after=|before=&limit=&wrap=`
    /// (and under `/sessions/{sid}/views/{vid}/`): the matches of the view's filtered rows in
    /// tree order from a place (after or before an item, exclusive; neither: from the first),
    /// `limit` of them (default 1), going on from the other end with `wrap`. `before` lists
    /// the nearest first. O(log n) a match.
    ///
    /// Read beside other readers when the view keeps the filtered rows with their match
    /// index (made once per version of the tree); else built under the session's exclusive lock.
    ///
    /// With `highlight` instead of `filter`: the same matches, each with its `index` in the
    /// view's unfiltered rows (the filtered rows are built, and kept, to find them).
    func matches(_ request: HTTPRequest, _ sid: String, view vid: String?) throws(ServiceError) -> HTTPResponse {
        let highlight = try request.highlightQuery()
        let filtered = highlight == nil ? try request.filterQuery() : nil
        guard let filter = highlight ?? filtered else {
            throw .badQueryParameter("query parameter filter, where or highlight is required: the matches of which filter")
        }
        let after = request.queryValue("after"), before = request.queryValue("before")
        if after != nil && before != nil { throw .badQueryParameter("give query parameter after or before, not both") }
        let limit = try request.integerQuery("limit", default: 1, maximum: configuration.maxPageLimit)
        let wrap = try request.booleanQuery("wrap") ?? false
        let session = try liveSession(sid)
        let view = try liveView(ViewName(id: vid, filter: filter), in: session)
        func page(_ state: Session.State) throws(ServiceError) -> HTTPResponse? {
            guard state.core.store.hasMatchIndex(view) else { return nil }
            let version = state.core.version(of: view.view)
            if let notModified = notModified(request, version: version) { return notModified }
            let store = state.core.store
            let count = store.keptMatchCount(view)!
            var next: Int, step: Int
            if let after {
                next = store.keptMatchRank(of: try node(after, in: store), including: true, view)
                step = 1
            } else if let before {
                next = store.keptMatchRank(of: try node(before, in: store), view) - 1
                step = -1
            } else {
                (next, step) = (0, 1)
            }
            var ordinals: [Int] = []
            while ordinals.count < min(limit, count) {
                if next == count || next < 0 {
                    guard wrap else { break }
                    next = next < 0 ? count - 1 : 0
                }
                ordinals.append(next)
                next += step
            }
            let body = ResponseJSON.matches(ordinals, store: store, view: view, version: version,
                                            rowsOf: highlight == nil ? view : ViewRef(view.view))
            return json(200, body, headers: [("ETag", ETag.of(version))])
        }
        return try readOrBuild(session, view, prepared: { $0.core.store.prepareMatchIndex(view) }, page)
    }
}
