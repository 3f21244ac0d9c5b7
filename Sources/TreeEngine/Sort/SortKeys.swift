/// The order of siblings a sort gives (issue 37): keys, each a field ascending or
/// descending, the first that differs deciding; siblings equal by every key keep their
/// order in the tree. A sort never moves a node to another parent.
///
/// How values order, ascending (`descending` reverses it, but for the last class):
/// numbers by value (a string written as a JSON number is a number, as CSV columns give
/// them), then strings in natural order ("item 2" before "item 10") after lowercasing as
/// filters fold titles, then `false`, `true`, then arrays and objects (equal to each other);
/// `null` and a field the node lacks come last in both directions. A title is a string.
public struct SortKeys: Hashable, Sendable, CustomStringConvertible {
    public struct Key: Hashable, Sendable, CustomStringConvertible {
        public let field: NodeField
        public let descending: Bool
        public init(_ field: NodeField, descending: Bool = false) {
            self.field = field
            self.descending = descending
        }
        /// `-data.size`, `title`.
        public var description: String { (descending ? "-" : "") + field.description }
    }

    public let keys: [Key]

    /// A sort by `keys`, at least one.
    public init(_ keys: [Key]) {
        precondition(!keys.isEmpty, "a sort has a key")
        self.keys = keys
    }

    /// The data fields the keys read.
    public var dataPaths: [FieldPath] {
        keys.compactMap { if case .data(let path) = $0.field { path } else { nil } }
    }

    /// The keys as `sort=` writes them: `-data.size,title`.
    public var description: String { keys.map(\.description).joined(separator: ",") }
}
