import Testing
import TreeEngine
@testable import TreeService

/// Every endpoint in process: statuses, bodies, headers.
@Suite struct RouteTests {
    let h = ServiceHarness()

    @Test func createFromSampleGivesSummaryAndLocation() {
        let reply = h.call("POST", "/sessions", json: String(decoding: ServiceHarness.sample, as: UTF8.self))
        #expect(reply.status == 201)
        let id = reply["id"]!.stringValue!
        #expect(id.utf8.count == 22)
        #expect(reply.headers["location"] == "/sessions/\(id)")
        #expect(reply["version"]?.intValue == 1)
        #expect(reply["nodeCount"]?.intValue == 38)
        #expect(reply["total"]?.intValue == 5)
        #expect(reply["createdAt"]?.stringValue?.hasSuffix("Z") == true)
        let summary = h.call("GET", "/sessions/\(id)")
        #expect(summary.status == 200)
        #expect(summary["nodeCount"]?.intValue == 38)
        #expect(summary.headers["etag"] == "\"1\"")
    }

    @Test func createFromBareArrayAndExpandOptions() {
        let bare = h.call("POST", "/sessions", json: ServiceHarness.sampleNodes)
        #expect(bare.status == 201)
        let all = h.call("POST", "/sessions", json: "{\"nodes\": \(ServiceHarness.sampleNodes), \"expand\": \"all\"}")
        #expect(all["total"]?.intValue == 38)
        let depth1 = h.call("POST", "/sessions", json: "{\"nodes\": \(ServiceHarness.sampleNodes), \"expand\": 1}")
        #expect(depth1["total"]?.intValue == 5 + 3 + 4 + 4 + 2 + 1)
        let bad = h.call("POST", "/sessions", json: "{\"nodes\": [], \"expand\": \"some\"}")
        #expect(bad.status == 422)
        #expect(bad["pointer"]?.stringValue == "/expand")
        let unknown = h.call("POST", "/sessions", json: "{\"nodes\": [], \"colour\": 1}")
        #expect(unknown.status == 422)
    }

    @Test func badBodiesAreRejectedWithLocation() {
        let before = h.service.sessionCount
        let wrongType = h.call("POST", "/sessions", json: "[]", contentType: "application/xml")
        #expect(wrongType.status == 415)
        #expect(wrongType.headers["content-type"] == "application/problem+json")
        let malformed = h.call("POST", "/sessions", json: "[{\"title\": \"a\",]")
        #expect(malformed.status == 400)
        #expect(malformed["byteOffset"]?.intValue == 15)
        #expect(malformed["type"]?.stringValue == "urn:treesessions:problem:malformed-json")
        let noTitle = h.call("POST", "/sessions", json: "[{\"title\": \"a\", \"children\": [{\"id\": 1}]}]")
        #expect(noTitle.status == 422)
        #expect(noTitle["pointer"]?.stringValue == "/0/children/0")
        let duplicate = h.call("POST", "/sessions", json: "[{\"title\": \"a\", \"id\": 42}, {\"title\": \"b\", \"id\": \"42\"}]")
        #expect(duplicate.status == 422)
        #expect(duplicate["detail"]?.stringValue?.contains("42") == true)
        let badID = h.call("POST", "/sessions", json: "[{\"title\": \"a\", \"id\": 1.5}]")
        #expect(badID.status == 422)
        #expect(h.service.sessionCount == before)
    }

    @Test(arguments: [
        ("Compositional", 1, 1), ("Supp", 3, 1), ("Gr", 8, 5), ("Grid", 5, 3),
        ("Li", 9, 8), ("L", 23, 22), ("Ce", 8, 6),
    ])
    func seedFilterExamplesOverHTTP(text: String, visible: Int, matches: Int) {
        let sid = h.createSample()
        let reply = h.call("GET", "/sessions/\(sid)/rows?filter=\(text)&limit=0")
        #expect(reply.status == 200)
        #expect(reply["total"]?.intValue == visible)
        #expect(reply["matchCount"]?.intValue == matches)
        #expect(reply["filter"]?.stringValue == text)
        #expect(reply["rows"]?.array?.isEmpty == true)
    }

