import TreeEngine

/// Issue 35: views besides the default one, each a `RefView` over the one forest.
/// Reading and expanding take a `ViewRef` (`ReferenceForest.swift`); edits reach every
/// view through `editDone(_:moved:)`.
extension ReferenceForest {
    /// The views, ascending (the default view is not among them).
    var viewIDs: [ViewID] { views.keys.sorted() }

    /// A new view: a fresh rule, or a copy of another view's state (nil: the default
    /// view's), its unfiltered expansion and its kept filtered rows in the same order.
    /// The default view's expansion becomes the copy's explicit expansion over the rule
    /// `collapsed` (its nodes expanded, leaves included, are the entries).
    func createView(_ id: ViewID, _ start: ViewStart) {
        precondition(views[id] == nil, "view \(id) exists")
        switch start {
        case .collapsed: views[id] = RefView(rule: .collapsed)
        case .expanded: views[id] = RefView(rule: .expanded)
        case .depth(let n): views[id] = RefView(rule: n == 0 ? .collapsed : .depth(n))
        case .copy(of: let source?): views[id] = views[source]!
        case .copy(of: nil):
            var view = RefView(rule: .collapsed)
            for n in allNodes where n.expanded { view.explicit[ObjectIdentifier(n)] = true }
            view.filtered = defaultFiltered
            views[id] = view
        }
    }

    func deleteView(_ id: ViewID) {
        precondition(views[id] != nil, "no view \(id)")
        views[id] = nil
        dropSelection(of: id)
    }

    /// The filtered rows a view keeps, least recently used first.
    func keptFilters(in view: ViewID?) -> [FilterQuery] { filteredStates(view).kept }

    /// Whether reading the rows needs no build: a view's unfiltered rows always, its
    /// filtered rows while kept.
    func isKept(_ ref: ViewRef) -> Bool {
        if let v = ref.view, views[v] == nil { return false }
        return ref.filter.map { filteredStates(ref.view).kept.contains($0) } ?? true
    }

    /// Every row list a view holds now: its unfiltered rows and each kept filtered state.
    func refs(of view: ViewID?) -> [ViewRef] {
        [ViewRef(view)] + keptFilters(in: view).map { ViewRef(view, filter: $0) }
    }
}
