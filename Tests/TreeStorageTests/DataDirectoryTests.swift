import Foundation
import Glibc
import Testing
import TreeEngine
import StorageTestSupport
@testable import TreeStorage

/// The data directory: creating, opening, listing, removing and quarantining sessions,
/// the lock, and what recovery does with missing or unreadable snapshots.
@Suite struct DataDirectoryTests {
    @Test func createAppendReopen() throws {
        try withTemporaryDirectory { path in
            let dir = try DataDirectory(path: path, fsync: .batch)
            let files = try dir.create("s1", writeSnapshot: Versions.writer([1, 2]))
            #expect(try listDirectory(path) == ["LOCK", "quarantine", "sessions"])
            #expect(try listDirectory(path + "/sessions/s1") == ["journal.1", "snapshot.1"])
            #expect(files.journalBytes == 0 && files.snapshotBytes == Versions.image([1, 2]).count)
            var last: JournalPosition?
            for v in UInt64(3) ... 6 { last = try files.append(v) }
            try files.waitDurable(last!)
            #expect(files.journalBytes == 4 * (16 + 8) && dir.stats.journalBytes == files.journalBytes)
            #expect(dir.stats.snapshotsWritten == 1)
            files.close()
            #expect(dir.stats.journalBytes == 0 && dir.openSessionCount == 0)
            #expect(throws: StorageError.self) { try files.append(7) }

            #expect(try dir.storedSessions() == ["s1"])
            let info = try dir.info("s1")
            #expect(info.snapshotGeneration == 1 && info.journalBytes == 96 && info.nodeCount == 0)
            let stored = try dir.open("s1")
            #expect(stored.events.isEmpty && stored.snapshotGeneration == 1)
            #expect(try Versions.replay(stored) == [1, 2, 3, 4, 5, 6])
            // Appends go on after the last record.
            try stored.files.append(7)
            stored.files.close()
            let again = try dir.open("s1")
            #expect(try Versions.replay(again) == Array(1 ... 7))
            // A session is opened once at a time.
            #expect(throws: RecoveryError.self) { try dir.open("s1") }
            again.files.close()
        }
    }

