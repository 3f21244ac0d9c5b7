import TreeEngine
import TreeFormats

/// The fields a tree's nodes carry, for a client to offer as columns: `title`, which every
/// node has, and each member path into the nodes' `data` (`data.size`, `data.owner.name`),
/// with how many nodes have it and of which JSON types its values are.
///
/// A path goes into objects, member by member, at most `maxDepth` members deep (a deeper
/// object is a value of type `object`); an array is a value of type `array` (its elements are
/// not fields); an empty object is a value of type `object`; `data` that is not an object is
/// the field `data` itself. A member name with `.` or `\` in it has them escaped with `\`
/// (`{"a.b": 1}` is `data.a\.b`), so that every path names one member. At most `maxFields`
/// distinct fields are counted; the others are left out and the list says it is truncated.
struct FieldStats: Sendable {
    /// The JSON types of a field's values, in the order they are listed.
    enum Kind: Int, CaseIterable, Sendable {
        case string, number, boolean, null, array, object

        var name: String {
            switch self {
            case .string: "string"
            case .number: "number"
            case .boolean: "boolean"
            case .null: "null"
            case .array: "array"
            case .object: "object"
            }
        }
    }

    /// How many nodes have a field, in all and by the type of its value.
    struct Counts: Sendable {
        var nodes = 0
        var byKind = [Int](repeating: 0, count: Kind.allCases.count)
    }

    static let maxFields = 1000
    static let maxDepth = 8

    /// The nodes of the tree.
    let nodes: Int
    /// The data fields counted, by path (`title` is not among them).
    private(set) var fields: [String: Counts] = [:]
    /// Whether more than `maxFields` distinct fields were seen.
    private(set) var truncated = false

    /// Counts the fields of every node of `forest`.
    /// - Complexity: O(nodes + data bytes)
    init(_ forest: Forest) {
        nodes = forest.count
        forest.forEachNode { node, _ in
            forest.withData(of: node) { bytes in
                // Stored data is valid JSON (it was checked when it came in).
                guard let bytes, let value = try? JSONValue.parse(bytes) else { return }
                add(value, path: "data", depth: 0)
            }
        }
    }

    private mutating func add(_ value: JSONValue, path: String, depth: Int) {
        let kind: Kind
        switch value {
        case .object(let members) where !members.isEmpty && depth < FieldStats.maxDepth:
            for (name, member) in members { add(member, path: path + "." + FieldStats.escaped(name), depth: depth + 1) }
            return
        case .object: kind = .object
        case .array: kind = .array
        case .string: kind = .string
        case .number: kind = .number
        case .bool: kind = .boolean
        case .null: kind = .null
        }
        if fields[path] == nil && fields.count >= FieldStats.maxFields {
            truncated = true
            return
        }
        fields[path, default: Counts()].nodes += 1
        fields[path]!.byKind[kind.rawValue] += 1
    }

    /// A member name as a path segment: `\` and `.` escaped with `\`.
    static func escaped(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "\\") }) else { return name }
        var out = ""
        for c in name {
            if c == "." || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out
    }

    /// Every field, `title` first, then the data fields in the byte order of their paths.
    var listed: [(field: String, counts: Counts)] {
        var title = Counts(nodes: nodes)
        title.byKind[Kind.string.rawValue] = nodes
        let data = fields.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { (field: $0.key, counts: $0.value) }
        return [(field: "title", counts: title)] + data
    }
}
