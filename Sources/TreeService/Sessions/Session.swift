import Synchronization
import TreeEngine

/// One uploaded tree, its views and its version. All operations on it run under
/// its lock, so they are linearizable; different sessions run in parallel.
final class Session: Sendable {
    let id: String
    /// Unix time of creation.
    let createdAt: Double
    /// Bumped by every filter request; a filter build whose ticket is no longer the
    /// latest gives up, so a newer filter request never waits for a stale one.
    let filterTicket = Atomic<Int>(0)
    /// The filtered views the store keeps, readable without waiting for `state`'s lock
    /// (which a long filter build holds): naming one of them builds nothing, so it
    /// cancels nothing.
    let keptFilters = Mutex<Set<FilterQuery>>([])
    let state: Mutex<State>

    struct State: Sendable {
        var store: TreeStore
        var version: Int = 1
        /// Unix time of the last request.
        var lastUsed: Double
        /// The node count the registry has accounted for this session.
        var accountedNodes: Int
        /// Filtered views whose expansion was changed since they were built; naming
        /// one after it was dropped from the store's cache rebuilds it (a change).
        /// Emptied by edits, which rebuild every filtered view anyway.
        var changedFilters: Set<FilterQuery> = []

        /// Records a change of expansion in the named view.
        mutating func expansionChanged(_ filter: FilterQuery?) {
            if let filter { changedFilters.insert(filter) }
        }

        /// Records an edit of the tree.
        mutating func treeEdited() {
            changedFilters.removeAll()
        }
    }

    init(id: String, store: TreeStore, now: Double) {
        self.id = id
        createdAt = now
        state = Mutex(State(store: store, lastUsed: now, accountedNodes: store.forest.count))
    }
}