    @Test func createRefusesAnExistingIdAndBadIds() throws {
        try withTemporaryDirectory { path in
            let dir = try DataDirectory(path: path, fsync: .off)
            let files = try dir.create("a-b_C.9", writeSnapshot: Versions.writer([]))
            #expect(throws: StorageError(errno: EEXIST, operation: "mkdir", path: path + "/sessions/a-b_C.9")) {
                try dir.create("a-b_C.9", writeSnapshot: Versions.writer([]))
            }
            for bad in ["", ".", "..", ".x", "a/b", "é", String(repeating: "x", count: 129)] {
                #expect(throws: StorageError.self) { try dir.create(bad, writeSnapshot: Versions.writer([])) }
                #expect(dir.remove(bad)?.errno == EINVAL)
            }
            files.close()
            #expect(try dir.storedSessions() == ["a-b_C.9"])
        }
    }

    /// A writer that throws leaves nothing behind; the error is a StorageError (errno 0).
    @Test func failedCreateLeavesNothing() throws {
        struct Refused: Error {}
        try withTemporaryDirectory { path in
            let dir = try DataDirectory(path: path, fsync: .batch)
            let error = failure { () throws(StorageError) in
                _ = try dir.create("s", writeSnapshot: { sink in
                    try sink(UnsafeRawBufferPointer(start: nil, count: 0))
                    throw Refused()
                })
            }
            #expect(error?.errno == 0 && error?.isDiskFailure == false)
            #expect(error?.operation.contains("Refused") == true)
            #expect(try dir.storedSessions() == [])
            #expect(try listDirectory(path + "/sessions") == [])
            #expect(dir.stats.writeFailures == 1)
        }
    }

    @Test func secondOpenerOfTheSameDirectoryFails() throws {
        try withTemporaryDirectory { path in
            var first: DataDirectory? = try DataDirectory(path: path, fsync: .batch)
            let error = failure { () throws(StorageError) in _ = try DataDirectory(path: path, fsync: .batch) }
            #expect(error?.errno == EWOULDBLOCK)
            #expect(error?.description.contains("in use by pid \(getpid())") == true, "\(String(describing: error))")
            #expect(error?.path == path + "/LOCK")
            _ = first
            first = nil  // releases the lock
            _ = try DataDirectory(path: path, fsync: .batch)
        }
    }

    /// A lock released while the next opener waits for it (a server exiting as the next
    /// one starts, a descriptor a spawned process held until it executed) is taken.
    @Test func anOpenerWaitsAMomentForALockBeingReleased() throws {
        try withTemporaryDirectory { path in
            let first = try DataDirectory(path: path, fsync: .batch)
            let released = Thread { usleep(150_000); first.close() }
            released.start()
            _ = try DataDirectory(path: path, fsync: .batch)
        }
    }

    @Test func removeIsDurableAndCleansUpAfterACrash() throws {
        try withTemporaryDirectory { path in
            let dir = try DataDirectory(path: path, fsync: .batch)
            let files = try dir.create("gone", writeSnapshot: Versions.writer([1]))
            try files.append(2)
            #expect(dir.stats.journalBytes > 0)
            #expect(dir.remove("gone") == nil)
            #expect(dir.stats.journalBytes == 0 && dir.openSessionCount == 0)
            #expect(try dir.storedSessions() == [] && !fileExists(path + "/sessions/gone"))
            #expect(dir.remove("gone") == nil)  // nothing stored: no error
            #expect(dir.remove("never") == nil)
            #expect(try dir.storedSessions() == [])
        }
        // What a removal interrupted after its rename leaves is deleted on the next start.
        try withTemporaryDirectory { path in
            do {
                let dir = try DataDirectory(path: path, fsync: .batch)
                _ = try dir.create("half", writeSnapshot: Versions.writer([1])).close()
            }
            #expect(rename(path + "/sessions/half", path + "/sessions/.half.removing.1") == 0)
            _ = try DataDirectory(path: path, fsync: .batch)
            #expect(try listDirectory(path + "/sessions") == [])
        }
    }

    /// The service's path for a snapshot it cannot load: `open` gives the bytes,
    /// `StoreImage.load` says why, `quarantine` moves the files aside.
    @Test func unreadableSnapshotsGoToQuarantine() throws {
        try withTemporaryDirectory { path in
            let dir = try DataDirectory(path: path, fsync: .batch)
            for (id, damage, expected) in [
                ("version", 6, StoreImageError.unsupportedVersion(9)),
                ("checksum", 60, StoreImageError.checksumMismatch(section: "CALR")),
            ] {
                let files = try dir.create(id, writeSnapshot: Versions.writer([1, 2, 3]))
                try files.append(4)
                files.close()
                let snapshot = path + "/sessions/\(id)/snapshot.1"
                var bytes = try fileBytes(snapshot)
                if damage == 6 { bytes[6] = 9 } else { bytes[damage] ^= 0x04 }
                try writeFile(snapshot, bytes)
                let stored = try dir.open(id)
                #expect(stored.snapshot.bytes == bytes)
                #expect(StoreImageTests.loadError(stored.snapshot.bytes) == expected)
                let moved = try dir.quarantine(id)
                #expect(moved.hasPrefix(path + "/quarantine/\(id)."))
                #expect(try listDirectory(moved) == ["journal.1", "snapshot.1"])
                #expect(try fileBytes(moved + "/snapshot.1") == bytes)
                #expect(!fileExists(path + "/sessions/\(id)"))
                #expect(dir.openSessionCount == 0)
                // The journal kept its record.
                #expect(fileSize(moved + "/journal.1") == 24)
            }
            #expect(try dir.storedSessions() == [])
            #expect(try listDirectory(path + "/quarantine").count == 2)
        }
    }

    @Test func aJournalWithoutSnapshotIsMissingSnapshot() throws {
        try withTemporaryDirectory { path in
            let dir = try DataDirectory(path: path, fsync: .batch)
            let files = try dir.create("s", writeSnapshot: Versions.writer([1]))
            try files.append(2)
            files.close()
            #expect(unlink(path + "/sessions/s/snapshot.1") == 0)
            #expect(failure { () throws(RecoveryError) in _ = try dir.open("s") }?.isMissingSnapshot == true)
            #expect(try dir.info("s").snapshotGeneration == nil)
            let moved = try dir.quarantine("s")
            #expect(try listDirectory(moved) == ["journal.1"])
            #expect(try dir.storedSessions() == [])
        }
    }

    /// A create interrupted before its snapshot was renamed leaves a directory with a
    /// temporary file at most: `open` removes it and says `incomplete`.
    @Test func anUnfinishedCreateIsRemoved() throws {
        try withTemporaryDirectory { path in
            let dir = try DataDirectory(path: path, fsync: .batch)
            #expect(mkdir(path + "/sessions/s", 0o755) == 0)
            try writeFile(path + "/sessions/s/snapshot.1.tmp", [1, 2, 3])
            #expect(try dir.storedSessions() == ["s"])
            #expect(failure { () throws(RecoveryError) in _ = try dir.open("s") }?.isIncomplete == true)
            #expect(try dir.storedSessions() == [])
            #expect(dir.stats.recoveryEvents == 0, "removing a temporary snapshot loses nothing")
        }
    }

    /// Start-up and `open` touch only what the server wrote: other entries under
    /// `sessions/` (dot-named or not) and other files in a session's folder stay, named in
    /// `startupNotes` or `notASession`. They were deleted with their contents.
    @Test func whatIsNotTheServersIsLeftAsItIs() throws {
        try withTemporaryDirectory { path in
            do {
                let dir = try DataDirectory(path: path, fsync: .batch)
                let files = try dir.create("s", writeSnapshot: Versions.writer([1]))
                try files.append(2)
                files.close()
            }
            let precious = Array("precious".utf8)
            for file in ["backup/notes.txt", ".git/HEAD", ".DS_Store", ".removing.1", "s/notes.tmp", "s/journal.x", ".old.removing.3/journal.1"] {
                let folder = String(file.prefix { $0 != "/" })
                if file.contains("/") && !fileExists(path + "/sessions/" + folder) { #expect(mkdir(path + "/sessions/" + folder, 0o755) == 0) }
                try writeFile(path + "/sessions/" + file, precious)
            }
            let dir = try DataDirectory(path: path, fsync: .batch)
            #expect(try listDirectory(path + "/sessions").sorted() == [".DS_Store", ".git", ".removing.1", "backup", "s"])
            #expect(dir.startupNotes.sorted() == [
                "sessions/.DS_Store is not this server's: left as it is",
                "sessions/.git is not this server's: left as it is",
                "sessions/.removing.1 is not this server's: left as it is",
            ])
            let opened = failure { () throws(RecoveryError) in _ = try dir.open("backup") }
            #expect(opened.map { "\($0)" } == "not a session (no snapshot or journal; it holds notes.txt): left as it is")
            #expect(try fileBytes(path + "/sessions/backup/notes.txt") == precious)
            let stored = try dir.open("s")
            #expect(try Versions.replay(stored) == [1, 2] && stored.events.isEmpty && stored.cleanups.isEmpty)
            #expect(try listDirectory(path + "/sessions/s").sorted() == ["journal.1", "journal.x", "notes.tmp", "snapshot.1"])
        }
    }

    /// A removal's leftover that cannot be deleted is noted and deleted later, never fatal
    /// (a start with one exited 1, and every session with it).
    @Test func aLeftoverThatCannotBeDeletedIsRetried() throws {
        try withTemporaryDirectory { path in
            do { _ = try DataDirectory(path: path, fsync: .batch).create("a", writeSnapshot: Versions.writer([1])).close() }
            #expect(rename(path + "/sessions/a", path + "/sessions/.a.removing.1") == 0)
            let faults = StorageFaults()
            faults.inject(.unlink, errno: EACCES, times: 1000, pathContains: ".removing.")
            let dir = try DataDirectory(path: path, fsync: .batch, faults: faults)
            #expect(dir.startupNotes.count == 1)
            #expect(dir.startupNotes.first?.hasPrefix("could not remove sessions/.a.removing.1, what a removed session left (") == true, "\(dir.startupNotes)")
            // A DELETE whose files cannot all be deleted: the session is gone, its files later.
            let files = try dir.create("b", writeSnapshot: Versions.writer([1]))
            try files.append(2)
            #expect(dir.remove("b") != nil)
            #expect(try dir.storedSessions() == [])
            #expect(dir.removeLeftovers().count == 2)
            #expect(try listDirectory(path + "/sessions").count == 2)
            faults.clear()
            #expect(dir.removeLeftovers() == [])
            #expect(try listDirectory(path + "/sessions") == [])
            #expect(dir.removeLeftovers() == [])
        }
    }

    @Test func infoReadsTheNodeCountFromTheHeader() throws {
        try withTemporaryDirectory { path in
            let dir = try DataDirectory(path: path, fsync: .off)
            let store = try StoreImageTests.sampleStore()
            let image = StoreImage.image(of: store, caller: [9])
            let files = try dir.create("s", writeSnapshot: { sink in try image.withUnsafeBytes { try sink($0) } })
            files.close()
            let info = try dir.info("s")
            #expect(info.nodeCount == store.forest.count && info.snapshotBytes == image.count && info.journalBytes == 0)
            var damaged = image
            damaged[20] ^= 1
            try writeFile(path + "/sessions/s/snapshot.1", damaged)
            #expect(try dir.info("s").nodeCount == nil)
            #expect(image.withUnsafeBytes { StoreImage.nodeCount(header: UnsafeRawBufferPointer(rebasing: $0[..<48])) } == store.forest.count)
            #expect(image.withUnsafeBytes { StoreImage.nodeCount(header: UnsafeRawBufferPointer(rebasing: $0[..<47])) } == nil)
        }
    }
}
