import Glibc
import Synchronization

/// The data directory of a durable server: one directory per stored session, each with
/// its snapshot and journal files, and a quarantine for sessions that cannot be loaded.
/// docs/STORAGE.md describes the layout and the files byte by byte.
///
///     <path>/LOCK                          flock()ed while this object lives
///     <path>/sessions/<id>/snapshot.<g>    the session's snapshot, generation g
///     <path>/sessions/<id>/journal.<g>     records appended after snapshot g (journal.<g+1>... after a rotation)
///     <path>/sessions/<id>/snapshot.<g>.tmp  a snapshot being written (removed by `open`)
///     <path>/sessions/.<id>.removing.<n>   a session being removed (removed by `init`, or
///                                          by `removeLeftovers` after a failure)
///     <path>/quarantine/<id>.<unix-time>/  the files of a session moved aside
///     <path>/quarantine/<id>.<unix-time>.damaged-journals/  journals as they were before
///                                          recovery cut or deleted them
///
/// Start-up and `open` touch nothing else: a file or folder of another name under
/// `sessions/`, or in a session's folder, is left as it is (and named in `startupNotes` or
/// `RecoveryError`). Removing or quarantining a session moves its folder whole.
///
/// Every method may be called from any thread.
public final class DataDirectory: Sendable {
    /// The directory, as given.
    public let path: String
    /// The most bytes a journal record's payload holds: what the caller journals as one
    /// record must fit (else the write fails, 507).
    public static let maxRecordPayload = Journal.maxLength - 8
    public let fsync: FsyncMode
    public let stats = StorageStats()
    let fs: FileSystem
    /// The descriptor holding the flock; -1 once closed.
    private let lockFD: Mutex<Int32>
    /// The sessions whose files are open (for `syncAll`, and closed by `remove`/`quarantine`).
    private let openFiles = Mutex<[String: SessionFiles]>([:])
    /// Numbers the names of removals, so that two never collide.
    private let removals = Atomic<Int>(0)
    /// Whether a removal's leftover could not be deleted yet (`removeLeftovers` retries).
    private let leftoversPending = Atomic<Bool>(false)
    /// What `init` found under `sessions/` and left alone, or could not clean up: one line
    /// each, for the caller's log.
    public let startupNotes: [String]

    var sessionsPath: String { path + "/sessions" }
    var quarantinePath: String { path + "/quarantine" }

    /// Creates the directory (its parent must exist) with `sessions/` and `quarantine/` if
    /// missing, takes `LOCK` (a second `DataDirectory` on the same path, in this process or
    /// another, throws: "lock ... held by pid N"), and removes what an interrupted `remove`
    /// left (a leftover that cannot be removed is noted and retried, never fatal).
    public init(path: String, fsync: FsyncMode, faults: (any FileSystemFaults)? = nil) throws(StorageError) {
        self.path = path
        self.fsync = fsync
        let fs = FileSystem(faults: faults)
        self.fs = fs
        try fs.makeDirectory(path, existingOK: true)
        let lockPath = path + "/LOCK"
        let fd = try fs.open(lockPath, O_RDWR | O_CREAT)
        // A lock just released can be held a moment longer: a process being spawned holds a
        // copy of every descriptor until it executes (they close on exec), and a server
        // restarted by a supervisor may start while the old one is exiting. Half a second.
        var locked = flock(fd, LOCK_EX | LOCK_NB) == 0
        for _ in 0 ..< 10 where !locked && Glibc.errno == EWOULDBLOCK {
            usleep(50_000)
            locked = flock(fd, LOCK_EX | LOCK_NB) == 0
        }
        if !locked {
            let e = Glibc.errno
            let holder = (try? fs.read(fd, count: 64, path: lockPath)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            fs.close(fd)
            let who = holder.trimmingWhitespace.isEmpty ? "" : " by pid \(holder.trimmingWhitespace)"
            throw StorageError(errno: e, operation: "lock (the data directory is in use\(who))", path: lockPath)
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, 0) }
        lockFD = Mutex(fd)
        let foreign: [String]
        do {
            try fs.makeDirectory(path + "/sessions", existingOK: true)
            try fs.makeDirectory(path + "/quarantine", existingOK: true)
            try fs.syncDirectory(path)
            foreign = try fs.list(path + "/sessions").filter { $0.hasPrefix(".") && Self.removalName($0) == nil }
        } catch {
            Glibc.close(fd)
            throw error
        }
        let failures = Self.deleteLeftovers(in: path + "/sessions", fs: fs)
        startupNotes = foreign.map { "sessions/\($0) is not this server's: left as it is" } + failures
        leftoversPending.store(!failures.isEmpty, ordering: .relaxed)
    }

