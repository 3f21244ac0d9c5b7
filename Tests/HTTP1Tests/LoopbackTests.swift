import Foundation
import HTTPTestSupport
import Synchronization
import Testing
@testable import HTTP1

#if canImport(Glibc)
import Glibc
#endif

/// The server over real loopback sockets, with curl, Python's http.client and raw sockets.
@Suite(.timeLimit(.minutes(1))) struct LoopbackTests {
    // MARK: curl

    @Test(.enabled(if: Tool.curl != nil, "curl is not installed"))
    func curlGetHeadAndPost() throws {
        try withServer { _, port in
            let got = try curl(["-H", "X-Test: yes", "http://127.0.0.1:\(port)/echo/a%20b/?x=1&y=a+b"])
            #expect(got.exitStatus == 0, "\(got.errorText)")
            #expect(got.headers.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(got.headers.contains("\r\nDate: "))
            #expect(got.text.contains("segments=[\"echo\", \"a b\", \"\"]"))
            #expect(got.text.contains("query=x=1&y=a b"))
            #expect(got.text.contains("x-test=yes"))

            // HEAD: the same headers as GET, no body.
            let get = try curl(["http://127.0.0.1:\(port)/plain"])
            let head = try curl(["-I", "http://127.0.0.1:\(port)/plain"])
            #expect(get.text == "ok")
            #expect(head.status == 200)
            #expect(head.headers.contains("Content-Length: 2\r\n"))
            #expect(head.headers.hasSuffix("\r\n\r\n"))
            #expect(head.body == Array(head.headers.utf8))  // -I prints the headers, and no body follows
            let names = { (s: String) in s.components(separatedBy: "\r\n").compactMap { $0.split(separator: ":").first.map(String.init) } }
            #expect(names(head.headers) == names(get.headers))

            let posted = try curl(["http://127.0.0.1:\(port)/echo"], body: Array("hello body".utf8))
            #expect(posted.text.contains("method=POST"))
            #expect(posted.text.contains("body=10"))
        }
    }

    @Test(.enabled(if: Tool.curl != nil, "curl is not installed"))
    func curlLargeUploadWithExpectContinueAndChunked() throws {
        var data = [UInt8](repeating: 0, count: 3_000_000)
        for i in data.indices { data[i] = UInt8(truncatingIfNeeded: i &* 31 &+ i >> 8) }
        var expected: UInt64 = 0
        for (i, b) in data.enumerated() { expected = expected &+ UInt64(b) &* UInt64(i % 251 + 1) }

        try withServer { _, port in
            let url = "http://127.0.0.1:\(port)/sum"
            let plain = try curl(["-H", "Expect: 100-continue", url], body: data)
            #expect(plain.text == "\(data.count) \(expected)")
            #expect(plain.headers.hasPrefix("HTTP/1.1 100 Continue\r\n"))
            let chunked = try curl(["-H", "Transfer-Encoding: chunked", url], body: data)
            #expect(chunked.text == "\(data.count) \(expected)")
        }
    }

    @Test func expectContinueRejectedWith413WhenTooLarge() throws {
        try withServer({ $0.maxBodySize = 1000 }) { _, port in
            let client = try HTTPTestClient(port: port)
            client.send("PUT /sum HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n")
            let response = try #require(client.readResponse(interim: true))
            #expect(response.status == 413)  // never a 100
            #expect(response.headers["connection"] == "close")
            #expect(response.headers["content-type"] == "application/json")
            #expect(response.text.contains("\"status\":413"))
            #expect(client.readsEOF())

            let ok = try HTTPTestClient(port: port)
            ok.send("PUT /sum HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
            let interim = try #require(ok.readResponse(interim: true))
            #expect(interim.status == 100)
            ok.send("abc")
            #expect(ok.readResponse()?.text.hasPrefix("3 ") == true)
        }
    }

    // MARK: Python http.client

    @Test(.enabled(if: Tool.python3 != nil, "python3 is not installed"))
    func pythonKeepAliveStreamingAndHTTP10() throws {
        let python = try #require(Tool.python3)
        try withServer { _, port in
            let script = """
            import http.client, socket
            c = http.client.HTTPConnection("127.0.0.1", \(port), timeout=10)
            for i in range(5):
                c.request("GET", "/echo/%d?i=%d" % (i, i))
                r = c.getresponse(); body = r.read()
                assert r.status == 200 and b"segments=[\\"echo\\", \\"%d\\"]" % i in body, body
            sock = c.sock
            c.request("POST", "/echo", body=b"x" * 1000, headers={"Content-Type": "text/plain"})
            r = c.getresponse(); assert b"body=1000" in r.read()
            c.request("GET", "/stream?n=200&size=5000")
            r = c.getresponse()
            assert r.getheader("Transfer-Encoding") == "chunked", r.getheaders()
            data = r.read(); assert len(data) == 1000000, len(data)
            assert c.sock is sock, "connection was not kept alive"
            c.request("HEAD", "/stream?n=3")
            r = c.getresponse(); assert r.read() == b""
            c.close()
            c10 = http.client.HTTPConnection("127.0.0.1", \(port), timeout=10)
            c10._http_vsn, c10._http_vsn_str = 10, "HTTP/1.0"
            c10.request("GET", "/stream?n=4&size=10")
            r = c10.getresponse(); data = r.read()
            assert len(data) == 40 and r.getheader("Transfer-Encoding") is None, r.getheaders()
            print("python-ok")
            """
            let result = try runProcess(python, ["-c", script])
            #expect(result.status == 0, "\(result.errorText)")
            #expect(result.text.contains("python-ok"))
        }
    }

    // MARK: Raw sockets

    @Test func pipelinedResponsesComeInOrder() throws {
        try withServer { _, port in
            let client = try HTTPTestClient(port: port)
            // /slow first: the later, fast requests must still be answered after it.
            client.send("GET /slow?ms=200 HTTP/1.1\r\nHost: h\r\n\r\nGET /echo/2 HTTP/1.1\r\nHost: h\r\n\r\nHEAD /echo/3 HTTP/1.1\r\nHost: h\r\n\r\nPOST /echo/4 HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhiGET /echo/5 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
            #expect(client.readResponse()?.text == "slow")
            #expect(client.readResponse()?.text.contains("[\"echo\", \"2\"]") == true)
            let head = try #require(client.readResponse(head: true))
            #expect(head.headers["content-length"] != nil)
            #expect(client.readResponse()?.text.contains("body=2") == true)
            let last = try #require(client.readResponse())
            #expect(last.text.contains("[\"echo\", \"5\"]"))
            #expect(last.headers["connection"] == "close")
            #expect(client.readsEOF())
        }
    }

    @Test func deepPipelinePausesReadingAndKeepsOrder() throws {
        // 300 requests in one write, with a 512-byte pipeline buffer: reading pauses and
        // resumes many times; every response arrives, in order.
        try withServer({ $0.maxBufferedPipelineBytes = 512 }) { _, port in
            let client = try HTTPTestClient(port: port, timeout: .seconds(10))
            let requests = (0..<300).map { "GET /echo/\($0) HTTP/1.1\r\nHost: h\r\n\r\n" }.joined()
            let sender = Thread { client.send(requests) }
            sender.start()
            for i in 0..<300 {
                let response = client.readResponse()
                #expect(response?.text.contains("[\"echo\", \"\(i)\"]") == true, "response \(i)")
                if response == nil { break }
            }
        }
    }

    @Test func stalledReaderIsDroppedAfterTheWriteTimeout() throws {
        let outcome = Mutex<String>("running")
        struct Big: HTTPResponder {
            let done: @Sendable (String) -> Void
            func respond(to request: HTTPRequest) -> HTTPResponse {
                HTTPResponse(body: .stream { writer in
                    let piece = [UInt8](repeating: 7, count: 64 * 1024)
                    do {
                        for _ in 0..<10_000 { try writer.write(piece) }
                        done("finished")
                    } catch {
                        done("stopped")
                        throw error
                    }
                })
            }
        }
        let responder = Big { result in outcome.withLock { $0 = result } }
        try withServer({ $0.writeTimeout = .milliseconds(500) }, responder: responder) { server, port in
            let client = try HTTPTestClient(port: port)
            client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            // Never read: the writer blocks at the high-water mark, then gives up.
            for _ in 0..<400 where outcome.withLock({ $0 }) == "running" { usleep(10_000) }
            #expect(outcome.withLock { $0 } == "stopped")
            for _ in 0..<200 where server.connectionCount > 0 { usleep(10_000) }
            #expect(server.connectionCount == 0)
        }
    }

    static let malformed: [(String, Int)] = [
        ("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: abc\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, identity\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n", 400),
        ("GET /a\u{7F} HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        ("FROB / HTTP/1.1\r\nHost: h\r\n\r\n", 501),
        ("GET / HTTP/3.0\r\nHost: h\r\n\r\n", 505),
        ("GET /%zz HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("GET /%00 HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: h\r\n\r\n", 414),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "a", count: 40000) + "\r\n\r\n", 431),
        ("GET / HTTP/1.1\r\nHost: h\r\n" + String(repeating: "X: y\r\n", count: 101) + "\r\n", 431),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2000000000\r\n\r\n", 413),
    ]

    @Test(arguments: malformed)
    func malformedRequestsGetAStatusAndAClose(raw: String, status: Int) throws {
        try withServer { _, port in
            let client = try HTTPTestClient(port: port)
            client.send(raw)
            let response = try #require(client.readResponse())
            #expect(response.status == status)
            #expect(response.headers["connection"] == "close")
            #expect(response.headers["date"] != nil)
            #expect(client.readsEOF())
        }
    }

    @Test func errorBodiesGoThroughTheRenderer() throws {
        try withServer({ $0.errorRenderer = { status, title, _ in ("application/problem+json", Array("{\"s\":\(status),\"t\":\"\(title)\"}".utf8)) } }) { _, port in
            let client = try HTTPTestClient(port: port)
            client.send("GET / HTTP/1.1\r\n\r\n")
            let response = try #require(client.readResponse())
            #expect(response.headers["content-type"] == "application/problem+json")
            #expect(response.text == "{\"s\":400,\"t\":\"Bad Request\"}")
        }
    }

    @Test func slowlorisGets408WhileOthersAreServed() throws {
        try withServer({ $0.headerReadTimeout = .milliseconds(800) }) { _, port in
            let trickler = try HTTPTestClient(port: port)
            let request = Array("GET / HTTP/1.1\r\nHost: h\r\nX-Slow: \(String(repeating: "s", count: 100))\r\n\r\n".utf8)
            let done = Atomic<Bool>(false)
            let thread = Thread {
                for byte in request {
                    if done.load(ordering: .relaxed) { break }
                    trickler.send([byte])
                    usleep(20_000)
                }
            }
            thread.start()
            // Meanwhile another client is served normally, many times.
            let other = try HTTPTestClient(port: port)
            for i in 0..<20 {
                other.send("GET /echo/\(i) HTTP/1.1\r\nHost: h\r\n\r\n")
                #expect(other.readResponse()?.status == 200)
                usleep(10_000)
            }
            let response = trickler.readResponse()
            done.store(true, ordering: .relaxed)
            #expect(response?.status == 408)
            #expect(response?.headers["connection"] == "close")
        }
    }

    @Test func connectionLimitAnswers503AndServesTheRest() throws {
        try withServer({ $0.maxConnections = 2 }) { server, port in
            let a = try HTTPTestClient(port: port)
            let b = try HTTPTestClient(port: port)
            a.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            b.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(a.readResponse()?.status == 200)
            #expect(b.readResponse()?.status == 200)
            let c = try HTTPTestClient(port: port)
            c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            let rejected = c.readResponse()
            #expect(rejected?.status == 503)
            #expect(rejected?.headers["connection"] == "close")
            a.send("GET /echo/again HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(a.readResponse()?.status == 200)
        }
    }

    @Test func keepAliveLimitsAndClose() throws {
        try withServer({ $0.maxRequestsPerConnection = 2 }) { _, port in
            let client = try HTTPTestClient(port: port)
            client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(client.readResponse()?.headers["connection"] == nil)
            client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(client.readResponse()?.headers["connection"] == "close")
            #expect(client.readsEOF())

            let closer = try HTTPTestClient(port: port)
            closer.send("GET /close HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(closer.readResponse()?.headers["connection"] == "close")
            #expect(closer.readsEOF())

            let old = try HTTPTestClient(port: port)
            old.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(old.readResponse()?.headers["connection"] == "keep-alive")
            old.send("GET / HTTP/1.0\r\n\r\n")
            #expect(old.readResponse()?.headers["connection"] == "close")
            #expect(old.readsEOF())
        }
    }

    @Test func stalledBodyGets408() throws {
        try withServer({ $0.bodyReadTimeout = .milliseconds(300) }) { _, port in
            let client = try HTTPTestClient(port: port)
            client.send("POST /sum HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nab")
            let response = try #require(client.readResponse())
            #expect(response.status == 408)
            #expect(response.headers["connection"] == "close")
        }
    }

    @Test func chunkedUploadWithExtensionsAndTrailers() throws {
        try withServer { _, port in
            let client = try HTTPTestClient(port: port)
            client.send("POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n4;a=b\r\nabcd\r\n")
            usleep(50_000)
            client.send("2\r\nef\r\n0\r\nX-Trailer: 1\r\n\r\n")
            #expect(client.readResponse()?.text.contains("body=6") == true)
        }
    }

    @Test func idleConnectionsAreClosed() throws {
        try withServer({ $0.idleTimeout = .milliseconds(300) }) { _, port in
            let client = try HTTPTestClient(port: port)
            client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(client.readResponse()?.status == 200)
            #expect(client.readsEOF())  // within the 5 s receive timeout
        }
    }

    @Test func responsesAreFramedAndValidated() throws {
        try withServer { _, port in
            let client = try HTTPTestClient(port: port)
            client.send("GET /nocontent HTTP/1.1\r\nHost: h\r\n\r\n")
            let empty = try #require(client.readResponse())
            #expect(empty.status == 204)
            #expect(empty.headers["content-length"] == nil)
            client.send("GET /badheader HTTP/1.1\r\nHost: h\r\n\r\n")
            let bad = try #require(client.readResponse())
            #expect(bad.status == 500)
            #expect(bad.headers["set-cookie"] == nil)
        }
    }

    @Test func slowReaderGetsTheWholeStream() throws {
        // 8 MB streamed to a client that does not read for a while: the writer must block
        // (back-pressure) rather than buffer, and everything must arrive intact.
        try withServer { _, port in
            let client = try HTTPTestClient(port: port, timeout: .seconds(20))
            client.send("GET /stream?n=2000&size=4000 HTTP/1.1\r\nHost: h\r\n\r\n")
            usleep(300_000)
            let response = try #require(client.readResponse())
            #expect(response.body.count == 8_000_000)
            #expect(response.headers["transfer-encoding"] == "chunked")
        }
    }

    @Test func largeStreamWritesArriveIntact() throws {
        try withServer { _, port in
            let client = try HTTPTestClient(port: port, timeout: .seconds(20))
            client.send("GET /bigwrites HTTP/1.1\r\nHost: h\r\n\r\n")
            let response = try #require(client.readResponse())
            var expected = [UInt8](repeating: UInt8(ascii: "a"), count: 3_000_000)
            expected += Array("middle".utf8)
            expected += [UInt8](repeating: UInt8(ascii: "b"), count: 3_000_000)
            #expect(response.body == expected)
        }
    }

    @Test func clientVanishingMidStreamStopsTheWriter() throws {
        let stopped = Atomic<Int>(0)
        struct Endless: HTTPResponder {
            let stopped: @Sendable () -> Void
            func respond(to request: HTTPRequest) -> HTTPResponse {
                HTTPResponse(body: .stream { writer in
                    defer { stopped() }
                    let piece = [UInt8](repeating: 1, count: 64 * 1024)
                    while true { try writer.write(piece) }
                })
            }
        }
        let responder = Endless { stopped.add(1, ordering: .relaxed) }
        try withServer({ _ in }, responder: responder) { _, port in
            do {
                let client = try HTTPTestClient(port: port)
                client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
                usleep(100_000)
            }  // closed here
            for _ in 0..<200 where stopped.load(ordering: .relaxed) == 0 { usleep(10_000) }
            #expect(stopped.load(ordering: .relaxed) == 1)
        }
    }

    @Test func ipv6Loopback() throws {
        try withServer({ $0.host = "::1" }) { _, port in
            let client = try HTTPTestClient(port: port, host: "::1")
            client.send("GET /echo HTTP/1.1\r\nHost: [::1]\r\n\r\n")
            #expect(client.readResponse()?.status == 200)
        }
    }

    @Test func localhostListensOnBothFamilies() throws {
        try withServer({ $0.host = "localhost" }) { _, port in
            for host in ["127.0.0.1", "::1"] {
                let client = try HTTPTestClient(port: port, host: host)
                client.send("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
                #expect(client.readResponse()?.status == 200, "\(host)")
            }
        }
    }

    @Test func wildcardIPv6AlsoTakesIPv4() throws {
        try withServer({ $0.host = "::" }) { _, port in
            for host in ["127.0.0.1", "::1"] {
                let client = try HTTPTestClient(port: port, host: host)
                client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(client.readResponse()?.status == 200, "\(host)")
            }
        }
    }

    @Test func runUntilTerminatedReturnsAfterShutdown() throws {
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), responder: TestResponder())
        let returned = Atomic<Bool>(false)
        let runner = Thread {
            try? server.runUntilTerminated(shutdownDeadline: .seconds(1))
            returned.store(true, ordering: .relaxed)
        }
        runner.start()
        for _ in 0..<200 where server.boundPort == 0 { usleep(5_000) }
        let client = try HTTPTestClient(port: server.boundPort)
        client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(client.readResponse()?.status == 200)
        // It returns at once here, but may take up to the 1 s deadline (the client's
        // connection is still open) and more on a loaded machine: one run of the whole
        // suite in CI missed a 1 s wait.
        server.shutdown(deadline: .seconds(1))
        for _ in 0..<2_000 where !returned.load(ordering: .relaxed) { usleep(5_000) }
        let didReturn = returned.load(ordering: .relaxed)
        #expect(didReturn)
    }

    @Test func accessLogSeesEveryResponse() throws {
        let entries = Mutex<[HTTPAccessLogEntry]>([])
        try withServer({ $0.accessLog = { entry in entries.withLock { $0.append(entry) } } }) { _, port in
            let client = try HTTPTestClient(port: port)
            client.send("GET /echo/x HTTP/1.1\r\nHost: h\r\n\r\n")
            _ = client.readResponse()
            for _ in 0..<100 where entries.withLock({ $0.isEmpty }) { usleep(5_000) }
            let entry = try #require(entries.withLock { $0.first })
            #expect(entry.method == "GET")
            #expect(entry.target == "/echo/x")
            #expect(entry.status == 200)
            #expect(entry.logTag == "/echo")
            #expect(entry.remoteAddress == "127.0.0.1")
        }
    }

    /// The logged duration runs from the request's first byte to the response's last: a slow
    /// upload is logged with the time it took (it was timed from the body's end). The client
    /// waits for `100 Continue` before it pauses, so the server has read the head by then
    /// however busy the machine is.
    @Test func accessLogTimesTheWholeExchange() throws {
        let entries = Mutex<[HTTPAccessLogEntry]>([])
        try withServer({ $0.accessLog = { entry in entries.withLock { $0.append(entry) } } }) { _, port in
            let client = try HTTPTestClient(port: port)
            client.send("POST /echo/x HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n")
            #expect(client.readResponse(interim: true)?.status == 100)
            usleep(300_000)
            client.send("1234567890")
            #expect(client.readResponse()?.status == 200)
            for _ in 0..<2_000 where entries.withLock({ $0.isEmpty }) { usleep(5_000) }
            let entry = try #require(entries.withLock { $0.first })
            #expect(entry.duration >= .milliseconds(300), "\(entry.duration)")
        }
    }

    /// Past the shutdown's deadline, a request whose response has not begun is answered 503
    /// with `Connection: close`, saying whether it was processed: an upload still being read
    /// was not; a request with the responder may have been. A response under way is cut.
    @Test func shutdownPastItsDeadlineAnswersWhatItCuts() throws {
        try withServer { server, port in
            let upload = try HTTPTestClient(port: port)
            upload.send("POST /echo/x HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n12345")
            let busy = try HTTPTestClient(port: port)
            busy.send("GET /slow?ms=5000 HTTP/1.1\r\nHost: h\r\n\r\n")
            usleep(200_000)
            let started = ContinuousClock.now
            server.shutdown(deadline: .milliseconds(300))
            #expect(ContinuousClock.now - started < .seconds(3))
            for (client, said) in [(upload, "it was not processed"), (busy, "it may or may not have taken effect")] {
                let response = try #require(client.readResponse())
                #expect(response.status == 503)
                #expect(response.headers["connection"] == "close")
                #expect(response.headers["retry-after"] == "1")
                #expect(response.text.contains(said), "\(response.text)")
                #expect(client.readsEOF())
            }
        }
    }

    @Test func gracefulShutdownFinishesInFlightRequests() throws {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.eventLoopCount = 2
        let server = HTTPServer(configuration: configuration, responder: TestResponder())
        try server.start()
        let port = server.boundPort
        let idle = try HTTPTestClient(port: port)
        let busy = try HTTPTestClient(port: port)
        busy.send("GET /slow?ms=400 HTTP/1.1\r\nHost: h\r\n\r\n")
        usleep(100_000)
        let started = ContinuousClock.now
        let stopper = Thread { server.shutdown(deadline: .seconds(5)) }
        stopper.start()
        let response = try #require(busy.readResponse())
        #expect(response.text == "slow")
        #expect(response.headers["connection"] == "close")
        #expect(busy.readsEOF())
        #expect(idle.readsEOF())
        server.waitUntilStopped()
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(throws: (any Error).self) {
            let late = try HTTPTestClient(port: port)
            late.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            if late.readResponse() == nil { throw HTTPServerError(message: "closed") }
        }
    }
}
