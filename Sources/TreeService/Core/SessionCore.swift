import Foundation
import TreeEngine
import TreeFormats

/// A session's tree, its views and their versions, and the one way they change: an
/// operation whose items and views were looked up (`ResolvedOperation`) is checked
/// (`problem(of:in:)`) and then applied (`apply`), which cannot fail. No HTTP, no files, no
/// clock: the service journals a change between the check and the apply, and publishes its
/// events and renders its response from the outcome.
///
/// **Views.** Besides the *default view* (`ViewID?` nil: the routes without `/views/{vid}`,
/// whose version is the session's), a session holds any number of views, made and dropped
/// by `createView` and `deleteView` operations like every other change.
///
/// **Versions.** A view's version steps with every change it can see: every tree edit (a
/// batch: one step), and every change of its own state (its expansion, in its unfiltered or
/// filtered rows, and a reset of a filtered state it names again). So that a tree edit costs
/// O(1) however many views there are, a view's version is `base + treeEdits`: an edit steps
/// `treeEdits`, a change of one view's state its `base`. A new view starts at version 1.
struct SessionCore: Sendable {
    var store: TreeStore
    /// Version steps that edited the tree (a batch: one): every view's version counts them.
    private(set) var treeEdits = 0
    /// The default view's version less `treeEdits`.
    private var defaultBase = 1
    /// The views other than the default one.
    private(set) var views: [ViewID: ViewEntry] = [:]
    /// What each view's filtered states were through (see `FilterBook`), by view.
    private var filterBooks: [ViewID?: FilterBook] = [:]
    /// Views made so far: the next one's id is made from this count (`nextViewID`).
    private(set) var viewSerial: UInt64 = 0
    /// The key that scatters the serials into view ids (random per session).
    let viewKey: UInt64

    /// A view other than the default one.
    struct ViewEntry: Sendable {
        /// Its version less `treeEdits`.
        var base: Int
        /// When it was made, on the wall clock (the operation carries it: no clock here).
        let createdAt: Date
        /// Its place in the order of creation (`viewSerial` when it was made).
        let serial: UInt64
    }

    /// A view's filtered states and how they differ from a fresh build of themselves: a
    /// state that was changed (its expansion, or an edit updated it while kept: a node that
    /// left the ancestors of matches keeps its expansion, a fresh build collapses it) and
    /// then dropped from the view's kept states comes back in its initial state when it is
    /// named again: a reset, a change of that view. O(1) per tree edit: an edit is seen by
    /// comparing `treeEdits` with the count when a state was built.
    private struct FilterBook: Sendable {
        /// The kept states, with `treeEdits` when each was built.
        var builtAt: [FilterQuery: Int] = [:]
        /// Kept states whose expansion was changed.
        var expansionChanged: Set<FilterQuery> = []
        /// Dropped states that had changed: naming one again resets it.
        var changedDropped: Set<FilterQuery> = []

        /// Whether the kept state of `filter` differs from a fresh build.
        func hasChanged(_ filter: FilterQuery, treeEdits: Int) -> Bool {
            expansionChanged.contains(filter) || (builtAt[filter] ?? .min) < treeEdits
        }
    }

    /// A core over `store`, whose data fields it reads as JSON (`JSONFieldReader`).
    init(store: TreeStore, viewKey: UInt64 = .random(in: .min ... .max)) {
        self.store = store
        self.store.dataReader = JSONFieldReader()
        self.viewKey = viewKey
    }

    // MARK: Views and versions

    /// The session's version: the default view's.
    var version: Int {
        get { defaultBase + treeEdits }
        set { defaultBase = newValue - treeEdits }
    }

    /// The version of `view` (nil: the default view); the view exists.
    /// - Complexity: O(1)
    func version(of view: ViewID?) -> Int {
        guard let view else { return version }
        return views[view]!.base + treeEdits
    }

    /// Whether `view` exists (the default view always does).
    func contains(_ view: ViewID?) -> Bool { view.map { views[$0] != nil } ?? true }

    /// The views other than the default one, in the order they were made.
    /// - Complexity: O(v log v)
    var viewsInOrder: [(id: ViewID, entry: ViewEntry)] {
        views.map { ($0.key, $0.value) }.sorted { $0.entry.serial < $1.entry.serial }
    }