    /// The session id of a removal's leftover name, `.<id>.removing.<n>`; nil for any other.
    static func removalName(_ name: String) -> String? {
        guard name.hasPrefix("."), let dot = name.range(of: ".removing.", options: .backwards),
              dot.lowerBound > name.index(after: name.startIndex) else { return nil }
        let id = String(name[name.index(after: name.startIndex) ..< dot.lowerBound])
        let n = name[dot.upperBound...]
        guard StoredFileName.isDecimal(n), (try? check(id)) != nil else { return nil }
        return id
    }

    /// Deletes what removals left (`.<id>.removing.<n>`), if any is known to be left.
    /// Returns one line per leftover that still could not be deleted (it is tried again on
    /// the next call); the service calls this from its upkeep.
    /// - Complexity: one directory read when something is pending, else O(1)
    @discardableResult
    public func removeLeftovers() -> [String] {
        guard leftoversPending.exchange(false, ordering: .relaxed) else { return [] }
        let failures = Self.deleteLeftovers(in: sessionsPath, fs: fs)
        if !failures.isEmpty { leftoversPending.store(true, ordering: .relaxed) }
        return failures
    }

    /// Deletes every `.<id>.removing.<n>` in `sessions`; one line per one that could not be.
    private static func deleteLeftovers(in sessions: String, fs: FileSystem) -> [String] {
        do {
            return try fs.list(sessions).filter { removalName($0) != nil }.compactMap { name in
                do {
                    try fs.removeTree(sessions + "/" + name)
                    return nil
                } catch {
                    return "could not remove sessions/\(name), what a removed session left (\(error)); tried again later"
                }
            }
        } catch {
            return ["could not list sessions/ for what removed sessions left (\(error)); tried again later"]
        }
    }

    deinit { close() }

    /// Closes every session's files and releases `LOCK`, so that another `DataDirectory`
    /// (a restarted server) may open the directory; nothing may be called afterwards.
    public func close() {
        let files = openFiles.withLock { table in defer { table = [:] }; return Array(table.values) }
        for file in files { file.close() }
        lockFD.withLock { fd in
            if fd >= 0 { Glibc.close(fd) }  // releases the flock
            fd = -1
        }
    }

