import TreeEngine

/// The forms a tree travels in. The service picks one from `Content-Type` (or the
/// `format` query parameter) for an upload, and from `Accept` for an export.
public enum TreeFormat: Sendable, Equatable {
    /// Nested JSON nodes, `{"nodes": [...]}` or a bare array (`application/json`).
    case nodes
    /// Any JSON document: every member and element becomes a node (`?format=document`).
    case document
    /// Adjacency rows in CSV with a header: `id`, `parentId`, `title`, … (`text/csv`), in
    /// a dialect (its delimiter, its names of the columns; exports write the default).
    case csv(CSVDialect)
    /// Adjacency rows, one JSON object a line (`application/x-ndjson`).
    case ndjson
    /// One path a line, names split at `separator` (`text/plain`).
    case paths(separator: String)

    /// The separator of a path list when none is given.
    public static let defaultSeparator = "/"
}

/// Nodes to insert that hang under one place: `parent`, an existing node (nil for the top
/// level), gets `fragment`'s roots as its last children. A row upload whose rows name
/// several existing parents gives one group per parent, in the order the parents first
/// appear in the body.
public struct FragmentGroup: Sendable {
    public var parent: NodeHandle?
    public var fragment: Forest

    public init(parent: NodeHandle?, fragment: Forest) {
        self.parent = parent
        self.fragment = fragment
    }
}
