import Foundation

// One method per operation of openapi.yaml (the view forms through `view:`). Each is one
// request; the complexity of each is the server's (docs/API.md).

// MARK: Server

extension TreeSessionsClient {
    /// `GET /healthz`.
    public func health() async throws -> Health {
        try await json(Health.self, Call(method: "GET", path: ["healthz"]))
    }

    /// `GET /openapi.yaml`: the API description the server serves.
    public func openAPI() async throws -> String {
        String(decoding: try await send(Call(method: "GET", path: ["openapi.yaml"])).body, as: UTF8.self)
    }

    /// `GET /metrics` (an admin token): Prometheus text.
    public func metrics() async throws -> String {
        String(decoding: try await send(Call(method: "GET", path: ["metrics"])).body, as: UTF8.self)
    }
}

// MARK: Sessions

extension TreeSessionsClient {
    /// `POST /sessions`: a session from nested JSON nodes (`.upload(SessionUpload(nodes: …))`,
    /// or `.nodes([...])`).
    public func createSession(_ body: CreateSessionBody) async throws -> SessionSummary {
        try await json(SessionSummary.self, Self.body("POST", ["sessions"], body))
    }

    /// `POST /sessions` with a body in another format (`text/csv`, `application/x-ndjson`,
    /// `text/plain` path lists) and the query's choices.
    public func createSession(text: String, contentType: String, expand: String? = nil, ttl: Int? = nil,
                              name: String? = nil, separator: String? = nil, columns: String? = nil) async throws -> SessionSummary {
        let call = Call(method: "POST", path: ["sessions"], body: Data(text.utf8), contentType: contentType)
            .query([("expand", expand), ("ttl", ttl.map(String.init)), ("name", name), ("separator", separator), ("columns", columns)])
        return try await json(SessionSummary.self, call)
    }

    /// `GET /sessions`: a page of the sessions, newest first.
    public func listSessions(name: String? = nil, label: String? = nil, limit: Int? = nil, after: SessionCursor? = nil) async throws -> SessionList {
        let call = Call(method: "GET", path: ["sessions"])
            .query([("name", name), ("label", label), ("limit", limit.map(String.init)), ("after", after)])
        return try await json(SessionList.self, call)
    }

    /// `GET /sessions/{sid}`: the session's summary.
    public func session(_ session: String, ifNoneMatch: String? = nil) async throws -> SessionSummary {
        try await json(SessionSummary.self, Call(method: "GET", path: ["sessions", session]).conditions(ifNoneMatch: ifNoneMatch))
    }

    /// `PATCH /sessions/{sid}` with settings (`name`, `labels`, `owner`, `ttl`,
    /// `tokensValidAfter`): the `owner` role.
    public func updateSettings(_ session: String, _ settings: SessionSettingsBody, ifMatch: String? = nil) async throws -> SessionSummary {
        try await json(SessionSummary.self, Self.body("PATCH", ["sessions", session], settings).conditions(ifMatch: ifMatch))
    }

    /// `DELETE /sessions/{sid}`.
    public func deleteSession(_ session: String, ifMatch: String? = nil) async throws {
        _ = try await send(Call(method: "DELETE", path: ["sessions", session]).conditions(ifMatch: ifMatch))
    }

    /// `POST /sessions/{sid}/tokens`: a session token with a role, perhaps bound to a view.
    public func createToken(_ session: String, _ body: CreateTokenBody) async throws -> SessionToken {
        try await json(SessionToken.self, Self.body("POST", ["sessions", session, "tokens"], body))
    }

    /// `POST /sessions/{sid}/events/token`: a reader token for 60 s, for `access_token`.
    public func createEventToken(_ session: String) async throws -> EventToken {
        try await json(EventToken.self, Call(method: "POST", path: ["sessions", session, "events", "token"]))
    }

    /// `GET /sessions/{sid}/fields`: the fields the nodes carry.
    public func fields(_ session: String, ifNoneMatch: String? = nil) async throws -> FieldList {
        try await json(FieldList.self, Call(method: "GET", path: ["sessions", session, "fields"]).conditions(ifNoneMatch: ifNoneMatch))
    }
}

// MARK: Rows of a view

extension TreeSessionsClient {
    /// `GET …/rows`: a page of the named rows.
    public func rows(_ session: String, view: ViewId? = nil, filter: RowFilter = .unfiltered, offset: Int = 0,
                     limit: Int = 50, highlight: String? = nil, positions: Bool? = nil, aggregate: String? = nil,
                     ifNoneMatch: String? = nil) async throws -> RowsPage {
        let call = Call(method: "GET", path: Self.viewPath(session, view, "rows"))
            .filter(filter)
            .query([("offset", String(offset)), ("limit", String(limit)), ("highlight", highlight),
                    ("positions", positions.map { $0 ? "true" : "false" }), ("aggregate", aggregate)])
            .conditions(ifNoneMatch: ifNoneMatch)
        return try await json(RowsPage.self, call)
    }

