import TreeEngine

/// Where one field of a row lies: a byte range of the input, or of the row table's side
/// buffer (ids that had to be decoded). `escaped` marks input bytes that still hold their
/// format's escapes (`""` in CSV, `\n` in JSON) and are decoded only when the node is built.
struct RowSpan {
    var start: UInt32
    /// The byte count in the low 30 bits, then `sideBit` and `escapedBit`.
    var bits: UInt32

    static let escapedBit: UInt32 = 1 << 31
    static let sideBit: UInt32 = 1 << 30
    static let countMask: UInt32 = (1 << 30) - 1
    static let empty = RowSpan(start: 0, bits: 0)

    @inline(__always)
    init(start: UInt32, bits: UInt32) {
        self.start = start
        self.bits = bits
    }

    /// The input bytes `start ..< start + count`, escaped or not. The caller keeps fields
    /// below 1 GiB (`RowReader.checkFieldSize`).
    @inline(__always)
    init(start: Int, count: Int, escaped: Bool) {
        self.start = UInt32(truncatingIfNeeded: start)
        self.bits = UInt32(truncatingIfNeeded: count) | (escaped ? Self.escapedBit : 0)
    }

    @inline(__always) var count: Int { Int(bits & Self.countMask) }
    @inline(__always) var isEscaped: Bool { bits & Self.escapedBit != 0 }
    @inline(__always) var inSide: Bool { bits & Self.sideBit != 0 }
}

/// What a row says besides its fields' bytes.
struct RowFlags: OptionSet {
    var rawValue: UInt16
    static let expanded = RowFlags(rawValue: 1 << 0)
    static let hasChildren = RowFlags(rawValue: 1 << 1)
    /// The row names a parent (`parent` holds its id).
    static let hasParent = RowFlags(rawValue: 1 << 2)
    /// `data` holds the node's raw JSON (CSV: maybe with `""` escapes).
    static let hasData = RowFlags(rawValue: 1 << 3)
    /// The id was a JSON integer (NDJSON); its canonical decimal text is in `id`.
    static let integerID = RowFlags(rawValue: 1 << 4)
    /// The parent was given as an empty string (CSV `""`, NDJSON `""`): the node whose id
    /// is the empty string when there is one, else none (a root).
    static let emptyParent = RowFlags(rawValue: 1 << 5)
    /// The node's data is the object of the CSV's extra columns.
    static let extrasData = RowFlags(rawValue: 1 << 6)
}

/// One row read: spans into the input (or the side buffer), flags, and where it starts.
struct Row {
    var id: RowSpan
    var parent: RowSpan
    var title: RowSpan
    var data: RowSpan
    /// Offset of the row's first byte, for errors.
    var start: UInt32
    var flags: RowFlags
}

/// The row formats the table reads; they differ in how escaped bytes are decoded.
enum RowSyntax {
    /// CSV: a quoted field's `""` is one quote.
    case csv
    /// NDJSON: JSON string escapes.
    case ndjson
}

/// A field of a row that an error points at.
enum RowField {
    case row, id, parentId, title
}

/// The rows of a CSV or NDJSON body, read without copying (fields are spans of the input),
/// and the work shared by both formats: resolving each row's parent, checking the rules
/// that need all rows (orphans, duplicate ids, cycles, depth) and building the forest in
/// pre-order through `PreOrder` and a `ForestBuilder`, iteratively at any depth.
///
/// Parents are resolved while rows are read: when the input is in pre-order (as the
/// exports write it) a row's parent is one of the rows on the current path, compared
/// against the top of a stack of that path. Rows whose parent is not found there are
/// resolved after reading through one open-addressing hash table over all ids.
struct RowTable {
    let syntax: RowSyntax
    let input: UnsafeRawBufferPointer
    let base: UnsafeRawPointer
    var rows: [Row] = []
    /// Per row: the parent's row index, -1 for a root, -2 while unresolved.
    var parents: [Int32] = []
    /// Decoded ids and canonical integer texts.
    var side: [UInt8] = []
    /// CSV extra columns: `extraNames.count` spans per row that has `extrasData`, in row order.
    var extras: [RowSpan] = []
    /// The extra columns' names as JSON member prefixes (`"name":`).
    var extraNames: [[UInt8]] = []
    /// Nodes that exist outside the body (fragments), counted against `maxNodes`.
    var existingCount = 0
    let limits: ForestLimits

