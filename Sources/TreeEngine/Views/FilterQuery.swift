/// What a filtered view matches titles against.
///
/// Titles and the query text are compared as sequences of Unicode scalars after
/// *folding*, scalar by scalar (see `TitleMatcher`):
/// - case-insensitive (the default): each scalar is replaced by its lowercase mapping
///   (Swift's full Unicode lowercase mapping, as `String.lowercased()` does);
/// - `diacriticInsensitive`: then each scalar is replaced by its canonical
///   decomposition (NFD) without the scalars whose canonical combining class is not 0
///   (the combining marks), so "Café", "cafe\u{301}" and "cafe" fold alike.
/// Without `diacriticInsensitive` there is no normalization: "é" precomposed and
/// "e" + U+0301 differ.
public struct FilterQuery: Hashable, Sendable, CustomStringConvertible {
    public enum Mode: String, Sendable, CaseIterable {
        /// The title contains the text.
        case contains
        /// The title starts with the text.
        case prefix
        /// The title is the text.
        case exact
        /// The title contains every word of the text (split at White_Space scalars), in any order.
        case words
        /// The text's scalars occur in the title in order, not necessarily next to each other.
        case fuzzy
    }

    public var text: String
    public var mode: Mode
    public var caseSensitive: Bool
    /// Combining marks are ignored (canonical decomposition, combining class ≠ 0 dropped).
    public var diacriticInsensitive: Bool
    /// Only nodes without children (`hasChildren` false: no child nodes and not uploaded
    /// with `hasChildren: true`) can match; their ancestors are kept as usual.
    public var leavesOnly: Bool
    /// The fields the text is searched in: a node matches when any of them does. Not
    /// empty; `[.title]` by default.
    public var fields: [NodeField]
    /// Conditions a match satisfies besides the text, every one of them.
    public var conditions: [FieldCondition]

    /// A query; `text` may be empty only with conditions (the empty filter is the
    /// unfiltered view); `fields` must not be empty, and are the title alone without a text
    /// (they say where a text is searched).
    public init(_ text: String, mode: Mode = .contains, caseSensitive: Bool = false,
                diacriticInsensitive: Bool = false, leavesOnly: Bool = false,
                fields: [NodeField] = [.title], conditions: [FieldCondition] = []) {
        precondition(!text.isEmpty || !conditions.isEmpty, "the empty filter is the unfiltered view")
        precondition(!fields.isEmpty, "a text is searched in at least one field")
        self.text = text
        self.mode = mode
        self.caseSensitive = caseSensitive
        self.diacriticInsensitive = diacriticInsensitive
        self.leavesOnly = leavesOnly
        self.fields = text.isEmpty ? [.title] : fields
        self.conditions = conditions
    }

    /// Whether the query only matches titles against its text, as every query did before
    /// fields and conditions.
    public var isTitleOnly: Bool { conditions.isEmpty && fields == [.title] }

    /// The data paths its fields and conditions read: the field columns it needs.
    public var dataPaths: Set<FieldPath> { Set(fields.compactMap(\.path) + conditions.compactMap(\.field.path)) }

    /// `contains(any case): text`, with `, no diacritics` and `, leaves only` when set, the
    /// fields when not the title alone, and the conditions.
    public var description: String {
        "\(mode.rawValue)(\(caseSensitive ? "case-sensitive" : "any case")\(diacriticInsensitive ? ", no diacritics" : "")"
            + "\(leavesOnly ? ", leaves only" : "")"
            + "\(fields == [.title] ? "" : ", in " + fields.map(\.description).joined(separator: ","))"
            + "\(conditions.isEmpty ? "" : ", where " + conditions.map(\.description).joined(separator: ","))): \(text)"
    }

    /// Queries are equal when all their options are and their texts have the same
    /// Unicode scalars, not merely canonically equivalent ones: "é" and "e\u{301}" are
    /// different filters (even where they match the same titles).
    public static func == (a: FilterQuery, b: FilterQuery) -> Bool {
        a.mode == b.mode && a.caseSensitive == b.caseSensitive && a.diacriticInsensitive == b.diacriticInsensitive
            && a.leavesOnly == b.leavesOnly && a.text.utf8.elementsEqual(b.text.utf8)
            && a.fields == b.fields && a.conditions == b.conditions
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(mode)
        hasher.combine(caseSensitive)
        hasher.combine(diacriticInsensitive)
        hasher.combine(leavesOnly)
        hasher.combine(fields)
        hasher.combine(conditions)
        for byte in text.utf8 { hasher.combine(byte) }
    }
}
