import HTTP1
import TreeEngine

extension TreeService {
    /// `GET /sessions/{sid}/fields`: the fields the tree's nodes carry (`FieldStats`), counted
    /// on the first request after an edit of the tree and kept until the next one. The count
    /// reads a copy of the forest outside the session's lock (it shares the forest's storage;
    /// an edit meanwhile copies what it changes), so it holds back no writer.
    func fieldList(_ request: HTTPRequest, _ sid: String) throws(ServiceError) -> HTTPResponse {
        let session = try liveSession(sid)
        enum Read: Sendable {
            case answered(HTTPResponse)
            case toCount(Forest, edits: Int, version: Int)
        }
        let read = try readingSession(session) { (_, state) throws(ServiceError) -> Read in
            let version = state.core.version
            if let notModified = notModified(request, version: version) { return .answered(notModified) }
            let edits = state.core.treeEdits
            if let kept = session.fieldStats.withLock({ $0?.treeEdits == edits ? $0!.stats : nil }) {
                return .answered(fieldsResponse(kept, version: version))
            }
            return .toCount(state.core.store.forest, edits: edits, version: version)
        }
        switch read {
        case .answered(let response):
            return response
        case .toCount(let forest, let edits, let version):
            let stats = FieldStats(forest)
            session.fieldStats.withLock { kept in
                if (kept?.treeEdits ?? .min) < edits { kept = (edits, stats) }
            }
            return fieldsResponse(stats, version: version)
        }
    }

    private func fieldsResponse(_ stats: FieldStats, version: Int) -> HTTPResponse {
        json(200, ResponseJSON.fields(stats, version: version), headers: [("ETag", ETag.of(version))])
    }
}
