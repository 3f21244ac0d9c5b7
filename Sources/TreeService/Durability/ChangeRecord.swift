import TreeEngine
import TreeFormats
import TreeStorage

/// A change as the journal keeps it (record format 3): the view it was made through (a
/// session's view, nil for the default one, and its filtered rows, nil for its unfiltered
/// ones) and the operations that were applied, items named by id. Only what was applied is
/// recorded (after every check, the engine's refusals and the node budget's included), so
/// replay applies each record whatever the server's limits are then. Format 2, written
/// before views were journaled, is format 3 without the view: the default view's.
///
/// Inserted nodes are kept in the format they came in, the most compact form they have:
/// replay reads them again against the session as it was then, which gives the same
/// nodes and the same generated ids.
struct ChangeRecord: Equatable, Sendable {
    /// The view (nil: the default view).
    var view: ViewID? = nil
    /// Its filtered rows (nil: its unfiltered rows).
    var filter: FilterQuery?
    /// A batch: its view is built and its operations applied inside one transaction of the
    /// store, and it steps the version once (an empty batch only when it resets its view).
    var isBatch: Bool
    var operations: [RecordedOperation]
}

/// One applied operation, as `ChangeRecord` keeps it.
enum RecordedOperation: Equatable, Sendable {
    case expandAll
    case collapseAll
    case expandToDepth(Int)
    case setExpanded(ItemID, expanded: Bool, recursive: Bool)
    case reveal(ItemID)
    case setSelected(ItemID, selected: Bool, recursive: Bool)
    case selectAll
    case selectNone
    case invertSelection
    case selectRows(offset: Int, count: Int, selected: Bool, recursive: Bool)
    case move(ItemID, parent: ItemID?, index: Int?)
    /// `data`: the node's data as the store keeps it (serialized JSON).
    case update(ItemID, title: String?, data: [UInt8]?)
    case delete(ItemID)
    case deleteSelected
    case moveSelected(parent: ItemID?, index: Int?)
    case setExpansion([ItemID])
    /// A view's order (nil: the tree's).
    case setSort(SortKeys?)
    /// Nested JSON nodes with where they go (`parentId`, `index`, `before`, `after`): an
    /// insert's body, or a batch's insert operation.
    case insertNodes([UInt8])
    /// CSV or NDJSON rows, or a path list (under `upload.parent`).
    case insertRows([UInt8], RowsUpload)

    /// The record of an operation that names its items by id (every one but an insert,
    /// whose nodes are recorded as they came).
    init(_ operation: SessionOperation) {
        switch operation {
        case .expandAll: self = .expandAll
        case .collapseAll: self = .collapseAll
        case .expandToDepth(let depth): self = .expandToDepth(depth)
        case .setExpanded(let item, let expanded, let recursive): self = .setExpanded(item, expanded: expanded, recursive: recursive)
        case .reveal(let item): self = .reveal(item)
        case .setSelected(let item, let selected, let recursive): self = .setSelected(item, selected: selected, recursive: recursive)
        case .selectAll: self = .selectAll
        case .selectNone: self = .selectNone
        case .invertSelection: self = .invertSelection
        case .selectRows(let offset, let count, let selected, let recursive):
            self = .selectRows(offset: offset, count: count, selected: selected, recursive: recursive)
        case .move(let item, let parent, let index): self = .move(item, parent: parent, index: index)
        case .update(let item, let title, let data): self = .update(item, title: title, data: data)
        case .delete(let item): self = .delete(item)
        case .deleteSelected: self = .deleteSelected
        case .moveSelected(let parent, let index): self = .moveSelected(parent: parent, index: index)
        case .setExpansion(let items): self = .setExpansion(items)
        case .setSort(let sort): self = .setSort(sort)
        case .insert, .insertGroups: preconditionFailure("an insert is recorded with the nodes as they came")
        case .createView, .deleteView: preconditionFailure("a view made or dropped has a journal entry of its own")
        }
    }

