import Foundation
import HTTP1
import Synchronization
import Testing
import TreeEngine
import TreeFormats
import StorageTestSupport
import TreeStorage
@testable import TreeService

/// Views survive restarts and crashes like their session (issue 35, durability): their ids,
/// versions, expansion, kept filtered rows (and which of them a name resets), times and
/// expiry; through the snapshot's session block, the journal after it, or both; and data
/// written before views were durable still loads.
extension DurabilityTests {
    /// The filtered rows the checks read in every view: no more than a view keeps, so that
    /// reading them twice builds nothing the second time.
    static let viewFilters = ["&filter=ce", "&filter=Layout&match=prefix", "&filter=e&caseSensitive=true", "&filter=list"]

    /// What a client sees of the session's views: the list (without last uses), and per view
    /// its summary's version and total, its unfiltered rows and its rows of `viewFilters`.
    static func viewState(_ h: ServiceHarness, _ sid: String) -> [String] {
        let list = h.call("GET", "/sessions/\(sid)/views?limit=1000")
        var out = ["status \(list.status) total \(list["total"]?.intValue ?? -1)"]
        for view in list["views"]?.array ?? [] {
            let vid = view["id"]!.stringValue!
            let summary = h.call("GET", "/sessions/\(sid)/views/\(vid)")
            out.append("\(vid) v\(view["version"]!.intValue!) createdAt \(view["createdAt"]!.stringValue!) sort \(view["sort"]?.stringValue ?? "-") "
                       + "summary v\(summary["version"]?.intValue ?? -1) total \(summary["total"]?.intValue ?? -1) etag \(summary.headers["etag"] ?? "")")
            for query in [""] + viewFilters {
                let reply = h.call("GET", "/sessions/\(sid)/views/\(vid)/rows?limit=1000\(query)")
                out.append("  \(query): \(reply.status) v\(reply["version"]?.intValue ?? -1) "
                           + String(decoding: JSONValue.array(reply["rows"]?.array ?? []).serialize(), as: UTF8.self))
            }
        }
        return out
    }

