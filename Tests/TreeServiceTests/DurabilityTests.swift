import Foundation
import HTTP1
import Synchronization
import Testing
import TreeEngine
import TreeFormats
import StorageTestSupport
import TreeStorage
@testable import TreeReference
@testable import TreeService

/// Sessions in a data directory: what a restart keeps, what it repairs, and what the
/// service answers when the disk fails.
@Suite struct DurabilityTests {
    let directory: TemporaryDirectory
    let clock = TestClock()

    init() throws { directory = try TemporaryDirectory() }

    /// A service on the test's data directory (its stored sessions loaded), closed after `body`
    /// (`shutdown`: as on SIGTERM; otherwise as after a kill).
    func withService<T>(shutdown: Bool = true, fsync: FsyncMode = .batch, faults: StorageFaults? = nil,
                        _ configure: (inout ServiceConfiguration) -> Void = { _ in },
                        _ body: (ServiceHarness) throws -> T) throws -> T {
        let data = try DataDirectory(path: directory.path, fsync: fsync, faults: faults)
        defer { data.close() }
        let h = ServiceHarness(clock: clock, dataDirectory: data, configure)
        defer { if shutdown { h.service.shutDownStorage() } }
        return try body(h)
    }

    /// Every row of a view, with the fields a client sees.
    static func allRows(_ h: ServiceHarness, _ sid: String, _ query: String = "") -> String {
        let reply = h.call("GET", "/sessions/\(sid)/rows?limit=1000\(query)")
        return reply.status == 200 ? String(decoding: JSONValue.array(reply["rows"]?.array ?? []).serialize(), as: UTF8.self) : "status \(reply.status)"
    }

    static let views = ["", "&filter=ce", "&filter=Layout&match=prefix", "&filter=e&caseSensitive=true"]

