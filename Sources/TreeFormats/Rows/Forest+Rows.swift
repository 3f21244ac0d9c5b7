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
        // Rows in pre-order (as exported) are built while they are read; others, and any
        // rule broken, are read again into a table.
        var streamed = CSVReader(bytes, limits: limits)
        streamed.streamer = RowStreamer(limits: limits, expectedBytes: bytes.count)
        try streamed.read()
        if !streamed.streamer!.stopped, let forest = streamed.streamer!.finish() {
            return forest
        }
        streamed = CSVReader(UnsafeRawBufferPointer(start: nil, count: 0), limits: limits)
        var reader = CSVReader(bytes, limits: limits)
        try reader.read()
        var table = reader.table
        reader.table = RowTable(syntax: .csv, input: UnsafeRawBufferPointer(start: nil, count: 0), limits: limits)
        let locator = reader
        return try table.buildForest(locate: { locator.locate($0, $1) })
    }

    /// Builds a forest from NDJSON rows: one object a line with `id`, `parentId`, `title`,
    /// and optionally `expanded`, `hasChildren`, `data`. Parents may come after their
    /// children; siblings keep the input order.
    /// - Throws: `TreeInputError` with the line, the column and the member's JSON Pointer.
    /// - Complexity: O(n) expected, iterative at any depth.
    public static func parseNDJSON(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits = ForestLimits()) throws(TreeInputError) -> Forest {
        // Rows in pre-order (as exported) are built while they are read; others, and any
        // rule broken, are read again into a table.
        var streamed = NDJSONReader(bytes, limits: limits)
        streamed.streamer = RowStreamer(limits: limits, expectedBytes: bytes.count)
        try streamed.read()
        if !streamed.streamer!.stopped, let forest = streamed.streamer!.finish() {
            return forest
        }
        streamed = NDJSONReader(UnsafeRawBufferPointer(start: nil, count: 0), limits: limits)
        var reader = NDJSONReader(bytes, limits: limits)
        try reader.read()
        var table = reader.table
        reader.table = RowTable(syntax: .ndjson, input: UnsafeRawBufferPointer(start: nil, count: 0), limits: limits)
        let locator = reader
        return try table.buildForest(locate: { locator.locate($0, $1) })
    }
}

extension TreeStore {
    /// CSV rows to insert: a `parentId` may name a node of the body or an existing node of
    /// this store; an empty one means the top level. One group per existing parent (nil =
    /// top level), in order of first appearance; ids checked against the store and the body.
    /// - Complexity: O(n) expected, plus a store lookup per row whose parent is not in the body.
    public func parseCSVFragments(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits) throws(TreeInputError) -> [FragmentGroup] {
        var reader = CSVReader(bytes, limits: limits)
        reader.table.existingCount = forest.count
        try reader.read()
        var table = reader.table
        reader.table = RowTable(syntax: .csv, input: UnsafeRawBufferPointer(start: nil, count: 0), limits: limits)
        let locator = reader
        return try table.buildFragments(store: self, locate: { locator.locate($0, $1) })
    }

    /// NDJSON rows to insert; as `parseCSVFragments` (a null or absent `parentId` means the
    /// top level).
    /// - Complexity: O(n) expected, plus a store lookup per row whose parent is not in the body.
    public func parseNDJSONFragments(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits) throws(TreeInputError) -> [FragmentGroup] {
        var reader = NDJSONReader(bytes, limits: limits)
        reader.table.existingCount = forest.count
        try reader.read()
        var table = reader.table
        reader.table = RowTable(syntax: .ndjson, input: UnsafeRawBufferPointer(start: nil, count: 0), limits: limits)
        let locator = reader
        return try table.buildFragments(store: self, locate: { locator.locate($0, $1) })
    }
}
