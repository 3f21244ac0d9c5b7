import TreeEngine

/// Reads a CSV body (RFC 4180, with a header row) into a `RowTable`, one pass, no copy
/// of the fields: each is a span of the input, decoded (`""` → `"`) only when the node is
/// built. UTF-8 is validated on the way (eight bytes at a time over ASCII).
///
/// Columns: `id`, `parentId`, `title` (required), `expanded`, `hasChildren` (`true`,
/// `false` or empty), `data` (JSON text), and any others, which become the node's data as
/// an object of strings. The header names them in any letter case, or as the dialect says
/// (`CSVDialect.columns`); fields are separated by the dialect's delimiter, or by the
/// header's first `,` `;` or TAB. Ids are strings: an empty unquoted `parentId` makes a root; a
/// quoted empty `""` names the node whose id is the empty string (a root when there is
/// none), and `""` as an `id` is that empty id (an unquoted empty id is an error).
struct CSVReader: RowReader {
    static let syntax = RowSyntax.csv
    /// What a column holds.
    enum Role: UInt8 {
        case id, parentId, title, expanded, hasChildren, data, extra

        /// The role `CSVDialect.roles` names `name`.
        /// - Precondition: `name` is one of `CSVDialect.roles`.
        init(name: String) { self.init(rawValue: UInt8(CSVDialect.roles.firstIndex(of: name)!))! }
    }

    /// How a field ended.
    enum FieldEnd {
        case comma, line, end
    }

    /// One field: `start ..< start + count` (inside the quotes when quoted).
    struct Field {
        var start: Int
        var count: Int
        /// Quoted, with `""` inside.
        var escaped: Bool
        var quoted: Bool
        /// The field's first byte (its opening quote when quoted).
        var first: Int
    }

    let input: UnsafeRawBufferPointer
    let base: UnsafeRawPointer
    let end: Int
    let dialect: CSVDialect
    /// The byte between fields (the dialect's, or the header's), and eight copies of it.
    var delimiter = UInt8(ascii: ",")
    var delimiters: UInt64 = 0x2C2C_2C2C_2C2C_2C2C
    var pos = 0
    var table: RowTable
    var roles: [Role] = []
    var idColumn = 0, parentColumn = 0, titleColumn = 0
    var hasExtras = false
    /// The header was read and names every required column once.
    var headerValid = false
    /// The start of the row being read, for errors.
    var rowStart = 0
    var scratch: [UInt8] = []
    /// Builds the nodes while reading (rows in pre-order), or nil.
    var streamer: RowStreamer?
    var stopAfter = Int.max

    init(_ input: UnsafeRawBufferPointer, limits: ForestLimits, dialect: CSVDialect) {
        self.input = input
        self.dialect = dialect
        self.base = input.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        self.end = input.count
        self.table = RowTable(syntax: .csv, input: input, limits: limits)
        scratch.reserveCapacity(256)
        // A UTF-8 byte order mark at the very start is skipped.
        if end >= 3, base.load(as: UInt8.self) == 0xEF, base.load(fromByteOffset: 1, as: UInt8.self) == 0xBB,
           base.load(fromByteOffset: 2, as: UInt8.self) == 0xBF {
            pos = 3
        }
    }

    @inline(__always)
    func byte(_ index: Int) -> UInt8 { base.load(fromByteOffset: index, as: UInt8.self) }

    // MARK: Reading

    /// Reads the header and every row. A rule error found while reading gives way to a
    /// syntax error anywhere in the rest of the body (malformed input is always reported
    /// as such).
    /// - Complexity: O(n)
    mutating func read() throws(TreeInputError) {
        do throws(CSVError) {
            try readPrelude()
            try readRows()
        } catch {
            var failure = error
            // A rule broken in the header: the rows' field counts mean nothing; check the rest.
            let syntax = error.kind == .syntax ? nil
                : headerValid ? firstSyntaxError(from: rowStart, countingFields: true) : firstSyntaxError(from: pos, countingFields: false)
            if let syntax {
                failure = syntax
            }
            throw makeError(failure)
        }
    }

    /// Turns an internal error into the public one, `line N: ` before the message.
    func makeError(_ error: CSVError) -> TreeInputError {
        let location = TreeInputError.lineAndColumn(of: error.offset, in: input)
        return TreeInputError(kind: error.kind, message: "line \(location.line): \(error.message)", byteOffset: error.offset,
                              line: location.line, column: location.column, path: "")
    }

