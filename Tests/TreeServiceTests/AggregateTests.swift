import Testing
import TreeEngine
import TreeFormats
@testable import TreeService

/// Issue 37: `aggregate=` on rows pages: each row's descendants counted, a data field's
/// numbers summed, their minimum, maximum and average, kept right through edits.
@Suite struct AggregateTests {
    let h = ServiceHarness()

    static let tree = #"""
    {"nodes": [
      {"id": "docs", "title": "docs", "data": {"size": 0}, "children": [
        {"id": "a", "title": "a", "data": {"size": 1500000.5}},
        {"id": "b", "title": "b", "data": {"size": "12"}},
        {"id": "sub", "title": "sub", "data": {"size": null}, "children": [{"id": "c", "title": "c", "data": {"size": 8}}]}
      ]},
      {"id": "e", "title": "e"}
    ]}
    """#

    func create() -> String {
        let reply = h.call("POST", "/sessions", json: Self.tree)
        precondition(reply.status == 201, reply.text)
        return reply["id"]!.stringValue!
    }

    /// The aggregates of the row of `id` in the page of `query`.
    func aggregates(_ sid: String, _ query: String, of id: String) -> JSONValue? {
        let reply = h.call("GET", "/sessions/\(sid)/rows?\(query)&limit=100")
        #expect(reply.status == 200, "\(query): \(reply.text)")
        return reply["rows"]?.array?.first { $0["id"]?.stringValue == id }?["aggregates"]
    }

    @Test func aFoldersDescendants() {
        let sid = create()
        let all = "aggregate=" + PathSegment.encode("count,sum:data.size,min:data.size,max:data.size,avg:data.size")
        let docs = aggregates(sid, all, of: "docs")
        #expect(docs?["count"]?.intValue == 4)
        #expect(docs?["sum:data.size"]?["value"]?.doubleValue == 1500020.5)
        #expect(docs?["sum:data.size"]?["count"]?.intValue == 3, "null is no number; \"12\" is")
        #expect(docs?["min:data.size"]?["value"]?.doubleValue == 8)
        #expect(docs?["max:data.size"]?["value"]?.doubleValue == 1500000.5)
        #expect(docs?["avg:data.size"]?["value"]?.doubleValue == 1500020.5 / 3)
        // A leaf: nothing below it; a sum of none is 0, the others null.
        let e = aggregates(sid, all, of: "e")
        #expect(e?["count"]?.intValue == 0)
        #expect(e?["sum:data.size"]?["value"]?.doubleValue == 0)
        #expect(e?["min:data.size"]?["value"]?.isNull == true)
        #expect(e?["avg:data.size"]?["count"]?.intValue == 0)
        // In filtered rows too, over the whole subtree (not only the matches), and in a view.
        let filtered = aggregates(sid, "filter=sub&" + all, of: "docs")
        #expect(filtered?["count"]?.intValue == 4)
        let view = h.call("POST", "/sessions/\(sid)/views", json: "{}")
        #expect(view.status == 201, "\(view.text)")
        let vid = view["id"]!.stringValue!
        let reply = h.call("GET", "/sessions/\(sid)/views/\(vid)/rows?aggregate=count")
        #expect(reply["rows"]?.array?.first?["aggregates"]?["count"]?.intValue == 4)
        // Rows without the parameter carry none.
        #expect(h.call("GET", "/sessions/\(sid)/rows")["rows"]?.array?.first?["aggregates"] == nil)
    }

    @Test func editsBelowChangeThem() {
        let sid = create()
        let query = "aggregate=" + PathSegment.encode("count,sum:data.size")
        #expect(aggregates(sid, query, of: "docs")?["sum:data.size"]?["value"]?.doubleValue == 1500020.5)
        // Data changed, a node inserted, one moved out, one deleted.
        #expect(h.call("PATCH", "/sessions/\(sid)/items/a", json: #"{"data": {"size": 100}}"#).status == 200)
        #expect(aggregates(sid, query, of: "docs")?["sum:data.size"]?["value"]?.doubleValue == 120)
        #expect(h.call("POST", "/sessions/\(sid)/items",
                       json: #"{"parentId": "sub", "nodes": [{"id": "n", "title": "n", "data": {"size": 1000}}]}"#).status == 201)
        let docs = aggregates(sid, query, of: "docs")
        #expect(docs?["count"]?.intValue == 5)
        #expect(docs?["sum:data.size"]?["value"]?.doubleValue == 1120)
        #expect(h.call("PATCH", "/sessions/\(sid)/items/sub", json: #"{"parentId": null}"#).status == 200)
        #expect(aggregates(sid, query, of: "docs")?["count"]?.intValue == 2)
        #expect(aggregates(sid, query, of: "sub")?["sum:data.size"]?["value"]?.doubleValue == 1008)
        #expect(h.call("DELETE", "/sessions/\(sid)/items/c").status == 200)
        #expect(aggregates(sid, query, of: "sub")?["sum:data.size"]?["count"]?.intValue == 1)
        // A batch that fails half way changes nothing, the aggregates included.
        let batch = h.call("POST", "/sessions/\(sid)/batch", json: #"{"operations": [{"op": "update", "id": "n", "data": {"size": 5}}, {"op": "delete", "id": "nope"}]}"#)
        #expect(batch.status == 404 || batch.status == 422, "\(batch.text)")
        #expect(aggregates(sid, query, of: "sub")?["sum:data.size"]?["value"]?.doubleValue == 1000)
    }

    @Test func badAggregatesAnswer400() {
        let sid = create()
        let bad: [(String, String)] = [
            ("sum:title", "not the title"), ("total", "not an aggregate"), ("sum", "expected ':'"), ("sum:size", "not a field"),
            ("count,count", "twice"), ("count,", "not an aggregate"), ("count:data.x", "expected ',' or the end"),
        ]
        for (value, detail) in bad {
            let reply = h.call("GET", "/sessions/\(sid)/rows?aggregate=" + PathSegment.encode(value))
            #expect(reply.status == 400, "\(value)")
            #expect(reply["detail"]?.stringValue?.contains(detail) == true, "\(value): \(reply.text)")
        }
        #expect(h.call("GET", "/sessions/\(sid)/items/docs?aggregate=count").status == 400, "only rows pages take it")
    }
}
