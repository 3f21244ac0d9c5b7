import Foundation
import HTTP1
import HTTPTestSupport
import Testing
import TreeEngine
import TreeFormats
@testable import TreeService

/// Selection over HTTP (issue 36): the item and view `PATCH`es, the rows' fields, `GET
/// …/selection`, batches, isolation between views, refusals, and durability.
@Suite struct SelectionServiceTests {
    /// The ids of a `GET …/selection` page, and its `next`.
    static func selected(_ h: ServiceHarness, _ path: String) -> (ids: [String], next: String?) {
        let reply = h.call("GET", path)
        precondition(reply.status == 200, "\(path): \(reply.text)")
        return ((reply["items"]?.array ?? []).map { $0["id"]!.stringValue! }, reply["next"]?.stringValue)
    }

    /// A change response's `reload`, as [index, count] pairs.
    static func reload(_ change: ServiceHarness.Reply) -> [[Int]] {
        (change["reload"]?.array ?? []).map { [$0["index"]!.intValue!, $0["count"]!.intValue!] }
    }

    /// Rows by id: (selected, partial, selectedBelow), nil for a field absent.
    static func rowStates(_ h: ServiceHarness, _ path: String) -> [String: (Bool?, Bool?, Int?)] {
        var out: [String: (Bool?, Bool?, Int?)] = [:]
        for row in h.call("GET", path)["rows"]?.array ?? [] {
            out[row["id"]!.stringValue!] = (row["selected"]?.boolValue, row["partial"]?.boolValue, row["selectedBelow"]?.intValue)
        }
        return out
    }