    /// Rows read so far.
    var rowCount = 0

    /// The current path of rows (pre-order guess), outermost first.
    private var path: [Int32] = []
    private var pathEnabled = true
    private var misses = 0
    private var unresolved = 0
    /// How far down the path a parent is looked for before it is left to the hash table.
    private static let pathWindow = 32

    init(syntax: RowSyntax, input: UnsafeRawBufferPointer, limits: ForestLimits) {
        self.syntax = syntax
        self.input = input
        self.base = input.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        self.limits = limits
        // Rows are rarely shorter than 24 bytes; untouched capacity costs no resident memory.
        let guess = min(limits.maxNodes, max(16, input.count / 24))
        rows.reserveCapacity(guess)
        parents.reserveCapacity(guess)
    }

    // MARK: Bytes

    /// Calls `body` with the bytes of `span` as stored (escapes not decoded).
    @inline(__always)
    func withRaw<R>(_ span: RowSpan, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if span.inSide {
            return side.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[Int(span.start) ..< Int(span.start) + span.count])) }
        }
        return body(UnsafeRawBufferPointer(start: base + Int(span.start), count: span.count))
    }

    /// Decodes an escaped input span into `output` (cleared first).
    /// - Complexity: O(span length)
    func decode(_ span: RowSpan, into output: inout [UInt8]) {
        output.removeAll(keepingCapacity: true)
        let start = Int(span.start), stop = start + span.count
        switch syntax {
        case .csv:
            var index = start
            var run = start
            while index < stop {
                if base.load(fromByteOffset: index, as: UInt8.self) == UInt8(ascii: "\"") {
                    // `""`: keep the first quote, skip the second.
                    output.append(contentsOf: UnsafeRawBufferPointer(start: base + run, count: index + 1 - run))
                    index += 2
                    run = index
                } else {
                    index += 1
                }
            }
            if run < stop { output.append(contentsOf: UnsafeRawBufferPointer(start: base + run, count: stop - run)) }
        case .ndjson:
            JSONScanner(input).decode(JSONScanner.StringToken(start: start, end: stop, hasEscapes: true), into: &output)
        }
    }

    /// Moves an id (or parent id) that holds escapes into the side buffer, decoded, so that
    /// ids compare and hash as plain bytes.
    mutating func settle(_ span: RowSpan, scratch: inout [UInt8]) -> RowSpan {
        guard span.isEscaped else { return span }
        decode(span, into: &scratch)
        return appendSide(scratch)
    }

    /// Appends `bytes` to the side buffer and returns their span.
    mutating func appendSide<C: Collection>(_ bytes: C) -> RowSpan where C.Element == UInt8 {
        let start = side.count
        side.append(contentsOf: bytes)
        return RowSpan(start: UInt32(truncatingIfNeeded: start), bits: UInt32(truncatingIfNeeded: bytes.count) | RowSpan.sideBit)
    }

    /// Whether two settled spans hold the same bytes.
    @inline(__always)
    func equal(_ a: RowSpan, _ b: RowSpan) -> Bool {
        let count = a.count
        guard count == b.count else { return false }
        if !a.inSide && !b.inSide {
            return bytesEqual(base + Int(a.start), base + Int(b.start), count)
        }
        return withRaw(a) { x in withRaw(b) { y in x.elementsEqual(y) } }
    }

    /// The hash of a settled span's bytes (`ByteKeyTable.hash`).
    @inline(__always)
    func hash(_ span: RowSpan) -> UInt64 {
        withRaw(span) { ByteKeyTable.hash($0) }
    }

    // MARK: Reading rows

    /// Adds a row and guesses its parent from the current path.
    /// - Complexity: amortized O(1) for input in pre-order, O(`pathWindow`) otherwise.
    @inline(__always)
    mutating func append(_ row: Row) {
        rowCount &+= 1
        let index = Int32(truncatingIfNeeded: rows.count)
        rows.append(row)
        guard row.flags.contains(.hasParent) else {
            parents.append(-1)
            path.removeAll(keepingCapacity: true)
            path.append(index)
            return
        }
        if pathEnabled {
            var k = path.count - 1
            let floor = max(0, path.count - Self.pathWindow)
            while k >= floor {
                let candidate = path[k]
                if equal(rows[Int(candidate)].id, row.parent) {
                    parents.append(candidate)
                    path.removeLast(path.count - 1 - k)
                    path.append(index)
                    return
                }
                k -= 1
            }
            misses += 1
            // Input far from pre-order: stop guessing.
            if misses > 64 && misses * 4 > rows.count { pathEnabled = false }
        }
        parents.append(-2)
        unresolved += 1
        path.removeAll(keepingCapacity: true)
        path.append(index)
    }

    // MARK: Resolving

    /// A table from id bytes to row index over every row.
    /// - Throws: a duplicate id, at the later row.
    /// - Complexity: O(n) expected
    func makeIDTable(locate: (Int, RowField) -> (offset: Int, path: String)) throws(TreeInputError) -> ByteKeyTable {
        var table = ByteKeyTable(capacity: rows.count)
        for r in 0 ..< rows.count {
            let id = rows[r].id
            if table.insert(Int32(r), hash: hash(id), unlessMatching: { equal(rows[Int($0)].id, id) }) != nil {
                throw duplicateError(row: r, inSession: false, locate: locate)
            }
        }
        return table
    }

    /// The row whose id is `key`, via `table`.
    func lookup(_ key: RowSpan, in table: ByteKeyTable) -> Int32? {
        table.find(hash(key)) { equal(rows[Int($0)].id, key) }
    }

    /// The node of the session (`forest`) whose id is the text of `key`.
    func existingNode(_ key: RowSpan, in forest: Forest) -> NodeHandle? {
        withRaw(key) { forest.node(withID: String(decoding: $0, as: UTF8.self)) }
    }

    // MARK: Building

    /// Resolves every parent within the body, checks the rules and builds the forest.
    /// - Complexity: O(n) expected, iterative at any depth.
    mutating func buildForest(locate: (Int, RowField) -> (offset: Int, path: String)) throws(TreeInputError) -> Forest {
        if unresolved > 0 {
            let table = try makeIDTable(locate: locate)
            for r in 0 ..< rows.count where parents[r] == -2 {
                if let p = lookup(rows[r].parent, in: table) {
                    parents[r] = p
                } else if rows[r].flags.contains(.emptyParent) {
                    parents[r] = -1
                } else {
                    throw orphanError(row: r, locate: locate)
                }
            }
        }
        // Ids are indexed in bulk at the end (a duplicate is not ruled out by the table when
        // every parent was found on the path); the first error in row order is named.
        return try ForestBuilder.buildCheckingIDsInBulk(make: { ForestBuilder(limits: limits, expectedBytes: input.count) }) {
            (builders) throws(TreeInputError) in try build(into: &builders, groupOf: [], locate: locate, inSession: false)
        }
    }

    /// Resolves parents within the body or among `target`'s nodes, and builds one fragment
    /// per existing parent (nil: top level), in order of first appearance.
    /// - Complexity: O(n) expected, plus one id lookup in the store per row whose parent is
    ///   not in the body.
    mutating func buildFragments(target: RowTarget, locate: (Int, RowField) -> (offset: Int, path: String))
        throws(TreeInputError) -> [RowGroup] {
        let table = try makeIDTable(locate: locate)
        var groupParents: [GroupParent?] = []
        var groupIndex: [GroupParent: Int32] = [:]
        var topGroup: Int32 = -1
        var groupOf = [Int32](repeating: -1, count: rows.count)
        func group(_ parent: GroupParent?) -> Int32 {
            if let parent {
                if let g = groupIndex[parent] { return g }
                let g = Int32(groupParents.count)
                groupIndex[parent] = g
                groupParents.append(parent)
                return g
            }
            if topGroup < 0 {
                topGroup = Int32(groupParents.count)
                groupParents.append(nil)
            }
            return topGroup
        }
        for r in 0 ..< rows.count {
            let row = rows[r]
            guard row.flags.contains(.hasParent) else {
                parents[r] = -1
                groupOf[r] = group(nil)
                continue
            }
            if let p = lookup(row.parent, in: table) {
                parents[r] = p
            } else if let existing = target.parent(named: row.parent, in: self) {
                parents[r] = -1
                groupOf[r] = group(existing)
            } else if row.flags.contains(.emptyParent) {
                parents[r] = -1
                groupOf[r] = group(nil)
            } else {
                throw orphanError(row: r, locate: locate)
            }
        }
        // The ids are unique within the body (the table above) and checked against the
        // store's as they come: the fragments only store them.
        var builders = groupParents.map { _ in
            var builder = target.fragmentBuilder(limits: limits, expectedBytes: input.count / max(1, groupParents.count))
            builder.indexesIDs = false
            return builder
        }
        try build(into: &builders, groupOf: groupOf, locate: locate, inSession: true)
        return builders.indices.map { g in (groupParents[g], builders[g].finish()) }
    }

    /// Feeds every row to its builder in pre-order (the group of its root: `groupOf`, or
    /// builder 0 when empty), checking depth; then reports a cycle if rows were left over.
    private func build(into builders: inout [ForestBuilder], groupOf: [Int32],
                       locate: (Int, RowField) -> (offset: Int, path: String), inSession: Bool) throws(TreeInputError) {
        var scratch: [UInt8] = []
        scratch.reserveCapacity(256)
        var extraJSON = JSONWriter(reservingCapacity: 256)
        var current = 0
        var failedRow = 0
        var visitedSoFar = 0
        var implicit = ImplicitIDs()
        let maxDepth = limits.maxDepth
        let visited: Int
        do throws(NodeSinkError) {
            visited = try parents.withUnsafeBufferPointer { (parents) throws(NodeSinkError) -> Int in
                let order = PreOrder(parents: parents)
                return try order.forEach(begin: { (node, depth) throws(NodeSinkError) in
                    let r = Int(node)
                    failedRow = r
                    if depth == 0, !groupOf.isEmpty { current = Int(groupOf[r]) }
                    if depth >= maxDepth {
                        throw NodeSinkError(kind: .limitExceeded("depth"))
                    }
                    try feed(rows[r], into: &builders[current], slot: inSession ? -1 : visitedSoFar,
                             implicit: &implicit, scratch: &scratch, extraJSON: &extraJSON)
                    visitedSoFar &+= 1
                }, end: { (_) throws(NodeSinkError) in
                    builders[current].endNode()
                })
            }
        } catch {
            throw sinkFailure(error, row: failedRow, inSession: inSession, locate: locate)
        }
        if visited < rows.count {
            let member = parents.withUnsafeBufferPointer { parents in
                // Reached nodes: those whose chain of parents ends at a root.
                var state = [UInt8](repeating: 0, count: rows.count)  // 0 unknown, 1 reaches a root, 2 on the stack
                for start in 0 ..< rows.count where state[start] == 0 {
                    var chain: [Int] = []
                    var node = start
                    while node >= 0, state[node] == 0 {
                        state[node] = 2
                        chain.append(node)
                        node = Int(parents[node])
                    }
                    let reaches = node < 0 || state[node] == 1
                    for c in chain { state[c] = reaches ? 1 : 3 }
                }
                return PreOrder.cycleMember(parents: parents, visited: { state[Int($0)] == 1 })
            }
            let r = Int(member ?? 0)
            let place = locate(Int(rows[r].start), .parentId)
            let parentText = withRaw(rows[r].parent) { String(decoding: $0, as: UTF8.self) }
            throw makeError(.rule, "\(lineLabel(place.offset)): parentId \"\(parentText)\" makes a cycle (a node would be its own ancestor)",
                            at: place.offset, path: place.path)
        }
    }

    /// The public error for a builder's error at row `r` (or a depth reached there).
    private func sinkFailure(_ error: NodeSinkError, row failedRow: Int, inSession: Bool,
                             locate: (Int, RowField) -> (offset: Int, path: String)) -> TreeInputError {
        switch error.kind {
        case .duplicateID:
            return duplicateError(row: failedRow, inSession: inSession, locate: locate)
        case .limitExceeded(let message) where message == "depth":
            let place = locate(Int(rows[failedRow].start), .parentId)
            return makeError(.rule, "\(lineLabel(place.offset)): nodes nest deeper than the maximum depth of \(limits.maxDepth)",
                             at: place.offset, path: place.path)
        case .limitExceeded(let message):
            let place = locate(Int(rows[failedRow].start), .row)
            return makeError(.limit, message, at: place.offset, path: place.path)
        case .idTooLong(let bytes, let limit):
            let place = locate(Int(rows[failedRow].start), .id)
            return makeError(.rule, "\(lineLabel(place.offset)): " + NodeSinkError.idTooLongMessage(bytes: bytes, limit: limit), at: place.offset, path: place.path)
        }
    }

    /// Hands one row to `sink`: begin, id, title, flags, data (the caller ends it).
    ///
    /// `slot` is the slot the node gets in a new forest (its pre-order index), -1 for a
    /// fragment: an id `~N` equal to `~slot` is the node's implicit id, so it is not stored
    /// (an exported forest comes back exactly as uploaded, without an id table to build).
    /// `implicit` remembers those, so that an explicit `~N` naming one is a duplicate.
    @inline(__always)
    func feed(_ row: Row, into sink: inout ForestBuilder, slot: Int, implicit: inout ImplicitIDs,
              scratch: inout [UInt8], extraJSON: inout JSONWriter) throws(NodeSinkError) {
        try sink.beginNode()
        if row.flags.contains(.integerID) {
            try sink.setIntegerID(withRaw(row.id) { Self.parseInt64($0) })
        } else {
            let failure = withRaw(row.id) { (id) -> NodeSinkError? in
                do throws(NodeSinkError) {
                    if slot >= 0, let n = Self.generatedNumber(id) {
                        if n == slot {
                            if implicit.forward.contains(n) { throw NodeSinkError(kind: .duplicateID(String(decoding: id, as: UTF8.self))) }
                            implicit.mark(n)
                            return nil
                        }
                        if n < slot, implicit.contains(n) {
                            throw NodeSinkError(kind: .duplicateID(String(decoding: id, as: UTF8.self)))
                        }
                        if n > slot { implicit.forward.insert(n) }
                    }
                    try sink.setStringID(id)
                } catch { return error }
                return nil
            }
            if let failure { throw failure }
        }
        if row.title.isEscaped {
            decode(row.title, into: &scratch)
            try Self.passing(scratch) { (title) throws(NodeSinkError) in try sink.setTitle(title) }
        } else {
            try sink.setTitle(UnsafeRawBufferPointer(start: base + Int(row.title.start), count: row.title.count))
        }
        if row.flags.contains(.expanded) { sink.setExpanded(true) }
        if row.flags.contains(.hasChildren) { sink.setHasChildren(true) }
        if row.flags.contains(.hasData) {
            if row.data.isEscaped {
                decode(row.data, into: &scratch)
                try Self.passing(scratch) { (data) throws(NodeSinkError) in try sink.setData(data) }
            } else {
                try sink.setData(UnsafeRawBufferPointer(start: base + Int(row.data.start), count: row.data.count))
            }
        } else if row.flags.contains(.extrasData) {
            // The extra columns of this row: its span `data.start` indexes `extras`.
            let first = Int(row.data.start)
            extraJSON.bytes.removeAll(keepingCapacity: true)
            extraJSON.byte(UInt8(ascii: "{"))
            for k in 0 ..< extraNames.count {
                if k > 0 { extraJSON.byte(UInt8(ascii: ",")) }
                extraJSON.raw(extraNames[k])
                let span = extras[first + k]
                if span.isEscaped {
                    decode(span, into: &scratch)
                    scratch.withUnsafeBytes { extraJSON.string($0) }
                } else {
                    extraJSON.string(UnsafeRawBufferPointer(start: base + Int(span.start), count: span.count))
                }
            }
            extraJSON.byte(UInt8(ascii: "}"))
            try Self.passing(extraJSON.bytes) { (data) throws(NodeSinkError) in try sink.setData(data) }
        }
    }

    /// Calls `body` with the bytes of `bytes`, passing its typed error on.
    @inline(__always)
    static func passing(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(NodeSinkError) -> Void) throws(NodeSinkError) {
        let failure = bytes.withUnsafeBytes { (buffer) -> NodeSinkError? in
            do throws(NodeSinkError) { try body(buffer) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// N for an id `~N` (N decimal without leading zeros, below 10^15), else nil.
    @inline(__always)
    static func generatedNumber(_ id: UnsafeRawBufferPointer) -> Int? {
        let count = id.count
        guard count >= 2, count <= 16, id[0] == UInt8(ascii: "~") else { return nil }
        if id[1] == UInt8(ascii: "0") && count > 2 { return nil }
        var n = 0
        var index = 1
        while index < count {
            let digit = id[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            n = n &* 10 &+ Int(digit)
            index &+= 1
        }
        return n
    }

    /// The value of a canonical decimal integer text (as the readers store it).
    static func parseInt64(_ text: UnsafeRawBufferPointer) -> Int64 {
        var value: Int64 = 0
        var negative = false
        for b in text {
            if b == UInt8(ascii: "-") { negative = true; continue }
            // Accumulate negatively so that Int64.min fits.
            value = value &* 10 &- Int64(b &- UInt8(ascii: "0"))
        }
        return negative ? value : 0 &- value
    }

    // MARK: Errors

    /// `line N`, for messages.
    func lineLabel(_ offset: Int) -> String {
        "line \(TreeInputError.lineAndColumn(of: offset, in: input).line)"
    }

    func makeError(_ kind: TreeInputError.Kind, _ message: String, at offset: Int, path: String) -> TreeInputError {
        let location = TreeInputError.lineAndColumn(of: offset, in: input)
        return TreeInputError(kind: kind, message: message, byteOffset: offset,
                              line: location.line, column: location.column, path: path)
    }

    func orphanError(row r: Int, locate: (Int, RowField) -> (offset: Int, path: String)) -> TreeInputError {
        let place = locate(Int(rows[r].start), .parentId)
        let text = withRaw(rows[r].parent) { String(decoding: $0, as: UTF8.self) }
        return makeError(.rule, "\(lineLabel(place.offset)): parentId \"\(text)\" names no node in the body (or in the session)",
                         at: place.offset, path: place.path)
    }

    /// A duplicate id found at row `r`: reported at the later of `r` and the other row
    /// with that id (or at `r` when the id is taken in the session).
    func duplicateError(row r: Int, inSession: Bool, locate: (Int, RowField) -> (offset: Int, path: String)) -> TreeInputError {
        let id = rows[r].id
        var later = r
        var other: Int?
        for i in 0 ..< rows.count where i != r && equal(rows[i].id, id) {
            other = i
            break
        }
        if let other { later = max(r, other) }
        let place = locate(Int(rows[later].start), .id)
        let text = withRaw(id) { String(decoding: $0, as: UTF8.self) }
        let message = other == nil && inSession
            ? "\(lineLabel(place.offset)): duplicate id \"\(text)\" (a node of the session has it)"
            : "\(lineLabel(place.offset)): duplicate id \"\(text)\""
        return makeError(.rule, message, at: place.offset, path: place.path)
    }
}

/// Whether `count` bytes at `a` and `b` are equal (eight at a time).
@inline(__always)
func bytesEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
    // The last byte first: ids that differ (numbers given in order, above all) mostly
    // differ there, and a row's parent is looked for among several open ids.
    if count > 0, a.load(fromByteOffset: count &- 1, as: UInt8.self) != b.load(fromByteOffset: count &- 1, as: UInt8.self) { return false }
    var i = 0
    while i &+ 8 <= count {
        if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
        i &+= 8
    }
    while i < count {
        if a.load(fromByteOffset: i, as: UInt8.self) != b.load(fromByteOffset: i, as: UInt8.self) { return false }
        i &+= 1
    }
    return true
}

/// The slots whose ids `~slot` were left implicit while building, and the explicit ids
/// `~N` seen before slot N was reached (see `RowTable.feed`).
struct ImplicitIDs {
    var bits: [UInt64] = []
    var forward: Set<Int> = []

    @inline(__always)
    mutating func mark(_ slot: Int) {
        let word = slot >> 6
        while bits.count <= word { bits.append(0) }
        bits[word] |= 1 << UInt64(slot & 63)
    }

    @inline(__always)
    func contains(_ slot: Int) -> Bool {
        let word = slot >> 6
        return word < bits.count && bits[word] & (1 << UInt64(slot & 63)) != 0
    }
}
