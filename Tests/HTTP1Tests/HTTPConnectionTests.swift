import Testing
@testable import HTTP1

/// The connection state machine, driven without sockets and with a fake clock.
@Suite struct HTTPConnectionTests {
    static let second = Duration.seconds(1)

    static var settings: HTTPConnection.Settings {
        var s = HTTPConnection.Settings()
        s.limits = testLimits
        s.headerTimeout = .seconds(5)
        s.bodyTimeout = .seconds(7)
        s.idleTimeout = .seconds(30)
        s.lingerTimeout = .seconds(2)
        s.maxRequestsPerConnection = 3
        s.maxBufferedBytes = 64
        return s
    }

    /// The instant `seconds` after the clock's origin.
    func at(_ seconds: Int) -> MonotonicInstant { 0 + .seconds(seconds) }

    func machine(now: MonotonicInstant = 0) -> HTTPConnection {
        HTTPConnection(settings: Self.settings, remoteAddress: "10.0.0.1", now: now)
    }

    func receive(_ m: inout HTTPConnection, _ s: String, now: MonotonicInstant = 0) -> HTTPConnection.Action {
        bytes(s).withUnsafeBytes { m.bytesReceived($0, now: now) }
        return m.nextAction(now: now)
    }

    func respondedRequest(_ action: HTTPConnection.Action) -> (HTTPRequest, Bool)? {
        if case .respond(let request, let keepAlive) = action { return (request, keepAlive) }
        return nil
    }

    @Test func oneRequestThenIdle() throws {
        var m = machine()
        #expect(m.isIdle)
        let (request, keepAlive) = try #require(respondedRequest(receive(&m, "GET /x?a=1 HTTP/1.1\r\nHost: h\r\n\r\n")))
        #expect(request.path == "/x")
        #expect(request.queryValue("a") == "1")
        #expect(request.remoteAddress == "10.0.0.1")
        #expect(keepAlive)
        #expect(m.mode == .responding)
        #expect(m.nextAction(now: 0) == .waitForBytes)
        #expect(m.responseCompleted(keepAlive: true, now: 1) == .waitForBytes)
        #expect(m.isIdle)
    }

    @Test func pipelinedRequestsWaitForThePreviousResponse() throws {
        var m = machine()
        let raw = "GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\nGET /3 HTTP/1.1\r\nHost: h\r\n\r\n"
        let first = try #require(respondedRequest(receive(&m, raw)))
        #expect(first.0.path == "/1")
        #expect(m.nextAction(now: 0) == .waitForBytes)  // /2 stays buffered
        let second = try #require(respondedRequest(m.responseCompleted(keepAlive: true, now: 0)))
        #expect(second.0.path == "/2")
        let third = try #require(respondedRequest(m.responseCompleted(keepAlive: true, now: 0)))
        #expect(third.0.path == "/3")
        // maxRequestsPerConnection = 3: the third response closes the connection.
        #expect(third.1 == false)
        #expect(m.responseCompleted(keepAlive: false, now: 0) == .finish)
    }

    @Test func expectContinueThenBody() throws {
        var m = machine()
        #expect(receive(&m, "PUT /u HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n") == .sendContinue)
        #expect(m.nextAction(now: 0) == .waitForBytes)
        let (request, _) = try #require(respondedRequest(receive(&m, "abc")))
        #expect(request.body == bytes("abc"))
    }

    @Test func expectContinueTooLargeIsRejected() throws {
        var m = machine()
        let action = receive(&m, "PUT /u HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n")
        guard case .sendError(let error) = action else {
            Issue.record("expected 413, got \(action)")
            return
        }
        #expect(error.status == 413)
    }