    /// The id the next `createView` takes: the serial scattered by the session's key through
    /// a bijection of 64-bit integers, so that no id is ever given twice in the session
    /// (until 2^64 views) and consecutive ones look unrelated.
    var nextViewID: ViewID { ViewID(Self.scatter((viewSerial &+ 1) ^ viewKey)) }

    /// SplitMix64's finalizer: each step (xor with a shift, multiplication by an odd
    /// number) is invertible, so it is a bijection.
    static func scatter(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Which views' versions a change stepped.
    enum Stepped: Equatable {
        /// Every view's (a tree edit).
        case every
        /// One view's (a change of its own state).
        case one(ViewID?)
        /// None (a view made or dropped).
        case none

        /// Whether `view`'s version stepped.
        func includes(_ view: ViewID?) -> Bool {
            switch self {
            case .every: true
            case .one(let v): v == view
            case .none: false
            }
        }
    }

    private mutating func stepOwnVersion(_ view: ViewID?) {
        if let view { views[view]!.base += 1 } else { defaultBase += 1 }
    }

    // MARK: Changes

    /// Applies a single checked operation through the named view, and steps the versions it
    /// changes: every view's for a tree edit, the named view's for a change of its state,
    /// none for a view made or dropped.
    mutating func apply(_ operation: ResolvedOperation, in view: ViewRef) -> (ChangeOutcome, Stepped) {
        switch operation {
        case .createView(let id, let start, let createdAt):
            precondition(views[id] == nil && id == nextViewID, "a view is made with the next id")
            store.createView(id, start)
            viewSerial += 1
            views[id] = ViewEntry(base: 1 - treeEdits, createdAt: createdAt, serial: viewSerial)
            if case .copy(let source) = start, var book = filterBooks[source] {
                // The copy keeps the source's kept states as they are, changed or not.
                book.changedDropped = []
                filterBooks[id] = book
            }
            return (ChangeOutcome(splices: [], subject: .createdView(id), reload: ReloadHint()), .none)
        case .deleteView(let id):
            store.deleteView(id)
            views[id] = nil
            filterBooks[id] = nil
            return (ChangeOutcome(splices: [], subject: .removed, reload: ReloadHint()), .none)
        default:
            // A new order moves rows without changing their expansion or selection: the view's
            // version steps as for a change of its selection, and not for the order it has.
            var sorting = false, reorders = false
            if case .setSort(let sort) = operation { (sorting, reorders) = (true, sort != store.sort(of: view.view)) }
            let outcome = Self.apply(operation, view, to: &store)
            let ownState = !operation.editsTree
            return (outcome, step(editsTree: operation.editsTree, changesExpansion: ownState && !operation.changesSelection && !sorting,
                                  changesSelection: operation.changesSelection || reorders, in: view))
        }
    }

    /// Steps the versions after a change through `view` (a batch: all its operations) and
    /// records what it did to the view's filtered state: a tree edit steps every view, a
    /// change of expansion or of the selection only the named one.
    mutating func step(editsTree: Bool, changesExpansion: Bool, changesSelection: Bool = false, in view: ViewRef) -> Stepped {
        if changesExpansion, let filter = view.filter { filterBooks[view.view, default: FilterBook()].expansionChanged.insert(filter) }
        if editsTree {
            treeEdits += 1
            return .every
        }
        guard changesExpansion || changesSelection else { return .none }
        stepOwnVersion(view.view)
        return .one(view.view)
    }

    /// Records that the named view's filtered state was prepared (`built`: it was not kept;
    /// `keptBefore`: the view's kept filters before): the states the build dropped, and
    /// whether the build was a *reset*, a state that had changed and been dropped coming
    /// back in its initial state, which steps the view's version.
    /// - Complexity: O(kept filtered states of the view)
    mutating func notePrepared(_ view: ViewRef, built: Bool, keptBefore: [FilterQuery]) -> Bool {
        guard built, let filter = view.filter else { return false }
        var book = filterBooks[view.view] ?? FilterBook()
        let kept = store.keptFilters(in: view.view)
        for query in keptBefore where !kept.contains(query) {
            if book.hasChanged(query, treeEdits: treeEdits) { book.changedDropped.insert(query) }
            book.builtAt[query] = nil
            book.expansionChanged.remove(query)
        }
        book.builtAt[filter] = treeEdits
        book.expansionChanged.remove(filter)
        let reset = book.changedDropped.remove(filter) != nil
        filterBooks[view.view] = book
        if reset { stepOwnVersion(view.view) }
        return reset
    }

    /// The default view's filtered states that may differ from a fresh build of themselves,
    /// kept or dropped (what a snapshot keeps); set when a session is loaded, with its
    /// kept states in the store.
    var changedFilters: Set<FilterQuery> {
        get { changedFilters(in: nil) }
        set { setChangedFilters(newValue, in: nil) }
    }

    /// The filtered states of `view` (nil: the default view) that may differ from a fresh
    /// build of themselves, kept or dropped (what a snapshot keeps of its `FilterBook`).
    /// - Complexity: O(filtered states the view keeps or dropped changed)
    func changedFilters(in view: ViewID?) -> Set<FilterQuery> {
        let book = filterBooks[view] ?? FilterBook()
        return book.changedDropped.union(book.builtAt.keys.filter { book.hasChanged($0, treeEdits: treeEdits) })
    }

    /// Sets what `changedFilters(in:)` gives, with the view's kept states in the store (a
    /// session loaded from a snapshot).
    mutating func setChangedFilters(_ changed: Set<FilterQuery>, in view: ViewID?) {
        var book = FilterBook()
        let kept = store.keptFilters(in: view)
        for query in kept {
            book.builtAt[query] = treeEdits
            if changed.contains(query) { book.expansionChanged.insert(query) }
        }
        book.changedDropped = changed.subtracting(kept)
        filterBooks[view] = book
    }

    // MARK: Loading

    /// Gives back a view the store holds (a session loaded from a snapshot): its version,
    /// when it was made, its serial and its changed filtered states. Views are given back
    /// in the order they were made, after `restoreViewSerial`.
    /// - Precondition: the store holds the view; the core does not know it yet.
    mutating func restoreView(_ id: ViewID, version: Int, createdAt: Date, serial: UInt64, changedFilters: Set<FilterQuery>) {
        precondition(store.contains(view: id) && views[id] == nil && serial <= viewSerial, "a stored view is given back once")
        views[id] = ViewEntry(base: version - treeEdits, createdAt: createdAt, serial: serial)
        setChangedFilters(changedFilters, in: id)
    }

    /// Moves every view's version (the default one's not) `steps` further, at most to
    /// `most`: records lost after damage may have stepped them, and the versions they reached
    /// were issued to clients.
    /// - Complexity: O(views)
    mutating func passViewVersions(by steps: Int, most: Int) {
        for id in views.keys { views[id]!.base = min(most, views[id]!.base + treeEdits + steps) - treeEdits }
    }

    /// Sets the number of views made so far (a session loaded from a snapshot), which the
    /// next view's id is made from.
    mutating func restoreViewSerial(_ serial: UInt64) { viewSerial = serial }
}

/// An operation with its items and views looked up in the store.
enum ResolvedOperation {
    case expandAll
    case collapseAll
    case expandToDepth(Int)
    case setExpanded(NodeHandle, expanded: Bool, recursive: Bool)
    case reveal(NodeHandle)
    case setSelected(NodeHandle, selected: Bool, recursive: Bool)
    case selectAll
    case selectNone
    case invertSelection
    case selectRows(offset: Int, count: Int, selected: Bool, recursive: Bool)
    /// The items of a `setExpansion` that are in the tree, and how many ids named none.
    case setExpansion([NodeHandle], unknown: Int)
    case setSort(SortKeys?)
    case move(NodeHandle, parent: NodeHandle?, index: Int?)
    case update(NodeHandle, title: String?, data: [UInt8]?)
    case insert(Forest, InsertPlacement)
    case insertGroups([FragmentGroup])
    case delete(NodeHandle)
    /// Nodes none of which is below another, deleted in turn (a view's selected nodes that have
    /// no selected ancestor).
    case deleteNodes([NodeHandle])
    /// Nodes none of which is below another, moved in turn to be children of `parent` (roots
    /// when nil) before `before` (nil: after the last child).
    case moveNodes([NodeHandle], parent: NodeHandle?, before: NodeHandle?)
    /// A new view with this id (the session's `nextViewID`), made at `createdAt`.
    case createView(ViewID, ViewStart, createdAt: Date)
    case deleteView(ViewID)