    /// Views made every way, changed every way (expansion in unfiltered and filtered rows,
    /// tree edits and batches through them, a view deleted), then read twice (the first
    /// read builds what the views do not keep; the second changes nothing).
    static func makeViews(_ h: ServiceHarness, _ sid: String) -> [String] {
        let collapsed = ViewResourceTests.createView(h, sid)
        let expanded = ViewResourceTests.createView(h, sid, #"{"expand":"all"}"#)
        let depth = ViewResourceTests.createView(h, sid, #"{"expand":2}"#)
        let gone = ViewResourceTests.createView(h, sid)
        func at(_ vid: String) -> String { "/sessions/\(sid)/views/\(vid)" }
        #expect(h.call("PATCH", "\(at(collapsed))/items/1", json: #"{"expanded":true}"#).status == 200)
        #expect(h.call("PATCH", "\(at(collapsed))/items/1.2", json: #"{"expanded":true,"recursive":true}"#).status == 200)
        #expect(h.call("PATCH", "\(at(expanded))/items/2?filter=e&caseSensitive=true", json: #"{"expanded":false}"#).status == 200)
        #expect(h.call("PATCH", "\(at(expanded))/items/1.1", json: #"{"expanded":false}"#).status == 200)
        #expect(h.call("PATCH", "\(at(depth))/items/4.1", json: #"{"reveal":true}"#).status == 200)
        #expect(h.call("PATCH", "\(at(depth))?filter=ce", json: #"{"collapseAll":true}"#).status == 200)
        // Tree edits through views reach every view.
        #expect(h.call("POST", "\(at(collapsed))/items?filter=list", json: #"{"nodes":[{"id":"n","title":"New list"}],"parentId":"3"}"#).status == 201)
        #expect(h.call("PATCH", "\(at(expanded))/items/2", json: #"{"title":"Two"}"#).status == 200)
        #expect(h.call("POST", "\(at(depth))/batch", json: #"{"operations":[{"op":"expand","id":"3","expanded":true},{"op":"delete","id":"5"}]}"#).status == 200)
        #expect(h.call("POST", "\(at(depth))/batch", json: #"{"operations":[{"op":"expandDepth","expandDepth":1}]}"#).status == 200)
        #expect(h.call("POST", "\(at(gone))/batch?filter=ce", json: #"{"operations":[]}"#).status == 200)
        // The default view changes between them, and copies start from both.
        #expect(h.call("PATCH", "/sessions/\(sid)/items/4", json: #"{"expanded":true}"#).status == 200)
        // Sorted views (issue 37): a copy keeps the sort; a sort set and then changed again.
        #expect(h.call("PATCH", at(expanded), json: #"{"sort":"-title"}"#).status == 200)
        #expect(h.call("PATCH", at(depth), json: #"{"sort":"title"}"#).status == 200)
        #expect(h.call("PATCH", "\(at(depth))/items/3", json: #"{"title":"Zzz"}"#).status == 200)
        #expect(h.call("PATCH", at(depth), json: #"{"sort":"-data.size,title"}"#).status == 200)
        let copyOfDefault = ViewResourceTests.createView(h, sid, #"{"from":"default"}"#)
        let copy = ViewResourceTests.createView(h, sid, "{\"from\":\"\(expanded)\"}")
        #expect(h.call("PATCH", "\(at(copy))/items/1?filter=ce", json: #"{"expanded":false}"#).status == 200)
        #expect(h.call("PATCH", "\(at(copyOfDefault))/items/4.2", json: #"{"parentId":"1","index":0}"#).status == 200)
        #expect(h.call("DELETE", at(gone)).status == 204)
        _ = viewState(h, sid)
        return viewState(h, sid)
    }

    @Test(arguments: [true, false])
    func viewsComeBackWithTheirIdsVersionsRowsAndFilteredRows(shutdown: Bool) throws {
        var sid = "", before: [String] = [], version = 0, next = ViewID(0)
        try withService(shutdown: shutdown) { h in
            sid = h.createSample()
            before = Self.makeViews(h, sid)
            version = ViewResourceTests.version(h, "/sessions/\(sid)")!
            next = h.service.registry.lookup(sid)!.state.withReadLock { $0.core.nextViewID }
        }
        #expect(before.count == 1 + 5 * (1 + 1 + Self.viewFilters.count))
        try withService { h in
            #expect(h.service.durability.eventCount(.replayStopped) == 0)
            #expect(Self.viewState(h, sid) == before)
            #expect(ViewResourceTests.version(h, "/sessions/\(sid)") == version)
            // Ids go on where they stopped.
            #expect(ViewResourceTests.createView(h, sid) == next.text)
        }
        // And once more, from a snapshot of the loaded session and the journal after it.
        try withService(shutdown: false) { h in
            let session = try #require(h.service.registry.lookup(sid))
            try session.state.withLock { try h.service.writeSnapshot(session, &$0) }
            #expect(h.call("DELETE", "/sessions/\(sid)/views/\(next.text)").status == 204)
            #expect(Self.viewState(h, sid) == before)
        }
        try withService { h in #expect(Self.viewState(h, sid) == before) }
    }

    /// A snapshot taken in the middle (a compaction) and the journal after it: the views made
    /// before it come from the session block, the changes after it from the journal.
    @Test func viewsComeBackFromASnapshotAndTheJournalAfterIt() throws {
        var sid = "", before: [String] = []
        try withService(shutdown: false) { h in
            sid = h.createSample()
            let first = ViewResourceTests.createView(h, sid, #"{"expand":1}"#)
            #expect(h.call("PATCH", "/sessions/\(sid)/views/\(first)/items/1.1?filter=Grid", json: #"{"expanded":false}"#).status == 200)
            let session = try #require(h.service.registry.lookup(sid))
            try session.state.withLock { try h.service.writeSnapshot(session, &$0) }
            before = Self.makeViews(h, sid)
        }
        try withService(shutdown: false) { h in
            #expect(h.service.durability.eventCount(.replayStopped) == 0)
            #expect(Self.viewState(h, sid) == before)
        }
    }

    /// Filtered rows a view changed and then dropped come back in their initial state when
    /// named again (a reset: a version step of that view alone), after a restart as before it.
    @Test(arguments: [true, false])
    func aViewsDroppedChangedFilteredRowsResetAfterARestart(shutdown: Bool) throws {
        var sid = "", vid = "", version = 0, rows = ""
        try withService(shutdown: shutdown) { h in
            sid = h.createSample()
            vid = ViewResourceTests.createView(h, sid)
            #expect(h.call("PATCH", "/sessions/\(sid)/views/\(vid)/items/1?filter=a", json: #"{"expanded":false}"#).status == 200)
            rows = h.call("GET", "/sessions/\(sid)/views/\(vid)/rows?filter=a&limit=1000").text
            // Four other filters drop "a" from the view's kept rows (it keeps four).
            for text in ["b", "c", "d", "e"] {
                #expect(h.call("GET", "/sessions/\(sid)/views/\(vid)/rows?filter=\(text)").status == 200)
            }
            version = ViewResourceTests.version(h, "/sessions/\(sid)/views/\(vid)")!
        }
        try withService { h in
            #expect(ViewResourceTests.version(h, "/sessions/\(sid)/views/\(vid)") == version)
            let reset = h.call("GET", "/sessions/\(sid)/views/\(vid)/rows?filter=a&limit=1000")
            #expect(reset["version"]?.intValue == version + 1, "naming them again is a reset")
            #expect(reset.text != rows, "in their initial state")
            #expect(ViewResourceTests.version(h, "/sessions/\(sid)") == 1, "the default view did not change")
        }
    }

    /// A view's last use survives a restart (its expiry clock): through the snapshot at
    /// shutdown, and after a crash through the batched `viewUses` entries of the upkeep; a
    /// view idle past `--view-ttl` while the server was down expires when next looked at,
    /// and its deletion is journaled.
    @Test(arguments: [true, false])
    func aViewsLastUseAndExpirySurviveARestart(shutdown: Bool) throws {
        let ttl: (inout ServiceConfiguration) -> Void = { $0.viewTTL = .seconds(300) }
        var sid = "", used = "", idle = "", lastUse = ""
        try withService(shutdown: shutdown, ttl) { h in
            sid = h.createSample()
            used = ViewResourceTests.createView(h, sid)
            idle = ViewResourceTests.createView(h, sid)
            clock.advance(.seconds(200))
            // A read alone: no entry of its own, but the upkeep's (at most one a minute).
            #expect(h.call("GET", "/sessions/\(sid)/views/\(used)/rows").status == 200)
            lastUse = Self.lastUse(h, sid, used)!
            h.service.recordUse()
        }
        clock.advance(.seconds(150))
        try withService(ttl) { h in
            // (The list reads last uses without using the views.)
            #expect(Self.lastUse(h, sid, used) == lastUse)
            #expect(h.call("GET", "/sessions/\(sid)/views/\(used)").status == 200)
            #expect(h.call("GET", "/sessions/\(sid)/views/\(idle)").status == 404, "idle 350 s, past its TTL")
            #expect(h.call("GET", "/sessions/\(sid)/views")["total"]?.intValue == 1)
        }
        try withService(shutdown: false, ttl) { h in
            #expect(h.service.durability.eventCount(.replayStopped) == 0)
            #expect(h.call("GET", "/sessions/\(sid)/views")["total"]?.intValue == 1, "the expiry was journaled")
            #expect(h.call("GET", "/sessions/\(sid)/views/\(used)").status == 200)
        }
    }

    /// A view's last use as the list of views shows it (which does not use the views).
    static func lastUse(_ h: ServiceHarness, _ sid: String, _ vid: String) -> String? {
        h.call("GET", "/sessions/\(sid)/views?limit=1000")["views"]?.array?.first { $0["id"]?.stringValue == vid }?["lastUse"]?.stringValue
    }

    /// The upkeep journals a view's reads at most once a minute, one entry for all the views
    /// of a session.
    @Test func viewUsesAreJournaledInBatchesAtMostOnceAMinute() throws {
        try withService { h in
            let sid = h.createSample()
            let views = (0 ..< 5).map { _ in ViewResourceTests.createView(h, sid) }
            let session = try #require(h.service.registry.lookup(sid))
            func journalBytes() -> Int { session.state.withReadLock { $0.files!.journalBytes } }
            clock.advance(.seconds(61))
            for vid in views { #expect(h.call("GET", "/sessions/\(sid)/views/\(vid)/rows").status == 200) }
            var bytes = journalBytes()
            h.service.recordUse()
            // One entry: the kind and time (9 bytes), a count and 16 bytes per view, in a frame of 16.
            #expect(journalBytes() == bytes + 16 + 9 + 4 + 16 * 5)
            bytes = journalBytes()
            for vid in views { #expect(h.call("GET", "/sessions/\(sid)/views/\(vid)/rows").status == 200) }
            clock.advance(.seconds(30))
            h.service.recordUse()
            #expect(journalBytes() == bytes, "less than a minute since the last")
        }
    }

    /// Under `--fsync always` the entries of views' own changes share fsyncs through the
    /// committer, off the session's lock: while the disk holds every fsync, views' changes
    /// are answered later, and the lock stays free for others.
    @Test func viewChangesShareFsyncsOffTheLockUnderFsyncAlways() throws {
        let faults = StorageFaults()
        try withService(fsync: .always, faults: faults) { h in
            let sid = h.createSample()
            let views = (0 ..< 8).map { _ in ViewResourceTests.createView(h, sid) }
            let stats = try #require(h.service.durability.directory).stats
            faults.holdFsyncs()
            let fsyncsBefore = stats.fsyncs
            var deferred: [@Sendable (@escaping @Sendable (HTTPResponse) -> Void) -> Void] = []
            for (k, vid) in views.enumerated() {
                let body = Array(#"{"expanded":true}"#.utf8)
                let response = h.service.respond(to: HTTPRequest(method: "PATCH", target: "/sessions/\(sid)/views/\(vid)/items/\(k % 5 + 1)",
                                                                 headers: HTTPHeaders([("Content-Type", "application/json")]), body: body))
                deferred.append(try #require(response.deferral, "answered once durable, not under the lock"))
            }
            // The lock is free: a read of a view is served while every fsync waits (and sees
            // its change: the 5 roots and the 3 children of node 1).
            #expect(h.call("GET", "/sessions/\(sid)/views/\(views[0])/rows")["total"]?.intValue == 8)
            let answered = Mutex<[Int]>([])
            let done = DispatchGroup()
            for send in deferred {
                done.enter()
                send { response in
                    answered.withLock { $0.append(response.status) }
                    done.leave()
                }
            }
            faults.releaseFsyncs()
            #expect(done.wait(timeout: .now() + 30) == .success)
            #expect(answered.withLock { $0 } == Array(repeating: 200, count: 8))
            #expect(stats.fsyncs - fsyncsBefore <= 3, "the eight changes shared their fsyncs (\(stats.fsyncs - fsyncsBefore))")
            // The default view's changes still wait under the lock.
            #expect(h.service.respond(to: HTTPRequest(method: "PATCH", target: "/sessions/\(sid)/items/1",
                                                      headers: HTTPHeaders([("Content-Type", "application/json")]),
                                                      body: Array(#"{"expanded":true}"#.utf8))).deferral == nil)
        }
    }
}

extension DurabilityTests {
    /// A byte flipped in the middle of a journal: the records after it are lost, and a view's
    /// version they stepped was issued too: every view's version jumps past what they could
    /// have reached, and the jump is stored.
    @Test func aDamagedJournalIssuesNoViewVersionTwice() throws {
        var sid = "", vid = ""
        try withService(shutdown: false) { h in
            sid = h.createSample()
            vid = ViewResourceTests.createView(h, sid)
            for k in 0 ..< 10 {
                #expect(h.call("PATCH", "/sessions/\(sid)/views/\(vid)/items/1", json: "{\"expanded\":\(k % 2 == 0)}").status == 200)
            }
            #expect(ViewResourceTests.version(h, "/sessions/\(sid)/views/\(vid)") == 11)
        }
        let journal = try #require(try files(of: sid)["journal"])
        var damaged = try [UInt8](Data(contentsOf: URL(fileURLWithPath: journal)))
        damaged[damaged.count / 2] ^= 0x40
        try Data(damaged).write(to: URL(fileURLWithPath: journal))
        var version = 0
        try withService { h in
            #expect(h.service.durability.eventCount(.truncatedTail) == 1)
            version = try #require(ViewResourceTests.version(h, "/sessions/\(sid)/views/\(vid)"))
            #expect(version > 11, "versions up to 11 were issued before the damage")
            let stale = h.call("PATCH", "/sessions/\(sid)/views/\(vid)/items/1", json: #"{"expanded":true}"#, headers: [("If-Match", "\"8\"")])
            #expect(stale.status == 412, "\(stale.text)")
        }
        try withService { h in #expect(ViewResourceTests.version(h, "/sessions/\(sid)/views/\(vid)") == version) }
    }

    /// A view made in a record lost to damage: its id is never given again (a review found
    /// the next view got it, and its old client's requests and `If-Match` reached it).
    @Test func aDamagedJournalGivesNoViewIDTwice() throws {
        var sid = "", lost = ""
        try withService(shutdown: false) { h in
            sid = h.createSample()
            for k in 0 ..< 10 {
                #expect(h.call("PATCH", "/sessions/\(sid)/items/1", json: "{\"expanded\":\(k % 2 == 0)}").status == 200)
            }
            lost = ViewResourceTests.createView(h, sid)
            #expect(h.call("PATCH", "/sessions/\(sid)/views/\(lost)/items/1", json: #"{"expanded":true}"#).status == 200)
        }
        let journal = try #require(try files(of: sid)["journal"])
        var damaged = try [UInt8](Data(contentsOf: URL(fileURLWithPath: journal)))
        damaged[damaged.count / 3] ^= 0x40
        try Data(damaged).write(to: URL(fileURLWithPath: journal))
        try withService { h in
            #expect(h.service.durability.eventCount(.truncatedTail) == 1)
            #expect(h.call("GET", "/sessions/\(sid)/views/\(lost)").status == 404, "the view's record was lost")
            let next = ViewResourceTests.createView(h, sid)
            #expect(next != lost)
        }
    }

    /// Deleting a view answers once its record is durable (under `--fsync always`, off the lock).
    @Test func aViewIsDeletedOnceDurable() throws {
        let faults = StorageFaults()
        try withService(fsync: .always, faults: faults) { h in
            let sid = h.createSample()
            let vid = ViewResourceTests.createView(h, sid)
            faults.holdFsyncs()
            let response = h.service.respond(to: HTTPRequest(method: "DELETE", target: "/sessions/\(sid)/views/\(vid)"))
            guard let send = response.deferral else {
                faults.releaseFsyncs()
                Issue.record("the delete answered before its record was durable")
                return
            }
            let answered = Mutex<Int?>(nil)
            let done = DispatchGroup()
            done.enter()
            send { response in
                answered.withLock { $0 = response.status }
                done.leave()
            }
            faults.releaseFsyncs()
            #expect(done.wait(timeout: .now() + 30) == .success)
            #expect(answered.withLock { $0 } == 204)
        }
    }
}

/// Data written before views were durable: journals of record format 2 (no view in a
/// change record) and session blocks of format 3 (no views; the image's are dropped).
extension DurabilityTests {
    /// A change record of format 2, as releases before format 3 wrote it.
    static func formatTwoEntry(_ record: ChangeRecord, at time: Date) -> [UInt8] {
        var out = ByteWriter()
        out.u8(JournalEntry.Kind.operations.rawValue)
        out.i64(JournalEntry.milliseconds(time))
        record.encode(to: &out, format: ChangeRecord.formatWithoutViews)
        return out.bytes
    }

    @Test func aJournalOfRecordFormat2IsReplayed() throws {
        var sid = "", expected: [String] = []
        // What the changes give, made by this version.
        let changes: [ChangeRecord] = [
            ChangeRecord(filter: nil, isBatch: false, operations: [.setExpanded(ItemID("1"), expanded: true, recursive: false)]),
            ChangeRecord(filter: FilterQuery("ce"), isBatch: false, operations: [.setExpanded(ItemID("1.2"), expanded: false, recursive: false)]),
            ChangeRecord(filter: nil, isBatch: true, operations: [.update(ItemID("2"), title: "Two", data: nil), .delete(ItemID("3"))]),
            ChangeRecord(filter: nil, isBatch: false, operations: [.insertNodes(Array(#"{"nodes":[{"title":"new"}],"parentId":"1"}"#.utf8))]),
        ]
        try withService(shutdown: false) { h in
            let reference = h.createSample()
            for record in changes {
                let filter = record.filter.map { "?filter=\($0.text)" } ?? ""
                let reply: ServiceHarness.Reply
                switch record.operations[0] {
                case .setExpanded(let item, let expanded, _):
                    reply = h.call("PATCH", "/sessions/\(reference)/items/\(item.text)\(filter)", json: "{\"expanded\":\(expanded)}")
                case .update:
                    reply = h.call("POST", "/sessions/\(reference)/batch", json: #"{"operations":[{"op":"update","id":"2","title":"Two"},{"op":"delete","id":"3"}]}"#)
                default:
                    reply = h.call("POST", "/sessions/\(reference)/items", json: #"{"nodes":[{"title":"new"}],"parentId":"1"}"#)
                }
                #expect(reply.status == 200 || reply.status == 201, "\(reply.text)")
            }
            expected = Self.views.map { Self.allRows(h, reference, $0) } + [h.call("GET", "/sessions/\(reference)/tree").text]
            sid = h.createSample()
        }
        // The same changes, appended to the other session's journal as format 2.
        let data = try DataDirectory(path: directory.path, fsync: .always)
        let stored = try data.open(sid)
        for (k, record) in changes.enumerated() {
            _ = try stored.files.append(version: UInt64(1 + k), payload: Self.formatTwoEntry(record, at: clock.wallNow))
        }
        stored.files.close()
        data.close()
        try withService { h in
            #expect(h.service.durability.eventCount(.replayStopped) == 0)
            #expect(h.service.durability.eventCount(.refusedOnReplay) == 0)
            #expect(ViewResourceTests.version(h, "/sessions/\(sid)") == 1 + changes.count)
            #expect(Self.views.map { Self.allRows(h, sid, $0) } + [h.call("GET", "/sessions/\(sid)/tree").text] == expected)
        }
    }

    /// A snapshot whose session block is of format 3 and whose image holds views (written
    /// between views in the engine and durable views): it loads with its default view only.
    @Test func aSessionBlockOfFormat3LoadsWithoutTheImagesViews() throws {
        var sid = "", rows = ""
        try withService(shutdown: false) { h in
            sid = h.createSample()
            let vid = ViewResourceTests.createView(h, sid)
            #expect(h.call("PATCH", "/sessions/\(sid)/views/\(vid)/items/1", json: #"{"expanded":true}"#).status == 200)
            #expect(h.call("PATCH", "/sessions/\(sid)/items/2", json: #"{"expanded":true}"#).status == 200)
            rows = Self.allRows(h, sid)
            // The snapshot as that release wrote it: the image with the view, the block without.
            let session = try #require(h.service.registry.lookup(sid))
            try session.state.withLock { state in
                var meta = h.service.metadata(session, state)
                meta.views = SessionMetadata.Views(key: 0, serial: 0)
                var caller = meta.encoded
                caller[0] = 3
                caller.removeLast(20 + 14)  // no views, and no settings (format 5)
                let store = state.core.store
                #expect(!store.views.isEmpty)
                let compaction = try state.files!.beginCompaction()
                try state.files!.finishCompaction(compaction) { sink in _ = try StoreImage.write(store, caller: caller, to: sink) }
            }
        }
        try withService { h in
            #expect(h.service.durability.eventCount(.quarantined) == 0)
            #expect(Self.allRows(h, sid) == rows)
            #expect(ViewResourceTests.version(h, "/sessions/\(sid)") == 2)
            #expect(h.call("GET", "/sessions/\(sid)/views")["total"]?.intValue == 0)
            let session = try #require(h.service.registry.lookup(sid))
            #expect(session.state.withReadLock { $0.core.store.views.isEmpty }, "no view the session does not know")
        }
    }

    /// A journal entry that names a view the session does not have (damage the CRCs do not
    /// show, or a bug) ends the replay there, as an entry whose version does not follow.
    @Test func anEntryNamingAnUnknownViewStopsTheReplay() throws {
        var sid = ""
        try withService(shutdown: false) { h in sid = h.createSample() }
        let data = try DataDirectory(path: directory.path, fsync: .always)
        let stored = try data.open(sid)
        let entries: [JournalEntry] = [
            .operations(ChangeRecord(filter: nil, isBatch: false, operations: [.expandAll])),
            .operations(ChangeRecord(view: ViewID(12345), filter: nil, isBatch: false, operations: [.expandAll])),
            .operations(ChangeRecord(filter: nil, isBatch: false, operations: [.collapseAll])),
        ]
        for (k, entry) in entries.enumerated() {
            _ = try stored.files.append(version: UInt64(k == 0 ? 1 : 2), payload: entry.encoded(at: clock.wallNow))
        }
        stored.files.close()
        data.close()
        try withService { h in
            #expect(h.service.durability.eventCount(.replayStopped) == 1)
            #expect(ViewResourceTests.version(h, "/sessions/\(sid)") == 2)
        }
    }
}

/// The entries of views, encoded and decoded.
extension JournalEntryTests {
    @Test func viewEntriesRoundTrip() {
        let time = Date(timeIntervalSince1970: 1_800_000_000.123)
        let entries: [JournalEntry] = [
            .viewCreated(ViewID(1), .collapsed), .viewCreated(ViewID(.max), .expanded), .viewCreated(ViewID(3), .depth(7)),
            .viewCreated(ViewID(4), .depth(Int(Int64.max))), .viewCreated(ViewID(5), .copy(of: nil)), .viewCreated(ViewID(6), .copy(of: ViewID(1))),
            .viewDeleted(ViewID(7), expired: false), .viewDeleted(ViewID(8), expired: true),
            .viewFilters(ViewID(9), []), .viewFilters(ViewID(9), [FilterQuery("a"), FilterQuery("é b", mode: .words, leavesOnly: true)]),
            .viewUses([]), .viewUses([JournalEntry.ViewUse(view: ViewID(1), time: Date(timeIntervalSince1970: 1_800_000_000.5)),
                                      JournalEntry.ViewUse(view: ViewID(2), time: time)]),
            .operations(ChangeRecord(view: ViewID(10), filter: FilterQuery("x", caseSensitive: true), isBatch: true,
                                     operations: [.collapseAll, .delete(ItemID("a"))])),
            .operations(ChangeRecord(view: ViewID(0), filter: nil, isBatch: false, operations: [.expandToDepth(2)])),
            .operations(ChangeRecord(view: ViewID(11), filter: nil, isBatch: false,
                                     operations: [.setSort(SortKeys([SortKeys.Key(.data(FieldPath(["a.b", "c"])), descending: true), SortKeys.Key(.title)]))])),
            .operations(ChangeRecord(view: ViewID(11), filter: FilterQuery("x"), isBatch: false, operations: [.setSort(nil)])),
        ]
        for entry in entries {
            let bytes = entry.encoded(at: time)
            let decoded = JournalEntry.decode(bytes)
            #expect(decoded?.entry == entry)
            #expect(decoded?.time == time)
            for n in 0 ..< bytes.count { #expect(JournalEntry.decode(Array(bytes.prefix(n))) == nil) }
            #expect(JournalEntry.decode(bytes + [0]) == nil)
        }
        // A depth of 0 is `collapsed`, a copy of itself nothing.
        var zero = JournalEntry.viewCreated(ViewID(3), .depth(1)).encoded(at: time)
        zero[zero.count - 8] = 0
        #expect(JournalEntry.decode(zero) == nil)
        #expect(JournalEntry.decode(JournalEntry.viewCreated(ViewID(6), .copy(of: ViewID(6))).encoded(at: time)) == nil)
        // A sort is a view's, and never in a batch.
        for record in [ChangeRecord(view: nil, filter: nil, isBatch: false, operations: [.setSort(nil)]),
                       ChangeRecord(view: ViewID(1), filter: nil, isBatch: true, operations: [.setSort(nil)])] {
            #expect(JournalEntry.decode(JournalEntry.operations(record).encoded(at: time)) == nil)
        }
    }

    /// A change record of format 2 reads as a change of the default view.
    @Test func aChangeRecordOfFormat2ReadsAsTheDefaultViews() {
        let record = ChangeRecord(filter: FilterQuery("a"), isBatch: false, operations: [.reveal(ItemID("x"))])
        let old = DurabilityTests.formatTwoEntry(record, at: Date(timeIntervalSince1970: 1))
        #expect(JournalEntry.decode(old)?.entry == .operations(record))
        #expect(old.count == JournalEntry.operations(record).encoded(at: Date(timeIntervalSince1970: 1)).count - 1)
    }

    /// The session block's views: decoded as written, and refused when they contradict
    /// themselves (an id twice, serials out of order or past the count).
    @Test func sessionBlockViewsAreChecked() {
        func block(_ views: [(UInt64, UInt64)], serial: UInt64) -> [UInt8] {
            SessionMetadata(version: 1, createdAt: Date(timeIntervalSince1970: 0), lastUse: Date(timeIntervalSince1970: 0), changedFilters: [],
                            views: SessionMetadata.Views(key: 5, serial: serial, views: views.map {
                                SessionMetadata.View(id: ViewID($0.0), serial: $0.1, version: 1, createdAt: Date(timeIntervalSince1970: 0),
                                                     lastUse: Date(timeIntervalSince1970: 0), changedFilters: [])
                            })).encoded
        }
        #expect(SessionMetadata(block([(1, 1), (2, 3)], serial: 3)) != nil)
        #expect(SessionMetadata(block([(1, 1), (1, 3)], serial: 3)) == nil)
        #expect(SessionMetadata(block([(1, 3), (2, 1)], serial: 3)) == nil)
        #expect(SessionMetadata(block([(1, 1), (2, 4)], serial: 3)) == nil)
        #expect(SessionMetadata(block([(1, 0)], serial: 3)) == nil)
    }
}