    @Test func errorThenFinishAndLinger() throws {
        var m = machine()
        guard case .sendError(let error) = receive(&m, "GET / HTTP/1.1\r\nHost : h\r\n\r\n") else {
            Issue.record("expected an error")
            return
        }
        #expect(error.status == 400)
        #expect(m.mode == .finishing)
        #expect(receive(&m, "GET / HTTP/1.1\r\nHost: h\r\n\r\n") == .waitForBytes)  // ignored
        #expect(m.writeSideClosed(now: 10) == .waitForBytes)
        #expect(m.mode == .lingering(since: 10))
        #expect(m.checkTimeouts(now: 0 + .nanoseconds(10) + Self.second) == .waitForBytes)
        #expect(m.checkTimeouts(now: 0 + .nanoseconds(10) + Self.second * 2) == .close)
    }

    @Test func lingeringEndsAtPeerEOF() {
        var m = machine()
        _ = receive(&m, "BREW / HTTP/1.1\r\n\r\n")
        #expect(m.writeSideClosed(now: 0) == .waitForBytes)
        m.peerClosedInput()
        #expect(m.nextAction(now: 0) == .close)
    }

    @Test func headerTimeoutCountsFromTheFirstByte() {
        var m = machine()
        #expect(m.checkTimeouts(now: at(20)) == .waitForBytes)  // idle, not yet expired
        #expect(receive(&m, "GET / HT", now: at(20)) == .waitForBytes)
        // Trickling more bytes does not extend the deadline (slowloris).
        #expect(receive(&m, "TP/1.1\r\nHo", now: at(24)) == .waitForBytes)
        #expect(m.checkTimeouts(now: at(24)) == .waitForBytes)
        guard case .sendError(let error) = m.checkTimeouts(now: at(25)) else {
            Issue.record("expected 408")
            return
        }
        #expect(error.status == 408)
    }

    @Test func bodyTimeoutCountsFromLastProgress() {
        var m = machine()
        #expect(receive(&m, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nab") == .waitForBytes)
        #expect(receive(&m, "cd", now: at(6)) == .waitForBytes)
        #expect(m.checkTimeouts(now: at(12)) == .waitForBytes)
        guard case .sendError(let error) = m.checkTimeouts(now: at(13)) else {
            Issue.record("expected 408")
            return
        }
        #expect(error.status == 408)
    }

    @Test func idleTimeoutClosesSilently() throws {
        var m = machine()
        _ = try #require(respondedRequest(receive(&m, "GET / HTTP/1.1\r\nHost: h\r\n\r\n")))
        #expect(m.checkTimeouts(now: at(100)) == .waitForBytes)  // responding: no deadline
        #expect(m.responseCompleted(keepAlive: true, now: at(100)) == .waitForBytes)
        #expect(m.checkTimeouts(now: at(129)) == .waitForBytes)
        #expect(m.checkTimeouts(now: at(130)) == .close)
    }

    /// Found with wrk: a worker stamps `idleSince` a little after the I/O thread read its
    /// clock; `now - idleSince` must not wrap around into "idle for ages".
    @Test func clockReadingsFromOtherThreadsMayBeSlightlyBehind() throws {
        var m = machine()
        _ = try #require(respondedRequest(receive(&m, "GET / HTTP/1.1\r\nHost: h\r\n\r\n", now: at(10))))
        #expect(m.responseCompleted(keepAlive: true, now: at(10) + .nanoseconds(500)) == .waitForBytes)
        #expect(m.checkTimeouts(now: at(10) + .nanoseconds(400)) == .waitForBytes)
        _ = receive(&m, "GET / HT", now: at(20))
        #expect(m.checkTimeouts(now: at(20) - .nanoseconds(1)) == .waitForBytes)
    }

    @Test func http10ClosesByDefault() throws {
        var m = machine()
        let (_, keepAlive) = try #require(respondedRequest(receive(&m, "GET / HTTP/1.0\r\n\r\n")))
        #expect(!keepAlive)
        #expect(m.responseCompleted(keepAlive: false, now: 0) == .finish)
    }

    @Test func eofBetweenRequestsCloses() {
        var m = machine()
        m.peerClosedInput()
        #expect(m.nextAction(now: 0) == .close)
    }

