import Foundation
import TreeEngine

/// A JSON value as the reference reads a node's data: a plain recursive parser that keeps
/// each number's text as written (fields search a number by its text).
indirect enum RefJSON {
    case null, boolean(Bool), number(text: String, value: Double), string(String), array, object([(String, RefJSON)])

    /// Parses `bytes`, nil when they are not one JSON value.
    static func parse(_ bytes: [UInt8]) -> RefJSON? {
        var scalars = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)[...]
        func ws() { while let c = scalars.first, c == " " || c == "\t" || c == "\n" || c == "\r" { scalars.removeFirst() } }
        func string() -> String? {
            guard scalars.popFirst() == "\"" else { return nil }
            var out = String.UnicodeScalarView()
            var pendingHigh: UInt32?
            while let c = scalars.popFirst() {
                if c == "\"" { return String(out) }
                guard c == "\\" else { out.append(c); continue }
                guard let e = scalars.popFirst() else { return nil }
                switch e {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                case "b": out.append("\u{8}")
                case "f": out.append("\u{C}")
                case "u":
                    let hex = String(String.UnicodeScalarView(scalars.prefix(4)))
                    scalars.removeFirst(4)
                    guard let v = UInt32(hex, radix: 16) else { return nil }
                    if (0xD800 ..< 0xDC00).contains(v) { pendingHigh = v; continue }
                    if (0xDC00 ..< 0xE000).contains(v), let high = pendingHigh {
                        out.append(Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (v - 0xDC00))!)
                        pendingHigh = nil
                        continue
                    }
                    out.append(Unicode.Scalar(v) ?? "\u{FFFD}")
                default: out.append(e)
                }
            }
            return nil
        }
        func value() -> RefJSON? {
            ws()
            guard let c = scalars.first else { return nil }
            switch c {
            case "{":
                scalars.removeFirst()
                var members: [(String, RefJSON)] = []
                ws()
                if scalars.first == "}" { scalars.removeFirst(); return .object(members) }
                while true {
                    ws()
                    guard let name = string() else { return nil }
                    ws()
                    guard scalars.popFirst() == ":", let v = value() else { return nil }
                    members.append((name, v))
                    ws()
                    let next = scalars.popFirst()
                    if next == "}" { return .object(members) }
                    guard next == "," else { return nil }
                }
            case "[":
                var depth = 0
                while let c = scalars.popFirst() {
                    if c == "\"" { scalars = ["\""] + scalars; _ = string(); continue }
                    if c == "[" || c == "{" { depth += 1 }
                    if c == "]" || c == "}" { depth -= 1; if depth == 0 { return .array } }
                }
                return nil
            case "\"": return string().map { .string($0) }
            case "t": scalars.removeFirst(4); return .boolean(true)
            case "f": scalars.removeFirst(5); return .boolean(false)
            case "n": scalars.removeFirst(4); return .null
            default:
                var text = ""
                while let c = scalars.first, "+-.eE0123456789".unicodeScalars.contains(c) { text.unicodeScalars.append(c); scalars.removeFirst() }
                return Double(text).map { .number(text: text, value: $0) }
            }
        }
        let result = value()
        ws()
        return scalars.isEmpty ? result : nil
    }

    /// The value at `path` (the first member of each name), nil when missing.
    func at(_ path: [String]) -> RefJSON? {
        guard let first = path.first else { return self }
        guard case .object(let members) = self, let m = members.first(where: { $0.0 == first }) else { return nil }
        return m.1.at(Array(path.dropFirst()))
    }
}

extension ReferenceForest {
    /// Whether a node of `title`, `data` and `hasChildren` matches `q`: with leaves only it
    /// has no children, the text matches one of the fields (when there is a text), and
    /// every condition holds.
    static func matches(title: RefTitle, data: [UInt8]?, hasChildren: Bool, _ q: RefQuery) -> Bool {
        (!q.f.leavesOnly || !hasChildren)
            && (q.f.text.isEmpty || q.f.fields.contains { textMatches(title, data, $0, q) })
            && q.f.conditions.allSatisfy { holds(title, data, $0, q.f) }
    }

    /// The value of `field`: the title is a string; nil when missing.
    static func value(_ title: RefTitle, _ data: [UInt8]?, _ field: NodeField) -> RefJSON? {
        switch field {
        case .title: return .string(title.title)
        case .data(let path): return data.flatMap(RefJSON.parse)?.at(path.members)
        }
    }

    /// Whether the text of `q` matches `field`: a string, a number's text as written,
    /// `true` or `false`.
    static func textMatches(_ title: RefTitle, _ data: [UInt8]?, _ field: NodeField, _ q: RefQuery) -> Bool {
        if field == .title { return title.matches(q) }
        switch value(title, data, field) {
        case .string(let s)?: return RefTitle(s).matches(q)
        case .number(let text, _)?: return RefTitle(text).matches(q)
        case .boolean(let b)?: return RefTitle(b ? "true" : "false").matches(q)
        default: return false
        }
    }

    /// Whether a node satisfies `condition` under the folding of `f`.
    static func holds(_ title: RefTitle, _ data: [UInt8]?, _ condition: FieldCondition, _ f: FilterQuery) -> Bool {
        let order: Int?
        switch (condition.operand, value(title, data, condition.field)) {
        case (.null, .null?): order = 0
        case (.boolean(let b), .boolean(let v)?): order = v == b ? 0 : (v ? 1 : -1)
        case (.number(let x), .number(_, let v)?): order = v < x ? -1 : (v > x ? 1 : 0)
        case (.number(let x), .string(let s)?) where isJSONNumber(s):
            let v = Double(s)!
            order = v < x ? -1 : (v > x ? 1 : 0)
        case (.string(let x), .string(let v)?): order = naturalOrder(RefTitle.fold(v, f), RefTitle.fold(x, f))
        default: order = nil
        }
        switch condition.comparison {
        case .equal: return order == 0
        case .notEqual: return order != 0
        case .less: return order.map { $0 < 0 } ?? false
        case .lessOrEqual: return order.map { $0 <= 0 } ?? false
        case .greater: return order.map { $0 > 0 } ?? false
        case .greaterOrEqual: return order.map { $0 >= 0 } ?? false
        }
    }

