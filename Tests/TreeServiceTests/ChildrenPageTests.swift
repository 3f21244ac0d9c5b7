import Testing
import TreeEngine
@testable import TreeService

/// Issue 37: `GET …/items/{id}/children` and `GET …/children` page a node's children in a
/// view's rows, whatever its expansion, for grids that load a tree group by group.
@Suite struct ChildrenPageTests {
    let h = ServiceHarness()

    /// `big` has `count` children `c0`, `c1`, …; `c1` has two of its own; `small` one.
    func create(bigFolder count: Int = 5) -> String {
        var children = (0 ..< count).map { #"{"id":"c\#($0)","title":"child \#($0)","data":{"size":\#($0)}}"# }
        children[1] = #"{"id":"c1","title":"child 1","children":[{"id":"g1","title":"grandchild one"},{"id":"g2","title":"grandchild two"}]}"#
        let tree = #"{"nodes":[{"id":"big","title":"big","children":[\#(children.joined(separator: ","))]},"#
            + #"{"id":"small","title":"small","children":[{"id":"s","title":"s"}]},{"id":"leaf","title":"leaf"}]}"#
        let reply = h.call("POST", "/sessions", json: tree)
        precondition(reply.status == 201, reply.text)
        return reply["id"]!.stringValue!
    }

    func ids(_ reply: ServiceHarness.Reply) -> [String] { reply["children"]?.array?.compactMap { $0["id"]?.stringValue } ?? [] }

    @Test func theRootsAndAnItemsChildrenWhateverTheExpansion() {
        let sid = create()
        let roots = h.call("GET", "/sessions/\(sid)/children")
        #expect(roots.status == 200, "\(roots.text)")
        #expect(roots["parentId"]?.isNull == true)
        #expect(roots["total"]?.intValue == 3)
        #expect(ids(roots) == ["big", "small", "leaf"])
        #expect(roots["children"]?.array?.map { $0["childCount"]?.intValue } == [5, 1, 0])
        #expect(roots["children"]?.array?.map { $0["position"]?.intValue } == [0, 1, 2])
        #expect(roots["children"]?.array?.map { $0["index"]?.intValue } == [0, 1, 2])
        // `big` is collapsed: its children are listed all the same, with no row index.
        let page = h.call("GET", "/sessions/\(sid)/items/big/children?offset=1&limit=2&aggregate=count")
        #expect(page["parentId"]?.stringValue == "big")
        #expect(page["total"]?.intValue == 5)
        #expect(page["offset"]?.intValue == 1 && page["limit"]?.intValue == 2)
        #expect(ids(page) == ["c1", "c2"])
        let first = page["children"]?.array?.first
        #expect(first?["position"]?.intValue == 1)
        #expect(first?["index"]?.isNull == true)
        #expect(first?["childCount"]?.intValue == 2)
        #expect(first?["hasChildren"]?.boolValue == true)
        #expect(first?["level"]?.intValue == 1)
        #expect(first?["aggregates"]?["count"]?.intValue == 2)
        // Expanded, its children are rows, and each child says where.
        #expect(h.call("PATCH", "/sessions/\(sid)/items/big", json: #"{"expanded":true}"#).status == 200)
        let expanded = h.call("GET", "/sessions/\(sid)/items/big/children?limit=2")
        #expect(expanded["children"]?.array?.map { $0["index"]?.intValue } == [1, 2])
        // Past the end: no children, not an error; a leaf has none.
        #expect(ids(h.call("GET", "/sessions/\(sid)/items/big/children?offset=9")) == [])
        let leaf = h.call("GET", "/sessions/\(sid)/items/leaf/children")
        #expect(leaf.status == 200 && leaf["total"]?.intValue == 0)
    }

    /// A folder past the size whose children are walked: counted and paged by the index.
    @Test func aLargeFolderPagedFromAnywhere() {
        let sid = create(bigFolder: 10_000)
        let end = h.call("GET", "/sessions/\(sid)/items/big/children?offset=9998&limit=5")
        #expect(end["total"]?.intValue == 10_000)
        #expect(ids(end) == ["c9998", "c9999"])
        #expect(end["children"]?.array?.first?["position"]?.intValue == 9998)
        // An insert and a deletion inside it are counted by the next page.
        #expect(h.call("POST", "/sessions/\(sid)/items", json: #"{"parentId":"big","index":5000,"nodes":[{"id":"new","title":"new"}]}"#).status == 201)
        #expect(h.call("DELETE", "/sessions/\(sid)/items/c0").status == 200)
        let middle = h.call("GET", "/sessions/\(sid)/items/big/children?offset=4998&limit=3")
        #expect(middle["total"]?.intValue == 10_000)
        #expect(ids(middle) == ["c4999", "new", "c5000"])
        #expect(h.call("GET", "/sessions/\(sid)/items/big")["childCount"]?.intValue == 10_000)
    }

    /// In filtered rows: an ancestor of a match shows the children that match or hold
    /// matches; a match shows all of its children; a node the filter hides has none.
    @Test func filteredRows() {
        let sid = create()
        let big = h.call("GET", "/sessions/\(sid)/items/big/children?filter=grandchild%20one")
        #expect(big["filter"]?.stringValue == "grandchild one")
        #expect(big["total"]?.intValue == 1)
        #expect(ids(big) == ["c1"])
        let c1 = big["children"]?.array?.first
        #expect(c1?["match"]?.boolValue == false)
        #expect(c1?["matchesBelow"]?.intValue == 1)
        #expect(c1?["childCount"]?.intValue == 1, "c1 is an ancestor of the match: g2 is not shown")
        #expect(big["matchCount"]?.intValue == 1)
        let matchedFolder = h.call("GET", "/sessions/\(sid)/items/c1/children?filter=child%201")
        #expect(ids(matchedFolder) == ["g1", "g2"], "a match shows all of its children")
        let hidden = h.call("GET", "/sessions/\(sid)/items/small/children?filter=grandchild%20one")
        #expect(hidden.status == 200 && hidden["total"]?.intValue == 0)
        #expect(ids(h.call("GET", "/sessions/\(sid)/children?filter=grandchild%20one")) == ["big"])
    }

    @Test func throughAViewWithItsOwnExpansionAndSelection() {
        let sid = create()
        let view = h.call("POST", "/sessions/\(sid)/views", json: #"{"expand":"all"}"#)
        #expect(view.status == 201, "\(view.text)")
        let vid = view["id"]!.stringValue!
        #expect(h.call("PATCH", "/sessions/\(sid)/views/\(vid)/items/c1", json: #"{"selected":true}"#).status == 200)
        let page = h.call("GET", "/sessions/\(sid)/views/\(vid)/items/big/children?limit=2")
        #expect(page["children"]?.array?.map { $0["expanded"]?.boolValue } == [false, true])
        #expect(page["children"]?.array?.map { $0["index"]?.intValue } == [1, 2])
        #expect(page["selectedCount"]?.intValue == 3)
        #expect(page["children"]?.array?.map { $0["selected"]?.boolValue } == [false, true])
        #expect(ids(h.call("GET", "/sessions/\(sid)/views/\(vid)/children")) == ["big", "small", "leaf"])
        // The default view is untouched: nothing selected, `big` collapsed.
        #expect(h.call("GET", "/sessions/\(sid)/items/big/children")["selectedCount"] == nil)
    }

    /// `sort`: natural order by folded title, numbers by value (a numeric string too),
    /// missing and null last either way; kept by edits.
    @Test func sortedChildrenFollowEdits() {
        let tree = #"{"nodes":[{"id":"f","title":"f","children":["#
            + #"{"id":"a","title":"item 10","data":{"size":1500}},{"id":"b","title":"Item 9","data":{"size":"12"}},"#
            + #"{"id":"c","title":"item 2","data":{"size":7}},{"id":"d","title":"d","data":{"size":null}},{"id":"e","title":"e"}]}]}"#
        let reply = h.call("POST", "/sessions", json: tree)
        #expect(reply.status == 201)
        let sid = reply["id"]!.stringValue!
        func order(_ sort: String) -> [String] {
            let page = h.call("GET", "/sessions/\(sid)/items/f/children?sort=\(sort)")
            #expect(page.status == 200, "\(page.text)")
            #expect(page["sort"]?.stringValue == sort.removingPercentEncoding)
            return ids(page)
        }
        #expect(order("title") == ["d", "e", "c", "b", "a"])
        #expect(order("-title") == ["a", "b", "c", "e", "d"])
        #expect(order("data.size") == ["c", "b", "a", "d", "e"])
        #expect(order("-data.size") == ["a", "b", "c", "d", "e"], "null and missing stay last")
        #expect(order("-data.size,-title") == ["a", "b", "c", "e", "d"])
        // Edits put nodes where the sort says.
        #expect(h.call("POST", "/sessions/\(sid)/items", json: #"{"parentId":"f","nodes":[{"id":"n","title":"item 3","data":{"size":100}}]}"#).status == 201)
        #expect(order("title") == ["d", "e", "c", "n", "b", "a"])
        #expect(order("-data.size") == ["a", "n", "b", "c", "d", "e"])
        #expect(h.call("PATCH", "/sessions/\(sid)/items/d", json: #"{"title":"item 1","data":{"size":1e9}}"#).status == 200)
        #expect(order("title") == ["e", "d", "c", "n", "b", "a"])
        #expect(order("-data.size") == ["d", "a", "n", "b", "c", "e"])
        #expect(h.call("DELETE", "/sessions/\(sid)/items/a").status == 200)
        #expect(order("-data.size") == ["d", "n", "b", "c", "e"])
        #expect(h.call("PATCH", "/sessions/\(sid)/items/e", json: #"{"parentId":"c"}"#).status == 200)
        #expect(order("title") == ["d", "c", "n", "b"])
        #expect(ids(h.call("GET", "/sessions/\(sid)/items/c/children?sort=-title")) == ["e"])
        // Bad keys answer 400 with the place.
        for bad in ["", "size", "title,-title", "-", "data."] {
            let answer = h.call("GET", "/sessions/\(sid)/children?sort=\(bad)")
            #expect(answer.status == 400, "sort=\(bad): \(answer.text)")
        }
    }

    @Test func errorsAndConditionalReads() {
        let sid = create()
        #expect(h.call("GET", "/sessions/\(sid)/items/nope/children").status == 404)
        #expect(h.call("GET", "/sessions/\(sid)/views/nope/children").status == 404)
        #expect(h.call("GET", "/sessions/\(sid)/children?offset=-1").status == 400)
        #expect(h.call("GET", "/sessions/\(sid)/children?limit=100000").status == 400)
        #expect(h.call("GET", "/sessions/\(sid)/children?aggregate=sum:title").status == 400)
        #expect(h.call("GET", "/sessions/\(sid)/children?positions=true").status == 400)
        #expect(h.call("POST", "/sessions/\(sid)/children").status == 405)
        let page = h.call("GET", "/sessions/\(sid)/children")
        let tag = page.headers["etag"]!
        #expect(h.call("GET", "/sessions/\(sid)/items/big/children", headers: [("If-None-Match", tag)]).status == 304)
        #expect(h.call("PATCH", "/sessions/\(sid)/items/big", json: #"{"expanded":true}"#).status == 200)
        #expect(h.call("GET", "/sessions/\(sid)/items/big/children", headers: [("If-None-Match", tag)]).status == 200)
    }
}
