import HTTP1
import TreeEngine
import TreeFormats

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
            let store = state.core.store
            var out = JSONWriter(reservingCapacity: 64)
            out.raw("{\"version\":")
            out.int(version)
            out.raw(",\"expanded\":[")
            for (i, node) in store.expandedNodes(in: view.view).enumerated() {
                if i > 0 { out.raw(",") }
                store.forest.writeID(of: node, to: &out)
            }
            out.raw("]}")
            return json(200, out.bytes, headers: [("ETag", ETag.of(version))])
        }
    }

    /// `PUT /sessions/{sid}/expansion` `{"expanded": [id, ...]}` (and under a view): the view's
    /// unfiltered rows with exactly these items expanded; ids that name no item are passed
    /// over and counted (`unknown` in the change response).
    func setExpansion(_ request: HTTPRequest, _ sid: String, view vid: String?) throws(ServiceError) -> HTTPResponse {
        let members = Members(try request.jsonObjectBody())
        try members.allowOnly(["expanded"])
        guard case .array(let values)? = members["expanded"] else {
            throw .unprocessable("\"expanded\" must be an array of item ids", member: "expanded")
        }
        var items: [ItemID] = []
        items.reserveCapacity(values.count)
        for (k, value) in values.enumerated() {
            if case .string(let text) = value {
                items.append(ItemID(text))
            } else if let n = value.intValue {
                items.append(ItemID(String(n)))
            } else {
                var pointer = JSONPointer()
                pointer.append(key: "expanded")
                pointer.append(key: String(k))
                throw ServiceError(.invalidNode, detail: "\"expanded\" must hold item ids (strings or integers)", pointer: pointer.text)
            }
        }
        return try mutateSession(request, sid, view: ViewName(id: vid), .setExpansion(items))
    }
}
