import Testing
@testable import TreeService

/// Edits keep every filtered view's expansion (issue 10): a node the client collapsed
/// in a filtered view stays collapsed through renames, moves, inserts and deletes; a
/// node that becomes an ancestor of a match starts expanded.
@Suite struct FilteredViewEditTests {
    static let tree = #"""
        {"nodes":[{"id":"r","title":"root","children":[
            {"id":"a","title":"apple","children":[{"id":"a1","title":"seed"}]},
            {"id":"b","title":"banana"},
            {"id":"c","title":"cherry"}]}]}
        """#

    static func rows(_ h: ServiceHarness, _ sid: String, _ filter: String) -> [String] {
        let reply = h.call("GET", "/sessions/\(sid)/rows?filter=\(filter)&limit=100")
        return reply["rows"]?.array?.map { row in
            (row.member("id")?.stringValue ?? "?") + (row.member("expanded")?.boolValue == true ? "+" : "")
        } ?? ["status \(reply.status)"]
    }

    @Test func expansionChosenInAFilteredViewSurvivesEdits() {
        let h = ServiceHarness()
        let sid = h.call("POST", "/sessions", json: Self.tree)["id"]!.stringValue!
        #expect(Self.rows(h, sid, "apple") == ["r+", "a"])
        // The client collapses the root in the filtered view.
        #expect(h.call("PATCH", "/sessions/\(sid)/items/r?filter=apple", json: #"{"expanded": false}"#).status == 200)
        #expect(Self.rows(h, sid, "apple") == ["r"])
        // A rename that makes `b` match, named in that view: the root stays collapsed.
        let renamed = h.call("PATCH", "/sessions/\(sid)/items/b?filter=apple", json: #"{"title": "apple pie"}"#)
        #expect(renamed.status == 200)
        #expect(renamed["changes"]?.array?.count == 0)
        #expect(Self.rows(h, sid, "apple") == ["r"])
        // Expanded again: both matches show, `c` stays excluded.
        _ = h.call("PATCH", "/sessions/\(sid)/items/r?filter=apple", json: #"{"expanded": true}"#)
        #expect(Self.rows(h, sid, "apple") == ["r+", "a", "b"])
        // An insert under `c` that matches, named in the unfiltered view: `c` becomes an
        // ancestor of a match in the filtered view and starts expanded there.
        #expect(h.call("POST", "/sessions/\(sid)/items", json: #"{"parentId": "c", "nodes": [{"id": "c1", "title": "apple tart"}]}"#).status == 201)
        #expect(Self.rows(h, sid, "apple") == ["r+", "a", "b", "c+", "c1"])
        // The client collapses `c`; moving `b` under `c` keeps it collapsed.
        _ = h.call("PATCH", "/sessions/\(sid)/items/c?filter=apple", json: #"{"expanded": false}"#)
        #expect(h.call("PATCH", "/sessions/\(sid)/items/b", json: #"{"parentId": "c"}"#).status == 200)
        #expect(Self.rows(h, sid, "apple") == ["r+", "a", "c"])
        // Deleting the match `a`: the root keeps its expansion.
        #expect(h.call("DELETE", "/sessions/\(sid)/items/a?filter=apple").status == 200)
        #expect(Self.rows(h, sid, "apple") == ["r+", "c"])
        #expect(h.call("GET", "/sessions/\(sid)/rows?filter=apple&limit=0")["matchCount"]?.intValue == 2)
    }

    /// A kept view that an edit updated may differ from a fresh build of itself (a node
    /// that left the ancestors of matches keeps its expansion): when it is dropped from
    /// the cache and named again, it comes back built anew, and that is a change.
    @Test func aViewUpdatedByAnEditAndThenDroppedComesBackAsAChange() {
        let h = ServiceHarness()
        let sid = h.call("POST", "/sessions", json: Self.tree)["id"]!.stringValue!
        #expect(h.call("PATCH", "/sessions/\(sid)/items/a", json: #"{"title": "apple seed"}"#).status == 200)
        #expect(Self.rows(h, sid, "seed") == ["r+", "a+", "a1"])
        // Renaming `a1` away: `a` still matches, leaves the ancestors of matches and
        // keeps its expansion, so `a1` still shows under it.
        #expect(h.call("PATCH", "/sessions/\(sid)/items/a1", json: #"{"title": "pip"}"#).status == 200)
        #expect(Self.rows(h, sid, "seed") == ["r+", "a+", "a1"])
        let version = h.call("GET", "/sessions/\(sid)")["version"]!.intValue!
        for other in ["x1", "x2", "x3", "x4", "x5"] { _ = Self.rows(h, sid, other) }
        // Built anew: `a` starts collapsed (not an ancestor of a match), and the version moved.
        #expect(Self.rows(h, sid, "seed") == ["r+", "a"])
        #expect(h.call("GET", "/sessions/\(sid)")["version"]!.intValue! == version + 1)
    }
}
