import Foundation
import HTTP1
import Synchronization
import TreeEngine
import TreeStorage

/// The tree sessions service: the HTTP API of `docs/API.md` over `TreeEngine`.
///
/// Handlers throw `ServiceError`; `respond(to:)` renders every error as problem+json.
public final class TreeService: HTTPResponder {
    let configuration: ServiceConfiguration
    let registry: SessionRegistry
    let metrics = Metrics()
    let durability: Durability
    /// Event streams open on this server (`--max-streams`).
    let openStreams = Atomic<Int>(0)
    /// The admin tokens and signing keys requests are checked against.
    let keys: Mutex<AccessKeys>
    /// Token texts the keys of `generation` verified, with what they say (their expiry is
    /// checked at each use): a browser sends one token with every request, checked once.
    let verifiedTokens = Mutex<(generation: Int, tokens: [String: AccessToken])>((0, [:]))

    /// - Parameters:
    ///   - clock: the service's time; injected so expiry can be tested.
    ///   - dataDirectory: where sessions and their changes are stored (nil: in memory only);
    ///     `loadStoredSessions` loads what it holds.
    ///   - log: where the service says what happened to stored sessions.
    public init(configuration: ServiceConfiguration, clock: any ServiceClock = SystemClock(),
                dataDirectory: DataDirectory? = nil, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.configuration = configuration
        keys = Mutex(AccessKeys(configuration.credentials))
        let durability = Durability(directory: dataDirectory, log: log)
        self.durability = durability
        for note in dataDirectory?.startupNotes ?? [] { log("storage: \(note)") }
        registry = SessionRegistry(configuration: configuration, clock: clock) { (id, state) throws(ServiceError) in
            // DELETE and expiry remove the session's files.
            guard let files = state.files, let directory = durability.directory else { return }
            if let error = directory.remove(id) {
                // Still in place (the rename failed): the session stays, whole (507 for a DELETE).
                if FileManager.default.fileExists(atPath: files.directory) {
                    throw durability.failure(error, writing: "the removal of session \(id)")
                }
                log("storage: could not remove the files of session \(id): \(error)")
            }
            files.close()
            state.files = nil
        }
    }

    /// Renders the errors the HTTP layer answers by itself as problem+json.
    public static let httpErrorRenderer = Problem.httpErrorRenderer

    /// The version of the service and its API (`info.version` of openapi.yaml).
    public static let version = "1.0.0"

    /// The largest request body a server with a data directory takes (`--max-body`): a change
    /// is journaled as one record, with its body, and must fit it.
    public static let maxBodyWithDataDirectory = JournalEntry.maxJournaledBody

