import Glibc
import Synchronization
import Testing
import StorageTestSupport
@testable import TreeStorage

/// Journal files: the record framing, recovery of torn and damaged tails at every byte and
/// every bit, generations, and compactions interrupted at each step.
@Suite struct JournalTests {
    @Test func recordFraming() {
        let record = Journal.encode(version: 0x0102_0304_0506_0708, payload: [0xAA, 0xBB])
        #expect(record.count == 18)
        #expect(Array(record[0 ..< 4]) == [10, 0, 0, 0])  // length of version + payload
        #expect(Array(record[8 ..< 16]) == [8, 7, 6, 5, 4, 3, 2, 1])
        #expect(Array(record[16...]) == [0xAA, 0xBB])
        let crc = CRC32C.checksum(record[8...])
        #expect(Array(record[4 ..< 8]) == [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)])
        let scan = Journal.scan(record + Journal.encode(version: 9, payload: []))
        #expect(scan.records.map(\.record) == [JournalRecord(version: 0x0102_0304_0506_0708, payload: [0xAA, 0xBB]),
                                               JournalRecord(version: 9, payload: [])])
        #expect(scan.records.map(\.offset) == [0, 18] && scan.goodEnd == 34 && scan.damage == nil)
        // Lengths out of range end the journal.
        for length: UInt32 in [0, 7, 1 << 30 + 1, .max] {
            var bad = record
            withUnsafeBytes(of: length.littleEndian) { for i in 0 ..< 4 { bad[i] = $0[i] } }
            let s = Journal.scan(record + bad)
            #expect(s.records.count == 1 && s.goodEnd == 18 && s.damage?.contains("length") == true)
        }
    }

    /// A session with a snapshot of [1] and records 2, 3, 4 in journal.1, closed.
    static func threeRecords(_ dir: DataDirectory) throws -> (journal: String, ends: [Int]) {
        let files = try dir.create("s", writeSnapshot: Versions.writer([1]))
        var ends: [Int] = []
        for v in UInt64(2) ... 4 { ends.append(try files.append(v).end) }
        files.close()
        return (dir.path + "/sessions/s/journal.1", ends)
    }

    /// The last record cut at every length: the ones before it are kept, the file is cut
    /// back to their end, an event says so, and appends go on from there.
    @Test func tornLastRecordAtEveryByte() throws {
        try withTemporaryDirectory { path in
            let dir = try DataDirectory(path: path, fsync: .batch)
            let (journal, ends) = try Self.threeRecords(dir)
            let whole = try fileBytes(journal)
            #expect(whole.count == ends[2])
            for cut in ends[1] ..< ends[2] {
                try writeFile(journal, Array(whole[..<cut]))
                let stored = try dir.open("s")
                #expect(try Versions.replay(stored) == [1, 2, 3], "cut at \(cut)")
                #expect(fileSize(journal) == ends[1])
                #expect(stored.files.journalBytes == ends[1])
                if cut == ends[1] {
                    #expect(stored.events.isEmpty)
                } else {
                    #expect(stored.events.count == 1, "cut at \(cut)")
                    #expect(stored.events.first?.hasPrefix("journal.1: ") == true)
                    #expect(stored.events.first?.contains("at byte \(ends[1]), 2 records kept, truncated \(cut - ends[1]) bytes") == true,
                            "\(stored.events)")
                }
                // The next append follows the last good record.
                try stored.files.append(5)
                stored.files.close()
                let again = try dir.open("s")
                #expect(try Versions.replay(again) == [1, 2, 3, 5] && again.events.isEmpty)
                again.files.close()
            }
            #expect(dir.stats.recoveryEvents == ends[2] - ends[1] - 1)
        }
    }

    /// Every single bit flipped in a small journal: the records before the damaged one
    /// are kept, the file is cut where the damaged one starts.
    @Test func everyFlippedBit() throws {
        try withTemporaryDirectory { path in
            let dir = try DataDirectory(path: path, fsync: .off)
            let (journal, ends) = try Self.threeRecords(dir)
            let whole = try fileBytes(journal)
            let starts = [0] + ends.dropLast()
            for bit in 0 ..< whole.count * 8 {
                var damaged = whole
                damaged[bit / 8] ^= 1 << UInt8(bit % 8)
                try writeFile(journal, damaged)
                let hit = starts.lastIndex { $0 <= bit / 8 }!
                let stored = try dir.open("s")
                #expect(try Versions.replay(stored) == [1] + (0 ..< hit).map { UInt64($0 + 2) }, "bit \(bit)")
                #expect(stored.events.count == 1, "bit \(bit)")
                #expect(fileSize(journal) == starts[hit], "bit \(bit)")
                stored.files.close()
            }
        }
    }

    /// Damage in an older generation ends the journal there: the later generations (which
    /// follow lost records) are deleted; so are generations after a missing one.
    @Test func damageOrAGapEndsTheLaterGenerations() throws {
        try withTemporaryDirectory { path in
            let dir = try DataDirectory(path: path, fsync: .batch)
            let files = try dir.create("s", writeSnapshot: Versions.writer([1]))
            try files.append(2)
            try files.append(3)
            _ = try files.beginCompaction()  // never finished
            try files.append(4)
            files.close()
            let one = path + "/sessions/s/journal.1", two = path + "/sessions/s/journal.2"
            let stored = try dir.open("s")
            #expect(try Versions.replay(stored) == [1, 2, 3, 4] && stored.events.isEmpty)
            #expect(stored.files.journalGeneration == 2 && stored.files.allJournalBytes == 72 && stored.files.journalBytes == 24)
            #expect(dir.stats.journalBytes == 72)
            stored.files.close()

            // journal.1's last record cut: journal.2 goes, appends continue in journal.1.
            let bytes = try fileBytes(one)
            try writeFile(one, Array(bytes.dropLast(3)))
            let repaired = try dir.open("s")
            #expect(try Versions.replay(repaired) == [1, 2])
            #expect(repaired.events.count == 2 && repaired.events[1].contains("deleted journal.2"), "\(repaired.events)")
            #expect(!fileExists(two) && repaired.files.journalGeneration == 1)
            try repaired.files.append(3)
            repaired.files.close()
            #expect(try Versions.replay(dir.open("s").withClose()) == [1, 2, 3])

            // journal.3 without journal.2.
            try writeFile(path + "/sessions/s/journal.3", Journal.encode(version: 9, payload: Versions.payload(9)))
            let gap = try dir.open("s")
            #expect(try Versions.replay(gap) == [1, 2, 3])
            #expect(gap.events.count == 1 && gap.events[0].hasPrefix("deleted journal.3 (journal.2 is missing; a copy is in \(path)/quarantine/s."), "\(gap.events)")
            // What was deleted is kept in the quarantine, and bounds the versions it held.
            #expect(gap.lost?.highestVersion == 9 && gap.lost!.atMost >= 1)
            gap.files.close()

            // journal.2 without journal.1 (the snapshot's generation).
            #expect(unlink(one) == 0)
            try writeFile(two, Journal.encode(version: 9, payload: Versions.payload(9)))
            let first = try dir.open("s")
            #expect(try Versions.replay(first) == [1])
            #expect(first.events.count == 1 && first.events[0].hasPrefix("deleted journal.2 (journal.1 is missing; a copy is in "), "\(first.events)")
            #expect(try listDirectory(path + "/sessions/s") == ["journal.1", "snapshot.1"])
            first.files.close()
        }
    }

    /// A compaction interrupted at each step recovers the same state: after the rotation
    /// only; after the new snapshot's rename, before the old files are deleted; after a
    /// failed snapshot write or rename; and finished.
    @Test func compactionInterruptedAtEachStep() throws {
        for step in ["begun", "snapshot written", "snapshot failed", "rename failed", "finished"] {
            try withTemporaryDirectory { path in
                let faults = StorageFaults()
                let dir = try DataDirectory(path: path, fsync: .batch, faults: faults)
                let files = try dir.create("s", writeSnapshot: Versions.writer([1]))
                try files.append(2)
                try files.append(3)
                // A rotation that cannot create its file changes nothing.
                faults.inject(.open, errno: EMFILE)
                #expect(failure { () throws(StorageError) in _ = try files.beginCompaction() }?.errno == EMFILE)
                #expect(!files.isCompacting && files.journalGeneration == 1)
                let c = try files.beginCompaction()
                #expect(c.generation == 2 && files.isCompacting)
                #expect(throws: StorageError.self) { try files.beginCompaction() }
                let late = try files.append(4)  // goes to journal.2
                #expect(late.generation == 2 && late.start == 0)
                switch step {
                case "begun":
                    break
                case "snapshot written":
                    _ = try SessionFiles.writeSnapshotFile(directory: files.directory, generation: 2, fs: dir.fs, stats: dir.stats,
                                                           Versions.writer([1, 2, 3]))
                case "snapshot failed", "rename failed":
                    if step == "rename failed" {
                        faults.inject(.rename, errno: EIO)
                    } else {
                        faults.inject(.write, errno: ENOSPC, nth: 2)
                    }
                    let error = failure { () throws(StorageError) in try files.finishCompaction(c, writeSnapshot: Versions.writer([1, 2, 3])) }
                    #expect(error?.errno == (step == "rename failed" ? EIO : ENOSPC) && error?.isDiskFailure == true)
                    #expect(!files.isCompacting && files.snapshotGeneration == 1)
                    #expect(try listDirectory(files.directory) == ["journal.1", "journal.2", "snapshot.1"])
                default:
                    try files.finishCompaction(c, writeSnapshot: Versions.writer([1, 2, 3]))
                    #expect(try listDirectory(files.directory) == ["journal.2", "snapshot.2"])
                    #expect(files.snapshotGeneration == 2 && files.allJournalBytes == 24 && dir.stats.journalBytes == 24)
                    #expect(dir.stats.compactions == 1 && dir.stats.snapshotsWritten == 2)
                }
                try files.waitDurable(late)
                files.close()
                let stored = try dir.open("s")
                #expect(try Versions.replay(stored) == [1, 2, 3, 4], "\(step)")
                #expect(stored.snapshotGeneration == (step == "snapshot written" || step == "finished" ? 2 : 1), "\(step)")
                // Finishing the compaction loses nothing: cleanups, not recovery events.
                #expect(stored.events.isEmpty, "\(step)")
                if step == "snapshot written" {
                    #expect(stored.cleanups == ["removed snapshot.1 (replaced by snapshot.2)", "removed journal.1 (older than snapshot.2)"])
                } else {
                    #expect(stored.cleanups.isEmpty || stored.cleanups.allSatisfy { $0.hasSuffix("(a snapshot whose writing did not finish)") }, "\(step): \(stored.cleanups)")
                }
                // A compaction after the recovery finishes and leaves one generation.
                let files2 = stored.files
                try files2.append(5)
                let c2 = try files2.beginCompaction()
                #expect(c2.generation == 3)
                try files2.append(6)
                try files2.finishCompaction(c2, writeSnapshot: Versions.writer([1, 2, 3, 4, 5]))
                #expect(try listDirectory(files2.directory) == ["journal.3", "snapshot.3"])
                files2.close()
                #expect(try Versions.replay(dir.open("s").withClose()) == [1, 2, 3, 4, 5, 6])
            }
        }
    }
}

