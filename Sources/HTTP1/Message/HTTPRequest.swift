/// A complete request, body included, as handed to an ``HTTPResponder``.
public struct HTTPRequest: Sendable {
    /// The method token as received, e.g. `"GET"`; always one of the methods the server knows.
    public var method: String
    /// The raw request-target, e.g. `"/trees/1?depth=2"` or `"http://host/x"`.
    public var target: String
    /// The raw (still percent-encoded) path: the target before `?`; for an absolute-form
    /// target, its path (`"/"` when empty); `"*"` for `OPTIONS *`; `""` for CONNECT.
    public var path: String
    /// The path split on raw `/`, each segment percent-decoded once:
    /// `"/"` → `[]`, `"/a/"` → `["a", ""]`, `"/a%2Fb/c"` → `["a/b", "c"]`.
    public var pathSegments: [String]
    /// The query's `name=value` pairs in order, decoded, `+` read as a space; a name without
    /// `=` has the value `""`. Repeated names are kept.
    public var query: [(name: String, value: String)]
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var version: HTTPVersion
    /// The peer's IP address (without port), e.g. `"127.0.0.1"` or `"::1"`.
    public var remoteAddress: String
    /// The server's budget for memory built from request bodies (this body is already
    /// counted in it until the server is done serving this request). A responder that builds something
    /// large from the body reserves its estimate here while it works, and answers 503 when
    /// it does not fit. `nil` outside a server (tests of responders).
    public var memoryBudget: MemoryBudget? = nil
    /// This body's bytes in ``memoryBudget``, released by the server when it is done with
    /// the request. `nil` outside a server.
    var bodyReservation: BodyReservation? = nil
    /// When the request's first byte was read (its access log line's duration runs from
    /// here). `nil` outside a server.
    var receivedAt: MonotonicInstant? = nil

    /// The first query value named `name` (exact, case-sensitive match).
    /// - Complexity: O(n) in the number of query pairs.
    public func queryValue(_ name: String) -> String? {
        for pair in query where pair.name == name { return pair.value }
        return nil
    }

    /// Builds a request from a raw target, decoding path and query as the parser does; for
    /// tests of responders. A segment or query part with a bad escape is kept as written.
    /// - Complexity: O(target length)
    public init(
        method: String = "GET",
        target: String,
        headers: HTTPHeaders = [:],
        body: [UInt8] = [],
        version: HTTPVersion = .http1_1,
        remoteAddress: String = "127.0.0.1"
    ) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.version = version
        self.remoteAddress = remoteAddress
        let parts = RequestTarget.split(Array(target.utf8), method: method, lenient: true)
        switch parts {
        case .success(let p):
            self.path = p.path
            self.pathSegments = p.segments
            self.query = p.query
        case .failure:
            self.path = target
            self.pathSegments = []
            self.query = []
        }
    }

    init(
        method: String, target: String, path: String, pathSegments: [String],
        query: [(name: String, value: String)], headers: HTTPHeaders, body: [UInt8],
        version: HTTPVersion, remoteAddress: String
    ) {
        self.method = method
        self.target = target
        self.path = path
        self.pathSegments = pathSegments
        self.query = query
        self.headers = headers
        self.body = body
        self.version = version
        self.remoteAddress = remoteAddress
    }
}

extension HTTPRequest: Equatable {
    public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.method == rhs.method && lhs.target == rhs.target && lhs.path == rhs.path
            && lhs.pathSegments == rhs.pathSegments
            && lhs.query.elementsEqual(rhs.query, by: { $0.name == $1.name && $0.value == $1.value })
            && lhs.headers == rhs.headers && lhs.body == rhs.body && lhs.version == rhs.version
            && lhs.remoteAddress == rhs.remoteAddress
    }
}