    /// `GET …/items/{id}/children`, or `GET …/children` (the roots) when `item` is nil.
    public func children(_ session: String, view: ViewId? = nil, of item: NodeId?, filter: RowFilter = .unfiltered,
                         offset: Int = 0, limit: Int = 50, sort: String? = nil, aggregate: String? = nil,
                         ifNoneMatch: String? = nil) async throws -> ChildrenPage {
        let path = item.map { Self.viewPath(session, view, "items", $0.stringForm, "children") } ?? Self.viewPath(session, view, "children")
        let call = Call(method: "GET", path: path)
            .filter(filter)
            .query([("offset", String(offset)), ("limit", String(limit)), ("sort", sort), ("aggregate", aggregate)])
            .conditions(ifNoneMatch: ifNoneMatch)
        return try await json(ChildrenPage.self, call)
    }

    /// `GET …/items/{id}`: one item in the named rows.
    public func item(_ session: String, view: ViewId? = nil, _ id: NodeId, filter: RowFilter = .unfiltered,
                     ifNoneMatch: String? = nil) async throws -> ItemInfo {
        let call = Call(method: "GET", path: Self.viewPath(session, view, "items", id.stringForm))
            .filter(filter).conditions(ifNoneMatch: ifNoneMatch)
        return try await json(ItemInfo.self, call)
    }

    /// `GET …/matches`: the matches of filtered rows (or of `highlight`) in tree order.
    public func matches(_ session: String, view: ViewId? = nil, filter: RowFilter = .unfiltered, highlight: String? = nil,
                        after: NodeId? = nil, before: NodeId? = nil, limit: Int? = nil, wrap: Bool? = nil,
                        ifNoneMatch: String? = nil) async throws -> MatchesPage {
        let call = Call(method: "GET", path: Self.viewPath(session, view, "matches"))
            .query([("filter", filter.text), ("match", filter.match?.rawValue),
                    ("caseSensitive", filter.caseSensitive.map { $0 ? "true" : "false" }), ("highlight", highlight),
                    ("after", after?.stringForm), ("before", before?.stringForm), ("limit", limit.map(String.init)),
                    ("wrap", wrap.map { $0 ? "true" : "false" })])
            .conditions(ifNoneMatch: ifNoneMatch)
        return try await json(MatchesPage.self, call)
    }

    /// `GET …/selection`: the view's selected nodes in tree order.
    public func selection(_ session: String, view: ViewId? = nil, after: NodeId? = nil, limit: Int? = nil,
                          top: Bool? = nil, filter: RowFilter = .unfiltered, ifNoneMatch: String? = nil) async throws -> SelectionPage {
        let call = Call(method: "GET", path: Self.viewPath(session, view, "selection"))
            .query([("after", after?.stringForm), ("limit", limit.map(String.init)), ("top", top.map { $0 ? "true" : "false" })])
            .filter(filter).conditions(ifNoneMatch: ifNoneMatch)
        return try await json(SelectionPage.self, call)
    }

    /// `GET …/expansion`: the nodes the view's unfiltered rows show expanded.
    public func expansion(_ session: String, view: ViewId? = nil, ifNoneMatch: String? = nil) async throws -> ExpansionList {
        try await json(ExpansionList.self, Call(method: "GET", path: Self.viewPath(session, view, "expansion")).conditions(ifNoneMatch: ifNoneMatch))
    }

    /// `PUT …/expansion`: exactly these nodes expanded in the view's unfiltered rows.
    public func setExpansion(_ session: String, view: ViewId? = nil, _ body: ExpansionBody, ifMatch: String? = nil) async throws -> ExpansionChangeResponse {
        try await json(ExpansionChangeResponse.self, Self.body("PUT", Self.viewPath(session, view, "expansion"), body).conditions(ifMatch: ifMatch))
    }

    /// `GET …/tree`: the whole tree in the upload format (`selection`: the view's selected nodes).
    public func tree(_ session: String, view: ViewId? = nil, selection: Bool? = nil, ifNoneMatch: String? = nil) async throws -> TreeExport {
        let call = Call(method: "GET", path: Self.viewPath(session, view, "tree"))
            .query([("selection", selection.map { $0 ? "true" : "false" })]).conditions(ifNoneMatch: ifNoneMatch)
        return try await json(TreeExport.self, call)
    }

