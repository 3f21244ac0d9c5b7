import HTTP1
import TreeEngine
import TreeFormats

/// Every problem `type` the service answers with (its own, and those of the HTTP layer
/// rendered by `Problem.httpErrorRenderer`): the slug of `urn:treesessions:problem:<slug>`,
/// with its status and title. `openapi.yaml` lists them all (a test checks it).
enum ProblemType: String, CaseIterable, Sendable {
    case malformedHTTP = "malformed-http"
    case malformedJSON = "malformed-json"
    case malformedBody = "malformed-body"
    case badQueryParameter = "bad-query-parameter"
    case unauthorized = "unauthorized"
    case forbidden = "forbidden"
    case notFound = "not-found"
    case methodNotAllowed = "method-not-allowed"
    case notAcceptable = "not-acceptable"
    case requestTimeout = "request-timeout"
    case cycle = "cycle"
    case filterSuperseded = "filter-superseded"
    case versionMismatch = "version-mismatch"
    case bodyTooLarge = "body-too-large"
    case tooManyOperations = "too-many-operations"
    case uriTooLong = "uri-too-long"
    case unsupportedMediaType = "unsupported-media-type"
    case expectationFailed = "expectation-failed"
    case invalidNode = "invalid-node"
    case tooManySessions = "too-many-sessions"
    case tooManyNodes = "too-many-nodes"
    case tooManyStreams = "too-many-streams"
    case tooManyViews = "too-many-views"
    case headersTooLarge = "headers-too-large"
    case internalError = "internal-error"
    case notImplemented = "not-implemented"
    case unavailable = "unavailable"
    case nodeBudgetExhausted = "node-budget-exhausted"
    case httpVersionNotSupported = "http-version-not-supported"
    case insufficientStorage = "insufficient-storage"
    case changeNotDurable = "change-not-durable"
    case sessionQuarantined = "session-quarantined"
    case sessionUnreadable = "session-unreadable"
    case storageError = "storage-error"

    /// The HTTP status a problem of this type is answered with.
    var status: Int {
        switch self {
        case .malformedHTTP, .malformedJSON, .malformedBody, .badQueryParameter: 400
        case .unauthorized: 401
        case .forbidden: 403
        case .notFound: 404
        case .methodNotAllowed: 405
        case .notAcceptable: 406
        case .requestTimeout: 408
        case .cycle, .filterSuperseded: 409
        case .versionMismatch: 412
        case .bodyTooLarge, .tooManyOperations: 413
        case .uriTooLong: 414
        case .unsupportedMediaType: 415
        case .expectationFailed: 417
        case .invalidNode: 422
        case .tooManySessions, .tooManyNodes, .tooManyStreams, .tooManyViews: 429
        case .headersTooLarge: 431
        case .sessionQuarantined: 410
        case .internalError, .storageError: 500
        case .notImplemented: 501
        case .unavailable, .nodeBudgetExhausted, .sessionUnreadable: 503
        case .httpVersionNotSupported: 505
        case .insufficientStorage, .changeNotDurable: 507
        }
    }

    /// The problem document's `title`: the status's reason phrase.
    var title: String { HTTPStatus.reasonPhrase(status) }

    /// The problem document's `type`.
    var uri: String { "urn:treesessions:problem:\(rawValue)" }

    /// The type of an error the HTTP layer answers by itself, from its status: one of
    /// `HTTPParserError.allStatuses`, or 500 for a response it could not serialize (a test
    /// checks that every status of that list has a type of its own); any other status is a
    /// fault of the server.
    init(httpLayerStatus status: Int) {
        switch status {
        case 400: self = .malformedHTTP
        case 408: self = .requestTimeout
        case 413: self = .bodyTooLarge
        case 414: self = .uriTooLong
        case 417: self = .expectationFailed
        case 431: self = .headersTooLarge
        case 501: self = .notImplemented
        case 503: self = .unavailable
        case 505: self = .httpVersionNotSupported
        default: self = .internalError
        }
    }
}

/// An error a handler throws; one place renders it as `application/problem+json`
/// (RFC 9457).
struct ServiceError: Error, Sendable {
    var type: ProblemType
    var detail: String
    /// A JSON Pointer into the request body, or a byte offset, where it helps.
    var pointer: String? = nil
    var byteOffset: Int? = nil
    /// The 1-based line and byte column of `byteOffset`, for a body error.
    var line: Int? = nil
    var column: Int? = nil
    var headers: [(String, String)] = []

    /// The response status, the type's.
    var status: Int { type.status }

