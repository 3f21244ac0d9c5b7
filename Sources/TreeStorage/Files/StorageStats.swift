import Synchronization

/// Counters of a data directory and the latency histogram of journal fsyncs, for
/// `/metrics`. Every member may be read from any thread at any time.
public final class StorageStats: Sendable {
    /// The upper bounds (seconds) of the fsync latency histogram's buckets, Prometheus style
    /// (`le`); an implicit `+Inf` bucket holds every observation.
    public static let fsyncBucketBounds: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]

    private let journalBytesCounter = Atomic<Int>(0)
    private let snapshotsCounter = Atomic<Int>(0)
    private let compactionsCounter = Atomic<Int>(0)
    private let writeFailuresCounter = Atomic<Int>(0)
    private let fsyncFailuresCounter = Atomic<Int>(0)
    private let recoveryEventsCounter = Atomic<Int>(0)
    private let histogram = Mutex(Histogram())

    struct Histogram {
        var buckets = [Int](repeating: 0, count: StorageStats.fsyncBucketBounds.count)
        var count = 0
        var sum = 0.0
    }

    public init() {}

    /// Bytes in every journal file of the open sessions now (old generations not yet deleted
    /// by a compaction included).
    public var journalBytes: Int { journalBytesCounter.load(ordering: .relaxed) }
    /// Journal syncs done (one per group commit round: the fdatasyncs of the journal files,
    /// and of the directory after a new journal file, that one round needed).
    public var fsyncs: Int { histogram.withLock { $0.count } }
    /// Seconds spent in the rounds counted by `fsyncs`.
    public var fsyncLatencySum: Double { histogram.withLock { $0.sum } }
    /// Snapshot files written (creates and compactions).
    public var snapshotsWritten: Int { snapshotsCounter.load(ordering: .relaxed) }
    /// Compactions finished.
    public var compactions: Int { compactionsCounter.load(ordering: .relaxed) }
    /// Appends and snapshot writes that failed (the error was thrown).
    public var writeFailures: Int { writeFailuresCounter.load(ordering: .relaxed) }
    /// Journal syncs that failed (the error was thrown to every waiter the sync covered).
    public var fsyncFailures: Int { fsyncFailuresCounter.load(ordering: .relaxed) }
    /// Repairs and removals reported by `DataDirectory.open` (each of its events).
    public var recoveryEvents: Int { recoveryEventsCounter.load(ordering: .relaxed) }

    /// The histogram, cumulative as Prometheus wants it: for each bound in
    /// `fsyncBucketBounds`, the syncs that took at most that long. The `+Inf` bucket is `fsyncs`.
    public func fsyncLatencyBuckets() -> [(upperBoundSeconds: Double, count: Int)] {
        let counts = histogram.withLock { $0.buckets }
        var running = 0
        return zip(StorageStats.fsyncBucketBounds, counts).map { bound, count in
            running += count
            return (bound, running)
        }
    }

    func addJournalBytes(_ delta: Int) { journalBytesCounter.add(delta, ordering: .relaxed) }
    func snapshotWritten() { snapshotsCounter.add(1, ordering: .relaxed) }
    func compacted() { compactionsCounter.add(1, ordering: .relaxed) }
    func writeFailed() { writeFailuresCounter.add(1, ordering: .relaxed) }
    func recoveryEvent() { recoveryEventsCounter.add(1, ordering: .relaxed) }

    func recordSync(seconds: Double, failed: Bool) {
        if failed { fsyncFailuresCounter.add(1, ordering: .relaxed) }
        histogram.withLock { h in
            if let i = StorageStats.fsyncBucketBounds.firstIndex(where: { seconds <= $0 }) { h.buckets[i] += 1 }
            h.count += 1
            h.sum += seconds
        }
    }
}