    /// Natural order by its definition: the texts cut into runs of ASCII digits and other
    /// scalars; digit runs compare by value, other scalars one by one; texts equal so
    /// compare scalar by scalar.
    static func naturalOrder(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        func pieces(_ s: [Unicode.Scalar]) -> [Either] {
            var out: [Either] = []
            for c in s {
                if ("0" ... "9").contains(c) {
                    if case .digits(let d)? = out.last { out[out.count - 1] = .digits(d + String(c)) } else { out.append(.digits(String(c))) }
                } else {
                    out.append(.scalar(c))
                }
            }
            return out
        }
        let x = pieces(a), y = pieces(b)
        for (p, q) in zip(x, y) {
            switch (p, q) {
            case (.digits(let d), .digits(let e)):
                let d0 = String(d.drop { $0 == "0" }), e0 = String(e.drop { $0 == "0" })
                if d0.count != e0.count { return d0.count < e0.count ? -1 : 1 }
                if d0 != e0 { return d0 < e0 ? -1 : 1 }
            case (.scalar(let c), .scalar(let e)):
                if c != e { return c.value < e.value ? -1 : 1 }
            case (.digits(let d), .scalar(let e)):
                return d.unicodeScalars.first!.value < e.value ? -1 : 1
            case (.scalar(let c), .digits(let e)):
                return c.value < e.unicodeScalars.first!.value ? -1 : 1
            }
        }
        if x.count != y.count { return x.count < y.count ? -1 : 1 }
        if a == b { return 0 }
        return a.lexicographicallyPrecedes(b, by: { $0.value < $1.value }) ? -1 : 1
    }

    private enum Either { case digits(String), scalar(Unicode.Scalar) }

    /// `nodes` (siblings in tree order) in the order of `keys` (`SortKeys`), by its
    /// definition: each key's value classed (numbers, numeric strings too; strings; booleans;
    /// arrays and objects; then null and missing, last either way) and compared, the first
    /// key that differs deciding, ties in tree order.
    static func sorted(_ nodes: [RefNode], _ keys: SortKeys) -> [RefNode] {
        func order(_ a: RefNode, _ b: RefNode) -> Int {
            for key in keys.keys {
                let x = sortValue(a, key.field), y = sortValue(b, key.field)
                if x.rank != y.rank {
                    if x.rank == 4 { return 1 }
                    if y.rank == 4 { return -1 }
                    return (x.rank < y.rank) != key.descending ? -1 : 1
                }
                var c = 0
                switch (x.value, y.value) {
                case (.number(_, let v)?, .number(_, let w)?): c = v < w ? -1 : v > w ? 1 : 0
                case (.string(let s)?, .string(let t)?):
                    c = naturalOrder(RefTitle.fold(s, FilterQuery("a")), RefTitle.fold(t, FilterQuery("a")))  // folded as by default
                case (.boolean(let v)?, .boolean(let w)?): c = v == w ? 0 : v ? 1 : -1
                default: c = 0
                }
                if c != 0 { return key.descending ? -c : c }
            }
            return 0
        }
        return nodes.enumerated().sorted { a, b in
            let c = order(a.element, b.element)
            return c != 0 ? c < 0 : a.offset < b.offset
        }.map(\.element)
    }

    /// A node's value of a sort key with its class: 0 numbers (a numeric string as its
    /// number), 1 strings, 2 booleans, 3 arrays and objects, 4 null or missing.
    private static func sortValue(_ node: RefNode, _ field: NodeField) -> (rank: Int, value: RefJSON?) {
        switch value(node.folding, node.data, field) {
        case .number(let text, let v)?: return (0, .number(text: text, value: v))
        case .string(let s)? where field != .title && isJSONNumber(s): return (0, .number(text: s, value: Double(s)!))
        case .string(let s)?: return (1, .string(s))
        case .boolean(let b)?: return (2, .boolean(b))
        case .array?, .object?: return (3, nil)
        case .null?, nil: return (4, nil)
        }
    }

    /// The aggregate of `source` over `nodes`: their count, or the numbers of a field
    /// (numbers, and strings written as JSON numbers), summed in order.
    static func aggregate(_ nodes: [RefNode], _ source: AggregateSource) -> Aggregate {
        var result = Aggregate.empty
        for node in nodes {
            let number: Double
            switch source {
            case .nodes: number = 0
            case .field(let path):
                switch node.data.flatMap(RefJSON.parse)?.at(path.members) {
                case .number(_, let v)?: number = v
                case .string(let s)? where isJSONNumber(s): number = Double(s)!
                default: continue
                }
            }
            result.count += 1
            result.sum += number
            result.minimum = min(result.minimum, number)
            result.maximum = max(result.maximum, number)
        }
        if case .nodes = source { return Aggregate(count: result.count, sum: 0, minimum: .infinity, maximum: -.infinity) }
        return result
    }

    /// Whether `s` is a number as JSON writes it.
    static func isJSONNumber(_ s: String) -> Bool {
        s.range(of: #"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$"#, options: .regularExpression) != nil
    }
}
