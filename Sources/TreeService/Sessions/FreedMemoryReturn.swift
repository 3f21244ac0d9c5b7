import Dispatch
import Synchronization

/// Gives the memory of dropped sessions back to the system, only after a large one, and
/// never on the thread of the request that dropped it: the trim runs on a utility-QoS queue,
/// and at most one is pending at a time (removals while one is pending are covered by it).
/// How memory goes back is not the service's business: the trim is
/// ``ServiceConfiguration/returnFreedMemory`` (`malloc_trim` in tree-server).
final class FreedMemoryReturn: Sendable {
    /// Drops of fewer nodes (one session, or all of one sweep) trim nothing.
    let minimumNodes: Int
    private let trim: @Sendable () -> Void
    private let pending = Atomic<Bool>(false)
    private let scheduledTrims = Atomic<Int>(0)

    /// How many trims were scheduled so far.
    var scheduled: Int { scheduledTrims.load(ordering: .relaxed) }

    /// - Parameters:
    ///   - minimumNodes: the smallest drop worth a trim; about 100 bytes a node, the
    ///     default is some 10 MB of columns.
    ///   - trim: what gives the memory back (``ServiceConfiguration/returnFreedMemory``);
    ///     tests count it.
    init(minimumNodes: Int = 100_000, trim: @escaping @Sendable () -> Void) {
        self.minimumNodes = minimumNodes
        self.trim = trim
    }

    /// Records that `nodes` nodes were dropped at once; schedules a trim when that is many.
    func nodesFreed(_ nodes: Int) {
        guard nodes >= minimumNodes else { return }
        guard !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        scheduledTrims.add(1, ordering: .relaxed)
        DispatchQueue.global(qos: .utility).async { [self] in
            // Cleared first: a drop during the trim schedules another, so nothing is missed.
            pending.store(false, ordering: .releasing)
            trim()
        }
    }
}
