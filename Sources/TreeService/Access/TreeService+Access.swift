import Foundation
import HTTP1
import Synchronization
import TreeEngine

/// The credentials the service checks requests against, replaced whole (`replaceCredentials`).
struct AccessKeys: Sendable {
    /// The SHA-256 of each admin token (compared digest to digest: in a time that tells
    /// nothing of the tokens, their lengths included); empty: an open server.
    var adminTokens: [[UInt8]]
    var signer: TokenSigner
    /// Counts the signers: the tokens one verified are kept with its generation
    /// (`TreeService.verifiedTokens`).
    var generation = 0
    /// The most tokens kept verified; beyond, all are forgotten and verified again as they come.
    static let verifiedCapacity = 10_000

    /// From configured credentials; a key is made now when none is given.
    init(_ credentials: Credentials) {
        adminTokens = credentials.adminTokens.map { SHA256.hash($0.utf8) }
        signer = TokenSigner(keys: credentials.signingKeys.isEmpty ? [AccessKeys.keyMadeAtStart()] : credentials.signingKeys)
    }

    /// A random key for a server given none: its tokens die with the process.
    static func keyMadeAtStart() -> SigningKey {
        var rng = SystemRandomNumberGenerator()
        return SigningKey(id: "start", secret: (0 ..< 32).map { _ in UInt8.random(in: 0 ... 255, using: &rng) })
    }
}

extension TreeService {
    /// Whether anyone may do anything: no admin token was given (`--token`, `--token-file`).
    public var isOpen: Bool { configuration.credentials.adminTokens.isEmpty }

    /// Takes new credentials (tree-server re-reads its files on SIGHUP). Admin tokens are
    /// replaced when the server has them (an open server stays open, a secured one cannot
    /// become open); signing keys when some are given (without, the key the server made at
    /// start stays). Tokens signed with a key left out are refused from now on.
    public func replaceCredentials(_ credentials: Credentials) throws(CredentialsError) {
        if isOpen, !credentials.adminTokens.isEmpty {
            throw CredentialsError("this server was started without admin tokens (it is open); restart it with --token or --token-file to secure it")
        }
        if !isOpen, credentials.adminTokens.isEmpty {
            throw CredentialsError("no admin token is given: a server started with tokens keeps the ones it has rather than opening")
        }
        let fresh = AccessKeys(credentials)
        defer {
            // The streams of tokens signed by a key left out end (their reconnects get 401).
            if !credentials.signingKeys.isEmpty {
                let kept = Set(credentials.signingKeys.map(\.id))
                for session in registry.all { session.tokenStreams.end(signedByNoneOf: kept) }
            }
        }
        keys.withLock { keys in
            if !isOpen { keys.adminTokens = fresh.adminTokens }
            if !credentials.signingKeys.isEmpty {
                keys.signer = fresh.signer
                keys.generation += 1  // what the old keys verified is forgotten: a key left out refuses its tokens
            }
        }
    }

    /// Now, for tokens: milliseconds since 1970 on the service's wall clock.
    var tokenNow: Int64 { Int64((registry.clock.wallNow.timeIntervalSince1970 * 1000).rounded(.down)) }

    /// Who sent `request` to `route` (nil: a path no resource has), and that they may:
    /// 401 without a valid credential where one is needed, 403 when the credential's role
    /// or view does not reach the route (see `AccessRule`).
    ///
    /// A credential is `Authorization: Bearer …`, or on event streams a session token as
    /// `access_token` (which `EventSource` cannot send otherwise; the HTTP layer redacts it
    /// from logs). An open server takes requests without one as the admin's, and still
    /// checks one that is given.
    func authorize(_ request: HTTPRequest, _ route: Route?) throws(ServiceError) -> Caller {
        let rule = route?.template.rule(request.method == "HEAD" ? "GET" : request.method) ?? .anyCredential
        if rule == .open { return .admin }
        let (keys, caller) = try identify(request, route)
        guard let caller else {
            if keys.adminTokens.isEmpty { return .admin }
            throw ServiceError(.unauthorized, detail: "this server needs Authorization: Bearer <token>: an admin token, or a token minted for the session with POST /sessions/{sid}/tokens",
                               headers: [("WWW-Authenticate", "Bearer realm=\"tree-sessions\"")])
        }
        guard case .token(let token) = caller else { return .admin }
        switch rule {
        case .open, .anyCredential: break
        case .admin:
            throw ServiceError(.forbidden, detail: "\(request.method) \(route?.template.rawValue ?? request.path) needs an admin token; this token is for session \(token.session)")
        case .role(let role, let viewUse):
            try caller.require(role, to: "\(request.method) \(route!.template.rawValue)")
            switch viewUse {
            case .none: break
            case .route: try caller.requireView(route!.viewName)
            case .unbound: try caller.requireUnbound(to: "\(request.method) \(route!.template.rawValue)")
            }
        }
        return caller
    }