    /// The operation again, for one that names its items by id; nil for an insert (its
    /// nodes are read against the session).
    var operation: SessionOperation? {
        switch self {
        case .expandAll: .expandAll
        case .collapseAll: .collapseAll
        case .expandToDepth(let depth): .expandToDepth(depth)
        case .setExpanded(let item, let expanded, let recursive): .setExpanded(item, expanded: expanded, recursive: recursive)
        case .reveal(let item): .reveal(item)
        case .setSelected(let item, let selected, let recursive): .setSelected(item, selected: selected, recursive: recursive)
        case .selectAll: .selectAll
        case .selectNone: .selectNone
        case .invertSelection: .invertSelection
        case .selectRows(let offset, let count, let selected, let recursive):
            .selectRows(offset: offset, count: count, selected: selected, recursive: recursive)
        case .move(let item, let parent, let index): .move(item, parent: parent, index: index)
        case .update(let item, let title, let data): .update(item, title: title, data: data)
        case .delete(let item): .delete(item)
        case .deleteSelected: .deleteSelected
        case .moveSelected(let parent, let index): .moveSelected(parent: parent, index: index)
        case .setExpansion(let items): .setExpansion(items)
        case .setSort(let sort): .setSort(sort)
        case .insertNodes, .insertRows: nil
        }
    }
}

// MARK: Bytes

extension ChangeRecord {
    /// The record format this version writes; docs/STORAGE.md shows it byte by byte.
    static let format: UInt8 = 3
    /// The record format before views were journaled: no view id (the default view's).
    static let formatWithoutViews: UInt8 = 2

    /// The fields after a payload's kind and time; `format` 2 (the record of a release
    /// before views were journaled, for tests of replay) only for the default view.
    func encode(to out: inout ByteWriter, format: UInt8 = ChangeRecord.format) {
        precondition(format == ChangeRecord.format || (format == ChangeRecord.formatWithoutViews && view == nil))
        out.u8(format)
        if format == ChangeRecord.format { out.optional(view) { $0.u64($1.rawValue) } }
        out.view(filter)
        out.u8(isBatch ? 1 : 0)
        out.u32(UInt32(operations.count))
        for operation in operations { operation.encode(to: &out) }
    }

    /// What `encode` wrote, or a record of format 2; nil when malformed or of another format.
    init?(_ input: inout ByteReader) {
        guard let format = input.u8(), format == ChangeRecord.format || format == ChangeRecord.formatWithoutViews else { return nil }
        var id: ViewID?
        if format == ChangeRecord.format {
            guard let read = input.optional({ $0.u64() }) else { return nil }
            id = read.map(ViewID.init)
        }
        guard let filter = input.view(), let batch = input.u8(), batch <= 1,
              let count = input.u32() else { return nil }
        var operations: [RecordedOperation] = []
        for _ in 0 ..< count {
            guard let operation = RecordedOperation(&input) else { return nil }
            operations.append(operation)
        }
        guard input.atEnd, batch == 1 || count == 1 else { return nil }
        // A sort is a view's, and no batch holds one.
        let sorts = operations.contains { if case .setSort = $0 { true } else { false } }
        guard !sorts || (batch == 0 && id != nil) else { return nil }
        self.init(view: id, filter: filter, isBatch: batch == 1, operations: operations)
    }
}

extension RecordedOperation {
    /// The operation's code in a record.
    private enum Code: UInt8 {
        case expandAll = 1, collapseAll, expandToDepth, setExpanded, reveal, move, update, delete, insertNodes, insertRows
        case setSelected, selectAll, selectNone, invertSelection, selectRows, deleteSelected, moveSelected, setExpansion
        case setSort
    }

    func encode(to out: inout ByteWriter) {
        switch self {
        case .expandAll: out.u8(Code.expandAll.rawValue)
        case .collapseAll: out.u8(Code.collapseAll.rawValue)
        case .expandToDepth(let depth):
            out.u8(Code.expandToDepth.rawValue)
            out.i64(Int64(depth))
        case .setExpanded(let item, let expanded, let recursive):
            out.u8(Code.setExpanded.rawValue)
            out.string(item.text)
            out.u8((expanded ? 1 : 0) | (recursive ? 2 : 0))
        case .reveal(let item):
            out.u8(Code.reveal.rawValue)
            out.string(item.text)
        case .setSelected(let item, let selected, let recursive):
            out.u8(Code.setSelected.rawValue)
            out.string(item.text)
            out.u8((selected ? 1 : 0) | (recursive ? 2 : 0))
        case .selectAll: out.u8(Code.selectAll.rawValue)
        case .selectNone: out.u8(Code.selectNone.rawValue)
        case .invertSelection: out.u8(Code.invertSelection.rawValue)
        case .deleteSelected: out.u8(Code.deleteSelected.rawValue)
        case .setExpansion(let items):
            out.u8(Code.setExpansion.rawValue)
            out.u32(UInt32(items.count))
            for item in items { out.string(item.text) }
        case .setSort(let sort):
            out.u8(Code.setSort.rawValue)
            out.optional(sort) { $0.counted(FilterQueryBytes.bytes(of: $1)) }
        case .moveSelected(let parent, let index):
            out.u8(Code.moveSelected.rawValue)
            out.optional(parent?.text) { $0.string($1) }
            out.optional(index) { $0.i64(Int64($1)) }
        case .selectRows(let offset, let count, let selected, let recursive):
            out.u8(Code.selectRows.rawValue)
            out.i64(Int64(offset))
            out.i64(Int64(count))
            out.u8((selected ? 1 : 0) | (recursive ? 2 : 0))
        case .move(let item, let parent, let index):
            out.u8(Code.move.rawValue)
            out.string(item.text)
            out.optional(parent?.text) { $0.string($1) }
            out.optional(index) { $0.i64(Int64($1)) }
        case .update(let item, let title, let data):
            out.u8(Code.update.rawValue)
            out.string(item.text)
            out.optional(title) { $0.string($1) }
            out.optional(data) { $0.counted($1) }
        case .delete(let item):
            out.u8(Code.delete.rawValue)
            out.string(item.text)
        case .insertNodes(let body):
            out.u8(Code.insertNodes.rawValue)
            out.counted(body)
        case .insertRows(let body, let upload):
            out.u8(Code.insertRows.rawValue)
            out.u8(upload.code)
            out.string(upload.separator)
            out.optional(upload.parent?.text) { $0.string($1) }
            out.counted(body)
        }
    }

