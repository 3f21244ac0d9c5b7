/// Receives the nodes of a document in pre-order, as a format reader reads them;
/// `ForestBuilder` is the sink that builds a forest.
///
/// The reader calls `beginNode()` when a node opens and `endNode()` when it closes;
/// every call in between that is not inside a nested node describes the innermost
/// open node. Members may come in any order (children before the title), so a sink
/// keeps a stack of open nodes. The reader checks shapes and types (a title present,
/// an id a string or an integer, flags booleans); the sink checks what needs the whole
/// forest, such as id uniqueness, and throws `NodeSinkError`, which the reader turns
/// into its own error with the place in the document.
///
/// Byte buffers passed to the sink are valid only during the call.
public protocol NodeSink {
    /// A node begins.
    mutating func beginNode() throws(NodeSinkError)
    /// The node's title, as UTF-8 (already decoded and validated).
    mutating func setTitle(_ utf8: UnsafeRawBufferPointer) throws(NodeSinkError)
    /// The node's id given as a string, UTF-8.
    mutating func setStringID(_ utf8: UnsafeRawBufferPointer) throws(NodeSinkError)
    /// The node's id given as an integer.
    mutating func setIntegerID(_ value: Int64) throws(NodeSinkError)
    /// The node's id given as a string, UTF-8, that is its parent's id, a separator and
    /// a last segment of `segmentCount` bytes (see `ForestBuilder.deriveIDs`): a sink may
    /// store only the segment.
    mutating func setDerivedID(_ utf8: UnsafeRawBufferPointer, segmentCount: Int) throws(NodeSinkError)
    /// Whether the node is expanded in the unfiltered view.
    mutating func setExpanded(_ flag: Bool)
    /// Whether the node declares children that are not loaded yet.
    mutating func setHasChildren(_ flag: Bool)
    /// The node's `data`: the raw bytes of one valid JSON value, kept exactly as given.
    mutating func setData(_ rawJSON: UnsafeRawBufferPointer) throws(NodeSinkError)
    /// The node closed (its title was given; its children were all delivered).
    mutating func endNode()
}

extension NodeSink {
    /// Stores the whole id.
    public mutating func setDerivedID(_ utf8: UnsafeRawBufferPointer, segmentCount: Int) throws(NodeSinkError) {
        try setStringID(utf8)
    }
}

/// A rule the sink enforces that the reader cannot see by itself.
public struct NodeSinkError: Error, Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// The id's string form is already used in the forest or earlier in this document.
        case duplicateID(String)
        /// A configured limit was reached (node count, depth, bytes).
        case limitExceeded(String)
        /// An id given longer than `ForestLimits.maxIDBytes`.
        case idTooLong(bytes: Int, limit: Int)
    }
    public var kind: Kind

    public init(kind: Kind) { self.kind = kind }

    /// What a reader says of an id over the limit.
    public static func idTooLongMessage(bytes: Int, limit: Int) -> String {
        "an id of \(bytes) bytes: ids are at most \(limit) bytes"
    }
}
