import Foundation
import HTTP1
import Testing
import TreeEngine
import TreeFormats
@testable import TreeService

/// Views over one tree: a change of one view's state never shows in another's rows, version
/// or events; a tree edit reaches every view, each stream with its own splices.
@Suite struct ViewIsolationTests {
    static func ids(_ h: ServiceHarness, _ path: String) -> [String] {
        h.call("GET", path + (path.contains("?") ? "&" : "?") + "limit=1000")["rows"]?.array?.map { $0["id"]!.stringValue! } ?? []
    }

    static func total(_ h: ServiceHarness, _ path: String) -> Int? { h.call("GET", path)["total"]?.intValue }

    @Test func expandingInOneViewChangesNoOther() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let a = ViewResourceTests.createView(h, sid), b = ViewResourceTests.createView(h, sid)
        let base = "/sessions/\(sid)"
        let expand = h.call("PATCH", "\(base)/views/\(a)/items/1", json: #"{"expanded":true}"#)
        #expect(expand.status == 200)
        #expect(expand["changes"]?.array?.isEmpty == false)
        #expect(Self.total(h, "\(base)/views/\(a)/rows")! > 5)
        #expect(Self.total(h, "\(base)/views/\(b)/rows") == 5)
        #expect(Self.total(h, "\(base)/rows") == 5)
        #expect(h.call("GET", "\(base)/views/\(a)/items/1")["expanded"] == .bool(true))
        #expect(h.call("GET", "\(base)/views/\(b)/items/1")["expanded"] == .bool(false))
        #expect(h.call("GET", "\(base)/items/1")["expanded"] == .bool(false))
        // And the other way round: the default view's expansion is its own.
        h.call("PATCH", "\(base)", json: #"{"expandAll":true}"#)
        #expect(Self.total(h, "\(base)/rows") == 38)
        #expect(Self.total(h, "\(base)/views/\(b)/rows") == 5)
        #expect(h.call("PATCH", "\(base)/views/\(b)", json: #"{"expandDepth":1}"#)["total"]?.intValue == 19)
        #expect(Self.total(h, "\(base)/rows") == 38)
        #expect(Self.total(h, "\(base)/views/\(a)/rows") == expand["total"]?.intValue)
    }

    @Test func aViewStartsAsItsBodySays() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let base = "/sessions/\(sid)"
        #expect(h.call("POST", "\(base)/views", json: #"{"expand":"all"}"#)["total"]?.intValue == 38)
        let depth1 = h.call("POST", "\(base)/views", json: #"{"expand":1}"#)
        #expect(depth1["total"]?.intValue == h.call("PATCH", base, json: #"{"expandDepth":1}"#)["total"]?.intValue)
        // A copy starts with its source's expansion and goes its own way.
        h.call("PATCH", "\(base)/items/2", json: #"{"expanded":true}"#)
        let copy = h.call("POST", "\(base)/views", json: #"{"from":"default"}"#)
        let c = try #require(copy["id"]?.stringValue)
        #expect(Self.ids(h, "\(base)/views/\(c)/rows") == Self.ids(h, "\(base)/rows"))
        h.call("PATCH", "\(base)/views/\(c)", json: #"{"collapseAll":true}"#)
        #expect(Self.total(h, "\(base)/views/\(c)/rows") == 5)
        #expect(Self.total(h, "\(base)/rows")! > 5)
    }

    @Test func filteredRowsAreKeptPerView() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let a = ViewResourceTests.createView(h, sid), b = ViewResourceTests.createView(h, sid)
        let base = "/sessions/\(sid)"
        h.call("PATCH", "\(base)/views/\(a)/items/1", json: #"{"expanded":true}"#)
        let fresh = Self.ids(h, "\(base)/views/\(b)/rows?filter=ce")
        // Collapsing in A's filtered rows leaves B's filtered rows and A's unfiltered ones.
        let collapse = h.call("PATCH", "\(base)/views/\(a)/items/1?filter=ce", json: #"{"expanded":false}"#)
        #expect(collapse.status == 200)
        #expect(Self.ids(h, "\(base)/views/\(b)/rows?filter=ce") == fresh)
        #expect(Self.ids(h, "\(base)/views/\(a)/rows?filter=ce").count < fresh.count)
        #expect(Self.ids(h, "\(base)/rows?filter=ce") == fresh)
        // Clearing the filter brings back A's unfiltered rows as the user left them.
        #expect(h.call("GET", "\(base)/views/\(a)/items/1")["expanded"] == .bool(true))
        let matches = h.call("GET", "\(base)/views/\(b)/matches?filter=ce&limit=3")
        #expect(matches.status == 200)
        #expect(matches["matchCount"]?.intValue == h.call("GET", "\(base)/matches?filter=ce")["matchCount"]?.intValue)
    }

    @Test func changedFilteredRowsDroppedFromOneViewResetThatViewAlone() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let a = ViewResourceTests.createView(h, sid)
        let base = "/sessions/\(sid)"
        h.call("GET", "\(base)/rows?filter=ce")
        #expect(h.call("PATCH", "\(base)/views/\(a)/items/1?filter=ce", json: #"{"expanded":false}"#)["version"]?.intValue == 2)
        for text in ["a", "b", "c", "d"] { h.call("GET", "\(base)/views/\(a)/rows?filter=\(text)") }
        // Dropped from A's four kept filtered rows: named again, they come back fresh (a reset, a step of A).
        let again = h.call("GET", "\(base)/views/\(a)/rows?filter=ce")
        #expect(again["version"]?.intValue == 3)
        #expect(ViewResourceTests.version(h, base) == 1)
        #expect(h.call("GET", "\(base)/rows?filter=ce")["version"]?.intValue == 1, "the default view kept its own")
    }

    @Test func eachStreamGetsItsOwnViewsEvents() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let a = ViewResourceTests.createView(h, sid), b = ViewResourceTests.createView(h, sid)
        let base = "/sessions/\(sid)"
        let onA = try #require(h.openStream("\(base)/views/\(a)/events").1)
        let onB = try #require(h.openStream("\(base)/views/\(b)/events").1)
        let onBFiltered = try #require(h.openStream("\(base)/views/\(b)/events?filter=ce").1)
        let onDefault = try #require(h.openStream("\(base)/events").1)
        for s in [onA, onB, onBFiltered, onDefault] { _ = s.wait(forCount: 1) }
        // A's expansion: A's stream alone, with the response byte for byte.
        let expand = h.call("PATCH", "\(base)/views/\(a)/items/1", json: #"{"expanded":true}"#)
        let events = onA.wait(forCount: 2)
        #expect(events[1].name == "change" && events[1].id == 2)
        #expect(events[1].data == expand.body)
        // B's filtered rows: B's streams (both its rows step), not A's nor the default's.
        h.call("PATCH", "\(base)/views/\(b)/items/1?filter=ce", json: #"{"expanded":false}"#)
        #expect(onBFiltered.wait(forCount: 2)[1].id == 2)
        #expect(onB.wait(forCount: 2)[1].json["changes"]?.array?.isEmpty == true)
        // A tree edit: every stream, each at its view's version, with its own splices.
        let insert = h.call("POST", "\(base)/items", json: #"{"nodes":[{"id":"n","title":"Nice"}],"parentId":"1","index":0}"#)
        #expect(insert.status == 201)
        #expect(onA.wait(forCount: 3)[2].id == 3)
        #expect(onA.events[2].json["changes"]?.array?.count == 1, "1 is expanded in A: the new row shows")
        #expect(onA.events[2].json["total"]?.intValue == ViewIsolationTests.total(h, "\(base)/views/\(a)/rows"))
        #expect(onB.wait(forCount: 3)[2].json["changes"]?.array?.isEmpty == true, "1 is collapsed in B")
        #expect(onBFiltered.wait(forCount: 3)[2].id == 3)
        #expect(onDefault.wait(forCount: 2)[1].id == 2)
        #expect(onDefault.events[1].data == insert.body)
        // Nothing else arrived: no view got another's change.
        Thread.sleep(forTimeInterval: 0.05)
        #expect(onA.events.count == 3 && onB.events.count == 3 && onBFiltered.events.count == 3 && onDefault.events.count == 2)
    }

    @Test func aTreeEditThroughAViewKeepsEveryViewsRowsRight() throws {
        let h = ServiceHarness()
        let sid = h.createSample(expand: "\"all\"")
        let a = ViewResourceTests.createView(h, sid, #"{"expand":"all"}"#), b = ViewResourceTests.createView(h, sid)
        let base = "/sessions/\(sid)"
        let before = Self.ids(h, "\(base)/views/\(b)/rows")
        let move = h.call("PATCH", "\(base)/views/\(a)/items/1.2", json: #"{"parentId":null,"index":0}"#)
        #expect(move.status == 200)
        #expect(Self.ids(h, "\(base)/views/\(a)/rows") == Self.ids(h, "\(base)/rows"), "both expand everything")
        let after = Self.ids(h, "\(base)/views/\(b)/rows")
        #expect(after == ["1.2"] + before)
        let delete = h.call("DELETE", "\(base)/views/\(b)/items/1.2")
        #expect(delete["changes"]?.array?.first?["removed"]?.intValue == 1)
        #expect(Self.ids(h, "\(base)/views/\(b)/rows") == before)
    }
}
