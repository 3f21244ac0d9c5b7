import TreeEngine

extension Forest {
    /// Builds a forest from CSV rows (RFC 4180 with a header): columns `id`, `parentId`,
    /// `title`, optional `expanded`, `hasChildren`, `data` (JSON text), other columns into
    /// `data` as an object of strings. Parents may come after their children; siblings keep
    /// the input order. Ids are strings (`42` is the string "42"); an id `~N` that equals
    /// the node's own slot (as our exports write generated ids) stays implicit, so an export
    /// comes back as the same forest as its nested JSON upload.
    ///
    /// Rows in pre-order are built while they are read (one pass, no row table); the first
    /// row that is not (or any rule broken) makes a second pass into a `RowTable`, which
    /// resolves parents through a hash table and reports errors with their places.
    /// - Throws: `TreeInputError` with the line and column of the offending byte.
    /// - Complexity: O(n) expected, iterative at any depth.
    public static func parseCSV(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits = ForestLimits()) throws(TreeInputError) -> Forest {
        try parseRows(bytes, limits: limits, reader: CSVReader.self)
    }

    /// Builds a forest from NDJSON rows: one object a line with `id`, `parentId`, `title`,
    /// and optionally `expanded`, `hasChildren`, `data`. Parents may come after their
    /// children; siblings keep the input order.
    /// - Throws: `TreeInputError` with the line, the column and the member's JSON Pointer.
    /// - Complexity: O(n) expected, iterative at any depth.
    public static func parseNDJSON(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits = ForestLimits()) throws(TreeInputError) -> Forest {
        try parseRows(bytes, limits: limits, reader: NDJSONReader.self)
    }

    /// Rows in pre-order (as exported) are built while they are read; others, and any
    /// rule broken (a duplicate id too), are read again into a table.
    static func parseRows<Reader: RowReader>(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits,
                                            reader _: Reader.Type) throws(TreeInputError) -> Forest {
        do {
            var streamed = Reader(bytes, limits: limits)
            streamed.streamer = RowStreamer(limits: limits, expectedBytes: bytes.count)
            try streamed.read()
            if !streamed.streamer!.stopped, let forest = streamed.streamer!.finish() { return forest }
        }
        var rows = try Reader.readTable(bytes, limits: limits, existingCount: 0)
        return try rows.table.buildForest(locate: { [locator = rows.locator] in locator.locate($0, $1) })
    }
}

extension TreeStore {
    /// CSV rows to insert: a `parentId` may name a node of the body or an existing node of
    /// this store; an empty one means the top level. One group per existing parent (nil =
    /// top level), in order of first appearance; ids checked against the store and the body.
    /// - Complexity: O(n) expected, plus a store lookup per row whose parent is not in the body.
    public func parseCSVFragments(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits) throws(TreeInputError) -> [FragmentGroup] {
        var rows = try CSVReader.readTable(bytes, limits: limits, existingCount: forest.count)
        return try rows.table.buildFragments(store: self, locate: { [locator = rows.locator] in locator.locate($0, $1) })
    }

    /// NDJSON rows to insert; as `parseCSVFragments` (a null or absent `parentId` means the
    /// top level).
    /// - Complexity: O(n) expected, plus a store lookup per row whose parent is not in the body.
    public func parseNDJSONFragments(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits) throws(TreeInputError) -> [FragmentGroup] {
        var rows = try NDJSONReader.readTable(bytes, limits: limits, existingCount: forest.count)
        return try rows.table.buildFragments(store: self, locate: { [locator = rows.locator] in locator.locate($0, $1) })
    }
}

/// What the CSV and NDJSON readers share: reading rows into a `RowStreamer` (when set) or
/// a `RowTable`, and finding a row's field again for an error.
protocol RowReader {
    static var syntax: RowSyntax { get }
    init(_ input: UnsafeRawBufferPointer, limits: ForestLimits)
    var table: RowTable { get set }
    var streamer: RowStreamer? { get set }
    mutating func read() throws(TreeInputError)
    func locate(_ rowStart: Int, _ field: RowField) -> (offset: Int, path: String)
}

extension RowReader {
    /// Reads every row of `bytes` into a table (for a fragment, after `existingCount`
    /// nodes); returns the table and the reader that locates its errors (which no longer
    /// holds the table, so building from it copies nothing).
    static func readTable(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits, existingCount: Int) throws(TreeInputError) -> (table: RowTable, locator: Self) {
        var reader = Self(bytes, limits: limits)
        reader.table.existingCount = existingCount
        try reader.read()
        let table = reader.table
        reader.table = RowTable(syntax: syntax, input: UnsafeRawBufferPointer(start: nil, count: 0), limits: limits)
        return (table, reader)
    }
}
