import Glibc

/// The open files of one stored session: the journal being appended to, and what the
/// group commit and a compaction need to know. Made by `DataDirectory.create` or `open`.
///
/// Threading: `append` and `beginCompaction` must be called by one thread
/// at a time (under the session's exclusive lock in the service); `waitDurable`,
/// `finishCompaction`, `sync` and the properties may be called from any thread at any
/// time, without that lock. Every member is safe to call concurrently with every other.
public final class SessionFiles: @unchecked Sendable {
    /// The session's id (its directory's name).
    public let id: String
    /// The session's directory.
    public let directory: String
    let mode: FsyncMode
    let fs: FileSystem
    let stats: StorageStats
    let onClose: @Sendable (SessionFiles) -> Void

    private let monitor = Monitor()
    /// Guarded by `monitor`.
    private var state: State

    struct Retired {
        var fd: Int32
        var generation: UInt64
        var path: String
    }

    struct State {
        /// The journal appended to: `journal.<generation>`, `end` bytes long.
        var fd: Int32
        var generation: UInt64
        var end: Int
        var snapshotGeneration: UInt64
        var snapshotBytes: Int
        /// Bytes in the journal files of generations before `generation` (until a
        /// compaction deletes them).
        var oldJournalBytes: Int
        /// Older journal files still open because they have not been synced since the rotation.
        var retired: [Retired] = []
        /// A journal file was created since the directory was last synced.
        var directoryDirty = false
        /// The number of the last append, and the last one known durable.
        var appended: UInt64 = 0
        var durable: UInt64 = 0
        /// A sync round is running (its thread does not hold the monitor), and how many ended.
        var syncing = false
        var rounds: UInt64 = 0
        /// The last failed round: its number, the last append it covered, its error.
        var failure: (round: UInt64, covered: UInt64, error: StorageError)?
        /// A failed append or truncate may have left bytes after `end`: cut them first.
        var tailDirty = false
        var compacting = false
        var closed = false
    }

    init(id: String, directory: String, mode: FsyncMode, fs: FileSystem, stats: StorageStats,
         fd: Int32, generation: UInt64, end: Int, snapshotGeneration: UInt64, snapshotBytes: Int,
         oldJournalBytes: Int, directoryDirty: Bool, onClose: @escaping @Sendable (SessionFiles) -> Void) {
        self.id = id
        self.directory = directory
        self.mode = mode
        self.fs = fs
        self.stats = stats
        self.onClose = onClose
        state = State(fd: fd, generation: generation, end: end, snapshotGeneration: snapshotGeneration,
                      snapshotBytes: snapshotBytes, oldJournalBytes: oldJournalBytes, directoryDirty: directoryDirty)
        stats.addJournalBytes(end + oldJournalBytes)
    }

    func journalPath(_ generation: UInt64) -> String { directory + "/journal.\(generation)" }

    private func closedError() -> StorageError {
        StorageError(errno: EBADF, operation: "use of closed session files", path: directory)
    }

    // MARK: Appending

    /// Appends one record at the end of the current journal with one `pwrite` (continued
    /// if short). On any failure the journal is cut back to where it was and the error
    /// thrown: nothing half written stays (if even the cut fails, the next append retries
    /// it before writing, and fails if it cannot).
    /// - Complexity: O(payload), one system call (two after a failure)
    public func append(version: UInt64, payload: [UInt8]) throws(StorageError) -> JournalPosition {
        guard payload.count <= DataDirectory.maxRecordPayload else {
            stats.writeFailed()
            throw StorageError(errno: EFBIG, operation: "append (a record over 1 GiB)", path: directory)
        }
        let record = Journal.encode(version: version, payload: payload)
        monitor.lock()
        defer { monitor.unlock() }
        guard !state.closed else { throw closedError() }
        let path = journalPath(state.generation)
        do {
            try cutDirtyTail(path)
            try fs.write(state.fd, record, at: state.end, path: path)
        } catch {
            stats.writeFailed()
            state.tailDirty = true
            try? cutDirtyTail(path)
            throw error
        }
        let start = state.end
        state.end += record.count
        state.appended += 1
        stats.addJournalBytes(record.count)
        return JournalPosition(generation: state.generation, start: start, end: state.end, sequence: state.appended)
    }

