import Foundation
import Synchronization
import TreeEngine

/// One uploaded tree, its views and its version. Every change runs alone under its
/// lock, reads of views that need no build run beside each other, so operations are
/// linearizable; different sessions run in parallel.
final class Session: Sendable {
    let id: String
    /// When it was created, on the wall clock: only shown.
    let createdAt: Date
    /// Bumped by every filter request; a filter build whose ticket is no longer the
    /// latest gives up, so a newer filter request never waits for a stale one.
    let filterTicket = Atomic<Int>(0)
    /// The filtered views the store keeps, readable without waiting for `state`'s lock
    /// (which a long filter build holds): naming one of them builds nothing, so it
    /// cancels nothing.
    let keptFilters = Mutex<Set<FilterQuery>>([])
    let state: ReadWriteLocked<State>
    /// The instant of the last request (readers update it too), on the service's clock.
    private let lastUse: AtomicInstant

    struct State: Sendable {
        var store: TreeStore
        var version: Int = 1
        /// The node count the registry has accounted for this session.
        var accountedNodes: Int
        /// Filtered views that may differ from a fresh build of themselves: their
        /// expansion was changed, or an edit updated them (a node that left the
        /// ancestors of matches keeps its expansion, a fresh build collapses it).
        /// Naming one after it was dropped from the store's cache builds it anew: a change.
        var changedFilters: Set<FilterQuery> = []
        /// Set, with `accountedNodes` zeroed, when the registry drops the session: a request
        /// that looked the session up before then answers 404 and changes nothing.
        var removed = false

        /// Records a change of expansion in the named view.
        mutating func expansionChanged(_ filter: FilterQuery?) {
            if let filter { changedFilters.insert(filter) }
        }

        /// Records an edit of the tree: it updated every kept filtered view.
        mutating func treeEdited() {
            changedFilters.formUnion(store.keptFilters)
        }
    }

    init(id: String, store: TreeStore, clock: any ServiceClock) {
        self.id = id
        createdAt = clock.wallNow
        state = ReadWriteLocked(State(store: store, accountedNodes: store.forest.count))
        lastUse = AtomicInstant(clock.now)
    }

    /// The instant of the last request.
    var lastUsed: ContinuousClock.Instant { lastUse.load() }

    /// Marks the session used at `now` (a reading taken earlier on another thread does not move it back).
    func touch(_ now: ContinuousClock.Instant) { lastUse.advance(to: now) }
}