    mutating func skipEmptyLines() {
        pos = afterEmptyLines(pos)
    }

    /// The first offset from `start` on that is not in an empty line (LF or CR LF).
    func afterEmptyLines(_ start: Int) -> Int {
        var i = start
        while i < end {
            let c = byte(i)
            if c == 0x0A {
                i &+= 1
            } else if c == 0x0D, i &+ 1 < end, byte(i &+ 1) == 0x0A {
                i &+= 2
            } else {
                break
            }
        }
        return i
    }

    /// Reads the header row: column names, each required one once.
    mutating func readHeader() throws(CSVError) {
        skipEmptyLines()
        rowStart = pos
        let headerStart = pos
        guard pos < end else {
            throw .rule("the body is empty: a CSV needs a header row with the columns id, parentId and title", at: pos)
        }
        delimiter = dialect.delimiter ?? headerDelimiter()
        delimiters = 0x0101_0101_0101_0101 &* UInt64(delimiter)
        var fields: [(name: [UInt8], first: Int)] = []
        var fieldEnd = FieldEnd.comma
        while fieldEnd == .comma {
            let field: Field
            (field, fieldEnd) = try scanField()
            if field.escaped {
                table.decode(RowSpan(start: field.start, count: field.count, escaped: true), into: &scratch)
                fields.append((scratch, field.first))
            } else {
                fields.append((Array(UnsafeRawBufferPointer(start: base + field.start, count: field.count)), field.first))
            }
        }
        var seen: [[UInt8]: Int] = [:]
        var named: [Role: String] = [:]  // the header's name of each role found
        var extraNames: [[UInt8]] = []
        var dataColumn: Int?
        var firstExtra: Int?
        for (name, first) in fields {
            let text = String(decoding: name, as: UTF8.self)
            if seen[name] != nil {
                throw .rule("duplicate column \"\(text)\" in the header", at: first)
            }
            let column = roles.count
            seen[name] = column
            let role = role(named: text)
            if role != .extra, let other = named[role] {
                throw .rule("the header has two \(Self.roleNames[Int(role.rawValue)]) columns: \"\(other)\" and \"\(text)\"", at: first)
            }
            if role != .extra { named[role] = text }
            switch role {
            case .id: idColumn = column
            case .parentId: parentColumn = column
            case .title: titleColumn = column
            case .expanded, .hasChildren: break
            case .data: dataColumn = first
            case .extra:
                if firstExtra == nil { firstExtra = first }
                var member = JSONWriter(reservingCapacity: name.count + 4)
                name.withUnsafeBytes { member.string($0) }
                member.byte(UInt8(ascii: ":"))
                extraNames.append(member.bytes)
            }
            roles.append(role)
        }
        for required in [Role.id, .parentId, .title] where named[required] == nil {
            let role = Self.roleNames[Int(required.rawValue)]
            if let mapped = dialect.columns[role] {
                throw .rule("the header has no \"\(mapped)\" column (the \(role) column, as columns names it)", at: headerStart)
            }
            throw .rule("the header has no \"\(role)\" column (required: id, parentId, title)", at: headerStart)
        }
        for (role, mapped) in dialect.columns.sorted(by: { $0.key < $1.key })
        where named[Role(name: role)] == nil {
            throw .rule("the header has no \"\(mapped)\" column (the \(role) column, as columns names it)", at: headerStart)
        }
        if let dataColumn, let firstExtra {
            throw .rule("a \"data\" column cannot be combined with other columns that are not id, parentId, title, "
                + "expanded, hasChildren (they would become the data)", at: max(dataColumn, firstExtra))
        }
        hasExtras = !extraNames.isEmpty
        table.extraNames = extraNames
        headerValid = true
    }

    mutating func readPrelude() throws(CSVError) {
        try Self.checkInputSize(input)
        try readHeader()
    }

    var position: Int {
        get { pos }
        set { pos = newValue }
    }

