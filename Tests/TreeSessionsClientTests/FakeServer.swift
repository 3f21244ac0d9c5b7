#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
@testable import TreeSessionsClient

/// A scripted HTTP/1.1 server on a free loopback port, for what a real tree-server does not do
/// on demand: refuse with 400, 409, 412 or 429, stall a stream, send a reset of an unknown
/// reason. Every connection answers one request (`Connection: close`), on a thread of its own:
/// `reply` gets the request and answers what to send; requests are recorded.
final class FakeServer: @unchecked Sendable {  // `requests` and `stopped` are guarded by `lock`
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
        /// After the body, the connection stays open this long (a stream that goes quiet).
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

    let port: Int
    private let listener: Int32
    private let reply: @Sendable (Request) -> Reply
    private let lock = NSLock()
    private var recorded: [Request] = []
    private var stopped = false

    init(_ reply: @escaping @Sendable (Request) -> Reply) throws {
        self.reply = reply
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure("socket failed") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { close(fd); throw Failure("bind or listen failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        Thread { [self] in acceptLoop() }.start()
    }

    deinit { stop() }

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
        if first {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func acceptLoop() {
        while !isStopped {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if isStopped { return }
                continue
            }
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !bytes.contains(subsequence: [13, 10, 13, 10]) {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            bytes += buffer[0..<count]
        }
        let head = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n\r\n")[0]
        let lines = head.components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2 else { return }
        let target = String(parts[1])
        let pieces = target.split(separator: "?", maxSplits: 1)
        var query: [String: String] = [:]
        if pieces.count > 1 {
            for item in pieces[1].split(separator: "&") {
                let pair = item.split(separator: "=", maxSplits: 1)
                query[String(pair[0]).removingPercentEncoding ?? String(pair[0])] =
                    pair.count > 1 ? (String(pair[1]).removingPercentEncoding ?? String(pair[1])) : ""
            }
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let request = Request(method: String(parts[0]), path: String(pieces[0]), query: query, headers: headers)
        lock.withLock { recorded.append(request) }
        let answer = reply(request)
        var text = "HTTP/1.1 \(answer.status) X\r\nConnection: close\r\n"
        for (name, value) in answer.headers { text += "\(name): \(value)\r\n" }
        if answer.hold == .zero { text += "Content-Length: \(answer.body.count)\r\n" }
        text += "\r\n"
        write(connection, Array(text.utf8) + answer.body)
        let deadline = ContinuousClock.now + answer.hold
        var nextBeat = answer.heartbeat.map { ContinuousClock.now + $0 }
        while ContinuousClock.now < deadline, !isStopped {
            if let beat = nextBeat, let every = answer.heartbeat, ContinuousClock.now >= beat {
                write(connection, Array(": heartbeat\n".utf8))
                nextBeat = beat + every
            }
            // Until the client closes (a read answers 0) or the time is over.
            var pollSet = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            if poll(&pollSet, 1, 50) > 0 {
                var scratch = [UInt8](repeating: 0, count: 256)
                if read(connection, &scratch, scratch.count) <= 0 { return }
            }
        }
    }

    private func write(_ connection: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return }
            offset += written
        }
    }
}

extension Array where Element == UInt8 {
    func contains(subsequence: [UInt8]) -> Bool {
        guard count >= subsequence.count else { return false }
        for start in 0...(count - subsequence.count) where self[start..<(start + subsequence.count)].elementsEqual(subsequence) {
            return true
        }
        return false
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
