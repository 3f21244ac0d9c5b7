import HTTP1
import TreeEngine

extension TreeService {
    /// `GET /sessions/{sid}/expansion` (and under `/sessions/{sid}/views/{vid}/`): the ids of
    /// the nodes with children that the view's unfiltered rows show expanded, in tree order:
    /// what a client saves of a user's open folders. Read beside other readers.
    func expansion(_ request: HTTPRequest, _ sid: String, view vid: String?) throws(ServiceError) -> HTTPResponse {
        let session = try liveSession(sid)
        let view = try liveView(ViewName(id: vid), in: session)
        return try readingSession(session) { (_, state) throws(ServiceError) in
            try requireView(view.view, state)
            let version = state.core.version(of: view.view)
            if let notModified = notModified(request, version: version) { return notModified }
            let body = ResponseJSON.expansion(state.core.store.expandedNodes(in: view.view), forest: state.core.store.forest, version: version)
            return json(200, body, headers: [("ETag", ETag.of(version))])
        }
    }

    /// `PUT /sessions/{sid}/expansion` `{"expanded": [id, ...]}` (and under a view): the view's
    /// unfiltered rows with exactly these items expanded; ids that name no item are passed
    /// over and counted (`unknown` in the change response).
    func setExpansion(_ request: HTTPRequest, _ sid: String, view vid: String?) throws(ServiceError) -> HTTPResponse {
        let operation = try SessionOperation.expansionList(Members(try request.jsonObjectBody()))
        return try mutateSession(request, sid, view: ViewName(id: vid), operation)
    }
}
