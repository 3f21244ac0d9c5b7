/// Receives the nodes of an upload document in pre-order, as the parser reads them.
///
/// The parser calls `beginNode()` when a node object opens and `endNode()` when it
/// closes; every call in between that is not inside a nested node describes the
/// innermost open node. Members may come in any order (`children` before `title`),
/// so a sink keeps a stack of open nodes. The parser checks shapes and types
/// (title present and a string, id a string or an integer, flags booleans, no
/// duplicate or unknown keys); the sink checks what needs the whole forest, such as
/// id uniqueness, and throws `NodeSinkError` which the parser turns into a
/// `TreeInputError` carrying the byte offset and JSON path.
///
/// Byte buffers passed to the sink are valid only during the call.
protocol NodeSink {
    /// A node object begins.
    mutating func beginNode() throws(NodeSinkError)
    /// The node's title, as decoded UTF-8 (escapes resolved, validated).
    mutating func setTitle(_ utf8: UnsafeRawBufferPointer) throws(NodeSinkError)
    /// The node's id given as a JSON string, decoded UTF-8.
    mutating func setStringID(_ utf8: UnsafeRawBufferPointer) throws(NodeSinkError)
    /// The node's id given as a JSON integer (no fraction, no exponent, fits Int64).
    mutating func setIntegerID(_ value: Int64) throws(NodeSinkError)
    /// `expanded`.
    mutating func setExpanded(_ flag: Bool)
    /// `hasChildren`.
    mutating func setHasChildren(_ flag: Bool)
    /// `data`: the raw bytes of one valid JSON value, exactly as uploaded (no surrounding whitespace).
    mutating func setData(_ rawJSON: UnsafeRawBufferPointer) throws(NodeSinkError)
    /// The node object closed (its title was seen; its children were all delivered).
    mutating func endNode() throws(NodeSinkError)
}

/// A rule the sink enforces that the parser cannot see by itself.
struct NodeSinkError: Error, Equatable {
    enum Kind: Equatable {
        /// The id's string form is already used in the session or earlier in this document.
        case duplicateID(String)
        /// A configured limit was reached (node count, depth, bytes).
        case limitExceeded(String)
    }
    var kind: Kind
}
