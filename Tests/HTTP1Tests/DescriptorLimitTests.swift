import Foundation
import HTTPTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A server out of file descriptors (long-lived push streams make it likely) answers the
/// newcomers 503 instead of leaving them in the backlog with the listener waking its loop
/// forever. Run on `http-bench-server` in a process of its own with a small `ulimit -n`, so
/// the limit touches no other test.
@Suite(.timeLimit(.minutes(1))) struct DescriptorLimitTests {
    /// `http-bench-server`, which `swift build --build-tests` builds beside the test bundle.
    static let benchServer = Tool.builtBesideTests("http-bench-server")

    @Test(.enabled(if: benchServer != nil, "http-bench-server is not built beside the tests (swift build --build-tests)"),
          arguments: [1, 2])
    func newcomersPastTheDescriptorLimitGet503AndTheServerRecovers(loops: Int) throws {
        try withProcess("/bin/sh", ["-c", "ulimit -n 40 && exec \"$0\" --port 0 --loops \(loops)", Self.benchServer!], reading: .output) { _, output in
            // "http-bench-server listening on 127.0.0.1:PORT (...)"
            let line = read(output, until: "\n")
            let port = try #require(line.split(separator: ":").last?.split(separator: " ").first.flatMap { Int($0) }, "no port in \(line)")

            var clients: [HTTPTestClient] = []
            var statuses: [Int] = []
            for _ in 0..<60 {
                let client = try HTTPTestClient(port: port, timeout: .seconds(3))
                client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
                statuses.append(client.readResponse()?.status ?? 0)
                clients.append(client)  // kept open: each holds a descriptor of the server's
            }
            #expect(statuses.first == 200)
            #expect(!statuses.contains(0), "a newcomer got no answer: \(statuses)")
            #expect(statuses.contains(503))
            #expect(statuses.allSatisfy { $0 == 200 || $0 == 503 })

            for client in clients { client.disconnect() }
            // Descriptors free again: served as before (the server closes idle keep-alive
            // connections it saw end, so poll a little for the first fresh answer).
            var recovered = false
            for _ in 0..<100 where !recovered {
                let client = try HTTPTestClient(port: port, timeout: .seconds(3))
                client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
                recovered = client.readResponse()?.status == 200
                if !recovered { usleep(10_000) }
            }
            #expect(recovered)
        }
    }
}