extension StoredSession {
    /// Closes the files and gives the session back (tests that only read it).
    func withClose() -> StoredSession {
        files.close()
        return self
    }
}

/// Eight threads changing one session as the service will: append under the session's
/// lock (a change that is refused appends nothing), wait for durability without it, and now and
/// then a compaction begun under the lock and finished outside it. After a reopen the
/// snapshot and the records give exactly the changes kept, in order.
@Suite struct JournalConcurrencyTests {
    @Test(arguments: [FsyncMode.batch, .always])
    func appendsWaitsAndCompactionsTogether(mode: FsyncMode) throws {
        try withTemporaryDirectory { path in
            let dir = try DataDirectory(path: path, fsync: mode)
            let files = try dir.create("s", writeSnapshot: Versions.writer([]))
            struct Session {
                var version: UInt64 = 0
                var changes = 0
            }
            let session = Mutex(Session())
            let failures = Atomic<Int>(0)
            onThreads(8) { thread in
                for step in 0 ..< 40 {
                    let (position, compaction) = session.withLock { s -> (JournalPosition?, (Compaction, UInt64)?) in
                        s.changes += 1
                        // A change refused before its record: nothing appended, the version unchanged.
                        if (thread + step) % 7 == 3 { return (nil, nil) }
                        guard let p = try? files.append(s.version + 1) else { return (nil, nil) }
                        s.version += 1
                        if s.changes % 37 == 0, let c = try? files.beginCompaction() { return (p, (c, s.version)) }
                        return (p, nil)
                    }
                    if let position, (try? files.waitDurable(position)) == nil { failures.add(1, ordering: .relaxed) }
                    if let (c, version) = compaction {
                        let ok = (try? files.finishCompaction(c, writeSnapshot: Versions.writer(Array(1 ... version)))) != nil
                        if !ok { failures.add(1, ordering: .relaxed) }
                    }
                }
            }
            #expect(failures.load(ordering: .relaxed) == 0)
            let last = session.withLock { $0.version }
            // Some begin while another runs (EALREADY, skipped): how many end depends on the timing.
            #expect(dir.stats.compactions >= 1)
            files.close()
            let stored = try dir.open("s")
            #expect(try Versions.replay(stored) == Array(1 ... last))
            #expect(stored.events.isEmpty)
            stored.files.close()
        }
    }
}
