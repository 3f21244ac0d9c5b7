import HTTP1
import TreeEngine

extension TreeService {
    /// `GET /sessions/{sid}/rows?offset=&limit=&filter=&match=&caseSensitive=`
    func rows(_ request: HTTPRequest, _ sid: String) throws(ServiceError) -> HTTPResponse {
        let filter = try request.filterQuery()
        let offset = try request.integerQuery("offset", default: 0)
        let limit = try request.integerQuery("limit", default: configuration.defaultPageLimit, maximum: configuration.maxPageLimit)
        let ticket = ticket(filter, sid)
        return try withSession(sid) { session, state throws(ServiceError) in
            try prepare(filter, session, &state, ticket: ticket)
            if let notModified = notModified(request, version: state.version) { return notModified }
            let etag = ETag.of(state.version)
            let total = state.store.rowCount(filter)
            let rows = limit == 0 || offset >= total ? [] : state.store.rows(filter, offset: offset, limit: limit)
            let body = ResponseJSON.rows(rows, store: state.store, filter: filter, version: state.version, total: total,
                                         matchCount: filter.map { state.store.matchCount($0) }, offset: offset, limit: limit)
            return json(200, body, headers: [("ETag", etag)])
        }
    }
}
