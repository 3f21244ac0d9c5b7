import HTTP1
import TreeEngine

extension TreeService {
    /// `GET /sessions/{sid}/fields`: the fields the tree's nodes carry (`FieldStats`), counted
    /// on the first request after an edit of the tree and kept until the next one. Read beside
    /// other readers.
    func fieldList(_ request: HTTPRequest, _ sid: String) throws(ServiceError) -> HTTPResponse {
        let session = try liveSession(sid)
        return try readingSession(session) { (_, state) throws(ServiceError) in
            let version = state.core.version
            if let notModified = notModified(request, version: version) { return notModified }
            let edits = state.core.treeEdits
            let stats = session.fieldStats.withLock { $0?.treeEdits == edits ? $0!.stats : nil } ?? {
                let counted = FieldStats(state.core.store.forest)
                session.fieldStats.withLock { $0 = (edits, counted) }
                return counted
            }()
            return json(200, ResponseJSON.fields(stats, version: version), headers: [("ETag", ETag.of(version))])
        }
    }
}
