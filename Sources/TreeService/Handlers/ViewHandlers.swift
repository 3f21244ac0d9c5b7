import Foundation
import HTTP1
import TreeEngine
import TreeFormats

/// The view a request names, as its URL has it, before the session is looked up: the
/// `{vid}` segment (nil: the session's default view) and the filtered rows (`filter`, …).
struct ViewName {
    var id: String?
    var filter: FilterQuery?
}

extension ViewID {
    /// The id in URLs and bodies: 16 lowercase hexadecimal digits.
    var text: String {
        let digits = String(rawValue, radix: 16)
        return String(repeating: "0", count: 16 - digits.utf8.count) + digits
    }

    /// The id of `text`, exactly 16 lowercase hexadecimal digits; nil for anything else
    /// (which names no view: 404).
    init?(text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 16, bytes.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }),
              let value = UInt64(text, radix: 16) else { return nil }
        self.init(value)
    }
}

extension TreeService {
    // MARK: Looking views up

    /// The idle time after which a view of `session` expires (zero: never): `--view-ttl`,
    /// else the session's own TTL.
    func viewTTL(of session: Session) -> Duration { configuration.viewTTL ?? registry.ttl(of: session) }

    /// The 404 for a view that is not (or no longer) there.
    static func removedView(_ text: String) -> ServiceError {
        ServiceError.notFound("no view \"\(text)\" in this session (it may have expired, or been deleted)")
    }

    /// The view `name` names in `session`, marked used now: nil for the default view. 404
    /// for a view id that is not there or has expired (its removal is then made).
    func liveView(_ name: ViewName, in session: Session) throws(ServiceError) -> ViewRef {
        guard let text = name.id else { return ViewRef(nil, filter: name.filter) }
        guard let id = ViewID(text: text), let lastUse = session.views.lastUse(of: id) else { throw TreeService.removedView(text) }
        let now = registry.clock.now
        // An expired view answers 404 at once; the sweep removes it (a request does not
        // wait for the session's lock to do it).
        if ViewUses.isExpired(lastUse: lastUse, now: now, ttl: viewTTL(of: session), streaming: session.events.hasStreams(id)) {
            throw TreeService.removedView(text)
        }
        session.views.touch(id, now: now)
        return ViewRef(id, filter: name.filter)
    }

    /// 404 unless `view` exists in the session (checked under its lock: a view deleted while
    /// the request waited for it is gone).
    func requireView(_ view: ViewID?, _ state: Session.State) throws(ServiceError) {
        if let view, !state.core.contains(view) { throw TreeService.removedView(view.text) }
    }

    /// Drops the session's views that have expired, at most every 10 s and only when the
    /// session's lock is free (a request passing by never waits for it), or now and
    /// waiting for the lock with `force` (listing views, making one: a view that expired
    /// counts for neither). Each is a change through the write path (`deleteView`), and its
    /// streams end with `expired`. A view an event stream follows does not expire.
    func expireViews(_ session: Session, force: Bool = false) {
        guard session.views.count > 0 else { return }
        let now = registry.clock.now
        let expired = session.views.expired(now: now, ttl: viewTTL(of: session), force: force) { session.events.hasStreams($0) }
        guard !expired.isEmpty else { return }
        let sweep = { (state: inout Session.State) in
            guard !state.removed else { return }
            self.expireViews(expired, session, &state, now: now)
        }
        if force { session.state.withLock(sweep) } else { _ = session.state.withLockIfFree(sweep) }
    }

    /// Drops those of `views` that are still expired, under the session's exclusive lock.
    func expireViews(_ views: [ViewID], _ session: Session, _ state: inout Session.State, now: ContinuousClock.Instant) {
        let ttl = viewTTL(of: session)
        for id in views where state.core.contains(id) {
            // Checked again under the lock: a request may have used it meanwhile.
            guard let lastUse = session.views.lastUse(of: id),
                  ViewUses.isExpired(lastUse: lastUse, now: now, ttl: ttl, streaming: session.events.hasStreams(id)) else { continue }
            _ = try? change(ViewRef(id), session, &state, ticket: 0) { _ throws(ServiceError) in (.deleteView(id, expired: true), nil) }
        }
    }

    // MARK: Routes

    /// `POST /sessions/{sid}/views`: `{"expand": "none" | "all" | N}` or `{"from": VID |
    /// "default"}`, or no body (`"expand": "none"`). 201 with the view's summary.
    func createView(_ request: HTTPRequest, _ sid: String) throws(ServiceError) -> HTTPResponse {
        let (start, source) = try SessionOperation.viewStart(request.body.isEmpty ? Members([]) : Members(try request.jsonObjectBody()))
        // Expired views are dropped first: they do not count for --max-views.
        expireViews(try liveSession(sid), force: true)
        // If-Match compares with the version of the view it starts from (a copy's source;
        // else the session's).
        return try mutateSession(request, sid, view: ViewName(id: source), .createView(start))
    }