    /// `GET …/tree?format=`: the tree as `csv`, `ndjson` or `paths` text.
    public func treeText(_ session: String, view: ViewId? = nil, format: String, separator: String? = nil,
                         selection: Bool? = nil) async throws -> String {
        let call = Call(method: "GET", path: Self.viewPath(session, view, "tree"))
            .query([("format", format), ("separator", separator), ("selection", selection.map { $0 ? "true" : "false" })])
        return String(decoding: try await send(call).body, as: UTF8.self)
    }
}

// MARK: Changes

extension TreeSessionsClient {
    /// `PATCH /sessions/{sid}` (view nil) or `PATCH /sessions/{sid}/views/{vid}`: expandAll,
    /// collapseAll, expandDepth, the selection's operations, a view's sort.
    public func patchView(_ session: String, view: ViewId? = nil, _ body: PatchViewBody, filter: RowFilter = .unfiltered,
                          ifMatch: String? = nil) async throws -> ChangeResponse {
        let call = try Self.body("PATCH", Self.viewPath(session, view), body).filter(filter).conditions(ifMatch: ifMatch)
        return try await json(ChangeResponse.self, call)
    }

    /// `POST …/items`: inserts nodes.
    public func insertItems(_ session: String, view: ViewId? = nil, _ body: InsertItemsBody, filter: RowFilter = .unfiltered,
                            ifMatch: String? = nil) async throws -> InsertResponse {
        let call = try Self.body("POST", Self.viewPath(session, view, "items"), body).filter(filter).conditions(ifMatch: ifMatch)
        return try await json(InsertResponse.self, call)
    }

    /// `PATCH …/items/{id}`: expand or collapse, reveal, select, update, or move the item.
    public func patchItem(_ session: String, view: ViewId? = nil, _ id: NodeId, _ body: PatchItemBody,
                          filter: RowFilter = .unfiltered, ifMatch: String? = nil) async throws -> ItemChangeResponse {
        let call = try Self.body("PATCH", Self.viewPath(session, view, "items", id.stringForm), body)
            .filter(filter).conditions(ifMatch: ifMatch)
        return try await json(ItemChangeResponse.self, call)
    }

    /// `DELETE …/items/{id}`: deletes the item and its subtree.
    public func deleteItem(_ session: String, view: ViewId? = nil, _ id: NodeId, filter: RowFilter = .unfiltered,
                           ifMatch: String? = nil) async throws -> ItemChangeResponse {
        let call = Call(method: "DELETE", path: Self.viewPath(session, view, "items", id.stringForm))
            .filter(filter).conditions(ifMatch: ifMatch)
        return try await json(ItemChangeResponse.self, call)
    }

    /// `POST …/batch`: the operations in order, all or nothing, as one change.
    public func batch(_ session: String, view: ViewId? = nil, _ operations: [BatchOperation], filter: RowFilter = .unfiltered,
                      ifMatch: String? = nil) async throws -> BatchResponse {
        let call = try Self.body("POST", Self.viewPath(session, view, "batch"), BatchBody(operations: operations))
            .filter(filter).conditions(ifMatch: ifMatch)
        return try await json(BatchResponse.self, call)
    }
}

// MARK: Views

extension TreeSessionsClient {
    /// `POST /sessions/{sid}/views`: a view of its own (`CreateViewBody(expand: .mode(.all))`,
    /// `CreateViewBody(from: "default")`, …).
    public func createView(_ session: String, _ body: CreateViewBody = CreateViewBody(), ifMatch: String? = nil) async throws -> ViewSummary {
        try await json(ViewSummary.self, Self.body("POST", ["sessions", session, "views"], body).conditions(ifMatch: ifMatch))
    }

    /// `GET /sessions/{sid}/views`: a page of the session's views.
    public func views(_ session: String, offset: Int? = nil, limit: Int? = nil) async throws -> ViewList {
        let call = Call(method: "GET", path: ["sessions", session, "views"])
            .query([("offset", offset.map(String.init)), ("limit", limit.map(String.init))])
        return try await json(ViewList.self, call)
    }

    /// `GET /sessions/{sid}/views/{vid}`: the view's summary.
    public func view(_ session: String, _ view: ViewId, ifNoneMatch: String? = nil) async throws -> ViewSummary {
        try await json(ViewSummary.self, Call(method: "GET", path: ["sessions", session, "views", view]).conditions(ifNoneMatch: ifNoneMatch))
    }

    /// `DELETE /sessions/{sid}/views/{vid}`: its streams end.
    public func deleteView(_ session: String, _ view: ViewId, ifMatch: String? = nil) async throws {
        _ = try await send(Call(method: "DELETE", path: ["sessions", session, "views", view]).conditions(ifMatch: ifMatch))
    }
}
