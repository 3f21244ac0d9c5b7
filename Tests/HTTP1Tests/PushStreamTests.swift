import Dispatch
import Foundation
import HTTPTestSupport
import Synchronization
import Testing
@testable import HTTP1

#if canImport(Glibc)
import Glibc
#endif

/// Push bodies (``HTTPBody/push(_:)``, server-sent events) over real loopback sockets: the
/// transport holds open streams without a worker, ends them once for every reason, and logs them.
@Suite(.timeLimit(.minutes(1))) struct PushStreamTests {
    /// `/push` opens a push body and keeps its stream; anything else is the `TestResponder`'s.
    final class PushResponder: HTTPResponder {
        let streams = Mutex<[HTTPPushStream]>([])
        let ended = Atomic<Int>(0)

        func respond(to request: HTTPRequest) -> HTTPResponse {
            guard request.pathSegments.first == "push" else { return TestResponder().respond(to: request) }
            return HTTPResponse(
                status: 200, headers: ["Content-Type": "text/event-stream"],
                body: .push { [self] stream in
                    stream.onEnd { self.ended.add(1, ordering: .relaxed) }
                    streams.withLock { $0.append(stream) }
                }, logTag: "/push")
        }

        var endedCount: Int { ended.load(ordering: .relaxed) }

        /// The `n`th stream opened (from 0), once it is (within a bounded wait).
        func stream(_ n: Int = 0) throws -> HTTPPushStream {
            try #require(eventually { streams.withLock { $0.count > n } }, "stream \(n) never opened")
            return streams.withLock { $0[n] }
        }
    }

    /// Whether `condition` holds within `timeout`, polling (no fixed sleeps).
    static func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) -> Bool {
        let end = ContinuousClock.now + timeout
        while !condition() {
            if ContinuousClock.now > end { return false }
            usleep(2_000)
        }
        return true
    }

    func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) -> Bool {
        Self.eventually(timeout: timeout, condition)
    }

    /// Opens `/push` on a new connection and reads the response head.
    func openStream(port: Int, version: String = "HTTP/1.1", target: String = "/push") throws -> (HTTPTestClient, HTTPTestResponse) {
        let client = try HTTPTestClient(port: port)
        client.send("GET \(target) \(version)\r\nHost: h\r\n\r\n")
        let head = try #require(client.readHead())
        return (client, head)
    }

    func text(_ bytes: [UInt8]?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    @Test func piecesArriveInOrderAsChunksAndFinishEndsTheBody() throws {
        let responder = PushResponder()
        try withServer(responder: responder) { server, port in
            let (client, head) = try openStream(port: port)
            #expect(head.status == 200)
            #expect(head.headers["transfer-encoding"] == "chunked")
            #expect(head.headers["connection"] == "close")
            #expect(head.headers["content-type"] == "text/event-stream")
            let stream = try responder.stream()
            #expect(stream.send(Array("data: one\n\n".utf8)))
            #expect(text(client.readBytes(16)) == "b\r\ndata: one\n\n\r\n")
            #expect(stream.send([]))  // an empty piece sends nothing (an empty chunk would end the body)
            #expect(stream.send(Array("two".utf8)))
            #expect(stream.send(Array(repeating: UInt8(ascii: "x"), count: 300)))
            #expect(text(client.readBytes(8)) == "3\r\ntwo\r\n")
            #expect(text(client.readBytes(305)) == "12c\r\n" + String(repeating: "x", count: 300))
            #expect(stream.isOpen)
            #expect(responder.endedCount == 0)
            stream.finish()
            #expect(!stream.isOpen)
            #expect(responder.endedCount == 1)
            #expect(text(client.readBytes(7)) == "\r\n0\r\n\r\n")
            #expect(client.readsEOF())
            #expect(!stream.send(Array("late".utf8)))
            client.disconnect()  // else the server lingers for it
            #expect(eventually { server.connectionCount == 0 })
            #expect(responder.endedCount == 1)
        }
    }

    @Test func http10GetsACloseDelimitedBody() throws {
        let responder = PushResponder()
        try withServer(responder: responder) { _, port in
            let client = try HTTPTestClient(port: port)
            client.send("GET /push HTTP/1.0\r\n\r\n")
            let stream = try responder.stream()
            #expect(stream.send(Array("hello ".utf8)))
            #expect(stream.send(Array("world".utf8)))
            stream.finish()
            let response = try #require(client.readResponse())
            #expect(response.status == 200)
            #expect(response.headers["transfer-encoding"] == nil)
            #expect(response.headers["content-length"] == nil)
            #expect(response.headers["connection"] == "close")
            #expect(response.text == "hello world")
        }
    }

    @Test func headGetsTheHeadAndAnEndedStream() throws {
        let responder = PushResponder()
        try withServer(responder: responder) { _, port in
            let client = try HTTPTestClient(port: port)
            client.send("HEAD /push HTTP/1.1\r\nHost: h\r\n\r\n")
            let response = try #require(client.readResponse(head: true))
            #expect(response.status == 200)
            #expect(response.headers["transfer-encoding"] == "chunked")
            #expect(client.readsEOF())
            let stream = try responder.stream()
            #expect(!stream.isOpen)
            #expect(responder.endedCount == 1)
            #expect(!stream.send(Array("x".utf8)))
        }
    }

    /// More open streams than the worker pool has threads (libdispatch's limit is 255), and
    /// still another connection is served: an open stream holds no worker.
    @Test func openStreamsHoldNoWorker() throws {
        let responder = PushResponder()
        try withServer(responder: responder) { _, port in
            let clients = try (0..<300).map { _ in try HTTPTestClient(port: port) }
            for client in clients { client.send("GET /push HTTP/1.1\r\nHost: h\r\n\r\n") }
            _ = try responder.stream(299)
            let other = try HTTPTestClient(port: port)
            other.send("GET /echo/free HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(other.readResponse()?.text.contains("free") == true)
            let piece = Array("data: all\n\n".utf8)
            for stream in responder.streams.withLock({ $0 }) { #expect(stream.send(piece)) }
            for client in clients {
                #expect(client.readHead()?.status == 200)
                #expect(text(client.readBytes(16)) == "b\r\ndata: all\n\n\r\n")
            }
        }
    }

    @Test(arguments: [false, true])
    func peerGoingAwayEndsTheStream(reset: Bool) throws {
        let responder = PushResponder()
        try withServer(responder: responder) { server, port in
            let (client, _) = try openStream(port: port)
            let stream = try responder.stream()
            if reset { client.reset() } else { client.disconnect() }
            #expect(eventually { responder.endedCount == 1 })
            #expect(!stream.isOpen)
            #expect(!stream.send(Array("late".utf8)))
            #expect(eventually { server.connectionCount == 0 })
            #expect(responder.endedCount == 1)
        }
    }

    /// The responder's closure gets its stream exactly once, also when the head cannot be
    /// sent (the client reset the connection while the responder ran): a service that took a
    /// slot for the stream gives it back in the stream's end handler.
    @Test func theClosureGetsAnEndedStreamWhenTheHeadCannotBeSent() throws {
        final class SlowPush: HTTPResponder {
            let go = DispatchSemaphore(value: 0)
            let opened = Mutex<[HTTPPushStream]>([])
            func respond(to request: HTTPRequest) -> HTTPResponse {
                go.wait()
                return HTTPResponse(status: 200, headers: ["Content-Type": "text/event-stream"],
                                    body: .push { [self] stream in opened.withLock { $0.append(stream) } })
            }
        }
        let responder = SlowPush()
        try withServer(responder: responder) { _, port in
            let client = try HTTPTestClient(port: port)
            client.send("GET /push HTTP/1.1\r\nHost: h\r\n\r\n")
            usleep(50_000)  // the request is with the responder
            client.reset()
            usleep(50_000)  // the reset has arrived: sending the head fails
            responder.go.signal()
            #expect(eventually { responder.opened.withLock { $0.count } == 1 })
            #expect(responder.opened.withLock { $0.allSatisfy { !$0.isOpen } })
        }
    }

    @Test func aReaderThatNeverReadsIsDroppedPastTheQueueBound() throws {
        let responder = PushResponder()
        try withServer({ $0.maxPushQueueBytes = 64 * 1024 }, responder: responder) { server, port in
            let (client, _) = try openStream(port: port)
            let stream = try responder.stream()
            let piece = [UInt8](repeating: UInt8(ascii: "p"), count: 16 * 1024)
            // The socket buffers take some megabytes; then 64 KiB queue, then the stream ends.
            var sent = 0
            while sent < 10_000 && stream.send(piece) { sent += 1 }
            #expect(sent < 10_000)
            #expect(!stream.isOpen)
            #expect(eventually { responder.endedCount == 1 })
            #expect(!stream.send(piece))
            #expect(eventually { server.connectionCount == 0 })
            // Dropped without the terminating chunk: the body is truncated, never complete-looking.
            #expect(client.readResponse() == nil)
            #expect(responder.endedCount == 1)
        }
    }

    @Test func aStalledReaderIsDroppedAfterTheWriteTimeout() throws {
        let responder = PushResponder()
        try withServer({ $0.writeTimeout = .milliseconds(300); $0.maxPushQueueBytes = 64 << 20 }, responder: responder) { server, port in
            let (client, _) = try openStream(port: port)
            let stream = try responder.stream()
            // 32 MiB: more than the socket buffers take, less than the queue bound; then nothing
            // moves, and the write timeout ends the stream.
            let piece = [UInt8](repeating: UInt8(ascii: "s"), count: 16 * 1024)
            for _ in 0..<2048 where stream.send(piece) {}
            #expect(eventually { responder.endedCount == 1 })
            #expect(!stream.isOpen)
            #expect(eventually { server.connectionCount == 0 })
            client.disconnect()
        }
    }

    @Test func drainingFinishesOpenStreamsAndTheServerStops() throws {
        let responder = PushResponder()
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.eventLoopCount = 2
        let server = HTTPServer(configuration: configuration, responder: responder)
        try server.start()
        let port = server.boundPort
        let opened = try (0..<3).map { _ in try openStream(port: port).0 }
        let streams = try (0..<3).map { try responder.stream($0) }
        for stream in streams { #expect(stream.send(Array("a".utf8))) }
        let started = ContinuousClock.now
        let stopper = Thread { server.shutdown(deadline: .seconds(30)) }
        stopper.start()
        for client in opened {
            #expect(text(client.readBytes(6)) == "1\r\na\r\n")
            #expect(text(client.readBytes(5)) == "0\r\n\r\n")
            #expect(client.readsEOF())
            client.disconnect()
        }
        server.waitUntilStopped()
        #expect(ContinuousClock.now - started < .seconds(30))  // never waited for the deadline
        #expect(responder.endedCount == 3)
        for stream in streams { #expect(!stream.isOpen) }
    }

    @Test func theAccessLogHasOneEntryPerStreamWhenItEndsAndNeverTheToken() throws {
        let entries = Mutex<[HTTPAccessLogEntry]>([])
        let responder = PushResponder()
        try withServer({ $0.accessLog = { entry in entries.withLock { $0.append(entry) } } }, responder: responder) { _, port in
            let (client, _) = try openStream(port: port, target: "/push?view=a&access_token=s3cret&b=1")
            let stream = try responder.stream()
            #expect(stream.send(Array("12345".utf8)))
            #expect(text(client.readBytes(10)) == "5\r\n12345\r\n")
            #expect(entries.withLock { $0.isEmpty })  // not before the stream ends
            stream.finish()
            #expect(eventually { entries.withLock { $0.count == 1 } })
            let push = try #require(entries.withLock { $0.first })
            #expect(push.target == "/push?view=a&access_token=REDACTED&b=1")
            #expect(push.status == 200)
            #expect(push.bodyBytes == 5)
            #expect(push.logTag == "/push")

            let plain = try HTTPTestClient(port: port)
            _ = try plain.request("GET", "/echo?access%5Ftoken=s3cret&x=access_token")
            #expect(eventually { entries.withLock { $0.count == 2 } })
            let echo = try #require(entries.withLock { $0.last })
            #expect(echo.target == "/echo?access%5Ftoken=REDACTED&x=access_token")
            for entry in entries.withLock({ $0 }) { #expect(!"\(entry)".contains("s3cret")) }
        }
    }

    @Test func concurrentSendsNeverInterleaveWithinAPiece() throws {
        let responder = PushResponder()
        try withServer({ $0.maxPushQueueBytes = 64 << 20 }, responder: responder) { _, port in
            let client = try HTTPTestClient(port: port)
            client.send("GET /push HTTP/1.1\r\nHost: h\r\n\r\n")
            let stream = try responder.stream()
            let letters = Array("abcdefgh".utf8)
            let senders = Thread {
                DispatchQueue.concurrentPerform(iterations: 8) { t in
                    for i in 0..<300 {
                        // "<" letter × (1 + i % 97 * 13) ">": a piece is whole only if its run is unbroken.
                        var piece = [UInt8(ascii: "<")]
                        piece += [UInt8](repeating: letters[t], count: 1 + i % 97 * 13)
                        piece.append(UInt8(ascii: ">"))
                        _ = stream.send(piece)
                    }
                }
                stream.finish()
            }
            senders.start()
            let response = try #require(client.readResponse())
            var counts = [UInt8: Int]()
            for piece in response.text.split(separator: ">") {
                let bytes = Array(piece.utf8)
                guard bytes.first == UInt8(ascii: "<"), let letter = bytes.dropFirst().first,
                      bytes.dropFirst().allSatisfy({ $0 == letter }) else {
                    Issue.record("interleaved piece: \(piece.prefix(40))")
                    return
                }
                #expect(bytes.count - 1 == 1 + (counts[letter] ?? 0) % 97 * 13, "pieces of one thread stay in order")
                counts[letter, default: 0] += 1
            }
            #expect(counts.values.sorted() == Array(repeating: 300, count: 8))
        }
    }

    @Test func redactingAccessToken() {
        let cases: [(String, String)] = [
            ("/a", "/a"),
            ("/a?x=1", "/a?x=1"),
            ("/a?access_token=t", "/a?access_token=REDACTED"),
            ("/a?access_token", "/a?access_token=REDACTED"),
            ("/a?access_token=", "/a?access_token=REDACTED"),
            ("/a?x=access_token&access_token=t&access_token=u", "/a?x=access_token&access_token=REDACTED&access_token=REDACTED"),
            ("/a?access%5ftoken=t&y", "/a?access%5ftoken=REDACTED&y"),
            ("/a?access_tokens=t", "/a?access_tokens=t"),
            ("/a?&&access_token=t=u&", "/a?&&access_token=REDACTED&"),
        ]
        for (target, logged) in cases { #expect(RequestTarget.redactingAccessToken(target) == logged) }
    }
}