    static func badQueryParameter(_ detail: String) -> ServiceError { ServiceError(.badQueryParameter, detail: detail) }
    static func notFound(_ detail: String) -> ServiceError { ServiceError(.notFound, detail: detail) }
    /// A 422 about the body as a whole.
    static func unprocessable(_ detail: String) -> ServiceError {
        ServiceError(.invalidNode, detail: detail, pointer: JSONPointer().text)
    }
    /// A 422 about one member of the body object; its pointer is the escaped key.
    static func unprocessable(_ detail: String, member key: String) -> ServiceError {
        var pointer = JSONPointer()
        pointer.append(key: key)
        return ServiceError(.invalidNode, detail: detail, pointer: pointer.text)
    }

    /// A body error from TreeFormats' readers: syntax → 400, rule → 422, limit → 429, with
    /// its place (line, column, byte, and the pointer in JSON formats). A syntax error of a
    /// JSON format is `malformed-json`, of CSV or a path list `malformed-body`.
    init(_ error: TreeInputError, format: TreeFormat = .nodes) {
        let place = "line \(error.line), column \(error.column), byte \(error.byteOffset)"
        let pointer = error.path.isEmpty ? nil : error.path
        switch error.kind {
        case .syntax:
            let json = switch format { case .csv, .paths: false; default: true }
            self.init(json ? .malformedJSON : .malformedBody, detail: "\(error.message) (\(place))",
                      pointer: pointer, byteOffset: error.byteOffset)
        case .limit:
            self.init(.tooManyNodes, detail: "\(error.message): this server's limit per session",
                      pointer: error.path, byteOffset: error.byteOffset)
        case .rule:
            self.init(.invalidNode, detail: pointer.map { "\(error.message) at \($0) (\(place))" } ?? "\(error.message) (\(place))",
                      pointer: error.path, byteOffset: error.byteOffset)
        }
        line = error.line
        column = error.column
    }

    /// An edit the engine refused: a move into the node's own subtree → 409, an index
    /// past the end → 422, more nodes than allowed → 429.
    init(_ error: EditError) {
        switch error.kind {
        case .cycle: self.init(.cycle, detail: error.message)
        case .indexOutOfRange: self = .unprocessable(error.message, member: "index")
        case .tooManyNodes: self.init(.tooManyNodes, detail: "\(error.message): this server's limit per session")
        }
    }

    init(_ type: ProblemType, detail: String, pointer: String? = nil, byteOffset: Int? = nil, headers: [(String, String)] = []) {
        self.type = type
        self.detail = detail
        self.pointer = pointer
        self.byteOffset = byteOffset
        self.headers = headers
    }

    /// The problem document.
    var body: [UInt8] {
        Problem.render(type, status: status, detail: detail, pointer: pointer, byteOffset: byteOffset, line: line, column: column)
    }

    /// The response.
    func response(logTag: String?) -> HTTPResponse {
        var headers = HTTPHeaders([("Content-Type", Problem.contentType)])
        for (name, value) in self.headers { headers.add(name: name, value: value) }
        return HTTPResponse(status: status, headers: headers, body: .bytes(body), logTag: logTag)
    }
}

/// Renders problem documents; also the HTTP layer's error renderer.
enum Problem {
    static let contentType = "application/problem+json"

    /// `status` is the type's, except for an error of the HTTP layer that has no type of its own.
    static func render(_ type: ProblemType, status: Int, detail: String, pointer: String? = nil, byteOffset: Int? = nil,
                       line: Int? = nil, column: Int? = nil) -> [UInt8] {
        var out = JSONWriter(reservingCapacity: 256)
        out.raw("{\"type\":")
        out.string(type.uri)
        out.raw(",\"title\":")
        out.string(HTTPStatus.reasonPhrase(status))
        out.raw(",\"status\":")
        out.int(status)
        out.raw(",\"detail\":")
        out.string(detail)
        if let pointer {
            out.raw(",\"pointer\":")
            out.string(pointer)
        }
        if let byteOffset {
            out.raw(",\"byteOffset\":")
            out.int(byteOffset)
        }
        if let line, let column {
            out.raw(",\"line\":")
            out.int(line)
            out.raw(",\"column\":")
            out.int(column)
        }
        out.raw("}")
        return out.bytes
    }

    /// For `HTTPServerConfiguration.errorRenderer`: errors the HTTP layer answers itself.
    static let httpErrorRenderer: @Sendable (Int, String, String) -> (contentType: String, body: [UInt8]) = { status, _, detail in
        (contentType, render(ProblemType(httpLayerStatus: status), status: status, detail: detail))
    }
}