    /// With the monitor held.
    private func cutDirtyTail(_ path: String) throws(StorageError) {
        guard state.tailDirty else { return }
        try fs.truncate(state.fd, to: state.end, path: path)
        state.tailDirty = false
    }

    // MARK: Durability

    /// Returns once the record that ends at `position` (and every record before it) is
    /// durable, as the fsync mode says:
    /// - `always`: this call runs its own fdatasync of the journal (after any running one);
    /// - `batch`: group commit. If no sync is running, this caller runs one that covers every
    ///   record appended so far; otherwise it sleeps until the running one ends, and returns
    ///   if that one covered its record, or else runs (or waits for) the next. No spinning; a
    ///   record waits for at most the end of the sync running when it came plus its own.
    /// - `off`: at once.
    ///
    /// A failed sync throws its error to every caller whose record it covered; the records
    /// after it wait for a new sync, which is tried again (the file counts as failed until
    /// one succeeds).
    public func waitDurable(_ position: JournalPosition) throws(StorageError) {
        if mode == .off { return }
        monitor.lock()
        defer { monitor.unlock() }
        if mode == .always {
            while state.syncing { monitor.wait() }
            guard !state.closed else { throw closedError() }
            try syncRound()
            return
        }
        while state.durable < position.sequence {
            guard !state.closed else { throw closedError() }
            if !state.syncing {
                try syncRound()
                continue
            }
            let waitingSince = state.rounds
            while state.syncing && state.rounds == waitingSince { monitor.wait() }
            if let failure = state.failure, failure.round > waitingSince, failure.covered >= position.sequence,
               state.durable < position.sequence {
                throw failure.error
            }
        }
    }

    /// Whether `waitDurable(position)` would return at once (without a sync).
    public func isDurable(_ position: JournalPosition) -> Bool {
        mode == .off || monitor.withLock { state.durable >= position.sequence }
    }

    /// Syncs every record appended so far, whatever the fsync mode (shutdown).
    public func sync() throws(StorageError) {
        monitor.lock()
        defer { monitor.unlock() }
        while state.syncing { monitor.wait() }
        guard !state.closed else { return }
        try syncRound()
    }

    /// One sync of everything appended so far: the rotated journals not synced yet, the
    /// directory if a journal file was created, then the current journal. Called with the
    /// monitor held and no round running; releases it during the system calls.
    private func syncRound() throws(StorageError) {
        state.syncing = true
        let target = state.appended
        let retired = state.retired
        let fd = state.fd, path = journalPath(state.generation)
        let directoryDirty = state.directoryDirty
        state.directoryDirty = false
        monitor.unlock()
        let clock = ContinuousClock()
        let started = clock.now
        var failure: StorageError?
        do {
            for r in retired { try fs.sync(r.fd, path: r.path) }
            if directoryDirty { try fs.syncDirectory(directory) }
            try fs.sync(fd, path: path)
        } catch {
            failure = error
        }
        let elapsed = started.duration(to: clock.now)
        stats.recordSync(seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18,
                         failed: failure != nil)
        monitor.lock()
        state.syncing = false
        state.rounds += 1
        if let failure {
            state.failure = (state.rounds, target, failure)
            if directoryDirty { state.directoryDirty = true }
        } else {
            state.durable = max(state.durable, target)
            for r in retired {
                if let i = state.retired.firstIndex(where: { $0.fd == r.fd }) {
                    fs.close(r.fd)
                    state.retired.remove(at: i)
                }
            }
        }
        monitor.broadcast()
        if let failure { throw failure }
    }

    // MARK: Sizes

