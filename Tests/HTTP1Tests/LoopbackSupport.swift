import Foundation
import Synchronization
import Testing
@testable import HTTP1

#if canImport(Glibc)
import Glibc
#endif

/// The responder the loopback tests talk to.
struct TestResponder: HTTPResponder {
    func respond(to request: HTTPRequest) -> HTTPResponse {
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

/// Starts a server on port 0 with `configure` applied, runs `body`, shuts it down.
func withServer(
    _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    responder: any HTTPResponder = TestResponder(),
    _ body: (HTTPServer, Int) throws -> Void
) throws {
    var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
    configuration.eventLoopCount = 2
    configure(&configuration)
    let server = HTTPServer(configuration: configuration, responder: responder)
    try server.start()
    defer { server.shutdown(deadline: .seconds(2)) }
    try body(server, server.boundPort)
}

struct RawResponse {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A blocking socket client for sending exact bytes, including malformed ones.
final class RawClient: @unchecked Sendable {  // used from one thread at a time
    let fd: Int32
    private var pending: [UInt8] = []

    init(port: Int, host: String = "127.0.0.1", timeoutSeconds: Int = 5) throws {
        let v6 = host.contains(":")
        fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var result: Int32
        if v6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard result == 0 else { throw HTTPServerError(message: "connect failed: \(errno)") }
    }

    deinit { close(fd) }

    func send(_ s: String) { send(Array(s.utf8)) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Reads more bytes; false at EOF, error or timeout.
    private func fill() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        pending += buffer[0..<n]
        return true
    }

    private func line() -> String? {
        while true {
            if let i = pending.firstIndex(of: 0x0A) {
                let l = String(decoding: pending[0..<i], as: UTF8.self).trimmingCharacters(in: ["\r"])
                pending.removeFirst(i + 1)
                return l
            }
            guard fill() else { return nil }
        }
    }

    private func take(_ n: Int) -> [UInt8]? {
        while pending.count < n { guard fill() else { return nil } }
        defer { pending.removeFirst(n) }
        return Array(pending[0..<n])
    }

    /// Reads one response (skipping 1xx unless `interim`); nil at EOF. `head`: no body expected.
    func readResponse(head: Bool = false, interim: Bool = false) -> RawResponse? {
        while true {
            guard let statusLine = line() else { return nil }
            let parts = statusLine.split(separator: " ")
            guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
            var headers = HTTPHeaders()
            while let l = line(), !l.isEmpty {
                let colon = l.firstIndex(of: ":")!
                headers.add(name: String(l[..<colon]), value: l[l.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            if status < 200 {
                if interim { return RawResponse(status: status, headers: headers, body: []) }
                continue
            }
            if head || status == 204 || status == 304 { return RawResponse(status: status, headers: headers, body: []) }
            if let length = headers["content-length"].flatMap(Int.init) {
                guard let body = take(length) else { return nil }
                return RawResponse(status: status, headers: headers, body: body)
            }
            if headers["transfer-encoding"] == "chunked" {
                var body: [UInt8] = []
                while let sizeLine = line(), let size = Int(sizeLine, radix: 16) {
                    if size == 0 {
                        while let l = line(), !l.isEmpty {}
                        return RawResponse(status: status, headers: headers, body: body)
                    }
                    guard let data = take(size) else { return nil }
                    body += data
                    _ = take(2)
                }
                return nil
            }
            // Close-delimited.
            while fill() {}
            defer { pending = [] }
            return RawResponse(status: status, headers: headers, body: pending)
        }
    }

    /// Whether the server closed the connection (EOF) with nothing more to read.
    func readsEOF() -> Bool {
        pending.isEmpty && !fill()
    }
}

/// Runs a command, returns (exit status, stdout).
func runProcess(_ path: String, _ arguments: [String], stdin: String? = nil) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    if let stdin {
        let input = Pipe()
        process.standardInput = input
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
    } else {
        try process.run()
    }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// Finds python3 on PATH (pyenv shims included).
func python3Path() -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
    for dir in path.split(separator: ":") {
        let candidate = "\(dir)/python3"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : nil
}