    @Test func rowsPaging() {
        let sid = h.createSample(expand: "\"all\"")
        let page = h.call("GET", "/sessions/\(sid)/rows?offset=2&limit=3")
        #expect(page.status == 200)
        let rows = page["rows"]!.array!
        #expect(rows.count == 3)
        #expect(rows[0]["index"]?.intValue == 2)
        #expect(rows[0]["id"]?.stringValue == "1.1.1")
        #expect(rows[0]["level"]?.intValue == 2)
        #expect(rows[0]["parentId"]?.stringValue == "1.1")
        #expect(rows[0]["match"] == nil)
        #expect(page["matchCount"] == nil)
        #expect(h.call("GET", "/sessions/\(sid)/rows")["rows"]?.array?.count == 38)
        #expect(h.call("GET", "/sessions/\(sid)/rows?offset=1000")["rows"]?.array?.isEmpty == true)
        #expect(h.call("GET", "/sessions/\(sid)/rows?limit=1001").status == 400)
        #expect(h.call("GET", "/sessions/\(sid)/rows?offset=-1").status == 400)
        #expect(h.call("GET", "/sessions/\(sid)/rows?offset=x").status == 400)
        #expect(h.call("GET", "/sessions/\(sid)/rows?match=regex&filter=a").status == 400)
        #expect(h.call("GET", "/sessions/\(sid)/rows?caseSensitive=yes&filter=a").status == 400)
    }

