import Foundation
import HTTP1
import Testing
import TreeEngine
@testable import TreeService

/// Every route and method of the API against every kind of caller (issue 38): admin, owner,
/// editor, reader, a reader bound to a view, and tokens that are expired, forged or for
/// another session, and none. The table below says what each request needs, written apart
/// from the service's own rules; a route or method without a row fails the test.
@Suite struct AccessRuleTests {
    /// What a request needs: nothing, the admin, any valid credential, or a role of the
    /// session's (and, for a token bound to a view, whether it may send it).
    enum Needs: Sendable {
        case open, admin, anyCredential
        case role(AccessToken.Role, boundMay: Bool)
    }

    /// One request of the table: its route's template and method (with a note when a route
    /// and method have several), its target in a session `sid` with a view `vid`, its body.
    struct Case: CustomStringConvertible, Sendable {
        var method: String
        var template: Route.Template
        var note = ""
        var target: @Sendable (_ sid: String, _ vid: String) -> String
        var body: String? = nil
        var needs: Needs
        var description: String { "\(method) \(template.rawValue)\(note.isEmpty ? "" : " (\(note))")" }
    }

    /// The requests, each of a route that reads or changes a view twice: through the
    /// default view (which no bound token may use) and through the view `vid`.
    static let cases: [Case] = {
        var cases: [Case] = [
            Case(method: "GET", template: .root, target: { _, _ in "/" }, needs: .open),
            Case(method: "GET", template: .health, target: { _, _ in "/healthz" }, needs: .open),
            Case(method: "GET", template: .openAPI, target: { _, _ in "/openapi.yaml" }, needs: .open),
            Case(method: "GET", template: .client, target: { _, _ in "/client/index.js" }, needs: .open),
            Case(method: "GET", template: .metrics, target: { _, _ in "/metrics" }, needs: .admin),
            Case(method: "POST", template: .sessions, target: { _, _ in "/sessions" }, body: "[]", needs: .admin),
            Case(method: "GET", template: .sessions, target: { _, _ in "/sessions" }, needs: .anyCredential),
            Case(method: "GET", template: .session, target: { s, _ in "/sessions/\(s)" }, needs: .role(.reader, boundMay: true)),
            Case(method: "PATCH", template: .session, note: "the default view", target: { s, _ in "/sessions/\(s)" },
                 body: #"{"expandAll": true}"#, needs: .role(.reader, boundMay: false)),
            Case(method: "PATCH", template: .session, note: "settings", target: { s, _ in "/sessions/\(s)" },
                 body: #"{"name": "Plan", "labels": {"team": "search"}}"#, needs: .role(.owner, boundMay: true)),
            Case(method: "DELETE", template: .session, target: { s, _ in "/sessions/\(s)" }, needs: .role(.owner, boundMay: true)),
            Case(method: "GET", template: .fields, target: { s, _ in "/sessions/\(s)/fields" }, needs: .role(.reader, boundMay: true)),
            Case(method: "POST", template: .eventToken, target: { s, _ in "/sessions/\(s)/events/token" }, needs: .role(.reader, boundMay: true)),
            Case(method: "POST", template: .tokens, target: { s, _ in "/sessions/\(s)/tokens" }, body: #"{"role": "reader"}"#,
                 needs: .role(.owner, boundMay: true)),
            Case(method: "GET", template: .views, target: { s, _ in "/sessions/\(s)/views" }, needs: .role(.reader, boundMay: true)),
            Case(method: "POST", template: .views, target: { s, _ in "/sessions/\(s)/views" }, body: "{}", needs: .role(.reader, boundMay: false)),
            Case(method: "GET", template: .view, target: { s, v in "/sessions/\(s)/views/\(v)" }, needs: .role(.reader, boundMay: true)),
            Case(method: "PATCH", template: .view, target: { s, v in "/sessions/\(s)/views/\(v)" }, body: #"{"sort": "title"}"#,
                 needs: .role(.reader, boundMay: true)),
            Case(method: "DELETE", template: .view, target: { s, v in "/sessions/\(s)/views/\(v)" }, needs: .role(.reader, boundMay: true)),
        ]
        // The routes of a view's rows and state, through the default view and through `vid`.
        let inView: [(String, Route.Template, Route.Template, String, String, String?, AccessToken.Role)] = [
            ("GET", .rows, .viewRows, "", "/rows", nil, .reader),
            ("GET", .tree, .viewTree, "", "/tree", nil, .reader),
            ("GET", .children, .viewChildren, "", "/children", nil, .reader),
            ("GET", .itemChildren, .viewItemChildren, "", "/items/2/children", nil, .reader),
            ("GET", .matches, .viewMatches, "", "/matches?filter=a", nil, .reader),
            ("GET", .selection, .viewSelection, "", "/selection", nil, .reader),
            ("GET", .expansion, .viewExpansion, "", "/expansion", nil, .reader),
            ("PUT", .expansion, .viewExpansion, "", "/expansion", #"{"expanded": ["2"]}"#, .reader),
            ("GET", .events, .viewEvents, "", "/events", nil, .reader),
            ("GET", .item, .viewItem, "", "/items/2", nil, .reader),
            ("PATCH", .item, .viewItem, "expansion", "/items/2", #"{"expanded": true}"#, .reader),
            ("PATCH", .item, .viewItem, "an edit", "/items/2", #"{"title": "Renamed"}"#, .editor),
            ("DELETE", .item, .viewItem, "", "/items/2.1", nil, .editor),
            ("POST", .items, .viewItems, "", "/items", #"{"nodes": [{"id": "n", "title": "New"}]}"#, .editor),
            ("POST", .batch, .viewBatch, "expansion", "/batch", #"{"operations": [{"op": "expand", "id": "2", "expanded": true}]}"#, .reader),
            ("POST", .batch, .viewBatch, "an edit", "/batch", #"{"operations": [{"op": "expand", "id": "2", "expanded": true}, {"op": "delete", "id": "2.1"}]}"#, .editor),
        ]
        for (method, plain, viewed, note, path, body, role) in inView {
            cases.append(Case(method: method, template: plain, note: note, target: { s, _ in "/sessions/\(s)\(path)" }, body: body,
                              needs: .role(role, boundMay: false)))
            cases.append(Case(method: method, template: viewed, note: note, target: { s, v in "/sessions/\(s)/views/\(v)\(path)" }, body: body,
                              needs: .role(role, boundMay: true)))
        }
        // HEAD as GET.
        return cases + cases.filter { $0.method == "GET" }.map { var head = $0; head.method = "HEAD"; return head }
    }()

    /// The kinds of caller.
    enum Caller: String, CaseIterable {
        case admin, owner, editor, reader, boundReader, expired, forged, otherSession, none
    }

    @Test func everyRouteAndMethodHasARow() {
        for template in Route.Template.allCases {
            for method in template.allowedMethods where method != "OPTIONS" {
                #expect(Self.cases.contains { $0.template == template && $0.method == method }, "\(method) \(template.rawValue) has no row")
            }
        }
    }

    @Test(arguments: Caller.allCases)
    func everyRouteAnswersEveryCallerAsItsRuleSays(_ caller: Caller) throws {
        let h = ServiceHarness { $0.token = "admin-secret"; $0.maxSessions = 10_000 }
        let admin = [("Authorization", "Bearer admin-secret")]
        let other = try #require(h.call("POST", "/sessions", json: "[]", headers: admin)["id"]?.stringValue)
        for c in Self.cases {
            // A session of its own for each request (some delete it, or what they name).
            let sid = try #require(h.call("POST", "/sessions", json: "{\"nodes\": \(ServiceHarness.sampleNodes)}", headers: admin)["id"]?.stringValue)
            let vid = try #require(h.call("POST", "/sessions/\(sid)/views", json: "{}", headers: admin)["id"]?.stringValue)
            let headers = try Self.credential(caller, h, sid: sid, vid: vid, other: other).map { [("Authorization", "Bearer \($0)")] } ?? []
            let reply = h.call(c.method, c.target(sid, vid), json: c.body, headers: headers)
            let expected = Self.expected(c.needs, caller)
            switch expected {
            case 200: #expect((200 ..< 300).contains(reply.status), "\(c) as \(caller): \(reply.status) \(reply.text)")
            default:
                #expect(reply.status == expected, "\(c) as \(caller): \(reply.status) \(reply.text)")
                #expect(reply["type"]?.stringValue == (expected == 401 ? "urn:treesessions:problem:unauthorized" : "urn:treesessions:problem:forbidden"))
                #expect(!reply.text.contains("admin-secret") && !reply.text.contains(".reader.") && !reply.text.contains(".owner."),
                        "a refusal never echoes the token")
            }
        }
    }

    /// The status class a caller gets: 200 (any 2xx), 401 or 403.
    static func expected(_ needs: Needs, _ caller: Caller) -> Int {
        if case .open = needs { return 200 }
        switch caller {
        case .admin: return 200
        case .none, .expired, .forged: return 401
        case .otherSession:
            // A valid owner token, of another session: refused where a session is named.
            switch needs {
            case .open, .anyCredential: return 200
            case .admin: return 403
            case .role: return 401
            }
        case .owner, .editor, .reader, .boundReader:
            let role: AccessToken.Role = caller == .owner ? .owner : caller == .editor ? .editor : .reader
            switch needs {
            case .open, .anyCredential: return 200
            case .admin: return 403
            case .role(let least, let boundMay): return role >= least && (boundMay || caller != .boundReader) ? 200 : 403
            }
        }
    }

    /// The token a caller sends (nil: none).
    static func credential(_ caller: Caller, _ h: ServiceHarness, sid: String, vid: String, other: String) throws -> String? {
        let now = h.service.tokenNow
        func token(_ role: AccessToken.Role, session: String = sid, view: ViewID? = nil, expires: Int64 = now + 60_000) -> AccessToken {
            AccessToken(session: session, role: role, view: view, issued: now, expires: expires)
        }
        switch caller {
        case .admin: return "admin-secret"
        case .none: return nil
        case .owner: return h.service.mint(token(.owner))
        case .editor: return h.service.mint(token(.editor))
        case .reader: return h.service.mint(token(.reader))
        case .boundReader: return h.service.mint(token(.reader, view: try #require(ViewID(text: vid))))
        case .expired: return h.service.mint(token(.owner, expires: now - 1))
        case .forged:
            // The key's name, another secret.
            let id = h.service.keys.withLock { $0.signer.keys[0].id }
            return TokenSigner(keys: [SigningKey(id: id, secret: Array(repeating: 1, count: 32))]).mint(token(.owner))
        case .otherSession: return h.service.mint(token(.owner, session: other))
        }
    }
}
