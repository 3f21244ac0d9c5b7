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

extension FieldKind {
    /// The number a value of this kind compares as: a number's own (`reported` by the
    /// reader), a string's when it is written as a JSON number (CSV columns give numbers as
    /// strings), NaN for any other value.
    @inline(__always)
    func number(_ text: UnsafeRawBufferPointer, reported: Double) -> Double {
        switch self {
        case .number: reported
        case .string: NumberText.value(text) ?? .nan
        default: .nan
        }
    }
}

/// Numbers written as text.
public enum NumberText {
    /// The value of `text` when it is a number as JSON writes it
    /// (`-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`), else nil.
    /// - Complexity: O(length)
    public static func value(_ text: UnsafeRawBufferPointer) -> Double? {
        var i = 0
        let n = text.count
        func digits() -> Int {
            let start = i
            while i < n && text[i] &- 48 < 10 { i += 1 }
            return i - start
        }
        if i < n && text[i] == UInt8(ascii: "-") { i += 1 }
        if i < n && text[i] == UInt8(ascii: "0") { i += 1 } else if digits() == 0 { return nil }
        if i < n && text[i] == UInt8(ascii: ".") { i += 1; if digits() == 0 { return nil } }
        if i < n && text[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < n && (text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-")) { i += 1 }
            if digits() == 0 { return nil }
        }
        guard i == n else { return nil }
        return Double(String(decoding: text, as: UTF8.self))
    }
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
