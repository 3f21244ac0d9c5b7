import Foundation
import HTTP1
@testable import TreeSessionsClient

/// A scripted server on a free loopback port, for what a real tree-server does not do on
/// demand: refuse with 400, 409, 412 or 429, stall a stream, send a reset of an unknown reason.
/// It is the project's own `HTTPServer` with a responder that records each request and answers
/// what `reply` says.
final class FakeServer: @unchecked Sendable {  // `recorded` and `stopped` are guarded by `lock`
    struct Request: Sendable {
        var method: String
        /// The path without the query, e.g. `/sessions/s/views/v/rows`.
        var path: String
        var query: [String: String]
        /// Header names in lower case.
        var headers: [String: String]
    }

    struct Reply: Sendable {
        var status: Int
        var headers: [String: String] = [:]
        var body: [UInt8] = []
        /// After the body, the response stays open this long (a stream that goes quiet).
        var hold: Duration = .zero
        /// While it holds, a `: heartbeat` comment line this often.
        var heartbeat: Duration? = nil

        static func json(_ value: some Encodable, status: Int = 200) -> Reply {
            Reply(status: status, headers: ["Content-Type": "application/json"], body: Array((try? JSONEncoder().encode(value)) ?? Data()))
        }

        static func problem(_ status: Int, _ slug: String, headers: [String: String] = [:]) -> Reply {
            let text = #"{"type":"urn:treesessions:problem:\#(slug)","title":"t","status":\#(status),"detail":"d"}"#
            return Reply(status: status, headers: headers.merging(["Content-Type": "application/problem+json"]) { a, _ in a },
                         body: Array(text.utf8))
        }

        static func events(_ text: String, hold: Duration = .zero, heartbeat: Duration? = nil) -> Reply {
            Reply(status: 200, headers: ["Content-Type": "text/event-stream"], body: Array(text.utf8), hold: hold, heartbeat: heartbeat)
        }
    }

    private let server: HTTPServer
    private let lock = NSLock()
    private var recorded: [Request] = []
    private var stopped = false

    init(_ reply: @escaping @Sendable (Request) -> Reply) throws {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.eventLoopCount = 1
        let box = Responder()
        server = HTTPServer(configuration: configuration, responder: HTTPClosureResponder { box.respond($0) })
        box.respond = { [unowned self] request in self.answer(request, reply(self.record(request))) }
        try server.start()
    }

    deinit { stop() }

    var port: Int { server.boundPort }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    func client() -> TreeSessionsClient { TreeSessionsClient(baseURL: baseURL) }

    /// The requests answered so far, in order.
    var requests: [Request] { lock.withLock { recorded } }

    func requests(to suffix: String) -> [Request] { requests.filter { $0.path.hasSuffix(suffix) } }

    func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        if first { server.shutdown(deadline: .seconds(2)) }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func record(_ request: HTTPRequest) -> Request {
        var query: [String: String] = [:]
        for pair in request.query { query[pair.name] = pair.value }
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.lowercased()] = field.value }
        let recorded = Request(method: request.method, path: request.path, query: query, headers: headers)
        lock.withLock { self.recorded.append(recorded) }
        return recorded
    }

    /// `reply` as a response: its bytes, or (held) a pushed stream that sends them, then
    /// heartbeats until the time is over, the client is gone or the server stops.
    private func answer(_ request: HTTPRequest, _ reply: Reply) -> HTTPResponse {
        let headers = HTTPHeaders(reply.headers.map { ($0.key, $0.value) })
        guard reply.hold > .zero else { return HTTPResponse(status: reply.status, headers: headers, body: .bytes(reply.body)) }
        return HTTPResponse(status: reply.status, headers: headers, body: .push { [self] stream in
            guard stream.send(reply.body) else { return }
            Thread { [self] in
                let deadline = ContinuousClock.now + reply.hold
                var nextBeat = reply.heartbeat.map { ContinuousClock.now + $0 }
                while ContinuousClock.now < deadline, !isStopped, stream.isOpen {
                    if let beat = nextBeat, let every = reply.heartbeat, ContinuousClock.now >= beat {
                        guard stream.send(Array(": heartbeat\n".utf8)) else { return }
                        nextBeat = beat + every
                    }
                    Thread.sleep(forTimeInterval: 0.05)
                }
                stream.finish()
            }.start()
        })
    }

    /// The responder's closure, set once the server exists (it answers through `self`).
    private final class Responder: @unchecked Sendable {  // set before `start()`, read after
        var respond: (HTTPRequest) -> HTTPResponse = { _ in HTTPResponse(status: 503) }
    }
}

/// A rows page of `total` rows named `r0`, `r1`, … (roots), from `offset`.
func fakePage(version: Int, total: Int, offset: Int, limit: Int) -> RowsPage {
    let end = min(total, offset + limit)
    let rows = (offset..<max(offset, end)).map {
        Row(index: $0, id: .string("r\($0)"), title: "row \($0)", level: 0, expanded: false, hasChildren: false, parentId: nil)
    }
    return RowsPage(version: version, filter: nil, total: total, offset: offset, limit: limit, rows: rows)
}

extension FakeServer.Request {
    var offset: Int { Int(query["offset"] ?? "0") ?? 0 }
    var limit: Int { Int(query["limit"] ?? "50") ?? 50 }
}
