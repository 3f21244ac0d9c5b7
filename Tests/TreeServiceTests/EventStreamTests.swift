import Foundation
import HTTP1
import HTTPTestSupport
import Testing
import TreeEngine
import TreeFormats
import StorageTestSupport
import TreeStorage
@testable import TreeReference
@testable import TreeService

/// `GET /sessions/{sid}/events` in process (the HTTP layer's side of streams is tested in
/// HTTP1Tests): what each stream gets, in which order, and when.
@Suite struct EventStreamTests {
    func events(_ sid: String, _ query: String = "") -> String { "/sessions/\(sid)/events\(query)" }

    @Test func aStreamStartsWithRetryAndAResetThenGetsEveryChange() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let (reply, stream) = h.openStream(events(sid))
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"] == "text/event-stream")
        #expect(reply.headers["cache-control"] == "no-store")
        let s = try #require(stream)
        let first = s.wait(forCount: 1)
        #expect(s.text.hasPrefix("retry: 2000\n\nevent: reset\nid: 1\ndata: "))
        #expect(first[0].json == (try JSONValue.parse(Array(#"{"version":1,"total":5,"reason":"subscribed"}"#.utf8))))
        let change = h.call("PATCH", "/sessions/\(sid)/items/1", json: #"{"expanded":true}"#)
        #expect(change.status == 200)
        let all = s.wait(forCount: 2)
        #expect(all[1].name == "change" && all[1].id == 2)
        // The event of the view the change was made in is its response, byte for byte.
        #expect(all[1].data == change.body)
    }

