import Foundation
import TreeEngine

/// A node to upload: what the JSON says, before the engine has seen it.
struct GenNode {
    var id: NodeID?
    var title: String
    var expanded: Bool?
    var hasChildren: Bool?
    var data: String?
    var children: [GenNode] = []
    /// Write `"children": []` for a leaf.
    var emptyChildren = false

    var count: Int { 1 + children.reduce(0) { $0 + $1.count } }

    /// The reference node (ids nil where the engine generates them).
    func refNode(parent: RefNode?) -> RefNode {
        let node = RefNode(id: id, title: title, expanded: expanded ?? false, declaresChildren: hasChildren ?? false,
                           data: data.map { Array($0.utf8) })
        node.parent = parent
        node.children = children.map { $0.refNode(parent: node) }
        return node
    }
}

/// Random titles, ids, trees and their JSON text.
enum RandomTrees {
    /// Title pieces: ASCII of both cases, and characters whose case mapping is
    /// interesting (ß, dotted İ, final sigma, Kelvin and Ohm signs, a combining accent).
    static let titlePieces: [String] = [
        "a", "b", "c", "A", "B", "C", "ab", "AB", "Ab", "x", "X", " ", "/", "\"", "\\", "\t",
        "É", "é", "e\u{301}", "E\u{301}", "\u{301}", "ß", "SS", "ss", "ẞ", "İ", "i", "I", "ı",
        "Σ", "σ", "ς", "😀", "\u{212A}", "k", "K", "\u{2126}", "ω", "Ω", "ﬁ", "ǅ", "Ⅻ", "日本",
        // For diacritic-insensitive matching: precomposed and decomposed letters, marks
        // alone and stacked, other scripts (Greek tonos, Cyrillic, Hangul, CJK), emoji
        // with ZWJ and skin tone, the Angstrom sign (decomposes to A + ring).
        "Zürich", "zurich", "u\u{308}", "Ü", "\u{308}", "\u{327}\u{301}", "ç", "ệ", "e\u{323}\u{302}",
        "ά", "Ά", "α", "й", "и\u{306}", "Ё", "е", "한", "ᄒ", "漢字", "\u{212B}", "å",
        "👨\u{200D}👩\u{200D}👧", "👍🏽", " a", "b ",
    ]

    static let stringIDs: [String] = [
        "a", "B", "x/y", "with space", "50%", "%2F", "ünï", "日本", "😀", "q\"uote", "back\\slash",
        "~0", "~1", "~2", "~3", "~5", "~7", "~10", "~01", "~", "42", "-7", "0", "",
    ]
    static let integerIDs: [Int64] = [42, -7, 0, 1, 2, 3, 5, 10, -1, Int64.max, Int64.min]

    static let dataValues: [String] = [
        "{}", "[]", "null", "1", "-2.5e3", "\"s\"", "true", "{\"k\": [1, 2, {\"z\":null}]}", "[\"\\u00e9é\"]",
        "{\"nested\":{\"a\":[[]]}}",
        // Records whose fields filters search and compare (`fieldPaths`).
        "{\"size\": 12, \"name\": \"item 2\", \"ok\": true}",
        "{\"size\": 3.5, \"name\": \"Item 10\", \"ok\": false, \"o\": {\"n\": \"café\"}}",
        "{\"size\": -4, \"name\": \"level 1\", \"o\": {\"n\": null}}",
        "{\"size\": \"12\", \"name\": \"ITEM 9\", \"a.b\": 1, \"o\": {\"n\": \"x\"}}",
        "{\"name\": \"caf\\u00e9\", \"size\": 1e2, \"o\": {\"n\": \"cafe\\u0301\"}}",
        "{\"size\": null, \"ok\": true, \"name\": [1], \"o\": 5}",
        "{\"size\": 0, \"name\": \"\", \"o\": {}, \"a.b\": \"item 1\"}",
        "{\"size\": \"-0.5e1\", \"name\": \"007\", \"ok\": null}",
        "{ \"o\" : { \"n\" : \"Level 2, item: 3\" } , \"size\" : 100 }",
    ]

    /// The data fields of the records in `dataValues`, and one no record has.
    static let fieldPaths: [FieldPath] = [["name"], ["size"], ["ok"], ["o", "n"], ["a.b"], ["o"], ["missing"]].map(FieldPath.init)

    /// A sort of one to three keys: the title or a data field, each ascending or descending.
    static func sortKeys(_ rng: inout SeededRandom) -> SortKeys {
        let fields = [NodeField.title] + fieldPaths.map(NodeField.data)
        var keys: [SortKeys.Key] = []
        for _ in 0 ..< rng.int(1 ... 3) {
            let field = rng.pick(fields)
            if !keys.contains(where: { $0.field == field }) { keys.append(SortKeys.Key(field, descending: rng.chance(0.5))) }
        }
        return SortKeys(keys)
    }

