import Testing
import TreeEngine
import TreeFormats
@testable import TreeService

/// Integer members of request bodies take any JSON number whose value is an integer
/// (`2`, `2.0`, `2e0`, `20e-1`), as JSON Schema's `type: integer` does; `2.5` stays 422.
@Suite struct IntegralNumberTests {
    let h = ServiceHarness()

    @Test(arguments: ["1", "1.0", "1e0", "10e-1", "0.1e1", "1.000"])
    func expandOnCreate(depth: String) {
        let reply = h.call("POST", "/sessions", json: "{\"nodes\": \(ServiceHarness.sampleNodes), \"expand\": \(depth)}")
        #expect(reply.status == 201, "\(reply.text)")
        #expect(reply["total"]?.intValue == 5 + 3 + 4 + 4 + 2 + 1)
    }

    @Test(arguments: ["1", "1.0", "1E+0", "100e-2"])
    func expandDepth(depth: String) {
        let sid = h.createSample()
        let reply = h.call("PATCH", "/sessions/\(sid)", json: "{\"expandDepth\": \(depth)}")
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply["total"]?.intValue == 19)
    }

    @Test(arguments: ["0", "0.0", "-0.0", "0e5", "0.0e-3"])
    func moveIndex(index: String) {
        let sid = h.createSample(expand: "\"all\"")
        let reply = h.call("PATCH", "/sessions/\(sid)/items/1.1.1", json: "{\"parentId\": null, \"index\": \(index)}")
        #expect(reply.status == 200, "\(reply.text)")
        #expect(h.call("GET", "/sessions/\(sid)/items/1.1.1")["index"]?.intValue == 0)
    }

    @Test(arguments: ["0", "0.0", "0E0"])
    func insertIndex(index: String) {
        let sid = h.createSample(expand: "\"all\"")
        let reply = h.call("POST", "/sessions/\(sid)/items", json: "{\"nodes\": [{\"title\": \"x\"}], \"parentId\": \"4\", \"index\": \(index)}")
        #expect(reply.status == 201, "\(reply.text)")
        #expect(reply["index"]?.intValue == 34)
    }

    /// A session whose node 7 has an integer id, and whose node "7.0" has a string id
    /// that a number never names.
    func sessionWithIntegerIDs() -> String {
        let created = h.call("POST", "/sessions", json: """
            {"nodes": [{"title": "seven", "id": 7, "children": [{"title": "c", "id": 8}]}, {"title": "other", "id": "7.0"},
                       {"title": "big", "id": 9007199254740993}], "expand": "all"}
            """)
        precondition(created.status == 201, created.text)
        return created["id"]!.stringValue!
    }

    @Test(arguments: ["7", "7.0", "7e0", "70e-1", "0.7E1"])
    func itemIDsInBodies(id: String) {
        let sid = sessionWithIntegerIDs()
        let child = h.call("POST", "/sessions/\(sid)/items", json: "{\"nodes\": [{\"title\": \"under\"}], \"parentId\": \(id), \"index\": 1}")
        #expect(child.status == 201, "\(child.text)")
        #expect(child["index"]?.intValue == 2)
        let before = h.call("POST", "/sessions/\(sid)/items", json: "{\"nodes\": [{\"title\": \"b\"}], \"before\": \(id)}")
        #expect(before.status == 201, "\(before.text)")
        #expect(before["index"]?.intValue == 0)
        let after = h.call("POST", "/sessions/\(sid)/items", json: "{\"nodes\": [{\"title\": \"a\"}], \"after\": \(id)}")
        #expect(after.status == 201, "\(after.text)")
        #expect(after["index"]?.intValue == 4)
        let move = h.call("PATCH", "/sessions/\(sid)/items/7.0", json: "{\"parentId\": \(id), \"index\": 0}")
        #expect(move.status == 200, "\(move.text)")
        #expect(h.call("GET", "/sessions/\(sid)/items/7.0")["parentId"] == .number("7"))
    }

    /// Exactly, not through a `Double`: 2^53 + 1 names its own node.
    @Test func largeIntegralIDsAreExact() {
        let sid = sessionWithIntegerIDs()
        let reply = h.call("POST", "/sessions/\(sid)/items", json: "{\"nodes\": [{\"title\": \"x\"}], \"after\": 9007199254740993.0}")
        #expect(reply.status == 201, "\(reply.text)")
        #expect(h.call("POST", "/sessions/\(sid)/items", json: "{\"nodes\": [{\"title\": \"x\"}], \"after\": 9007199254740992.0}").status == 404)
    }

    @Test(arguments: [
        ("expandDepth", "1.5"), ("expandDepth", "-1.0"), ("expandDepth", "1e-1"), ("expandDepth", "1e400"),
        ("expandDepth", "9223372036854775808.0"),
    ])
    func fractionsAndOutOfRangeAreRefused(member: String, value: String) {
        let sid = h.createSample()
        let reply = h.call("PATCH", "/sessions/\(sid)", json: "{\"\(member)\": \(value)}")
        #expect(reply.status == 422, "\(reply.text)")
        #expect(reply["pointer"]?.stringValue == "/\(member)")
    }

    @Test func fractionalIDsAndIndexesAreRefused() {
        let sid = sessionWithIntegerIDs()
        #expect(h.call("POST", "/sessions", json: "{\"nodes\": [], \"expand\": 2.5}")["pointer"]?.stringValue == "/expand")
        for (body, pointer) in [("\"parentId\": 7.5", "/parentId"), ("\"before\": 7.1", "/before"), ("\"after\": 7e-1", "/after"),
                                ("\"parentId\": 7, \"index\": 0.5", "/index")] {
            let reply = h.call("POST", "/sessions/\(sid)/items", json: "{\"nodes\": [{\"title\": \"x\"}], \(body)}")
            #expect(reply.status == 422, "\(body): \(reply.text)")
            #expect(reply["pointer"]?.stringValue == pointer, "\(body)")
        }
        let move = h.call("PATCH", "/sessions/\(sid)/items/8", json: "{\"parentId\": 7.5}")
        #expect(move.status == 422)
        #expect(move["pointer"]?.stringValue == "/parentId")
    }

    @Test(arguments: [
        ("0", 0), ("-0", 0), ("-0.0", 0), ("0e999999999999999999", 0), ("7", 7), ("7.0", 7), ("70e-1", 7), ("0.07e2", 7),
        ("9223372036854775807", Int.max), ("9223372036854775807.000", Int.max), ("922337203685477580.7e1", Int.max),
        ("-9223372036854775808", Int.min), ("-9223372036854775808.0", Int.min), ("1E18", 1_000_000_000_000_000_000),
    ])
    func integralTexts(text: String, value: Int) {
        #expect(JSONValue.number(text).intValue == value)
    }

    @Test(arguments: ["2.5", "1e-1", "0.5e0", "9223372036854775808", "-9223372036854775809", "1e19", "1e999999999999", "7.000001",
                      "", "-", "1.", ".5", "1e", "1e+", "x", "1 "])
    func otherTexts(text: String) {
        #expect(JSONValue.number(text).intValue == nil)
    }
}
