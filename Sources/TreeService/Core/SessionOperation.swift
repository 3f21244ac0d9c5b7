import Foundation
import TreeEngine
import TreeFormats

/// An item id as a request names it: its string form (an integer id `7`, or `7.0` in a
/// body, is the id `"7"`), which names the same node in every session state.
struct ItemID: Hashable, Sendable, CustomStringConvertible {
    var text: String
    init(_ text: String) { self.text = text }
    var description: String { text }

    /// The id a JSON value names: a string, or an integer by its decimal form (`7.0` is the
    /// id `7`); nil for any other value.
    init?(_ value: JSONValue) {
        switch value {
        case .string(let s): self.init(s)
        default:
            guard let n = value.intValue else { return nil }
            self.init(String(n))
        }
    }
}

/// One change to a session's tree, to the state of one of its views, or to its set of
/// views, decoded from a request and naming items by id and views by `ViewID`: what a batch lists and an event stream announces (the journal records it as a
/// `RecordedOperation`). `TreeService.mutateSession` is the one place that applies it.
enum SessionOperation: Sendable {
    /// `PATCH /sessions/{sid}` `{"expandAll": true}`
    case expandAll
    /// `PATCH /sessions/{sid}` `{"collapseAll": true}`
    case collapseAll
    /// `PATCH /sessions/{sid}` `{"expandDepth": N}`: nodes above depth `N` expanded, the others collapsed.
    case expandToDepth(Int)
    /// `PATCH .../items/{itemId}` `{"expanded": Bool, "recursive": Bool}`
    case setExpanded(ItemID, expanded: Bool, recursive: Bool)
    /// `PATCH .../items/{itemId}` `{"reveal": true}`: every ancestor expanded.
    case reveal(ItemID)
    /// `PATCH .../items/{itemId}` `{"selected": Bool, "recursive": Bool}`: the view's selection
    /// of the item (with its subtree unless `recursive` is false).
    case setSelected(ItemID, selected: Bool, recursive: Bool)
    /// `PATCH /sessions/{sid}` `{"selectAll": true}`: every node, or in filtered rows every
    /// match with its subtree.
    case selectAll
    /// `PATCH /sessions/{sid}` `{"selectNone": true}`
    case selectNone
    /// `PATCH /sessions/{sid}` `{"invertSelection": true}`: every node, or in filtered rows
    /// every node in a match's subtree, flips.
    case invertSelection
    /// `PATCH /sessions/{sid}` `{"selectRows": {"offset", "count", "selected", "recursive"}}`:
    /// the nodes on those rows (a collapsed row's subtree with `recursive`).
    case selectRows(offset: Int, count: Int, selected: Bool, recursive: Bool)
    /// `PATCH .../items/{itemId}` `{"parentId": id or null, "index": N}`; no index: after the last child.
    case move(ItemID, parent: ItemID?, index: Int?)
    /// `PATCH .../items/{itemId}` `{"title": String, "data": JSON}` (the data serialized, as
    /// the store keeps it); nil leaves a field as it is.
    case update(ItemID, title: String?, data: [UInt8]?)
    /// `POST .../items`: the parsed nodes (their ids already checked against the session's), and where they go.
    case insert(Forest, InsertionPoint)
    /// `POST .../items` with CSV or NDJSON rows or a path list: nodes under existing parents
    /// (the top level for nil), each group after its parent's last child. Read against the
    /// session under its lock, so the parents are handles of that state.
    case insertGroups([FragmentGroup])
    /// `DELETE .../items/{itemId}`: the item and its subtree.
    case delete(ItemID)
    /// `PUT .../expansion` `{"expanded": [id, ...]}`: the view's unfiltered rows with these
    /// items expanded and every other collapsed (ids of no item are passed over).
    case setExpansion([ItemID])
    /// `PATCH …/views/{vid}` `{"sort": "-data.size,title" | null}`: the view's order of
    /// siblings (null: the tree's), every node keeping its expansion and selection.
    case setSort(SortKeys?)
    /// A batch's `{"op": "deleteSelected"}`: the view's selected nodes that have no selected
    /// ancestor, with their subtrees.
    case deleteSelected
    /// A batch's `{"op": "moveSelected", "parentId", "index"}`: the view's selected nodes that
    /// have no selected ancestor, in tree order, to be children of `parent` (roots when nil)
    /// from `index` on (counted among the children that do not move; nil: after the last).
    case moveSelected(parent: ItemID?, index: Int?)
    /// `POST /sessions/{sid}/views`: a new view, starting as `start` says (a copy names
    /// its source, nil: the default view). Its id is the session's next (`SessionCore.nextViewID`);
    /// it is made now, or (replaying its journal entry) at the time `at` gives.
    case createView(ViewStart, at: Date? = nil)
    /// `DELETE /sessions/{sid}/views/{vid}`, and (`expired`) a view's expiry: the view and
    /// its streams end.
    case deleteView(ViewID, expired: Bool)

    /// Where inserted nodes go, by id.
    enum InsertionPoint: Sendable, Equatable {
        /// Children of `parent` (roots when nil) at `index` among its children; nil: after the last.
        case child(of: ItemID?, index: Int?)
        case before(ItemID)
        case after(ItemID)
    }

    /// Whether the operation makes or drops a view.
    var isViewChange: Bool {
        switch self {
        case .createView, .deleteView: true
        default: false
        }
    }

    /// Whether the operation edits the forest (every kept view follows it) rather
    /// than changing the expansion of one view.
    var editsTree: Bool {
        switch self {
        case .expandAll, .collapseAll, .expandToDepth, .setExpanded, .reveal, .createView, .deleteView,
             .setSelected, .selectAll, .selectNone, .invertSelection, .selectRows, .setExpansion, .setSort: return false
        case .move, .update, .insert, .insertGroups, .delete, .deleteSelected, .moveSelected: return true
        }
    }
}
