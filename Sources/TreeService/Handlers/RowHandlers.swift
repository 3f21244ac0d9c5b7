import HTTP1
import TreeEngine

extension TreeService {
    /// `GET /sessions/{sid}/rows?offset=&limit=&filter=&match=&caseSensitive=&positions=`
    ///
    /// A view the session keeps is read beside other readers; a filtered view that
    /// must be built first takes the session's exclusive lock.
    func rows(_ request: HTTPRequest, _ sid: String) throws(ServiceError) -> HTTPResponse {
        let filter = try request.filterQuery()
        let offset = try request.integerQuery("offset", default: 0)
        let limit = try request.integerQuery("limit", default: configuration.defaultPageLimit, maximum: configuration.maxPageLimit)
        let positions = try request.booleanQuery("positions") ?? false
        // nil when the view must be built first, which needs the exclusive lock.
        let read: HTTPResponse? = try readingSession(sid) { _, state throws(ServiceError) in
            page(request, state, filter, offset: offset, limit: limit, positions: positions)
        }
        if let read { return read }
        let ticket = ticket(filter, sid)
        let session = try liveSession(sid)
        let (response, reset) = try withSession(session) { session, state throws(ServiceError) in
            let reset = try prepare(filter, session, &state, ticket: ticket)
            return (page(request, state, filter, offset: offset, limit: limit, positions: positions)!, reset)
        }
        waitUntilDurable(read: reset, session)
        return response
    }

    /// The page of a kept view (or 304), nil when the view would have to be built.
    private func page(_ request: HTTPRequest, _ state: Session.State, _ filter: FilterQuery?, offset: Int, limit: Int, positions: Bool) -> HTTPResponse? {
        guard let total = state.core.store.keptRowCount(filter) else { return nil }
        if let notModified = notModified(request, version: state.core.version) { return notModified }
        let rows = limit == 0 || offset >= total ? [] : state.core.store.keptRows(filter, offset: offset, limit: limit) ?? []
        let body = ResponseJSON.rows(rows, store: state.core.store, filter: filter, version: state.core.version, total: total,
                                     matchCount: filter.flatMap { state.core.store.keptMatchCount($0) }, offset: offset, limit: limit,
                                     positions: positions)
        return json(200, body, headers: [("ETag", ETag.of(state.core.version))])
    }
}
