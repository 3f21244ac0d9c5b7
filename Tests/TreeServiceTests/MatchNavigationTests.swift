import Foundation
import HTTPTestSupport
import Testing
import TreeEngine
import TreeFormats
@testable import TreeReference
@testable import TreeService

/// `GET /sessions/{sid}/matches`: a view's matches in tree order, paged forwards and
/// backwards from an item, with and without wrapping.
@Suite struct MatchNavigationTests {
    @Test func matchesInTreeOrderFromAnItem() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let all = h.call("GET", "/sessions/\(sid)/matches?filter=ce&limit=100")
        #expect(all.status == 200 && all.headers["etag"] == "\"1\"")
        #expect(all["matchCount"]?.intValue == 6 && all["version"]?.intValue == 1)
        let ids = all["matches"]!.array!.map { $0["id"]!.stringValue! }
        #expect(all["matches"]!.array!.map { $0["ordinal"]!.intValue! } == Array(0 ..< 6))
        let first = all["matches"]!.array![0]
        #expect(first["title"]?.stringValue == "Advanced Layouts" && first["matchRanges"] == .array([.array([.number("5"), .number("2")])]))
        #expect(first["index"]?.intValue == 1)  // the filtered view shows the ancestors of matches expanded
        // After an item: the next one; before it: the one before, nearest first.
        let next = h.call("GET", "/sessions/\(sid)/matches?filter=ce&after=\(ids[1])")
        #expect(next["matches"]!.array!.map { $0["id"]!.stringValue! } == [ids[2]])
        let back = h.call("GET", "/sessions/\(sid)/matches?filter=ce&before=\(ids[3])&limit=10")
        #expect(back["matches"]!.array!.map { $0["id"]!.stringValue! } == [ids[2], ids[1], ids[0]])
        // At the end: nothing, or from the start again with wrap (never twice the same).
        #expect(h.call("GET", "/sessions/\(sid)/matches?filter=ce&after=\(ids[5])")["matches"]?.array?.isEmpty == true)
        let wrapped = h.call("GET", "/sessions/\(sid)/matches?filter=ce&after=\(ids[4])&limit=10&wrap=true")
        #expect(wrapped["matches"]!.array!.map { $0["id"]!.stringValue! } == [ids[5]] + ids[0 ..< 5])
        let wrappedBack = h.call("GET", "/sessions/\(sid)/matches?filter=ce&before=\(ids[0])&limit=2&wrap=true")
        #expect(wrappedBack["matches"]!.array!.map { $0["id"]!.stringValue! } == [ids[5], ids[4]])
        // A match a collapsed ancestor hides has no row; `reveal` gives it one.
        h.call("PATCH", "/sessions/\(sid)/items/1?filter=ce", json: #"{"expanded":false}"#)
        let hidden = h.call("GET", "/sessions/\(sid)/matches?filter=ce")["matches"]!.array![0]
        #expect(hidden["index"] == .null)
        h.call("PATCH", "/sessions/\(sid)/items/\(ids[0])?filter=ce", json: #"{"reveal":true}"#)
        #expect(h.call("GET", "/sessions/\(sid)/matches?filter=ce")["matches"]!.array![0]["index"]?.intValue == 1)
    }

    @Test func badRequestsNameTheParameter() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        for (query, parameter) in [("", "filter"), ("?filter=ce&after=1&before=2", "after"), ("?filter=ce&limit=-1", "limit"),
                                   ("?filter=ce&limit=5000", "limit"), ("?filter=ce&wrap=yes", "wrap"), ("?filter=ce&match=near", "match")] {
            let reply = h.call("GET", "/sessions/\(sid)/matches\(query)")
            #expect(reply.status == 400 && reply["type"]?.stringValue == "urn:treesessions:problem:bad-query-parameter", "\(query)")
            #expect(reply["detail"]?.stringValue?.contains(parameter) == true, "\(query): \(reply.text)")
        }
        #expect(h.call("GET", "/sessions/\(sid)/matches?filter=ce&after=nope").status == 404)
        #expect(h.call("GET", "/sessions/AAAAAAAAAAAAAAAAAAAAAA/matches?filter=ce").status == 404)
    }

    static let seeds = Int(ProcessInfo.processInfo.environment["MATCH_MODEL_SEEDS"] ?? "") ?? 30

    /// Random sessions changed at random (the differential test's steps, checked against the
    /// reference); after every step, a view's matches paged from random items, forwards and
    /// backwards, with and without wrap, against the reference's matches in tree order.
    /// (`MATCH_MODEL_SEEDS=N` for more seeds.)
    @Test func randomSessionsPageTheirMatches() throws {
        for seed in 1 ... UInt64(Self.seeds) {
            let h = ServiceHarness()
            var rng = SeededRandom(seed: seed &* 104_729)
            var run = try DifferentialRun(seed: seed, client: h, filterCount: 3)
            let (sid, reference, filters, frozen) = (run.sid, run.reference, run.filters, run)
            var problems: [String] = []
            try run.play(steps: 25) { step in
                let filter = rng.pick(filters)
                if !reference.isKept(filter) { reference.use(filter) }  // built by the request, as a read builds it
                let query = RefQuery(filter)
                let nodes = reference.allNodes
                let matches = nodes.filter { ReferenceForest.matches($0, query) }.map(\.key)
                let anchor = nodes.isEmpty || rng.chance(0.2) ? nil : rng.pick(nodes)
                let forward = rng.chance(0.5), wrap = rng.chance(0.5), limit = rng.int(0 ... 8)
                // The reference: from the anchor (exclusive), in the direction asked, wrapping or not.
                var expected: [String] = []
                if let anchor {
                    let at = nodes.firstIndex { $0 === anchor }!
                    let after = nodes[(at + 1)...].filter { ReferenceForest.matches($0, query) }.map(\.key)
                    let upTo = nodes[..<at].filter { ReferenceForest.matches($0, query) }.map(\.key)
                    // Wrapping goes around to the anchor itself, last when it matches.
                    let itself = ReferenceForest.matches(anchor, query) ? [anchor.key] : []
                    expected = forward ? after + (wrap ? upTo + itself : []) : upTo.reversed() + (wrap ? after.reversed() + itself : [])
                } else {
                    expected = matches
                }
                expected = Array(expected.prefix(limit))
                let place = anchor.map { "&\(forward ? "after" : "before")=\(PathSegment.encode($0.key))" } ?? ""
                let reply = h.call("GET", "/sessions/\(sid)/matches?\(frozen.query(filter, first: false).dropFirst())\(place)&limit=\(limit)&wrap=\(wrap)")
                let got = reply["matches"]?.array?.map { $0["id"]!.intValue.map(String.init) ?? $0["id"]!.stringValue! }
                if got != expected || reply["matchCount"]?.intValue != matches.count {
                    problems.append("step \(step): matches of [\(filter)] \(place) limit \(limit) wrap \(wrap): got \(got ?? []) (\(reply.text.prefix(200))), expected \(expected)")
                }
            }
            if !run.problems.isEmpty || !problems.isEmpty {
                Issue.record("seed \(seed): \((run.problems + problems).prefix(3).joined(separator: "\n"))\nsteps:\n\(run.log.joined(separator: "\n"))")
                return
            }
        }
    }
}