    /// A filter on data fields: a text searched in some of them (the title too, or not),
    /// conditions, or both.
    static func fieldFilter(_ rng: inout SeededRandom) -> FilterQuery {
        let dataFields = fieldPaths.map(NodeField.data)
        var fields: [NodeField] = rng.chance(0.5) ? [.title] : []
        for _ in 0 ..< rng.int(1 ... 2) {
            let field = rng.pick(dataFields)
            if !fields.contains(field) { fields.append(field) }
        }
        var conditions: [FieldCondition] = []
        if rng.chance(0.5) {
            for _ in 0 ..< rng.int(1 ... 2) {
                let operand: FieldCondition.Operand = switch rng.int(0 ... 3) {
                case 0: rng.chance(0.5) ? .null : .boolean(rng.chance(0.5))
                case 1: .number(rng.pick([0, 3.5, 12, -4, 100, -5]))
                default: .string(rng.pick(["item 2", "ITEM 10", "item 9", "x", "café", "Level 1", "", "12", "a,b"]))
                }
                conditions.append(FieldCondition(rng.pick(dataFields + [.title]), rng.pick(FieldCondition.Comparison.allCases), operand))
            }
        }
        let text = !conditions.isEmpty && rng.chance(0.4) ? "" : rng.pick(["item", "1", "2", "tru", "é", "E", "x", "Level", "al", "3.", "1e"])
        return FilterQuery(text, mode: rng.pick(FilterQuery.Mode.allCases), caseSensitive: rng.chance(0.3),
                           diacriticInsensitive: rng.chance(0.3), leavesOnly: rng.chance(0.2), fields: fields, conditions: conditions)
    }

    /// Sometimes reshapes a query text: drops its combining marks (NFD without the scalars
    /// of combining class ≠ 0) or adds one; for `words`, cuts it into words in another
    /// order (rarely: white space only); for `fuzzy`, drops scalars (a subsequence).
    static func vary(_ text: inout String, mode: FilterQuery.Mode, _ rng: inout SeededRandom) {
        if rng.chance(0.2) {
            var bare = String.UnicodeScalarView()
            bare.append(contentsOf: text.decomposedStringWithCanonicalMapping.unicodeScalars.filter {
                $0.properties.canonicalCombiningClass.rawValue == 0
            })
            text = String(bare)
        } else if rng.chance(0.1) {
            text += rng.pick(["\u{301}", "\u{308}"])
        }
        let scalars = Array(text.unicodeScalars)
        switch mode {
        case .words where rng.chance(0.05):
            text = rng.pick([" ", "\t ", "\u{3000}"])
        case .words where rng.chance(0.6) && scalars.count >= 2:
            let cut = rng.int(1 ... scalars.count - 1)
            var pieces = [scalars[..<cut], scalars[cut...]].map { String(String.UnicodeScalarView($0)) }
            pieces.shuffle(using: &rng)
            text = pieces.joined(separator: rng.pick([" ", "  ", "\t", "\u{A0}"]))
        case .fuzzy where rng.chance(0.6) && scalars.count >= 2:
            var kept = String.UnicodeScalarView()
            for s in scalars where rng.chance(0.6) { kept.append(s) }
            if !kept.isEmpty { text = String(kept) }
        default:
            break
        }
    }

    static func title(_ rng: inout SeededRandom) -> String {
        (0 ..< rng.int(0 ... 4)).map { _ in rng.pick(titlePieces) }.joined()
    }

    /// A random id whose string form is not in `used` (recorded there), or nil.
    /// `extraTilde` < 0: no ids of the form `~N`.
    static func id(_ rng: inout SeededRandom, used: inout Set<String>, extraTilde: Int) -> NodeID? {
        if rng.chance(0.45) { return nil }
        let candidate: NodeID
        switch rng.int(0 ... 9) {
        case 0 ... 3: candidate = .string(rng.pick(stringIDs))
        case 4: candidate = .string("~\(rng.int(0 ... abs(extraTilde)))")
        case 5, 6: candidate = .integer(rng.pick(integerIDs))
        case 7: candidate = .integer(Int64(rng.int(-1000 ... 1000)))
        default: candidate = .string("n\(rng.int(0 ... 100_000))")
        }
        if extraTilde < 0, case .string(let s) = candidate, isGeneratedForm(s) { return nil }
        guard !used.contains(candidate.description) else { return nil }
        used.insert(candidate.description)
        return candidate
    }

