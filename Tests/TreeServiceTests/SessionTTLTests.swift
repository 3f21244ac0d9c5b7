import Foundation
import Testing
@testable import TreeService

/// Sessions that stay: `--session-ttl 0` means never, an upload may ask for its own `ttl`
/// (seconds, 0 never, at most `--max-session-ttl`), and the summary shows it.
@Suite struct SessionTTLTests {
    static let nodes = #"[{"id": "a", "title": "A"}]"#

    func create(_ h: ServiceHarness, _ members: String = "", query: String = "") -> ServiceHarness.Reply {
        h.call("POST", "/sessions\(query)", json: members.isEmpty ? Self.nodes : #"{"nodes": \#(Self.nodes), \#(members)}"#)
    }

    @Test func anUploadAsksForItsOwnTTL() throws {
        let h = ServiceHarness()
        let short = create(h, #""ttl": 60"#)
        #expect(short.status == 201)
        #expect(short["ttl"]?.intValue == 60)
        let sid = try #require(short["id"]?.stringValue)
        let other = try #require(create(h)["id"]?.stringValue)
        #expect(h.call("GET", "/sessions/\(other)")["ttl"]?.intValue == 1800, "the server's")
        h.clock.advance(.seconds(61))
        #expect(h.call("GET", "/sessions/\(sid)").status == 404)
        #expect(h.call("GET", "/sessions/\(other)").status == 200)
    }

    @Test func aTTLOfZeroNeverExpires() throws {
        let h = ServiceHarness()
        let created = create(h, #""ttl": 0"#)
        #expect(created["ttl"]?.intValue == 0)
        #expect(created["expiresAt"] == .null)
        let sid = try #require(created["id"]?.stringValue)
        h.clock.advance(.seconds(10 * 365 * 24 * 3600))
        h.service.registry.sweepIfDue()
        #expect(h.call("GET", "/sessions/\(sid)").status == 200)
        // As a query parameter, for any format.
        let csv = h.call("POST", "/sessions?ttl=0", json: "id,parentId,title\n1,,a\n", contentType: "text/csv")
        #expect(csv.status == 201)
        #expect(csv["ttl"]?.intValue == 0)
    }

    @Test func theServerMayKeepEverySessionForever() throws {
        let h = ServiceHarness { $0.sessionTTL = .zero }
        let created = create(h)
        #expect(created["ttl"]?.intValue == 0)
        #expect(created["expiresAt"] == .null)
        h.clock.advance(.seconds(365 * 24 * 3600))
        #expect(h.call("GET", "/sessions/\(created["id"]!.stringValue!)").status == 200)
    }

    @Test func aTTLBeyondTheServersMostIsRefused() {
        let h = ServiceHarness { $0.maxSessionTTL = .seconds(3600) }
        let before = h.service.sessionCount
        let long = create(h, #""ttl": 7200"#)
        #expect(long.status == 422)
        #expect(long["pointer"]?.stringValue == "/ttl")
        #expect(long["detail"]?.stringValue == #""ttl": 7200 s is longer than this server's --max-session-ttl of 3600 s"#)
        let never = create(h, #""ttl": 0"#)
        #expect(never.status == 422)
        #expect(never["detail"]?.stringValue?.hasPrefix(#""ttl": 0 (never expire) is longer"#) == true)
        let query = create(h, query: "?ttl=7200")
        #expect(query.status == 400)
        #expect(query["detail"]?.stringValue == "query parameter ttl: 7200 s is longer than this server's --max-session-ttl of 3600 s")
        #expect(h.service.sessionCount == before)
        #expect(create(h, #""ttl": 3600"#).status == 201)
    }

    @Test(arguments: [#""ttl": -1"#, #""ttl": 1.5"#, #""ttl": "60""#, #""ttl": null"#, #""ttl": 1000000000"#])
    func aTTLThatIsNotWholeSecondsIsRefused(_ member: String) {
        let h = ServiceHarness()
        let reply = create(h, member)
        #expect(reply.status == 422, "\(member)")
        #expect(reply["pointer"]?.stringValue == "/ttl")
    }

    @Test func aTTLGivenTwiceIsRefused() {
        let h = ServiceHarness()
        #expect(create(h, #""ttl": 60"#, query: "?ttl=60").status == 400)
        #expect(create(h, query: "?ttl=soon").status == 400)
    }

    /// The metadata of a snapshot written before uploads could ask for a TTL (format 1) reads
    /// as a session with the server's.
    @Test func aSnapshotOfTheFormerFormatIsRead() throws {
        let meta = SessionMetadata(version: 3, createdAt: Date(timeIntervalSince1970: 1000), lastUse: Date(timeIntervalSince1970: 2000),
                                   changedFilters: [], ttl: .seconds(60), views: SessionMetadata.Views(key: 1, serial: 0))
        var bytes = meta.encoded
        #expect(bytes[0] == 5)
        #expect(SessionMetadata(bytes) == meta)
        bytes[0] = 4
        bytes.removeLast(14)  // format 4 ends after the views: no name, owner, labels or token cut-off
        #expect(SessionMetadata(bytes) == meta)
        bytes[0] = 3
        bytes.removeLast(20)  // format 3 ends after the flags: no views
        let withoutViews = try #require(SessionMetadata(bytes))
        #expect(withoutViews.views == nil && withoutViews.ttl == .seconds(60) && !withoutViews.doublesPathBackslashes)
        bytes[0] = 2
        bytes.removeLast(1)  // format 2 ends after the TTL
        let former = try #require(SessionMetadata(bytes))
        #expect(former.ttl == .seconds(60) && former.doublesPathBackslashes, "a session stored before keeps its ids' spelling")
        bytes[0] = 1
        bytes.removeLast(8)  // format 1 ends after the views
        let old = try #require(SessionMetadata(bytes))
        #expect(old.ttl == nil && old.version == 3 && old.doublesPathBackslashes)
    }
}

extension DurabilityTests {
    /// A session's own TTL survives a restart: one that never expires stays, one of a minute
    /// expired while the server was down.
    @Test func aSessionsOwnTTLSurvivesARestart() throws {
        var forever = "", minute = ""
        try withService { h in
            forever = h.call("POST", "/sessions", json: #"{"nodes": [{"title": "A"}], "ttl": 0}"#)["id"]!.stringValue!
            minute = h.call("POST", "/sessions", json: #"{"nodes": [{"title": "A"}], "ttl": 60}"#)["id"]!.stringValue!
        }
        clock.advance(.seconds(3600))
        try withService { h in
            #expect(h.call("GET", "/sessions/\(forever)")["ttl"]?.intValue == 0)
            #expect(h.call("GET", "/sessions/\(minute)").status == 404)
        }
    }
}