    /// The start of the first row after `offset`: past the first line feed from `offset` on
    /// that is not inside quotes, an odd number of quotes before a byte putting it inside
    /// them (`""` counts two). A stray quote in an unquoted field misleads this, but it is an
    /// error the read of the rows before it reports (or the parts do not meet).
    /// - Complexity: O(`offset`), eight bytes at a time, and the row after it
    func rowStart(after offset: Int) -> Int {
        guard offset >= pos else { return afterEmptyLines(pos) }
        guard offset < end else { return end }
        var quotes = 0
        var i = pos
        while i &+ 8 <= offset {
            let w = base.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ 0x2222_2222_2222_2222
            // A high bit for each zero byte (each quote) of `w`.
            quotes &+= (~(((w & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | w | 0x7F7F_7F7F_7F7F_7F7F)).nonzeroBitCount
            i &+= 8
        }
        while i < offset {
            if byte(i) == 0x22 { quotes &+= 1 }
            i &+= 1
        }
        var quoted = quotes & 1 == 1
        while i < end {
            let c = byte(i)
            if c == 0x22 {
                quoted.toggle()
            } else if c == 0x0A, !quoted {
                return afterEmptyLines(i &+ 1)
            }
            i &+= 1
        }
        return end
    }

    /// Reads every row after the header.
    mutating func readRows() throws(CSVError) {
        let columnCount = roles.count
        while true {
            skipEmptyLines()
            guard pos < end, pos <= stopAfter else { return }
            rowStart = pos
            try checkRowLimit(at: rowStart)
            var row = Row(id: .empty, parent: .empty, title: .empty, data: .empty,
                          start: UInt32(truncatingIfNeeded: rowStart), flags: [])
            if hasExtras {
                row.data = RowSpan(start: UInt32(truncatingIfNeeded: table.extras.count), bits: 0)
                row.flags.insert(.extrasData)
            }
            var column = 0
            var fieldEnd = FieldEnd.comma
            while fieldEnd == .comma {
                let field: Field
                (field, fieldEnd) = try scanField()
                if column < columnCount {
                    try take(field, role: roles[column], into: &row)
                }
                column &+= 1
            }
            if column != columnCount {
                throw .syntax("the row has \(column) field\(column == 1 ? "" : "s"), the header has \(columnCount)", at: rowStart)
            }
            if streamer != nil {
                guard streamer!.stream(row, table: table) else { return }
                table.rowCount &+= 1
                table.extras.removeAll(keepingCapacity: true)
            } else {
                table.append(row)
            }
        }
    }

    /// Stores one field of a row by its column's role, checking its value.
    @inline(__always)
    mutating func take(_ field: Field, role: Role, into row: inout Row) throws(CSVError) {
        try Self.checkFieldSize(field.count, at: field.first)
        let span = RowSpan(start: field.start, count: field.count, escaped: field.escaped)
        switch role {
        case .title:
            row.title = span
        case .id:
            if field.count == 0 && !field.quoted {
                throw .rule("the id is empty (every row needs an id; a quoted \"\" is the empty id)", at: field.first)
            }
            row.id = table.settle(span, scratch: &scratch)
        case .parentId:
            if field.count > 0 {
                row.parent = table.settle(span, scratch: &scratch)
                row.flags.insert(.hasParent)
            } else if field.quoted {
                row.parent = span
                row.flags.insert([.hasParent, .emptyParent])
            }
        case .expanded:
            if try flag(field, column: "expanded") { row.flags.insert(.expanded) }
        case .hasChildren:
            if try flag(field, column: "hasChildren") { row.flags.insert(.hasChildren) }
        case .data:
            try data(field, into: &row)
        case .extra:
            table.extras.append(span)
        }
    }

    /// A flag cell: `true`, `false`, or empty (false).
    @inline(__always)
    func flag(_ field: Field, column: String) throws(CSVError) -> Bool {
        switch field.count {
        case 0: return false
        case 4 where !field.escaped && bytesEqual(base + field.start, StaticString("true").utf8Start, 4): return true
        case 5 where !field.escaped && bytesEqual(base + field.start, StaticString("false").utf8Start, 5): return false
        default:
            let text = String(decoding: UnsafeRawBufferPointer(start: base + field.start, count: field.count), as: UTF8.self)
            throw .rule("\(column) must be true, false or empty, found \"\(text)\"", at: field.first)
        }
    }

    /// A `data` cell: JSON text (blank: no data), validated and kept with its escapes.
    mutating func data(_ field: Field, into row: inout Row) throws(CSVError) {
        var start = field.start, stop = field.start + field.count
        while start < stop, Self.isJSONSpace(byte(start)) { start &+= 1 }
        while stop > start, Self.isJSONSpace(byte(stop &- 1)) { stop &-= 1 }
        guard start < stop else { return }
        let span = RowSpan(start: start, count: stop - start, escaped: field.escaped)
        if field.escaped {
            table.decode(span, into: &scratch)
            let failure = scratch.withUnsafeBytes { validateJSON($0) }
            if let failure {
                throw .rule("data is not valid JSON: \(failure.message)", at: rawOffset(decoded: failure.offset, in: span))
            }
        } else if let failure = validateJSON(UnsafeRawBufferPointer(start: base + start, count: stop - start)) {
            throw .rule("data is not valid JSON: \(failure.message)", at: start + failure.offset)
        }
        row.data = span
        row.flags.insert(.hasData)
    }

    /// The first error in `bytes` read as exactly one JSON value, or nil (the JSON scanner's).
    func validateJSON(_ bytes: UnsafeRawBufferPointer) -> JSONScanError? {
        var scanner = JSONScanner(bytes)
        var stack = ContiguousArray<JSONScanner.ValueFrame>()
        do throws(JSONScanError) {
            try scanner.skipValue(stack: &stack, maxDepth: table.limits.maxDepth)
            scanner.skipWhitespace()
            if !scanner.atEnd { throw scanner.unexpected("unexpected data after the value") }
            return nil
        } catch {
            return error
        }
    }

    /// The input offset of byte `decoded` of an escaped span's decoded text.
    func rawOffset(decoded: Int, in span: RowSpan) -> Int {
        var raw = Int(span.start)
        var index = 0
        while index < decoded, raw < Int(span.start) + span.count {
            raw &+= byte(raw) == UInt8(ascii: "\"") ? 2 : 1
            index &+= 1
        }
        return raw
    }

    /// The roles' names, by raw value (`CSVDialect.roles`).
    static let roleNames = CSVDialect.roles

    /// The role of the header's column `name`: the one the dialect names so, else the one
    /// of that name in any letter case that the dialect does not name otherwise, else extra.
    func role(named name: String) -> Role {
        if let (role, _) = dialect.columns.first(where: { $0.value == name }) { return Role(name: role) }
        let lowered = name.lowercased()
        guard let k = Self.roleNames.firstIndex(where: { $0.lowercased() == lowered }), dialect.columns[Self.roleNames[k]] == nil else {
            return .extra
        }
        return Role(rawValue: UInt8(k))!
    }

    /// The header row's first `,` `;` or TAB outside quotes (a comma when it has none).
    func headerDelimiter() -> UInt8 {
        var i = pos
        var quoted = false
        while i < end {
            let c = byte(i)
            if c == UInt8(ascii: "\"") { quoted.toggle() }
            else if !quoted && (c == UInt8(ascii: ",") || c == UInt8(ascii: ";") || c == 0x09) { return c }
            else if !quoted && c == 0x0A { break }
            i &+= 1
        }
        return UInt8(ascii: ",")
    }

    @inline(__always)
    static func isJSONSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    // MARK: Fields

    /// Eight-byte chunks: flags the delimiter (eight copies in `delimiters`), `"`, LF, CR and
    /// bytes >= 0x80 (the lowest flag is a true hit).
    @inline(__always)
    static func plainStops(_ word: UInt64, _ delimiters: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let comma = word ^ delimiters
        let quote = word ^ (ones &* 0x22)
        let lf = word ^ (ones &* 0x0A)
        let cr = word ^ (ones &* 0x0D)
        return (((comma &- ones) & ~comma) | ((quote &- ones) & ~quote) | ((lf &- ones) & ~lf)
            | ((cr &- ones) & ~cr) | word) & 0x8080_8080_8080_8080
    }

    /// Eight-byte chunks: flags `"` and bytes >= 0x80.
    @inline(__always)
    static func quotedStops(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = word ^ (ones &* 0x22)
        return (((quote &- ones) & ~quote) | word) & 0x8080_8080_8080_8080
    }

    /// Reads one field at `pos` and its terminator (consumed).
    /// - Complexity: O(field length)
    @inline(__always)
    mutating func scanField() throws(CSVError) -> (Field, FieldEnd) {
        let first = pos
        if pos < end, byte(pos) == UInt8(ascii: "\"") {
            return try scanQuotedField()
        }
        var i = pos
        let delimiters = self.delimiters, delimiter = self.delimiter  // in registers for the loop
        while true {
            while i &+ 8 <= end {
                let hits = Self.plainStops(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)), delimiters)
                if hits != 0 {
                    i &+= hits.trailingZeroBitCount >> 3
                    break
                }
                i &+= 8
            }
            guard i < end else {
                pos = end
                return (Field(start: first, count: end - first, escaped: false, quoted: false, first: first), .end)
            }
            let c = byte(i)
            if c == delimiter {
                pos = i &+ 1
                return (Field(start: first, count: i - first, escaped: false, quoted: false, first: first), .comma)
            }
            switch c {
            case 0x0A:
                pos = i &+ 1
                return (Field(start: first, count: i - first, escaped: false, quoted: false, first: first), .line)
            case 0x0D:
                guard i &+ 1 < end, byte(i &+ 1) == 0x0A else {
                    throw .syntax("a carriage return outside quotes must be followed by a line feed", at: i)
                }
                pos = i &+ 2
                return (Field(start: first, count: i - first, escaped: false, quoted: false, first: first), .line)
            case UInt8(ascii: "\""):
                throw .syntax("a quote inside an unquoted field (quote the whole field and double the quote)", at: i)
            case 0x80...:
                guard let next = utf8SequenceEnd(base, at: i, end: end) else { throw invalidUTF8(base, at: i) }
                i = next
            default:
                i &+= 1
            }
        }
    }

