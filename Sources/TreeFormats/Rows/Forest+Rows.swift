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

    /// Rows in pre-order (as exported) are built while they are read; others, and any
    /// rule broken (a duplicate id too), are read again into a table.
    static func parseRows<Reader: RowReader>(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits, dialect: CSVDialect,
                                            reader _: Reader.Type) throws(TreeInputError) -> Forest {
        if let forest = parseRowsInTwoParts(bytes, limits: limits, dialect: dialect, reader: Reader.self) { return forest }
        do {
            var streamed = Reader(bytes, limits: limits, dialect: dialect)
            streamed.streamer = RowStreamer(limits: limits, expectedBytes: bytes.count)
            try streamed.read()
            if !streamed.streamer!.stopped, let forest = streamed.streamer!.finish() { return forest }
        }
        var rows = try Reader.readTable(bytes, limits: limits, dialect: dialect, existingCount: 0)
        return try rows.table.buildForest(locate: { [locator = rows.locator] in locator.locate($0, $1) })
    }

    /// Bodies from this size on are read in two parts at once when the machine has two
    /// processors or more.
    static let twoPartThreshold = 1 << 22

    /// A large body in pre-order read as two halves at once, each on its own thread into its
    /// own builder, then joined: the second half's rows whose parents are not in it go
    /// under the first half's open nodes, found as the one-pass read would have found them
    /// (`ForestBuilder.appendPart`). Nil when the body is small, or anything is not as
    /// simple as that (a rule broken, a row not in pre-order, an id `~N` in the second
    /// half that does not name its own slot, a duplicate id): the caller then reads it the
    /// usual way, which names the error where it is.
    /// - Complexity: O(n) expected, about half of it on each of two threads.
    /// (`threshold` and `splitNear`, the offset the second part starts after, are for tests.)
    static func parseRowsInTwoParts<Reader: RowReader>(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits, dialect: CSVDialect = CSVDialect(),
                                                      reader _: Reader.Type, threshold: Int = twoPartThreshold,
                                                      splitNear: Int? = nil) -> Forest? {
        // Sized as the first (untouched room costs nothing): columns that large are mapped
        // on their own, so they go back to the system when the part is freed, not into
        // malloc's heaps (which would keep them resident).
        guard var (first, second) = Reader.readInTwoHalves(bytes, limits: limits, dialect: dialect, threshold: threshold, splitNear: splitNear, existingCount: 0,
                                                           make: { RowStreamer(limits: limits, expectedBytes: bytes.count, isPart: $0) }) else { return nil }
        // Ids `~N` in the second half named their own slots if it starts where it guessed;
        // an explicit `~N` of the first half naming one of them is a duplicate (read again
        // on one thread, which says where).
        let base = first.streamer!.count
        if second.streamer!.guessedBase >= 0 {
            guard second.streamer!.guessedBase == base,
                  !first.streamer!.implicit.forward.contains(where: { $0 >= base && second.streamer!.implicit.contains($0) }) else { return nil }
        }
        // A top-level row of the second half whose parent is not open in the first is a root.
        guard let (under, path) = Reader.places(of: second, after: first, atTopLevel: { $0 == nil }) else { return nil }
        guard first.streamer!.builder.appendPart(&second.streamer!.builder, under: under) else { return nil }
        second.streamer = nil  // its columns are copied: freed before the ids are indexed
        first.streamer!.openIDs = path
        return first.streamer!.finish()
    }
}

extension TreeStore {
    /// CSV rows to insert: a `parentId` may name a node of the body or an existing node of
    /// this store; an empty one means the top level. One group per existing parent (nil =
    /// top level), in order of first appearance; ids checked against the store and the body.
    /// - Complexity: O(n) expected, plus a store lookup per row whose parent is not in the body.
    public func parseCSVFragments(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits,
                                  dialect: CSVDialect = CSVDialect()) throws(TreeInputError) -> [FragmentGroup] {
        try parseRowFragments(bytes, limits: limits, dialect: dialect, reader: CSVReader.self)
    }

    /// NDJSON rows to insert; as `parseCSVFragments` (a null or absent `parentId` means the
    /// top level).
    /// - Complexity: O(n) expected, plus a store lookup per row whose parent is not in the body.
    public func parseNDJSONFragments(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits) throws(TreeInputError) -> [FragmentGroup] {
        try parseRowFragments(bytes, limits: limits, dialect: CSVDialect(), reader: NDJSONReader.self)
    }

    /// Rows in pre-order going under one parent (an existing node, or the top level) are
    /// built while they are read, as a new forest's are; others, and any rule broken, are
    /// read again into a table, which makes a group per parent and names the error's row.
    private func parseRowFragments<Reader: RowReader>(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits, dialect: CSVDialect,
                                                     reader _: Reader.Type) throws(TreeInputError) -> [FragmentGroup] {
        if let groups = parseRowFragmentsInTwoParts(bytes, limits: limits, dialect: dialect, reader: Reader.self) { return groups }
        do {
            var streamed = Reader(bytes, limits: limits, dialect: dialect)
            streamed.table.existingCount = forest.count
            streamed.streamer = RowStreamer(fragmentOf: self, limits: limits, expectedBytes: bytes.count)
            try streamed.read()
            if !streamed.streamer!.stopped, let groups = streamed.streamer!.finishFragment() { return groups }
        }
        var rows = try Reader.readTable(bytes, limits: limits, dialect: dialect, existingCount: forest.count)
        return try rows.table.buildFragments(store: self, locate: { [locator = rows.locator] in locator.locate($0, $1) })
    }