    /// `GET /sessions/{sid}/views?offset=&limit=`: the session's views in the order they were
    /// made (the default view is not among them), a page at a time.
    func listViews(_ request: HTTPRequest, _ sid: String, _ caller: Caller) throws(ServiceError) -> HTTPResponse {
        let offset = try request.integerQuery("offset", default: 0)
        let limit = try request.integerQuery("limit", default: configuration.defaultPageLimit, maximum: configuration.maxPageLimit)
        let session = try liveSession(sid)
        expireViews(session, force: true)
        return try readingSession(session) { session, state throws(ServiceError) in
            // A token bound to a view sees that one only.
            let all = state.core.viewsInOrder.filter { view in caller.boundView.map { $0 == view.id } ?? true }
            let page = offset >= all.count ? [] : all[offset ..< offset + min(limit, all.count - offset)]
            var out = JSONWriter(reservingCapacity: 96 + 160 * page.count)
            out.raw("{\"total\":")
            out.int(all.count)
            out.raw(",\"offset\":")
            out.int(offset)
            out.raw(",\"limit\":")
            out.int(limit)
            out.raw(",\"views\":[")
            for (i, view) in page.enumerated() {
                if i > 0 { out.raw(",") }
                out.raw("{\"id\":")
                out.string(view.id.text)
                out.raw(",\"version\":")
                out.int(state.core.version(of: view.id))
                ResponseJSON.sortMember(state.core.store.sort(of: view.id), &out)
                out.raw(",\"createdAt\":")
                out.string(ResponseJSON.timestamp(view.entry.createdAt))
                out.raw(",\"lastUse\":")
                out.string(ResponseJSON.timestamp(registry.clock.wallTime(of: session.views.lastUse(of: view.id) ?? registry.clock.now)))
                out.raw("}")
            }
            out.raw("]}")
            return json(200, out.bytes)
        }
    }

    /// `GET /sessions/{sid}/views/{vid}`, beside other readers.
    func viewSummary(_ request: HTTPRequest, _ sid: String, _ vid: String) throws(ServiceError) -> HTTPResponse {
        let session = try liveSession(sid)
        let view = try liveView(ViewName(id: vid), in: session)
        return try readingSession(session) { session, state throws(ServiceError) in
            try requireView(view.view, state)
            let version = state.core.version(of: view.view)
            if let notModified = notModified(request, version: version) { return notModified }
            return json(200, self.viewSummary(view.view!, session, state), headers: [("ETag", ETag.of(version))])
        }
    }

    /// `{"id","version","sort","total","createdAt","lastUse","expiresAt","ttl"}` of a view.
    func viewSummary(_ id: ViewID, _ session: Session, _ state: Session.State) -> [UInt8] {
        let ttl = viewTTL(of: session)
        let lastUse = session.views.lastUse(of: id) ?? registry.clock.now
        let streaming = session.events.hasStreams(id)
        var out = JSONWriter(reservingCapacity: 224)
        out.raw("{\"id\":")
        out.string(id.text)
        out.raw(",\"version\":")
        out.int(state.core.version(of: id))
        ResponseJSON.sortMember(state.core.store.sort(of: id), &out)
        out.raw(",\"total\":")
        out.int(state.core.store.keptRowCount(ViewRef(id))!)  // a view's unfiltered rows are always kept
        out.raw(",\"createdAt\":")
        out.string(ResponseJSON.timestamp(state.core.views[id]!.createdAt))
        out.raw(",\"lastUse\":")
        out.string(ResponseJSON.timestamp(registry.clock.wallTime(of: lastUse)))
        out.raw(",\"expiresAt\":")
        // Never while a stream follows it, nor with a TTL of zero.
        if ttl == .zero || streaming { out.null() } else { out.string(ResponseJSON.timestamp(registry.clock.wallTime(of: lastUse + ttl))) }
        out.raw(",\"ttl\":")
        out.int(Int(ttl.components.seconds))
        out.raw("}")
        return out.bytes
    }

    /// `DELETE /sessions/{sid}/views/{vid}`: the view and its streams end (`end`, `deleted`).
    /// `If-Match` compares with the view's version.
    func deleteView(_ request: HTTPRequest, _ sid: String, _ vid: String) throws(ServiceError) -> HTTPResponse {
        guard let id = ViewID(text: vid) else {
            _ = try liveSession(sid)
            throw TreeService.removedView(vid)
        }
        // The change's 204 waits until the deletion is durable.
        return try mutateSession(request, sid, view: ViewName(id: vid), .deleteView(id, expired: false))
    }

    /// `PATCH /sessions/{sid}/views/{vid}?filter=`: one of expandAll, collapseAll, expandDepth,
    /// the selection's, or `sort`.
    func patchView(_ request: HTTPRequest, _ sid: String, _ vid: String) throws(ServiceError) -> HTTPResponse {
        let filter = try request.filterQuery()
        let operation = try SessionOperation.sessionPatch(Members(try request.jsonObjectBody()))
        return try mutateSession(request, sid, view: ViewName(id: vid, filter: filter), operation)
    }
}

extension SessionOperation {
    /// The body of `POST /sessions/{sid}/views`: `{"expand": "none" | "all" | N}` or
    /// `{"from": VID | "default"}`, not both; no member: `"expand": "none"`. Also the view a
    /// copy starts from (its id as the URL has it), nil for the default view or a fresh start.
    static func viewStart(_ members: Members) throws(ServiceError) -> (ViewStart, source: String?) {
        try members.allowOnly(["expand", "from"])
        if members.has("expand") && members.has("from") {
            throw .unprocessable("give \"expand\" or \"from\", not both: a view starts fresh or as a copy", member: "from")
        }
        switch members["from"] {
        case nil: break
        case .string("default")?: return (.copy(of: nil), nil)
        case .string(let text)?:
            guard let id = ViewID(text: text) else {
                throw .unprocessable("\"from\" must be a view id (16 lowercase hexadecimal digits) or \"default\"", member: "from")
            }
            return (.copy(of: id), text)
        default:
            throw .unprocessable("\"from\" must be a view id (a string) or \"default\"", member: "from")
        }
        switch members["expand"] {
        case nil, .string("none")?: return (.collapsed, nil)
        case .string("all")?: return (.expanded, nil)
        case let value?:
            guard let depth = value.intValue, depth >= 0 else {
                throw .unprocessable("\"expand\" must be \"none\", \"all\" or a non-negative integer depth", member: "expand")
            }
            return (depth == 0 ? .collapsed : .depth(depth), nil)
        }
    }
}
