import TreeEngine
import TreeFormats

/// A session's tree, its kept views and its version, and the one way they change: an
/// operation whose items were looked up (`ResolvedOperation`) is checked (`problem(of:in:)`)
/// and then applied (`apply`), which cannot fail. No HTTP, no files, no clock: the service
/// journals a change between the check and the apply, and publishes its events and renders
/// its response from the outcome.
struct SessionCore: Sendable {
    var store: TreeStore
    /// Steps by one with every change (a batch: once), and with every reset of a view.
    var version = 1
    /// Filtered views that may differ from a fresh build of themselves: their expansion
    /// was changed, or an edit updated them (a node that left the ancestors of matches
    /// keeps its expansion, a fresh build collapses it). Naming one after it was dropped
    /// from the store's cache builds it anew: a reset, a change.
    var changedFilters: Set<FilterQuery> = []

    init(store: TreeStore) {
        self.store = store
    }

    /// Applies a single checked operation in the named view, and steps the version.
    mutating func apply(_ operation: ResolvedOperation, in view: FilterQuery?) -> ChangeOutcome {
        let outcome = Self.apply(operation, view, to: &store)
        noteChange(editsTree: operation.editsTree, changesExpansion: !operation.editsTree, in: view)
        version += 1
        return outcome
    }

    /// Records what changes made: the expansion of the named view, or the tree (which
    /// updated every kept filtered view).
    mutating func noteChange(editsTree: Bool, changesExpansion: Bool, in view: FilterQuery?) {
        if editsTree { changedFilters.formUnion(store.keptFilters) }
        if changesExpansion, let view { changedFilters.insert(view) }
    }

    /// Whether naming `view`, just built, reset it: it had changed before it was dropped, so
    /// it comes back in its initial state, and the version steps.
    mutating func resetIfChanged(_ view: FilterQuery?, built: Bool) -> Bool {
        guard let view, built, changedFilters.remove(view) != nil else { return false }
        version += 1
        return true
    }
}

/// An operation with its items looked up in the store.
enum ResolvedOperation {
    case expandAll
    case collapseAll
    case expandToDepth(Int)
    case setExpanded(NodeHandle, expanded: Bool, recursive: Bool)
    case reveal(NodeHandle)
    case move(NodeHandle, parent: NodeHandle?, index: Int?)
    case update(NodeHandle, title: String?, data: [UInt8]?)
    case insert(Forest, InsertPlacement)
    case insertGroups([FragmentGroup])
    case delete(NodeHandle)

    /// Whether it edits the forest (every kept view follows) rather than the expansion of one view.
    var editsTree: Bool {
        switch self {
        case .expandAll, .collapseAll, .expandToDepth, .setExpanded, .reveal: false
        case .move, .update, .insert, .insertGroups, .delete: true
        }
    }

    /// The nodes it adds to the forest.
    var addedNodes: Int {
        switch self {
        case .insert(let fragment, _): fragment.count
        case .insertGroups(let groups): groups.reduce(0) { $0 + $1.fragment.count }
        default: 0
        }
    }
}

/// What an applied operation changed, for the response and the events.
struct ChangeOutcome {
    var splices: [Splice]
    var subject: Subject
    /// Rows that may have changed in place (see `ReloadHint`).
    var reload: ReloadHint

    enum Subject {
        /// The whole session (no `index` in the response).
        case session
        /// An item still in the tree (`index`: its row, or null when hidden).
        case item(NodeHandle)
        /// A deleted item (`index`: null).
        case removed
        /// Inserted roots (201, `ids`, `index` of the first, `Location`).
        case inserted([NodeHandle])
    }
}

extension SessionCore {
    /// Why the engine would refuse `operation` in `store` (a move into the node's own
    /// subtree, an index out of range), or nil: then `apply` cannot fail.
    static func problem(of operation: ResolvedOperation, in store: TreeStore) -> EditError? {
        switch operation {
        case .move(let node, let parent, let index): store.moveProblem(node, to: parent, index: index)
        case .insert(_, let placement): store.insertionProblem(placement)
        default: nil
        }
    }

    /// Applies a checked operation to the named view of `store` (also inside a transaction
    /// of it: a batch's operations).
    static func apply(_ operation: ResolvedOperation, _ view: FilterQuery?, to store: inout TreeStore) -> ChangeOutcome {
        switch operation {
        case .expandAll: return ChangeOutcome(splices: store.expandAll(view), subject: .session, reload: .everything(view))
        case .collapseAll: return ChangeOutcome(splices: store.collapseAll(view), subject: .session, reload: .everything(view))
        case .expandToDepth(let depth):
            return ChangeOutcome(splices: store.expand(toDepth: depth, view), subject: .session, reload: .everything(view))
        case .setExpanded(let node, let expanded, let recursive):
            // A recursive change may flip rows of the whole subtree that stay visible.
            return ChangeOutcome(splices: store.setExpanded(node, expanded, recursive: recursive, view), subject: .item(node),
                                 reload: recursive ? .everything(view) : .path(node, store.forest, in: view))
        case .reveal(let node):
            return ChangeOutcome(splices: store.reveal(node, view), subject: .item(node), reload: .path(node, store.forest, in: view))
        case .move(let node, let parent, let index):
            let oldParent = store.forest.parent(of: node)
            let splices: [Splice]
            do throws(EditError) {
                splices = try store.move(node, to: parent, index: index, view)
            } catch {
                preconditionFailure("a checked move is made: \(error)")
            }
            return ChangeOutcome(splices: splices, subject: .item(node), reload: .paths([node] + (oldParent.map { [$0] } ?? []), store.forest))
        case .update(let node, let title, let data):
            return ChangeOutcome(splices: store.update(node, title: title, data: data, view), subject: .item(node), reload: .paths([node], store.forest))
        case .insert(let fragment, let placement):
            return insert([(fragment, placement)], view, &store)
        case .insertGroups(let groups):
            return insert(groups.map { ($0.fragment, InsertPlacement.child(of: $0.parent, index: nil)) }, view, &store)
        case .delete(let node):
            let parent = store.forest.parent(of: node)
            return ChangeOutcome(splices: store.delete(node, view), subject: .removed, reload: .paths(parent.map { [$0] } ?? [], store.forest))
        }
    }

    /// Inserts checked fragments one after another.
    private static func insert(_ parts: [(Forest, InsertPlacement)], _ view: FilterQuery?, _ store: inout TreeStore) -> ChangeOutcome {
        let rowsBefore = parts.count > 1 ? store.keptRowCount(view)! : 0
        var splices: [Splice] = [], roots: [NodeHandle] = []
        for (fragment, placement) in parts {
            do throws(EditError) {
                let inserted = try store.insert(fragment, placement, view)
                splices += inserted.splices
                roots += inserted.roots
            } catch {
                preconditionFailure("a checked insert is made: \(error)")
            }
        }
        // Several groups' splices read as one change (a list of bounded length).
        return ChangeOutcome(splices: parts.count > 1 ? Splice.sequence(splices, oldTotal: rowsBefore) : splices,
                             subject: .inserted(roots), reload: .paths(roots.prefix(1), store.forest))
    }
}
