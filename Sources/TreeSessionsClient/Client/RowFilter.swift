/// Which rows of a view a request names: its unfiltered rows (`RowFilter()`, no text and no
/// conditions), or its filtered rows for a text with the matching options, the fields searched
/// and conditions on fields (docs/API.md, "Filtered rows" and "Search in data fields"). Each
/// combination names its own filtered rows, with an expansion of their own.
public struct RowFilter: Sendable, Hashable {
    /// The text (`filter`); nil or empty with no `conditions`: the unfiltered rows.
    public var text: String?
    public var match: MatchMode?
    public var caseSensitive: Bool?
    public var diacritics: Diacritics?
    public var leavesOnly: Bool?
    /// `fields`: where the text is searched, e.g. `title,data.shell`.
    public var fields: String?
    /// `where`: conditions on fields, e.g. `data.size>1000000`.
    public var conditions: String?

    /// How `diacritics` compares: scalars as they are, or without combining marks.
    public enum Diacritics: String, Sendable, Hashable {
        case sensitive, insensitive
    }

    public init(_ text: String? = nil, match: MatchMode? = nil, caseSensitive: Bool? = nil,
                diacritics: Diacritics? = nil, leavesOnly: Bool? = nil, fields: String? = nil,
                conditions: String? = nil) {
        self.text = text
        self.match = match
        self.caseSensitive = caseSensitive
        self.diacritics = diacritics
        self.leavesOnly = leavesOnly
        self.fields = fields
        self.conditions = conditions
    }

    /// The unfiltered rows.
    public static let unfiltered = RowFilter()

    /// Whether this names filtered rows (a text or conditions).
    public var isFiltered: Bool { !(text ?? "").isEmpty || conditions != nil }

    /// The query parameters, nil for those not given.
    var queryItems: [(String, String?)] {
        [("filter", text.flatMap { $0.isEmpty && conditions == nil ? nil : $0 }),
         ("match", match?.rawValue),
         ("caseSensitive", caseSensitive.map { $0 ? "true" : "false" }),
         ("diacritics", diacritics?.rawValue),
         ("leavesOnly", leavesOnly.map { $0 ? "true" : "false" }),
         ("fields", fields),
         ("where", conditions)]
    }
}
