/// Why a request was rejected: the status to answer with, a short title and a detail
/// sentence, and the byte offset in the connection's stream where the problem was found.
///
/// A struct around a private kind, so kinds can be added without breaking callers.
public struct HTTPParserError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable, CaseIterable {
        case requestLineTooLong
        case headerSectionTooLarge
        case tooManyHeaderFields
        case bodyTooLarge
        case invalidRequestLine
        case invalidMethod
        case unknownMethod
        case invalidTarget
        case invalidPercentEncoding
        case invalidVersion
        case unsupportedVersion
        case bareCR
        case bareLF
        case obsFold
        case whitespaceBeforeColon
        case invalidFieldName
        case invalidFieldValue
        case missingHost
        case duplicateHost
        case invalidHost
        case contentLengthWithTransferEncoding
        case invalidContentLength
        case conflictingContentLength
        case transferEncodingInHTTP10
        case chunkedNotLast
        case unsupportedTransferCoding
        case invalidChunkSize
        case invalidChunkExtension
        case chunkSizeLineTooLong
        case invalidChunkTerminator
        case unsupportedExpectation
        case headerTimeout
        case bodyTimeout
        /// The server's budget for buffered request bodies (``MemoryBudget``) cannot hold
        /// this body now.
        case bodyBudgetExhausted
    }

    let kind: Kind
    /// Offset of the offending byte from the start of the connection's byte stream.
    public let offset: Int

    init(_ kind: Kind, offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    /// The status code to answer with (400, 408, 413, 414, 417, 431, 501, 503 or 505).
    public var status: Int {
        switch kind {
        case .requestLineTooLong: 414
        case .headerSectionTooLarge, .tooManyHeaderFields: 431
        case .bodyTooLarge: 413
        case .unknownMethod, .unsupportedTransferCoding: 501
        case .unsupportedVersion: 505
        case .unsupportedExpectation: 417
        case .headerTimeout, .bodyTimeout: 408
        case .bodyBudgetExhausted: 503
        case .invalidRequestLine, .invalidMethod, .invalidTarget, .invalidPercentEncoding, .invalidVersion,
            .bareCR, .bareLF, .obsFold, .whitespaceBeforeColon, .invalidFieldName, .invalidFieldValue,
            .missingHost, .duplicateHost, .invalidHost, .contentLengthWithTransferEncoding,
            .invalidContentLength, .conflictingContentLength, .transferEncodingInHTTP10, .chunkedNotLast,
            .invalidChunkSize, .invalidChunkExtension, .chunkSizeLineTooLong, .invalidChunkTerminator:
            400
        }
    }

    /// Every status a parser (or connection) error is answered with, ascending: one per
    /// status of all kinds. The server answers these by itself, rendered by
    /// ``HTTPServerConfiguration/errorRenderer`` (beside 500 for a response it cannot
    /// serialize); a mapping from status to something else can be checked against it.
    public static let allStatuses: [Int] = Set(Kind.allCases.map { HTTPParserError($0, offset: 0).status }).sorted()

    /// Seconds for a `Retry-After` header, for the errors a client may simply retry later.
    public var retryAfter: Int? {
        kind == .bodyBudgetExhausted ? 10 : nil
    }

    public var title: String { HTTPStatus.reasonPhrase(status) }

    public var detail: String {
        switch kind {
        case .requestLineTooLong: "The request line is longer than the server accepts."
        case .headerSectionTooLarge: "The header section is larger than the server accepts."
        case .tooManyHeaderFields: "The request has more header fields than the server accepts."
        case .bodyTooLarge: "The request body is larger than the server accepts."
        case .invalidRequestLine: "The request line is malformed."
        case .invalidMethod: "The method is not a valid token."
        case .unknownMethod: "The method is not implemented by this server."
        case .invalidTarget: "The request target contains invalid characters or has an invalid form."
        case .invalidPercentEncoding: "The request target contains an invalid percent-encoding."
        case .invalidVersion: "The HTTP version is malformed."
        case .unsupportedVersion: "The HTTP version is not supported; use HTTP/1.1."
        case .bareCR: "A carriage return not followed by a line feed was received."
        case .bareLF: "A line ended with a line feed not preceded by a carriage return."
        case .obsFold: "Obsolete line folding is not accepted."
        case .whitespaceBeforeColon: "Whitespace between a field name and the colon is not allowed."
        case .invalidFieldName: "A header field name is not a valid token."
        case .invalidFieldValue: "A header field value contains invalid characters."
        case .missingHost: "An HTTP/1.1 request must have a Host header field."
        case .duplicateHost: "The request has more than one Host header field."
        case .invalidHost: "The Host header field is invalid."
        case .contentLengthWithTransferEncoding: "Content-Length and Transfer-Encoding must not both be present."
        case .invalidContentLength: "The Content-Length is malformed."
        case .conflictingContentLength: "The request has differing Content-Length values."
        case .transferEncodingInHTTP10: "Transfer-Encoding is not allowed in an HTTP/1.0 request."
        case .chunkedNotLast: "The chunked transfer coding must be applied last, exactly once."
        case .unsupportedTransferCoding: "Only the chunked transfer coding is supported."
        case .invalidChunkSize: "A chunk size line is malformed."
        case .invalidChunkExtension: "A chunk extension is malformed: each needs a name, and a value must be a token or a quoted string."
        case .chunkSizeLineTooLong: "A chunk size line is longer than the server accepts."
        case .invalidChunkTerminator: "Chunk data was not followed by CRLF."
        case .unsupportedExpectation: "Only the 100-continue expectation is supported."
        case .headerTimeout: "The request header section was not received in time."
        case .bodyTimeout: "The request body was not received in time."
        case .bodyBudgetExhausted: "The server holds as many request bodies in memory as it may; retry later."
        }
    }

    public var description: String { "\(status) \(title): \(detail) (at byte \(offset))" }
}

/// Reason phrases for the status line and error titles.
public enum HTTPStatus {
    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        case 507: "Insufficient Storage"
        default: "Status \(status)"
        }
    }
}
