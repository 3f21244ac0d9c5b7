import Testing
import TreeEngine
import TreeFormats
@testable import TreeService

/// The match modes and options as query parameters (`match`, `diacritics`, `leavesOnly`):
/// validated on every request that names a view, each combination its own view, and
/// fuzzy rows with a `score`.
@Suite struct MatchModeTests {
    let h = ServiceHarness()

    static let tree = #"""
    {"nodes": [
      {"id": "cities", "title": "Cities", "children": [
        {"id": "z", "title": "Zu\u0308rich"},
        {"id": "c", "title": "Café Grid"},
        {"id": "g", "title": "Grid Layout", "children": [{"id": "gl", "title": "layout grid leaf"}]},
        {"id": "lazy", "title": "Layout grid (lazy)", "hasChildren": true}
      ]}
    ]}
    """#

    func create() -> String {
        let reply = h.call("POST", "/sessions", json: Self.tree)
        precondition(reply.status == 201, reply.text)
        return reply["id"]!.stringValue!
    }

    func ids(_ reply: ServiceHarness.Reply, matchesOnly: Bool = true) -> [String] {
        (reply["rows"]?.array ?? []).filter { !matchesOnly || $0["match"]?.boolValue == true }.map { $0["id"]!.stringValue! }
    }

    @Test func badValuesAnswer400NamingTheParameter() {
        let sid = create()
        let bad: [(String, String)] = [("match", "regex"), ("match", "Fuzzy"), ("diacritics", "ignore"), ("diacritics", ""),
                                       ("leavesOnly", "yes"), ("leavesOnly", "1")]
        let targets = ["/sessions/\(sid)/rows?filter=a", "/sessions/\(sid)/items/z?filter=a", "/sessions/\(sid)/events?filter=a"]
        for (name, value) in bad {
            for target in targets {
                let reply = h.call("GET", "\(target)&\(name)=\(value)")
                #expect(reply.status == 400, "\(target) \(name)=\(value)")
                #expect(reply["type"]?.stringValue == "urn:treesessions:problem:bad-query-parameter")
                #expect(reply["detail"]?.stringValue?.contains("query parameter \(name) ") == true, "\(reply.text)")
            }
            let patch = h.call("PATCH", "/sessions/\(sid)/items/z?filter=a&\(name)=\(value)", json: #"{"expanded":true}"#)
            #expect(patch.status == 400 && patch["detail"]?.stringValue?.contains(name) == true, "PATCH \(name)=\(value)")
            let batch = h.call("POST", "/sessions/\(sid)/batch?filter=a&\(name)=\(value)", json: #"{"operations":[]}"#)
            #expect(batch.status == 400 && batch["detail"]?.stringValue?.contains(name) == true, "batch \(name)=\(value)")
        }
        // Checked even without a filter.
        #expect(h.call("GET", "/sessions/\(sid)/rows?diacritics=maybe").status == 400)
        for ok in ["match=words", "match=fuzzy", "diacritics=sensitive", "diacritics=insensitive", "leavesOnly=true", "leavesOnly=false"] {
            #expect(h.call("GET", "/sessions/\(sid)/rows?filter=a&\(ok)").status == 200, "\(ok)")
        }
    }

    @Test func diacriticsInsensitiveFindsDecomposedAndPrecomposed() {
        let sid = create()
        let sensitive = h.call("GET", "/sessions/\(sid)/rows?filter=zurich")
        #expect(ids(sensitive).isEmpty)
        let insensitive = h.call("GET", "/sessions/\(sid)/rows?filter=zurich&diacritics=insensitive")
        #expect(ids(insensitive) == ["z"])
        // The range covers "Zu" + U+0308 + "rich": 7 UTF-16 units of the original title.
        let row = insensitive["rows"]!.array!.first { $0["id"]?.stringValue == "z" }!
        #expect(row["matchRanges"]?.array?.map { $0.array!.map(\.intValue!) } == [[0, 7]])
        #expect(ids(h.call("GET", "/sessions/\(sid)/rows?filter=cafe&diacritics=insensitive")) == ["c"])
        #expect(ids(h.call("GET", "/sessions/\(sid)/rows?filter=cafe\u{301}&diacritics=insensitive".addingPercentEncoding())) == ["c"])
    }

    @Test func wordsFuzzyAndLeavesOnly() {
        let sid = create()
        let words = h.call("GET", "/sessions/\(sid)/rows?filter=layout%20grid&match=words")
        #expect(ids(words) == ["c", "g", "gl", "lazy"].filter { $0 != "c" })
        let row = words["rows"]!.array!.first { $0["id"]?.stringValue == "g" }!
        #expect(row["matchRanges"]?.array?.map { $0.array!.map(\.intValue!) } == [[0, 4], [5, 6]])
        #expect(row["score"] == nil)
        let leaves = h.call("GET", "/sessions/\(sid)/rows?filter=layout%20grid&match=words&leavesOnly=true")
        #expect(ids(leaves) == ["gl"])  // "g" has a child, "lazy" declares children
        #expect(leaves["matchCount"]?.intValue == 1)
        let fuzzy = h.call("GET", "/sessions/\(sid)/rows?filter=gdl&match=fuzzy")
        #expect(ids(fuzzy) == ["g", "gl", "lazy"])
        // "Grid Layout": g at 0 (word start), d at 3, l at 5 (word start): 16·3 + 8·2 − 4·2 − 8.
        let scored = fuzzy["rows"]!.array!.first { $0["id"]?.stringValue == "g" }!
        #expect(scored["score"]?.intValue == 48)
        #expect(scored["matchRanges"]?.array?.map { $0.array!.map(\.intValue!) } == [[0, 1], [3, 1], [5, 1]])
        #expect(fuzzy["rows"]!.array!.allSatisfy { ($0["score"] != nil) == ($0["match"]?.boolValue == true) })
    }

    /// Each combination of options is its own view: expanding in one leaves the others.
    @Test func optionsNameDifferentViews() {
        let sid = create()
        let a = "/sessions/\(sid)/rows?filter=grid&match=words"
        let b = a + "&leavesOnly=true"
        let before = h.call("GET", b)["total"]!.intValue!
        let collapse = h.call("PATCH", "/sessions/\(sid)/items/cities?filter=grid&match=words", json: #"{"expanded":false}"#)
        #expect(collapse.status == 200)
        #expect(h.call("GET", a)["total"]?.intValue == 1)
        #expect(h.call("GET", b)["total"]?.intValue == before)
    }
}

private extension String {
    /// Percent-encodes the non-ASCII bytes (for a query string in a test).
    func addingPercentEncoding() -> String {
        var out = ""
        for b in utf8 { out += b < 0x80 ? String(UnicodeScalar(b)) : "%" + String(b, radix: 16, uppercase: true) }
        return out
    }
}
