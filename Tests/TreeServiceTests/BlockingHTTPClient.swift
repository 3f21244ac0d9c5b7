#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A minimal keep-alive HTTP/1.1 client over a blocking loopback socket, for tests that
/// send many requests (curl costs a process per request). It opens a new connection
/// after a response that says `Connection: close`.
final class BlockingHTTPClient {
    private let port: Int
    private var fd: Int32 = -1
    private var buffer: [UInt8] = []

    struct Response {
        let status: Int
        let headers: [String: String]  // lowercased names
        let body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    init(port: Int) throws {
        self.port = port
        try connectSocket()
    }

    private func connectSocket() throws {
        buffer = []
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { close(fd); throw Failure(description: "connect: \(errno)") }
    }

    deinit { if fd >= 0 { close(fd) } }

    func send(_ method: String, _ target: String, json: [UInt8]? = nil, headers: [(String, String)] = []) throws -> Response {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let json { head += "Content-Type: application/json\r\nContent-Length: \(json.count)\r\n" }
        head += "\r\n"
        if ProcessInfo.processInfo.environment["HTTP_TRACE"] != nil { print("→ \(method) \(target) \(String(decoding: json ?? [], as: UTF8.self))") }
        if fd < 0 { try connectSocket() }
        try write(Array(head.utf8) + (json ?? []))
        let response = try readResponse(method: method)
        if response.headers["connection"]?.lowercased() == "close" {
            close(fd)
            fd = -1
        }
        return response
    }

    private func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: \(errno)") }
            sent += n
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { throw Failure(description: "connection closed (\(n), errno \(errno))") }
        buffer += chunk[0 ..< n]
    }

    private func readLine() throws -> String {
        while true {
            if let i = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<i], as: UTF8.self).trimmingCharacters(in: ["\r"])
                buffer.removeSubrange(...i)
                return line
            }
            try fill()
        }
    }

    private func read(_ count: Int) throws -> [UInt8] {
        while buffer.count < count { try fill() }
        let out = Array(buffer[..<count])
        buffer.removeSubrange(..<count)
        return out
    }

    private func readResponse(method: String) throws -> Response {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure(description: "bad status line \(statusLine)") }
        var headers: [String: String] = [:]
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body: [UInt8] = []
        if method == "HEAD" || status == 204 || status == 304 {
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            while true {
                let size = Int(try readLine().split(separator: ";")[0], radix: 16) ?? 0
                if size == 0 { _ = try readLine(); break }
                body += try read(size)
                _ = try readLine()
            }
        } else if let length = headers["content-length"].flatMap({ Int($0) }) {
            body = try read(length)
        }
        return Response(status: status, headers: headers, body: body)
    }
}
