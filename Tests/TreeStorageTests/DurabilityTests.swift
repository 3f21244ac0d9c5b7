import Glibc
import Synchronization
import Testing
import StorageTestSupport
@testable import TreeStorage

/// Failed writes and fsyncs (injected, and a real full file system), and the fsync modes
/// with group commit.
@Suite struct DurabilityTests {
    /// ENOSPC in the middle of an append (half the record written): thrown, a disk failure,
    /// the journal cut back to where it was; the next append succeeds.
    @Test func failedAppendLeavesTheJournalAsItWas() throws {
        try withTemporaryDirectory { path in
            let faults = StorageFaults()
            let dir = try DataDirectory(path: path, fsync: .batch, faults: faults)
            let files = try dir.create("s", writeSnapshot: Versions.writer([1]))
            let journal = path + "/sessions/s/journal.1"
            try files.append(2)
            let before = files.journalBytes
            faults.inject(.write, errno: ENOSPC)
            let error = failure { () throws(StorageError) in _ = try files.append(3) }
            #expect(error?.errno == ENOSPC && error?.isDiskFailure == true && error?.path == journal)
            #expect(files.journalBytes == before && fileSize(journal) == before && dir.stats.journalBytes == before)
            #expect(dir.stats.writeFailures == 1)
            let next = try files.append(3)
            #expect(next.start == before)
            try files.waitDurable(next)

            // The cut back fails too: the next append cuts first, then writes.
            faults.inject(.write, errno: EIO)
            faults.inject(.truncate, errno: EIO)
            #expect(failure { () throws(StorageError) in _ = try files.append(4) }?.errno == EIO)
            #expect(fileSize(journal)! > next.end)  // the half record is still there
            try files.append(4)
            #expect(fileSize(journal) == files.journalBytes)
            // ... and if that cut fails as well, the append is refused, nothing written.
            faults.inject(.write, errno: ENOSPC)
            faults.inject(.truncate, errno: EIO, times: 2)
            #expect(failure { () throws(StorageError) in _ = try files.append(5) }?.errno == ENOSPC)
            #expect(failure { () throws(StorageError) in _ = try files.append(5) }?.errno == EIO)
            try files.append(5)
            files.close()
            let stored = try dir.open("s")
            #expect(try Versions.replay(stored) == [1, 2, 3, 4, 5] && stored.events.isEmpty)
            stored.files.close()
        }
    }

    @Test func diskFailureErrnos() {
        for e in [ENOSPC, EDQUOT, EIO, EROFS, EFBIG] {
            #expect(StorageError(errno: e, operation: "write", path: "p").isDiskFailure)
        }
        for e in [0, ENOMEM, EMFILE, EACCES, EBADF, EINVAL, EEXIST, ENOENT] {
            #expect(!StorageError(errno: e, operation: "write", path: "p").isDiskFailure)
        }
        #expect(StorageError(errno: ENOSPC, operation: "write", path: "/d/j").description == "write /d/j: No space left on device (errno 28)")
    }

    /// EIO from fsync is thrown to every waiter whose record that fsync covered; the next
    /// fsync is tried again and, when it succeeds, the waiters after it return.
    @Test func failedFsyncIsThrownToEveryWaiterItCovered() throws {
        try withTemporaryDirectory { path in
            let faults = StorageFaults()
            let dir = try DataDirectory(path: path, fsync: .batch, faults: faults)
            let files = try dir.create("s", writeSnapshot: Versions.writer([]))
            let positions = try (UInt64(1) ... 4).map { try files.append($0) }
            // Slow enough that the four waiters are all waiting when it fails.
            faults.setFsyncDelay(seconds: 0.05)
            faults.inject(.fsync, errno: EIO, pathContains: "journal")
            let errors = Mutex<[Int32]>([])
            onThreads(4) { i in
                let e = failure { () throws(StorageError) in try files.waitDurable(positions[i]) }
                errors.withLock { $0.append(e?.errno ?? 0) }
            }
            #expect(errors.withLock { $0 } == [EIO, EIO, EIO, EIO])
            #expect(dir.stats.fsyncs == 1 && dir.stats.fsyncFailures == 1)
            faults.setFsyncDelay(seconds: 0)
            // A later fsync succeeds: the file is usable again.
            try files.waitDurable(positions[3])
            #expect(dir.stats.fsyncs == 2)
            // A record covered already returns without an fsync.
            try files.waitDurable(positions[0])
            #expect(dir.stats.fsyncs == 2)
            // `always` syncs on every call.
            files.close()
        }
    }

