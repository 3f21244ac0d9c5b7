import TreeEngine

/// Reads an NDJSON body (one JSON object a line) into a `RowTable` with the JSON scanner's
/// string, number and value routines; strings stay spans of the input, decoded only when
/// the node is built (ids with escapes are decoded at once, to compare as bytes).
///
/// Members: `id` (string or integer, required), `parentId` (string, integer, null or
/// absent; matched by the id's text, so 5 and "5" name the same node; `""` names the node
/// whose id is the empty string, a root when there is none), `title` (string, required),
/// `data` (any JSON, kept raw), `expanded`, `hasChildren` (booleans). Anything else is an
/// error naming the member. An object may not span lines; blank lines are skipped.
struct NDJSONReader: RowReader {
    static let syntax = RowSyntax.ndjson
    /// A member of a row object; raw values are bits for duplicate detection.
    enum Member: UInt8 {
        case id = 1, parentId = 2, title = 4, data = 8, expanded = 16, hasChildren = 32, children = 64
        case unknown = 0
    }

    var scanner: JSONScanner
    var table: RowTable
    var scratch: [UInt8] = []
    /// Builds the nodes while reading (rows in pre-order), or nil.
    var streamer: RowStreamer?
    var stopAfter = Int.max
    var valueStack = ContiguousArray<JSONScanner.ValueFrame>()
    /// The first byte of the row being read, for errors.
    var rowStart = 0
    /// The member being read (offset of its key's quote), for error paths; -1 for none.
    var memberKey = -1
    /// Where the last row's `id` and `parentId` values start (-1 when absent), for errors.
    var idValue = -1, parentValue = -1

    /// (An NDJSON body has no dialect: `dialect` is not read.)
    init(_ input: UnsafeRawBufferPointer, limits: ForestLimits, dialect: CSVDialect) {
        scanner = JSONScanner(input)
        table = RowTable(syntax: .ndjson, input: input, limits: limits)
        scratch.reserveCapacity(256)
        if input.count >= 3, input[0] == 0xEF, input[1] == 0xBB, input[2] == 0xBF {
            scanner.pos = 3
        }
    }

    // MARK: Reading

    /// Reads every row. A rule error found while reading gives way to a syntax error in
    /// the rest of the body.
    /// - Complexity: O(n)
    mutating func read() throws(TreeInputError) {
        do throws(JSONScanError) {
            try readPrelude()
            try readRows()
        } catch {
            if error.kind != .syntax, let syntax = firstSyntaxError(from: rowStart) {
                throw makeError(syntax, path: "")
            }
            throw makeError(error, path: currentPath())
        }
    }

    /// Turns an internal error into the public one, `line N: ` before the message.
    func makeError(_ error: JSONScanError, path: String) -> TreeInputError {
        let location = TreeInputError.lineAndColumn(of: error.offset, in: scanner.bytes)
        return TreeInputError(kind: error.kind, message: "line \(location.line): \(error.message)", byteOffset: error.offset,
                              line: location.line, column: location.column, path: path)
    }

    /// The JSON Pointer of the member being read inside its row.
    func currentPath() -> String {
        guard memberKey >= 0 else { return "" }
        var scratch: [UInt8] = []
        var path = JSONPointer()
        path.append(key: scanner.key(at: memberKey, scratch: &scratch))
        if !valueStack.isEmpty { path.append(contentsOf: scanner.path(of: valueStack, from: 0)) }
        return path.text
    }

    /// Skips white space within a line: space, tab, CR.
    @inline(__always)
    mutating func skipInline() {
        while scanner.pos < scanner.end {
            switch scanner.byte(scanner.pos) {
            case 0x20, 0x09, 0x0D: scanner.pos &+= 1
            default: return
            }
        }
    }

    /// An error for an unexpected byte; a line feed means the object did not fit its line.
    func unexpected(_ expected: String) -> JSONScanError {
        if !scanner.atEnd, scanner.current == 0x0A {
            return .syntax("the line ends inside the row's object (a row is one JSON object on one line): \(expected)", at: scanner.pos)
        }
        return scanner.unexpected(expected)
    }

    mutating func readPrelude() throws(JSONScanError) {
        try Self.checkInputSize(scanner.bytes)
    }

    var position: Int {
        get { scanner.pos }
        set { scanner.pos = newValue }
    }