    /// Reads a quoted field whose opening quote is at `pos`.
    mutating func scanQuotedField() throws(CSVError) -> (Field, FieldEnd) {
        let first = pos
        var i = pos &+ 1
        var escaped = false
        while true {
            while i &+ 8 <= end {
                let hits = Self.quotedStops(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
                if hits != 0 {
                    i &+= hits.trailingZeroBitCount >> 3
                    break
                }
                i &+= 8
            }
            guard i < end else {
                throw .syntax("a quoted field is not closed", at: first)
            }
            let c = byte(i)
            if c == UInt8(ascii: "\"") {
                if i &+ 1 < end, byte(i &+ 1) == UInt8(ascii: "\"") {
                    escaped = true
                    i &+= 2
                    continue
                }
                break
            } else if c >= 0x80 {
                guard let next = utf8SequenceEnd(base, at: i, end: end) else { throw invalidUTF8(base, at: i) }
                i = next
            } else {
                i &+= 1
            }
        }
        let field = Field(start: first &+ 1, count: i &- first &- 1, escaped: escaped, quoted: true, first: first)
        pos = i &+ 1
        guard pos < end else { return (field, .end) }
        if byte(pos) == delimiter {
            pos &+= 1
            return (field, .comma)
        }
        switch byte(pos) {
        case 0x0A:
            pos &+= 1
            return (field, .line)
        case 0x0D where pos &+ 1 < end && byte(pos &+ 1) == 0x0A:
            pos &+= 2
            return (field, .line)
        default:
            throw .syntax("text after the closing quote of a field", at: pos)
        }
    }

    /// The first syntax error from `start` to the end of the body (quotes, field counts,
    /// UTF-8), or nil. Used after a rule error.
    /// - Complexity: O(n)
    func firstSyntaxError(from start: Int, countingFields: Bool) -> CSVError? {
        var copy = self
        copy.pos = start
        do throws(CSVError) {
            while true {
                copy.skipEmptyLines()
                guard copy.pos < copy.end else { return nil }
                let recordStart = copy.pos
                var count = 0
                var fieldEnd = FieldEnd.comma
                while fieldEnd == .comma {
                    (_, fieldEnd) = try copy.scanField()
                    count &+= 1
                }
                if countingFields && count != roles.count {
                    throw .syntax("the row has \(count) field\(count == 1 ? "" : "s"), the header has \(roles.count)", at: recordStart)
                }
            }
        } catch {
            return error.kind == .syntax ? error : nil
        }
    }

    // MARK: Error places

    /// Where a field of the row starting at `rowStart` begins (rows already read).
    func locate(_ rowStart: Int, _ field: RowField) -> (offset: Int, path: String) {
        let column: Int
        switch field {
        case .row: return (rowStart, "")
        case .id: column = idColumn
        case .parentId: column = parentColumn
        case .title: column = titleColumn
        }
        var copy = self
        copy.pos = rowStart
        for _ in 0 ..< column {
            guard (try? copy.scanField()) != nil else { return (rowStart, "") }
        }
        return (copy.pos, "")
    }
}

/// The CSV reader's error before its place is worked out (`CSVReader.makeError`).
struct CSVError: ReaderError {
    var kind: TreeInputError.Kind
    var message: String
    var offset: Int

    init(_ kind: TreeInputError.Kind, _ message: String, at offset: Int) {
        self.kind = kind
        self.message = message
        self.offset = offset
    }
}
