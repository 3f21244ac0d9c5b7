import TreeEngine
import TreeFormats

/// The fields a tree's nodes carry, for a client to offer as columns: `title`, which every
/// node has, and each member path into the nodes' `data` (`data.size`, `data.owner.name`),
/// with how many nodes have it and of which JSON types its values are.
///
/// The paths are `JSONLeaves`': into objects, member by member, at most `maxDepth` members
/// deep; an array, an empty object and a deeper object are values of type `array` and
/// `object`; `data` that is not an object is the field `data` itself; `.` and `\` in a member
/// name are escaped with `\` (`{"a.b": 1}` is `data.a\.b`). At most `maxFields` distinct
/// fields are counted; the others are left out and the list says it is truncated.
struct FieldStats: Sendable {
    typealias Kind = JSONLeafKind

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
                guard let bytes else { return }
                try? JSONLeaves.forEach(in: bytes, prefix: "data", maxDepth: FieldStats.maxDepth) { path, kind in
                    add(String(decoding: path, as: UTF8.self), kind)
                }
            }
        }
    }

    private mutating func add(_ path: String, _ kind: Kind) {
        if let i = fields.index(forKey: path) {
            fields.values[i].nodes += 1
            fields.values[i].byKind[kind.rawValue] += 1
        } else if fields.count < FieldStats.maxFields {
            var counts = Counts(nodes: 1)
            counts.byKind[kind.rawValue] = 1
            fields[path] = counts
        } else {
            truncated = true
        }
    }

    /// Every field, `title` first, then the data fields in the byte order of their paths.
    var listed: [(field: String, counts: Counts)] {
        var title = Counts(nodes: nodes)
        title.byKind[Kind.string.rawValue] = nodes
        let data = fields.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { (field: $0.key, counts: $0.value) }
        return [(field: "title", counts: title)] + data
    }
}

extension JSONLeafKind {
    /// The type's name in `GET …/fields`.
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