    /// The start of the first row after `offset`, past the first line feed from `offset` on
    /// (a row is one line: an object that spans lines is an error the reads report).
    func rowStart(after offset: Int) -> Int {
        var copy = self
        if offset >= scanner.pos {
            copy.scanner.pos = offset
            while !copy.scanner.atEnd && copy.scanner.current != 0x0A { copy.scanner.pos &+= 1 }
        }
        copy.skipBlankLines()
        return copy.scanner.pos
    }

    /// Skips white space and blank lines up to the next row (or the end).
    mutating func skipBlankLines() {
        while true {
            skipInline()
            guard !scanner.atEnd, scanner.current == 0x0A else { return }
            scanner.pos &+= 1
        }
    }

    mutating func readRows() throws(JSONScanError) {
        while true {
            skipBlankLines()
            guard !scanner.atEnd, scanner.pos <= stopAfter else { return }
            rowStart = scanner.pos
            try checkRowLimit(at: rowStart)
            let row = try readObject()
            skipInline()
            if !scanner.atEnd {
                guard scanner.current == 0x0A else {
                    throw scanner.unexpected("expected the end of the line after the row's object")
                }
                scanner.pos &+= 1
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

    /// Reads one row object at `pos`.
    mutating func readObject() throws(JSONScanError) -> Row {
        let open = scanner.pos
        memberKey = -1
        idValue = -1
        parentValue = -1
        guard scanner.current == UInt8(ascii: "{") else {
            if JSONScanner.startsValue(scanner.current) {
                // Not an object: a syntax error if it is not JSON either.
                valueStack.removeAll(keepingCapacity: true)
                do {
                    try scanner.skipValue(stack: &valueStack, maxDepth: table.limits.maxDepth)
                } catch {
                    throw lineLimited(error, from: open)
                }
                valueStack.removeAll(keepingCapacity: true)
                if let lineFeed = firstLineFeed(from: open, to: scanner.pos) {
                    throw .syntax("the line ends inside the row (a row is one JSON object on one line)", at: lineFeed)
                }
                throw .rule("a row must be a JSON object", at: open)
            }
            throw unexpected("expected a JSON object")
        }
        scanner.pos &+= 1
        skipInline()
        var row = Row(id: .empty, parent: .empty, title: .empty, data: .empty,
                      start: UInt32(truncatingIfNeeded: open), flags: [])
        var seen: UInt8 = 0
        if scanner.current == UInt8(ascii: "}") {
            scanner.pos &+= 1
        } else {
            members: while true {
                guard scanner.current == UInt8(ascii: "\"") else {
                    if scanner.current == UInt8(ascii: "}") {
                        throw .syntax("trailing comma before '}'", at: scanner.pos)
                    }
                    throw unexpected("expected a member name in double quotes")
                }
                let keyStart = scanner.pos
                let member = try readKey()
                memberKey = keyStart
                switch member {
                case .unknown:
                    let name = scanner.key(at: keyStart, scratch: &scratch)
                    throw .rule("unknown member \"\(name)\" (a row has id, parentId, title, data, expanded, hasChildren)", at: keyStart)
                case .children:
                    throw .rule("\"children\" is not allowed in a row: give each child its own row with a parentId", at: keyStart)
                default:
                    break
                }
                if seen & member.rawValue != 0 {
                    throw .rule("duplicate member \"\(Self.name(of: member))\"", at: keyStart)
                }
                seen |= member.rawValue
                skipInline()
                guard scanner.current == UInt8(ascii: ":") else {
                    throw unexpected("expected ':' after member name")
                }
                scanner.pos &+= 1
                skipInline()
                try readValue(member, into: &row)
                memberKey = -1
                skipInline()
                switch scanner.current {
                case UInt8(ascii: ","):
                    scanner.pos &+= 1
                    skipInline()
                case UInt8(ascii: "}"):
                    scanner.pos &+= 1
                    break members
                default:
                    throw unexpected("expected ',' or '}' after object member")
                }
            }
        }
        if seen & Member.id.rawValue == 0 {
            throw .rule("the row has no \"id\"", at: open)
        }
        if seen & Member.title.rawValue == 0 {
            throw .rule("the row has no \"title\"", at: open)
        }
        return row
    }

    /// Reads the value of `member` at `pos` into `row`.
    @inline(__always)
    mutating func readValue(_ member: Member, into row: inout Row) throws(JSONScanError) {
        let valueStart = scanner.pos
        switch member {
        case .title:
            guard scanner.current == UInt8(ascii: "\"") else { throw try wrongType("\"title\" must be a string") }
            let token = try scanner.scanString()
            try Self.checkFieldSize(token.end - token.start, at: valueStart)
            row.title = RowSpan(start: token.start, count: token.end - token.start, escaped: token.hasEscapes)
        case .id:
            idValue = valueStart
            switch scanner.current {
            case UInt8(ascii: "\""):
                row.id = try stringID()
            case UInt8(ascii: "-"), UInt8(ascii: "0") ... UInt8(ascii: "9"):
                row.id = try integerID(name: "id")
                row.flags.insert(.integerID)
            default:
                throw try wrongType("\"id\" must be a string or an integer")
            }
        case .parentId:
            parentValue = valueStart
            switch scanner.current {
            case UInt8(ascii: "\""):
                row.parent = try stringID()
                row.flags.insert(row.parent.count == 0 ? [.hasParent, .emptyParent] : .hasParent)
            case UInt8(ascii: "-"), UInt8(ascii: "0") ... UInt8(ascii: "9"):
                row.parent = try integerID(name: "parentId")
                row.flags.insert(.hasParent)
            case UInt8(ascii: "n"):
                try scanner.scanLiteral("null")
            default:
                throw try wrongType("\"parentId\" must be a string, an integer or null")
            }
        case .data:
            valueStack.removeAll(keepingCapacity: true)
            do {
                try scanner.skipValue(stack: &valueStack, maxDepth: table.limits.maxDepth)
            } catch {
                throw lineLimited(error, from: valueStart)
            }
            var index = valueStart
            while index < scanner.pos {
                if scanner.byte(index) == 0x0A {
                    throw .syntax("the line ends inside the row's object (a row is one JSON object on one line)", at: index)
                }
                index &+= 1
            }
            try Self.checkFieldSize(scanner.pos - valueStart, at: valueStart)
            row.data = RowSpan(start: valueStart, count: scanner.pos - valueStart, escaped: false)
            row.flags.insert(.hasData)
        case .expanded:
            guard let flag = scanner.scanBool() else { throw try wrongType("\"expanded\" must be a boolean") }
            if flag { row.flags.insert(.expanded) }
        case .hasChildren:
            guard let flag = scanner.scanBool() else { throw try wrongType("\"hasChildren\" must be a boolean") }
            if flag { row.flags.insert(.hasChildren) }
        case .children, .unknown:
            break
        }
    }

    /// A string id at `pos`: a span of the input, or decoded into the side buffer.
    @inline(__always)
    mutating func stringID() throws(JSONScanError) -> RowSpan {
        let token = try scanner.scanString()
        try Self.checkFieldSize(token.end - token.start, at: token.start)
        let span = RowSpan(start: token.start, count: token.end - token.start, escaped: token.hasEscapes)
        return table.settle(span, scratch: &scratch)
    }

    /// An integer id at `pos` (`7`, or `7.0`, `70e-1`: the same id): its canonical decimal
    /// text, in place when written so.
    mutating func integerID(name: String) throws(JSONScanError) -> RowSpan {
        let start = scanner.pos
        let token = try scanner.scanNumber()
        switch scanner.integralValue(token) {
        case .integer(let value):
            let isMinusZero = token.end - token.start == 2 && scanner.byte(token.start) == UInt8(ascii: "-")
            if token.isInteger && !isMinusZero {
                return RowSpan(start: token.start, count: token.end - token.start, escaped: false)
            }
            return table.appendSide(String(value).utf8)
        case .fractional:
            throw .rule("\"\(name)\" must be a string or an integer", at: start)
        case .outOfRange:
            throw .rule("\"\(name)\" integer is out of the 64-bit range", at: start)
        }
    }

    /// A rule error for a value of the wrong type at `pos`, or a syntax error when no
    /// value starts there (or the value is malformed).
    mutating func wrongType(_ message: String) throws(JSONScanError) -> JSONScanError {
        guard JSONScanner.startsValue(scanner.current) else {
            throw unexpected("expected a value")
        }
        let start = scanner.pos
        var stack = ContiguousArray<JSONScanner.ValueFrame>()
        do {
            try scanner.skipValue(stack: &stack, maxDepth: table.limits.maxDepth)
        } catch {
            throw lineLimited(error, from: start)
        }
        if let lineFeed = firstLineFeed(from: start, to: scanner.pos) {
            throw .syntax("the line ends inside the row's object (a row is one JSON object on one line)", at: lineFeed)
        }
        return .rule(message, at: start)
    }

    /// Reads a member name at `pos` (an opening quote); plain names are matched in place.
    @inline(__always)
    mutating func readKey() throws(JSONScanError) -> Member {
        let at = scanner.pos &+ 1
        let member: Member
        let length: Int
        switch at < scanner.end ? scanner.byte(at) : 0 {
        case UInt8(ascii: "i"): (member, length) = (.id, 2)
        case UInt8(ascii: "p"): (member, length) = (.parentId, 8)
        case UInt8(ascii: "t"): (member, length) = (.title, 5)
        case UInt8(ascii: "d"): (member, length) = (.data, 4)
        case UInt8(ascii: "e"): (member, length) = (.expanded, 8)
        case UInt8(ascii: "h"): (member, length) = (.hasChildren, 11)
        case UInt8(ascii: "c"): (member, length) = (.children, 8)
        default: (member, length) = (.unknown, 0)
        }
        if member != .unknown, scanner.matches(Self.quotedName(of: member), at: at) {
            scanner.pos = at &+ length &+ 1
            return member
        }
        let token = try scanner.scanString()
        let name = scanner.string(token, scratch: &scratch)
        for candidate in [Member.id, .parentId, .title, .data, .expanded, .hasChildren, .children]
        where name == "\(Self.name(of: candidate))" {
            return candidate
        }
        return .unknown
    }

    static func quotedName(of member: Member) -> StaticString {
        switch member {
        case .id: "id\""
        case .parentId: "parentId\""
        case .title: "title\""
        case .data: "data\""
        case .expanded: "expanded\""
        case .hasChildren: "hasChildren\""
        case .children: "children\""
        case .unknown: "\""
        }
    }

    static func name(of member: Member) -> StaticString {
        switch member {
        case .id: "id"
        case .parentId: "parentId"
        case .title: "title"
        case .data: "data"
        case .expanded: "expanded"
        case .hasChildren: "hasChildren"
        case .children: "children"
        case .unknown: ""
        }
    }

    // MARK: Errors

    /// The first line feed in `start ..< stop`, if any.
    func firstLineFeed(from start: Int, to stop: Int) -> Int? {
        var index = start
        while index < min(stop, scanner.end) {
            if scanner.byte(index) == 0x0A { return index }
            index &+= 1
        }
        return nil
    }

    /// `error`, found while skipping a value from `start`; when the value crossed a line
    /// end before the error, the error is that line end instead.
    func lineLimited(_ error: JSONScanError, from start: Int) -> JSONScanError {
        if let lineFeed = firstLineFeed(from: start, to: error.offset) {
            return .syntax("the line ends inside the row's object (a row is one JSON object on one line)", at: lineFeed)
        }
        return error
    }

    /// The first syntax error from `start` to the end of the body: each non-blank line
    /// must be one JSON value. Used after a rule error.
    /// - Complexity: O(n)
    func firstSyntaxError(from start: Int) -> JSONScanError? {
        var copy = self
        copy.scanner.pos = start
        var stack = ContiguousArray<JSONScanner.ValueFrame>()
        do throws(JSONScanError) {
            while true {
                copy.skipInline()
                guard !copy.scanner.atEnd else { return nil }
                if copy.scanner.current == 0x0A {
                    copy.scanner.pos &+= 1
                    continue
                }
                let lineStart = copy.scanner.pos
                stack.removeAll(keepingCapacity: true)
                do {
                    try copy.scanner.skipValue(stack: &stack, maxDepth: Int.max / 2)
                } catch {
                    throw copy.lineLimited(error, from: lineStart)
                }
                var index = lineStart
                while index < copy.scanner.pos {
                    if copy.scanner.byte(index) == 0x0A {
                        throw .syntax("the line ends inside the row's object (a row is one JSON object on one line)", at: index)
                    }
                    index &+= 1
                }
                copy.skipInline()
                if !copy.scanner.atEnd {
                    guard copy.scanner.current == 0x0A else {
                        throw copy.scanner.unexpected("expected the end of the line after the row's object")
                    }
                    copy.scanner.pos &+= 1
                }
            }
        } catch {
            return error.kind == .syntax ? error : nil
        }
    }

    /// Where a member of the row starting at `rowStart` begins, and its path.
    func locate(_ rowStart: Int, _ field: RowField) -> (offset: Int, path: String) {
        var copy = self
        copy.scanner.pos = rowStart
        _ = try? copy.readObject()
        switch field {
        case .id where copy.idValue >= 0: return (copy.idValue, "/id")
        case .parentId where copy.parentValue >= 0: return (copy.parentValue, "/parentId")
        default: return (rowStart, "")
        }
    }
}
