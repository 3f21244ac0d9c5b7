import TreeEngine

extension Forest {
    /// Builds a forest from CSV rows (RFC 4180 with a header): columns `id`, `parentId`,
    /// `title`, optional `expanded`, `hasChildren`, `data` (JSON text), other columns into
    /// `data` as an object of strings. Parents may come after their children; siblings keep
    /// the input order. Ids are strings (`42` is the string "42"); an id `~N` that equals
    /// the node's own slot (as our exports write generated ids) stays implicit, so an export
    /// comes back as the same forest as its nested JSON upload.
    ///
    /// Rows in pre-order are built while they are read (`RowParts`, in parts at once when
    /// the body is large); any other body, and any rule broken, is read into a `RowTable`,
    /// which resolves parents through a hash table and reports errors with their places.
    /// - Throws: `TreeInputError` with the line and column of the offending byte.
    /// - Complexity: O(n) expected, iterative at any depth.
    public static func parseCSV(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits = ForestLimits(),
                                dialect: CSVDialect = CSVDialect()) throws(TreeInputError) -> Forest {
        try parseRows(bytes, limits: limits, dialect: dialect, reader: CSVReader.self)
    }

    /// Builds a forest from NDJSON rows: one object a line with `id`, `parentId`, `title`,
    /// and optionally `expanded`, `hasChildren`, `data`. Parents may come after their
    /// children; siblings keep the input order.
    /// - Throws: `TreeInputError` with the line, the column and the member's JSON Pointer.
    /// - Complexity: O(n) expected, iterative at any depth.
    public static func parseNDJSON(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits = ForestLimits()) throws(TreeInputError) -> Forest {
        try parseRows(bytes, limits: limits, dialect: CSVDialect(), reader: NDJSONReader.self)
    }

    /// The fast path, else the table.
    static func parseRows<Reader: RowReader>(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits, dialect: CSVDialect,
                                            reader _: Reader.Type) throws(TreeInputError) -> Forest {
        if var streamed = RowParts<Reader>(bytes: bytes, limits: limits, dialect: dialect, target: nil).readInParts(),
           let forest = streamed.finish() { return forest }
        var rows = try Reader.readTable(bytes, limits: limits, dialect: dialect, existingCount: 0)
        return try rows.table.buildForest(locate: { [locator = rows.locator] in locator.locate($0, $1) })
    }
}

extension TreeStore {
    /// CSV rows to insert: a `parentId` may name a node of the body or an existing node of
    /// this store; an empty one means the top level. One group per existing parent (nil =
    /// top level), in order of first appearance; ids checked against the store and the body.
    /// - Complexity: O(n) expected, plus a store lookup per row whose parent is not in the body.
    public func parseCSVFragments(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits,
                                  dialect: CSVDialect = CSVDialect()) throws(TreeInputError) -> [FragmentGroup] {
        try Self.parseRowFragments(bytes, limits: limits, dialect: dialect, into: RowTarget(store: self), reader: CSVReader.self)
            .map { group in FragmentGroup(parent: group.parent?.node, fragment: group.fragment) }
    }

    /// NDJSON rows to insert; as `parseCSVFragments` (a null or absent `parentId` means the
    /// top level).
    /// - Complexity: O(n) expected, plus a store lookup per row whose parent is not in the body.
    public func parseNDJSONFragments(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits) throws(TreeInputError) -> [FragmentGroup] {
        try Self.parseRowFragments(bytes, limits: limits, dialect: CSVDialect(), into: RowTarget(store: self), reader: NDJSONReader.self)
            .map { group in FragmentGroup(parent: group.parent?.node, fragment: group.fragment) }
    }

    /// CSV rows to insert, read as `parseCSVFragments` reads them before it is known which
    /// store they go into (a request's body before its session is locked): their syntax,
    /// the limits and their ids among themselves are checked; a `parentId` that names no
    /// row of the body is kept as it is, for `attach` to look up.
    public static func parseDetachedCSVFragments(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits,
                                                 dialect: CSVDialect = CSVDialect()) throws(TreeInputError) -> DetachedFragments {
        DetachedFragments(groups: try parseRowFragments(bytes, limits: limits, dialect: dialect, into: RowTarget(store: nil), reader: CSVReader.self))
    }

    /// NDJSON rows to insert, read before it is known which store they go into (see
    /// `parseDetachedCSVFragments`).
    public static func parseDetachedNDJSONFragments(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits) throws(TreeInputError) -> DetachedFragments {
        DetachedFragments(groups: try parseRowFragments(bytes, limits: limits, dialect: CSVDialect(), into: RowTarget(store: nil), reader: NDJSONReader.self))
    }

