import Foundation
import HTTP1
import Testing
import TreeEngine
import TreeFormats
import TreeStorage
@testable import TreeService

/// Session tokens (issue 38): minting, what each one reaches, revocation, the events token,
/// credentials read again, and sessions' settings and listing.
@Suite struct TokenTests {
    static let key = SigningKey(id: "k1", secret: Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8))
    static let admin = [("Authorization", "Bearer admin-secret")]

    static func secured(clock: TestClock = TestClock(), data: DataDirectory? = nil,
                        _ configure: @escaping (inout ServiceConfiguration) -> Void = { _ in }) -> ServiceHarness {
        ServiceHarness(clock: clock, dataDirectory: data) {
            $0.credentials = Credentials(adminTokens: ["admin-secret"], signingKeys: [key])
            configure(&$0)
        }
    }

    static func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

    static func create(_ h: ServiceHarness, _ extra: String = "") throws -> String {
        let reply = h.call("POST", "/sessions", json: "{\"nodes\": \(ServiceHarness.sampleNodes)\(extra)}", headers: admin)
        #expect(reply.status == 201, "\(reply.text)")
        return try #require(reply["id"]?.stringValue)
    }

    /// Mints a token with `headers`' credential; the reply.
    static func mint(_ h: ServiceHarness, _ sid: String, _ body: String, _ headers: [(String, String)] = admin) -> ServiceHarness.Reply {
        h.call("POST", "/sessions/\(sid)/tokens", json: body, headers: headers)
    }

    static func token(_ h: ServiceHarness, _ sid: String, _ body: String, _ headers: [(String, String)] = admin) throws -> String {
        let reply = mint(h, sid, body, headers)
        #expect(reply.status == 201, "\(reply.text)")
        return try #require(reply["token"]?.stringValue)
    }

    @Test func aMintedTokenReachesWhatItsRoleAllows() throws {
        let h = Self.secured()
        let sid = try Self.create(h)
        let minted = Self.mint(h, sid, #"{"role": "reader", "ttl": 600}"#)
        #expect(minted.status == 201 && minted.headers["cache-control"] == "no-store")
        #expect(minted["role"]?.stringValue == "reader" && minted["view"] == .null)
        #expect(minted["expiresAt"]?.stringValue == "2027-01-15T08:10:00.000Z")
        let reader = Self.bearer(try #require(minted["token"]?.stringValue))
        #expect(h.call("GET", "/sessions/\(sid)/rows", headers: reader).status == 200)
        #expect(h.call("PATCH", "/sessions/\(sid)/items/2", json: #"{"expanded": true}"#, headers: reader).status == 200)
        let edit = h.call("PATCH", "/sessions/\(sid)/items/2", json: #"{"title": "x"}"#, headers: reader)
        #expect(edit.status == 403)
        #expect(edit["detail"]?.stringValue == "only the editor role or above may edit the tree; this token grants reader")
        let editor = Self.bearer(try Self.token(h, sid, #"{"role": "editor"}"#))
        #expect(h.call("PATCH", "/sessions/\(sid)/items/2", json: #"{"title": "x"}"#, headers: editor).status == 200)
        #expect(h.call("DELETE", "/sessions/\(sid)", headers: editor).status == 403)
        #expect(Self.mint(h, sid, #"{"role": "reader"}"#, editor).status == 403)
        // An owner mints every role, for its own session only.
        let owner = Self.bearer(try Self.token(h, sid, #"{"role": "owner"}"#))
        #expect(Self.mint(h, sid, #"{"role": "owner"}"#, owner).status == 201)
        let other = try Self.create(h)
        #expect(Self.mint(h, other, #"{"role": "reader"}"#, owner).status == 401)
        h.clock.advance(.seconds(601))
        #expect(h.call("GET", "/sessions/\(sid)/rows", headers: reader)["detail"]?.stringValue == "the token has expired; ask the application for a new one")
    }

    /// An instance's session ids hold a dot, which a token writes `~`.
    @Test func anInstancesSessionsHaveTokensToo() throws {
        let h = Self.secured { $0.instance = "east-1" }
        let sid = try Self.create(h)
        #expect(sid.hasPrefix("east-1."))
        let token = try Self.token(h, sid, #"{"role": "reader"}"#)
        #expect(token.hasPrefix("ts1.east-1~"))
        #expect(h.call("GET", "/sessions/\(sid)", headers: Self.bearer(token)).status == 200)
        #expect(h.call("GET", "/sessions", headers: Self.bearer(token))["sessions"]?.array?.count == 1)
    }

    @Test func mintingChecksItsBody() throws {
        let h = Self.secured { $0.maxTokenTTL = .seconds(7200) }
        let sid = try Self.create(h)
        for (body, pointer) in [(#"{}"#, "/role"), (#"{"role": "admin"}"#, "/role"), (#"{"role": "reader", "ttl": 0}"#, "/ttl"),
                                (#"{"role": "reader", "ttl": 7201}"#, "/ttl"), (#"{"role": "reader", "ttl": "60"}"#, "/ttl"),
                                (#"{"role": "reader", "view": "0123456789abcdef"}"#, "/view"), (#"{"role": "reader", "view": "x"}"#, "/view"),
                                (#"{"role": "reader", "view": 7}"#, "/view"), (#"{"role": "reader", "scope": "all"}"#, "/scope")] {
            let reply = Self.mint(h, sid, body)
            #expect(reply.status == 422 && reply["pointer"]?.stringValue == pointer, "\(body): \(reply.text)")
        }
        #expect(Self.mint(h, sid, #"{"role": "reader"}"#)["expiresAt"]?.stringValue == "2027-01-15T09:00:00.000Z", "an hour by default")
        #expect(Self.mint(h, "nosuchsession", #"{"role": "reader"}"#).status == 404)
    }

    /// A token bound to a view reaches that view only, and mints only tokens bound to it,
    /// expiring no later than itself.
    @Test func aBoundTokenStaysInItsView() throws {
        let h = Self.secured()
        let sid = try Self.create(h)
        let vid = try #require(h.call("POST", "/sessions/\(sid)/views", json: "{}", headers: Self.admin)["id"]?.stringValue)
        let otherView = try #require(h.call("POST", "/sessions/\(sid)/views", json: "{}", headers: Self.admin)["id"]?.stringValue)
        let owner = Self.bearer(try Self.token(h, sid, "{\"role\": \"owner\", \"view\": \"\(vid)\", \"ttl\": 100}"))
        #expect(h.call("GET", "/sessions/\(sid)/views/\(vid)/rows", headers: owner).status == 200)
        let refused = h.call("GET", "/sessions/\(sid)/views/\(otherView)/rows", headers: owner)
        #expect(refused.status == 403 && refused["detail"]?.stringValue?.hasPrefix("this token is bound to view \(vid)") == true)
        #expect(h.call("GET", "/sessions/\(sid)/rows", headers: owner).status == 403)
        #expect(h.call("POST", "/sessions/\(sid)/views", json: "{}", headers: owner).status == 403)
        let views = h.call("GET", "/sessions/\(sid)/views", headers: owner)
        #expect(views["total"]?.intValue == 1 && views["views"]?.array?.first?["id"]?.stringValue == vid)
        let child = Self.mint(h, sid, #"{"role": "reader", "ttl": 3600}"#, owner)
        #expect(child["view"]?.stringValue == vid && child["expiresAt"]?.stringValue == "2027-01-15T08:01:40.000Z", "\(child.text)")
        #expect(Self.mint(h, sid, "{\"role\": \"reader\", \"view\": \"\(otherView)\"}", owner).status == 403)
        // The events token of a bound caller is bound too.
        let events = h.call("POST", "/sessions/\(sid)/events/token", headers: owner)
        let access = try #require(events["token"]?.stringValue)
        #expect(events["expiresIn"]?.intValue == 60)
        #expect(access.split(separator: ".")[3] == Substring(vid))
        #expect(h.openStream("/sessions/\(sid)/views/\(vid)/events?access_token=\(access)").0.status == 200)
        #expect(h.openStream("/sessions/\(sid)/events?access_token=\(access)").0.status == 403)
        #expect(h.openStream("/sessions/\(sid)/views/\(vid)/events?access_token=admin-secret").0.status == 401, "no admin token in a URL")
    }

    @Test func tokensValidAfterRevokesTheTokensMintedBefore() throws {
        let h = Self.secured()
        let sid = try Self.create(h)
        let old = Self.bearer(try Self.token(h, sid, #"{"role": "owner"}"#))
        let access = try #require(h.call("POST", "/sessions/\(sid)/events/token", headers: old)["token"]?.stringValue)
        let streams = try [h.openStream("/sessions/\(sid)/events", headers: old).1, h.openStream("/sessions/\(sid)/events?access_token=\(access)").1,
                           h.openStream("/sessions/\(sid)/events", headers: Self.admin).1].map { try #require($0) }
        h.clock.advance(.seconds(5))
        let revoke = h.call("PATCH", "/sessions/\(sid)", json: #"{"tokensValidAfter": "now"}"#, headers: old)
        // "now" refuses the tokens minted in this very millisecond too.
        #expect(revoke.status == 200 && revoke["tokensValidAfter"]?.stringValue == "2027-01-15T08:00:05.001Z", "\(revoke.text)")
        #expect(h.call("GET", "/sessions/\(sid)", headers: Self.bearer(try Self.token(h, sid, #"{"role": "reader"}"#))).status == 401)
        h.clock.advance(.milliseconds(1))
        // The streams opened with tokens minted before end (their clients reconnect and learn why).
        #expect(streams.map(\.finished) == [true, true, false])
        streams[2].stream.cancel()
        #expect(h.call("GET", "/sessions", headers: old).status == 401, "a route of no session checks the token's own")
        let refused = h.call("GET", "/sessions/\(sid)", headers: old)
        #expect(refused.status == 401 && refused["detail"]?.stringValue?.contains("revoked") == true)
        let fresh = Self.bearer(try Self.token(h, sid, #"{"role": "reader"}"#))
        #expect(h.call("GET", "/sessions/\(sid)", headers: fresh).status == 200)
        for body in [#"{"tokensValidAfter": "2027-01-15T08:00:06Z"}"#, #"{"tokensValidAfter": "yesterday"}"#, #"{"tokensValidAfter": 5}"#,
                     #"{"tokensValidAfter": "1969-12-31T23:59:59Z"}"#, #"{"tokensValidAfter": "2027-01-15T08:00:00+0100"}"#] {
            #expect(h.call("PATCH", "/sessions/\(sid)", json: body, headers: Self.admin).status == 422, "\(body)")
        }
        // Only the admin moves it back: an owner who holds a leaked token would revive every other.
        let owner = Self.bearer(try Self.token(h, sid, #"{"role": "owner"}"#))
        #expect(h.call("PATCH", "/sessions/\(sid)", json: #"{"tokensValidAfter": null}"#, headers: owner).status == 403)
        #expect(h.call("PATCH", "/sessions/\(sid)", json: #"{"tokensValidAfter": "2027-01-15T08:00:00.000Z"}"#, headers: Self.admin).status == 200)
        #expect(h.call("GET", "/sessions/\(sid)", headers: old).status == 200)
    }

    @Test func settingsAreSetAtUploadAndByTheOwner() throws {
        let h = Self.secured { $0.maxSessionTTL = .seconds(3600) }
        let created = h.call("POST", "/sessions?name=Q4%20plan", json: #"{"nodes": [], "labels": {"team": "search", "k8s.io/app": ""}, "owner": "ana@example.com"}"#,
                             headers: Self.admin)
        #expect(created.status == 201, "\(created.text)")
        #expect(created["name"]?.stringValue == "Q4 plan" && created["owner"]?.stringValue == "ana@example.com")
        #expect(created["labels"] == .object([("k8s.io/app", .string("")), ("team", .string("search"))]))
        #expect(created["tokensValidAfter"] == .null && created["lastUse"]?.stringValue == "2027-01-15T08:00:00.000Z")
        let sid = try #require(created["id"]?.stringValue)
        for body in [#"{"nodes": [], "name": ""}"#, #"{"nodes": [], "labels": {"a b": "x"}}"#, #"{"nodes": [], "labels": {"a": 1}}"#,
                     #"{"nodes": [], "owner": "\u0007"}"#, #"{"nodes": [], "ttl": null}"#, #"{"nodes": [], "ttl": 7200}"#,
                     #"{"nodes": [], "tokensValidAfter": "now"}"#,
                     "{\"nodes\": [], \"labels\": {\((0 ..< 17).map { "\"k\($0)\": \"v\"" }.joined(separator: ","))}}",
                     "{\"nodes\": [], \"name\": \"\(String(repeating: "é", count: 201))\"}",
                     // 41 characters, 205 code points: lengths count code points, as JSON Schema's maxLength does.
                     "{\"nodes\": [], \"name\": \"\(String(repeating: "👨‍👩‍👧", count: 41))\"}"] {
            #expect(h.call("POST", "/sessions", json: body, headers: Self.admin).status == 422, "\(body)")
        }
        #expect(h.call("POST", "/sessions?name=a", json: #"{"nodes": [], "name": "b"}"#, headers: Self.admin).status == 400)
        let owner = Self.bearer(try Self.token(h, sid, #"{"role": "owner"}"#))
        let patched = h.call("PATCH", "/sessions/\(sid)", json: #"{"name": "Q1 plan", "labels": null, "owner": null, "ttl": 600}"#,
                             headers: owner + [("If-Match", "\"1\"")])
        #expect(patched.status == 200 && patched.headers["etag"] == "\"2\"" && patched["version"]?.intValue == 2, "\(patched.text)")
        let same = h.call("PATCH", "/sessions/\(sid)", json: #"{"name": "Q1 plan"}"#, headers: owner + [("If-None-Match", "\"2\"")])
        #expect(same.headers["etag"] == "\"2\"", "no change, no step")
        #expect(h.call("GET", "/sessions/\(sid)", headers: owner + [("If-None-Match", "\"1\"")])["name"]?.stringValue == "Q1 plan")
        #expect(patched["name"]?.stringValue == "Q1 plan" && patched["labels"] == .object([]) && patched["owner"] == .null)
        #expect(patched["ttl"]?.intValue == 600 && patched["expiresAt"]?.stringValue == "2027-01-15T08:10:00.000Z")
        #expect(h.call("PATCH", "/sessions/\(sid)", json: #"{"name": "x"}"#, headers: owner + [("If-Match", "\"1\"")]).status == 412)
        #expect(h.call("PATCH", "/sessions/\(sid)", json: #"{"name": "x", "expandAll": true}"#, headers: owner).status == 422)
        #expect(h.call("PATCH", "/sessions/\(sid)?filter=a", json: #"{"name": "x"}"#, headers: owner).status == 400)
        #expect(h.call("PATCH", "/sessions/\(sid)", json: #"{"ttl": 0}"#, headers: owner).status == 422, "never is longer than --max-session-ttl")
        let editor = Self.bearer(try Self.token(h, sid, #"{"role": "editor"}"#))
        #expect(h.call("PATCH", "/sessions/\(sid)", json: #"{"name": "x"}"#, headers: editor).status == 403)
        // The TTL set by PATCH is the one the session expires by.
        h.clock.advance(.seconds(601))
        #expect(h.call("GET", "/sessions/\(sid)", headers: Self.admin).status == 404)
    }

    /// A change of settings is a version step of the session, which its streams see as a
    /// change of no row.
    @Test func aChangeOfSettingsIsAnEventOfNoRow() throws {
        let h = Self.secured()
        let sid = try Self.create(h)
        let stream = try #require(h.openStream("/sessions/\(sid)/events?filter=ce", headers: Self.admin).1)
        #expect(h.call("PATCH", "/sessions/\(sid)", json: #"{"owner": "ops"}"#, headers: Self.admin).status == 200)
        let events = stream.wait(forCount: 2)
        #expect(events[1].name == "change" && events[1].id == 2)
        #expect(events[1].json["changes"] == .array([]) && events[1].json["reload"] == .array([]))
        stream.stream.cancel()
    }

    @Test func settingsAndTokensOutliveARestart() throws {
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        var sid = "", owner: [(String, String)] = [], revoked: [(String, String)] = []
        do {
            let data = try DataDirectory(path: directory.path, fsync: .always)
            let h = Self.secured(clock: clock, data: data)
            sid = try Self.create(h, #", "name": "kept""#)
            revoked = Self.bearer(try Self.token(h, sid, #"{"role": "owner"}"#))
            clock.advance(.seconds(1))
            #expect(h.call("PATCH", "/sessions/\(sid)", json: #"{"labels": {"team": "a"}, "tokensValidAfter": "now"}"#, headers: Self.admin).status == 200)
            clock.advance(.milliseconds(1))
            owner = Self.bearer(try Self.token(h, sid, #"{"role": "owner"}"#))
            h.service.shutDownStorage()
            data.close()
        }
        // Twice: from the journal, then from the snapshot the shutdown wrote.
        for _ in 0 ..< 2 {
            let data = try DataDirectory(path: directory.path, fsync: .always)
            let h = Self.secured(clock: clock, data: data)
            let summary = h.call("GET", "/sessions/\(sid)", headers: owner)
            #expect(summary.status == 200 && summary["name"]?.stringValue == "kept" && summary["labels"] == .object([("team", .string("a"))]))
            #expect(summary["version"]?.intValue == 2, "the change of settings stepped it, replayed too")
            #expect(h.call("GET", "/sessions/\(sid)", headers: revoked).status == 401)
            h.service.shutDownStorage()
            data.close()
        }
    }

    @Test func theSessionsAreListedNewestFirst() throws {
        let h = Self.secured()
        var ids: [String] = []
        for (name, team) in [("alpha", "a"), ("beta", "b"), ("alpha 2", "b"), ("gamma", "a"), ("alpha 3", "a")] {
            ids.append(try Self.create(h, ", \"name\": \"\(name)\", \"labels\": {\"team\": \"\(team)\"}"))
            h.clock.advance(.seconds(1))
        }
        func list(_ query: String, _ headers: [(String, String)] = Self.admin) -> [String] {
            let reply = h.call("GET", "/sessions\(query)", headers: headers)
            #expect(reply.status == 200, "\(reply.text)")
            return reply["sessions"]?.array?.compactMap { $0["id"]?.stringValue } ?? []
        }
        #expect(list("") == ids.reversed())
        #expect(list("?name=alpha") == [ids[4], ids[2], ids[0]])
        #expect(list("?label=team:a") == [ids[4], ids[3], ids[0]])
        #expect(list("?label=team:a&name=alpha") == [ids[4], ids[0]])
        // A colon followed by an emoji modifier is one Character with it: still the separator.
        #expect(list("?label=team%3A%F0%9F%8F%BB") == [])
        let first = h.call("GET", "/sessions?limit=2", headers: Self.admin)
        let cursor = try #require(first["next"]?.stringValue)
        #expect(first["sessions"]?.array?.count == 2 && first["sessions"]?.array?.last?["cursor"]?.stringValue == cursor)
        #expect(list("?limit=2&after=\(cursor)") == [ids[2], ids[1]])
        let none = h.call("GET", "/sessions?limit=0", headers: Self.admin)
        let start = try #require(none["next"]?.stringValue)
        #expect(none["sessions"] == .array([]) && list("?after=\(start)") == ids.reversed())
        // A cursor goes on after its session, even when that one is gone.
        #expect(h.call("DELETE", "/sessions/\(ids[3])", headers: Self.admin).status == 204)
        #expect(list("?after=\(cursor)") == [ids[2], ids[1], ids[0]])
        #expect(h.call("GET", "/sessions?limit=3&after=\(cursor)", headers: Self.admin)["next"] == .null)
        for bad in ["?label=team", "?label=a%20b:c", "?after=soon", "?limit=-1", "?sort=name"] {
            #expect(h.call("GET", "/sessions\(bad)", headers: Self.admin).status == 400, "\(bad)")
        }
        let reader = Self.bearer(try Self.token(h, ids[1], #"{"role": "reader"}"#))
        #expect(list("", reader) == [ids[1]])
        #expect(h.call("GET", "/sessions", headers: reader)["sessions"]?.array?.first?["name"]?.stringValue == "beta")
        #expect(h.call("GET", "/sessions").status == 401)
    }

    /// On an open server a request without a credential may do anything, and one that gives
    /// a token is held to it.
    @Test func anOpenServerStillChecksTheTokensItIsGiven() throws {
        let h = ServiceHarness { $0.credentials.signingKeys = [Self.key] }
        let sid = h.createSample()
        let reader = Self.bearer(try Self.token(h, sid, #"{"role": "reader"}"#, []))
        #expect(h.call("GET", "/sessions/\(sid)/rows", headers: reader).status == 200)
        #expect(h.call("DELETE", "/sessions/\(sid)/items/2", headers: reader).status == 403)
        #expect(h.call("GET", "/sessions/\(sid)/rows", headers: Self.bearer("ts1.nope")).status == 401)
        #expect(h.call("GET", "/sessions/\(sid)/rows", headers: [("Authorization", "Basic eDp5")]).status == 401)
        #expect(h.call("DELETE", "/sessions/\(sid)/items/2").status == 200)
    }

    @Test func credentialsAreReplacedWhole() throws {
        let h = Self.secured()
        let sid = try Self.create(h)
        let before = Self.bearer(try Self.token(h, sid, #"{"role": "reader"}"#))
        let stream = try #require(h.openStream("/sessions/\(sid)/events", headers: before).1)
        let next = SigningKey(id: "k2", secret: Array(repeating: 42, count: 32))
        try h.service.replaceCredentials(Credentials(adminTokens: ["new-secret"], signingKeys: [next, Self.key]))
        #expect(h.call("GET", "/sessions", headers: Self.admin).status == 401)
        #expect(h.call("GET", "/sessions", headers: Self.bearer("new-secret")).status == 200)
        #expect(h.call("GET", "/sessions/\(sid)", headers: before).status == 200, "the old key still checks")
        let after = try Self.token(h, sid, #"{"role": "reader"}"#, Self.bearer("new-secret"))
        #expect(after.contains(".k2."))
        try h.service.replaceCredentials(Credentials(adminTokens: ["new-secret"], signingKeys: [next]))
        #expect(h.call("GET", "/sessions/\(sid)", headers: before)["detail"]?.stringValue
            == "the token was signed with a key this server does not have (any more)")
        #expect(stream.finished, "the streams of its tokens end with the key")
        #expect(h.call("GET", "/sessions/\(sid)", headers: Self.bearer(after)).status == 200)
        #expect(throws: CredentialsError.self) { try h.service.replaceCredentials(Credentials(signingKeys: [next])) }
        let open = ServiceHarness()
        #expect(throws: CredentialsError.self) { try open.service.replaceCredentials(Credentials(adminTokens: ["x"])) }
        #expect(open.service.isOpen)
    }

    @Test func credentialFilesAreRead() throws {
        #expect(try Credentials.adminTokens(file: "# admins\n\n  one  \ntwo\n") == ["one", "two"])
        #expect(throws: CredentialsError("line 1: a token is printable ASCII without spaces (what an Authorization header can carry)")) {
            try Credentials.adminTokens(file: "a b\n")
        }
        #expect(throws: CredentialsError("line 2: an admin token may not start with ts1. (the session tokens' prefix)")) {
            try Credentials.adminTokens(file: "ok\nts1.x\n")
        }
        #expect(throws: CredentialsError("the file holds no token")) { try Credentials.adminTokens(file: "# none\n") }
        let secret = String(repeating: "s", count: 32)
        let keys = try Credentials.signingKeys(file: "# newest first\nk2 \(secret)x\nk1\t\(secret)\n")
        #expect(keys.map(\.id) == ["k2", "k1"] && keys[1].secret == Array(secret.utf8))
        #expect(throws: CredentialsError("line 1: the secret of key k1 has 5 bytes; it needs 32 or more")) { try Credentials.signingKeys(file: "k1 short") }
        #expect(throws: CredentialsError("line 2: key id k1 is given twice")) { try Credentials.signingKeys(file: "k1 \(secret)\nk1 \(secret)") }
        #expect(throws: CredentialsError("line 1: a key id is 1 to 64 letters, digits, - or _")) { try Credentials.signingKeys(file: "k.1 \(secret)") }
        #expect(throws: CredentialsError("line 1: a key is written as ID SECRET")) { try Credentials.signingKeys(file: secret) }
        #expect(throws: CredentialsError("the file holds no key")) { try Credentials.signingKeys(file: "") }
    }
}
