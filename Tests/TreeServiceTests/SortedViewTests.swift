import Testing
import TreeEngine
@testable import TreeService

/// Issue 37: a view's sort is its state (`PATCH …/views/{vid}` `{"sort": …}`): its rows,
/// children pages and sibling places follow the sort; changing it keeps every node's
/// expansion and selection; edits land where the sort places them.
@Suite struct SortedViewTests {
    let h = ServiceHarness()

    /// Folders `f` (b10, a2, c1) and `g` (y, x), and a leaf `e`, with sizes.
    func create() -> (sid: String, vid: String) {
        let tree = #"{"nodes":[{"id":"f","title":"folder","data":{"size":5},"children":["#
            + #"{"id":"b10","title":"item 10","data":{"size":3}},{"id":"a2","title":"item 2","data":{"size":1}},"#
            + #"{"id":"c1","title":"Item 1","data":{"size":2}}]},"#
            + #"{"id":"g","title":"another","data":{"size":9},"children":[{"id":"y","title":"y"},{"id":"x","title":"x"}]},"#
            + #"{"id":"e","title":"end"}]}"#
        let reply = h.call("POST", "/sessions", json: tree)
        precondition(reply.status == 201, reply.text)
        let sid = reply["id"]!.stringValue!
        return (sid, ViewResourceTests.createView(h, sid, #"{"expand":"all"}"#))
    }

    func ids(_ reply: ServiceHarness.Reply, _ member: String = "rows") -> [String] {
        reply[member]?.array?.compactMap { $0["id"]?.stringValue } ?? []
    }

    @Test func sortingKeepsExpansionAndSelectionAndOrdersEveryRead() {
        let (sid, vid) = create()
        let view = "/sessions/\(sid)/views/\(vid)"
        #expect(h.call("PATCH", "\(view)/items/g", json: #"{"expanded":false}"#).status == 200)
        #expect(h.call("PATCH", "\(view)/items/a2", json: #"{"selected":true}"#).status == 200)
        #expect(ids(h.call("GET", "\(view)/rows")) == ["f", "b10", "a2", "c1", "g", "e"])
        let sorted = h.call("PATCH", view, json: #"{"sort":"title"}"#)
        #expect(sorted.status == 200, "\(sorted.text)")
        #expect(sorted["changes"]?.array?.count == 1)
        // Natural order, case folded; g stays collapsed, a2 selected.
        let rows = h.call("GET", "\(view)/rows?positions=true")
        #expect(rows["sort"]?.stringValue == "title")
        #expect(ids(rows) == ["g", "e", "f", "c1", "a2", "b10"])
        #expect(rows["rows"]?.array?.first?["expanded"]?.boolValue == false)
        #expect(rows["rows"]?.array?.map { $0["position"]?.intValue } == [0, 1, 2, 0, 1, 2])
        #expect(rows["rows"]?.array?[4]["selected"]?.boolValue == true)
        #expect(h.call("GET", view)["sort"]?.stringValue == "title")
        // The order it has already: nothing changes, not even the version.
        let version = ViewResourceTests.version(h, view)
        #expect(h.call("PATCH", view, json: #"{"sort":"title"}"#)["changes"]?.array?.isEmpty == true)
        #expect(ViewResourceTests.version(h, view) == version)
        #expect(h.call("GET", "/sessions/\(sid)/views")["views"]?.array?.first?["sort"]?.stringValue == "title")
        // Children pages follow the view's sort; another sort is an error.
        #expect(ids(h.call("GET", "\(view)/items/f/children"), "children") == ["c1", "a2", "b10"])
        #expect(h.call("GET", "\(view)/items/f/children?sort=title").status == 200)
        #expect(h.call("GET", "\(view)/items/f/children?sort=-title").status == 400)
        // Descending by a number, then back to the tree's order.
        #expect(h.call("PATCH", view, json: #"{"sort":"-data.size"}"#).status == 200)
        #expect(ids(h.call("GET", "\(view)/rows")) == ["g", "f", "b10", "c1", "a2", "e"])
        #expect(h.call("PATCH", view, json: #"{"sort":null}"#).status == 200)
        let back = h.call("GET", "\(view)/rows")
        #expect(back["sort"] == nil)
        #expect(ids(back) == ["f", "b10", "a2", "c1", "g", "e"])
        #expect(h.call("GET", view)["sort"]?.isNull == true)
    }

    @Test func editsLandWhereTheSortPlacesThem() {
        let (sid, vid) = create()
        let view = "/sessions/\(sid)/views/\(vid)"
        #expect(h.call("PATCH", view, json: #"{"sort":"title"}"#).status == 200)
        // An insert's index is its place among the stored siblings: the view shows it sorted.
        let insert = h.call("POST", "\(view)/items", json: #"{"parentId":"f","index":0,"nodes":[{"id":"n","title":"item 3"}]}"#)
        #expect(insert.status == 201, "\(insert.text)")
        #expect(insert["index"]?.intValue == 7)
        #expect(ids(h.call("GET", "\(view)/items/f/children"), "children") == ["c1", "a2", "n", "b10"])
        #expect(ids(h.call("GET", "/sessions/\(sid)/items/f/children"), "children") == ["n", "b10", "a2", "c1"])
        // A rename moves the node; the splices say where, in the view's rows.
        let rename = h.call("PATCH", "\(view)/items/n", json: #"{"title":"item 99"}"#)
        #expect(rename.status == 200)
        #expect(rename["index"]?.intValue == 8)
        #expect(ids(h.call("GET", "\(view)/items/f/children"), "children") == ["c1", "a2", "b10", "n"])
        // A move to another parent, and a deletion.
        #expect(h.call("PATCH", "\(view)/items/x", json: #"{"parentId":"f","index":0}"#).status == 200)
        #expect(ids(h.call("GET", "\(view)/items/f/children"), "children") == ["c1", "a2", "b10", "n", "x"])
        #expect(h.call("DELETE", "\(view)/items/a2").status == 200)
        #expect(ids(h.call("GET", "\(view)/rows")) == ["g", "y", "e", "f", "c1", "b10", "n", "x"])
    }

    @Test func badSortsAreRefusedAndChangeNothing() {
        let (sid, vid) = create()
        let view = "/sessions/\(sid)/views/\(vid)"
        let version = ViewResourceTests.version(h, view)
        for body in [#"{"sort":""}"#, #"{"sort":"title,title"}"#, #"{"sort":"data."}"#, #"{"sort":3}"#, #"{"sort":"title","expandAll":true}"#] {
            let reply = h.call("PATCH", view, json: body)
            #expect(reply.status == 422 || reply.status == 400, "\(body): \(reply.text)")
        }
        #expect(ViewResourceTests.version(h, view) == version)
        #expect(h.call("GET", view)["sort"]?.isNull == true)
        // The default view is always in the tree's order.
        let defaultView = h.call("PATCH", "/sessions/\(sid)", json: #"{"sort":"title"}"#)
        #expect(defaultView.status == 422, "\(defaultView.text)")
        #expect(defaultView["detail"]?.stringValue?.contains("POST /sessions/{sid}/views") == true)
    }

    @Test func aFilteredSortedViewAndItsEvents() {
        let (sid, vid) = create()
        let view = "/sessions/\(sid)/views/\(vid)"
        #expect(h.call("PATCH", view, json: #"{"sort":"-title"}"#).status == 200)
        let filtered = h.call("GET", "\(view)/rows?filter=item")
        #expect(filtered["sort"]?.stringValue == "-title")
        #expect(ids(filtered) == ["f", "b10", "a2", "c1"])
        // Sorting anew through filtered rows answers their splices.
        let resorted = h.call("PATCH", "\(view)?filter=item", json: #"{"sort":"title"}"#)
        #expect(resorted.status == 200)
        #expect(resorted["total"]?.intValue == 4)
        #expect(ids(h.call("GET", "\(view)/rows?filter=item")) == ["f", "c1", "a2", "b10"])
    }
}
