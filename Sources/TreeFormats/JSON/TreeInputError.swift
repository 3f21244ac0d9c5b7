/// A request body that could not be accepted: malformed JSON, or valid JSON that
/// breaks the upload rules.
///
/// The location (`byteOffset`, `line`, `column`) and `path` are computed once, when
/// the error is thrown; a successful parse never pays for them.
public struct TreeInputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, broadly; decides the HTTP status.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// The body is not well-formed JSON (RFC 8259), or is not valid UTF-8.
        /// The service answers `400 Bad Request`.
        case syntax
        /// The body is well-formed JSON but breaks a rule of the upload format
        /// (missing or non-string `title`, bad `id`, unknown or duplicate key, duplicate
        /// id, a limit such as nesting depth). The service answers `422 Unprocessable Content`.
        case rule
        /// The body is valid but would make the forest larger than the configured
        /// `ForestLimits.maxNodes`. The service answers `429`.
        case limit

        public var description: String {
            switch self {
            case .syntax: "syntax"
            case .rule: "rule"
            case .limit: "limit"
            }
        }
    }

    /// Syntax or rule.
    public var kind: Kind
    /// A sentence in plain English, e.g. `expected ',' or '}' after object member`.
    public var message: String
    /// Offset of the offending byte from the start of the body (0-based).
    public var byteOffset: Int
    /// 1-based line of `byteOffset` (lines end at LF).
    public var line: Int
    /// 1-based column of `byteOffset`, counted in bytes from the start of its line.
    public var column: Int
    /// A JSON Pointer (RFC 6901) to the offending value or node, e.g.
    /// `/nodes/3/children/0/title`; empty for the whole document.
    public var path: String

    /// Creates an error with every field given.
    public init(kind: Kind, message: String, byteOffset: Int, line: Int, column: Int, path: String) {
        self.kind = kind
        self.message = message
        self.byteOffset = byteOffset
        self.line = line
        self.column = column
        self.path = path
    }

    /// Creates an error, computing `line` and `column` from `byteOffset` in `document`.
    ///
    /// - Complexity: O(`byteOffset`).
    init(kind: Kind, message: String, byteOffset: Int, path: JSONPointer, in document: UnsafeRawBufferPointer) {
        let location = Self.lineAndColumn(of: byteOffset, in: document)
        self.init(kind: kind, message: message, byteOffset: byteOffset,
                  line: location.line, column: location.column, path: path.text)
    }

    /// The 1-based line and byte column of `offset` in `document` (lines end at LF).
    ///
    /// - Complexity: O(`offset`).
    static func lineAndColumn(of offset: Int, in document: UnsafeRawBufferPointer) -> (line: Int, column: Int) {
        let limit = min(max(offset, 0), document.count)
        var line = 1
        var lineStart = 0
        var index = 0
        while index < limit {
            if document[index] == UInt8(ascii: "\n") {
                line += 1
                lineStart = index + 1
            }
            index += 1
        }
        return (line, offset - lineStart + 1)
    }

    public var description: String {
        let location = path.isEmpty ? "the document" : path
        return "\(kind) error at line \(line), column \(column) (byte \(byteOffset)), in \(location): \(message)"
    }
}

/// The error the scanners throw internally: cheap to make, no path and no line yet.
/// `NodesDocumentParser` and `JSONValue.parse` turn it into a `TreeInputError`.
struct JSONScanError: Error {
    var kind: TreeInputError.Kind
    var message: String
    var offset: Int
    /// Set when the thrower already knows the full path below its caller's prefix.
    var path: JSONPointer?

    init(_ kind: TreeInputError.Kind, _ message: String, at offset: Int, path: JSONPointer? = nil) {
        self.kind = kind
        self.message = message
        self.offset = offset
        self.path = path
    }

    static func syntax(_ message: String, at offset: Int) -> JSONScanError {
        JSONScanError(.syntax, message, at: offset)
    }

    static func rule(_ message: String, at offset: Int) -> JSONScanError {
        JSONScanError(.rule, message, at: offset)
    }

    static func limit(_ message: String, at offset: Int) -> JSONScanError {
        JSONScanError(.limit, message, at: offset)
    }
}