    /// Bytes in the current journal file (the one appended to).
    public var journalBytes: Int { monitor.withLock { state.end } }
    /// Bytes in every journal file of the session (older generations a compaction has not
    /// deleted yet included).
    public var allJournalBytes: Int { monitor.withLock { state.end + state.oldJournalBytes } }
    /// The size of the current snapshot file, and its generation.
    public var snapshotBytes: Int { monitor.withLock { state.snapshotBytes } }
    public var snapshotGeneration: UInt64 { monitor.withLock { state.snapshotGeneration } }
    /// The current journal's generation.
    public var journalGeneration: UInt64 { monitor.withLock { state.generation } }
    /// A compaction was begun and has not finished.
    public var isCompacting: Bool { monitor.withLock { state.compacting } }

    // MARK: Compaction

    /// Starts a compaction: appends go to a new journal `journal.<g+1>` from now on (or to
    /// the empty journal an earlier, failed compaction began: see below). Cheap (at most one
    /// file created and opened, nothing synced), call it under the session's lock at
    /// the moment the store whose snapshot `finishCompaction` will write is taken. Throws
    /// `EALREADY` while a compaction is unfinished. When the journal is empty and begun by
    /// an earlier compaction that failed (no snapshot of its generation), it is kept: the
    /// snapshot takes its generation, and tries on a full disk leave no pile of empty files.
    public func beginCompaction() throws(StorageError) -> Compaction {
        monitor.lock()
        defer { monitor.unlock() }
        guard !state.closed else { throw closedError() }
        guard !state.compacting else {
            throw StorageError(errno: EALREADY, operation: "begin compaction (one is running)", path: directory)
        }
        try cutDirtyTail(journalPath(state.generation))
        if state.end == 0 && state.generation > state.snapshotGeneration {
            state.compacting = true
            return Compaction(generation: state.generation, sequence: state.appended)
        }
        let next = state.generation + 1
        let path = journalPath(next)
        let fd = try fs.open(path, O_WRONLY | O_CREAT | O_EXCL)
        state.retired.append(Retired(fd: state.fd, generation: state.generation, path: journalPath(state.generation)))
        state.oldJournalBytes += state.end
        state.fd = fd
        state.generation = next
        state.end = 0
        state.directoryDirty = true
        state.compacting = true
        return Compaction(generation: next, sequence: state.appended)
    }

    /// Returns once no compaction is under way (the one begun has finished or failed), or
    /// the files are closed: before `beginCompaction` when one must begin now. It may be
    /// called under the session's lock, which `finishCompaction` does not need.
    public func waitForCompaction() {
        monitor.lock()
        defer { monitor.unlock() }
        while state.compacting && !state.closed { monitor.wait() }
    }

