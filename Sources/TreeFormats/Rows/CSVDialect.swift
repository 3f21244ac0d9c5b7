/// How a CSV body is written: the byte between its fields, and what its header calls the
/// columns the reader knows (`id`, `parentId`, `title`, `expanded`, `hasChildren`, `data`).
public struct CSVDialect: Sendable, Equatable {
    /// The column roles, as the header names them by default.
    public static let roles = ["id", "parentId", "title", "expanded", "hasChildren", "data"]
    /// The delimiters a body may use.
    public static let delimiters: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09, UInt8(ascii: "|")]

    /// `,` `;` TAB or `|`; nil: the header row's first `,` `;` or TAB outside quotes (a
    /// comma when it has none).
    public var delimiter: UInt8?
    /// The header's name of a role's column (`["parentId": "Parent"]`), matched exactly; a
    /// role not named here takes the header's column of its own name in any letter case.
    public var columns: [String: String]

    /// - Precondition: `delimiter` is one of `delimiters`; `columns`' keys are roles, and
    ///   no two name the same column.
    public init(delimiter: UInt8? = nil, columns: [String: String] = [:]) {
        precondition(delimiter.map(CSVDialect.delimiters.contains) ?? true, "a CSV delimiter is , ; TAB or |")
        precondition(columns.keys.allSatisfy(CSVDialect.roles.contains) && Set(columns.values).count == columns.count,
                     "CSV columns map roles to distinct names")
        self.delimiter = delimiter
        self.columns = columns
    }

    /// Why `delimiter` and `columns` cannot make a dialect, or nil when they can.
    public static func problem(delimiter: UInt8?, columns: [String: String]) -> String? {
        if let delimiter, !delimiters.contains(delimiter) { return "the delimiter must be , ; TAB or |" }
        if let role = columns.keys.sorted().first(where: { !roles.contains($0) }) {
            return "\"\(role)\" is not a column role (\(roles.joined(separator: ", ")))"
        }
        if Set(columns.values).count < columns.count { return "two roles name the same column" }
        if columns.values.contains("") { return "a column name is empty" }
        return nil
    }
}