    /// The number of live sessions.
    public var sessionCount: Int { registry.count }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        let start = registry.clock.now
        let route = Route(request.pathSegments)
        var response: HTTPResponse
        do throws(ServiceError) {
            guard let route else {
                if request.method != "OPTIONS" { _ = try authorize(request, nil) }
                throw ServiceError.notFound(Route.unmatchedDetail(request.pathSegments, path: request.path))
            }
            response = try handle(request, route)
        } catch {
            response = error.response(logTag: route?.template.rawValue ?? Route.unmatchedLabel)
        }
        let logTag = route?.template.rawValue ?? Route.unmatchedLabel
        // A change that waits for its fsync is finished (and counted) when it is sent.
        @Sendable func finished(_ response: HTTPResponse) -> HTTPResponse {
            var response = response
            response.logTag = logTag
            addCORS(request, &response)
            metrics.record(route: route?.template, method: request.method, status: response.status,
                           duration: start.duration(to: registry.clock.now))
            return response
        }
        guard let deferral = response.deferral else { return finished(response) }
        response.logTag = logTag
        response.deferral = { send in deferral { send(finished($0)) } }
        return response
    }

    private func handle(_ request: HTTPRequest, _ route: Route) throws(ServiceError) -> HTTPResponse {
        let method = request.method == "HEAD" ? "GET" : request.method
        if method == "OPTIONS" { return preflight(request, route) }
        let caller = try authorize(request, route)
        guard route.allowedMethods.contains(request.method) else {
            throw ServiceError(.methodNotAllowed,
                               detail: "\(request.method) is not allowed on \(route.template.rawValue); allowed: \(route.allowedMethods.joined(separator: ", "))",
                               headers: [("Allow", route.allowedMethods.joined(separator: ", "))])
        }
        try request.checkQueryParameters(route.template)
        switch (route, method) {
        case (.root, _): return HTTPResponse(status: 200, contentType: "text/html; charset=utf-8", body: DemoPage.html)
        case (.health, _): return json(200, Array("{\"status\":\"ok\"}".utf8))
        case (.metrics, _):
            return HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8",
                                body: metrics.render(sessions: registry.loadedCount, nodes: registry.nodeCount) + eventMetrics() + storageMetrics())
        case (.openAPI, _): return HTTPResponse(status: 200, contentType: "application/yaml", body: PackageResources.openapi_yaml)  // the repository's, compiled in
        case (.client(let file), _): return try ClientModule.response(file)
        case (.sessions, "GET"): return try listSessions(request, caller)
        case (.sessions, _): return try createSession(request)
        case (.session(let sid), "GET"): return try sessionSummary(request, sid)
        case (.session(let sid), "DELETE"): return try deleteSession(request, sid)
        case (.session(let sid), _): return try patchSession(request, sid, caller)
        case (.rows(let sid, let view), _): return try rows(request, sid, view: view)
        case (.tree(let sid, let view), _): return try exportTree(request, sid, view: view)
        case (.items(let sid, let view), _): return try insertItems(request, sid, view: view)
        case (.item(let sid, let item, let view), "GET"): return try itemInfo(request, sid, item, view: view)
        case (.item(let sid, let item, let view), "DELETE"): return try deleteItem(request, sid, item, view: view)
        case (.item(let sid, let item, let view), _): return try patchItem(request, sid, item, view: view, caller)
        case (.children(let sid, let item, let view), _): return try children(request, sid, of: item, view: view)
        case (.batch(let sid, let view), _): return try batch(request, sid, view: view, caller)
        case (.events(let sid, let view), _): return try events(request, sid, view: view, caller)
        case (.eventToken(let sid), _): return try eventToken(request, sid, caller)
        case (.tokens(let sid), _): return try mintToken(request, sid, caller)
        case (.matches(let sid, let view), _): return try matches(request, sid, view: view)
        case (.selection(let sid, let view), _): return try selection(request, sid, view: view)
        case (.expansion(let sid, let view), "PUT"): return try setExpansion(request, sid, view: view)
        case (.expansion(let sid, let view), _): return try expansion(request, sid, view: view)
        case (.fields(let sid), _): return try fieldList(request, sid)
        case (.views(let sid), "GET"): return try listViews(request, sid, caller)
        case (.views(let sid), _): return try createView(request, sid)
        case (.view(let sid, let view), "GET"): return try viewSummary(request, sid, view)
        case (.view(let sid, let view), "DELETE"): return try deleteView(request, sid, view)
        case (.view(let sid, let view), _): return try patchView(request, sid, view)
        }
    }

    // MARK: CORS

    private func allowedOrigin(_ request: HTTPRequest) -> String? {
        guard let origin = request.headers["origin"], !configuration.corsOrigins.isEmpty else { return nil }
        if configuration.corsOrigins.contains("*") { return "*" }
        return configuration.corsOrigins.contains(origin) ? origin : nil
    }

    private func addCORS(_ request: HTTPRequest, _ response: inout HTTPResponse) {
        guard let origin = allowedOrigin(request) else { return }
        response.headers.add(name: "Access-Control-Allow-Origin", value: origin)
        response.headers.add(name: "Access-Control-Expose-Headers", value: "ETag, Location, Retry-After")
        if origin != "*" { response.headers.add(name: "Vary", value: "Origin") }
    }

    private func preflight(_ request: HTTPRequest, _ route: Route) -> HTTPResponse {
        var response = HTTPResponse(status: 204, headers: HTTPHeaders([("Allow", route.allowedMethods.joined(separator: ", "))]))
        if allowedOrigin(request) != nil, request.headers["access-control-request-method"] != nil {
            response.headers.add(name: "Access-Control-Allow-Methods", value: route.allowedMethods.joined(separator: ", "))
            response.headers.add(name: "Access-Control-Allow-Headers", value: "Authorization, Content-Type, If-Match, If-None-Match")
            response.headers.add(name: "Access-Control-Max-Age", value: "600")
        }
        return response
    }

    // MARK: Helpers

    func json(_ status: Int, _ body: [UInt8], headers: [(String, String)] = []) -> HTTPResponse {
        var h = HTTPHeaders([("Content-Type", "application/json")])
        for (name, value) in headers { h.add(name: name, value: value) }
        return HTTPResponse(status: status, headers: h, body: .bytes(body))
    }

    /// Runs `body` under the session's lock, after checking it has not expired and
    /// marking it used. 404 for an unknown or expired session (which is then dropped), or
    /// one removed while this request waited for its lock.
    func withSession<R: Sendable>(_ sid: String, _ body: (Session, inout Session.State) throws(ServiceError) -> R) throws(ServiceError) -> R {
        try withSession(try liveSession(sid), body)
    }

    /// Runs `body` under the lock of a session already looked up, for a request through
    /// `view` (nil: the default view), whose kept filtered rows it notes for requests that
    /// have not taken the lock yet (`ticket`).
    func withSession<R: Sendable>(_ session: Session, view: ViewID? = nil,
                                  _ body: (Session, inout Session.State) throws(ServiceError) -> R) throws(ServiceError) -> R {
        try session.state.withLock { (state) throws(ServiceError) in
            guard !state.removed else { throw TreeService.removedSession(session.id) }
            defer {
                let kept = state.core.contains(view) ? Set(state.core.store.keptFilters(in: view)) : nil
                session.keptFilters.withLock { $0[view] = kept }
            }
            return try body(session, &state)
        }
    }

    /// Runs `body` beside other readers of the session, after checking it has not
    /// expired and marking it used (the last use has a lock of its own, so readers may mark it).
    func readingSession<R: Sendable>(_ sid: String, _ body: (Session, Session.State) throws(ServiceError) -> R) throws(ServiceError) -> R {
        try readingSession(try liveSession(sid), body)
    }

    /// Runs `body` beside other readers of a session already looked up.
    func readingSession<R: Sendable>(_ session: Session, _ body: (Session, Session.State) throws(ServiceError) -> R) throws(ServiceError) -> R {
        try session.state.withReadLock { (state) throws(ServiceError) in
            guard !state.removed else { throw TreeService.removedSession(session.id) }
            return try body(session, state)
        }
    }

    /// The 404 for a session that is not (or no longer) there.
    static func removedSession(_ sid: String) -> ServiceError {
        ServiceError.notFound("no session \"\(sid)\" (it may have expired)")
    }

    /// The session with this id, marked used now; 404 when there is none or it has
    /// expired (it is then dropped).
    func liveSession(_ sid: String) throws(ServiceError) -> Session {
        if let other = configuration.otherInstance(named: sid) {
            throw ServiceError.notFound("no session \"\(sid)\" here: it names instance \(other), and this is instance \(configuration.instance ?? "")")
        }
        let now = registry.clock.now
        var found = registry.lookup(sid)
        if found == nil {
            if registry.isPending(sid) {
                throw ServiceError(.unavailable, detail: "session \"\(sid)\" is being loaded from the data directory; retry in a moment",
                                   headers: [("Retry-After", "1")])
            }
            switch registry.unavailability(sid) {
            case .quarantined(let path)?:
                throw ServiceError(.sessionQuarantined, detail: "session \"\(sid)\" is stored, but its files failed their checks when the server started and were moved aside (\(path)): it cannot be served. Upload the tree again; an operator can look at the files.")
            case .unreadable(let reason)?:
                throw ServiceError(.sessionUnreadable, detail: "session \"\(sid)\" is stored, but its files could not be read (\(reason)); the server tries again every 10 s. An operator may need to fix the data directory.",
                                   headers: [("Retry-After", "30")])
            case nil:
                break
            }
            // Loaded since the first look (a loaded session is stored before it stops
            // being pending).
            found = registry.lookup(sid)
        }
        guard let session = found, !registry.isExpired(session, now: now) else {
            // Only an expired session is dropped (never one loaded since the look).
            if found != nil { registry.remove(sid, .expired) }
            throw TreeService.removedSession(sid)
        }
        session.touch(now)
        expireViews(session)
        return session
    }

    /// The node with this id, or 404.
    func node(_ id: String, in store: TreeStore) throws(ServiceError) -> NodeHandle {
        guard let node = store.forest.node(withID: id) else { throw ServiceError.notFound("no item \"\(id)\" in this session") }
        return node
    }

    /// Builds the named filtered rows of a view if needed, as a read does (409 when a newer
    /// filter request through the same view cancels the build), and journals the order of
    /// the view's kept filtered rows when it changed (built, dropped, or used). When
    /// the build was a reset (a change of that view), where its entry ended: a read that
    /// answers with its version waits until it is durable, as a change does.
    @discardableResult
    func prepare(_ view: ViewRef, _ session: Session, _ state: inout Session.State, ticket: Int) throws(ServiceError) -> JournalMark? {
        guard view.filter != nil else { return nil }
        let keptBefore = state.core.store.keptFilters(in: view.view)
        let built = try prepare(view, session, &state.core.store, ticket: ticket)
        // Filtered rows that were changed and then dropped come back in their initial state:
        // that is a change, so the view's version moves and stale ETags and splices are
        // refused. (The journal's entry has the version before it: its replay moves it again.)
        let mark = journalViewOrder(view.view, session, &state)
        guard state.core.notePrepared(view, built: built, keptBefore: keptBefore) else { return nil }
        publishViewReset(view, session, &state, mark: mark)
        return mark
    }

    /// Builds the named filtered rows of a view in `store` if needed (409 when a newer
    /// filter request through the same view cancels the build); whether they were built.
    func prepare(_ view: ViewRef, _ session: Session, _ store: inout TreeStore, ticket: Int) throws(ServiceError) -> Bool {
        guard view.filter != nil else { return false }
        let built = !store.isKept(view)
        do {
            try store.prepareView(view) { session.filterTickets.withLock { $0[view.view] ?? 0 } != ticket }
        } catch {
            throw ServiceError(.filterSuperseded,
                               detail: "a newer filter request through this view cancelled this one")
        }
        return built
    }

    /// A read of a view's rows: `answer` beside other readers, or (when it gives nil: the
    /// filtered rows, or what `prepared` makes, must be built first) under the exclusive lock
    /// once they are built and `prepared` ran, waiting for a reset the build made to be
    /// durable. Rows kept already are not prepared again: a read never counts as their use,
    /// whichever lock it took.
    func readOrBuild(_ session: Session, _ view: ViewRef, prepared: (inout Session.State) -> Void = { _ in },
                     _ answer: (Session.State) throws(ServiceError) -> HTTPResponse?) throws(ServiceError) -> HTTPResponse {
        let read: HTTPResponse? = try readingSession(session) { _, state throws(ServiceError) in
            try requireView(view.view, state)
            return try answer(state)
        }
        if let read { return read }
        let ticket = ticket(view, session)
        let (response, reset) = try withSession(session, view: view.view) { session, state throws(ServiceError) in
            try requireView(view.view, state)
            let reset = state.core.store.isKept(view) ? nil : try prepare(view, session, &state, ticket: ticket)
            prepared(&state)
            return (try answer(state)!, reset)
        }
        waitUntilDurable(read: reset, session)
        return response
    }

    /// Takes a filter ticket before waiting for the session lock. Only a request whose
    /// filtered rows must be built takes a new one, and so cancels a build still running
    /// for an older request through the same view; naming kept rows cancels nothing, and
    /// views do not cancel each other's builds.
    func ticket(_ view: ViewRef, _ session: Session) -> Int {
        guard let filter = view.filter else { return 0 }
        return session.filterTickets.withLock { tickets in
            if session.keptFilters.withLock({ $0[view.view]?.contains(filter) == true }) { return tickets[view.view] ?? 0 }
            let ticket = session.filterTicket.add(1, ordering: .relaxed).newValue
            tickets[view.view] = ticket
            return ticket
        }
    }

    /// Gives the nodes a deletion removed back to the server's budget; `accounted` is the
    /// node count the registry has accounted for the session.
    func releaseDeletedNodes(_ store: TreeStore, accounted: inout Int) {
        registry.release(accounted - store.forest.count)
        accounted = store.forest.count
    }
}
