#if canImport(Glibc)
import Glibc
#endif
import HTTP1
import Synchronization

/// Starts an `HTTPServer` on a free loopback port (`127.0.0.1:0`, two event loops, then
/// `configure`), runs `body` with the server and its port, and shuts it down however `body`
/// ends. The one server fixture of the HTTP and service tests.
@discardableResult
public func withServer<T>(
    _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    responder: any HTTPResponder = TestResponder(),
    _ body: (HTTPServer, Int) throws -> T
) throws -> T {
    var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
    configuration.eventLoopCount = 2
    configure(&configuration)
    let server = HTTPServer(configuration: configuration, responder: responder)
    try server.start()
    defer { server.shutdown(deadline: .seconds(2)) }
    return try body(server, server.boundPort)
}

/// The responder the HTTP loopback tests talk to: `/echo` describes the request, `/sum` checks
/// an upload byte for byte, `/stream`, `/bigwrites`, `/slow`, `/park` (a deferred response,
/// sent by `/release`), `/close`, `/nocontent`,
/// `/badheader`; anything else answers "ok".
public struct TestResponder: HTTPResponder {
    public init() {}

    /// The senders of the deferred responses of `/park`, until `/release` (tests using
    /// them do not run in parallel with each other: see `DeferredResponseTests`).
    static let parked = Mutex<[@Sendable (HTTPResponse) -> Void]>([])

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        let first = request.pathSegments.first ?? ""
        switch first {
        case "echo":
            let query = request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            let text = "method=\(request.method) path=\(request.path) segments=\(request.pathSegments) "
                + "query=\(query) body=\(request.body.count) version=\(request.version) "
                + "x-test=\(request.headers["x-test"] ?? "-")"
            return HTTPResponse(status: 200, contentType: "text/plain", body: Array(text.utf8), logTag: "/echo")
        case "sum":
            // Checksum of the body, to verify uploads byte for byte.
            var sum: UInt64 = 0
            for (i, b) in request.body.enumerated() { sum = sum &+ UInt64(b) &* UInt64(i % 251 + 1) }
            return HTTPResponse(status: 200, contentType: "text/plain", body: Array("\(request.body.count) \(sum)".utf8))
        case "stream":
            let pieces = Int(request.queryValue("n") ?? "10") ?? 10
            let size = Int(request.queryValue("size") ?? "1000") ?? 1000
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: .stream { writer in
                let piece = [UInt8](repeating: UInt8(ascii: "z"), count: size)
                for _ in 0..<pieces { try writer.write(piece) }
            })
        case "bigwrites":
            // Two 3 MB writes (queued without copying) around a small one.
            return HTTPResponse(body: .stream { writer in
                try writer.write([UInt8](repeating: UInt8(ascii: "a"), count: 3_000_000))
                try writer.write(Array("middle".utf8))
                try writer.write([UInt8](repeating: UInt8(ascii: "b"), count: 3_000_000))
            })
        case "slow":
            usleep(UInt32(Int(request.queryValue("ms") ?? "300")! * 1000))
            return HTTPResponse(status: 200, contentType: "text/plain", body: Array("slow".utf8))
        case "park":
            // A deferred response: sent ("parked") when /release is called.
            var response = HTTPResponse(status: 202, contentType: "text/plain", body: Array("unsent".utf8))
            response.deferral = { send in TestResponder.parked.withLock { $0.append(send) } }
            return response
        case "release":
            let senders = TestResponder.parked.withLock { parked in defer { parked = [] }; return parked }
            for send in senders { send(HTTPResponse(status: 200, contentType: "text/plain", body: Array("parked".utf8))) }
            return HTTPResponse(status: 200, contentType: "text/plain", body: Array("\(senders.count)".utf8))
        case "close":
            return HTTPResponse(status: 200, headers: ["Connection": "close"], body: .bytes(Array("bye".utf8)))
        case "nocontent":
            return HTTPResponse(status: 204, headers: [:], body: .bytes(Array("ignored".utf8)))
        case "badheader":
            return HTTPResponse(status: 200, headers: ["X-Evil": "a\r\nSet-Cookie: x"], body: .bytes([]))
        default:
            return HTTPResponse(status: 200, contentType: "text/plain", body: Array("ok".utf8))
        }
    }
}
