#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import HTTP1

/// The outbound queue over a socket pair with a small buffer: partial sends across many
/// gathered arrays lose, repeat and reorder nothing.
@Suite struct OutboundQueueTests {
    /// A connected non-blocking pair: (writer with a small send buffer, reader).
    func socketPair() throws -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        var size: Int32 = 4096
        setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        return (fds[0], fds[1])
    }

    func drain(_ fd: Int32, into received: inout [UInt8]) {
        var buffer = [UInt8](repeating: 0, count: 1000)  // smaller than the arrays: reads split them
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return }
            received += buffer[0..<n]
        }
    }

    @Test func partialSendsAcrossGatheredArraysKeepEveryByteInOrder() throws {
        let (writer, reader) = try socketPair()
        defer { close(writer); close(reader) }
        var queue = OutboundQueue()
        var expected: [UInt8] = []
        // More arrays than one sendmsg gathers, of sizes around the buffer's.
        for i in 0..<200 {
            let piece = (0..<(1 + i * 37 % 3000)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i) }
            queue.append(piece)
            expected += piece
        }
        queue.append([])  // nothing, not an empty array to send
        #expect(queue.count == expected.count)
        var received: [UInt8] = []
        var rounds = 0
        while true {
            let (result, sent) = queue.send(to: writer)
            #expect(queue.count == expected.count - received.count - sent)
            drain(reader, into: &received)
            rounds += 1
            if result == .drained { break }
            #expect(result == .wouldBlock)
            if rounds > 100_000 { break }
        }
        #expect(rounds > 1)  // the small buffer made it partial
        #expect(queue.isEmpty)
        #expect(received == expected)
    }

    @Test func aClosedPeerFailsTheSend() throws {
        let (writer, reader) = try socketPair()
        defer { close(writer) }
        close(reader)
        var queue = OutboundQueue()
        queue.append(Array("lost".utf8))
        let (result, sent) = queue.send(to: writer)
        #expect(result == .failed(EPIPE))
        #expect(sent == 0)
    }
}