    @Test func otherViewsGetTheirOwnSplices() throws {
        let h = ServiceHarness()
        let sid = h.createSample(expand: "\"all\"")
        let filtered = try #require(h.openStream(events(sid, "?filter=ce")).1)
        let plain = try #require(h.openStream(events(sid)).1)
        _ = filtered.wait(forCount: 1)
        let before = h.call("GET", "/sessions/\(sid)/rows?filter=ce&limit=1000")["rows"]!.array!.map { $0["id"]!.stringValue! }
        // A change in the unfiltered view: "Grid" stops matching nothing, "Lists" gains a match.
        let rename = h.call("PATCH", "/sessions/\(sid)/items/2", json: #"{"title":"Cell lists"}"#)
        #expect(rename.status == 200)
        let event = filtered.wait(forCount: 2)[1]
        #expect(event.name == "change" && event.id == 2)
        var rows: [String?] = before
        for splice in event.json["changes"]!.array! {
            let i = splice["index"]!.intValue!
            rows.replaceSubrange(i ..< i + splice["removed"]!.intValue!, with: repeatElement(nil, count: splice["inserted"]!.intValue!))
        }
        let after = h.call("GET", "/sessions/\(sid)/rows?filter=ce&limit=1000")
        let ids = after["rows"]!.array!.map { $0["id"]!.stringValue! }
        #expect(rows.count == ids.count)
        for (held, fresh) in zip(rows, ids) where held != nil { #expect(held == fresh) }
        #expect(event.json["total"]!.intValue == after["total"]!.intValue)
        // The unfiltered view's stream got the response itself.
        #expect(plain.wait(forCount: 2)[1].data == rename.body)
        // Expanding in one view changes nothing in another: an event all the same, with no splices.
        h.call("PATCH", "/sessions/\(sid)/items/3?filter=ce", json: #"{"expanded":false}"#)
        let third = plain.wait(forCount: 3)[2]
        #expect(third.id == 3 && third.json["changes"]!.array!.isEmpty && third.json["reload"]!.array!.isEmpty)
    }

    @Test func lastEventIDReplaysTheBacklogOrResets() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let s = try #require(h.openStream(events(sid)).1)
        for id in ["1", "2", "3"] { h.call("PATCH", "/sessions/\(sid)/items/\(id)", json: #"{"expanded":true}"#) }
        _ = s.wait(forCount: 4)
        s.stream.cancel()
        for id in ["4", "5"] { h.call("PATCH", "/sessions/\(sid)/items/\(id)", json: #"{"expanded":true}"#) }
        // Reconnecting after version 2: versions 3 to 6, once each, no reset.
        let resumed = try #require(h.openStream(events(sid), headers: [("Last-Event-ID", "2")]).1)
        let replayed = resumed.wait(forCount: 4)
        #expect(replayed.map(\.name) == ["change", "change", "change", "change"])
        #expect(replayed.map(\.id) == [3, 4, 5, 6])
        // The query parameter does the same (for a new EventSource); the header wins.
        let byQuery = try #require(h.openStream(events(sid, "?lastEventId=5")).1)
        #expect(byQuery.wait(forCount: 1).map(\.id) == [6])
        let both = try #require(h.openStream(events(sid, "?lastEventId=1"), headers: [("Last-Event-ID", "6")]).1)
        h.call("PATCH", "/sessions/\(sid)/items/1", json: #"{"expanded":false}"#)
        #expect(both.wait(forCount: 1).map(\.id) == [7])
        // Versions the backlog never held (before the view was first followed, or later than now).
        for last in ["0", "99"] {
            let reset = try #require(h.openStream(events(sid), headers: [("Last-Event-ID", last)]).1)
            #expect(reset.wait(forCount: 1)[0].json["reason"]?.stringValue == "backlog")
        }
        #expect(h.openStream(events(sid), headers: [("Last-Event-ID", "x1")]).0.status == 400)
        #expect(h.openStream(events(sid, "?lastEventId=-1")).0.status == 400)
        // The header wins, but a malformed query parameter beside it is still an error.
        #expect(h.openStream(events(sid, "?lastEventId=x"), headers: [("Last-Event-ID", "1")]).0.status == 400)
    }

    @Test func theBacklogIsBounded() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let s = try #require(h.openStream(events(sid)).1)
        let changes = EventHub.backlogEvents + 10
        for i in 0 ..< changes { h.call("PATCH", "/sessions/\(sid)/items/1", json: "{\"expanded\":\(i % 2 == 0)}") }
        _ = s.wait(forCount: changes + 1)
        let tooOld = try #require(h.openStream(events(sid), headers: [("Last-Event-ID", "5")]).1)
        #expect(tooOld.wait(forCount: 1)[0].name == "reset")
        let recent = try #require(h.openStream(events(sid), headers: [("Last-Event-ID", String(changes + 1 - 3))]).1)
        #expect(recent.wait(forCount: 3).map(\.name) == ["change", "change", "change"])
    }

    /// A change whose event would be too large to queue to every stream (a batch of many
    /// operations) is a `reset` (`large`), and the backlog starts again after it.
    @Test func aTooLargeChangeIsAReset() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let s = try #require(h.openStream(events(sid)).1)
        _ = s.wait(forCount: 1)
        let operations = Array(repeating: #"{"op":"expand","id":"1","expanded":true}"#, count: 30_000).joined(separator: ",")
        let batch = h.call("POST", "/sessions/\(sid)/batch", json: "{\"operations\":[\(operations)]}")
        #expect(batch.status == 200 && batch.body.count > EventHub.maxEventBytes)
        let event = s.wait(forCount: 2)[1]
        #expect(event.name == "reset" && event.id == 2 && event.json["reason"]?.stringValue == "large" && event.json["total"]?.intValue == 8)
        let resumed = try #require(h.openStream(events(sid), headers: [("Last-Event-ID", "1")]).1)
        #expect(resumed.wait(forCount: 1)[0].json["reason"]?.stringValue == "backlog")
        h.call("PATCH", "/sessions/\(sid)/items/1", json: #"{"expanded":false}"#)
        #expect(s.wait(forCount: 3)[2].name == "change")
    }

    /// A view nobody follows any more keeps its backlog for a while (`eventBacklogLinger`),
    /// then stops being followed: a late reconnect gets a reset.
    @Test func anUnfollowedViewForgetsItsBacklogAfterTheLinger() throws {
        for linger in [Duration.zero, .seconds(300)] {
            let h = ServiceHarness { $0.eventBacklogLinger = linger }
            let sid = h.createSample()
            let s = try #require(h.openStream(events(sid, "?filter=ce")).1)
            _ = s.wait(forCount: 1)
            s.stream.cancel()
            h.call("PATCH", "/sessions/\(sid)/items/1", json: #"{"expanded":true}"#)
            let keeps = h.service.registry.lookup(sid)!.events.followedViews.contains(ViewRef(nil, filter: FilterQuery("ce")))
            #expect(keeps == (linger > .zero))
            let resumed = try #require(h.openStream(events(sid, "?filter=ce"), headers: [("Last-Event-ID", "1")]).1)
            #expect(resumed.wait(forCount: 1)[0].name == (linger > .zero ? "change" : "reset"))
        }
    }

    @Test func deletionAndExpiryEndTheStreams() throws {
        let h = ServiceHarness { $0.sessionTTL = .seconds(60) }
        let sid = h.createSample()
        let s = try #require(h.openStream(events(sid)).1)
        #expect(h.call("DELETE", "/sessions/\(sid)").status == 204)
        let last = s.wait(forCount: 2)[1]
        #expect(last.name == "end" && last.id == nil && last.json["reason"]?.stringValue == "deleted")
        #expect(s.wait { _ in s.finished })
        #expect(h.openStream(events(sid)).0.status == 404)

        let other = h.createSample()
        let t = try #require(h.openStream(events(other, "?filter=ce")).1)
        h.clock.advance(.seconds(61))
        #expect(h.call("GET", "/sessions/\(other)").status == 404)
        #expect(t.wait(forCount: 2)[1].json["reason"]?.stringValue == "expired")
        #expect(t.wait { _ in t.finished })
    }

    @Test func aDroppedViewResetsItsStreams() throws {
        let h = ServiceHarness()
        let sid = h.createSample(expand: "\"all\"")
        let s = try #require(h.openStream(events(sid, "?filter=ce")).1)
        _ = s.wait(forCount: 1)
        h.call("PATCH", "/sessions/\(sid)/items/1?filter=ce", json: #"{"expanded":false}"#)  // the view now differs from a fresh build
        for f in ["a", "b", "c", "d"] { #expect(h.call("GET", "/sessions/\(sid)/rows?filter=\(f)").status == 200) }
        // Dropped: the next version step cannot give its splices.
        h.call("PATCH", "/sessions/\(sid)/items/2", json: #"{"expanded":false}"#)
        let reset = s.wait(forCount: 3)[2]
        #expect(reset.name == "reset" && reset.id == 3 && reset.json["reason"]?.stringValue == "view")
        #expect(reset.json["total"] == nil)  // not kept: not known
        // Naming it again rebuilds it, a version step (it had changed): another reset; then changes again.
        let rows = h.call("GET", "/sessions/\(sid)/rows?filter=ce")
        #expect(rows["version"]?.intValue == 4)
        h.call("PATCH", "/sessions/\(sid)/items/5", json: #"{"expanded":false}"#)
        let next = s.wait(forCount: 5)
        #expect(next[3].name == "reset" && next[3].id == 4)
        #expect(next[4].name == "change" && next[4].id == 5)
    }

    @Test func streamLimitsAnswer429() throws {
        let h = ServiceHarness {
            $0.maxStreams = 3
            $0.maxStreamsPerSession = 2
        }
        let a = h.createSample(), b = h.createSample()
        let a1 = try #require(h.openStream(events(a)).1)
        _ = try #require(h.openStream(events(a)).1)
        let refused = h.openStream(events(a)).0
        #expect(refused.status == 429 && refused["type"]?.stringValue == "urn:treesessions:problem:too-many-streams")
        #expect(refused.headers["retry-after"] == "10")
        _ = try #require(h.openStream(events(b)).1)
        #expect(h.openStream(events(b)).0.status == 429)  // the server's limit
        a1.stream.cancel()
        #expect(h.service.openStreamCount == 2)
        #expect(h.openStream(events(b)).0.status == 200)
    }

    @Test func aBrowserAuthenticatesWithAnAccessToken() throws {
        let h = ServiceHarness { $0.token = "secret" }
        let bearer = [("Authorization", "Bearer secret")]
        let sid = try #require(h.call("POST", "/sessions", json: "{\"nodes\": \(ServiceHarness.sampleNodes)}", headers: bearer)["id"]?.stringValue)
        let other = try #require(h.call("POST", "/sessions", json: "{\"nodes\": \(ServiceHarness.sampleNodes)}", headers: bearer)["id"]?.stringValue)
        #expect(h.openStream(events(sid)).0.status == 401)
        #expect(h.openStream(events(sid), headers: bearer).0.status == 200)
        #expect(h.call("POST", "/sessions/\(sid)/events/token").status == 401)
        let granted = h.call("POST", "/sessions/\(sid)/events/token", headers: bearer)
        #expect(granted.status == 201 && granted["expiresIn"]?.intValue == 60)
        let token = try #require(granted["token"]?.stringValue)
        #expect(h.openStream(events(sid, "?access_token=\(token)")).0.status == 200)
        #expect(h.openStream(events(other, "?access_token=\(token)")).0.status == 401)  // another session
        #expect(h.call("GET", "/sessions/\(sid)/rows?access_token=\(token)").status == 401)  // only streams
        #expect(h.openStream(events(sid, "?access_token=nope")).0.status == 401)
        h.clock.advance(.seconds(61))
        #expect(h.openStream(events(sid, "?access_token=\(token)")).0.status == 401)
    }

    @Test func heartbeatsReachEveryStream() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let streams = try (0 ..< 3).map { _ in try #require(h.openStream(events(sid, "?filter=a")).1) }
        for s in streams { _ = s.wait(forCount: 1) }
        h.service.sendHeartbeats()
        for s in streams { #expect(s.wait { _ in s.text.hasSuffix(": heartbeat\n\n") }) }
    }

    @Test func batchesAndBuiltViewsArePublished() throws {
        let h = ServiceHarness()
        let sid = h.createSample(expand: "\"all\"")
        let plain = try #require(h.openStream(events(sid)).1)
        _ = plain.wait(forCount: 1)
        let batch = h.call("POST", "/sessions/\(sid)/batch", json: #"{"operations":[{"op":"update","id":"2.1","title":"Mountains"},{"op":"delete","id":"5"}]}"#)
        #expect(batch.status == 200)
        let event = plain.wait(forCount: 2)[1]
        #expect(event.data == batch.body)
        // A refused batch publishes nothing; the next change is version 3.
        #expect(h.call("POST", "/sessions/\(sid)/batch", json: #"{"operations":[{"op":"delete","id":"nope"}]}"#).status == 404)
        h.call("PATCH", "/sessions/\(sid)/items/1", json: #"{"expanded":false}"#)
        #expect(plain.wait(forCount: 3).map(\.id) == [1, 2, 3])
    }

    @Test func aRefusedBatchLeavesNoSplicesForTheNextBatch() throws {
        let h = ServiceHarness()
        let sid = h.createSample()
        let plain = try #require(h.openStream(events(sid)).1)
        _ = plain.wait(forCount: 1)
        // Through another view: the first operation is applied (and observed in the
        // unfiltered view), the second refused, so the whole batch is rolled back.
        let refused = h.call("POST", "/sessions/\(sid)/batch?filter=ce", json: #"{"operations":[{"op":"delete","id":"5"},{"op":"delete","id":"nope"}]}"#)
        #expect(refused.status == 404)
        let rename = h.call("POST", "/sessions/\(sid)/batch?filter=ce", json: #"{"operations":[{"op":"update","id":"1","title":"Layouts"}]}"#)
        #expect(rename.status == 200)
        let event = plain.wait(forCount: 2)[1]
        #expect(event.name == "change" && event.id == 2)
        // Nothing was deleted: a rename splices nothing in the unfiltered view.
        #expect(event.json["changes"]?.array?.isEmpty == true)
        #expect(event.json["total"]?.intValue == 5)
    }

    /// A harness whose session files wait for fsyncs (`--fsync batch`) that `faults` may hold back.
    func withHeldFsyncs(_ body: (ServiceHarness, StorageFaults) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        let faults = StorageFaults()
        let data = try DataDirectory(path: directory.path, fsync: .batch, faults: faults)
        defer { data.close() }
        let h = ServiceHarness(dataDirectory: data)
        defer {
            faults.releaseFsyncs()
            h.service.shutDownStorage()
        }
        try body(h, faults)
    }

    /// A change made in process, its response not waited for (it waits for its fsync).
    func changeWithoutWaiting(_ h: ServiceHarness, _ target: String, json: String) -> Int {
        let request = HTTPRequest(method: "PATCH", target: target, headers: HTTPHeaders([("Content-Type", "application/json")]),
                                  body: Array(json.utf8))
        return h.service.respond(to: request).status
    }

    @Test func aViewResetByAChangeWaitsForTheChangesFsync() throws {
        try withHeldFsyncs { h, faults in
            let sid = h.createSample(expand: "\"all\"")
            let s = try #require(h.openStream(events(sid, "?filter=ce")).1)
            h.call("PATCH", "/sessions/\(sid)/items/1?filter=ce", json: #"{"expanded":false}"#)  // the view now differs from a fresh build
            #expect(s.wait(forCount: 2).map(\.id) == [1, 2])
            for f in ["a", "b", "c", "d"] { #expect(h.call("GET", "/sessions/\(sid)/rows?filter=\(f)").status == 200) }
            // Naming the dropped view rebuilds it (a reset, version 3) before the change (version 4):
            // both are in the change's journal entry, so neither is sent before it is durable.
            faults.holdFsyncs()
            #expect(changeWithoutWaiting(h, "/sessions/\(sid)/items/2?filter=ce", json: #"{"expanded":false}"#) == 200)
            let early = s.wait(timeout: .seconds(1)) { $0.count > 2 }
            faults.releaseFsyncs()
            #expect(!early, "sent before the change was durable: \(s.events.dropFirst(2))")
            #expect(s.wait(forCount: 4).dropFirst(2).map(\.name) == ["reset", "change"])
        }
    }

    @Test func aNewStreamWaitsForTheLastChangesFsync() throws {
        try withHeldFsyncs { h, faults in
            let sid = h.createSample()
            let first = try #require(h.openStream(events(sid)).1)
            _ = first.wait(forCount: 1)
            first.stream.cancel()
            faults.holdFsyncs()
            #expect(changeWithoutWaiting(h, "/sessions/\(sid)/items/1", json: #"{"expanded":true}"#) == 200)
            // Version 2 is not durable yet: neither its change (replayed) nor a reset at it is sent.
            let resumed = try #require(h.openStream(events(sid), headers: [("Last-Event-ID", "1")]).1)
            let fresh = try #require(h.openStream(events(sid)).1)
            let early = resumed.wait(timeout: .seconds(1)) { !$0.isEmpty } || !fresh.events.isEmpty
            faults.releaseFsyncs()
            #expect(!early, "sent before the change was durable: \(resumed.events) \(fresh.events)")
            #expect(resumed.wait(forCount: 1).map(\.name) == ["change"])
            #expect(fresh.wait(forCount: 1).map(\.id) == [2])
        }
    }

    // MARK: Against the model

    static let seeds = Int(ProcessInfo.processInfo.environment["EVENT_MODEL_SEEDS"] ?? "") ?? 30

    /// Random sessions changed at random through several views (the differential test's
    /// steps, checked against the reference model); streams follow random views, each
    /// applying its events to the rows it holds, which must then be the rows `GET rows`
    /// gives, after every step; streams reconnect with `Last-Event-ID` at random moments.
    /// Half the seeds keep a data directory (events wait for their fsync).
    @Test func streamsFollowRandomSessions() throws {
        for seed in 1 ... UInt64(Self.seeds) {
            let directory = seed % 2 == 0 ? try TemporaryDirectory() : nil
            let data = try directory.map { try DataDirectory(path: $0.path, fsync: .batch) }
            defer { data?.close() }
            let h = ServiceHarness(dataDirectory: data)
            var rng = SeededRandom(seed: seed &* 7919)
            var run = try DifferentialRun(seed: seed, client: h, filterCount: rng.int(1 ... 6))
            let views: [FilterQuery?] = [nil] + run.filters
            let sid = run.sid
            let reference = run.reference
            var followers = (0 ..< rng.int(1 ... 5)).map { _ in Follower(view: rng.pick(views), sid: sid, reference: reference) }
            var problems: [String] = []
            for i in followers.indices { followers[i].connect(h, lastEventID: nil) }
            try run.play(steps: 30) { step in
                let version = try #require(h.call("GET", "/sessions/\(sid)")["version"]?.intValue)
                for i in followers.indices where problems.isEmpty {
                    followers[i].catchUp(h, to: version, &problems, "seed \(seed) step \(step)")
                    if rng.chance(0.15) { followers[i].connect(h, lastEventID: followers[i].lastID) }
                }
            }
            if !run.problems.isEmpty || !problems.isEmpty {
                Issue.record("seed \(seed): \((run.problems + problems).prefix(3).joined(separator: "\n"))\nsteps:\n\(run.log.joined(separator: "\n"))")
                return
            }
        }
    }
}

/// A client following one view: the rows it holds (nil: a row it must fetch), their
/// version, and its current stream.
struct Follower {
    let view: FilterQuery?
    let sid: String
    /// The differential run's model: told of the views the follower's requests build or
    /// make the most recently used (opening a stream does, as a change does; a read of a
    /// kept view does not).
    let reference: ReferenceForest
    var rows: [JSONValue?] = []
    var version = 0
    var stream: EventCollector?
    /// Events of the current stream already handled.
    var handled = 0
    var lastID: Int?
    var needsFetch = true

    init(view: FilterQuery?, sid: String, reference: ReferenceForest) {
        self.view = view
        self.sid = sid
        self.reference = reference
    }

    var query: String {
        guard let view else { return "" }
        return DifferentialRun.parameters(view)
    }

    mutating func connect(_ h: ServiceHarness, lastEventID: Int?) {
        stream?.stream.cancel()
        stream = h.openStream("/sessions/\(sid)/events?\(query)", headers: lastEventID.map { [("Last-Event-ID", String($0))] } ?? []).1
        reference.use(view)
        handled = 0
    }

    /// Handles the events up to `version` (waiting for them), then compares with `GET rows`.
    mutating func catchUp(_ h: ServiceHarness, to version: Int, _ problems: inout [String], _ context: String) {
        var target = version
        // The follower's own read may step the version (it rebuilt a dropped view that had
        // changed): then the events up to that version come first.
        for _ in 0 ..< 4 {
            guard let next = handleEvents(h, to: target, &problems, context) else { return }
            target = next
        }
        problems.append("\(context): [\(view?.description ?? "unfiltered")] never caught up")
    }

    /// One round of `catchUp`: the version to catch up to next, or nil when done.
    private mutating func handleEvents(_ h: ServiceHarness, to version: Int, _ problems: inout [String], _ context: String) -> Int? {
        guard let stream else {
            problems.append("\(context): no stream")
            return nil
        }
        // Every version step is an event on every stream (unless it was seen before a reconnect).
        let seen = lastID ?? -1
        guard stream.wait(until: { events in seen >= version || events.contains { ($0.id ?? 0) >= version } || (needsFetch && !events.isEmpty) }) else {
            problems.append("\(context): [\(view?.description ?? "unfiltered")] no event up to version \(version); got \(stream.events)")
            return nil
        }
        let events = stream.events
        for event in events[handled...] {
            handled += 1
            lastID = event.id ?? lastID
            let data = event.json
            let eventVersion = data["version"]!.intValue!
            switch event.name {
            case "reset":
                if eventVersion > self.version { needsFetch = true }
            case "change":
                if needsFetch || eventVersion <= self.version { continue }
                guard eventVersion == self.version + 1 else {
                    problems.append("\(context): [\(view?.description ?? "unfiltered")] holds version \(self.version), got change \(eventVersion)")
                    return nil
                }
                for splice in data["changes"]!.array! {
                    let i = splice["index"]!.intValue!, removed = splice["removed"]!.intValue!
                    guard i >= 0, i + removed <= rows.count else {
                    problems.append("\(context): splice \(splice) on \(rows.count) rows")
                    return nil
                }
                    rows.replaceSubrange(i ..< i + removed, with: repeatElement(nil, count: splice["inserted"]!.intValue!))
                }
                for range in data["reload"]!.array! {
                    let i = range["index"]!.intValue!, count = range["count"]!.intValue!
                    guard i >= 0, i + count <= rows.count else {
                    problems.append("\(context): reload \(range) on \(rows.count) rows")
                    return nil
                }
                    for r in i ..< i + count { rows[r] = nil }
                }
                guard rows.count == data["total"]!.intValue! else {
                    problems.append("\(context): [\(view?.description ?? "unfiltered")] \(rows.count) rows after the splices, total \(data["total"]!)")
                    return nil
                }
                self.version = eventVersion
            default:
                problems.append("\(context): unexpected event \(event)")
                return nil
            }
        }
        let page = h.call("GET", "/sessions/\(sid)/rows?\(query)&limit=1000")
        if let view, !reference.isKept(view) { reference.use(view) }  // reading a kept view reorders nothing
        // A row's index is where it is now: compared without it.
        let fresh: [JSONValue?] = page["rows"]!.array!.map { row in
            guard case .object(let members) = row else { return row }
            return .object(members.filter { $0.key != "index" })
        }
        let pageVersion = page["version"]!.intValue!
        if needsFetch {
            rows = fresh
            self.version = pageVersion
            needsFetch = false
            return nil
        }
        if pageVersion > self.version { return pageVersion }
        var problem: String? = nil
        if self.version != pageVersion {
            problem = "at version \(self.version) after the events, rows at \(pageVersion)"
        } else if rows.count != fresh.count {
            problem = "holds \(rows.count) rows, GET rows has \(fresh.count)"
        } else if let i = rows.indices.first(where: { rows[$0] != nil && rows[$0] != fresh[$0] }) {
            problem = "row \(i) held \(rows[i]!), GET rows has \(fresh[i]!); last events \(events.suffix(2))"
        }
        if let problem { problems.append("\(context): [\(view?.description ?? "unfiltered")] \(problem)") }
        rows = fresh
        return nil
    }
}
