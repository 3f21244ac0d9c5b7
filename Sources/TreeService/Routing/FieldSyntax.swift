import TreeEngine
import TreeFormats

/// The text forms of fields and conditions in query parameters: `fields=title,data.shell`
/// and `where=data.size>1000000,data.owner=alice`.
///
/// ```
/// fields     = field *("," field)
/// where      = condition *("," condition)
/// condition  = field comparison value
/// field      = "title" / "data" 1*("." member)   ; "\" takes the next character as it is
/// comparison = "=" / "!=" / "<" / "<=" / ">" / ">="
/// value      = JSON string / "null" / "true" / "false" / JSON number / bare text
/// ```
/// Bare text runs to the next `,` (or the end) and is a string. And the aggregates of a
/// rows page, `aggregate=count,sum:data.size`:
/// ```
/// aggregate = item *("," item)
/// item      = "count" / ("sum" / "min" / "max" / "avg") ":" field   ; a data field
/// ```
/// And the order of children pages, `sort=-data.size,title`:
/// ```
/// sort = key *("," key)
/// key  = ["-"] field                                   ; "-": descending
/// ```
/// Errors name the 1-based position (in Unicode scalars) where the text stops making sense.
enum FieldSyntax {
    /// At most this many fields in `fields`, and conditions in `where`.
    static let maximumCount = 16

    struct Failure: Error {
        let message: String
        /// 1-based, in Unicode scalars.
        let position: Int
    }

    /// The fields of a `fields` parameter.
    static func fields(_ text: String) throws(Failure) -> [NodeField] {
        try list(text, of: "fields", end: "expected ',' or the end", twice: { "\($0) is listed twice" }) {
            (scanner: inout Scanner) throws(Failure) in try scanner.field(endingAt: [","])
        }
    }

    /// The conditions of a `where` parameter.
    static func conditions(_ text: String) throws(Failure) -> [FieldCondition] {
        try list(text, of: "conditions", end: "expected ',' or the end after a value", twice: nil) {
            (scanner: inout Scanner) throws(Failure) in
            let field = try scanner.field(endingAt: ["=", "!", "<", ">"])
            let comparison = try scanner.comparison()
            return FieldCondition(field, comparison, try scanner.operand())
        }
    }

    /// The aggregates of an `aggregate` parameter, in order.
    static func aggregates(_ text: String) throws(Failure) -> [AggregateRequest] {
        try list(text, of: "aggregates", end: "expected ',' or the end", twice: { "\($0.key) is asked for twice" }) {
            (scanner: inout Scanner) throws(Failure) in try scanner.aggregate()
        }
    }

    /// The keys of a `sort` parameter, each field once.
    static func sort(_ text: String) throws(Failure) -> SortKeys {
        var seen = Set<NodeField>()
        return SortKeys(try list(text, of: "sort keys", end: "expected ',' or the end", twice: nil) {
            (scanner: inout Scanner) throws(Failure) in
            let start = scanner.position
            let descending = scanner.take("-")
            let field = try scanner.field(endingAt: [","])
            if !seen.insert(field).inserted { throw Failure(message: "\(field) is sorted by twice", position: start) }
            return SortKeys.Key(field, descending: descending)
        })
    }

    /// `conditions` in the syntax of `where` (each operand as JSON writes it: a string
    /// quoted), as pages echo them.
    static func text(of conditions: [FieldCondition]) -> String {
        conditions.map { condition in
            var out = JSONWriter()
            switch condition.operand {
            case .null: out.null()
            case .boolean(let b): out.bool(b)
            case .number(let n): out.double(n)
            case .string(let s): out.string(s)
            }
            return "\(condition.field)\(condition.comparison.rawValue)" + String(decoding: out.bytes, as: UTF8.self)
        }.joined(separator: ",")
    }

    /// The comma-separated items of `text`, each read by `item`: at most `maximumCount`
    /// (`noun` names them in the error), none given twice when `twice` says how that is put,
    /// and nothing after the last (`end` says what was expected instead).
    private static func list<Item: Equatable>(_ text: String, of noun: String, end: String, twice: ((Item) -> String)?,
                                              _ item: (inout Scanner) throws(Failure) -> Item) throws(Failure) -> [Item] {
        var scanner = Scanner(text)
        var items: [Item] = []
        repeat {
            let start = scanner.position
            let next = try item(&scanner)
            if let twice, items.contains(next) { throw Failure(message: twice(next), position: start) }
            items.append(next)
            if items.count > maximumCount { throw Failure(message: "at most \(maximumCount) \(noun)", position: start) }
        } while scanner.take(",")
        if !scanner.atEnd { throw scanner.failure(end) }
        return items
    }

    private struct Scanner {
        let scalars: [Unicode.Scalar]
        var i = 0

        init(_ text: String) { scalars = Array(text.unicodeScalars) }

        var atEnd: Bool { i == scalars.count }
        var position: Int { i + 1 }
        var current: Unicode.Scalar? { i < scalars.count ? scalars[i] : nil }

        func failure(_ message: String) -> Failure { Failure(message: message, position: position) }

        mutating func take(_ s: Unicode.Scalar) -> Bool {
            guard current == s else { return false }
            i += 1
            return true
        }

