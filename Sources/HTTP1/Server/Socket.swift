#if canImport(Glibc)
import Glibc
#endif

/// Why the server could not start.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ what: String, errno code: Int32 = errno) {
        description = "\(what): \(String(cString: strerror(code)))"
    }

    init(message: String) {
        description = message
    }
}

/// Thin wrappers over the socket calls the server makes.
enum Socket {
    /// Binds and listens on every address `host` resolves to, all on the same port.
    /// Returns the non-blocking listening sockets and the bound port.
    static func listen(host: String, port: Int, backlog: Int) throws -> (fds: [Int32], port: Int) {
        // "localhost" is both loopbacks (RFC 6761), whatever /etc/hosts says; ::1 is
        // skipped where the machine has no IPv6.
        let names = host == "localhost" ? ["127.0.0.1", "::1"] : [host]
        var addresses: [(family: Int32, bytes: [UInt8])] = []
        for name in names {
            for address in try resolve(name, port: port) where !addresses.contains(where: { $0.bytes == address.bytes }) {
                addresses.append(address)
            }
        }
        let optional = Set(host == "localhost" ? [AF_INET6] : [])
        return try bindAll(addresses, optionalFamilies: optional, host: host, port: port, backlog: backlog)
    }

    private static func resolve(_ host: String, port: Int) throws -> [(family: Int32, bytes: [UInt8])] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>? = nil
        let rc = getaddrinfo(host, String(port), &hints, &result)
        guard rc == 0, let first = result else {
            throw HTTPServerError(message: "cannot resolve \(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(result) }

        var addresses: [(family: Int32, bytes: [UInt8])] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let ai = node {
            let bytes = Array(UnsafeRawBufferPointer(start: ai.pointee.ai_addr, count: Int(ai.pointee.ai_addrlen)))
            if !addresses.contains(where: { $0.bytes == bytes }) {
                addresses.append((ai.pointee.ai_family, bytes))
            }
            node = ai.pointee.ai_next
        }
        return addresses
    }

    private static func bindAll(
        _ addresses: [(family: Int32, bytes: [UInt8])], optionalFamilies: Set<Int32>, host: String, port: Int, backlog: Int
    ) throws -> (fds: [Int32], port: Int) {
        let bothFamilies = Set(addresses.map(\.family)).count > 1

        var fds: [Int32] = []
        var boundPort = port
        do {
            for address in addresses {
                var storage = address.bytes
                if boundPort != 0 { setPort(&storage, family: address.family, port: boundPort) }
                let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
                if fd < 0 && optionalFamilies.contains(address.family) { continue }
                guard fd >= 0 else { throw HTTPServerError("socket") }
                fds.append(fd)
                var one: Int32 = 1
                setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
                if address.family == AF_INET6 && bothFamilies {
                    setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
                }
                let bound = storage.withUnsafeBytes { raw in
                    bind(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
                }
                if bound != 0 && optionalFamilies.contains(address.family) && (errno == EADDRNOTAVAIL || errno == EAFNOSUPPORT) {
                    close(fds.removeLast())
                    continue
                }
                guard bound == 0 else { throw HTTPServerError("bind \(host):\(boundPort)") }
                guard Glibc.listen(fd, Int32(backlog)) == 0 else { throw HTTPServerError("listen") }
                if boundPort == 0 { boundPort = localPort(fd) }
            }
        } catch {
            for fd in fds { close(fd) }
            throw error
        }
        return (fds, boundPort)
    }

    private static func setPort(_ storage: inout [UInt8], family: Int32, port: Int) {
        storage.withUnsafeMutableBytes { raw in
            if family == AF_INET {
                raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self).pointee.sin_port = in_port_t(UInt16(port).bigEndian)
            } else {
                raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self).pointee.sin6_port = in_port_t(UInt16(port).bigEndian)
            }
        }
    }

    static func localPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return withUnsafePointer(to: &storage) { p -> Int in
            if Int32(p.pointee.ss_family) == AF_INET {
                return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
            return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
        }
    }

    /// Accepts one connection: non-blocking, close-on-exec, TCP_NODELAY. Returns the fd and
    /// the peer's IP, or nil when none is pending (or on a transient error).
    static func accept(_ listener: Int32) -> (fd: Int32, address: String)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.accept(listener, $0, &length)
            }
        }
        guard fd >= 0 else { return nil }
        // accept4 is not exported to Swift by Glibc's module map.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return (fd, ipString(&storage))
    }

    static func ipString(_ storage: inout sockaddr_storage) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        withUnsafePointer(to: &storage) { p in
            if Int32(p.pointee.ss_family) == AF_INET {
                p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    var a = sin.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count))
                }
            } else if Int32(p.pointee.ss_family) == AF_INET6 {
                p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                    var a = sin6.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &a, &buffer, socklen_t(buffer.count))
                }
            }
        }
        let length = buffer.firstIndex(of: 0) ?? buffer.count
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
