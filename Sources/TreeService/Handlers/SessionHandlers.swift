import Foundation
import HTTP1
import TreeEngine
import TreeFormats

extension TreeService {
    /// `POST /sessions`: `{"nodes": [...], "expand": "none"|"all"|N, "ttl": seconds, "name",
    /// "labels", "owner"}` or a bare array, or the tree in another format (`Content-Type`,
    /// `format`; see `ContentNegotiation`); `expand`, `ttl` and `name` may also be query
    /// parameters (any format), not both.
    func createSession(_ request: HTTPRequest) throws(ServiceError) -> HTTPResponse {
        let format = try request.uploadFormat()
        let queryExpand = try request.expandQuery()
        let queryTTL = try request.ttlQuery()
        if let queryTTL, let refusal = ttlRefusal(queryTTL) { throw .badQueryParameter("query parameter ttl: " + refusal) }
        var settings = SessionSettings(ttl: queryTTL)
        if let name = request.queryValue("name") {
            do {
                settings = try settings.applying(Members([("name", .string(name))]), now: tokenNow, ttlRefusal: ttlRefusal)
            } catch {
                throw .badQueryParameter("query parameter name must be 1 to \(SessionSettings.maxTextLength) characters without control characters")
            }
        }
        try registry.checkCapacity()
        let (forest, members) = try parseForest(request, format)
        try members.allowOnly(["expand", "ttl", "name", "labels", "owner"])
        for name in ["expand", "ttl", "name"] where request.queryValue(name) != nil && members[name] != nil {
            throw .badQueryParameter("\(name) is given twice: as a query parameter and as a member of the body; give one")
        }
        if members["ttl"] == .null {  // an upload that wants the server's TTL gives none
            throw .unprocessable("\"ttl\" must be a whole number of seconds from 0 (never expire) to \(TreeService.longestTTL)", member: "ttl")
        }
        settings = try settings.applying(Members(members.members.filter { $0.0 != "expand" }), now: tokenNow, ttlRefusal: ttlRefusal)
        var store = TreeStore(forest: forest)
        store.filteredViewCapacity = configuration.filteredViewsPerSession
        switch members["expand"] ?? queryExpand {
        case nil, .string("none")?: break
        case .string("all")?: _ = store.expandAll(nil)
        case let value?:
            guard let depth = value.intValue, depth >= 0 else {
                throw .unprocessable("\"expand\" must be \"none\", \"all\" or a non-negative integer depth", member: "expand")
            }
            _ = store.expand(toDepth: depth, nil)
        }
        let session = try registry.create(store, settings: settings)
        try storeNewSession(session)
        let body = session.state.withReadLock { summary(session, $0) }
        return json(201, body, headers: [("Location", "/sessions/\(session.id)"), ("ETag", ETag.of(1))])
    }

    /// `GET /sessions/{sid}`, beside other readers.
    func sessionSummary(_ request: HTTPRequest, _ sid: String) throws(ServiceError) -> HTTPResponse {
        try readingSession(sid) { session, state throws(ServiceError) in
            if let notModified = notModified(request, version: state.core.version) { return notModified }
            return json(200, summary(session, state), headers: [("ETag", ETag.of(state.core.version))])
        }
    }

    /// The session's summary (`GET /sessions/{sid}`, the upload's answer, and with its
    /// `cursor` an entry of `GET /sessions`).
    func summary(_ session: Session, _ state: Session.State, cursor: SessionCursor? = nil) -> [UInt8] {
        ResponseJSON.summary(session, state, settings: session.settings.withLock { $0 }, expiresAt: expiresAt(session),
                             lastUse: registry.clock.wallTime(of: session.lastUsed), ttl: registry.ttl(of: session), cursor: cursor?.text)
    }

    /// When the session expires unless it is used again, on the wall clock; nil: never.
    func expiresAt(_ session: Session) -> Date? {
        let ttl = registry.ttl(of: session)
        return ttl == .zero ? nil : registry.clock.wallTime(of: session.lastUsed + ttl)
    }

    /// The longest `ttl` a body or query may give, in seconds (nine digits, almost 32 years:
    /// longer is "never", 0; and `expiresAt` stays a four-digit year).
    public static let longestTTL = 999_999_999

