import Testing
import TreeEngine
import TreeFormats
@testable import TreeService

/// Issue 37: `fields` and `where` on filters and highlights: a text searched in data
/// fields, typed conditions, each row's `matchedFields`, errors with their position, and
/// matches that follow edits of a node's data.
@Suite struct FieldSearchTests {
    let h = ServiceHarness()

    /// A few lines of `/etc/passwd` as CSV: every column is a string.
    static let passwd = """
    id,parentId,title,shell,uid
    root,,root,/bin/bash,0
    daemon,,daemon,/usr/sbin/nologin,1
    bin,,bin,/usr/sbin/nologin,2
    sync,,sync,/bin/sync,4
    games,,games,/usr/sbin/nologin,12
    """

    static let files = #"""
    {"nodes": [
      {"id": "docs", "title": "docs", "data": {"isFolder": true, "size": 0, "owner": {"name": "Alice"}}, "children": [
        {"id": "a", "title": "item 2.txt", "data": {"size": 1500000, "mtime": "2026-03-01", "owner": {"name": "alice"}}},
        {"id": "b", "title": "item 10.txt", "data": {"size": 12, "mtime": "2025-12-31", "owner": {"name": "Bob"}, "tags": ["x"]}},
        {"id": "c", "title": "notes", "data": {"size": null, "mtime": "2026-01-01", "a.b": "dotted"}}
      ]},
      {"id": "e", "title": "empty"}
    ]}
    """#

    func create(csv: String) -> String {
        let reply = h.call("POST", "/sessions?format=csv", json: csv, contentType: "text/csv")
        precondition(reply.status == 201, reply.text)
        return reply["id"]!.stringValue!
    }

    func create(json: String) -> String {
        let reply = h.call("POST", "/sessions", json: json)
        precondition(reply.status == 201, reply.text)
        return reply["id"]!.stringValue!
    }

    func matchIDs(_ reply: ServiceHarness.Reply) -> [String] {
        (reply["rows"]?.array ?? []).filter { $0["match"]?.boolValue == true }.map { $0["id"]!.stringValue! }
    }

    func rows(_ sid: String, _ query: String) -> [String] {
        let reply = h.call("GET", "/sessions/\(sid)/rows?\(query)")
        #expect(reply.status == 200, "\(query): \(reply.text)")
        return matchIDs(reply)
    }

    @Test func aTextFoundInADataColumn() {
        let sid = create(csv: Self.passwd)
        #expect(rows(sid, "filter=nologin").isEmpty, "titles alone")
        let reply = h.call("GET", "/sessions/\(sid)/rows?filter=nologin&fields=title,data.shell")
        #expect(matchIDs(reply) == ["daemon", "bin", "games"])
        #expect(reply["fields"]?.array?.compactMap(\.stringValue) == ["title", "data.shell"])
        for row in reply["rows"]?.array ?? [] {
            #expect(row["matchedFields"]?.array?.compactMap(\.stringValue) == ["data.shell"])
            #expect(row["matchRanges"]?.array?.isEmpty == true, "the ranges are the title's")
        }
        // A match in both: the title's ranges, both fields listed.
        let both = h.call("GET", "/sessions/\(sid)/rows?filter=sync&fields=title,data.shell")
        #expect(matchIDs(both) == ["sync"])
        #expect(both["rows"]?.array?.first?["matchedFields"]?.array?.compactMap(\.stringValue) == ["title", "data.shell"])
        #expect(both["rows"]?.array?.first?["matchRanges"]?.array?.count == 1)
        // Numbers by their JSON text; a highlight searches the same way.
        let files = create(json: Self.files)
        #expect(rows(files, "filter=150&fields=data.size") == ["a"])
        let highlight = h.call("GET", "/sessions/\(files)/rows?highlight=ALICE&fields=data.owner.name")
        #expect(highlight.status == 200)
        #expect(matchIDs(highlight) == ["docs"], "collapsed: only the roots are rows")
        #expect(highlight["rows"]?.array?.first?["matchedFields"]?.array?.compactMap(\.stringValue) == ["data.owner.name"])
        // A member name with a dot is escaped.
        #expect(rows(files, "filter=dot&fields=data.a%5C.b") == ["c"])
    }

    @Test func conditionsCompareByType() {
        let files = create(json: Self.files)
        func match(_ condition: String) -> [String] {
            rows(files, "where=" + PathSegment.encode(condition))
        }
        #expect(match("data.size>1000000") == ["a"])
        #expect(match("data.size<=12") == ["docs", "b"])
        #expect(match("data.size=null") == ["c"])
        #expect(match("data.size!=null") == ["docs", "a", "b", "e"], "a missing field is not null")
        #expect(match("data.mtime>=2026-01-01") == ["a", "c"])
        #expect(match("data.owner.name=alice") == ["docs", "a"], "strings fold as the filter does")
        #expect(rows(files, "caseSensitive=true&where=" + PathSegment.encode("data.owner.name=alice")) == ["a"])
        #expect(match("data.isFolder=true") == ["docs"])
        #expect(match("title>item 9") == ["b", "c"], "natural order: item 10 after item 9")
        #expect(match(#"data.owner.name="Bob",data.size<100"#) == ["b"])
        #expect(match("data.tags=x").isEmpty, "an array is never equal")
        // With a text: both must hold; ancestors kept as for text filters.
        let reply = h.call("GET", "/sessions/\(files)/rows?filter=item&where=" + PathSegment.encode("data.size>100"))
        #expect(reply["rows"]?.array?.map { $0["id"]!.stringValue! } == ["docs", "a"])
        #expect(reply["where"]?.stringValue == "data.size>100")
        // CSV columns are strings: a number operand compares with numeric strings.
        let sid = create(csv: Self.passwd)
        #expect(rows(sid, "where=" + PathSegment.encode("data.uid>=2")) == ["bin", "sync", "games"])
        #expect(rows(sid, "where=" + PathSegment.encode("data.uid>\"2\"")) == ["sync", "games"], "as strings, in natural order")
    }

    @Test func badFieldsAndConditionsAnswer400WithThePosition() {
        let sid = create(json: Self.files)
        let bad: [(String, String)] = [
            ("where=" + PathSegment.encode("data.size>>"), ""),
            ("where=" + PathSegment.encode("data.size"), "character 10"),
            ("where=" + PathSegment.encode("size>1"), "character 1"),
            ("where=" + PathSegment.encode("data..x=1"), "empty member"),
            ("where=" + PathSegment.encode(#"data.x="open"#), "closing"),
            ("where=" + PathSegment.encode(#"data.x="a"b"#), "character 11"),
            ("where=" + PathSegment.encode("data.x=1,"), "character 10"),
            ("filter=a&fields=" + PathSegment.encode("title,title"), "twice"),
            ("filter=a&fields=" + PathSegment.encode("data"), "not a field"),
            ("filter=a&fields=", "expected a field"),
            ("fields=data.x", "give a filter text"),
        ]
        for (query, detail) in bad {
            let reply = h.call("GET", "/sessions/\(sid)/rows?\(query)")
            if detail.isEmpty {
                #expect(reply.status == 200, "\(query) is a string operand \">\": \(reply.text)")
                continue
            }
            #expect(reply.status == 400, "\(query)")
            #expect(reply["type"]?.stringValue == "urn:treesessions:problem:bad-query-parameter")
            #expect(reply["detail"]?.stringValue?.contains(detail) == true, "\(query): \(reply.text)")
        }
        let many = (0 ... FieldSyntax.maximumCount).map { "data.f\($0)=1" }.joined(separator: ",")
        #expect(h.call("GET", "/sessions/\(sid)/rows?where=" + PathSegment.encode(many)).status == 400)
        // Checked on every route that names a view, and nothing changes.
        let patch = h.call("PATCH", "/sessions/\(sid)/items/docs?where=" + PathSegment.encode("x=1"), json: #"{"expanded":true}"#)
        #expect(patch.status == 400)
        #expect(h.call("GET", "/sessions/\(sid)/items/docs")["expanded"]?.boolValue == false)
    }

    @Test func matchesFollowEditsOfData() {
        let sid = create(json: Self.files)
        let query = "filter=bob&fields=data.owner.name"
        #expect(rows(sid, query) == ["b"])
        let big = "where=" + PathSegment.encode("data.size>1000")
        #expect(rows(sid, big) == ["a"])
        // Bob's file changes hands and grows.
        let edit = h.call("PATCH", "/sessions/\(sid)/items/b?\(query)",
                          json: #"{"data": {"size": 5000, "owner": {"name": "Carol"}}}"#)
        #expect(edit.status == 200, "\(edit.text)")
        #expect(rows(sid, query).isEmpty)
        #expect(rows(sid, big) == ["a", "b"])
        // A new node with data matches at once; a deleted one goes.
        let insert = h.call("POST", "/sessions/\(sid)/items?\(big)",
                            json: #"{"parentId": "docs", "nodes": [{"id": "n", "title": "new", "data": {"size": 2000, "owner": {"name": "bob"}}}]}"#)
        #expect(insert.status == 201, "\(insert.text)")
        #expect(rows(sid, big) == ["a", "b", "n"])
        #expect(rows(sid, query) == ["n"])
        #expect(h.call("DELETE", "/sessions/\(sid)/items/a").status == 200)
        #expect(rows(sid, big) == ["b", "n"])
        // The matches route lists each match's fields.
        let matches = h.call("GET", "/sessions/\(sid)/matches?\(query)")
        #expect(matches["matches"]?.array?.first?["matchedFields"]?.array?.compactMap(\.stringValue) == ["data.owner.name"], "\(matches.text)")
    }
}
