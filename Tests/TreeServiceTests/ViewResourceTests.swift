import Foundation
import HTTP1
import Testing
import TreeEngine
import TreeFormats
@testable import TreeService

/// `/sessions/{sid}/views`: making, listing, reading and deleting views, their ids, their
/// versions and `If-Match`, their limits and their expiry on the injected clock.
@Suite struct ViewResourceTests {
    /// Makes a view; its id.
    static func createView(_ h: ServiceHarness, _ sid: String, _ body: String? = nil) -> String {
        let reply = h.call("POST", "/sessions/\(sid)/views", json: body)
        precondition(reply.status == 201, "view not made: \(reply.text)")
        return reply["id"]!.stringValue!
    }

    static func version(_ h: ServiceHarness, _ path: String) -> Int? { h.call("GET", path)["version"]?.intValue }

    @Test func aViewIsMadeReadListedAndDeleted() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let made = h.call("POST", "/sessions/\(sid)/views")
        #expect(made.status == 201)
        let vid = try #require(made["id"]?.stringValue)
        #expect(vid.utf8.count == 16 && vid.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(made.headers["location"] == "/sessions/\(sid)/views/\(vid)")
        #expect(made.headers["etag"] == "\"1\"")
        #expect(made["version"]?.intValue == 1)
        #expect(made["total"]?.intValue == 5, "the roots")
        #expect(made["createdAt"]?.stringValue == "2027-01-15T08:00:00.000Z")
        #expect(made["ttl"]?.intValue == 1800, "the session's")

        let summary = h.call("GET", "/sessions/\(sid)/views/\(vid)")
        #expect(summary.status == 200)
        #expect(summary.headers["etag"] == "\"1\"")
        #expect(summary["id"]?.stringValue == vid)
        #expect(h.call("GET", "/sessions/\(sid)/views/\(vid)", headers: [("If-None-Match", "\"1\"")]).status == 304)

        let list = h.call("GET", "/sessions/\(sid)/views")
        #expect(list.status == 200)
        #expect(list["total"]?.intValue == 1)
        let entry = try #require(list["views"]?.array?.first)
        #expect(entry["id"]?.stringValue == vid)
        #expect(entry["version"]?.intValue == 1)
        #expect(entry["createdAt"]?.stringValue == "2027-01-15T08:00:00.000Z")
        #expect(entry["lastUse"]?.stringValue != nil)