    /// Why a `ttl` may not be asked for: longer than `--max-session-ttl` ("never" is longer
    /// than any); nil when it may.
    func ttlRefusal(_ ttl: Duration) -> String? {
        let most = configuration.maxSessionTTL
        guard most != .zero, ttl == .zero || ttl > most else { return nil }
        return "\(ttl == .zero ? "0 (never expire)" : "\(ttl.components.seconds) s") is longer than this server's "
            + "--max-session-ttl of \(most.components.seconds) s"
    }

    /// `DELETE /sessions/{sid}`
    func deleteSession(_ request: HTTPRequest, _ sid: String) throws(ServiceError) -> HTTPResponse {
        // As on the write path: 404 for an unknown or expired session, and If-Match is
        // checked under the same exclusive lock that marks the session removed, so no
        // change slips in between.
        _ = try liveSession(sid)
        let removed = try registry.remove(sid) { state throws(ServiceError) in try request.checkIfMatch(version: state.core.version) }
        guard removed else { throw TreeService.removedSession(sid) }
        return HTTPResponse(status: 204)
    }

    /// `PATCH /sessions/{sid}?filter=`: one of the default view's changes (expandAll,
    /// collapseAll, expandDepth, the selection's), or settings (owner; see `patchSettings`).
    func patchSession(_ request: HTTPRequest, _ sid: String, _ caller: Caller) throws(ServiceError) -> HTTPResponse {
        let filter = try request.filterQuery()
        let members = Members(try request.jsonObjectBody())
        if members.keys.contains(where: SessionSettings.members.contains) {
            return try patchSettings(request, sid, members, filter: filter, caller)
        }
        let operation = try SessionOperation.sessionPatch(members)
        try caller.requireView(nil)
        return try mutateSession(request, sid, view: ViewName(filter: filter), operation)
    }

    /// `PATCH /sessions/{sid}` with settings: `name`, `labels`, `owner`, `ttl`,
    /// `tokensValidAfter`, each replacing its setting (owner). Settings are part of the
    /// session's summary, so a change of them steps its version (its `ETag`), with an event
    /// that changes no row; the answer is the summary.
    private func patchSettings(_ request: HTTPRequest, _ sid: String, _ members: Members, filter: FilterQuery?,
                               _ caller: Caller) throws(ServiceError) -> HTTPResponse {
        if let other = members.keys.first(where: { !SessionSettings.members.contains($0) }) {
            throw .unprocessable("\"\(other)\" changes the default view, and the other members the session's settings: send them in two requests", member: other)
        }
        if filter != nil { throw .badQueryParameter("the session's settings are not a view's: drop the filter parameters") }
        try caller.require(.owner, to: "change the session's settings")
        let session = try liveSession(sid)
        let (body, version, mark) = try withSession(session) { session, state throws(ServiceError) in
            try request.checkIfMatch(version: state.core.version)
            let current = session.settings.withLock { $0 }
            let settings = try current.applying(members, now: tokenNow, ttlRefusal: ttlRefusal)
            if case .token = caller, settings.tokensValidAfter < current.tokensValidAfter {
                throw ServiceError(.forbidden, detail: "only an admin token may move tokensValidAfter back (it would accept revoked tokens again)")
            }
            var mark: JournalMark?
            if settings != current {
                mark = try journal(.settings(settings), session, &state)
                applySettings(settings, session, &state, mark: mark)
                mark = try durableUnderLock(mark, session, &state)
            }
            return (summary(session, state), state.core.version, mark)
        }
        return sentWhenDurable(json(200, body, headers: [("ETag", ETag.of(version))]), mark, session)
    }

    /// Gives the session `settings`, a step of its version (a live change, and its replay).
    func applySettings(_ settings: SessionSettings, _ session: Session, _ state: inout Session.State, mark: JournalMark?) {
        session.settings.withLock { $0 = settings }
        session.tokenStreams.end(mintedBefore: settings.tokensValidAfter)
        state.core.version += 1
        publish(session, &state, .one(nil), mark: mark) { ref, store, version in .change(ResponseJSON.unchanged(ref, store, version: version)) }
    }

