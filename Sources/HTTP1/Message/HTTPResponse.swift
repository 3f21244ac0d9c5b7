/// What a responder returns. The server frames it: it adds `Date`, `Content-Length` or
/// `Transfer-Encoding: chunked`, and `Connection` as needed, and drops any of those
/// (and `Transfer-Encoding`/`Content-Length`) set here.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: HTTPBody
    /// A label for the access log, e.g. the route template `"/trees/{id}"`.
    public var logTag: String?
    /// When set, the server does not send this response when the responder returns:
    /// it calls `deferral` with a function that sends the response it is given (this
    /// one, or another), from any thread, once; meanwhile the worker thread is free and
    /// the connection waits (what a response that waits for an fsync shared with other
    /// requests needs). The response sent must have no deferral of its own.
    public var deferral: (@Sendable (_ send: @escaping @Sendable (HTTPResponse) -> Void) -> Void)?

    public init(status: Int = 200, headers: HTTPHeaders = [:], body: HTTPBody = .bytes([]), logTag: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.logTag = logTag
    }

    /// A response with a fixed body and its content type.
    public init(status: Int = 200, contentType: String, body: [UInt8], logTag: String? = nil) {
        self.init(status: status, headers: ["Content-Type": contentType], body: .bytes(body), logTag: logTag)
    }
}

/// A response body: bytes known up front (sent with `Content-Length`), or produced
/// piece by piece (sent chunked to HTTP/1.1 clients, close-delimited to HTTP/1.0 ones).
public enum HTTPBody: Sendable {
    case bytes([UInt8])
    /// Called on the worker thread after the head is queued. Each `write` may block while
    /// the client is slow (back-pressure); it throws once the client is gone, and the
    /// closure should then stop. If the closure throws, the connection is closed without
    /// the terminating chunk, so the client sees a truncated body, never a complete-looking one.
    case stream(@Sendable (HTTPBodyWriter) throws -> Void)
    /// A body that stays open (server-sent events): called on the worker thread after the
    /// head is queued, with the stream to write to later from any thread; the worker is free
    /// when the closure returns. Sent chunked to HTTP/1.1 clients, close-delimited to HTTP/1.0
    /// ones; the connection closes when the stream ends. For HEAD (or a status without a
    /// body) the closure gets a stream that has already ended.
    ///
    /// The stream's `onEnd` handlers run once: on the thread that called `finish()`, or
    /// whose `send` was refused (the peer is gone, or more than
    /// ``HTTPServerConfiguration/maxPushQueueBytes`` stay unsent); on a worker when the
    /// server ends it (the peer closed, a write stalled for `writeTimeout`, shutdown); never
    /// under a lock of the server's.
    case push(@Sendable (HTTPPushStream) -> Void)
}

/// Produces responses. Called on a worker queue, never on an I/O thread, so a slow
/// request never stalls other connections; calls for different connections run in parallel.
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest) -> HTTPResponse
}

/// A responder made of a closure.
public struct HTTPClosureResponder: HTTPResponder {
    let body: @Sendable (HTTPRequest) -> HTTPResponse

    public init(_ body: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.body = body
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse { body(request) }
}