    @Test func filteredRowsCarryMatchRanges() {
        let sid = h.createSample()
        let reply = h.call("GET", "/sessions/\(sid)/rows?filter=sections&match=contains")
        let rows = reply["rows"]!.array!
        let matched = rows.filter { $0["match"]?.boolValue == true }
        #expect(!matched.isEmpty)
        for row in matched { #expect(row["matchRanges"]?.array?.isEmpty == false) }
        let caseSensitive = h.call("GET", "/sessions/\(sid)/rows?filter=sections&caseSensitive=true")
        #expect(caseSensitive["matchCount"]?.intValue == 0)
        let prefix = h.call("GET", "/sessions/\(sid)/rows?filter=grid&match=prefix")
        #expect(prefix["matchCount"]?.intValue == 1)
        let exact = h.call("GET", "/sessions/\(sid)/rows?filter=Orthogonal%20Sections&match=exact")
        #expect(exact["matchCount"]?.intValue == 2)
    }

    @Test func etagAndConditionalRequests() {
        let sid = h.createSample()
        let first = h.call("GET", "/sessions/\(sid)/rows")
        let etag = first.headers["etag"]!
        #expect(etag == "\"1\"")
        #expect(h.call("GET", "/sessions/\(sid)/rows", headers: [("If-None-Match", etag)]).status == 304)
        let stale = h.call("PATCH", "/sessions/\(sid)/items/1", json: "{\"expanded\": true}", headers: [("If-Match", "\"7\"")])
        #expect(stale.status == 412)
        #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == 1)
        let fresh = h.call("PATCH", "/sessions/\(sid)/items/1", json: "{\"expanded\": true}", headers: [("If-Match", etag)])
        #expect(fresh.status == 200)
        #expect(fresh["version"]?.intValue == 2)
        #expect(h.call("GET", "/sessions/\(sid)/rows", headers: [("If-None-Match", etag)]).status == 200)
    }

    @Test func expandCollapseRevealAndRecursive() {
        let sid = h.createSample()
        let expand = h.call("PATCH", "/sessions/\(sid)/items/2", json: "{\"expanded\": true}")
        #expect(expand["changes"] == .array([.object([("index", .number("2")), ("removed", .number("0")), ("inserted", .number("4"))])]))
        #expect(expand["total"]?.intValue == 9)
        #expect(expand["index"]?.intValue == 1)
        let collapse = h.call("PATCH", "/sessions/\(sid)/items/2", json: "{\"expanded\": false}")
        #expect(collapse["total"]?.intValue == 5)
        let reveal = h.call("PATCH", "/sessions/\(sid)/items/1.2.4.2", json: "{\"reveal\": true}")
        #expect(reveal["index"]?.intValue != nil)
        #expect(reveal["version"]?.intValue == 4)
        let recursive = h.call("PATCH", "/sessions/\(sid)/items/1", json: "{\"expanded\": true, \"recursive\": true}")
        #expect(recursive.status == 200)
        #expect(h.call("GET", "/sessions/\(sid)/items/1.2.1")["expanded"]?.boolValue == true)
        #expect(h.call("PATCH", "/sessions/\(sid)/items/1", json: "{\"expanded\": \"yes\"}").status == 422)
        #expect(h.call("PATCH", "/sessions/\(sid)/items/1", json: "{\"expanded\": true, \"title\": \"x\"}").status == 422)
        #expect(h.call("PATCH", "/sessions/\(sid)/items/1", json: "{}").status == 422)
        #expect(h.call("PATCH", "/sessions/\(sid)/items/nope", json: "{\"expanded\": true}").status == 404)
    }

    @Test func aChangedViewDroppedFromTheCacheComesBackAsAChange() {
        let sid = h.createSample()
        #expect(h.call("PATCH", "/sessions/\(sid)/items/1.2?filter=Supp", json: "{\"expanded\": false}")["version"]?.intValue == 2)
        #expect(h.call("GET", "/sessions/\(sid)/rows?filter=Supp&limit=0")["total"]?.intValue == 2)
        // Four other filters push the changed view out of the cache (it keeps four).
        for text in ["a", "b", "c", "d"] { _ = h.call("GET", "/sessions/\(sid)/rows?filter=\(text)&limit=0") }
        #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == 2)
        let rebuilt = h.call("GET", "/sessions/\(sid)/rows?filter=Supp&limit=0", headers: [("If-None-Match", "\"2\"")])
        #expect(rebuilt.status == 200)
        #expect(rebuilt["total"]?.intValue == 3)
        #expect(rebuilt["version"]?.intValue == 3)
        // An unchanged view that is rebuilt is the same view: no change.
        for text in ["e", "f", "g", "h"] { _ = h.call("GET", "/sessions/\(sid)/rows?filter=\(text)&limit=0") }
        #expect(h.call("GET", "/sessions/\(sid)/rows?filter=Supp&limit=0")["version"]?.intValue == 3)
    }

    @Test func notModifiedEverywhereThereIsAnETag() {
        let sid = h.createSample()
        #expect(h.call("GET", "/sessions/\(sid)", headers: [("If-None-Match", "\"1\"")]).status == 304)
        #expect(h.call("GET", "/sessions/\(sid)/items/1", headers: [("If-None-Match", "\"1\"")]).status == 304)
        #expect(h.call("GET", "/sessions/\(sid)/tree", headers: [("If-None-Match", "W/\"1\"")]).status == 304)
        #expect(h.call("GET", "/sessions/\(sid)/items/1", headers: [("If-None-Match", "\"2\"")]).status == 200)
    }

    @Test func viewsHaveTheirOwnExpansion() {
        let sid = h.createSample()
        _ = h.call("PATCH", "/sessions/\(sid)/items/1.2?filter=Supp", json: "{\"expanded\": false}")
        #expect(h.call("GET", "/sessions/\(sid)/rows?filter=Supp&limit=0")["total"]?.intValue == 2)
        #expect(h.call("GET", "/sessions/\(sid)/rows?limit=0")["total"]?.intValue == 5)
        #expect(h.call("GET", "/sessions/\(sid)/items/1.2?filter=Supp")["expanded"]?.boolValue == false)
        #expect(h.call("GET", "/sessions/\(sid)/items/1.2")["expanded"]?.boolValue == false)
        #expect(h.call("GET", "/sessions/\(sid)/items/1?filter=Supp")["expanded"]?.boolValue == true)
        #expect(h.call("GET", "/sessions/\(sid)/items/1")["expanded"]?.boolValue == false)
    }

    @Test func bulkExpansion() {
        let sid = h.createSample()
        let all = h.call("PATCH", "/sessions/\(sid)", json: "{\"expandAll\": true}")
        #expect(all["total"]?.intValue == 38)
        let none = h.call("PATCH", "/sessions/\(sid)", json: "{\"collapseAll\": true}")
        #expect(none["total"]?.intValue == 5)
        #expect(none["changes"]?.array?.count == 5)
        let depth = h.call("PATCH", "/sessions/\(sid)", json: "{\"expandDepth\": 1}")
        #expect(depth["total"]?.intValue == 19)
        #expect(h.call("PATCH", "/sessions/\(sid)", json: "{\"expandDepth\": -1}").status == 422)
        #expect(h.call("PATCH", "/sessions/\(sid)", json: "{\"expandAll\": true, \"collapseAll\": true}").status == 422)
        #expect(h.call("PATCH", "/sessions/\(sid)", json: "[]").status == 422)
        #expect(h.call("PATCH", "/sessions/\(sid)", json: "{").status == 400)
    }

    @Test func insertsWithEveryPlacement() {
        let sid = h.createSample(expand: "\"all\"")
        let appended = h.call("POST", "/sessions/\(sid)/items", json: "{\"nodes\": [{\"title\": \"new root\"}]}")
        #expect(appended.status == 201)
        #expect(appended["changes"] == .array([.object([("index", .number("38")), ("removed", .number("0")), ("inserted", .number("1"))])]))
        let generated = appended["ids"]!.array![0].stringValue!
        #expect(appended.headers["location"] == "/sessions/\(sid)/items/\(PathSegment.encode(generated))")
        #expect(h.call("GET", "/sessions/\(sid)/items/\(generated)")["title"]?.stringValue == "new root")
        let child = h.call("POST", "/sessions/\(sid)/items", json: "{\"nodes\": [{\"title\": \"first\", \"id\": 7}], \"parentId\": \"4\", \"index\": 0}")
        #expect(child["index"]?.intValue == 34)
        #expect(child["ids"] == .array([.number("7")]))
        let before = h.call("POST", "/sessions/\(sid)/items", json: "{\"nodes\": [{\"title\": \"b\"}], \"before\": 7}")
        #expect(before["index"]?.intValue == 34)
        let after = h.call("POST", "/sessions/\(sid)/items", json: "{\"nodes\": [{\"title\": \"a\"}], \"after\": \"1\"}")
        #expect(h.call("GET", "/sessions/\(sid)/items/1")["index"]?.intValue == 0)
        #expect(after["index"]?.intValue == 21)
        let version = h.call("GET", "/sessions/\(sid)")["version"]?.intValue
        #expect(h.call("POST", "/sessions/\(sid)/items", json: "{\"nodes\": [{\"title\": \"x\", \"id\": \"1\"}]}").status == 422)
        #expect(h.call("POST", "/sessions/\(sid)/items", json: "{\"nodes\": [{\"title\": \"x\"}], \"parentId\": \"1\", \"index\": 9}").status == 422)
        #expect(h.call("POST", "/sessions/\(sid)/items", json: "{\"nodes\": [{\"title\": \"x\"}], \"parentId\": \"zz\"}").status == 404)
        #expect(h.call("POST", "/sessions/\(sid)/items", json: "{\"nodes\": [{\"title\": \"x\"}], \"before\": \"1\", \"index\": 0}").status == 422)
        #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == version)
        #expect(h.call("GET", "/sessions/\(sid)")["nodeCount"]?.intValue == 42)
    }

    @Test func moveUpdateDelete() {
        let sid = h.createSample(expand: "\"all\"")
        let cycle = h.call("PATCH", "/sessions/\(sid)/items/1", json: "{\"parentId\": \"1.1\", \"index\": 0}")
        #expect(cycle.status == 409)
        let badIndex = h.call("PATCH", "/sessions/\(sid)/items/1.1.1", json: "{\"parentId\": \"2\", \"index\": 99}")
        #expect(badIndex.status == 422)
        let move = h.call("PATCH", "/sessions/\(sid)/items/1.1.1", json: "{\"parentId\": null, \"index\": 0}")
        #expect(move.status == 200)
        #expect(h.call("GET", "/sessions/\(sid)/items/1.1.1")["index"]?.intValue == 0)
        #expect(h.call("GET", "/sessions/\(sid)/items/1.1.1")["level"]?.intValue == 0)
        let update = h.call("PATCH", "/sessions/\(sid)/items/2", json: "{\"title\": \"Renamed\", \"data\": {\"k\": [1, 2]}}")
        #expect(update.status == 200)
        let item = h.call("GET", "/sessions/\(sid)/items/2")
        #expect(item["title"]?.stringValue == "Renamed")
        #expect(item["data"] == .object([("k", .array([.number("1"), .number("2")]))]))
        #expect(h.call("PATCH", "/sessions/\(sid)/items/2", json: "{\"title\": 5}").status == 422)
        let delete = h.call("DELETE", "/sessions/\(sid)/items/1")
        #expect(delete.status == 200)
        #expect(delete["index"] == .null)
        #expect(h.call("GET", "/sessions/\(sid)/items/1.1").status == 404)
        #expect(h.call("GET", "/sessions/\(sid)")["nodeCount"]?.intValue == 38 - 20)
        #expect(h.call("DELETE", "/sessions/\(sid)").status == 204)
        #expect(h.call("GET", "/sessions/\(sid)").status == 404)
        #expect(h.call("DELETE", "/sessions/\(sid)").status == 404)
    }

    @Test func oddIDsInURLs() {
        let ids = ["a/b", "with space", "100%", "ünï😀", "~0", "-5"]
        let nodes = ids.map { "{\"title\": \"t\", \"id\": \"\($0)\"}" }.joined(separator: ",") + ", {\"title\": \"int\", \"id\": 12}"
        let created = h.call("POST", "/sessions", json: "[\(nodes)]")
        #expect(created.status == 201)
        let sid = created["id"]!.stringValue!
        for id in ids {
            let encoded = PathSegment.encode(id)
            let reply = h.call("GET", "/sessions/\(sid)/items/\(encoded)")
            #expect(reply.status == 200, "id \(id)")
            #expect(reply["id"]?.stringValue == id)
        }
        let integer = h.call("GET", "/sessions/\(sid)/items/12")
        #expect(integer["id"] == .number("12"))
        #expect(h.call("GET", "/sessions/\(sid)/items/%zz").status != 200)
    }

    @Test func methodsAndRoutes() {
        let sid = h.createSample()
        let wrong = h.call("PUT", "/sessions/\(sid)")
        #expect(wrong.status == 405)
        #expect(wrong.headers["allow"] == "GET, HEAD, PATCH, DELETE, OPTIONS")
        #expect(h.call("PUT", "/sessions").status == 405)
        #expect(h.call("GET", "/nothing/here").status == 404)
        #expect(h.call("GET", "/sessions/unknown/rows").status == 404)
        #expect(h.call("HEAD", "/sessions/\(sid)/rows").status == 200)
        #expect(h.call("GET", "/healthz").status == 200)
        #expect(h.call("GET", "/openapi.yaml").text.hasPrefix("openapi: 3.1"))
        let metrics = h.call("GET", "/metrics").text
        #expect(metrics.contains("tree_http_requests_total{route=\"/sessions\",method=\"POST\",status=\"201\"}"))
        #expect(metrics.contains("tree_sessions 1"))
    }

    @Test func bearerTokenAndCORS() {
        let secured = ServiceHarness { $0.token = "s3cret"; $0.corsOrigins = ["https://app.example"] }
        #expect(secured.call("GET", "/healthz").status == 200)
        #expect(secured.call("GET", "/no/such/path").status == 401)
        #expect(secured.call("PUT", "/sessions").status == 401)
        let denied = secured.call("POST", "/sessions", json: "[]")
        #expect(denied.status == 401)
        #expect(denied.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        #expect(secured.call("POST", "/sessions", json: "[]", headers: [("Authorization", "Bearer wrong")]).status == 401)
        // The scheme is case-insensitive and may be followed by more than one space (RFC 9110 §11.1, §11.4).
        for header in ["bearer s3cret", "BEARER s3cret", "Bearer   s3cret"] {
            #expect(secured.call("POST", "/sessions", json: "[]", headers: [("Authorization", header)]).status == 201, "\(header)")
        }
        for header in ["Bearer", "Bearer ", "Basic s3cret", "Bearers3cret", "Bearer s3cre", "Bearer s3cretx", "Bear s3cret"] {
            #expect(secured.call("POST", "/sessions", json: "[]", headers: [("Authorization", header)]).status == 401, "\(header)")
        }
        let allowed = secured.call("POST", "/sessions", json: "[]", headers: [("Authorization", "Bearer s3cret"), ("Origin", "https://app.example")])
        #expect(allowed.status == 201)
        #expect(allowed.headers["access-control-allow-origin"] == "https://app.example")
        let preflight = secured.call("OPTIONS", "/sessions", headers: [("Origin", "https://app.example"), ("Access-Control-Request-Method", "POST")])
        #expect(preflight.status == 204)
        #expect(preflight.headers["access-control-allow-methods"]?.contains("POST") == true)
        let foreign = secured.call("OPTIONS", "/sessions", headers: [("Origin", "https://evil.example"), ("Access-Control-Request-Method", "POST")])
        #expect(foreign.headers["access-control-allow-origin"] == nil)
    }

    @Test func limitsAndExpiry() {
        let limited = ServiceHarness { $0.maxSessions = 2; $0.maxTotalNodes = 60; $0.sessionTTL = .seconds(100) }
        let a = limited.createSample()
        #expect(limited.call("POST", "/sessions", json: ServiceHarness.sampleNodes).status == 503)
        let b = limited.call("POST", "/sessions", json: "[{\"title\": \"x\"}]")
        #expect(b.status == 201)
        let third = limited.call("POST", "/sessions", json: "[{\"title\": \"y\"}]")
        #expect(third.status == 429)
        #expect(third.headers["retry-after"] != nil)
        limited.clock.advance(.seconds(60))
        #expect(limited.call("GET", "/sessions/\(a)").status == 200)
        limited.clock.advance(.seconds(60))
        #expect(limited.call("GET", "/sessions/\(a)").status == 200)
        limited.clock.advance(.seconds(101))
        #expect(limited.call("GET", "/sessions/\(a)").status == 404)
        #expect(limited.call("POST", "/sessions", json: "[{\"title\": \"z\"}]").status == 201)
        let perSession = ServiceHarness { $0.maxNodesPerSession = 10 }
        #expect(perSession.call("POST", "/sessions", json: ServiceHarness.sampleNodes).status == 429)
    }

    /// A path list's ids hold `/`; written raw in a URL they split the path, and the 404 says
    /// how to write them.
    @Test func anItemIDWithSlashesUnencodedIsAnsweredWithTheEncodedURL() {
        let sid = h.call("POST", "/sessions", json: "usr/lib/x\n", contentType: "text/plain")["id"]!.stringValue!
        let reply = h.call("GET", "/sessions/\(sid)/items/usr/lib/x")
        #expect(reply.status == 404)
        let encoded = "/sessions/\(sid)/items/usr%2Flib%2Fx"
        #expect(reply["detail"]?.stringValue == "no resource at /sessions/\(sid)/items/usr/lib/x: an item id containing \"/\" is "
            + "percent-encoded in the URL, \(encoded) for the item \"usr/lib/x\"")
        #expect(h.call("GET", encoded)["title"]?.stringValue == "x")
        #expect(h.call("GET", "/nowhere/at/all")["detail"]?.stringValue == "no resource at /nowhere/at/all")
    }
}