    /// `GET /sessions` (admin): the sessions, newest first, `limit` at a time (the next page
    /// `after` the last one's `cursor`), those whose name starts with `name` or that carry the
    /// label `label` (`key:value`). A session token lists its own session only.
    func listSessions(_ request: HTTPRequest, _ caller: Caller) throws(ServiceError) -> HTTPResponse {
        let limit = try request.integerQuery("limit", default: configuration.defaultPageLimit, maximum: configuration.maxPageLimit)
        let prefix = request.queryValue("name")
        var label: (key: String, value: String)?
        if let text = request.queryValue("label") {
            // Split at the first colon's byte: a colon followed by a combining mark or an emoji
            // modifier is one Character with it, which `firstIndex(of: ":")` would not find.
            guard let (key, value) = SessionCursor.split(text), SessionSettings.isLabelKey(key) else {
                throw .badQueryParameter("query parameter label must be key:value (a label key, a colon, its value), not \"\(text)\"")
            }
            label = (key, value)
        }
        var after: SessionCursor?
        if let text = request.queryValue("after") {
            guard let cursor = SessionCursor(text) else {
                throw .badQueryParameter("query parameter after must be the cursor of a session of a page before, not \"\(text)\"")
            }
            after = cursor
        }
        let now = registry.clock.now
        var sessions: [(SessionCursor, Session)] = []
        for session in registry.all where !registry.isExpired(session, now: now) {
            if case .token(let token) = caller, token.session != session.id { continue }
            let settings = session.settings.withLock { $0 }
            if let prefix, !(settings.name?.hasPrefix(prefix) ?? false) { continue }
            if let label, settings.labels[label.key] != label.value { continue }
            let cursor = SessionCursor(createdAt: JournalEntry.milliseconds(session.createdAt), id: session.id)
            if let after, !(cursor < after) { continue }
            sessions.append((cursor, session))
        }
        sessions.sort { $0.0 > $1.0 }  // newest first
        let page = sessions.prefix(limit)
        var out = JSONWriter(reservingCapacity: 64 + 400 * page.count)
        out.raw("{\"sessions\":[")
        var first = true
        for (cursor, session) in page {
            let entry = session.state.withReadLock { state in state.removed ? nil : summary(session, state, cursor: cursor) }
            guard let entry else { continue }
            if !first { out.raw(",") }
            first = false
            out.raw(entry)
        }
        out.raw("],\"next\":")
        if sessions.count > page.count { out.string((page.last?.0 ?? after ?? SessionCursor.beforeAll).text) } else { out.raw("null") }
        out.raw("}")
        return json(200, out.bytes, headers: [("Cache-Control", "no-store")])
    }

    /// `GET /sessions/{sid}/tree`: the forest in the upload format (or, by `Accept` or
    /// `format`, as CSV, NDJSON or a path list), streamed from a snapshot so the session
    /// stays usable while a large export is written. The snapshot is taken beside other
    /// readers. A path list cannot hold every tree: the next form `Accept` takes is sent
    /// then, 406 when there is none. Each form has its own entity tag.
    ///
    /// With `selection=true`, the view's selected nodes alone (`/sessions/{sid}/views/{vid}/tree`:
    /// that view's), each under its nearest selected ancestor, built beside other readers.
    func exportTree(_ request: HTTPRequest, _ sid: String, view vid: String?) throws(ServiceError) -> HTTPResponse {
        let formats = try request.exportFormats()
        let selection = try request.booleanQuery("selection") ?? false
        let session = try liveSession(sid)
        let view = try liveView(ViewName(id: vid), in: session)
        let (snapshot, version, doubles) = try readingSession(session) { session, state throws(ServiceError) in
            try requireView(view.view, state)
            let store = state.core.store
            return (selection ? store.selectedForest(in: view.view) : store.forest, state.core.version(of: view.view), session.doublesPathBackslashes)
        }
        // The best form that can hold the tree: a path list cannot hold every tree.
        var conflict: String?
        let format = formats.first { format in
            guard case .paths = format else { return true }
            conflict = snapshot.pathListConflict()
            return conflict == nil
        }
        guard let format else {
            throw ServiceError(.notAcceptable, detail: "the tree cannot be written as a path list: \(conflict ?? ""); ask for application/json, text/csv or application/x-ndjson")
        }
        if format == .document, let conflict = snapshot.documentConflict() {
            throw ServiceError(.notAcceptable, detail: "the tree cannot be written as a JSON document: \(conflict); ask for format=nodes, csv, ndjson or paths")
        }
        let tag = HTTPRequest.exportTag(format, version: version)
        if let header = request.headers["if-none-match"], ETag.list(header, names: tag, weakly: true) {
            return HTTPResponse(status: 304, headers: HTTPHeaders([("ETag", tag), ("Vary", "Accept")]))
        }
        let headers = HTTPHeaders([("Content-Type", format.mediaType), ("ETag", tag), ("Vary", "Accept")])
        return HTTPResponse(status: 200, headers: headers, body: .stream { writer in
            switch format {
            case .csv: try snapshot.exportCSV { try writer.write($0) }
            case .ndjson: try snapshot.exportNDJSON { try writer.write($0) }
            case .paths(let separator): try snapshot.exportPaths(separator: separator, doublesBackslashes: doubles) { try writer.write($0) }
            case .nodes: try snapshot.export { try writer.write($0) }
            case .document: try snapshot.exportDocument { try writer.write($0) }
            }
        })
    }