    /// Refused writes are logged at most once a second, the others counted in the next line
    /// (a full disk logged 4,700 lines in 2 s).
    @Test func refusedWritesAreLoggedAtMostOnceASecond() {
        let lines = Mutex<[String]>([])
        let durability = Durability(directory: nil) { line in lines.withLock { $0.append(line) } }
        let start = ContinuousClock.now
        for k in 0 ..< 1000 { durability.logRefusal("storage: refused \(k)", now: start + .milliseconds(k)) }
        durability.logRefusal("storage: refused later", now: start + .milliseconds(2500))
        durability.logRefusal("storage: refused alone", now: start + .milliseconds(4000))
        durability.logRefusal("storage: refused at last", now: start + .milliseconds(4100))
        durability.flushRefusals(now: start + .milliseconds(4500))  // under a second: nothing yet
        durability.flushRefusals(now: start + .milliseconds(5200))
        durability.flushRefusals(now: start + .milliseconds(9000))  // nothing left
        #expect(lines.withLock { $0 } == [
            "storage: refused 0",
            "storage: refused later (999 refused writes since the last line like this were not logged)",
            "storage: refused alone",
            "storage: 1 refused writes since the last line like this were not logged",
        ])
    }

    /// A shutdown that cannot make every journal durable says so: tree-server then exits 1,
    /// not 0 as if nothing were wrong.
    @Test func aShutdownThatCannotSyncSaysSo() throws {
        let faults = StorageFaults()
        try withService(shutdown: false, fsync: .off, faults: faults) { h in
            let sid = h.createSample()
            #expect(h.call("PATCH", "/sessions/\(sid)/items/1", json: #"{"title":"changed"}"#).status == 200)
            faults.inject(.fsync, errno: EIO, times: 1000)
            #expect(h.service.shutDownStorage() == false)
            faults.clear()
            #expect(h.service.shutDownStorage() == true)
        }
    }

    @Test(arguments: [true, false])
    func aSessionComesBackWithItsVersionETagViewsAndExpansion(shutdown: Bool) throws {
        var sid = "", before: [String] = [], version = 0
        try withService(shutdown: shutdown) { h in
            sid = h.createSample()
            h.call("PATCH", "/sessions/\(sid)/items/1", json: #"{"expanded":true}"#)
            h.call("PATCH", "/sessions/\(sid)/items/1.2?filter=ce", json: #"{"expanded":false}"#)
            h.call("POST", "/sessions/\(sid)/items?filter=Layout&match=prefix", json: #"{"nodes":[{"title":"Layout new","children":[{"title":"cell"}]}],"parentId":"1"}"#)
            h.call("PATCH", "/sessions/\(sid)/items/2", json: #"{"title":"Renamed Layout","data":{"k":[1,2]}}"#)
            h.call("DELETE", "/sessions/\(sid)/items/3")
            let batch = h.call("POST", "/sessions/\(sid)/batch?filter=e&caseSensitive=true",
                               json: #"{"operations":[{"op":"expandAll"},{"op":"move","id":"4","parentId":"1","index":0},{"op":"insert","nodes":[{"title":"x"}]}]}"#)
            #expect(batch.status == 200, "\(batch.text)")
            before = Self.views.map { Self.allRows(h, sid, $0) }
            version = h.call("GET", "/sessions/\(sid)")["version"]!.intValue!
        }
        try withService { h in
            let summary = h.call("GET", "/sessions/\(sid)")
            #expect(summary.status == 200)
            #expect(summary["version"]?.intValue == version)
            #expect(summary.headers["etag"] == "\"\(version)\"")
            #expect(Self.views.map { Self.allRows(h, sid, $0) } == before)
            // An If-Match from before the restart still works, and the ids generated go on.
            let next = h.call("POST", "/sessions/\(sid)/items", json: #"{"nodes":[{"title":"after"}]}"#, headers: [("If-Match", "\"\(version)\"")])
            #expect(next.status == 201, "\(next.text)")
            #expect(next["version"]?.intValue == version + 1)
        }
    }

    /// A view named with every option keeps them through the journal (`shutdown: false`)
    /// and the snapshot (`shutdown: true`): its collapsed node stays collapsed, and the
    /// view with the same text but default options is another view.
    @Test(arguments: [true, false])
    func viewOptionsSurviveARestart(shutdown: Bool) throws {
        let view = "&filter=l%20o&match=words&diacritics=insensitive&leavesOnly=true"
        var sid = "", before: [String] = []
        try withService(shutdown: shutdown) { h in
            sid = h.createSample()
            let collapse = h.call("PATCH", "/sessions/\(sid)/items/1?\(view.dropFirst())", json: #"{"expanded":false}"#)
            #expect(collapse.status == 200, "\(collapse.text)")
            before = [Self.allRows(h, sid, view), Self.allRows(h, sid, "&filter=l%20o&match=words")]
            #expect(before[0] != before[1])
        }
        try withService { h in
            #expect([Self.allRows(h, sid, view), Self.allRows(h, sid, "&filter=l%20o&match=words")] == before)
        }
    }

    @Test func aRefusedChangeIsNotReplayed() throws {
        var sid = "", rows = ""
        try withService(shutdown: false) { h in
            sid = h.createSample()
            #expect(h.call("PATCH", "/sessions/\(sid)/items/1", json: #"{"parentId":"1.1"}"#).status == 409)
            #expect(h.call("POST", "/sessions/\(sid)/batch", json: #"{"operations":[{"op":"expandAll"},{"op":"delete","id":"nope"}]}"#).status == 404)
            rows = Self.allRows(h, sid)
        }
        try withService { h in
            #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == 1)
            #expect(Self.allRows(h, sid) == rows)
            #expect(h.service.durability.eventCount(.refusedOnReplay) == 0)
        }
    }

    @Test func aViewDroppedAfterItChangedIsResetAcrossARestartAsWithout() throws {
        // Five filters, four kept: naming the first again resets it (a version step).
        var sid = "", version = 0
        try withService(shutdown: false) { h in
            sid = h.createSample()
            h.call("PATCH", "/sessions/\(sid)/items/1?filter=a", json: #"{"expanded":false}"#)
            for f in ["b", "c", "d", "e"] { _ = Self.allRows(h, sid, "&filter=\(f)") }
            version = h.call("GET", "/sessions/\(sid)")["version"]!.intValue!
        }
        try withService { h in
            #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == version)
            _ = Self.allRows(h, sid, "&filter=a")
            #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == version + 1)
        }
        try withService { h in
            #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == version + 1)
        }
    }

    /// An empty batch naming a changed view that was dropped resets it (a version step):
    /// the replay must step there too (the kill test found it replayed at the wrong version).
    @Test func anEmptyBatchThatResetsItsViewComesBackAtItsVersion() throws {
        var sid = "", rows = ""
        try withService(shutdown: false) { h in
            sid = h.createSample()
            h.call("PATCH", "/sessions/\(sid)/items/1?filter=a", json: #"{"expanded":false}"#)
            for f in ["b", "c", "d", "e"] { _ = Self.allRows(h, sid, "&filter=\(f)") }
            let batch = h.call("POST", "/sessions/\(sid)/batch?filter=a", json: #"{"operations":[]}"#)
            #expect(batch["version"]?.intValue == 3)
            h.call("PATCH", "/sessions/\(sid)/items/2", json: #"{"expanded":true}"#)
            rows = Self.allRows(h, sid, "&filter=a")
        }
        try withService { h in
            #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == 4)
            #expect(Self.allRows(h, sid, "&filter=a") == rows)
            #expect(h.service.durability.eventCount(.replayStopped) == 0)
        }
    }

    /// A change the engine refuses after it reset its view: the reset stays (as a read's
    /// would), and comes back at its version.
    @Test func aRefusedChangeThatResetItsViewComesBackWithTheReset() throws {
        var sid = "", rows = ""
        try withService(shutdown: false) { h in
            sid = h.createSample()
            h.call("PATCH", "/sessions/\(sid)/items/1?filter=a", json: #"{"expanded":false}"#)
            for f in ["b", "c", "d", "e"] { _ = Self.allRows(h, sid, "&filter=\(f)") }
            #expect(h.call("PATCH", "/sessions/\(sid)/items/1?filter=a", json: #"{"parentId":"1.1"}"#).status == 409)
            #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == 3)
            rows = Self.allRows(h, sid, "&filter=a")
        }
        try withService { h in
            #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == 3)
            #expect(Self.allRows(h, sid, "&filter=a") == rows)
            #expect(h.service.durability.eventCount(.replayStopped) == 0)
        }
    }

    @Test func aSessionThatExpiredWhileTheServerWasDownIsRemoved() throws {
        var expiring = "", used = ""
        try withService { h in
            expiring = h.createSample()
            used = h.createSample()
            h.clock.advance(.seconds(20 * 60))
            // Read only: the last use is recorded by the upkeep (and at shutdown).
            _ = Self.allRows(h, used)
            h.service.recordUse()
        }
        clock.advance(.seconds(15 * 60))
        try withService { h in
            #expect(h.call("GET", "/sessions/\(expiring)").status == 404)
            #expect(h.call("GET", "/sessions/\(used)").status == 200)
            #expect(h.service.durability.eventCount(.expiredWhileDown) == 1)
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/sessions/" + expiring))
    }

    @Test func metricsShowTheStorage() throws {
        try withService(fsync: .always) { h in
            let sid = h.createSample()
            for i in 0 ..< 5 { h.call("PATCH", "/sessions/\(sid)/items/1", json: "{\"expanded\":\(i % 2 == 0)}") }
            let lines = h.call("GET", "/metrics").text.split(separator: "\n").map(String.init)
            func value(_ name: String) -> Double? { lines.first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last!) } }
            #expect(value("tree_storage_fsync_seconds_count") == 5)
            #expect((value("tree_storage_journal_bytes") ?? 0) > 0)
            #expect(value("tree_sessions_loading") == 0)
            #expect(value("tree_storage_snapshots_total") == 1)
            // Cumulative buckets, ending at the count.
            let buckets = lines.filter { $0.hasPrefix("tree_storage_fsync_seconds_bucket") }.map { Double($0.split(separator: " ").last!)! }
            #expect(buckets == buckets.sorted() && buckets.last == 5)
        }
    }

    @Test func deleteRemovesTheFiles() throws {
        try withService { h in
            let sid = h.createSample()
            #expect(FileManager.default.fileExists(atPath: directory.path + "/sessions/" + sid))
            #expect(h.call("DELETE", "/sessions/\(sid)").status == 204)
            #expect(!FileManager.default.fileExists(atPath: directory.path + "/sessions/" + sid))
        }
    }

    @Test func aSessionStillLoadingAnswers503WithRetryAfter() throws {
        try withService { h in
            h.service.registry.willLoad("loading", nodes: 0)
            let reply = h.call("GET", "/sessions/loading/rows")
            #expect(reply.status == 503)
            #expect(reply.headers["retry-after"] == "1")
            #expect(reply["type"]?.stringValue == "urn:treesessions:problem:unavailable")
        }
    }

    @Test func aSnapshotThatFailsItsChecksIsQuarantinedAndTheRestLoads() throws {
        var damaged = "", intact = ""
        try withService { h in
            damaged = h.createSample()
            intact = h.createSample()
        }
        let snapshot = try #require(try FileManager.default.contentsOfDirectory(atPath: directory.path + "/sessions/" + damaged)
            .first { $0.hasPrefix("snapshot") && !$0.hasSuffix(".tmp") })
        let path = directory.path + "/sessions/" + damaged + "/" + snapshot
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 2] ^= 0x10
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try withService { h in
            #expect(h.call("GET", "/sessions/\(intact)").status == 200)
            // A stored session is never a 404 (it said "it may have expired"): 410, saying why.
            let reply = h.call("GET", "/sessions/\(damaged)")
            #expect(reply.status == 410)
            #expect(reply["type"]?.stringValue == "urn:treesessions:problem:session-quarantined")
            #expect(reply["detail"]?.stringValue?.contains("/quarantine/\(damaged).") == true, "\(reply.text)")
            #expect(h.service.durability.eventCount(.quarantined) == 1)
            let metrics = h.call("GET", "/metrics").text
            #expect(metrics.contains("tree_storage_recovery_events_total{kind=\"quarantined\"} 1"))
        }
        let quarantined = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/quarantine")
        #expect(quarantined.contains { $0.hasPrefix(damaged) })
        // And after the next start, from what the quarantine holds.
        try withService { h in
            #expect(h.call("GET", "/sessions/\(damaged)/rows").status == 410)
            #expect(h.call("GET", "/sessions/neverStoredHere/rows").status == 404)
        }
    }

    /// A stored session whose files cannot be read answers 503 `session-unreadable` (it said
    /// "being loaded" forever) and is loaded again by the upkeep once they can be.
    @Test func anUnreadableSessionIsLoadedAgainOnceItCanBe() throws {
        var sid = ""
        try withService { h in sid = h.createSample() }
        let faults = StorageFaults()
        faults.inject(.open, errno: EACCES, times: 1000, pathContains: "snapshot.")
        try withService(faults: faults) { h in
            let reply = h.call("GET", "/sessions/\(sid)")
            #expect(reply.status == 503)
            #expect(reply["type"]?.stringValue == "urn:treesessions:problem:session-unreadable")
            #expect(reply.headers["retry-after"] == "30")
            h.service.recordUse()
            #expect(h.call("GET", "/sessions/\(sid)").status == 503, "still unreadable")
            faults.clear()
            h.service.recordUse()
            #expect(h.call("GET", "/sessions/\(sid)").status == 200)
            #expect(h.call("PATCH", "/sessions/\(sid)/items/1", json: #"{"title":"back"}"#).status == 200)
        }
    }

    /// A write refused for a reason that is not the disk's (a permission) answers 500
    /// `storage-error`, not 507 "retry once the disk has room"; nothing changes.
    @Test func aWriteRefusedByPermissionsIs500() throws {
        let faults = StorageFaults()
        try withService(faults: faults) { h in
            let sid = h.createSample()
            faults.inject(.write, errno: EACCES, times: 1000)
            let reply = h.call("PATCH", "/sessions/\(sid)/items/1", json: #"{"title":"refused"}"#)
            #expect(reply.status == 500, "\(reply.text)")
            #expect(reply["type"]?.stringValue == "urn:treesessions:problem:storage-error")
            #expect(reply["detail"]?.stringValue?.contains("nothing was changed") == true)
            #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == 1)
            faults.clear()
        }
    }

    /// The files of a session, by name.
    func files(of sid: String) throws -> [String: String] {
        let dir = directory.path + "/sessions/" + sid
        var out: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
            out[String(name.prefix { $0 != "." })] = dir + "/" + name
        }
        return out
    }

    enum Damage: String, CaseIterable {
        case unknownVersion, missingSnapshot
    }

    @Test(arguments: Damage.allCases)
    func aSessionWhoseSnapshotCannotBeReadIsQuarantined(damage: Damage) throws {
        var sid = ""
        try withService { h in
            sid = h.createSample()
            h.call("PATCH", "/sessions/\(sid)/items/1", json: #"{"expanded":true}"#)
        }
        let snapshot = try #require(try files(of: sid)["snapshot"])
        switch damage {
        case .unknownVersion:
            // The image's format version (bytes 6 and 7), with its header's checksum made right
            // again: only the version is unknown.
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: snapshot)))
            bytes[6] = 99  // a version no reader knows
            let crc = CRC32C.checksum(bytes[0 ..< 44])
            withUnsafeBytes(of: crc.littleEndian) { for i in 0 ..< 4 { bytes[44 + i] = $0[i] } }
            try Data(bytes).write(to: URL(fileURLWithPath: snapshot))
        case .missingSnapshot:
            try FileManager.default.removeItem(atPath: snapshot)
        }
        try withService { h in
            #expect(h.call("GET", "/sessions/\(sid)").status == 410)
            #expect(h.service.durability.eventCount(.quarantined) == 1)
        }
        let quarantined = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/quarantine")
        #expect(quarantined.contains { $0.hasPrefix(sid) })
    }

    @Test func aTornJournalTailIsCutAndTheChangesBeforeItKept() throws {
        var sid = "", rowsAfterFirst = ""
        try withService(shutdown: false) { h in
            sid = h.createSample()
            h.call("PATCH", "/sessions/\(sid)/items/1", json: #"{"expanded":true}"#)
            rowsAfterFirst = Self.allRows(h, sid)
            h.call("PATCH", "/sessions/\(sid)/items/2", json: #"{"expanded":true}"#)
        }
        // The last record loses its last byte, as when the server dies in the middle of a write.
        let journal = try #require(try files(of: sid)["journal"])
        let size = try #require(try FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int)
        #expect(truncate(journal, off_t(size - 1)) == 0)
        try withService { h in
            #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == 2)
            #expect(Self.allRows(h, sid) == rowsAfterFirst)
            #expect(h.service.durability.eventCount(.truncatedTail) == 1)
            // The journal goes on after the cut.
            #expect(h.call("PATCH", "/sessions/\(sid)/items/3", json: #"{"expanded":true}"#, headers: [("If-Match", "\"2\"")]).status == 200)
        }
        try withService { h in
            #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == 3)
        }
    }

    /// A restart with lower limits (`--max-depth`, `--max-nodes`) replays the changes that
    /// were accepted: it refused them again, and the session came back without them.
    @Test func aReplayAppliesWhatWasAcceptedWhateverTodaysLimits() throws {
        var sid = ""
        let deep = (0 ..< 30).reduce(#"{"title":"leaf"}"#) { inner, k in #"{"title":"d\#(k)","children":[\#(inner)]}"# }
        try withService(shutdown: false) { h in
            sid = h.createSample()
            #expect(h.call("POST", "/sessions/\(sid)/items", json: #"{"nodes":[\#(deep)]}"#).status == 201)
            #expect(h.call("POST", "/sessions/\(sid)/items", json: #"{"nodes":[{"id":"\#(String(repeating: "i", count: 3000))","title":"long id"}]}"#).status == 201)
            #expect(h.call("POST", "/sessions/\(sid)/batch", json: #"{"operations":[{"op":"insert","nodes":[\#(deep)]}]}"#).status == 200)
        }
        try withService(shutdown: false, { $0.maxDepth = 5; $0.maxNodesPerSession = 10 }) { h in
            #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == 4)
            #expect(h.service.durability.eventCount(.refusedOnReplay) == 0)
            // Today's limits hold for what comes now.
            #expect(h.call("POST", "/sessions/\(sid)/items", json: #"{"nodes":[\#(deep)]}"#).status != 201)
        }
    }

    /// A byte flipped in the middle of a journal: the records after it are lost, but their
    /// versions were issued. The damaged file is kept in quarantine/, and the session's
    /// version jumps past every version the lost records could have reached, so no version
    /// is issued twice for different content (a client holding `ETag "8"` got 304 on a stale
    /// copy, and its `If-Match: "8"` write succeeded against other content).
    @Test func aDamagedJournalKeepsACopyAndNoVersionIsIssuedTwice() throws {
        var sid = "", journalBytes: [UInt8] = []
        try withService(shutdown: false) { h in
            sid = h.createSample()
            for k in 0 ..< 10 {
                #expect(h.call("PATCH", "/sessions/\(sid)/items/1", json: #"{"title":"t\#(k)"}"#).status == 200)
            }
            #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == 11)
        }
        let journal = try #require(try files(of: sid)["journal"])
        journalBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: journal)))
        var damaged = journalBytes
        damaged[damaged.count / 3] ^= 0x40
        try Data(damaged).write(to: URL(fileURLWithPath: journal))
        try withService { h in
            let version = try #require(h.call("GET", "/sessions/\(sid)")["version"]?.intValue)
            #expect(version >= 11, "versions up to 11 were issued before the damage")
            #expect(h.service.durability.eventCount(.truncatedTail) == 1)
            let stale = h.call("PATCH", "/sessions/\(sid)/items/1", json: #"{"title":"late"}"#, headers: [("If-Match", "\"8\"")])
            #expect(stale.status == 412, "\(stale.text)")
            #expect(h.call("PATCH", "/sessions/\(sid)/items/1", json: #"{"title":"after"}"#).status == 200)
            #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == version + 1)
        }
        // The jump was stored: a restart gives the same version again.
        try withService { h in
            #expect(h.call("GET", "/sessions/\(sid)/items/1")["title"]?.stringValue == "after")
        }
        let kept = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/quarantine")
        let copy = try #require(kept.first { $0.hasPrefix(sid + ".") && $0.hasSuffix(".damaged-journals") })
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/quarantine/\(copy)/journal.1")) == Data(damaged))
    }

    @Test(arguments: FsyncMode.allCases)
    func aLongJournalIsCompactedAndTheSessionComesBackTheSame(fsync: FsyncMode) throws {
        var sid = "", rows = ""
        try withService(shutdown: false, fsync: fsync, { $0.journalCompactionBytes = 2048 }) { h in
            sid = h.createSample()
            for i in 0 ..< 200 {
                h.call("PATCH", "/sessions/\(sid)/items/\(["1", "2", "1.2"][i % 3])", json: "{\"expanded\":\(i % 2 == 0)}")
            }
            // A compaction writes its snapshot on another thread.
            for _ in 0 ..< 100 where h.service.durability.directory!.stats.compactions == 0 { Thread.sleep(forTimeInterval: 0.02) }
            #expect(h.service.durability.directory!.stats.compactions > 0)
            rows = Self.allRows(h, sid)
        }
        try withService { h in
            #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == 201)
            #expect(Self.allRows(h, sid) == rows)
        }
    }
}

/// A disk that refuses writes: 507, and nothing changes; one whose fsync fails: 507 saying
/// the change was made.
extension DurabilityTests {
    static let changes: [(method: String, path: String, body: String?)] = [
        ("PATCH", "/items/1", #"{"expanded":true}"#),
        ("PATCH", "/items/1?filter=ce", #"{"expanded":false}"#),
        ("PATCH", "", #"{"expandAll":true}"#),
        ("PATCH", "/items/1.2", #"{"reveal":true}"#),
        ("POST", "/items", #"{"nodes":[{"title":"new"}],"parentId":"2"}"#),
        ("DELETE", "/items/3", nil),
        ("PATCH", "/items/4", #"{"parentId":"1","index":0}"#),
        ("PATCH", "/items/2", #"{"title":"Renamed"}"#),
        ("POST", "/batch", #"{"operations":[{"op":"expandAll"},{"op":"delete","id":"2"}]}"#),
    ]

    @Test(arguments: [StorageFaults.Operation.write, .fsync], [ENOSPC, EIO, EROFS])
    func aChangeTheDiskRefusesAnswers507AndChangesNothing(operation: StorageFaults.Operation, errno: Int32) throws {
        let faults = StorageFaults()
        var sid = "", rows: [String] = []
        try withService(faults: faults) { h in
            sid = h.createSample()
            let views = Self.views.map { Self.allRows(h, sid, $0) }
            for change in Self.changes {
                // A full or failing disk: every write (or fsync) fails until it is cleared.
                faults.inject(operation, errno: errno, times: 1000)
                let versionBefore = h.call("GET", "/sessions/\(sid)")["version"]?.intValue ?? 0
                let reply = h.call(change.method, "/sessions/\(sid)\(change.path)", json: change.body)
                if operation == .write {
                    #expect(reply.status == 507, "\(change): \(reply.text)")
                    #expect(reply["type"]?.stringValue == "urn:treesessions:problem:insufficient-storage")
                    // Nothing changed, and reads go on.
                    #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == 1)
                    #expect(Self.views.map { Self.allRows(h, sid, $0) } == views, "\(change)")
                } else {
                    // The first change's record was written and its fsync failed: 507
                    // `change-not-durable`, the change made (in memory and in the journal),
                    // and the answer says so (a client that retried would make it twice).
                    // Every later change first writes a fresh snapshot, whose fsync fails:
                    // 507 `insufficient-storage`, nothing changed.
                    #expect(reply.status == 507, "\(change): \(reply.text)")
                    let version = h.call("GET", "/sessions/\(sid)")["version"]?.intValue ?? 0
                    if version > versionBefore {
                        #expect(reply["type"]?.stringValue == "urn:treesessions:problem:change-not-durable", "\(change)")
                        #expect(reply.headers["etag"] == "\"\(version)\"", "\(change)")
                        #expect(reply["detail"]?.stringValue?.hasPrefix("the change was made (version \(version))") == true, "\(reply.text)")
                    } else {
                        #expect(reply["type"]?.stringValue == "urn:treesessions:problem:insufficient-storage", "\(change)")
                        #expect(reply["detail"]?.stringValue?.contains("nothing was changed") == true, "\(reply.text)")
                    }
                    #expect(version > 1, "the first change was made")
                }
                faults.clear()
            }
            #expect(h.call("PATCH", "/sessions/\(sid)/items/2", json: #"{"expanded":true}"#).status == 200)
            rows = Self.views.map { Self.allRows(h, sid, $0) }
            #expect(h.service.durability.refusedWrites.load(ordering: .relaxed) == Self.changes.count)
        }
        try withService { h in
            #expect(Self.views.map { Self.allRows(h, sid, $0) } == rows)
        }
    }

    /// While the disk is full, every change of a session that needs a snapshot tries one and
    /// is refused; each try used to leave one more empty journal file (2,000 refusals, 2,002
    /// files, kept across restarts). Now one empty journal is reused for every try.
    @Test func refusedChangesLeaveNoPileOfJournals() throws {
        let faults = StorageFaults()
        var sid = ""
        try withService(shutdown: false, faults: faults) { h in
            sid = h.createSample()
            // A failed fsync marks the session: its next change writes a snapshot first.
            faults.inject(.fsync, errno: EIO)
            #expect(h.call("PATCH", "/sessions/\(sid)/items/1", json: #"{"title":"made"}"#).status == 507)
            faults.inject(.write, errno: ENOSPC, times: 100_000)
            for k in 0 ..< 50 {
                #expect(h.call("PATCH", "/sessions/\(sid)/items/1", json: #"{"title":"t\#(k)"}"#).status == 507)
            }
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/sessions/" + sid)
            #expect(files.filter { $0.hasPrefix("journal.") }.count <= 2, "\(files.sorted())")
            faults.clear()
            #expect(h.call("PATCH", "/sessions/\(sid)/items/1", json: #"{"title":"room again"}"#).status == 200)
        }
        try withService { h in
            #expect(h.call("GET", "/sessions/\(sid)/items/1")["title"]?.stringValue == "room again")
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/sessions/" + sid)
            #expect(files.filter { $0.hasPrefix("journal.") }.count <= 2, "\(files.sorted())")
        }
    }

    @Test func anUploadTheDiskRefusesAnswers507AndLeavesNoSession() throws {
        let faults = StorageFaults()
        try withService(faults: faults) { h in
            faults.inject(.write, errno: ENOSPC, pathContains: "snapshot")
            let reply = h.call("POST", "/sessions", json: "{\"nodes\": \(ServiceHarness.sampleNodes)}")
            #expect(reply.status == 507, "\(reply.text)")
            #expect(h.service.registry.count == 0)
            #expect(h.service.registry.nodeCount == 0)
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/sessions").filter { !$0.hasPrefix(".") }
            #expect(left.isEmpty)
            faults.clear()
            #expect(h.call("POST", "/sessions", json: "{\"nodes\": \(ServiceHarness.sampleNodes)}").status == 201)
        }
    }

    @Test func aViewBuiltWhileTheDiskIsFullIsServedAndStoredOnceThereIsRoom() throws {
        let faults = StorageFaults()
        var sid = "", rows: [String] = []
        try withService(shutdown: false, faults: faults) { h in
            sid = h.createSample()
            h.call("PATCH", "/sessions/\(sid)/items/1?filter=a", json: #"{"expanded":false}"#)
            faults.inject(.write, errno: ENOSPC, times: 1000)
            // Four more views: the first one, changed, is dropped; reads work without a journal.
            for f in ["b", "c", "d", "e"] { #expect(Self.allRows(h, sid, "&filter=\(f)").hasPrefix("[")) }
            faults.clear()
            #expect(h.call("PATCH", "/sessions/\(sid)/items/2?filter=e", json: #"{"expanded":false}"#).status == 200)
            rows = ["", "&filter=a", "&filter=b", "&filter=e"].map { Self.allRows(h, sid, $0) }
        }
        try withService { h in
            let version = h.call("GET", "/sessions/\(sid)")["version"]?.intValue
            #expect(["", "&filter=a", "&filter=b", "&filter=e"].map { Self.allRows(h, sid, $0) } == rows)
            // Naming the dropped, changed view "a" again reset it (a version step) before the restart, not after.
            #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == version)
        }
    }
}

/// The journal's entries and the snapshot's session block, encoded and decoded.
@Suite struct JournalEntryTests {
    @Test func entriesRoundTrip() {
        let time = Date(timeIntervalSince1970: 1_800_000_000.123)
        let entries: [JournalEntry] = [
            .change(RecordedChange(route: .itemPatch, view: FilterQuery("é x", mode: .prefix, caseSensitive: true), item: ItemID("7"), body: Array(#"{"expanded":true}"#.utf8))),
            .change(RecordedChange(route: .batch, view: nil, body: [])),
            .change(RecordedChange(route: .deleteItem, view: nil, item: ItemID("~3"), body: [])),
            .views([FilterQuery("a"), FilterQuery("b", mode: .exact)]),
            .views([FilterQuery("a b", mode: .words, diacriticInsensitive: true), FilterQuery("é", mode: .fuzzy, leavesOnly: true),
                    FilterQuery("c", caseSensitive: true, diacriticInsensitive: true, leavesOnly: true)]),
            .change(RecordedChange(route: .itemPatch, view: FilterQuery("x", mode: .fuzzy, diacriticInsensitive: true), item: ItemID("7"), body: [])),
            .views([]),
            .touch,
            .operations(ChangeRecord(filter: nil, isBatch: false, operations: [.expandAll])),
            .operations(ChangeRecord(filter: FilterQuery("é", mode: .words), isBatch: true, operations: [
                .collapseAll, .expandToDepth(3), .setExpanded(ItemID("7"), expanded: true, recursive: false),
                .setExpanded(ItemID(""), expanded: false, recursive: true), .reveal(ItemID("é")),
                .move(ItemID("a"), parent: nil, index: nil), .move(ItemID("a"), parent: ItemID(""), index: 0),
                .update(ItemID("a"), title: "t", data: nil), .update(ItemID("a"), title: nil, data: Array("null".utf8)),
                .delete(ItemID("~3")), .insertNodes(Array(#"{"op":"insert","nodes":[]}"#.utf8)),
            ])),
            .operations(ChangeRecord(filter: nil, isBatch: true, operations: [])),
            .operations(ChangeRecord(filter: nil, isBatch: false, operations: [
                .insertRows(Array("id,title\n".utf8), RowsUpload(format: .csv(CSVDialect(delimiter: UInt8(ascii: ";"), columns: ["title": "name"])), parent: nil)),
            ])),
            .operations(ChangeRecord(filter: nil, isBatch: false, operations: [
                .insertRows(Array("a/b".utf8), RowsUpload(format: .paths(separator: "/"), parent: ItemID(""))),
            ])),
        ]
        for entry in entries {
            let decoded = JournalEntry.decode(entry.encoded(at: time))
            #expect(decoded?.entry == entry)
            #expect(decoded?.time == Date(timeIntervalSince1970: 1_800_000_000.123))
        }
    }

    @Test func damagedEntriesAreRefused() {
        let bytes = JournalEntry.views([FilterQuery("abc")]).encoded(at: Date())
        for n in 0 ..< bytes.count { #expect(JournalEntry.decode(Array(bytes.prefix(n))) == nil) }
        #expect(JournalEntry.decode(bytes + [0]) == nil)
        #expect(JournalEntry.decode([9] + bytes.dropFirst()) == nil)
        // A change record: cut anywhere, of another format, a single change of two operations.
        let record = JournalEntry.operations(ChangeRecord(filter: nil, isBatch: false, operations: [.delete(ItemID("x"))])).encoded(at: Date())
        for n in 0 ..< record.count { #expect(JournalEntry.decode(Array(record.prefix(n))) == nil) }
        #expect(JournalEntry.decode(record) != nil)
        var otherFormat = record
        otherFormat[9] = 4
        #expect(JournalEntry.decode(otherFormat) == nil)
        let two = JournalEntry.operations(ChangeRecord(filter: nil, isBatch: false, operations: [.expandAll, .expandAll])).encoded(at: Date())
        #expect(JournalEntry.decode(two) == nil)
        // A route without an item, with one.
        let withItem = JournalEntry.change(RecordedChange(route: .sessionPatch, view: nil, item: ItemID("1"), body: [])).encoded(at: Date())
        #expect(JournalEntry.decode(withItem) == nil)
        // An item's id may be empty.
        let empty = JournalEntry.change(RecordedChange(route: .deleteItem, view: nil, item: ItemID(""), body: []))
        #expect(JournalEntry.decode(empty.encoded(at: Date()))?.entry == empty)
    }

    @Test func metadataRoundTrips() {
        let meta = SessionMetadata(version: 42, createdAt: Date(timeIntervalSince1970: 1_700_000_000.5),
                                   lastUse: Date(timeIntervalSince1970: 1_700_000_100.25),
                                   changedFilters: [FilterQuery("x"), FilterQuery("y", mode: .exact, caseSensitive: true),
                                                    FilterQuery("x", leavesOnly: true), FilterQuery("x", mode: .words, diacriticInsensitive: true)],
                                   views: SessionMetadata.Views(key: 0xDEAD_BEEF, serial: 9, views: [
                                       SessionMetadata.View(id: ViewID(7), serial: 2, version: 5, createdAt: Date(timeIntervalSince1970: 1_700_000_001.5),
                                                            lastUse: Date(timeIntervalSince1970: 1_700_000_050.125), changedFilters: []),
                                       SessionMetadata.View(id: ViewID(.max), serial: 9, version: 1, createdAt: Date(timeIntervalSince1970: 1_700_000_002),
                                                            lastUse: Date(timeIntervalSince1970: 1_700_000_003), changedFilters: [FilterQuery("x"), FilterQuery("é", mode: .fuzzy)]),
                                   ]))
        #expect(SessionMetadata(meta.encoded) == meta)
        for n in 0 ..< meta.encoded.count { #expect(SessionMetadata(Array(meta.encoded.prefix(n))) == nil) }
        var doubling = meta
        doubling.doublesPathBackslashes = true
        #expect(SessionMetadata(doubling.encoded) == doubling)
        var named = meta
        named.settings = SessionSettings(name: "Q4 plan", labels: ["team": "search", "k8s.io/app": ""], owner: "ana@example.com",
                                         ttl: .zero, tokensValidAfter: 1_800_000_000_123)
        #expect(SessionMetadata(named.encoded) == named)
        for n in 0 ..< named.encoded.count { #expect(SessionMetadata(Array(named.encoded.prefix(n))) == nil) }
        let entry = JournalEntry.settings(named.settings)
        #expect(JournalEntry.decode(entry.encoded(at: Date(timeIntervalSince1970: 5)))?.entry == entry)
    }

    /// A path-list insert's record says how its ids are spelled: code 3, as every record
    /// made before the minimal form, doubles backslashes; code 4 does not.
    @Test func pathInsertRecordsKeepTheirSpelling() {
        for doubles in [false, true] {
            let rows = RowsUpload(format: .paths(separator: "/"), parent: ItemID("a"), doublesBackslashes: doubles)
            #expect(rows.code == (doubles ? 3 : 4))
            #expect(RowsUpload(code: rows.code, separator: "/", parent: ItemID("a")) == rows)
        }
        #expect(RowsUpload(code: 4, separator: "", parent: nil) == nil)
    }
}

extension DurabilityTests {
    /// Under `--fsync always` the fsync runs under the session's lock: a failed one is answered
    /// the same way, the change made and said to be.
    @Test func aFailedFsyncUnderFsyncAlwaysSaysTheChangeWasMade() throws {
        let faults = StorageFaults()
        try withService(fsync: .always, faults: faults) { h in
            let sid = h.createSample()
            faults.inject(.fsync, errno: EIO, times: 1000)
            let reply = h.call("PATCH", "/sessions/\(sid)/items/2", json: #"{"title":"Renamed"}"#)
            faults.clear()
            #expect(reply.status == 507)
            #expect(reply["type"]?.stringValue == "urn:treesessions:problem:change-not-durable")
            #expect(reply.headers["etag"] == "\"2\"")
            #expect(h.call("GET", "/sessions/\(sid)/items/2")["title"]?.stringValue == "Renamed")
        }
    }
}

/// Storage errors the service used to swallow are logged and counted (`/metrics`).
extension DurabilityTests {
    /// A compaction whose new journal cannot be opened: the change is made, the journal stays,
    /// and the failure counts.
    @Test func aCompactionThatCannotStartIsCounted() throws {
        let faults = StorageFaults()
        try withService(fsync: .off, faults: faults, { $0.journalCompactionBytes = 1 }) { h in
            let sid = h.createSample()
            faults.inject(.open, errno: EMFILE, times: 1)
            var changes = 0
            // Until the journal outgrows the snapshot and a compaction is due.
            while h.service.durability.failedCompactions.load(ordering: .relaxed) == 0 && changes < 500 {
                #expect(h.call("PATCH", "/sessions/\(sid)/items/1", json: #"{"expanded":\#(changes % 2 == 0)}"#).status == 200)
                changes += 1
            }
            faults.clear()
            #expect(h.service.durability.failedCompactions.load(ordering: .relaxed) == 1)
            #expect(h.call("GET", "/metrics").text.contains("\ntree_storage_compaction_failures_total 1\n"))
            #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == 1 + changes)
        }
    }

    /// An expired session whose files cannot be removed stays, whole, and the failure counts;
    /// a later sweep removes it.
    @Test func anExpiryTheDiskRefusesKeepsTheSessionAndIsCounted() throws {
        let faults = StorageFaults()
        try withService(faults: faults) { h in
            _ = h.createSample()
            h.clock.advance(ServiceConfiguration().sessionTTL + .seconds(11))
            faults.inject(.rename, errno: EROFS, times: 1000)
            h.service.registry.sweepIfDue()
            faults.clear()
            #expect(h.service.registry.failedRemovals.load(ordering: .relaxed) == 1)
            #expect(h.service.registry.count == 1, "it stays until its files are removed")
            #expect(h.call("GET", "/metrics").text.contains("\ntree_storage_failed_removals_total 1\n"))
            h.clock.advance(.seconds(11))
            h.service.registry.sweepIfDue()
            #expect(h.service.registry.count == 0)
        }
    }
}