    @Test func aViewSelectsItsOwnNodes() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let vid = ViewResourceTests.createView(h, sid, #"{"expand":"all"}"#)
        let at = "/sessions/\(sid)/views/\(vid)"
        let defaultVersion = ViewResourceTests.version(h, "/sessions/\(sid)")

        // Nothing selected: no selection fields.
        let before = h.call("GET", "\(at)/rows?limit=1000")
        #expect(before["selectedCount"] == nil && before["rows"]?.array?.first?["selected"] == nil)

        // Item 1 with its subtree (21 nodes): one version step, no splices, its rows to reload.
        let change = h.call("PATCH", "\(at)/items/1", json: #"{"selected":true}"#)
        #expect(change.status == 200, "\(change.text)")
        #expect(change["version"]?.intValue == 2 && change["changes"]?.array?.isEmpty == true)
        #expect(Self.reload(change) == [[0, 38]], "the view's first selection: each row gains the fields")
        let page = h.call("GET", "\(at)/rows?limit=1000")
        #expect(page["selectedCount"]?.intValue == 21)
        var states = Self.rowStates(h, "\(at)/rows?limit=1000")
        #expect(states["1"]! == (true, false, 20))
        #expect(states["1.1.1"]! == (true, nil, nil), "a leaf has no partial nor selectedBelow")
        #expect(states["2"]! == (false, false, 0))

        // 1.2 alone deselected: 1 is partial, 1.2's children stay selected; the rows of 1.2 and 1.
        let alone = h.call("PATCH", "\(at)/items/1.2", json: #"{"selected":false,"recursive":false}"#)
        #expect(alone.status == 200 && Self.reload(alone) == [[0, 1], [8, 1]], "\(Self.reload(alone))")
        states = Self.rowStates(h, "\(at)/rows?limit=1000")
        #expect(states["1"]! == (true, true, 19) && states["1.2"]! == (false, true, 9) && states["1.2.1"]! == (true, false, 3))
        // Rows 9 and 10 (1.2.1 and its first child), and the rows of their ancestors.
        let range = h.call("PATCH", at, json: #"{"selectRows":{"offset":9,"count":2,"selected":true}}"#)
        #expect(range.status == 200 && Self.reload(range) == [[0, 1], [8, 3]], "\(Self.reload(range))")
        // 1.2 with its subtree: the rows of 1.2, of its 9 descendants and of 1; then 1.2 alone back.
        let subtree = h.call("PATCH", "\(at)/items/1.2", json: #"{"selected":true}"#)
        #expect(subtree.status == 200 && Self.reload(subtree) == [[0, 1], [8, 10]], "\(Self.reload(subtree))")
        #expect(Self.reload(h.call("PATCH", "\(at)/items/1.2", json: #"{"selected":false,"recursive":false}"#)) == [[0, 1], [8, 1]])

        // The default view selects nothing, and its version did not move.
        #expect(h.call("GET", "/sessions/\(sid)/rows")["selectedCount"] == nil)
        #expect(ViewResourceTests.version(h, "/sessions/\(sid)") == defaultVersion)

        // The selection in tree order, paged, and its top-most nodes.
        let first = Self.selected(h, "\(at)/selection?limit=2")
        #expect(first.ids == ["1", "1.1"] && first.next == "1.1")
        #expect(Self.selected(h, "\(at)/selection?limit=2&after=1.1").ids == ["1.1.1", "1.1.2"])
        let top = Self.selected(h, "\(at)/selection?top=true&limit=100")
        #expect(top.ids == ["1", "1.2.1", "1.2.2", "1.2.3", "1.2.4"] && top.next == nil)
        let item = h.call("GET", "\(at)/selection?top=true&limit=1")["items"]!.array![0]
        #expect(item["title"]?.stringValue == "Compositional Layout" && item["index"]?.intValue == 0)
        // Hidden in filtered rows: index null there.
        #expect(h.call("GET", "\(at)/selection?limit=1&filter=Lists")["items"]?.array?[0]["index"] == .null)

        // Invert, select none, ranges of rows, select all.
        #expect(h.call("PATCH", at, json: #"{"invertSelection":true}"#).status == 200)
        #expect(h.call("GET", "\(at)/rows")["selectedCount"]?.intValue == 38 - 20, "38 nodes")
        #expect(h.call("PATCH", at, json: #"{"selectNone":true}"#).status == 200)
        #expect(h.call("GET", "\(at)/rows")["selectedCount"] == nil)
        #expect(h.call("PATCH", at, json: #"{"selectRows":{"offset":1,"count":2,"selected":true}}"#).status == 200)
        #expect(Self.selected(h, "\(at)/selection").ids == ["1.1", "1.1.1"], "rows 1 and 2: an expanded row alone, a leaf")
        #expect(h.call("PATCH", "\(at)?filter=Grid", json: #"{"selectAll":true}"#).status == 200)
        #expect(Self.selected(h, "\(at)/selection").ids == ["1.1", "1.1.1", "1.1.2", "1.1.3"], "the matches of Grid added")
        #expect(h.call("PATCH", at, json: #"{"selectAll":true}"#).status == 200)
        #expect(h.call("GET", "\(at)/rows")["selectedCount"]?.intValue == 38)
        #expect(ViewResourceTests.version(h, at) == 11, "ten changes")
    }

    @Test func aBatchSelectsAndRefusalsChangeNothing() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let body = #"{"operations":[{"op":"select","id":"2","selected":true},{"op":"select","id":"2.4","selected":false},"#
            + #"{"op":"selectRows","selectRows":{"offset":0,"count":1,"selected":true,"recursive":false}},{"op":"invertSelection"}]}"#
        let batch = h.call("POST", "/sessions/\(sid)/batch", json: body)
        #expect(batch.status == 200, "\(batch.text)")
        #expect(batch["version"]?.intValue == 2, "one step")
        // Selected: 2, 2.1-2.3 and (row 0, alone) 1; inverted, the 33 others.
        #expect(h.call("GET", "/sessions/\(sid)/rows")["selectedCount"]?.intValue == 38 - 5)
        let version = ViewResourceTests.version(h, "/sessions/\(sid)")
        let state = Self.selected(h, "/sessions/\(sid)/selection?limit=1000").ids
        for (path, json) in [
            ("items/1", #"{"selected":"yes"}"#), ("items/1", #"{"selected":true,"expanded":true}"#),
            ("items/nope", #"{"selected":true}"#),
            ("", #"{"selectAll":false}"#), ("", #"{"selectAll":true,"selectNone":true}"#),
            ("", #"{"selectRows":{"offset":-1,"count":2,"selected":true}}"#), ("", #"{"selectRows":{"offset":0,"selected":true}}"#),
            ("", #"{"selectRows":[0,2]}"#),
        ] {
            let reply = h.call("PATCH", "/sessions/\(sid)" + (path.isEmpty ? "" : "/\(path)"), json: json)
            #expect([404, 422].contains(reply.status), "\(path) \(json): \(reply.status) \(reply.text)")
        }
        let refused = h.call("POST", "/sessions/\(sid)/batch", json: #"{"operations":[{"op":"selectNone"},{"op":"select","id":"nope","selected":true}]}"#)
        #expect(refused.status == 404 && refused["pointer"]?.stringValue == "/operations/1/id")
        #expect(ViewResourceTests.version(h, "/sessions/\(sid)") == version)
        #expect(Self.selected(h, "/sessions/\(sid)/selection?limit=1000").ids == state)
    }
}

extension SelectionServiceTests {
    /// `deleteSelected` and `moveSelected` act on the view's top-most selected nodes, in tree
    /// order, in one batch with the other operations: all or nothing.
    @Test func aBatchActsOnTheSelection() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let vid = ViewResourceTests.createView(h, sid)
        let at = "/sessions/\(sid)/views/\(vid)"
        for (item, recursive) in [("1.1", true), ("1.3.2", true), ("2.4", false), ("3.2", true)] {
            #expect(h.call("PATCH", "\(at)/items/\(item)", json: "{\"selected\":true,\"recursive\":\(recursive)}").status == 200)
        }
        #expect(Self.selected(h, "\(at)/selection?top=true").ids == ["1.1", "1.3.2", "2.4", "3.2"])
        // Into a node of the selection: a cycle, nothing moved.
        let cycle = h.call("POST", "\(at)/batch", json: #"{"operations":[{"op":"moveSelected","parentId":"1.1.4"}]}"#)
        #expect(cycle.status == 409, "\(cycle.text)")
        let wide = h.call("POST", "\(at)/batch", json: #"{"operations":[{"op":"moveSelected","parentId":"4","index":3}]}"#)
        #expect(wide.status == 422 && wide["pointer"]?.stringValue == "/operations/0/index", "\(wide.text)")
        // Under 4, between its two children, in tree order; they stay selected.
        let moved = h.call("POST", "\(at)/batch", json: #"{"operations":[{"op":"moveSelected","parentId":"4","index":1}]}"#)
        #expect(moved.status == 200, "\(moved.text)")
        let children = h.call("GET", "/sessions/\(sid)/views/\(vid)/rows?limit=1000")  // 4 is collapsed here
        #expect(children.status == 200)
        _ = h.call("PATCH", "\(at)/items/4", json: #"{"expanded":true}"#)
        let rows = (h.call("GET", "\(at)/rows?limit=1000")["rows"]?.array ?? []).map { $0["id"]!.stringValue! }
        let four = rows.firstIndex(of: "4")!
        #expect(Array(rows[four + 1 ... four + 6]) == ["4.1", "1.1", "1.3.2", "2.4", "3.2", "4.2"])
        #expect(Self.selected(h, "\(at)/selection?top=true").ids == ["1.1", "1.3.2", "2.4", "3.2"])
        // Deleted with their subtrees (2.4's children were not selected: they go too).
        let count = h.call("GET", "/sessions/\(sid)/rows")
        let nodes = h.call("GET", "/sessions/\(sid)")["nodeCount"]!.intValue!
        #expect(count.status == 200)
        let deleted = h.call("POST", "\(at)/batch", json: #"{"operations":[{"op":"deleteSelected"}]}"#)
        #expect(deleted.status == 200, "\(deleted.text)")
        #expect(h.call("GET", "/sessions/\(sid)")["nodeCount"]?.intValue == nodes - (7 + 1 + 3 + 1))
        #expect(Self.selected(h, "\(at)/selection").ids.isEmpty)
        // A node whose parent is not selected but an ancestor is goes with that ancestor: 1
        // (1.1 and 1.3.2 are gone: 13 nodes left) with 1.2 deselected alone.
        #expect(h.call("PATCH", "\(at)/items/1", json: #"{"selected":true}"#).status == 200)
        #expect(h.call("PATCH", "\(at)/items/1.2", json: #"{"selected":false,"recursive":false}"#).status == 200)
        #expect(Self.selected(h, "\(at)/selection?top=true").ids == ["1", "1.2.1", "1.2.2", "1.2.3", "1.2.4"])
        let beforeNested = h.call("GET", "/sessions/\(sid)")["nodeCount"]!.intValue!
        #expect(h.call("POST", "\(at)/batch", json: #"{"operations":[{"op":"deleteSelected"}]}"#).status == 200)
        #expect(h.call("GET", "/sessions/\(sid)")["nodeCount"]?.intValue == beforeNested - 13, "1's whole subtree, once")
        // Another view's selection acts on its own nodes only.
        let left = h.call("GET", "/sessions/\(sid)")["nodeCount"]!.intValue!
        #expect(h.call("POST", "/sessions/\(sid)/batch", json: #"{"operations":[{"op":"deleteSelected"}]}"#).status == 200)
        #expect(h.call("GET", "/sessions/\(sid)")["nodeCount"]?.intValue == left, "the default view selects nothing")
    }
}

extension DurabilityTests {
    /// Selections survive restarts and crashes: the journal's records (set, all, none,
    /// invert, rows, in batches too) and the snapshot's image.
    @Test(arguments: [true, false])
    func selectionsComeBack(shutdown: Bool) throws {
        var sid = "", vid = "", before: [String] = []
        func state(_ h: ServiceHarness) -> [String] {
            ["/sessions/\(sid)", "/sessions/\(sid)/views/\(vid)"].flatMap { at in
                [h.call("GET", "\(at)/selection?limit=1000").text, h.call("GET", "\(at)/selection?limit=1000&top=true").text,
                 h.call("GET", "\(at)/rows?limit=1000").text]
            }
        }
        try withService(shutdown: shutdown) { h in
            sid = h.createSample()
            vid = ViewResourceTests.createView(h, sid, #"{"expand":1}"#)
            #expect(h.call("PATCH", "/sessions/\(sid)/items/1", json: #"{"selected":true}"#).status == 200)
            #expect(h.call("PATCH", "/sessions/\(sid)/items/1.1", json: #"{"selected":false,"recursive":false}"#).status == 200)
            #expect(h.call("PATCH", "/sessions/\(sid)/views/\(vid)", json: #"{"selectAll":true}"#).status == 200)
            #expect(h.call("PATCH", "/sessions/\(sid)/views/\(vid)/items/3", json: #"{"selected":false}"#).status == 200)
            #expect(h.call("POST", "/sessions/\(sid)/views/\(vid)/batch",
                           json: #"{"operations":[{"op":"selectRows","selectRows":{"offset":2,"count":2,"selected":false}},{"op":"invertSelection"}]}"#).status == 200)
            // An edit between: the new node takes its parent's state in each view.
            #expect(h.call("POST", "/sessions/\(sid)/items", json: #"{"nodes":[{"id":"n","title":"New"}],"parentId":"1.2"}"#).status == 201)
            // Acting on the selection, journaled as such.
            #expect(h.call("POST", "/sessions/\(sid)/batch", json: #"{"operations":[{"op":"select","id":"5","selected":true},{"op":"moveSelected","parentId":"3","index":1}]}"#).status == 200)
            #expect(h.call("POST", "/sessions/\(sid)/views/\(vid)/batch", json: #"{"operations":[{"op":"selectNone"},{"op":"select","id":"2.4","selected":true},{"op":"deleteSelected"}]}"#).status == 200)
            before = state(h)
        }
        try withService { h in #expect(state(h) == before) }
        // From a snapshot of the loaded session, then the journal after it.
        try withService(shutdown: false) { h in
            let session = try #require(h.service.registry.lookup(sid))
            try session.state.withLock { try h.service.writeSnapshot(session, &$0) }
            #expect(state(h) == before)
        }
        try withService { h in #expect(state(h) == before) }
    }
}

/// A view's expansion as a list of ids (issue 36): saved with `GET …/expansion`, set with
/// `PUT` (ids that name no item passed over and counted), surviving restarts.
@Suite struct ExpansionListTests {
    static func expanded(_ h: ServiceHarness, _ at: String) -> [String] {
        (h.call("GET", "\(at)/expansion")["expanded"]?.array ?? []).map { $0.stringValue! }
    }

    @Test func aUsersOpenFoldersAreSavedAndSetAgain() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let vid = ViewResourceTests.createView(h, sid)
        let at = "/sessions/\(sid)/views/\(vid)"
        #expect(Self.expanded(h, at).isEmpty)
        for item in ["1", "1.2", "1.2.4", "4"] { #expect(h.call("PATCH", "\(at)/items/\(item)", json: #"{"expanded":true}"#).status == 200) }
        #expect(h.call("PATCH", "\(at)/items/2.2", json: #"{"expanded":true}"#).status == 200, "a leaf: not listed")
        let saved = Self.expanded(h, at)
        #expect(saved == ["1", "1.2", "1.2.4", "4"])
        let rows = h.call("GET", "\(at)/rows?limit=1000")["rows"]!

        // Another day, in another view that starts expanded to depth 2: the same rows.
        let other = ViewResourceTests.createView(h, sid, #"{"expand":2}"#)
        let body = "{\"expanded\":[" + (saved + ["gone", "nope"]).map { "\"\($0)\"" }.joined(separator: ",") + "]}"
        let set = h.call("PUT", "/sessions/\(sid)/views/\(other)/expansion", json: body)
        #expect(set.status == 200, "\(set.text)")
        #expect(set["unknown"]?.intValue == 2 && set["version"]?.intValue == 2)
        #expect(h.call("GET", "/sessions/\(sid)/views/\(other)/rows?limit=1000")["rows"]! == rows)
        #expect(Self.expanded(h, "/sessions/\(sid)/views/\(other)") == saved)

        // The default view's, and integer ids.
        #expect(h.call("PUT", "/sessions/\(sid)/expansion", json: #"{"expanded":[1, "3"]}"#).status == 200)
        #expect(Self.expanded(h, "/sessions/\(sid)") == ["1", "3"])
        // Refused: not a list, not ids, other members; nothing changed.
        for body in [#"{"expanded":"1"}"#, #"{"expanded":[true]}"#, #"{"expanded":[],"x":1}"#, #"{}"#] {
            #expect(h.call("PUT", "/sessions/\(sid)/expansion", json: body).status == 422, "\(body)")
        }
        #expect(Self.expanded(h, "/sessions/\(sid)") == ["1", "3"])
        #expect(h.call("GET", "/sessions/\(sid)/views/0000000000000000/expansion").status == 404)
    }
}

extension DurabilityTests {
    @Test(arguments: [true, false])
    func aSetExpansionComesBack(shutdown: Bool) throws {
        var sid = "", vid = "", before = ""
        try withService(shutdown: shutdown) { h in
            sid = h.createSample()
            vid = ViewResourceTests.createView(h, sid)
            #expect(h.call("PUT", "/sessions/\(sid)/views/\(vid)/expansion", json: #"{"expanded":["1","1.1","gone"]}"#).status == 200)
            before = h.call("GET", "/sessions/\(sid)/views/\(vid)/rows?limit=1000").text
        }
        try withService { h in #expect(h.call("GET", "/sessions/\(sid)/views/\(vid)/rows?limit=1000").text == before) }
    }
}

/// Find without filtering (issue 36): `highlight` flags the matches in unfiltered rows and
/// pages them with their rows there.
@Suite struct HighlightTests {
    @Test func matchesAreFlaggedWithoutHidingAnything() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let vid = ViewResourceTests.createView(h, sid)
        let at = "/sessions/\(sid)/views/\(vid)"
        let plain = h.call("GET", "\(at)/rows?limit=1000")
        let lit = h.call("GET", "\(at)/rows?limit=1000&highlight=list")
        #expect(lit.status == 200 && lit["highlight"]?.stringValue == "list" && lit["filter"] == .null)
        #expect(lit["total"] == plain["total"], "nothing hidden")
        let rows = lit["rows"]!.array!
        let matching = rows.filter { $0["match"]?.boolValue == true }.map { $0["id"]!.stringValue! }
        #expect(matching == ["3"], "Lists, among the visible rows (the roots)")
        let ranges = rows.first { $0["id"]?.stringValue == "3" }?["matchRanges"]
        #expect(ranges.map { String(decoding: $0.serialize(), as: UTF8.self) } == "[[0,4]]")
        #expect(rows.allSatisfy { $0["match"] != nil && $0["matchesBelow"] == nil })
        // Case-sensitive: "List" is not "list".
        let sensitive = h.call("GET", "\(at)/rows?limit=1000&highlight=list&caseSensitive=true")["rows"]!.array!
        #expect(sensitive.allSatisfy { $0["match"]?.boolValue == false })
        // The matches in tree order, with their rows in the unfiltered rows (null while hidden:
        // the view shows the roots only).
        let matches = h.call("GET", "\(at)/matches?highlight=list&limit=10")
        #expect(matches.status == 200, "\(matches.text)")
        let found = matches["matches"]!.array!.map { ($0["id"]!.stringValue!, $0["index"]!.intValue) }
        #expect(found.map(\.0) == ["3", "3.1", "3.2", "3.3", "3.4", "4.2"])
        let index = { (id: String) in rows.first { $0["id"]?.stringValue == id }?["index"]?.intValue }
        #expect(found.map(\.1) == found.map { index($0.0) })
        #expect(found[0].1 == 2 && found.dropFirst().allSatisfy { $0.1 == nil }, "3 is row 2, the others are hidden")
        #expect(h.call("GET", "\(at)/rows?highlight=list&filter=list").status == 400)
        #expect(h.call("GET", "\(at)/matches").status == 400)
    }
}

extension SelectionServiceTests {
    /// `GET …/tree?selection=true` exports the view's selected nodes, each under its nearest
    /// selected ancestor, in every format; `/views/{vid}/tree` is the view's. (Over a socket:
    /// the harness does not run streamed bodies.)
    @Test func theSelectionIsExported() throws {
        try withServiceServer { _, port in
            let client = try HTTPTestClient(port: port)
            func call(_ method: String, _ target: String, _ json: String? = nil) throws -> HTTPTestResponse {
                try client.request(method, target, json: json.map { Array($0.utf8) })
            }
            func value(_ r: HTTPTestResponse) -> JSONValue { (try? JSONValue.parse(r.body)) ?? .null }
            let sid = value(try call("POST", "/sessions", String(decoding: ServiceHarness.sample, as: UTF8.self)))["id"]!.stringValue!
            let vid = value(try call("POST", "/sessions/\(sid)/views"))["id"]!.stringValue!
            #expect(try call("PATCH", "/sessions/\(sid)/views/\(vid)/items/1.2", #"{"selected":true}"#).status == 200)
            #expect(try call("PATCH", "/sessions/\(sid)/views/\(vid)/items/1.2.1", #"{"selected":false,"recursive":false}"#).status == 200)
            #expect(try call("PATCH", "/sessions/\(sid)/views/\(vid)/items/4.2", #"{"selected":true}"#).status == 200)
            func ids(_ value: JSONValue) -> [String] {
                (value.array ?? []).map { node in
                    let children = ids(node["children"] ?? .array([]))
                    return node["id"]!.stringValue! + (children.isEmpty ? "" : "(" + children.joined(separator: " ") + ")")
                }
            }
            let nodes = try call("GET", "/sessions/\(sid)/views/\(vid)/tree?selection=true")
            #expect(nodes.status == 200, "\(nodes.text)")
            // 1.2.1's children (selected, their parent not) go up to 1.2.
            #expect(ids(value(nodes)["nodes"]!) == ["1.2(1.2.1.1 1.2.1.2 1.2.1.3 1.2.2 1.2.3 1.2.4(1.2.4.1 1.2.4.2))", "4.2"])
            let csv = try call("GET", "/sessions/\(sid)/views/\(vid)/tree?selection=true&format=csv")
            #expect(csv.status == 200 && csv.text.split(whereSeparator: \.isNewline).count == 1 + 10, "\(csv.text)")
            // The default view selects nothing: an empty forest; the whole tree without `selection`.
            #expect(ids(value(try call("GET", "/sessions/\(sid)/tree?selection=true"))["nodes"]!).isEmpty)
            #expect(ids(value(try call("GET", "/sessions/\(sid)/views/\(vid)/tree"))["nodes"]!).count == 5)
            #expect(try call("GET", "/sessions/\(sid)/views/0000000000000000/tree").status == 404)
        }
    }
}
