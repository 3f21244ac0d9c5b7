#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTP1

/// One response as the test client read it.
public struct HTTPTestResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var text: String { String(decoding: body, as: UTF8.self) }

    public init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Whatever answers a test's requests as the server would: a socket client, or the
/// service called in process.
public protocol HTTPRequestSending {
    func request(_ method: String, _ target: String, json: [UInt8]?, headers: [(String, String)]) throws -> HTTPTestResponse
}

extension HTTPRequestSending {
    public func request(_ method: String, _ target: String, json: [UInt8]? = nil) throws -> HTTPTestResponse {
        try request(method, target, json: json, headers: [])
    }
}

/// A blocking HTTP/1.1 client over one loopback socket, for the HTTP and service tests.
///
/// Two ways to use it:
/// - exact bytes, including malformed ones: `send(_:)`, then `readResponse()` (nil at EOF,
///   on a timeout or on bytes that are not a response) and `readsEOF()`;
/// - keep-alive requests: `request(_:_:json:headers:)`, which throws instead, and opens a new
///   connection after a response that says `Connection: close` (curl costs a process per
///   request, this costs nothing).
///
/// Every socket has a send and a receive timeout (also bounding `connect`), so a server that
/// stalls makes a test fail within `timeout` instead of hanging the whole run.
public final class HTTPTestClient: HTTPRequestSending, @unchecked Sendable {  // used from one thread at a time
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    public let port: Int
    public let host: String
    public let timeout: Duration
    private var fd: Int32 = -1
    private var pending: [UInt8] = []

    public init(port: Int, host: String = "127.0.0.1", timeout: Duration = .seconds(5)) throws {
        self.port = port
        self.host = host
        self.timeout = timeout
        try connectSocket()
    }

    deinit { if fd >= 0 { close(fd) } }