    /// Ends a compaction, without the session's lock (readers and writers go on): writes
    /// the snapshot of generation `c.generation` durably (a temporary file, fsync, rename,
    /// directory fsync), then deletes the older snapshot and the journals before
    /// `c.generation`. `writeSnapshot` is given a sink and writes the image of the store as
    /// it was at `beginCompaction` (`StoreImage.write(store, caller:) { try sink($0) }`).
    ///
    /// If it throws (a full disk...), nothing is lost: the old snapshot and every journal
    /// stay and recovery replays them; a later compaction can be begun.
    /// - Complexity: O(snapshot bytes), two fsyncs
    public func finishCompaction(_ c: Compaction, writeSnapshot: (_ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws(StorageError) {
        let bytes: Int
        do {
            bytes = try Self.writeSnapshotFile(directory: directory, generation: c.generation, fs: fs, stats: stats, writeSnapshot)
        } catch {
            monitor.withLock {
                state.compacting = false
                monitor.broadcast()
            }
            throw error
        }
        monitor.lock()
        while state.syncing { monitor.wait() }
        if !state.closed {
            // The snapshot holds every record before the rotation: they are durable now.
            state.durable = max(state.durable, c.sequence)
            state.retired.removeAll { r in
                guard r.generation < c.generation else { return false }
                fs.close(r.fd)
                return true
            }
            stats.addJournalBytes(-state.oldJournalBytes)
            state.oldJournalBytes = 0
            state.snapshotGeneration = c.generation
            state.snapshotBytes = bytes
        }
        state.compacting = false
        monitor.broadcast()
        monitor.unlock()
        // What the new snapshot replaces; a file left behind is deleted by the next open.
        for name in (try? fs.list(directory)) ?? [] {
            if let (kind, generation) = StoredFileName.parse(name), generation < c.generation,
               kind == .snapshot || kind == .journal {
                try? fs.unlink(directory + "/" + name)
            }
        }
        stats.compacted()
    }

    /// Writes `snapshot.<generation>` durably: `snapshot.<generation>.tmp`, fdatasync,
    /// rename, directory fsync. Returns its size. On failure the temporary file is removed.
    static func writeSnapshotFile(directory: String, generation: UInt64, fs: FileSystem, stats: StorageStats,
                                  _ writeSnapshot: (_ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws(StorageError) -> Int {
        let final = directory + "/" + StoredFileName.snapshot(generation)
        let temporary = final + ".tmp"
        let fd: Int32
        do {
            fd = try fs.open(temporary, O_WRONLY | O_CREAT | O_TRUNC)
        } catch {
            stats.writeFailed()
            throw error
        }
        var open = true
        var offset = 0
        do throws(StorageError) {
            do {
                try writeSnapshot { chunk in
                    try fs.write(fd, chunk, at: offset, path: temporary)
                    offset += chunk.count
                }
            } catch let error as StorageError {
                throw error
            } catch {
                throw StorageError(errno: 0, operation: "write snapshot (the writer threw: \(error))", path: temporary)
            }
            try fs.sync(fd, path: temporary)
            fs.close(fd)
            open = false
            try fs.rename(temporary, final)
            try fs.syncDirectory(directory)
        } catch {
            if open { fs.close(fd) }
            try? fs.unlink(temporary)
            stats.writeFailed()
            throw error
        }
        stats.snapshotWritten()
        return offset
    }

    // MARK: Closing

    /// Closes the files (after a running sync ends); nothing is synced (see `sync`). Every
    /// later call throws `EBADF`, except `close` and `sync`, which do nothing.
    public func close() {
        monitor.lock()
        while state.syncing { monitor.wait() }
        guard !state.closed else {
            monitor.unlock()
            return
        }
        state.closed = true
        fs.close(state.fd)
        for r in state.retired { fs.close(r.fd) }
        state.retired.removeAll()
        stats.addJournalBytes(-(state.end + state.oldJournalBytes))
        monitor.broadcast()
        monitor.unlock()
        onClose(self)
    }
}

/// A compaction begun by `SessionFiles.beginCompaction`.
public struct Compaction: Sendable {
    /// The generation of the snapshot to write (and of the journal that follows it).
    public let generation: UInt64
    /// The last append before the rotation.
    let sequence: UInt64
}

/// The names of the files in a session's directory.
enum StoredFileName {
    enum Kind { case snapshot, journal, temporary }

    static func snapshot(_ generation: UInt64) -> String { "snapshot.\(generation)" }

    /// Whether `text` is one or more ASCII digits (the numbers in the names the data
    /// directory gives its files and folders).
    static func isDecimal(_ text: Substring) -> Bool { !text.isEmpty && text.allSatisfy { $0.isASCII && $0.isNumber } }
    static func journal(_ generation: UInt64) -> String { "journal.\(generation)" }

    /// `snapshot.<g>`, `journal.<g>` or `snapshot.<g>.tmp` (g decimal, no sign or leading
    /// zero): the names this server writes; nil for any other.
    static func parse(_ name: String) -> (Kind, UInt64)? {
        if name.hasSuffix(".tmp") {
            guard case (.snapshot, let g)? = parse(String(name.dropLast(4))) else { return nil }
            return (.temporary, g)
        }
        for (prefix, kind) in [("snapshot.", Kind.snapshot), ("journal.", Kind.journal)] where name.hasPrefix(prefix) {
            let digits = name.dropFirst(prefix.count)
            guard let first = digits.first, first != "0", isDecimal(digits),
                  let g = UInt64(digits) else { return nil }
            return (kind, g)
        }
        return nil
    }
}