    /// Parses a whole forest to open a session from, in `format`; only the nested JSON
    /// format has other members (`expand`).
    func parseForest(_ request: HTTPRequest, _ format: TreeFormat) throws(ServiceError) -> (Forest, Members) {
        if format == .nodes { return try parseNodes(request, into: nil) }
        // The peak beside the body: the columns and strings, and for path lists and
        // documents the ids (whole paths, pointers) that can outgrow the body; a large body
        // is read in parts whose builders are joined (all held at once).
        let peak = 3 * request.body.count
        return try withParseBudget(request, peak: peak) { () throws(ServiceError) in
            let forest = try readBody(request.body, as: format) { raw, limits throws(TreeInputError) in
                switch format {
                case .csv(let dialect): try Forest.parseCSV(raw, limits: limits, dialect: dialect)
                case .ndjson: try Forest.parseNDJSON(raw, limits: limits)
                case .paths(let separator): try Forest.parsePaths(raw, separator: separator, limits: limits)
                case .document, .nodes: try Forest.parseDocument(raw, limits: limits)
                }
            }
            // What the reader held beside the forest (the second half's builder, a path list's
            // tables, the id index's scratch) is freed by now, and malloc keeps much of it in
            // its heaps: give it back, so the session costs what the same nested upload does.
            registry.freedMemory.nodesFreed(forest.count)
            return (forest, Members([]))
        }
    }

