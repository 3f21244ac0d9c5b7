import Testing
import TreeEngine
import TreeFormats
@testable import TreeService

/// `GET rows?positions=true`: each row's place among its parent's children (`position`, from 0)
/// and their number (`siblingCount`), as the demo's `aria-posinset` / `aria-setsize` need them.
@Suite struct RowPositionTests {
    let h = ServiceHarness()

    /// (position, siblingCount) of every node by id, counted in the unfiltered view of a session
    /// whose every node is expanded (all nodes are rows there, children after their parent).
    func expected(_ sid: String) -> [String: (Int, Int)] {
        let rows = h.call("GET", "/sessions/\(sid)/rows?limit=1000")["rows"]!.array!
        var seen: [String: Int] = [:], place: [String: Int] = [:]
        for row in rows {
            let parent = row.member("parentId")?.stringValue ?? ""
            place[row.member("id")!.stringValue!] = seen[parent, default: 0]
            seen[parent, default: 0] += 1
        }
        var out: [String: (Int, Int)] = [:]
        for row in rows {
            let id = row.member("id")!.stringValue!
            out[id] = (place[id]!, seen[row.member("parentId")?.stringValue ?? ""]!)
        }
        return out
    }

    @Test(arguments: ["", "&filter=Li", "&filter=Grid&match=prefix"])
    func everyRowCarriesItsPlaceAmongItsSiblings(view: String) {
        let sid = h.createSample(expand: "\"all\"")
        // A moved node and an inserted root: positions follow the edits.
        #expect(h.call("PATCH", "/sessions/\(sid)/items/1.2.4.2", json: #"{"parentId": "1", "index": 0}"#).status == 200)
        #expect(h.call("POST", "/sessions/\(sid)/items", json: #"{"nodes": [{"title": "Lone root"}], "index": 2}"#).status == 201)
        let want = expected(sid)
        let page = h.call("GET", "/sessions/\(sid)/rows?limit=1000&positions=true\(view)")
        #expect(page.status == 200)
        let rows = page["rows"]!.array!
        #expect(!rows.isEmpty)
        for row in rows {
            let id = row.member("id")!.stringValue!
            #expect(row.member("position")?.intValue == want[id]?.0, "\(id)")
            #expect(row.member("siblingCount")?.intValue == want[id]?.1, "\(id)")
        }
        // A page that starts in the middle of a run of siblings counts them all the same.
        let mid = h.call("GET", "/sessions/\(sid)/rows?offset=3&limit=2&positions=true\(view)")["rows"]!.array!
        for row in mid { #expect(row.member("position")?.intValue == want[row.member("id")!.stringValue!]?.0) }
    }

    /// A folder of 10,000 children (past the size whose children are walked): counted by the
    /// index of their level, through edits and in filtered rows (hidden siblings count).
    @Test func aLargeFolderCountedByItsLevel() {
        let children = (0 ..< 10_000).map { #"{"id":"c\#($0)","title":"child \#($0)"}"# }.joined(separator: ",")
        let reply = h.call("POST", "/sessions", json: #"{"nodes":[{"id":"big","title":"big","expanded":true,"children":["# + children + "]}]}")
        #expect(reply.status == 201)
        let sid = reply["id"]!.stringValue!
        func place(_ query: String) -> (Int?, Int?, String?) {
            let row = h.call("GET", "/sessions/\(sid)/rows?limit=1&positions=true&\(query)")["rows"]?.array?.first
            return (row?.member("position")?.intValue, row?.member("siblingCount")?.intValue, row?.member("id")?.stringValue)
        }
        #expect(place("offset=7001") == (7000, 10_000, "c7000"))
        #expect(h.call("POST", "/sessions/\(sid)/items", json: #"{"parentId":"big","index":0,"nodes":[{"id":"first","title":"first"}]}"#).status == 201)
        #expect(place("offset=7001") == (6999 + 1, 10_001, "c6999"))
        #expect(place("offset=1&filter=child%209999") == (10_000, 10_001, "c9999"))
    }

    /// A page whose rows are children of large subtrees at six levels: each level counted,
    /// all kept for the page (more than the store keeps of them otherwise).
    @Test func aPageAcrossManyLargeLevels() {
        let leaves = (0 ..< 5_000).map { #"{"title":"leaf \#($0)"}"# }.joined(separator: ",")
        var tree = #"{"id":"e","title":"e","children":["# + leaves + "]}"
        for id in ["d", "c", "b", "a", "r"] { tree = #"{"id":"\#(id)","title":"\#(id)","children":["# + tree + "]}" }
        let reply = h.call("POST", "/sessions?expand=all", json: #"{"nodes":["# + tree + "]}")
        #expect(reply.status == 201, "\(reply.text)")
        let sid = reply["id"]!.stringValue!
        let page = h.call("GET", "/sessions/\(sid)/rows?limit=8&positions=true")
        #expect(page.status == 200, "\(page.text)")
        let rows = page["rows"]?.array ?? []
        #expect(rows.map { $0.member("position")?.intValue } == [0, 0, 0, 0, 0, 0, 0, 1])
        #expect(rows.map { $0.member("siblingCount")?.intValue } == [1, 1, 1, 1, 1, 1, 5_000, 5_000])
    }

    @Test func withoutTheParameterRowsStayAsTheyWere() {
        let sid = h.createSample(expand: "\"all\"")
        let row = h.call("GET", "/sessions/\(sid)/rows?limit=1")["rows"]!.array![0]
        #expect(row.member("position") == nil && row.member("siblingCount") == nil)
        #expect(h.call("GET", "/sessions/\(sid)/rows?positions=yes").status == 400)
    }
}