    /// Whether it edits the forest (every view follows) rather than the state of one view.
    var editsTree: Bool {
        switch self {
        case .expandAll, .collapseAll, .expandToDepth, .setExpanded, .reveal, .createView, .deleteView,
             .setSelected, .selectAll, .selectNone, .invertSelection, .selectRows, .setExpansion, .setSort: false
        case .move, .update, .insert, .insertGroups, .delete, .deleteNodes, .moveNodes: true
        }
    }

    /// Whether it changes the named view's selection (its version steps, its rows neither
    /// move nor change their expansion).
    var changesSelection: Bool {
        switch self {
        case .setSelected, .selectAll, .selectNone, .invertSelection, .selectRows: true
        default: false
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
        /// The whole view (no `index` in the response).
        case session
        /// An item still in the tree (`index`: its row, or null when hidden).
        case item(NodeHandle)
        /// A deleted item (`index`: null), or a dropped view.
        case removed
        /// Inserted roots (201, `ids`, `index` of the first, `Location`).
        case inserted([NodeHandle])
        /// A view made (201, its summary, `Location`).
        case createdView(ViewID)
        /// A view's expansion set from a list (`unknown`: the ids that named no item).
        case expansionSet(unknown: Int)
    }
}

extension SessionCore {
    /// Why the engine would refuse `operation` in `store` (a move into the node's own
    /// subtree, an index out of range), or nil: then `apply` cannot fail.
    static func problem(of operation: ResolvedOperation, in store: TreeStore) -> EditError? {
        switch operation {
        case .move(let node, let parent, let index): store.moveProblem(node, to: parent, index: index)
        case .insert(_, let placement): store.insertionProblem(placement)
        case .moveNodes(let nodes, let parent, _):
            nodes.lazy.compactMap { store.moveProblem($0, to: parent, index: nil) }.first
        default: nil
        }
    }