    /// Runs a reader of `format` over `range` of `bytes` (all of them by default) within
    /// this server's limits; its errors become 400, 422 or 429 with their place. A replay
    /// reads what was accepted before, whatever the limits are today.
    func readBody<R>(_ bytes: [UInt8], in range: Range<Int>? = nil, as format: TreeFormat, replaying: Bool = false,
                 _ reader: (UnsafeRawBufferPointer, ForestLimits) throws(TreeInputError) -> R) throws(ServiceError) -> R {
        let limits = uploadLimits(replaying: replaying)
        let result: Result<R, TreeInputError> = bytes.withUnsafeBytes { all in
            let raw = UnsafeRawBufferPointer(rebasing: all[range ?? 0 ..< all.count])
            do throws(TreeInputError) { return .success(try reader(raw, limits)) } catch { return .failure(error) }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): throw ServiceError(error, format: format)
        }
    }

    /// The limits an upload is read with: this server's, or none for a replay (which reads
    /// what was accepted before, whatever the limits are today).
    func uploadLimits(replaying: Bool = false) -> ForestLimits {
        replaying ? ForestLimits(maxNodes: .max, maxDepth: .max, maxIDBytes: .max)
            : ForestLimits(maxNodes: configuration.maxNodesPerSession, maxDepth: configuration.maxDepth)
    }

    /// Parses an upload body: a whole forest, or (`into` a store) nodes to insert there,
    /// whose ids are checked against it. Parser errors become 400, 422 or 429.
    func parseNodes(_ request: HTTPRequest, into store: TreeStore?) throws(ServiceError) -> (Forest, Members) {
        // The parse's peak (columns, titles, members) beside the body, estimated at twice the
        // body's size, is counted in the server's memory budget while it runs.
        try withParseBudget(request, peak: 2 * request.body.count) { () throws(ServiceError) in
            try parseNodes(request.body, 0 ..< request.body.count, into: store)
        }
    }

    /// Runs `body`, a parse of the request's body whose peak memory is estimated at `peak`
    /// bytes, with `peak` reserved in the server's memory budget: 413 when the body and the
    /// peak could never fit it, 503 when they do not fit it now.
    func withParseBudget<R>(_ request: HTTPRequest, peak: Int, _ body: () throws(ServiceError) -> R) throws(ServiceError) -> R {
        if let budget = request.memoryBudget, !budget.tryReserve(peak) {
            if request.body.count + peak > budget.capacity {
                throw ServiceError(.bodyTooLarge, detail: "parsing this body needs about \(request.body.count + peak) bytes, more than the server's memory budget (--max-buffered-bodies) of \(budget.capacity)")
            }
            throw ServiceError(.unavailable, detail: "the server is parsing as many uploads as its memory budget (--max-buffered-bodies) allows; retry later",
                               headers: [("Retry-After", "10")])
        }
        defer { request.memoryBudget?.release(peak) }
        return try body()
    }

    /// Parses the upload document in `range` of `bytes` (see `parseNodes(_:into:)`); its
    /// errors' byte offsets count from the start of the range.
    func parseNodes(_ bytes: [UInt8], _ range: Range<Int>, into store: TreeStore?, replaying: Bool = false) throws(ServiceError) -> (Forest, Members) {
        let (forest, members) = try readBody(bytes, in: range, as: .nodes, replaying: replaying) { raw, limits throws(TreeInputError) in
            if let store {
                let result = try store.parseFragment(raw, limits: limits)
                return (result.fragment, result.members)
            }
            let result = try Forest.parse(raw, limits: limits)
            return (result.forest, result.members)
        }
        return (forest, Members(members.map { ($0.key, $0.value) }))
    }

    /// Reads nodes to insert from `range` of `bytes` before the session is locked: their
    /// syntax, this server's limits and their own ids are checked here (400, 422 or 429 with
    /// their place), what they meet in the session by `attached(_:…)` under its lock.
    func readDetachedNodes(_ bytes: [UInt8], _ range: Range<Int>) throws(ServiceError) -> DetachedNodes {
        let (fragment, members) = try readBody(bytes, in: range, as: .nodes) { raw, limits throws(TreeInputError) in
            try TreeStore.parseDetachedFragment(raw, limits: limits)
        }
        return DetachedNodes(fragment: fragment, members: Members(members.map { ($0.key, $0.value) }))
    }

    /// The nodes `read` before the lock, as `store` takes them: those very nodes when no id
    /// of theirs is taken there and the session's node limit holds; else `readAgain()`, a
    /// read against `store`, which names the node that breaks the rule. Without `read` (a
    /// replay), `readAgain()` at once.
    func attached(_ read: DetachedNodes?, to store: TreeStore,
                  readAgain: () throws(ServiceError) -> (Forest, Members)) throws(ServiceError) -> (Forest, Members) {
        if let read, store.admits(read.fragment, limits: uploadLimits()) { return (read.fragment, read.members) }
        return try readAgain()
    }

    /// `304 Not Modified` when `If-None-Match` names the current version.
    func notModified(_ request: HTTPRequest, version: Int) -> HTTPResponse? {
        guard let header = request.headers["if-none-match"], ETag.list(header, names: version, weakly: true) else { return nil }
        return HTTPResponse(status: 304, headers: HTTPHeaders([("ETag", ETag.of(version))]))
    }
}

/// Where a session stands in the list of sessions: newest first, by creation time, then id.
/// Its text, `{milliseconds}:{id}`, continues a list after that session, present or not.
struct SessionCursor: Comparable {
    var createdAt: Int64
    var id: String

    init(createdAt: Int64, id: String) {
        self.createdAt = createdAt
        self.id = id
    }

    init?(_ text: String) {
        guard let (time, id) = SessionCursor.split(text), let createdAt = Int64(time), createdAt >= 0 else { return nil }
        self.init(createdAt: createdAt, id: id)
    }

    /// `text` before and after its first colon (found by its byte, whatever follows it).
    static func split(_ text: String) -> (String, String)? {
        guard let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        return (String(text.utf8[..<colon])!, String(text.utf8[text.utf8.index(after: colon)...])!)
    }

    var text: String { "\(createdAt):\(id)" }

    /// A place before every session (newest first): where a list that gave none goes on from
    /// (`limit=0`). Eighteen digits, as the spec's pattern has it.
    static let beforeAll = SessionCursor(createdAt: 999_999_999_999_999_999, id: "")

    static func < (a: SessionCursor, b: SessionCursor) -> Bool { (a.createdAt, a.id) < (b.createdAt, b.id) }
}

/// Nodes to insert read from a body before the session was locked (`readDetachedNodes`):
/// checked on their own, not yet against the session.
struct DetachedNodes {
    var fragment: Forest
    /// The body's other members (where the nodes go).
    var members: Members
}