        #expect(h.call("DELETE", "/sessions/\(sid)/views/\(vid)").status == 204)
        #expect(h.call("GET", "/sessions/\(sid)/views/\(vid)").status == 404)
        #expect(h.call("GET", "/sessions/\(sid)/views/\(vid)/rows").status == 404)
        #expect(h.call("DELETE", "/sessions/\(sid)/views/\(vid)").status == 404)
        #expect(h.call("GET", "/sessions/\(sid)/views")["total"]?.intValue == 0)
        // The session itself did not change.
        #expect(Self.version(h, "/sessions/\(sid)") == 1)
    }

    @Test(arguments: ["default", "0123456789ABCDEF", "123", "0123456789abcdefa", "zzzzzzzzzzzzzzzz"])
    func aViewIDThatNamesNoViewIs404(_ vid: String) {
        let h = ServiceHarness()
        let sid = h.createSample()
        for (method, path) in [("GET", ""), ("GET", "/rows"), ("GET", "/items/1"), ("GET", "/matches?filter=a"), ("GET", "/events"),
                               ("DELETE", "")] {
            let reply = h.call(method, "/sessions/\(sid)/views/\(vid)\(path)")
            #expect(reply.status == 404, "\(method) \(path)")
            #expect(reply["type"]?.stringValue == "urn:treesessions:problem:not-found")
        }
        #expect(h.call("PATCH", "/sessions/\(sid)/views/\(vid)/items/1", json: #"{"expanded":true}"#).status == 404)
        #expect(h.call("GET", "/sessions/nosuchsession/views").status == 404)
    }

    @Test func theBodySaysHowTheViewStarts() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        #expect(h.call("POST", "/sessions/\(sid)/views", json: #"{"expand": "none"}"#).status == 201)
        #expect(h.call("POST", "/sessions/\(sid)/views", json: #"{"expand": 2}"#).status == 201)
        #expect(h.call("POST", "/sessions/\(sid)/views", json: #"{"expand": "all"}"#).status == 201)
        #expect(h.call("POST", "/sessions/\(sid)/views", json: #"{"from": "default"}"#).status == 201)
        let vid = Self.createView(h, sid)
        #expect(h.call("POST", "/sessions/\(sid)/views", json: #"{"from": "\#(vid)"}"#).status == 201)
        // Refused: nothing made.
        for (body, status) in [(#"{"expand": "some"}"#, 422), (#"{"expand": -1}"#, 422), (#"{"expand": 1.5}"#, 422),
                               (#"{"from": 7}"#, 422), (#"{"from": "nope"}"#, 422), (#"{"expand": 1, "from": "default"}"#, 422),
                               (#"{"colour": 1}"#, 422), (#"["#, 400), (#"[]"#, 422),
                               (#"{"from": "0000000000000000"}"#, 404)] {
            let reply = h.call("POST", "/sessions/\(sid)/views", json: body)
            #expect(reply.status == status, "\(body): \(reply.text)")
        }
        #expect(h.call("POST", "/sessions/\(sid)/views", json: "x", contentType: "text/plain").status == 415)
        #expect(h.call("GET", "/sessions/\(sid)/views")["total"]?.intValue == 6)
    }

    @Test func idsAreNeverGivenTwiceInASession() {
        let h = ServiceHarness()
        let sid = h.createSample()
        var seen: Set<String> = []
        for _ in 0 ..< 50 {
            let vid = Self.createView(h, sid)
            #expect(seen.insert(vid).inserted)
            #expect(h.call("DELETE", "/sessions/\(sid)/views/\(vid)").status == 204)
        }
        // The scattering is a bijection: distinct serials, distinct ids.
        let ids = Set((0 ..< 10_000 as Range<UInt64>).map { SessionCore.scatter($0 ^ 0x5EED) })
        #expect(ids.count == 10_000)
    }

    @Test func theListIsPagedInTheOrderViewsWereMade() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let made = (0 ..< 5).map { _ in Self.createView(h, sid) }
        let first = h.call("GET", "/sessions/\(sid)/views?limit=2")
        #expect(first["total"]?.intValue == 5)
        #expect(first["limit"]?.intValue == 2)
        #expect(first["views"]?.array?.map { $0["id"]!.stringValue! } == Array(made[0 ..< 2]))
        let rest = h.call("GET", "/sessions/\(sid)/views?offset=2&limit=10")
        #expect(rest["views"]?.array?.map { $0["id"]!.stringValue! } == Array(made[2...]))
        #expect(h.call("GET", "/sessions/\(sid)/views?offset=9")["views"]?.array?.isEmpty == true)
        #expect(h.call("GET", "/sessions/\(sid)/views?limit=1001").status == 400)
        #expect(h.call("GET", "/sessions/\(sid)/views?filter=a").status == 400)
    }

    @Test func aViewHasItsOwnVersionAndIfMatch() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let a = Self.createView(h, sid), b = Self.createView(h, sid)
        let base = "/sessions/\(sid)"
        // A change of A's state steps A alone.
        let expand = h.call("PATCH", "\(base)/views/\(a)/items/1", json: #"{"expanded":true}"#, headers: [("If-Match", "\"1\"")])
        #expect(expand.status == 200)
        #expect(expand.headers["etag"] == "\"2\"")
        #expect(expand["version"]?.intValue == 2)
        #expect(Self.version(h, "\(base)/views/\(a)") == 2)
        #expect(Self.version(h, "\(base)/views/\(b)") == 1)
        #expect(Self.version(h, base) == 1)
        #expect(h.call("GET", "\(base)/views/\(a)/rows").headers["etag"] == "\"2\"")
        #expect(h.call("GET", "\(base)/views/\(b)/rows").headers["etag"] == "\"1\"")
        // If-Match compares with the named view's version.
        let stale = h.call("PATCH", "\(base)/views/\(a)", json: #"{"collapseAll":true}"#, headers: [("If-Match", "\"1\"")])
        #expect(stale.status == 412)
        #expect(stale.headers["etag"] == "\"2\"")
        #expect(h.call("PATCH", "\(base)/views/\(b)", json: #"{"collapseAll":true}"#, headers: [("If-Match", "\"1\"")]).status == 200)
        #expect(h.call("GET", "\(base)/views/\(b)/rows", headers: [("If-None-Match", "\"2\"")]).status == 304)
        // A change of the default view's state steps the session alone.
        #expect(h.call("PATCH", "\(base)/items/2", json: #"{"expanded":true}"#, headers: [("If-Match", "\"1\"")]).status == 200)
        #expect(Self.version(h, base) == 2)
        #expect(Self.version(h, "\(base)/views/\(a)") == 2)
        // A tree edit, through any view, steps every view by one.
        let rename = h.call("PATCH", "\(base)/views/\(b)/items/3", json: #"{"title":"Renamed"}"#, headers: [("If-Match", "\"2\"")])
        #expect(rename.status == 200)
        #expect(rename["version"]?.intValue == 3)
        #expect(Self.version(h, base) == 3)
        #expect(Self.version(h, "\(base)/views/\(a)") == 3)
        #expect(Self.version(h, "\(base)/views/\(b)") == 3)
        // DELETE of a view checks its version.
        #expect(h.call("DELETE", "\(base)/views/\(a)", headers: [("If-Match", "\"2\"")]).status == 412)
        #expect(h.call("DELETE", "\(base)/views/\(a)", headers: [("If-Match", "\"3\"")]).status == 204)
        #expect(Self.version(h, base) == 3)
    }

    @Test func aBatchThroughAViewStepsItOnceAndEveryViewWhenItEdits() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let a = Self.createView(h, sid), b = Self.createView(h, sid)
        let base = "/sessions/\(sid)"
        let expandOnly = h.call("POST", "\(base)/views/\(a)/batch",
                                json: #"{"operations":[{"op":"expand","id":"1","expanded":true},{"op":"expand","id":"2","expanded":true}]}"#)
        #expect(expandOnly.status == 200)
        #expect(expandOnly["version"]?.intValue == 2)
        #expect(Self.version(h, "\(base)/views/\(b)") == 1)
        #expect(Self.version(h, base) == 1)
        let edit = h.call("POST", "\(base)/views/\(a)/batch",
                          json: #"{"operations":[{"op":"expand","id":"3","expanded":true},{"op":"update","id":"3","title":"Three"}]}"#)
        #expect(edit["version"]?.intValue == 3)
        #expect(Self.version(h, "\(base)/views/\(b)") == 2)
        #expect(Self.version(h, base) == 2)
        #expect(h.call("POST", "\(base)/views/\(a)/batch", json: #"{"operations":[]}"#)["version"]?.intValue == 3)
    }

    @Test func anInsertThroughAViewIsLocatedInIt() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let a = Self.createView(h, sid)
        let insert = h.call("POST", "/sessions/\(sid)/views/\(a)/items", json: #"{"nodes":[{"id":"n","title":"New"}]}"#)
        #expect(insert.status == 201)
        #expect(insert.headers["location"] == "/sessions/\(sid)/views/\(a)/items/n")
        #expect(insert["ids"]?.array == [.string("n")])
        #expect(h.call("GET", "/sessions/\(sid)/items/n").status == 200, "the tree is shared")
        #expect(h.call("DELETE", "/sessions/\(sid)/views/\(a)/items/n")["index"] == .null)
        #expect(h.call("GET", "/sessions/\(sid)/items/n").status == 404)
        // If-Match before the body, with the view's version.
        #expect(h.call("POST", "/sessions/\(sid)/views/\(a)/items", json: "[", headers: [("If-Match", "\"1\"")]).status == 412)
    }

    @Test func maxViewsAnswers429() throws {
        let h = ServiceHarness { $0.maxViewsPerSession = 2 }
        let sid = h.createSample()
        let a = Self.createView(h, sid)
        _ = Self.createView(h, sid)
        let refused = h.call("POST", "/sessions/\(sid)/views")
        #expect(refused.status == 429)
        #expect(refused["type"]?.stringValue == "urn:treesessions:problem:too-many-views")
        #expect(refused.headers["retry-after"] == "60")
        #expect(h.call("GET", "/sessions/\(sid)/views")["total"]?.intValue == 2)
        // Another session has room of its own.
        #expect(h.call("POST", "/sessions/\(h.createSample())/views").status == 201)
        #expect(h.call("DELETE", "/sessions/\(sid)/views/\(a)").status == 204)
        #expect(h.call("POST", "/sessions/\(sid)/views").status == 201)
    }

    @Test func aViewExpiresAfterItsTTLUnlessUsed() throws {
        let h = ServiceHarness { $0.viewTTL = .seconds(60) }
        let sid = h.createSample()
        let kept = Self.createView(h, sid), idle = Self.createView(h, sid)
        #expect(h.call("GET", "/sessions/\(sid)/views/\(kept)")["ttl"]?.intValue == 60)
        #expect(h.call("GET", "/sessions/\(sid)/views/\(kept)")["expiresAt"]?.stringValue == "2027-01-15T08:01:00.000Z")
        h.clock.advance(.seconds(40))
        #expect(h.call("GET", "/sessions/\(sid)/views/\(kept)/rows").status == 200)  // a use
        h.clock.advance(.seconds(40))
        #expect(h.call("GET", "/sessions/\(sid)/views/\(idle)/rows").status == 404)
        #expect(h.call("GET", "/sessions/\(sid)/views/\(kept)").status == 200)
        let list = h.call("GET", "/sessions/\(sid)/views")
        #expect(list["views"]?.array?.map { $0["id"]!.stringValue! } == [kept])
        // A view made when others expired finds room: expired views are dropped first.
        h.clock.advance(.seconds(61))
        #expect(h.call("GET", "/sessions/\(sid)/views")["total"]?.intValue == 0)
        #expect(h.call("GET", "/sessions/\(sid)").status == 200, "the session lives on")
    }

    /// At `--max-views`, views that expired make room at once: they do not count, even before
    /// the periodic sweep drops them (a review found 429 there).
    @Test func expiredViewsDoNotCountForMaxViews() throws {
        let h = ServiceHarness { $0.viewTTL = .seconds(1); $0.maxViewsPerSession = 1 }
        let sid = h.createSample()
        let old = Self.createView(h, sid)
        h.clock.advance(.milliseconds(2500))
        let made = h.call("POST", "/sessions/\(sid)/views")
        #expect(made.status == 201, "\(made.text)")
        #expect(h.call("GET", "/sessions/\(sid)/views/\(old)").status == 404)
    }

    @Test func viewsLiveAsLongAsTheirSessionByDefault() throws {
        let h = ServiceHarness { $0.sessionTTL = .seconds(100) }
        let sid = h.createSample()
        let vid = Self.createView(h, sid)
        #expect(h.call("GET", "/sessions/\(sid)/views/\(vid)")["ttl"]?.intValue == 100)
        h.clock.advance(.seconds(90))
        #expect(h.call("GET", "/sessions/\(sid)").status == 200)  // the session is used; the view is not
        h.clock.advance(.seconds(20))
        #expect(h.call("GET", "/sessions/\(sid)/views/\(vid)").status == 404)
        let never = ServiceHarness { $0.viewTTL = .zero }
        let other = never.createSample()
        let lasting = Self.createView(never, other)
        never.clock.advance(.seconds(1000))
        #expect(never.call("GET", "/sessions/\(other)").status == 200)
        never.clock.advance(.seconds(1000))
        let summary = never.call("GET", "/sessions/\(other)/views/\(lasting)")
        #expect(summary.status == 200)
        #expect(summary["expiresAt"] == .null)
    }

    @Test func anOpenStreamKeepsItsViewAlive() throws {
        let h = ServiceHarness { $0.viewTTL = .seconds(60) }
        let sid = h.createSample()
        let vid = Self.createView(h, sid)
        let stream = try #require(h.openStream("/sessions/\(sid)/views/\(vid)/events").1)
        _ = stream.wait(forCount: 1)
        h.clock.advance(.seconds(600))
        #expect(h.call("GET", "/sessions/\(sid)").status == 200)
        let summary = h.call("GET", "/sessions/\(sid)/views/\(vid)")
        #expect(summary.status == 200)
        #expect(summary["expiresAt"] == .null)
        // Once it ends, the view has its TTL again from then (a client reconnects after `retry`).
        stream.stream.cancel()
        #expect(h.call("GET", "/sessions/\(sid)/views/\(vid)").status == 200)
        h.clock.advance(.seconds(61))
        #expect(h.call("GET", "/sessions/\(sid)/views/\(vid)").status == 404)
    }

    @Test func deletingAViewOrItsSessionEndsItsStreams() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let a = Self.createView(h, sid), b = Self.createView(h, sid)
        let onA = try #require(h.openStream("/sessions/\(sid)/views/\(a)/events").1)
        let onB = try #require(h.openStream("/sessions/\(sid)/views/\(b)/events?filter=ce").1)
        let onDefault = try #require(h.openStream("/sessions/\(sid)/events").1)
        _ = onA.wait(forCount: 1)
        _ = onB.wait(forCount: 1)
        #expect(h.call("DELETE", "/sessions/\(sid)/views/\(a)").status == 204)
        #expect(onA.wait { $0.last?.name == "end" })
        #expect(onA.events.last?.json == (try JSONValue.parse(Array(#"{"reason":"deleted"}"#.utf8))))
        #expect(onA.wait(timeout: .seconds(5)) { _ in onA.finished })
        #expect(!onB.finished && !onDefault.finished)
        #expect(h.call("DELETE", "/sessions/\(sid)").status == 204)
        #expect(onB.wait { $0.last?.name == "end" })
        #expect(onDefault.wait { $0.last?.name == "end" })
        #expect(h.call("GET", "/sessions/\(sid)/views/\(b)").status == 404)
    }

    @Test func anExpiredViewEndsItsStreamsWithExpired() throws {
        let h = ServiceHarness { $0.viewTTL = .seconds(60) }
        let sid = h.createSample()
        let vid = Self.createView(h, sid)
        let stream = try #require(h.openStream("/sessions/\(sid)/views/\(vid)/events").1)
        _ = stream.wait(forCount: 1)
        // The stream keeps it; a deleted view's streams end with `deleted`, an expired one's
        // with `expired`: expire it by hand, as the sweep does, once nothing keeps it.
        let session = try #require(h.service.registry.lookup(sid))
        try h.service.withSession(session) { session, state throws(ServiceError) in
            _ = try h.service.change(ViewRef(), session, &state, ticket: 0) { _ throws(ServiceError) in
                (.deleteView(ViewID(text: vid)!, expired: true), nil)
            }
        }
        #expect(stream.wait { $0.last?.name == "end" })
        #expect(stream.events.last?.json == (try JSONValue.parse(Array(#"{"reason":"expired"}"#.utf8))))
    }
}

/// The core's versions: O(1) per tree edit however many views, and a view's own changes
/// step it alone.
@Suite struct SessionCoreViewTests {
    static func store() -> TreeStore {
        TreeStore(forest: try! Forest.parse(Array(#"[{"id":"a","title":"A","children":[{"title":"B"}]},{"id":"c","title":"C"}]"#.utf8)).forest)
    }

    @Test func versionsCountTreeEditsAndOwnChanges() {
        var core = SessionCore(store: Self.store(), viewKey: 42)
        let first = core.nextViewID
        let (made, stepped) = core.apply(.createView(first, .collapsed, createdAt: Date(timeIntervalSince1970: 0)), in: ViewRef())
        guard case .createdView(let id) = made.subject else { Issue.record("no view made"); return }
        #expect(id == first && stepped == .none)
        #expect(core.version(of: id) == 1 && core.version == 1)
        #expect(core.nextViewID != first)
        let second = core.nextViewID
        _ = core.apply(.createView(second, .expanded, createdAt: Date()), in: ViewRef())
        let a = core.store.forest.node(withID: "a")!
        #expect(core.apply(.setExpanded(a, expanded: true, recursive: false), in: ViewRef(first)).1 == .one(first))
        #expect(core.version(of: first) == 2 && core.version(of: second) == 1 && core.version == 1)
        #expect(core.apply(.update(a, title: "A2", data: nil), in: ViewRef(second)).1 == .every)
        #expect(core.version(of: first) == 3 && core.version(of: second) == 2 && core.version == 2)
        // A view made after edits starts at 1 all the same.
        let third = core.nextViewID
        _ = core.apply(.createView(third, .copy(of: first), createdAt: Date()), in: ViewRef())
        #expect(core.version(of: third) == 1)
        #expect(core.apply(.deleteView(first), in: ViewRef()).1 == .none)
        #expect(!core.contains(first) && core.contains(second) && core.contains(nil))
        #expect(core.viewsInOrder.map(\.id) == [second, third])
        // The session's version can be set (a loaded snapshot) and stays the default view's.
        core.version = 40
        #expect(core.version(of: nil) == 40 && core.version(of: second) == 2)
    }
}

extension DurabilityTests {
    /// Tree edits made through a view are journaled with the view, and so are its own
    /// changes: a restart keeps the tree, the session's version and the view's.
    @Test func treeEditsThroughAViewSurviveARestart() throws {
        var sid = "", tree = "", version = 0, vid = "", viewVersion = 0
        for shutdown in [true, false] {
            try withService(shutdown: shutdown) { h in
                sid = h.createSample()
                vid = ViewResourceTests.createView(h, sid)
                let base = "/sessions/\(sid)/views/\(vid)"
                #expect(h.call("PATCH", "\(base)/items/1", json: #"{"expanded":true}"#).status == 200)
                #expect(h.call("POST", "\(base)/items?filter=ce", json: #"{"nodes":[{"id":"n","title":"Nice"}],"parentId":"1"}"#).status == 201)
                #expect(h.call("PATCH", "\(base)/items/2", json: #"{"title":"Two"}"#).status == 200)
                #expect(h.call("POST", "\(base)/batch", json: #"{"operations":[{"op":"expand","id":"2","expanded":true},{"op":"delete","id":"3"}]}"#).status == 200)
                #expect(h.call("POST", "\(base)/batch", json: #"{"operations":[{"op":"collapseAll"}]}"#).status == 200)
                // The default view changes too, between them.
                #expect(h.call("PATCH", "/sessions/\(sid)/items/4", json: #"{"expanded":true}"#).status == 200)
                #expect(h.call("PATCH", "\(base)/items/5", json: #"{"parentId":"4"}"#).status == 200)
                tree = h.call("GET", "/sessions/\(sid)/tree").text
                version = ViewResourceTests.version(h, "/sessions/\(sid)")!
                viewVersion = ViewResourceTests.version(h, base)!
                #expect(version == 6)
            }
            try withService { h in
                #expect(h.call("GET", "/sessions/\(sid)/tree").text == tree)
                #expect(ViewResourceTests.version(h, "/sessions/\(sid)") == version)
                #expect(h.call("GET", "/sessions/\(sid)/views")["total"]?.intValue == 1)
                #expect(ViewResourceTests.version(h, "/sessions/\(sid)/views/\(vid)") == viewVersion)
                #expect(h.call("DELETE", "/sessions/\(sid)").status == 204)
            }
        }
    }
}