    init?(_ input: inout ByteReader) {
        guard let code = input.u8().flatMap(Code.init(rawValue:)) else { return nil }
        func item() -> ItemID? { input.string().map(ItemID.init) }
        switch code {
        case .expandAll: self = .expandAll
        case .collapseAll: self = .collapseAll
        case .expandToDepth:
            guard let depth = input.i64() else { return nil }
            self = .expandToDepth(Int(depth))
        case .setExpanded:
            guard let item = item(), let flags = input.u8(), flags & ~3 == 0 else { return nil }
            self = .setExpanded(item, expanded: flags & 1 != 0, recursive: flags & 2 != 0)
        case .reveal:
            guard let item = item() else { return nil }
            self = .reveal(item)
        case .setSelected:
            guard let item = item(), let flags = input.u8(), flags & ~3 == 0 else { return nil }
            self = .setSelected(item, selected: flags & 1 != 0, recursive: flags & 2 != 0)
        case .selectAll: self = .selectAll
        case .selectNone: self = .selectNone
        case .invertSelection: self = .invertSelection
        case .deleteSelected: self = .deleteSelected
        case .setExpansion:
            guard let count = input.u32() else { return nil }
            var items: [ItemID] = []
            for _ in 0 ..< count {
                guard let item = item() else { return nil }
                items.append(item)
            }
            self = .setExpansion(items)
        case .setSort:
            guard let bytes = input.optional({ $0.counted() }) else { return nil }
            guard let bytes else {
                self = .setSort(nil)
                return
            }
            var o = 0
            guard let sort = bytes.withUnsafeBytes({ FilterQueryBytes.readSort($0, at: &o) }), o == bytes.count else { return nil }
            self = .setSort(sort)
        case .moveSelected:
            guard let parent = input.optional({ $0.string() }), let index = input.optional({ $0.i64() }) else { return nil }
            self = .moveSelected(parent: parent.map(ItemID.init), index: index.map { Int($0) })
        case .selectRows:
            guard let offset = input.i64(), offset >= 0, let count = input.i64(), count >= 0,
                  let flags = input.u8(), flags & ~3 == 0 else { return nil }
            self = .selectRows(offset: Int(offset), count: Int(count), selected: flags & 1 != 0, recursive: flags & 2 != 0)
        case .move:
            guard let item = item(), let parent = input.optional({ $0.string() }), let index = input.optional({ $0.i64() }) else { return nil }
            self = .move(item, parent: parent.map(ItemID.init), index: index.map { Int($0) })
        case .update:
            guard let item = item(), let title = input.optional({ $0.string() }), let data = input.optional({ $0.counted() }) else { return nil }
            self = .update(item, title: title, data: data)
        case .delete:
            guard let item = item() else { return nil }
            self = .delete(item)
        case .insertNodes:
            guard let body = input.counted() else { return nil }
            self = .insertNodes(body)
        case .insertRows:
            guard let code = input.u8(), let separator = input.string(), let parent = input.optional({ $0.string() }),
                  let body = input.counted(),
                  let upload = RowsUpload(code: code, separator: separator, parent: parent.map(ItemID.init)) else { return nil }
            self = .insertRows(body, upload)
        }
    }
}
