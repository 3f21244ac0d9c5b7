import HTTPTestSupport
import Dispatch
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import HTTP1

/// Answers `/hold` only when the test opens the gate, so a body stays with the responder
/// (and in the budget) as long as the test needs; everything else at once.
final class GateResponder: HTTPResponder, Sendable {
    let entered = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)

    func respond(to request: HTTPRequest) -> HTTPResponse {
        if request.path == "/hold" {
            entered.signal()
            gate.wait()
        }
        return HTTPResponse(status: 200, contentType: "text/plain", body: Array("\(request.body.count)".utf8))
    }
}

/// Concurrent uploads against a small body budget over real sockets: refused with 503 and
/// `Retry-After` while the budget is taken, accepted once it is given back.
@Suite(.timeLimit(.minutes(1))) struct LoopbackMemoryBudgetTests {
    static let capacity = 1 << 20

    static func upload(_ path: String, _ n: Int) -> [UInt8] {
        bytes("PUT \(path) HTTP/1.1\r\nHost: h\r\nContent-Length: \(n)\r\n\r\n") + [UInt8](repeating: 0x61, count: n)
    }

    @Test func uploadsOverTheBudgetGet503UntilItFrees() throws {
        let responder = GateResponder()
        try withServer({ $0.bodyBudgetCapacity = Self.capacity }, responder: responder) { server, port in
            let budget = server.bodyBudget
            // Two uploads of 400 KB each are held by the responder: 800 KB of 1 MiB taken.
            let holders = try (0..<2).map { _ in try HTTPTestClient(port: port) }
            for holder in holders { holder.send(Self.upload("/hold", 400_000)) }
            for _ in holders { responder.entered.wait() }
            #expect(budget.reserved == 800_000)

            // Concurrent uploads that do not fit are refused before their body is read.
            let refused = Mutex<[Int]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                guard let client = try? HTTPTestClient(port: port) else { return }
                client.send(bytes("PUT /x HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 300000\r\n\r\n"))
                let response = client.readResponse(interim: true)
                if response?.status == 503, response?.headers["retry-after"] != nil,
                    response?.headers["connection"] == "close", client.readsEOF()
                {
                    refused.withLock { $0.append(503) }
                }
            }
            #expect(refused.withLock { $0 } == [503, 503, 503, 503])
            // A chunked upload is cut off once it outgrows what is left.
            let chunked = try HTTPTestClient(port: port)
            chunked.send(bytes("PUT /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"))
            let chunk = bytes("10000\r\n") + [UInt8](repeating: 0x62, count: 0x10000) + bytes("\r\n")
            for _ in 0..<8 { chunked.send(chunk) }
            let cut = try #require(chunked.readResponse())
            #expect(cut.status == 503)
            #expect(cut.headers["retry-after"] != nil)
            #expect(budget.reserved == 800_000)

            // The held requests complete; their bodies are given back, and uploads fit again.
            responder.gate.signal()
            responder.gate.signal()
            for holder in holders { #expect(holder.readResponse()?.text == "400000") }
            let done = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                guard let client = try? HTTPTestClient(port: port) else { return }
                client.send(Self.upload("/x", 450_000))
                if client.readResponse()?.text == "450000" { done.add(1, ordering: .relaxed) }
            }
            #expect(done.load(ordering: .relaxed) == 2)
            // A response can reach the client just before the server releases its body.
            for _ in 0..<5000 where budget.reserved != 0 { usleep(1000) }
            #expect(budget.reserved == 0)
        }
    }

    /// The reservation belongs to the request, not to the socket: a client that resets its
    /// connection while the responder still holds its body does not free the body's bytes
    /// (else N such clients would add N bodies on top of the budget).
    @Test func aResetDuringTheResponseKeepsTheBodyReservedUntilTheResponderReturns() throws {
        let responder = GateResponder()
        try withServer({ $0.bodyBudgetCapacity = Self.capacity }, responder: responder) { server, port in
            let budget = server.bodyBudget
            let client = try HTTPTestClient(port: port)
            client.send(Self.upload("/hold", 400_000))
            responder.entered.wait()
            #expect(budget.reserved == 400_000)
            client.reset()
            // The server sees the reset and closes the socket.
            for _ in 0..<5000 where server.connectionCount != 0 { usleep(1000) }
            #expect(server.connectionCount == 0)
            #expect(budget.reserved == 400_000)  // the responder still holds the body
            // So an upload that would fit only without it is still refused.
            let other = try HTTPTestClient(port: port)
            other.send(Self.upload("/x", 700_000))
            #expect(other.readResponse()?.status == 503)
            responder.gate.signal()
            for _ in 0..<5000 where budget.reserved != 0 { usleep(1000) }
            #expect(budget.reserved == 0)
        }
    }
}