    private func connectSocket() throws {
        pending = []
        let v6 = host.contains(":")
        let socketFD = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        // Linux applies SO_SNDTIMEO to connect too.
        let (seconds, attoseconds) = timeout.components
        var time = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
            guard setsockopt(socketFD, SOL_SOCKET, option, &time, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
                close(socketFD)
                throw Failure(description: "setsockopt: errno \(errno)")
            }
        }
        let result: Int32
        if v6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard result == 0 else {
            let error = errno
            close(socketFD)
            throw Failure(description: "connect to \(host):\(port): \(Self.describe(error))")
        }
        fd = socketFD
    }

    private static func describe(_ error: Int32) -> String {
        error == EAGAIN || error == EWOULDBLOCK || error == EINPROGRESS ? "timed out" : "errno \(error)"
    }

    // MARK: Exact bytes

    /// Sends `s` as it is; a failure (the server closed, a timeout) shows in the next read.
    public func send(_ s: String) { send(Array(s.utf8)) }

    public func send(_ bytes: [UInt8]) { try? write(bytes) }

    /// Reads one response (skipping 1xx unless `interim`); nil at EOF, on a timeout or on
    /// bytes that are not a response. `head`: no body expected.
    public func readResponse(head: Bool = false, interim: Bool = false) -> HTTPTestResponse? {
        try? nextResponse(head: head, interim: interim)
    }

    /// Reads a response's status line and headers only, leaving its body unread (for a body
    /// that stays open); nil at EOF, on a timeout or on bytes that are not a response head.
    public func readHead() -> HTTPTestResponse? {
        try? nextHead()
    }

    /// Reads exactly `count` raw bytes (e.g. the next chunk of an open body); nil at EOF or on
    /// a timeout before they all arrived.
    public func readBytes(_ count: Int) -> [UInt8]? {
        try? take(count)
    }

    /// Closes the connection (FIN). The client is unusable afterwards.
    public func disconnect() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    /// Closes the connection with a reset (RST, not FIN): the server's next read fails.
    /// The client is unusable afterwards.
    public func reset() {
        guard fd >= 0 else { return }
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        close(fd)
        fd = -1
    }

    /// Whether the server closed the connection (EOF) with nothing more to read.
    public func readsEOF() -> Bool {
        guard pending.isEmpty else { return false }
        do { return try !fill() } catch { return false }
    }

    // MARK: Requests

    /// Sends one request (with `Host`, and `Content-Type: application/json` and its length when
    /// there is a body) and reads its response; reconnects if the last response closed.
    public func request(_ method: String, _ target: String, json: [UInt8]? = nil,
                        headers: [(String, String)] = []) throws -> HTTPTestResponse {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host.contains(":") ? "[\(host)]" : host)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let json { head += "Content-Type: application/json\r\nContent-Length: \(json.count)\r\n" }
        head += "\r\n"
        if ProcessInfo.processInfo.environment["HTTP_TRACE"] != nil { print("→ \(method) \(target) \(String(decoding: json ?? [], as: UTF8.self))") }
        if fd < 0 { try connectSocket() }
        try write(Array(head.utf8) + (json ?? []))
        let response = try nextResponse(head: method == "HEAD", interim: false)
        if response.headers["connection"]?.lowercased() == "close" {
            close(fd)
            fd = -1
        }
        return response
    }

    // MARK: Reading and writing

    private func write(_ bytes: [UInt8]) throws {
        guard fd >= 0 else { throw Failure(description: "send: not connected") }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw Failure(description: "send after \(offset) of \(bytes.count) bytes: \(Self.describe(errno)) (timeout \(timeout))")
            }
            offset += n
        }
    }

    /// Reads more bytes; false when the server closed the connection; throws on a timeout.
    private func fill() throws -> Bool {
        guard fd >= 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                pending += buffer[0..<n]
                return true
            }
            if n == 0 || errno == ECONNRESET { return false }  // a reset: closed with our bytes unread
            if errno == EINTR { continue }
            throw Failure(description: "receive: \(Self.describe(errno)) (timeout \(timeout))")
        }
    }

    private func more() throws {
        guard try fill() else { throw Failure(description: "connection closed by the server") }
    }

    private func line() throws -> String {
        while true {
            if let i = pending.firstIndex(of: 0x0A) {
                let l = String(decoding: pending[0..<i], as: UTF8.self).trimmingCharacters(in: ["\r"])
                pending.removeFirst(i + 1)
                return l
            }
            try more()
        }
    }

    private func take(_ n: Int) throws -> [UInt8] {
        while pending.count < n { try more() }
        defer { pending.removeFirst(n) }
        return Array(pending[0..<n])
    }

    private func nextHead() throws -> HTTPTestResponse {
        let statusLine = try line()
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure(description: "bad status line: \(statusLine)") }
        var headers = HTTPHeaders()
        while true {
            let l = try line()
            if l.isEmpty { break }
            guard let colon = l.firstIndex(of: ":") else { throw Failure(description: "bad header line: \(l)") }
            headers.add(name: String(l[..<colon]), value: l[l.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return HTTPTestResponse(status: status, headers: headers, body: [])
    }

    private func nextResponse(head: Bool, interim: Bool) throws -> HTTPTestResponse {
        while true {
            let parsed = try nextHead()
            let (status, headers) = (parsed.status, parsed.headers)
            if status < 200 {
                if interim { return HTTPTestResponse(status: status, headers: headers, body: []) }
                continue
            }
            if head || status == 204 || status == 304 { return HTTPTestResponse(status: status, headers: headers, body: []) }
            if headers["transfer-encoding"]?.lowercased() == "chunked" {
                var body: [UInt8] = []
                while true {
                    let sizeLine = try line()
                    guard let size = Int(sizeLine.split(separator: ";", omittingEmptySubsequences: false)[0], radix: 16) else {
                        throw Failure(description: "bad chunk size line: \(sizeLine)")
                    }
                    if size == 0 {
                        while try !line().isEmpty {}  // trailers
                        return HTTPTestResponse(status: status, headers: headers, body: body)
                    }
                    body += try take(size)
                    _ = try take(2)
                }
            }
            if let length = headers["content-length"].flatMap({ Int($0) }) {
                return HTTPTestResponse(status: status, headers: headers, body: try take(length))
            }
            // Close-delimited.
            while try fill() {}
            defer { pending = [] }
            return HTTPTestResponse(status: status, headers: headers, body: pending)
        }
    }
}
