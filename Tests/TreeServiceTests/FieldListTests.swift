import HTTP1
import Testing
import TreeFormats
@testable import TreeService

/// `GET /sessions/{sid}/fields` (issue 37): the fields the nodes carry, with counts and types,
/// checked against a count of the exported tree made here, after every kind of edit.
@Suite struct FieldListTests {
    /// The list as `field → [type or "count": n]`.
    static func listed(_ reply: ServiceHarness.Reply) -> [String: [String: Int]] {
        var out: [String: [String: Int]] = [:]
        for field in reply["fields"]?.array ?? [] {
            var counts = ["count": field["count"]!.intValue!]
            if case .object(let types)? = field["types"] {
                for (name, value) in types { counts[name] = value.intValue! }
            }
            out[field["field"]!.stringValue!] = counts
        }
        return out
    }

    /// The fields of the session's exported tree, counted by the rules of API.md.
    static func recount(_ h: ServiceHarness, _ sid: String) -> [String: [String: Int]] {
        var out: [String: [String: Int]] = [:]
        func add(_ path: String, _ type: String) {
            out[path, default: [:]]["count", default: 0] += 1
            out[path]![type, default: 0] += 1
        }
        func walk(_ value: JSONValue, _ path: String, _ depth: Int) {
            switch value {
            case .object(let members) where !members.isEmpty && depth < 8:
                for (name, member) in members {
                    let segment = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ".", with: "\\.")
                    walk(member, path + "." + segment, depth + 1)
                }
            case .object: add(path, "object")
            case .array: add(path, "array")
            case .string: add(path, "string")
            case .number: add(path, "number")
            case .bool: add(path, "boolean")
            case .null: add(path, "null")
            }
        }
        var nodes = 0
        func visit(_ list: JSONValue?) {
            for node in list?.array ?? [] {
                nodes += 1
                if let data = node["data"] { walk(data, "data", 0) }
                visit(node["children"])
            }
        }
        visit(h.call("GET", "/sessions/\(sid)/tree")["nodes"])
        out["title"] = ["count": nodes, "string": nodes]
        return out
    }

    @Test func theFieldsOfNestedData() throws {
        let h = ServiceHarness()
        let deep = String(repeating: #"{"d":"#, count: 10) + "1" + String(repeating: "}", count: 10)
        let nodes = #"[{"title":"a","data":{"size":3,"owner":{"name":"al","tags":["x"]},"a.b":true,"c\\d":null,"e":{}},"#
            + #""children":[{"title":"b","data":5},{"title":"c","data":{"size":"big","deep":"# + deep + "}}]}]"
        let created = h.call("POST", "/sessions", json: "{\"nodes\":\(nodes)}")
        #expect(created.status == 201, "\(created.text)")
        let sid = created["id"]!.stringValue!
        let reply = h.call("GET", "/sessions/\(sid)/fields")
        #expect(reply.status == 200)
        #expect(reply.text == #"{"version":1,"nodes":3,"fields":[{"field":"title","count":3,"types":{"string":3}},"#
            + #"{"field":"data","count":1,"types":{"number":1}},{"field":"data.a\\.b","count":1,"types":{"boolean":1}},"#
            + #"{"field":"data.c\\\\d","count":1,"types":{"null":1}},"#
            + #"{"field":"data.deep.d.d.d.d.d.d.d","count":1,"types":{"object":1}},{"field":"data.e","count":1,"types":{"object":1}},"#
            + #"{"field":"data.owner.name","count":1,"types":{"string":1}},{"field":"data.owner.tags","count":1,"types":{"array":1}},"#
            + #"{"field":"data.size","count":2,"types":{"string":1,"number":1}}],"truncated":false}"#)
        #expect(Self.listed(reply) == Self.recount(h, sid))
        // Revalidation, HEAD, and what is refused.
        let etag = try #require(reply.headers["ETag"])
        #expect(h.call("GET", "/sessions/\(sid)/fields", headers: [("If-None-Match", etag)]).status == 304)
        #expect(h.call("HEAD", "/sessions/\(sid)/fields").status == 200)
        #expect(h.call("GET", "/sessions/\(sid)/fields?limit=5").status == 400)
        #expect(h.call("GET", "/sessions/nope/fields").status == 404)
        #expect(h.call("POST", "/sessions/\(sid)/fields", json: "{}").status == 405)
    }

    @Test func theFieldsFollowEveryEdit() throws {
        let h = ServiceHarness()
        let created = h.call("POST", "/sessions", json: #"{"nodes":[{"id":"r","title":"r","data":{"size":1},"children":["#
            + #"{"id":"x","title":"x","data":{"size":2,"kind":"file"}},{"id":"y","title":"y","data":{"owner":{"name":"y"}},"children":["#
            + #"{"id":"z","title":"z","data":{"size":null}}]}]},{"id":"s","title":"s"}]}"#)
        let sid = created["id"]!.stringValue!
        var version = 1
        func check(_ what: String) {
            let reply = h.call("GET", "/sessions/\(sid)/fields")
            #expect(reply.status == 200, "\(what): \(reply.text)")
            #expect(Self.listed(reply) == Self.recount(h, sid), "\(what): \(reply.text)")
            let now = reply["version"]!.intValue!
            #expect(now >= version, "\(what)")
            version = now
        }
        check("upload")
        let edits: [(String, String, String?)] = [
            ("PATCH", "items/x", #"{"data":{"size":"2 KB","kind":"file","tags":[1]}}"#),
            ("PATCH", "items/s", #"{"data":7}"#),
            ("POST", "items", #"{"parentId":"s","nodes":[{"title":"n","data":{"owner":{"name":"n","mail":"n@x"}}}]}"#),
            ("PATCH", "items/y", #"{"parentId":"s","index":0}"#),
            ("DELETE", "items/y", nil),
            ("POST", "batch", #"{"operations":[{"op":"update","id":"r","data":{"size":10}},{"op":"delete","id":"x"}]}"#),
        ]
        for (method, path, body) in edits {
            let reply = h.call(method, "/sessions/\(sid)/\(path)", json: body)
            #expect([200, 201].contains(reply.status), "\(method) \(path): \(reply.text)")
            check("\(method) \(path)")
        }
        // A batch refused half way changes nothing, the fields neither.
        let before = h.call("GET", "/sessions/\(sid)/fields").text
        let refused = h.call("POST", "/sessions/\(sid)/batch", json: #"{"operations":[{"op":"update","id":"r","data":{"new":1}},{"op":"delete","id":"nope"}]}"#)
        #expect(refused.status == 404)
        #expect(h.call("GET", "/sessions/\(sid)/fields").text == before)
    }

    @Test func pastAThousandFieldsTheListIsTruncated() throws {
        let members = (0 ... 1000).map { "\"m\($0)\":\($0)" }.joined(separator: ",")
        let h = ServiceHarness()
        let sid = h.call("POST", "/sessions", json: "{\"nodes\":[{\"title\":\"wide\",\"data\":{\(members)}}]}")["id"]!.stringValue!
        let reply = h.call("GET", "/sessions/\(sid)/fields")
        #expect(reply["truncated"] == .bool(true))
        #expect(reply["fields"]?.array?.count == 1 + 1000, "title and the first 1,000 data fields")
    }
}