    /// A large body of rows to insert, in pre-order under one parent, read as two halves at
    /// once and joined, as `Forest.parseRowsInTwoParts` reads a new forest's: a top-level row
    /// of the second half goes under the first half's open node its parent names, or, when
    /// its parent is the fragment's (an existing node, or none), at the fragment's top level.
    /// Nil when the body is small or anything is not that simple: the caller then reads it
    /// on one thread, which names the error where it is.
    /// (`threshold` and `splitNear`, the offset the second half starts after, are for tests.)
    func parseRowFragmentsInTwoParts<Reader: RowReader>(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits, dialect: CSVDialect = CSVDialect(),
                                                      reader _: Reader.Type, threshold: Int = Forest.twoPartThreshold,
                                                      splitNear: Int? = nil) -> [FragmentGroup]? {
        guard var (first, second) = Reader.readInTwoHalves(bytes, limits: limits, dialect: dialect, threshold: threshold, splitNear: splitNear, existingCount: forest.count,
                                                           make: { RowStreamer(fragmentOf: self, limits: limits, expectedBytes: bytes.count, isPart: $0) }) else { return nil }
        // A top-level row of the second half whose parent is not open in the first goes at
        // the fragment's top level when its parent is the fragment's.
        guard let (under, path) = Reader.places(of: second, after: first, atTopLevel: { parent in
            guard let parent else { return first.streamer!.goes(under: nil) }
            guard let existing = second.table.existingNode(parent, in: forest) else { return false }
            return first.streamer!.goes(under: existing)
        }) else { return nil }
        guard first.streamer!.builder.appendPart(&second.streamer!.builder, under: under) else { return nil }
        second.streamer = nil  // its columns are copied: freed before the ids are indexed
        first.streamer!.openIDs = path
        return first.streamer!.finishFragment()
    }
}

/// What the CSV and NDJSON readers share: reading rows into a `RowStreamer` (when set) or
/// a `RowTable`, and finding a row's field again for an error.
protocol RowReader: SendableMetatype {
    static var syntax: RowSyntax { get }
    init(_ input: UnsafeRawBufferPointer, limits: ForestLimits, dialect: CSVDialect)
    var table: RowTable { get set }
    var streamer: RowStreamer? { get set }
    mutating func read() throws(TreeInputError)
    func locate(_ rowStart: Int, _ field: RowField) -> (offset: Int, path: String)

    // Reading in parts (`Forest.parseRowsInTwoParts`):
    /// What comes before the rows (CSV: the header); `position` is then on the first row.
    mutating func readPrelude() throws(JSONScanError)
    /// The rows from `position` to the end.
    mutating func readRows() throws(JSONScanError)
    /// Where the reader is: the offset of the next byte it reads.
    var position: Int { get set }
    /// The start of the first row that starts after `offset` (after `position`), or nil.
    func rowBoundary(near offset: Int) -> Int?
}

extension RowReader {
    /// A reader of the default dialect (comma or the header's delimiter, role names in any case).
    init(_ input: UnsafeRawBufferPointer, limits: ForestLimits) { self.init(input, limits: limits, dialect: CSVDialect()) }

    /// Reads a body as two halves at once, each on its own thread into its own streamer
    /// (`make(isPart)`): the first half everything before the first row that starts after
    /// `splitNear` (by default the middle of the rows), the second the rest. Nil when the
    /// body is smaller than `threshold`, the machine has one processor, or a half stops.
    static func readInTwoHalves(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits, dialect: CSVDialect, threshold: Int, splitNear: Int?,
                                existingCount: Int, make: (_ isPart: Bool) -> sending RowStreamer) -> (first: Self, second: Self)? {
        guard bytes.count >= threshold, ParallelWork.activeProcessors > 1 else { return nil }
        // Each half's reader is its thread's own; what they share is the body, read only.
        let body = SharedBytes(bytes)
        var second = Self(body.buffer, limits: limits, dialect: dialect)
        guard (try? second.readPrelude()) != nil else { return nil }
        let start = second.position
        guard let split = second.rowBoundary(near: splitNear ?? start + (bytes.count - start) / 2) else { return nil }
        // The first half as a body of its own (the same bytes, so the same offsets).
        var first = Self(UnsafeRawBufferPointer(rebasing: body.buffer[..<split]), limits: limits, dialect: dialect)
        first.table.existingCount = existingCount
        first.streamer = make(false)
        second.position = split
        second.streamer = make(true)
        let halves = ParallelWork.both({ () -> Self? in
            (try? first.read()) != nil && !first.streamer!.stopped ? first : nil
        }, { () -> Self? in
            (try? second.readRows()) != nil && !second.streamer!.stopped
                && (try? second.streamer!.closeOpenNodes()) != nil ? second : nil
        })
        guard let firstHalf = halves.0, let secondHalf = halves.1 else { return nil }
        return (firstHalf, secondHalf)
    }

    /// Where the top-level rows of `second`'s half go when it joins `first`'s
    /// (`ForestBuilder.appendPart`): under the first half's open node its parent names,
    /// searched from the innermost as a one-pass read does (the path above it closing), or
    /// at the top level when `atTopLevel` says so of its parent (nil: none). Also the first
    /// half's open path after them. Nil when a row goes nowhere.
    static func places(of second: Self, after first: Self, atTopLevel: (RowSpan?) -> Bool) -> (under: [Int], path: [RowSpan])? {
        var path = first.streamer!.openIDs
        var under: [Int] = []
        for parent in second.streamer!.topLevelParents {
            if let parent, let k = second.table.withRaw(parent, { id in path.lastIndex { open in first.table.withRaw(open) { $0.elementsEqual(id) } } }) {
                path.removeLast(path.count - k - 1)
                under.append(k)
            } else {
                guard atTopLevel(parent) else { return nil }
                path.removeAll()
                under.append(-1)
            }
        }
        return (under, path)
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
