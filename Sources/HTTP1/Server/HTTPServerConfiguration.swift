import Foundation

/// One line of the access log, handed to ``HTTPServerConfiguration/accessLog`` after a
/// response was written (on the worker thread that wrote it); for a push body
/// (``HTTPBody/push(_:)``), when its stream ended (on the thread that ended it).
public struct HTTPAccessLogEntry: Sendable {
    public var remoteAddress: String
    public var method: String
    /// The request-target as received, except that the value of every `access_token` query
    /// parameter reads `REDACTED` (RFC 6750 §5.3: a token is never logged).
    public var target: String
    public var version: HTTPVersion
    public var status: Int
    /// Body bytes sent (without framing); 0 for HEAD.
    public var bodyBytes: Int
    /// From the request's first byte being read to the response being queued in full (for a
    /// push body: to the end of its stream): a slow upload counts whole.
    public var duration: Duration
    public var logTag: String?
}

/// Where to listen and every limit, with defaults suited to a JSON API that accepts
/// uploads of a few hundred megabytes.
///
/// | setting | default | on violation |
/// |---|---|---|
/// | `maxRequestLineLength` | 8 KiB | 414 |
/// | `maxHeaderSectionSize` | 32 KiB | 431 |
/// | `maxHeaderCount` | 100 | 431 |
/// | `maxBodySize` | 1 GiB | 413 (before reading, or while de-chunking) |
/// | `maxChunkSizeLineLength` | 1 KiB | 400 |
/// | `headerReadTimeout` | 10 s from the first byte | 408, close |
/// | `bodyReadTimeout` | 30 s without progress | 408, close |
/// | `idleTimeout` | 60 s between requests | close |
/// | `writeTimeout` | 60 s without progress | close |
/// | `maxPushQueueBytes` | 1 MiB unsent per push body | the stream ends, close (no terminating chunk) |
/// | `maxRequestsPerConnection` | 10 000 | last response has `Connection: close` |
/// | `maxConnections` | 10 000 (open push bodies count) | 503 and close |
/// | `bodyBudgetCapacity` | a quarter of memory | 503 + `Retry-After`, close (bodies in memory over all connections) |
/// | `workerThreads` | 64 requests but GET, HEAD and OPTIONS served at once | the others wait in a queue, in order |
public struct HTTPServerConfiguration: Sendable {
    /// `"0.0.0.0"`, `"127.0.0.1"`, `"::"`, `"::1"`, `"localhost"` or any name; every
    /// address it resolves to is bound.
    public var host: String = "127.0.0.1"
    /// 0 picks a free port; see ``HTTPServer/boundPort``.
    public var port: Int = 8080
    /// I/O threads; each runs an epoll loop and owns its connections.
    public var eventLoopCount: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Threads that serve the requests that may change something (every method but GET,
    /// HEAD and OPTIONS: they may wait for a disk): at most this many are with the responder
    /// at once; the others wait in one queue, in order. The pool is the server's own
    /// (threads start as requests need them and end after 10 s idle), so however many such
    /// requests block (on an fsync, a lock), reads go on: they run on Dispatch's shared
    /// threads, which keep as many running as there are cores. A deferred response
    /// (``HTTPResponse/deferral``) or a push body holds no thread while it waits.
    public var workerThreads: Int = 64
    public var listenBacklog: Int = 1024

    public var maxRequestLineLength: Int = 8 * 1024
    public var maxHeaderSectionSize: Int = 32 * 1024
    public var maxHeaderCount: Int = 100
    public var maxBodySize: Int = 1 << 30
    public var maxChunkSizeLineLength: Int = 1024

    public var headerReadTimeout: Duration = .seconds(10)
    public var bodyReadTimeout: Duration = .seconds(30)
    public var idleTimeout: Duration = .seconds(60)
    public var writeTimeout: Duration = .seconds(60)
    /// After the last response of a connection: how long to keep reading (and discarding)
    /// before closing, so the client reads the response instead of a reset.
    public var lingerTimeout: Duration = .seconds(2)
    public var maxRequestsPerConnection: Int = 10_000
    /// Open connections, push bodies (server-sent events) included; a newcomer beyond gets
    /// 503 and is closed. An open push body costs about 1 KiB here plus the kernel's socket
    /// memory, so the bound is file descriptors more than memory: serving `S` streams, set it
    /// to `S` plus the requests expected at once (say `S + 2000`), and keep it below the
    /// process's descriptor limit (`ulimit -n`) less what the process needs besides.
    public var maxConnections: Int = 10_000
    /// Bytes of request bodies held in memory over all connections at once, shared with
    /// the responder through ``HTTPRequest/memoryBudget``. `nil`: a quarter of the
    /// machine's (or the container's) memory (``MemoryBudget/defaultCapacity``), read when
    /// the server is created. Each ``HTTPServer`` has its own budget
    /// (``HTTPServer/bodyBudget``).
    public var bodyBudgetCapacity: Int? = nil

    /// A streamed body's writer blocks while more than this many bytes are queued...
    public var outputHighWaterMark: Int = 256 * 1024
    /// ...until the queue is down to this many.
    public var outputLowWaterMark: Int = 64 * 1024
    /// Most pipelined bytes buffered while a response is in progress before reading pauses.
    public var maxBufferedPipelineBytes: Int = 64 * 1024
    /// Most bytes of a push body (``HTTPBody/push(_:)``) queued and not yet taken by the
    /// peer: a send that leaves more ends the stream and drops the connection without the
    /// terminating chunk (a reader this slow reconnects and resumes, e.g. with
    /// `Last-Event-ID`). A stream never blocks its sender.
    public var maxPushQueueBytes: Int = 1 << 20

    /// Renders every error the server answers by itself (400, 408, 413, 503, ...).
    public var errorRenderer: @Sendable (_ status: Int, _ title: String, _ detail: String) -> (contentType: String, body: [UInt8]) =
        HTTPServerConfiguration.defaultErrorRenderer
    /// Called once per response written; `nil` logs nothing.
    public var accessLog: (@Sendable (HTTPAccessLogEntry) -> Void)? = nil

    public init() {}

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `{"status":400,"title":"Bad Request","detail":"..."}` as `application/json`.
    public static let defaultErrorRenderer: @Sendable (Int, String, String) -> (contentType: String, body: [UInt8]) = {
        status, title, detail in
        let json = "{\"status\":\(status),\"title\":\(jsonString(title)),\"detail\":\(jsonString(detail))}"
        return ("application/json", Array(json.utf8))
    }

    static func jsonString(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    func connectionSettings(bodyBudget: MemoryBudget?) -> HTTPConnection.Settings {
        var s = HTTPConnection.Settings()
        s.limits = HTTPParserLimits(
            maxRequestLineLength: maxRequestLineLength, maxHeaderSectionSize: maxHeaderSectionSize,
            maxHeaderCount: maxHeaderCount, maxBodySize: maxBodySize,
            maxChunkSizeLineLength: maxChunkSizeLineLength)
        s.headerTimeout = headerReadTimeout
        s.bodyTimeout = bodyReadTimeout
        s.idleTimeout = idleTimeout
        s.lingerTimeout = lingerTimeout
        s.maxRequestsPerConnection = maxRequestsPerConnection
        s.maxBufferedBytes = maxBufferedPipelineBytes
        s.bodyBudget = bodyBudget
        return s
    }
}
