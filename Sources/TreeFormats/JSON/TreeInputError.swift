/// A request body that could not be accepted, in any format: malformed (JSON, CSV, a path
/// list), or well-formed but breaking the upload rules. Each reader finds its errors as its
/// own `ReaderError` and makes them this once their place is known.
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

/// An error a reader throws before its place (line, column, path) is worked out: cheap to
/// make. Each format has its own: `JSONScanError` for the JSON formats (nested nodes, any
/// document, NDJSON), `CSVError` for CSV; a path list's reader makes `TreeInputError`s
/// where it finds them.
protocol ReaderError: Error {
    var kind: TreeInputError.Kind { get }
    var message: String { get }
    /// The offending byte's offset in the body.
    var offset: Int { get }
    init(_ kind: TreeInputError.Kind, _ message: String, at offset: Int)
}

extension ReaderError {
    static func syntax(_ message: String, at offset: Int) -> Self { Self(.syntax, message, at: offset) }
    static func rule(_ message: String, at offset: Int) -> Self { Self(.rule, message, at: offset) }
    static func limit(_ message: String, at offset: Int) -> Self { Self(.limit, message, at: offset) }
}

/// The error the JSON scanner and the JSON readers throw internally: no path and no line
/// yet. `NodesDocumentParser`, `JSONValue.parse`, `DocumentReader` and `NDJSONReader` turn
/// it into a `TreeInputError`.
struct JSONScanError: ReaderError {
    var kind: TreeInputError.Kind
    var message: String
    var offset: Int
    /// Set when the thrower already knows the full path below its caller's prefix.
    var path: JSONPointer?

    init(_ kind: TreeInputError.Kind, _ message: String, at offset: Int) {
        self.kind = kind
        self.message = message
        self.offset = offset
    }
}