    /// The credential of `request`, checked: nil when it has none. A session token must be
    /// valid, for the route's session (when it has one), and minted after the session's
    /// `tokensValidAfter`; otherwise 401.
    private func identify(_ request: HTTPRequest, _ route: Route?) throws(ServiceError) -> (AccessKeys, Caller?) {
        let keys = keys.withLock { $0 }
        let header = request.headers["authorization"]
        var text: Substring
        if let header {
            guard let credentials = TreeService.bearerCredentials(header) else {
                throw TreeService.invalidToken("the Authorization header is not of the Bearer scheme: give Authorization: Bearer <token>")
            }
            text = credentials
            if !text.hasPrefix(AccessToken.prefix + ".") {
                // Every admin token compared, each in a time independent of where a difference is.
                let digest = SHA256.hash(text.utf8)
                if keys.adminTokens.reduce(false, { HMAC.equal(digest, $1) || $0 }) { return (keys, .admin) }
            }
        } else if case .events? = route, let query = request.queryValue("access_token") {
            text = query[...]
        } else {
            return (keys, nil)
        }
        guard text.hasPrefix(AccessToken.prefix + ".") else {
            throw TreeService.invalidToken(header == nil ? "access_token is not a session token (an admin token is never accepted in a URL)"
                                                         : "the token is not one this server accepts")
        }
        let token: AccessToken
        let now = tokenNow
        let known = verifiedTokens.withLock { $0.generation == keys.generation ? $0.tokens[String(text)] : nil }
        switch known.map({ now < $0.expires ? .success($0) : .failure(.expired) }) ?? verify(text, keys, now: now) {
        case .success(let verified): token = verified
        case .failure(.expired): throw TreeService.invalidToken("the token has expired; ask the application for a new one")
        case .failure(.unknownKey): throw TreeService.invalidToken("the token was signed with a key this server does not have (any more)")
        case .failure(.badSignature): throw TreeService.invalidToken("the token's signature does not match its fields")
        case .failure(.malformed): throw TreeService.invalidToken("the token is malformed")
        }
        if let sid = route?.session, sid != token.session { throw TreeService.invalidToken("the token is for another session") }
        // Its session's cut-off, on every route (`GET /sessions` names no session).
        guard let session = registry.lookup(token.session) else {
            // Being loaded: its cut-off is not known yet (an unknown session answers 404 later).
            if registry.isPending(token.session) { _ = try liveSession(token.session) }
            return (keys, .token(token))
        }
        if token.issued < session.tokensValidAfter {
            throw TreeService.invalidToken("the token was minted before the session's tokensValidAfter: it is revoked")
        }
        return (keys, .token(token))
    }

    /// Checks a token that is not among the tokens verified already, and keeps it there: a
    /// browser sends the same token with every request, and its signature is checked once.
    private func verify(_ text: Substring, _ keys: AccessKeys, now: Int64) -> Result<AccessToken, TokenError> {
        let result = keys.signer.verify(text, now: now)
        if case .success(let token) = result {
            verifiedTokens.withLock { verified in
                // Kept with the keys that verified it: none of an older generation.
                if verified.generation < keys.generation { verified = (keys.generation, [:]) }
                guard verified.generation == keys.generation else { return }
                if verified.tokens.count >= AccessKeys.verifiedCapacity { verified.tokens = [:] }
                verified.tokens[String(text)] = token
            }
        }
        return result
    }

    /// A 401 for a credential that is given but not accepted; `detail` says why (never the token).
    static func invalidToken(_ detail: String) -> ServiceError {
        ServiceError(.unauthorized, detail: detail,
                     headers: [("WWW-Authenticate", "Bearer realm=\"tree-sessions\", error=\"invalid_token\"")])
    }

    /// The credentials of an `Authorization` value of the Bearer scheme: the scheme's name in
    /// any case (RFC 9110 §11.1), one or more spaces, then the token; nil for anything else.
    static func bearerCredentials(_ value: String) -> Substring? {
        guard let space = value.firstIndex(of: " "), value[..<space].lowercased() == "bearer" else { return nil }
        let credentials = value[space...].drop { $0 == " " }
        return credentials.isEmpty ? nil : credentials
    }

    /// A token of `token`'s fields, signed with the first key.
    func mint(_ token: AccessToken) -> String {
        keys.withLock { $0.signer }.mint(token)
    }
}
