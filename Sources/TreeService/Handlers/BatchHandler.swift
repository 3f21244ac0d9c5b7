import HTTP1
import TreeEngine

extension TreeService {
    /// `POST /sessions/{sid}/batch?filter=` (and under `/sessions/{sid}/views/{vid}/`):
    /// `{"operations": [...]}`, all or nothing.
    ///
    /// The body is read as JSON before the session is looked up (400, 413 for too many
    /// operations, 422 for a body of another shape), and the inserts' nodes on their own;
    /// each operation is checked in its turn, against the session as the operations before
    /// it left it.
    func batch(_ request: HTTPRequest, _ sid: String, view vid: String?, _ caller: Caller) throws(ServiceError) -> HTTPResponse {
        let view = ViewName(id: vid, filter: try request.filterQuery())
        try request.requireJSONBody()
        // The parsed body (a JSON value per member) and an insert's nodes, estimated at
        // four times the body, are counted in the server's memory budget.
        return try withParseBudget(request, peak: 4 * request.body.count) { () throws(ServiceError) in
            var batch = try Batch(request.body, maxOperations: configuration.maxBatchOperations, maxDepth: configuration.maxDepth)
            if batch.editsTree { try caller.require(.editor, to: "edit the tree (this batch does)") }
            batch.readInserts { span throws(ServiceError) in try readDetachedNodes(request.body, span) }
            return try mutateSession(request, sid, view: view, batch: batch)
        }
    }
}
