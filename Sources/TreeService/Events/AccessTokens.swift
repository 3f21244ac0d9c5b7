import Synchronization

/// Short-lived tokens that open one session's event streams without an `Authorization`
/// header, which `EventSource` cannot send: `POST /sessions/{sid}/events/token` (with the
/// bearer token) gives one, `GET /sessions/{sid}/events?access_token=` takes it until it
/// expires. Kept in memory: a restart forgets them (the client asks for another).
final class AccessTokens: Sendable {
    private struct Grant {
        let session: String
        let expires: ContinuousClock.Instant
    }
    private let grants = Mutex<(table: [String: Grant], pruned: ContinuousClock.Instant?)>(([:], nil))

    /// A new token for `session`, valid until `expires`; expired tokens are forgotten (at
    /// most once a second, so that many clients asking at once cost no more than that).
    func issue(for session: String, now: ContinuousClock.Instant, expires: ContinuousClock.Instant) -> String {
        let token = SessionRegistry.newID() + SessionRegistry.newID()  // 256 random bits
        grants.withLock { g in
            if g.pruned.map({ now - $0 >= .seconds(1) }) ?? true {
                g.table = g.table.filter { $0.value.expires > now }
                g.pruned = now
            }
            g.table[token] = Grant(session: session, expires: expires)
        }
        return token
    }

    /// Whether `token` was issued for `session` and has not expired.
    func allows(_ token: String, session: String, now: ContinuousClock.Instant) -> Bool {
        grants.withLock { g in
            guard let grant = g.table[token] else { return false }
            return grant.session == session && grant.expires > now
        }
    }
}
