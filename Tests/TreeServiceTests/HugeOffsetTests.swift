import Testing
@testable import TreeService

/// An offset near `Int.max` is a page past the end, never an overflow (a crash of the
/// server): found by Schemathesis with `offset=9223372036854775806&limit=50`.
@Suite struct HugeOffsetTests {
    static let huge = Int.max - 1

    @Test(arguments: ["/rows", "/rows?filter=e", "/rows?filter=e&positions=true", "/children", "/items/2/children",
                      "/items/2/children?filter=e", "/views/{vid}/rows", "/views/{vid}/rows?filter=e", "/views/{vid}/children"])
    func aPageFarPastTheEndIsEmpty(_ path: String) throws {
        let h = ServiceHarness()
        let sid = h.createSample(expand: "\"all\"")
        let vid = ViewResourceTests.createView(h, sid, #"{"expand": "all"}"#)
        let target = "/sessions/\(sid)" + path.replacingOccurrences(of: "{vid}", with: vid)
        let reply = h.call("GET", target + (path.contains("?") ? "&" : "?") + "offset=\(Self.huge)&limit=50")
        #expect(reply.status == 200, "\(target): \(reply.text)")
        let rows = reply["rows"] ?? reply["children"]
        #expect(rows == .array([]), "\(target): \(reply.text)")
    }

    @Test func otherListsFarPastTheEndAreEmpty() throws {
        let h = ServiceHarness()
        let sid = h.createSample(expand: "\"all\"")
        _ = ViewResourceTests.createView(h, sid)
        #expect(h.call("GET", "/sessions/\(sid)/views?offset=\(Self.huge)&limit=50")["views"] == .array([]))
        let select = h.call("PATCH", "/sessions/\(sid)", json: "{\"selectRows\": {\"offset\": \(Self.huge), \"count\": 50, \"selected\": true}}")
        #expect(select.status == 200, "\(select.text)")
        let filtered = h.call("PATCH", "/sessions/\(sid)?filter=e", json: "{\"selectRows\": {\"offset\": 2, \"count\": \(Int.max), \"selected\": true}}")
        #expect(filtered.status == 200, "\(filtered.text)")
    }
}
