import HTTP1
import TreeEngine
import TreeFormats

extension TreeService {
    /// `GET /sessions/{sid}/events?filter=&match=&caseSensitive=` (with `Last-Event-ID`, or
    /// `lastEventId`), and `GET /sessions/{sid}/views/{vid}/events`: the version steps of the
    /// view as server-sent events in its named rows (see `EventHub`). A stream keeps its
    /// view alive (it does not expire while one is open).
    ///
    /// Everything that can fail is checked before the head is sent: the view is built (as
    /// a read builds it: 409 when a newer filter request cancels the build), and the stream
    /// takes a slot of the server's and of the session's (429 when none is free). Once the
    /// head is sent, the stream is subscribed under the session's lock.
    ///
    /// A token is checked when its stream opens (an events token lives a minute, the stream
    /// as long as it is followed); the session's `tokensValidAfter` ends the streams opened
    /// with tokens minted before it (`endRevokedStreams`).
    func events(_ request: HTTPRequest, _ sid: String, view vid: String?, _ caller: Caller) throws(ServiceError) -> HTTPResponse {
        let filter = try request.filterQuery()
        let lastEventID = try request.lastEventID()
        let session = try liveSession(sid)
        let view = try liveView(ViewName(id: vid, filter: filter), in: session)
        let ticket = ticket(view, session)
        let reset = try withSession(session, view: view.view) { session, state throws(ServiceError) in
            try requireView(view.view, state)
            return try prepare(view, session, &state, ticket: ticket)
        }
        waitUntilDurable(read: reset, session)
        let headers = HTTPHeaders([("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"),
                                   ("X-Accel-Buffering", "no")])  // nginx: pass events on at once
        if request.method == "HEAD" { return HTTPResponse(status: 200, headers: headers) }
        try takeStreamSlot(session)
        return HTTPResponse(status: 200, headers: headers, body: .push { [self] stream in
            if case .token(let token) = caller {
                session.tokenStreams.add(stream, token)
                // Revoked since it was checked: the revocation ended the streams it saw, and this
                // one sees its cut-off.
                if token.issued < session.tokensValidAfter { stream.finish() }
            }
            subscribe(stream, session, view, lastEventID: lastEventID)
        })
    }

    /// Takes a slot for a new stream on the server and on the session, or 429.
    private func takeStreamSlot(_ session: Session) throws(ServiceError) {
        guard openStreams.add(1, ordering: .relaxed).newValue <= configuration.maxStreams else {
            openStreams.subtract(1, ordering: .relaxed)
            throw ServiceError(.tooManyStreams, detail: "the server has its maximum of \(configuration.maxStreams) event streams open",
                               headers: [("Retry-After", "10")])
        }
        guard session.events.takeSlot(limit: configuration.maxStreamsPerSession) else {
            openStreams.subtract(1, ordering: .relaxed)
            throw ServiceError(.tooManyStreams, detail: "session \(session.id) has its maximum of \(configuration.maxStreamsPerSession) event streams open",
                               headers: [("Retry-After", "10")])
        }
    }

    /// Subscribes a stream whose head is sent (it holds its slots). When the session or the
    /// view was removed meanwhile, or a newer filter request cancelled the rows' rebuild, the
    /// stream just ends: the client reconnects and learns what happened.
    private func subscribe(_ stream: HTTPPushStream, _ session: Session, _ view: ViewRef, lastEventID: Int?) {
        let ticket = ticket(view, session)
        do throws(ServiceError) {
            try withSession(session, view: view.view) { session, state throws(ServiceError) in
                try requireView(view.view, state)
                let reset = try prepare(view, session, &state, ticket: ticket)
                session.events.subscribe(stream, view: view, lastEventID: lastEventID, store: state.core.store,
                                         version: state.core.version(of: view.view), mark: reset) { [self] in
                    openStreams.subtract(1, ordering: .relaxed)
                    // The view stays alive for its TTL after its last stream ends (a client
                    // reconnects after `retry`).
                    if let id = view.view { session.views.touch(id, now: registry.clock.now) }
                }
                observeFollowedViews(session, &state)
            }
        } catch {
            session.events.releaseSlot()
            openStreams.subtract(1, ordering: .relaxed)
            stream.finish()
        }
    }
}

extension HTTPRequest {
    /// The version after which a stream resumes: the `Last-Event-ID` header (which
    /// `EventSource` sends when it reconnects), else the `lastEventId` query parameter. Both
    /// are checked when both are given, so a malformed one is never ignored.
    func lastEventID() throws(ServiceError) -> Int? {
        let header = try Self.version(headers["last-event-id"], "the Last-Event-ID header")
        let query = try Self.version(queryValue("lastEventId"), "query parameter lastEventId")
        return header ?? query
    }

    private static func version(_ text: String?, _ name: String) throws(ServiceError) -> Int? {
        guard let text, !text.isEmpty else { return nil }
        guard text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let n = Int(text) else {
            throw .badQueryParameter("\(name) must be a version (a non-negative integer), not \"\(text)\"")
        }
        return n
    }
}