    /// Many threads appending (one at a time, as under a session's lock) and waiting (all
    /// at once): in `batch` they share fsyncs, in `always` each call has its own, in `off`
    /// there are none. Every record is there after a reopen.
    @Test(arguments: [FsyncMode.batch, .always, .off])
    func groupCommit(mode: FsyncMode) throws {
        try withTemporaryDirectory { path in
            let faults = StorageFaults()
            faults.setFsyncDelay(seconds: 0.001)  // a disk slower than this machine's cache
            let dir = try DataDirectory(path: path, fsync: mode, faults: faults)
            let files = try dir.create("s", writeSnapshot: Versions.writer([]))
            let sessionLock = Mutex<UInt64>(0)
            let threads = 8, each = mode == .always ? 5 : 25
            let failures = Atomic<Int>(0)
            onThreads(threads) { _ in
                for _ in 0 ..< each {
                    let position = sessionLock.withLock { version -> JournalPosition? in
                        version += 1
                        return try? files.append(version)
                    }
                    guard let position, (try? files.waitDurable(position)) != nil else {
                        failures.add(1, ordering: .relaxed)
                        continue
                    }
                }
            }
            let records = threads * each
            #expect(failures.load(ordering: .relaxed) == 0)
            switch mode {
            case .batch:
                #expect(dir.stats.fsyncs < records, "\(dir.stats.fsyncs) fsyncs for \(records) records")
                #expect(dir.stats.fsyncs >= 1)
            case .always:
                #expect(dir.stats.fsyncs == records)
            case .off:
                #expect(dir.stats.fsyncs == 0)
            }
            let buckets = dir.stats.fsyncLatencyBuckets()
            #expect(buckets.count == StorageStats.fsyncBucketBounds.count)
            #expect(buckets.last!.count <= dir.stats.fsyncs)
            #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $0.count <= $1.count })
            #expect(dir.stats.fsyncs == 0 || dir.stats.fsyncLatencySum >= 0.001 * Double(dir.stats.fsyncs))
            files.close()
            let stored = try dir.open("s")
            #expect(try Versions.replay(stored) == (0 ..< records).map { UInt64($0 + 1) })
            stored.files.close()
        }
    }

    /// `syncAll` syncs every open session, whatever the mode.
    @Test func syncAllSyncsEveryOpenSession() throws {
        try withTemporaryDirectory { path in
            let dir = try DataDirectory(path: path, fsync: .off)
            let a = try dir.create("a", writeSnapshot: Versions.writer([]))
            let b = try dir.create("b", writeSnapshot: Versions.writer([]))
            try a.append(1)
            try b.append(1)
            #expect(dir.syncAll().isEmpty)
            #expect(dir.stats.fsyncs == 2)
            b.close()
            #expect(dir.syncAll().isEmpty)
            #expect(dir.stats.fsyncs == 3)
            a.close()
        }
    }
}

/// A real full file system: a 1 MiB tmpfs.
@Suite(.serialized) struct FullFileSystemTests {
    /// Mounting needs root (CAP_SYS_ADMIN); tried once on a scratch directory.
    static let canMount: Bool = {
        (try? withTemporaryDirectory { path in
            guard mount("tmpfs", path, "tmpfs", 0, "size=64k") == 0 else { return false }
            umount2(path, Int32(MNT_DETACH))
            return true
        }) ?? false
    }()

    @Test(.enabled(if: canMount, "mounting a tmpfs needs root (CAP_SYS_ADMIN)"))
    func appendUntilTheDiskIsFullThenFreeSpace() throws {
        try withTemporaryDirectory { path in
            guard mount("tmpfs", path, "tmpfs", 0, "size=1m") == 0 else {
                Issue.record("mount: errno \(errno)")
                return
            }
            defer { umount2(path, Int32(MNT_DETACH)) }
            let dir = try DataDirectory(path: path + "/data", fsync: .batch)
            let files = try dir.create("s", writeSnapshot: Versions.writer([]))
            let journal = path + "/data/sessions/s/journal.1"
            // A filler file takes half the space.
            try writeFile(path + "/filler", [UInt8](repeating: 7, count: 512 << 10))
            let payload = [UInt8](repeating: 1, count: 3000)
            var version: UInt64 = 0
            var full: StorageError?
            while full == nil && version < 1000 {
                do throws(StorageError) {
                    let p = try files.append(version: version + 1, payload: payload)
                    try files.waitDurable(p)
                    version += 1
                } catch {
                    full = error
                }
            }
            #expect(full?.errno == ENOSPC && full?.isDiskFailure == true, "\(String(describing: full))")
            #expect(version > 10)
            #expect(files.journalBytes == Int(version) * 3016 && fileSize(journal) == files.journalBytes)
            // Still full.
            #expect(failure { () throws(StorageError) in _ = try files.append(version: version + 1, payload: payload) }?.errno == ENOSPC)
            #expect(fileSize(journal) == files.journalBytes)
            // A compaction's snapshot fails too, and leaves nothing.
            let c = try files.beginCompaction()
            let bigImage = [UInt8](repeating: 0, count: 600 << 10)
            let snapshotError = failure { () throws(StorageError) in
                try files.finishCompaction(c) { sink in try bigImage.withUnsafeBytes { try sink($0) } }
            }
            #expect(snapshotError?.isDiskFailure == true)
            #expect(try listDirectory(path + "/data/sessions/s") == ["journal.1", "journal.2", "snapshot.1"])
            // Space is back.
            #expect(unlink(path + "/filler") == 0)
            let p = try files.append(version: version + 1, payload: payload)
            try files.waitDurable(p)
            files.close()
            let stored = try dir.open("s")
            #expect(stored.records.map(\.version) == (0 ... version).map { $0 + 1 } && stored.events.isEmpty)
            stored.files.close()
        }
    }
}
