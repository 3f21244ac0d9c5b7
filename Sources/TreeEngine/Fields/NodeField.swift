/// A field of a node: its title, or a member path into its `data`.
///
/// The text form is `title`, or `data.` and the member names joined by `.`, with `.`
/// and `\` in a name escaped by `\` (`{"a.b": 1}` is `data.a\.b`): what
/// `GET /sessions/{sid}/fields` lists and what filters and conditions name.
public enum NodeField: Hashable, Sendable, CustomStringConvertible {
    case title
    case data(FieldPath)

    public var description: String {
        switch self {
        case .title: "title"
        case .data(let path): path.description
        }
    }

    /// The data path, nil for the title.
    public var path: FieldPath? {
        if case .data(let path) = self { return path }
        return nil
    }
}

/// A member path into a node's `data` object: `["owner", "name"]` is `data.owner.name`.
public struct FieldPath: Hashable, Sendable, CustomStringConvertible {
    /// The member names, outermost first; never empty.
    public let members: [String]

    public init(_ members: [String]) {
        precondition(!members.isEmpty, "a data path names at least one member")
        self.members = members
    }

    /// `data.` and the members, `.` and `\` in them escaped by `\`.
    public var description: String {
        var text = "data"
        for member in members {
            text.append(".")
            for c in member.unicodeScalars {
                if c == "." || c == "\\" { text.append("\\") }
                text.unicodeScalars.append(c)
            }
        }
        return text
    }
}

/// What a node's field holds: the JSON type of its value, or that it has none.
public enum FieldKind: UInt8, Sendable, CaseIterable {
    /// The node has no data, its data is not an object, or a member on the path is absent.
    case missing
    case null
    case boolean
    case number
    case string
    /// An array or an object.
    case compound
}

/// Reads a field's value out of a node's `data` (a format's bytes: the engine keeps
/// `data` as it was given and knows nothing of its format).
public protocol NodeDataReader: Sendable {
    /// Calls `body` once with the value at `path` in `data`: its kind; its text (a
    /// string's decoded UTF-8, a number's text as written, `true` or `false`; empty for
    /// the other kinds); and a number's value (anything for the other kinds). Data that does not
    /// parse has every field `missing`.
    func read(_ path: FieldPath, in data: UnsafeRawBufferPointer,
              _ body: (FieldKind, UnsafeRawBufferPointer, Double) -> Void)
}
