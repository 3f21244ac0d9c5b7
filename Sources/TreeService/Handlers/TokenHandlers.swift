import Foundation
import HTTP1
import TreeEngine
import TreeFormats

extension TreeService {
    /// `POST /sessions/{sid}/tokens` (owner): `{"role", "ttl", "view"}` → 201 `{"token",
    /// "role", "view", "expiresAt"}`. A token never reaches further than its minter's: no
    /// other view than a bound minter's, no later expiry (only owners mint, and they may
    /// mint every role).
    func mintToken(_ request: HTTPRequest, _ sid: String, _ caller: Caller) throws(ServiceError) -> HTTPResponse {
        let members = Members(try request.jsonObjectBody())
        try members.allowOnly(["role", "ttl", "view"])
        guard case .string(let roleName)? = members["role"], let role = AccessToken.Role(rawValue: roleName) else {
            throw .unprocessable("\"role\" must be \"reader\", \"editor\" or \"owner\"", member: "role")
        }
        let most = Int(min(max(1, configuration.maxTokenTTL.components.seconds), Int64(TreeService.longestTTL)))
        let ttl = try members.nonNegativeInt("ttl") ?? min(3600, most)
        guard (1 ... most).contains(ttl) else {
            throw .unprocessable("\"ttl\" must be a whole number of seconds from 1 to \(most) (--max-token-ttl)", member: "ttl")
        }
        var view: ViewID?
        switch members["view"] {
        case nil, .null?: break
        case .string(let text)?:
            guard let id = ViewID(text: text) else { throw .unprocessable("\"view\": no view \"\(text)\" in this session", member: "view") }
            view = id
        default: throw .unprocessable("\"view\" must be a view id or null", member: "view")
        }
        if let bound = caller.boundView {
            if let view, view != bound {
                throw ServiceError(.forbidden, detail: "a token bound to view \(bound.text) mints tokens for that view only, not for \(view.text)")
            }
            view = bound
        }
        let session = try liveSession(sid)
        if let view {
            try readingSession(session) { _, state throws(ServiceError) in
                guard state.core.contains(view) else { throw .unprocessable("\"view\": no view \"\(view.text)\" in this session", member: "view") }
            }
        }
        let token = issue(AccessToken(session: session.id, role: role, view: view, issued: tokenNow, expires: 0), ttl: .seconds(ttl), by: caller)
        var out = JSONWriter(reservingCapacity: 256)
        out.raw("{\"token\":")
        out.string(token.text)
        out.raw(",\"role\":")
        out.string(role.rawValue)
        out.raw(",\"view\":")
        if let view { out.string(view.text) } else { out.raw("null") }
        out.raw(",\"expiresAt\":")
        out.string(ResponseJSON.timestamp(token.expiresAt))
        out.raw("}")
        return json(201, out.bytes, headers: [("Cache-Control", "no-store")])
    }

    /// `POST /sessions/{sid}/events/token`: a reader token for a short while
    /// (`accessTokenTTL`), bound to the caller's view when its token is, which opens the
    /// session's event streams as `access_token` (`EventSource` cannot send `Authorization`).
    func eventToken(_ request: HTTPRequest, _ sid: String, _ caller: Caller) throws(ServiceError) -> HTTPResponse {
        let session = try liveSession(sid)
        let token = issue(AccessToken(session: session.id, role: .reader, view: caller.boundView, issued: tokenNow, expires: 0),
                          ttl: configuration.accessTokenTTL, by: caller)
        var out = JSONWriter(reservingCapacity: 256)
        out.raw("{\"token\":")
        out.string(token.text)
        out.raw(",\"expiresIn\":")
        out.int(Int((token.expiresAt.timeIntervalSince(registry.clock.wallNow)).rounded()))
        out.raw(",\"expiresAt\":")
        out.string(ResponseJSON.timestamp(token.expiresAt))
        out.raw("}")
        return json(201, out.bytes, headers: [("Cache-Control", "no-store")])
    }

    /// Signs `token`, expiring `ttl` after its issue, or with its minter's token if that
    /// comes first; gives its text and its expiry on the wall clock.
    private func issue(_ token: AccessToken, ttl: Duration, by caller: Caller) -> (text: String, expiresAt: Date) {
        var token = token
        token.expires = token.issued + ttl.components.seconds * 1000
        if case .token(let minter) = caller { token.expires = min(token.expires, minter.expires) }
        return (mint(token), Date(timeIntervalSince1970: Double(token.expires) / 1000))
    }
}