    /// Whether `s` looks like a generated id: `~` and a decimal number without leading zeros.
    static func isGeneratedForm(_ s: String) -> Bool {
        let digits = s.dropFirst()
        return s.first == "~" && !digits.isEmpty && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber)
            && (digits == "0" || digits.first != "0")
    }

    static func node(_ rng: inout SeededRandom, used: inout Set<String>, extraTilde: Int) -> GenNode {
        GenNode(id: id(&rng, used: &used, extraTilde: extraTilde), title: title(&rng),
                expanded: rng.chance(0.3) ? nil : rng.chance(0.5),
                hasChildren: rng.chance(0.75) ? nil : rng.chance(0.5),
                data: rng.chance(0.8) ? nil : rng.pick(dataValues),
                emptyChildren: rng.chance(0.05))
    }

    /// A random forest of `n` nodes in one of several shapes.
    static func forest(_ rng: inout SeededRandom, nodes n: Int, used: inout Set<String>, extraTilde: Int) -> [GenNode] {
        var parents: [Int?] = []
        let shape = rng.int(0 ... 4)
        for i in 0 ..< n {
            let parent: Int?
            switch shape {
            case 0:  // deep chain with the odd branch
                parent = i == 0 ? nil : rng.chance(0.85) ? i - 1 : rng.int(0 ... i - 1)
            case 1:  // wide and flat
                parent = i == 0 || rng.chance(0.8) ? nil : rng.int(0 ... i - 1)
            case 2:  // bushy: attach to a recent node
                parent = i == 0 || rng.chance(0.05) ? nil : rng.int(max(0, i - 6) ... i - 1)
            default:  // random recursive tree
                parent = i == 0 || rng.chance(0.1) ? nil : rng.int(0 ... i - 1)
            }
            parents.append(parent)
        }
        var nodes = (0 ..< n).map { _ in node(&rng, used: &used, extraTilde: extraTilde) }
        var childIndexes = [[Int]](repeating: [], count: n)
        var rootIndexes: [Int] = []
        for i in 0 ..< n {
            if let p = parents[i] { childIndexes[p].append(i) } else { rootIndexes.append(i) }
        }
        // Children index above their parent, so build bottom-up.
        for i in (0 ..< n).reversed() { nodes[i].children = childIndexes[i].map { nodes[$0] } }
        return rootIndexes.map { nodes[$0] }
    }

    /// A size: mostly small, sometimes up to 300 nodes.
    static func size(_ rng: inout SeededRandom) -> Int {
        switch rng.int(0 ... 39) {
        case 0, 1: return 0
        case 2, 3: return 1
        case 4 ... 29: return rng.int(2 ... 30)
        case 30 ... 37: return rng.int(30 ... 100)
        default: return rng.int(100 ... 300)
        }
    }

    // MARK: JSON

    static func json(_ nodes: [GenNode], _ rng: inout SeededRandom) -> String {
        var out = ""
        let bare = rng.chance(0.2)
        if !bare { out += "{\"nodes\":" + ws(&rng) }
        writeArray(nodes, &out, &rng)
        if !bare { out += ws(&rng) + "}" }
        return out
    }

    static func ws(_ rng: inout SeededRandom) -> String {
        rng.chance(0.85) ? "" : rng.pick([" ", "\n", "\t", "  ", "\r\n"])
    }

    static func writeArray(_ nodes: [GenNode], _ out: inout String, _ rng: inout SeededRandom) {
        out += "["
        for (i, n) in nodes.enumerated() {
            if i > 0 { out += "," + ws(&rng) }
            write(n, &out, &rng)
        }
        out += "]"
    }

    static func write(_ n: GenNode, _ out: inout String, _ rng: inout SeededRandom) {
        var members: [String] = []
        if let id = n.id {
            switch id {
            case .integer(let v): members.append("\"id\":" + integerSpelling(v))
            case .string(let s): members.append("\"id\":" + ws(&rng) + string(s, &rng))
            }
        }
        members.append("\"title\":" + ws(&rng) + string(n.title, &rng))
        if let e = n.expanded { members.append("\"expanded\":\(e)") }
        if let h = n.hasChildren { members.append("\"hasChildren\":\(h)") }
        if let d = n.data { members.append("\"data\":" + ws(&rng) + d) }
        if !n.children.isEmpty || n.emptyChildren {
            var c = "\"children\":"
            writeArray(n.children, &c, &rng)
            members.append(c)
        }
        members.shuffle(using: &rng)
        out += "{" + ws(&rng) + members.joined(separator: "," + ws(&rng)) + ws(&rng) + "}"
    }

    /// An integer id as a JSON number: mostly plain, sometimes with a fraction or an
    /// exponent (`7.0`, `70e-1`, `7E+0`), which is still the id 7. Chosen by the value,
    /// so the random sequence stays as it was.
    static func integerSpelling(_ v: Int64) -> String {
        switch v.magnitude % 7 {
        case 3: return "\(v).0"
        case 5: return "\(v)0e-1"
        case 6: return "\(v)E+0"
        default: return "\(v)"
        }
    }

    /// A JSON string literal, with some characters escaped at random.
    static func string(_ s: String, _ rng: inout SeededRandom) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += rng.chance(0.5) ? "\\t" : "\\u0009"
            case "/" where rng.chance(0.3): out += "\\/"
            default:
                if scalar.value < 0x20 || rng.chance(0.15) {
                    for unit in String(scalar).utf16 { out += "\\u" + hex4(unit, upper: rng.chance(0.5)) }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    static func hex4(_ v: UInt16, upper: Bool) -> String {
        let s = String(v, radix: 16, uppercase: upper)
        return String(repeating: "0", count: 4 - s.count) + s
    }
}
