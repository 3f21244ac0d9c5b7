#if canImport(Glibc)
import Glibc
#endif
import HTTPTestSupport
import Testing

/// The shared test client fails on a server that stalls, within its timeout, instead of
/// hanging the test run.
@Suite(.timeLimit(.minutes(1))) struct HTTPTestClientTests {
    /// A socket that listens on a free loopback port and never accepts: the kernel completes
    /// the handshake, then nothing is ever read or answered.
    final class SilentListener {
        let fd: Int32
        let port: Int

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(fd, pointer, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, pointer, &length) == 0
                }
            }
            guard bound else {
                close(fd)
                throw HTTPTestClient.Failure(description: "listen: errno \(errno)")
            }
            self.fd = fd
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(fd) }
    }

    @Test func aServerThatNeverAnswersFailsTheRequestAfterTheTimeout() throws {
        let listener = try SilentListener()
        let client = try HTTPTestClient(port: listener.port, timeout: .milliseconds(300))
        let error = #expect(throws: HTTPTestClient.Failure.self) {
            try client.request("GET", "/")
        }
        #expect(error?.description.contains("receive: timed out") == true, "\(String(describing: error))")
        #expect(client.readResponse() == nil)
        withExtendedLifetime(listener) {}
    }

    @Test func aServerThatNeverReadsFailsALargeUploadAfterTheTimeout() throws {
        let listener = try SilentListener()
        let client = try HTTPTestClient(port: listener.port, timeout: .milliseconds(300))
        // Far more than the socket buffers on both sides hold: the send blocks, then gives up.
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 20)
        let error = #expect(throws: HTTPTestClient.Failure.self) {
            try client.request("PUT", "/", json: body)
        }
        #expect(error?.description.contains("send after") == true, "\(String(describing: error))")
        #expect(error?.description.contains("timed out") == true, "\(String(describing: error))")
        withExtendedLifetime(listener) {}
    }
}