    /// The groups of `detached` as this store's own read of the same rows would give them
    /// (`parseCSVFragments`, `parseNDJSONFragments`): each parent id names a node here (an
    /// empty one that names none: the top level), no two groups go to one place, no id is
    /// taken here, and this forest's nodes and theirs are within `limits.maxNodes`. Nil
    /// otherwise: a read against this store then names the row that breaks the rule.
    /// - Complexity: O(their nodes + ids' bytes) expected
    public func attach(_ detached: DetachedFragments, limits: ForestLimits) -> [FragmentGroup]? {
        var groups: [FragmentGroup] = []
        var places = Set<NodeHandle?>()
        var nodes = 0
        for group in detached.groups {
            var parent: NodeHandle?
            if case .named(let id)? = group.parent {
                parent = forest.node(withID: String(decoding: id, as: UTF8.self))
                if parent == nil && !id.isEmpty { return nil }
            }
            nodes += group.fragment.count
            guard places.insert(parent).inserted, admits(group.fragment, limits: limits) else { return nil }
            groups.append(FragmentGroup(parent: parent, fragment: group.fragment))
        }
        return forest.count <= limits.maxNodes - nodes ? groups : nil
    }

    /// Rows in pre-order going under one parent (an existing node, or the top level) are
    /// built while they are read, as a new forest's are; others, and any rule broken, are
    /// read into a table, which makes a group per parent and names the error's row.
    private static func parseRowFragments<Reader: RowReader>(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits, dialect: CSVDialect,
                                                            into target: RowTarget, reader _: Reader.Type) throws(TreeInputError) -> [RowGroup] {
        if var streamed = RowParts<Reader>(bytes: bytes, limits: limits, dialect: dialect, target: target).readInParts(),
           let groups = streamed.finishFragment() { return groups }
        var rows = try Reader.readTable(bytes, limits: limits, dialect: dialect, existingCount: target.existingCount)
        return try rows.table.buildFragments(target: target, locate: { [locator = rows.locator] in locator.locate($0, $1) })
    }
}

/// Rows to insert read before it is known which store they go into
/// (`TreeStore.parseDetachedCSVFragments`); `TreeStore.attach` gives their groups.
public struct DetachedFragments: Sendable {
    let groups: [RowGroup]
}

extension GroupParent {
    /// The node, when found.
    var node: NodeHandle? {
        if case .node(let node) = self { return node }
        return nil
    }
}

/// What the CSV and NDJSON readers share: reading rows into a `RowStreamer` (when set) or
/// a `RowTable`, and finding a row's field again for an error.
protocol RowReader: SendableMetatype {
    /// What the reader throws before the error's place is worked out.
    associatedtype Failure: ReaderError
    static var syntax: RowSyntax { get }
    init(_ input: UnsafeRawBufferPointer, limits: ForestLimits, dialect: CSVDialect)
    var table: RowTable { get set }
    var streamer: RowStreamer? { get set }
    /// Reads the whole body (what comes before the rows, then the rows), naming the error's place.
    mutating func read() throws(TreeInputError)
    func locate(_ rowStart: Int, _ field: RowField) -> (offset: Int, path: String)

    // Reading in parts (`RowParts`):
    /// What comes before the rows (CSV: the header); `position` is then on the first row.
    mutating func readPrelude() throws(Failure)
    /// The rows from `position` on, until the end, or a row that starts after `stopAfter`.
    mutating func readRows() throws(Failure)
    /// Where the reader is: the offset of the next byte it reads.
    var position: Int { get set }
    /// Rows that start after this offset are left unread (`readRows`).
    var stopAfter: Int { get set }
    /// Where the first row that starts after `offset` (after `position`) starts, blank lines
    /// skipped; the end when none does.
    func rowStart(after offset: Int) -> Int
}

extension RowReader {
    /// A reader of the default dialect (comma or the header's delimiter, role names in any case).
    init(_ input: UnsafeRawBufferPointer, limits: ForestLimits) { self.init(input, limits: limits, dialect: CSVDialect()) }

    /// Checks that the body fits 32-bit offsets (a span's).
    static func checkInputSize(_ input: UnsafeRawBufferPointer) throws(Failure) {
        if input.count >= 1 << 32 - 1 {
            throw .limit("a row body must be smaller than 4 GiB", at: 0)
        }
    }

    /// Checks that a field fits a span (below 1 GiB).
    @inline(__always)
    static func checkFieldSize(_ count: Int, at offset: Int) throws(Failure) {
        if count > Int(RowSpan.countMask) {
            throw .limit("a field must be smaller than 1 GiB", at: offset)
        }
    }

    /// Whether one more row may be read (the node limit, existing nodes included).
    @inline(__always)
    func checkRowLimit(at offset: Int) throws(Failure) {
        if table.rowCount + table.existingCount >= table.limits.maxNodes {
            throw .limit("more than \(table.limits.maxNodes) nodes", at: offset)
        }
    }

    /// Reads every row of `bytes` into a table (for a fragment, after `existingCount`
    /// nodes); returns the table and the reader that locates its errors (which no longer
    /// holds the table, so building from it copies nothing).
    static func readTable(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits, dialect: CSVDialect = CSVDialect(), existingCount: Int) throws(TreeInputError) -> (table: RowTable, locator: Self) {
        var reader = Self(bytes, limits: limits, dialect: dialect)
        reader.table.existingCount = existingCount
        try reader.read()
        let table = reader.table
        reader.table = RowTable(syntax: syntax, input: UnsafeRawBufferPointer(start: nil, count: 0), limits: limits)
        return (table, reader)
    }
}
