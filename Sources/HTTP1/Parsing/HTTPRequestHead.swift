/// How the body of a request is delimited (RFC 9112 §6.3).
enum BodyFraming: Hashable, Sendable {
    case none
    case length(Int)
    case chunked
}

/// A validated request head: everything but the body.
struct HTTPRequestHead: Sendable {
    var method: String
    var target: String
    var path: String
    var pathSegments: [String]
    var query: [(name: String, value: String)]
    var headers: HTTPHeaders
    var version: HTTPVersion
    /// Whether the client asked to keep the connection open (version default and `Connection`).
    var keepAlive: Bool
    /// `Expect: 100-continue` on an HTTP/1.1 request that has a body.
    var expectsContinue: Bool
    var framing: BodyFraming

    func request(body: [UInt8], remoteAddress: String) -> HTTPRequest {
        HTTPRequest(
            method: method, target: target, path: path, pathSegments: pathSegments, query: query,
            headers: headers, body: body, version: version, remoteAddress: remoteAddress)
    }
}

extension HTTPRequestHead: Equatable {
    static func == (lhs: HTTPRequestHead, rhs: HTTPRequestHead) -> Bool {
        lhs.method == rhs.method && lhs.target == rhs.target && lhs.path == rhs.path
            && lhs.pathSegments == rhs.pathSegments
            && lhs.query.elementsEqual(rhs.query, by: { $0.name == $1.name && $0.value == $1.value })
            && lhs.headers == rhs.headers && lhs.version == rhs.version
            && lhs.keepAlive == rhs.keepAlive && lhs.expectsContinue == rhs.expectsContinue
            && lhs.framing == rhs.framing
    }
}

/// What ``HTTPRequestParser/next()`` found.
enum HTTPParserEvent: Equatable, Sendable {
    /// A complete, validated head. Always followed by `.end` or `.failure`.
    case head(HTTPRequestHead)
    /// The end of the message, with its complete (de-chunked) body.
    case end(body: [UInt8])
    /// A protocol violation; the parser accepts nothing more.
    case failure(HTTPParserError)
}

/// The limits the parser enforces; the server configuration fills them in.
struct HTTPParserLimits: Sendable, Equatable {
    /// Longest request line, without CRLF → 414.
    var maxRequestLineLength = 8 * 1024
    /// Largest header section (field lines with their CRLFs, after the request line,
    /// without the final empty line) → 431.
    /// Also bounds the trailer section of a chunked body.
    var maxHeaderSectionSize = 32 * 1024
    /// Most header fields → 431.
    var maxHeaderCount = 100
    /// Largest body, checked against Content-Length before reading and counted while
    /// decoding chunks → 413.
    var maxBodySize = 1 << 30
    /// Longest chunk-size line (size and extensions, without CRLF) → 400.
    var maxChunkSizeLineLength = 1024
}