    @Test func eofAfterACompleteRequestStillAnswers() throws {
        var m = machine()
        bytes("GET / HTTP/1.1\r\nHost: h\r\n\r\n").withUnsafeBytes { m.bytesReceived($0, now: 0) }
        m.peerClosedInput()
        let (_, keepAlive) = try #require(respondedRequest(m.nextAction(now: 0)))
        #expect(!keepAlive)
    }

    @Test func drainingClosesIdleAndFinishesBusy() throws {
        var idle = machine()
        #expect(idle.beginDraining() == .close)

        var busy = machine()
        _ = try #require(respondedRequest(receive(&busy, "GET / HTTP/1.1\r\nHost: h\r\n\r\n")))
        #expect(busy.beginDraining() == .waitForBytes)
        #expect(busy.responseCompleted(keepAlive: true, now: 0) == .finish)

        var partial = machine()
        #expect(receive(&partial, "GET / HTTP/1.1\r\n") == .waitForBytes)
        #expect(partial.beginDraining() == .waitForBytes)
        let (_, keepAlive) = try #require(respondedRequest(receive(&partial, "Host: h\r\n\r\n")))
        #expect(!keepAlive)
    }

    @Test func readingPausesWhenTooMuchIsPipelined() throws {
        var m = machine()
        _ = try #require(respondedRequest(receive(&m, "GET / HTTP/1.1\r\nHost: h\r\n\r\n")))
        #expect(m.wantsRead)
        _ = receive(&m, String(repeating: "GET / HTTP/1.1\r\nHost: h\r\n\r\n", count: 3))
        #expect(!m.wantsRead)
        _ = m.responseCompleted(keepAlive: true, now: 0)
        #expect(m.mode == .responding)
    }

    /// A push body: the connection reads and discards, holds no parser buffer, has no
    /// header/body/idle deadline, closes at EOF, and finishes when the body ends.
    @Test func streamingDiscardsInputAndHasNoTimeouts() throws {
        var m = machine()
        let pipelined = "GET /next HTTP/1.1\r\nHost: h\r\n\r\nGET /partial HTTP/1.1\r\n"
        _ = try #require(respondedRequest(receive(&m, "GET /events HTTP/1.1\r\nHost: h\r\n\r\n" + pipelined)))
        #expect(m.parser.buffer.capacity > 0)
        #expect(m.beginStreaming() == .waitForBytes)
        #expect(m.mode == .streaming)
        #expect(m.parser.buffer.capacity == 0)
        #expect(m.parser.bufferedByteCount == 0)
        #expect(m.wantsRead)
        #expect(receive(&m, String(repeating: "x", count: 1000), now: at(1)) == .waitForBytes)
        #expect(m.parser.buffer.capacity == 0)
        #expect(m.wantsRead)
        #expect(m.checkTimeouts(now: at(3600)) == .waitForBytes)
        #expect(m.beginDraining() == .waitForBytes)
        #expect(m.responseCompleted(keepAlive: true, now: at(3601)) == .finish)
        #expect(m.mode == .finishing)

        var gone = machine()
        _ = try #require(respondedRequest(receive(&gone, "GET /events HTTP/1.1\r\nHost: h\r\n\r\n")))
        #expect(gone.beginStreaming() == .waitForBytes)
        gone.peerClosedInput()
        #expect(gone.nextAction(now: at(1)) == .close)

        // The peer closed while the responder ran: streaming ends before it starts.
        var early = machine()
        _ = try #require(respondedRequest(receive(&early, "GET /events HTTP/1.1\r\nHost: h\r\n\r\n")))
        early.peerClosedInput()
        #expect(early.nextAction(now: 0) == .waitForBytes)
        #expect(early.beginStreaming() == .close)
    }
}

/// Instants as integer literals (nanoseconds since the origin), for readable fake clocks.
extension MonotonicInstant: ExpressibleByIntegerLiteral {
    public init(integerLiteral nanoseconds: UInt64) {
        self.init(nanoseconds: nanoseconds)
    }
}