    /// Applies a checked operation of a view's state or of the tree through the named view
    /// of `store` (also inside a transaction of it: a batch's operations). Views are made and
    /// dropped by `apply(_:in:)` alone.
    static func apply(_ operation: ResolvedOperation, _ view: ViewRef, to store: inout TreeStore) -> ChangeOutcome {
        // A view's rows carry the selection's fields while it selects something (its
        // selection is kept): when that starts or ends, each of its rows changes. Only a
        // change of a selection starts one; a delete may end any.
        let startsOrEnds: Bool
        switch operation {
        case .delete, .deleteNodes: startsOrEnds = true
        default: startsOrEnds = operation.changesSelection
        }
        guard startsOrEnds else { return applyChecked(operation, view, to: &store) }
        let selecting = store.viewsWithSelection
        var outcome = applyChecked(operation, view, to: &store)
        for changed in selecting.symmetricDifference(store.viewsWithSelection) {
            outcome.reload.formUnion(.everything(inView: changed))
        }
        return outcome
    }

    /// `apply`, less the rows of views whose selection started or ended.
    private static func applyChecked(_ operation: ResolvedOperation, _ view: ViewRef, to store: inout TreeStore) -> ChangeOutcome {
        switch operation {
        case .expandAll: return ChangeOutcome(splices: store.expandAll(view), subject: .session, reload: .everything(view))
        case .collapseAll: return ChangeOutcome(splices: store.collapseAll(view), subject: .session, reload: .everything(view))
        case .expandToDepth(let depth):
            return ChangeOutcome(splices: store.expand(toDepth: depth, view), subject: .session, reload: .everything(view))
        case .setExpanded(let node, let expanded, let recursive):
            // A recursive change may flip rows of the whole subtree that stay visible.
            return ChangeOutcome(splices: store.setExpanded(node, expanded, recursive: recursive, view), subject: .item(node),
                                 reload: .path(node, subtree: recursive, store.forest, in: view))
        case .reveal(let node):
            return ChangeOutcome(splices: store.reveal(node, view), subject: .item(node), reload: .path(node, store.forest, in: view))
        case .setExpansion(let nodes, let unknown):
            return ChangeOutcome(splices: store.setExpansion(nodes, in: view.view), subject: .expansionSet(unknown: unknown),
                                 reload: .everything(view))
        case .setSort(let sort):
            return ChangeOutcome(splices: store.setSort(sort, of: view), subject: .session, reload: .everything(inView: view.view))
        case .setSelected(let node, let selected, let recursive):
            store.setSelected(node, selected, recursive: recursive, in: view.view)
            // The node's row and its ancestors' (their counts below); with its subtree, the rows below it too.
            return ChangeOutcome(splices: [], subject: .item(node),
                                 reload: .path(node, subtree: recursive, store.forest, inView: view.view))
        case .selectAll:
            store.selectAll(view)
            return selectionChanged(in: view)
        case .selectNone:
            store.selectNone(in: view.view)
            return selectionChanged(in: view)
        case .invertSelection:
            store.invertSelection(view)
            return selectionChanged(in: view)
        case .selectRows(let offset, let count, let selected, let recursive):
            // The rows named and their ancestors' in the rows named; any row of the view's others.
            guard let named = store.selectRows(view, offset: offset, count: count, selected, recursive: recursive) else {
                return ChangeOutcome(splices: [], subject: .session, reload: ReloadHint())
            }
            return ChangeOutcome(splices: [], subject: .session,
                                 reload: .rows(from: named.first, through: named.last, store.forest, in: view))
        case .move(let node, let parent, let index):
            let oldParent = store.forest.parent(of: node)
            let splices = checkedMove(node, to: parent, index: index, view, &store)
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
        case .deleteNodes(let nodes):
            let rowsBefore = store.keptRowCount(view)!
            var splices: [Splice] = [], parents: [NodeHandle] = []
            for node in nodes {
                if let parent = store.forest.parent(of: node) { parents.append(parent) }
                splices += store.delete(node, view)
            }
            return ChangeOutcome(splices: Splice.sequence(splices, oldTotal: rowsBefore), subject: .session,
                                 reload: .paths(parents, store.forest))
        case .moveNodes(let nodes, let parent, let before):
            let rowsBefore = store.keptRowCount(view)!
            var splices: [Splice] = [], touched: [NodeHandle] = []
            for node in nodes {
                if let old = store.forest.parent(of: node) { touched.append(old) }
                let index = before.map { sibling in store.forest.children(of: parent).filter { $0 != node }.firstIndex(of: sibling)! }
                splices += checkedMove(node, to: parent, index: index, view, &store)
                touched.append(node)
            }
            return ChangeOutcome(splices: Splice.sequence(splices, oldTotal: rowsBefore), subject: .session,
                                 reload: .paths(touched, store.forest))
        case .createView, .deleteView:
            preconditionFailure("views are made and dropped by SessionCore.apply(_:in:), never in a batch")
        }
    }

    /// The outcome of a change of many nodes of a view's selection: no splice, and any of the
    /// view's rows may have a new state or new counts below it.
    private static func selectionChanged(in view: ViewRef) -> ChangeOutcome {
        ChangeOutcome(splices: [], subject: .session, reload: .everything(inView: view.view))
    }

    /// Moves a node whose move was checked (`problem(of:in:)`), which cannot fail.
    private static func checkedMove(_ node: NodeHandle, to parent: NodeHandle?, index: Int?, _ view: ViewRef,
                                    _ store: inout TreeStore) -> [Splice] {
        do throws(EditError) {
            return try store.move(node, to: parent, index: index, view)
        } catch {
            preconditionFailure("a checked move is made: \(error)")
        }
    }

    /// Inserts checked fragments one after another.
    private static func insert(_ parts: [(Forest, InsertPlacement)], _ view: ViewRef, _ store: inout TreeStore) -> ChangeOutcome {
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