    /// Throws `EINVAL` unless `id` can name a directory: 1 to 128 of `A-Z a-z 0-9 - _ .`,
    /// not starting with a dot.
    static func check(_ id: String) throws(StorageError) {
        let bytes = Array(id.utf8)
        let ok = !bytes.isEmpty && bytes.count <= 128 && bytes[0] != UInt8(ascii: ".") && bytes.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == UInt8(ascii: "-") || b == UInt8(ascii: "_") || b == UInt8(ascii: ".")
        }
        if !ok { throw StorageError(errno: EINVAL, operation: "session id \"\(id)\" is not a file name", path: "") }
    }

    func sessionPath(_ id: String) -> String { sessionsPath + "/" + id }

    // MARK: Listing

    /// The ids of the sessions stored (the directories under `sessions/`), sorted.
    /// - Complexity: one directory read
    public func storedSessions() throws(StorageError) -> [String] {
        try fs.list(sessionsPath).filter { name in
            !name.hasPrefix(".") && (try? Self.check(name)) != nil && fs.isDirectory(sessionPath(name))
        }
    }

    /// The sessions in `quarantine/`, as `quarantine(_:)` named them (`<id>.<unix-time>`,
    /// or `<id>.<unix-time>.<n>`): each id with its folder's path; other entries are left out.
    /// - Complexity: one directory read
    public func quarantinedSessions() -> [(id: String, path: String)] {
        ((try? fs.list(quarantinePath)) ?? []).compactMap { name in
            var parts = name.split(separator: ".", omittingEmptySubsequences: false)
            let isNumber = StoredFileName.isDecimal
            if parts.count >= 3, isNumber(parts[parts.count - 1]), isNumber(parts[parts.count - 2]) { parts.removeLast() }
            guard parts.count >= 2, isNumber(parts[parts.count - 1]) else { return nil }
            let id = parts.dropLast().joined(separator: ".")
            guard (try? Self.check(id)) != nil else { return nil }
            return (id, quarantinePath + "/" + name)
        }
    }

    /// What a stored session's files are, without reading them: their sizes, and the node
    /// count from the latest snapshot's header (nil if the header is not a valid image
    /// header; `open` and `StoreImage.load` will say more). For accounting before loading.
    /// - Complexity: one directory read, one 48-byte read
    public func info(_ id: String) throws(StorageError) -> StoredSessionInfo {
        try Self.check(id)
        let dir = sessionPath(id)
        var info = StoredSessionInfo(id: id)
        for name in try fs.list(dir) {
            guard let (kind, generation) = StoredFileName.parse(name) else { continue }
            switch kind {
            case .snapshot where generation >= (info.snapshotGeneration ?? 0):
                info.snapshotGeneration = generation
                info.snapshotBytes = fs.size(dir + "/" + name) ?? 0
            case .journal:
                info.journalBytes += fs.size(dir + "/" + name) ?? 0
            default:
                break
            }
        }
        if let g = info.snapshotGeneration {
            let file = dir + "/" + StoredFileName.snapshot(g)
            let fd = try fs.open(file, O_RDONLY)
            defer { fs.close(fd) }
            let header = try fs.read(fd, count: StoreImage.headerSize, path: file)
            info.nodeCount = header.withUnsafeBytes { StoreImage.nodeCount(header: $0) }
        }
        return info
    }

    // MARK: Creating

    /// Stores a new session: makes its directory, writes its first snapshot (generation 1)
    /// durably (`snapshot.1.tmp`, fdatasync, rename, directory fsync, then `sessions/`
    /// fsynced), and opens its empty `journal.1`. `writeSnapshot` is given a sink and writes
    /// the image (`StoreImage.write(store, caller:) { try sink($0) }`). On failure nothing
    /// is left. Throws `EEXIST` if the id is stored already.
    /// - Complexity: O(snapshot bytes), three fsyncs
    public func create(_ id: String, writeSnapshot: (_ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws(StorageError) -> SessionFiles {
        try Self.check(id)
        let dir = sessionPath(id)
        try fs.makeDirectory(dir, existingOK: false)
        do {
            let bytes = try SessionFiles.writeSnapshotFile(directory: dir, generation: 1, fs: fs, stats: stats, writeSnapshot)
            try fs.syncDirectory(sessionsPath)
            let fd = try fs.open(dir + "/" + StoredFileName.journal(1), O_WRONLY | O_CREAT | O_EXCL)
            return register(SessionFiles(id: id, directory: dir, mode: fsync, fs: fs, stats: stats, fd: fd, generation: 1, end: 0,
                                         snapshotGeneration: 1, snapshotBytes: bytes, oldJournalBytes: 0, directoryDirty: true,
                                         onClose: onClose))
        } catch {
            try? fs.removeTree(dir)
            throw error
        }
    }

    private var onClose: @Sendable (SessionFiles) -> Void {
        { [weak self] files in
            self?.openFiles.withLock { open in
                if open[files.id] === files { open[files.id] = nil }
            }
        }
    }

    private func register(_ files: SessionFiles) -> SessionFiles {
        openFiles.withLock { $0[files.id] = files }
        return files
    }

    // MARK: Opening

    /// Opens a stored session for recovery: the latest snapshot's bytes (not checked: give
    /// them to `StoreImage.load`, and quarantine the session if it throws), and every
    /// journal record after it, in order over the generations. On the way:
    /// - files that lose nothing are removed, each reported in `cleanups`: temporary
    ///   snapshots (`snapshot.<g>.tmp`), and snapshots and journals older than the latest
    ///   snapshot (a compaction that did not finish deleting them);
    /// - repairs that lose records are reported in `events` (and counted in
    ///   `stats.recoveryEvents`): a journal ends at its first bad record (a length out of range or past the end, a
    ///   header cut short, a wrong CRC): the file is cut there (and synced), and the journals
    ///   of later generations are deleted (they follow records that are lost); likewise when
    ///   a journal generation is missing (the snapshot's own, or one between two others).
    ///
    /// Throws `missingSnapshot` when journals exist without a snapshot (quarantine them),
    /// `incomplete` for a directory with neither (removed when it holds nothing else),
    /// `notASession` for one with neither but other files (left as it is), `io` when a
    /// system call fails.
    /// - Complexity: O(snapshot bytes + journal bytes)
    public func open(_ id: String) throws(RecoveryError) -> StoredSession {
        do {
            try Self.check(id)
        } catch {
            throw .io(error)
        }
        let dir = sessionPath(id)
        if openFiles.withLock({ $0[id] != nil }) {
            throw .io(StorageError(errno: EBUSY, operation: "open (the session's files are open)", path: dir))
        }
        var events: [String] = [], cleanups: [String] = []
        func event(_ text: String) {
            events.append(text)
            stats.recoveryEvent()
        }
        do {
            var snapshots: [UInt64] = [], journals: [UInt64] = [], others: [String] = []
            for name in try fs.list(dir) {
                switch StoredFileName.parse(name) {
                case (.temporary, _)?:
                    try fs.unlink(dir + "/" + name)
                    cleanups.append("removed \(name) (a snapshot whose writing did not finish)")
                case (.snapshot, let g)?: snapshots.append(g)
                case (.journal, let g)?: journals.append(g)
                case nil: others.append(name)
                }
            }
            snapshots.sort()
            journals.sort()
            guard let generation = snapshots.last else {
                if journals.isEmpty {
                    // Only an unfinished create of ours is removed, and only when empty.
                    guard others.isEmpty else { throw RecoveryError.notASession(names: Array(others.sorted().prefix(5))) }
                    if rmdir(dir) != 0 && Glibc.errno != ENOENT { throw FileSystem.error("rmdir", dir) }
                    try fs.syncDirectory(sessionsPath)
                    throw RecoveryError.incomplete
                }
                throw RecoveryError.missingSnapshot
            }
            for g in snapshots.dropLast() {
                try fs.unlink(dir + "/" + StoredFileName.snapshot(g))
                cleanups.append("removed snapshot.\(g) (replaced by snapshot.\(generation))")
            }
            for g in journals where g < generation {
                try fs.unlink(dir + "/" + StoredFileName.journal(g))
                cleanups.append("removed journal.\(g) (older than snapshot.\(generation))")
            }
            journals.removeAll { $0 < generation }
            let snapshotPath = dir + "/" + StoredFileName.snapshot(generation)
            let snapshotFD = try fs.open(snapshotPath, O_RDONLY)
            defer { fs.close(snapshotFD) }
            let snapshot = try SnapshotBytes(fd: snapshotFD, count: try fs.size(snapshotFD, path: snapshotPath), path: snapshotPath, fs: fs)

            // The journals, in order; the first damage ends them all. What is cut or deleted
            // is copied to the quarantine first, and counted (`lost`) unless it is a torn
            // tail (a write a crash cut short, never acknowledged as durable).
            var records: [JournalRecord] = []
            var kept: [(generation: UInt64, bytes: Int)] = []
            var ended = false
            var lost = LostRecords()
            var copies: String?
            func keepCopy(_ name: String, _ bytes: [UInt8]) throws(StorageError) {
                if copies == nil {
                    let target = freeQuarantinePath(id, suffix: ".damaged-journals")
                    try fs.makeDirectory(target, existingOK: false)
                    copies = target
                }
                let path = copies! + "/" + name
                let fd = try fs.open(path, O_WRONLY | O_CREAT | O_TRUNC)
                defer { fs.close(fd) }
                try fs.write(fd, bytes, at: 0, path: path)
                try fs.sync(fd, path: path)
            }
            for (i, g) in journals.enumerated() {
                let name = StoredFileName.journal(g)
                let file = dir + "/" + name
                let expected = i == 0 ? generation : journals[i - 1] + 1
                if ended || g != expected {
                    let bytes = try fs.read(file)
                    try keepCopy(name, bytes)
                    lost.add(bytes: bytes.count, Journal.scan(bytes).records.map(\.record.version).max())
                    try fs.unlink(file)
                    event(ended ? "deleted \(name) (\(bytes.count) bytes after lost records; a copy is in \(copies!))"
                                : "deleted \(name) (journal.\(expected) is missing; a copy is in \(copies!))")
                    ended = true
                    continue
                }
                let bytes = try fs.read(file)
                let scan = Journal.scan(bytes)
                records += scan.records.map(\.record)
                if let damage = scan.damage {
                    ended = true
                    if !scan.tornTail || i < journals.count - 1 {
                        try keepCopy(name, bytes)
                        lost.add(bytes: bytes.count - scan.goodEnd, nil)
                    }
                    let fd = try fs.open(file, O_WRONLY)
                    defer { fs.close(fd) }
                    try fs.truncate(fd, to: scan.goodEnd, path: file)
                    try fs.sync(fd, path: file)
                    event("\(name): \(damage) at byte \(scan.goodEnd), \(scan.records.count) records kept, truncated \(bytes.count - scan.goodEnd) bytes")
                }
                kept.append((g, scan.goodEnd))
            }
            if ended { try fs.syncDirectory(dir) }

            // Append to the last journal kept (or a new one for the snapshot's generation).
            let current = kept.last ?? (generation, 0)
            let journalPath = dir + "/" + StoredFileName.journal(current.generation)
            let fd = try fs.open(journalPath, O_WRONLY | O_CREAT)
            let files = SessionFiles(id: id, directory: dir, mode: fsync, fs: fs, stats: stats, fd: fd,
                                     generation: current.generation, end: current.bytes, snapshotGeneration: generation,
                                     snapshotBytes: snapshot.count, oldJournalBytes: kept.dropLast().reduce(0) { $0 + $1.bytes },
                                     directoryDirty: kept.isEmpty, onClose: onClose)
            if copies != nil { try fs.syncDirectory(quarantinePath) }
            return StoredSession(files: register(files), snapshot: snapshot, snapshotGeneration: generation,
                                 records: records, events: events, cleanups: cleanups, lost: lost.isEmpty ? nil : lost)
        } catch let error as RecoveryError {
            throw error
        } catch let error as StorageError {
            throw .io(error)
        } catch {
            fatalError("unexpected \(error)")
        }
    }

    // MARK: Removing

    /// `quarantine/<id>.<unix-time><suffix>`, or with `.<n>` after the time when that exists.
    private func freeQuarantinePath(_ id: String, suffix: String = "") -> String {
        let seconds = time(nil)
        var target = quarantinePath + "/\(id).\(seconds)" + suffix
        var n = 1
        while fs.exists(target) {
            target = quarantinePath + "/\(id).\(seconds).\(n)" + suffix
            n += 1
        }
        return target
    }

    /// Moves a session's directory (its files closed first) to
    /// `quarantine/<id>.<unix-time>` (`.<n>` added if that exists), both directories
    /// synced. Returns the new path.
    public func quarantine(_ id: String) throws(StorageError) -> String {
        try Self.check(id)
        openFiles.withLock { $0[id] }?.close()
        let target = freeQuarantinePath(id)
        try fs.rename(sessionPath(id), target)
        try fs.syncDirectory(quarantinePath)
        try fs.syncDirectory(sessionsPath)
        return target
    }

    /// Removes a session's files (DELETE, expiry): the directory is renamed to
    /// `sessions/.<id>.removing.<n>`, its open files closed, `sessions/` synced (from here
    /// the session is gone, even after a crash), then deleted. Returns the error instead of
    /// throwing it (nil: removed, or nothing was stored). When the rename fails nothing
    /// changed (the files stay open, the session stays stored); what is left of a removal
    /// that failed after it is deleted later (`removeLeftovers`, or the next `init`).
    @discardableResult
    public func remove(_ id: String) -> StorageError? {
        do throws(StorageError) {
            try Self.check(id)
            let files = openFiles.withLock { $0[id] }
            let dir = sessionPath(id)
            guard fs.exists(dir) else {
                files?.close()
                return nil
            }
            let trash = sessionsPath + "/.\(id).removing.\(removals.add(1, ordering: .relaxed).newValue)"
            try fs.rename(dir, trash)
            files?.close()
            do throws(StorageError) {
                try fs.syncDirectory(sessionsPath)
                try fs.removeTree(trash)
            } catch {
                leftoversPending.store(true, ordering: .relaxed)  // gone for the service; deleted later
                throw error
            }
            return nil
        } catch {
            return error
        }
    }

    // MARK: Shutdown

    /// Syncs every open session's journals, whatever the fsync mode (shutdown). Returns the
    /// errors (one per session that failed).
    @discardableResult
    public func syncAll() -> [StorageError] {
        let all = openFiles.withLock { Array($0.values) }
        var errors: [StorageError] = []
        for files in all {
            do {
                try files.sync()
            } catch {
                errors.append(error)
            }
        }
        return errors
    }

    /// The files open now (created or opened, not closed, removed or quarantined).
    public var openSessionCount: Int { openFiles.withLock { $0.count } }
}

/// A stored session opened by `DataDirectory.open`.
public struct StoredSession: Sendable {
    /// Open for appending after the last good record.
    public let files: SessionFiles
    /// The latest snapshot's bytes (mapped): a `StoreImage`, not checked yet.
    public let snapshot: SnapshotBytes
    public let snapshotGeneration: UInt64
    /// Every good journal record after the snapshot, in order.
    public let records: [JournalRecord]
    /// What recovery repaired at the cost of records, one line each ("journal.3: a record
    /// with a bad CRC at byte 4120, 52 records kept, truncated 37 bytes"). Empty after a
    /// clean shutdown.
    public let events: [String]
    /// Files recovery removed that held nothing the session needs (a snapshot whose
    /// writing did not finish, files older than the latest snapshot), one line each.
    public let cleanups: [String]
    /// What the records recovery cut or deleted may have held (nil: nothing was lost but,
    /// at most, a torn tail). The versions they stepped to were issued: the service goes
    /// past them, so that none is issued twice.
    public let lost: LostRecords?
}

/// Records that recovery had to drop after a damaged one: bounds on what they held.
public struct LostRecords: Sendable, Equatable {
    /// The most records the dropped bytes could hold (a record is at least 16 bytes).
    public private(set) var atMost = 0
    /// The highest version field among the dropped records still readable (those of a
    /// later journal), if any.
    public private(set) var highestVersion: UInt64?

    var isEmpty: Bool { atMost == 0 && highestVersion == nil }

    mutating func add(bytes: Int, _ version: UInt64?) {
        atMost += (bytes + Journal.headerSize + 7) / (Journal.headerSize + 8)
        if let version { highestVersion = max(highestVersion ?? 0, version) }
    }
}

/// What `DataDirectory.info` finds of a stored session without reading its files.
public struct StoredSessionInfo: Sendable, Equatable {
    public var id: String
    /// The latest snapshot's generation and size (nil, 0: no snapshot).
    public var snapshotGeneration: UInt64?
    public var snapshotBytes = 0
    /// Bytes in all its journal files.
    public var journalBytes = 0
    /// The node count in the latest snapshot's image header (nil: no snapshot, or not a
    /// valid image header).
    public var nodeCount: Int?

    public init(id: String) {
        self.id = id
    }
}

extension String {
    var trimmingWhitespace: String {
        String(drop(while: { $0.isWhitespace }).reversed().drop(while: { $0.isWhitespace }).reversed())
    }
}