        /// `title` or `data.member…`, up to an unescaped scalar of `stops` or the end.
        mutating func field(endingAt stops: Set<Unicode.Scalar>) throws(Failure) -> NodeField {
            let start = i
            var members: [String] = []
            var name = String.UnicodeScalarView()
            var escaped = false
            while let c = current, escaped || !stops.contains(c) {
                i += 1
                if escaped { name.append(c); escaped = false; continue }
                if c == "\\" { escaped = true; continue }
                if c == "." {
                    members.append(String(name))
                    name = String.UnicodeScalarView()
                    continue
                }
                name.append(c)
            }
            if escaped { throw failure("a '\\' ends the field") }
            members.append(String(name))
            let whole = String(String.UnicodeScalarView(scalars[start ..< i]))
            if members == ["title"] { return .title }
            guard members.first == "data", members.count >= 2 else {
                throw Failure(message: whole.isEmpty ? "expected a field" : "\"\(whole)\" is not a field: give title or data.NAME",
                              position: start + 1)
            }
            if let k = members.dropFirst().firstIndex(where: \.isEmpty) {
                throw Failure(message: "\"\(whole)\" has an empty member name (member \(k))", position: start + 1)
            }
            return .data(FieldPath(Array(members.dropFirst())))
        }

        /// `count`, or an operation, `:` and a data field.
        mutating func aggregate() throws(Failure) -> AggregateRequest {
            let start = position
            var name = ""
            while let c = current, c != ":" && c != "," { name.unicodeScalars.append(c); i += 1 }
            if name == "count" { return AggregateRequest(operation: .count, field: nil) }
            guard let operation = AggregateRequest.Operation(rawValue: name), operation != .count else {
                throw Failure(message: "\"\(name)\" is not an aggregate: give count, or sum, min, max or avg and \":\" and a data field",
                              position: start)
            }
            guard take(":") else { throw failure("expected ':' and a data field after \(name)") }
            let fieldStart = position
            guard case .data(let path) = try field(endingAt: [","]) else {
                throw Failure(message: "\(name) needs a data field (numbers), not the title", position: fieldStart)
            }
            return AggregateRequest(operation: operation, field: path)
        }

        mutating func comparison() throws(Failure) -> FieldCondition.Comparison {
            switch current {
            case "=": i += 1; return .equal
            case "!": i += 1; if take("=") { return .notEqual }; i -= 1
            case "<": i += 1; return take("=") ? .lessOrEqual : .less
            case ">": i += 1; return take("=") ? .greaterOrEqual : .greater
            default: break
            }
            throw failure("expected a comparison (=, !=, <, <=, >, >=) after the field")
        }

        mutating func operand() throws(Failure) -> FieldCondition.Operand {
            if current == "\"" { return .string(try quoted()) }
            let start = i
            while let c = current, c != "," { i += 1 }
            let text = String(String.UnicodeScalarView(scalars[start ..< i]))
            switch text {
            case "null": return .null
            case "true": return .boolean(true)
            case "false": return .boolean(false)
            default:
                var bytes = text
                if let n = bytes.withUTF8({ NumberText.value(UnsafeRawBufferPointer($0)) }), n.isFinite { return .number(n) }
                return .string(text)
            }
        }

        /// A JSON string, its escapes decoded.
        mutating func quoted() throws(Failure) -> String {
            i += 1
            var out = String.UnicodeScalarView()
            while let c = current {
                i += 1
                switch c {
                case "\"": return String(out)
                case "\\":
                    guard let e = current else { throw failure("the string ends inside an escape") }
                    i += 1
                    switch e {
                    case "\"", "\\", "/": out.append(e)
                    case "b": out.append("\u{8}")
                    case "f": out.append("\u{C}")
                    case "n": out.append("\n")
                    case "r": out.append("\r")
                    case "t": out.append("\t")
                    case "u":
                        var v: UInt32 = 0
                        for _ in 0 ..< 4 {
                            guard let h = current, h.isASCII, let d = UInt32(String(h), radix: 16) else {
                                throw failure("expected four hex digits after \\u")
                            }
                            v = v << 4 | d
                            i += 1
                        }
                        // A surrogate pair, or one scalar.
                        if (0xD800 ..< 0xDC00).contains(v), current == "\\", i + 1 < scalars.count, scalars[i + 1] == "u" {
                            let save = i
                            i += 2
                            var low: UInt32 = 0
                            for _ in 0 ..< 4 {
                                guard let h = current, h.isASCII, let d = UInt32(String(h), radix: 16) else { i = save; break }
                                low = low << 4 | d
                                i += 1
                            }
                            if i != save, (0xDC00 ..< 0xE000).contains(low) {
                                out.append(Unicode.Scalar(0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00))!)
                                continue
                            }
                            i = save
                        }
                        guard let scalar = Unicode.Scalar(v) else { throw failure("\\u escape of a lone surrogate") }
                        out.append(scalar)
                    default:
                        throw Failure(message: "unknown escape \\\(e)", position: i)
                    }
                default:
                    out.append(c)
                }
            }
            throw failure("the string has no closing '\"'")
        }
    }
}

/// One aggregate a rows page asks for: `count` (the descendants), or `sum`, `min`, `max` or
/// `avg` of a data field's numbers over the descendants that have one.
struct AggregateRequest: Equatable {
    enum Operation: String {
        case count, sum, min, max, avg
    }

    let operation: Operation
    /// Nil for `count`.
    let field: FieldPath?

    /// Its name in a row's `aggregates`: `count`, `sum:data.size`.
    var key: String { field.map { "\(operation.rawValue):\($0)" } ?? "count" }

    /// What the engine aggregates for it.
    var source: AggregateSource { field.map(AggregateSource.field) ?? .nodes }
}
