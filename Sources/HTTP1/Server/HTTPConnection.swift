/// The protocol state of one connection, as a plain value: bytes and time in, actions out.
///
/// It owns the request parser and decides what happens next: hand a request to the
/// responder, send `100 Continue`, answer an error and close, close an idle connection.
/// It never touches a socket; ``ConnectionChannel`` carries out its actions. Time is
/// passed in (``MonotonicInstant``s; timeouts are `Duration`s), so every timeout is testable
/// without waiting.
///
/// At most one request is with the responder at a time. Pipelined requests stay as
/// unparsed bytes in the parser until the response before them is complete, which keeps
/// responses in request order without queueing parsed requests.
struct HTTPConnection {
    struct Settings: Sendable {
        var limits = HTTPParserLimits()
        var headerTimeout: Duration = .seconds(10)
        var bodyTimeout: Duration = .seconds(30)
        var idleTimeout: Duration = .seconds(60)
        var lingerTimeout: Duration = .seconds(2)
        var maxRequestsPerConnection = 10_000
        /// Most unparsed bytes held while a response is in progress (pipelining) before
        /// reading pauses.
        var maxBufferedBytes = 64 * 1024
        /// Shared by all connections: a body is reserved here before it is read (or as a
        /// chunked body grows). At `.respond` the reservation moves into the request
        /// (``HTTPRequest/bodyReservation``) and is released when the server is done serving
        /// it. `nil`: no bound.
        var bodyBudget: MemoryBudget? = nil
    }

    enum Action: Equatable {
        /// Nothing to do until more bytes arrive (or a response completes).
        case waitForBytes
        /// Hand the request to the responder. `keepAlive` is the connection's own verdict;
        /// the response may still turn it off.
        case respond(HTTPRequest, keepAlive: Bool)
        /// Write `HTTP/1.1 100 Continue` now.
        case sendContinue
        /// Write an error response with `Connection: close`, then finish.
        case sendError(HTTPParserError)
        /// No more responses: flush what is queued, shut down writing, then linger.
        case finish
        /// Close now; nothing more will be written.
        case close
    }

    enum Mode: Equatable {
        /// Reading (or waiting for) a request.
        case reading
        /// A request is with the responder; reading only buffers.
        case responding
        /// The response's body stays open (``HTTPBody/push(_:)``): bytes from the peer are
        /// read and discarded, EOF closes, and no header, body or idle timeout applies.
        case streaming
        /// The last response is queued; waiting for it to be flushed.
        case finishing
        /// Write side shut down; reading and discarding until EOF or the linger timeout.
        case lingering(since: MonotonicInstant)
        case closed
    }

    let settings: Settings
    let remoteAddress: String
    private(set) var parser: HTTPRequestParser
    private(set) var mode: Mode = .reading
    private(set) var requestCount = 0
    private(set) var draining = false
    private var peerClosed = false
    private var pendingHead: HTTPRequestHead? = nil
    private var idleSince: MonotonicInstant
    private var headStartedAt: MonotonicInstant? = nil
    private var lastBodyProgress: MonotonicInstant
    /// Bytes of ``Settings/bodyBudget`` held for the body being read (not yet handed out).
    private(set) var bodyReservation = 0

    init(settings: Settings, remoteAddress: String, now: MonotonicInstant) {
        self.settings = settings
        self.remoteAddress = remoteAddress
        self.parser = HTTPRequestParser(limits: settings.limits)
        self.idleSince = now
        self.lastBodyProgress = now
    }

    /// Whether the channel should read from the socket now.
    var wantsRead: Bool {
        switch mode {
        case .reading, .streaming, .finishing, .lingering: true
        case .responding: parser.bufferedByteCount < settings.maxBufferedBytes
        case .closed: false
        }
    }

    /// Whether nothing is in progress: no bytes of a request, nothing with the responder.
    var isIdle: Bool { mode == .reading && headStartedAt == nil && parser.phase == .idle }

    /// Bytes from the peer. In `streaming`/`finishing`/`lingering` they are discarded.
    /// - Complexity: O(bytes.count)
    mutating func bytesReceived(_ bytes: UnsafeRawBufferPointer, now: MonotonicInstant) {
        switch mode {
        case .reading, .responding:
            parser.append(bytes)
            if pendingHead != nil { lastBodyProgress = now }
        case .streaming, .finishing, .lingering, .closed:
            break
        }
    }

    /// The peer closed its sending side (read returned 0).
    mutating func peerClosedInput() {
        peerClosed = true
    }

    /// The next thing to do. Call repeatedly until `.waitForBytes`, `.respond`, `.finish` or `.close`.
    mutating func nextAction(now: MonotonicInstant) -> Action {
        switch mode {
        case .responding, .finishing:
            return .waitForBytes
        case .streaming, .lingering:
            return peerClosed ? close() : .waitForBytes
        case .closed:
            return .close
        case .reading:
            break
        }
        if headStartedAt == nil && parser.phase != .idle { headStartedAt = now }
        guard let event = parser.next() else {
            if pendingHead?.framing == .chunked && !reserveBody(parser.bodyCapacity) {
                return refuseBody(parser.bodyCapacity)
            }
            if peerClosed {
                // EOF between requests, or in the middle of one: nothing to answer.
                return close()
            }
            if draining && isIdle { return close() }
            return .waitForBytes
        }
        switch event {
        case .head(let head):
            requestCount += 1
            pendingHead = head
            lastBodyProgress = now
            // Before any body byte is read, and before `100 Continue`.
            if case .length(let n) = head.framing, !reserveBody(n) { return refuseBody(n) }
            if head.expectsContinue { return .sendContinue }
            return nextAction(now: now)
        case .end(let body):
            let head = pendingHead!
            if head.framing == .chunked && !reserveBody(body.capacity) { return refuseBody(body.capacity) }
            pendingHead = nil
            let receivedAt = headStartedAt
            headStartedAt = nil
            mode = .responding
            let keepAlive = head.keepAlive && !draining && !peerClosed
                && requestCount < settings.maxRequestsPerConnection
            var request = head.request(body: body, remoteAddress: remoteAddress)
            request.receivedAt = receivedAt
            request.memoryBudget = settings.bodyBudget
            if let budget = settings.bodyBudget {
                request.bodyReservation = BodyReservation(budget: budget, bytes: bodyReservation)
                bodyReservation = 0
            }
            return .respond(request, keepAlive: keepAlive)
        case .failure(let error):
            return fail(error)
        }
    }

    /// The response to the request handed out by `.respond` is fully queued (for a
    /// streamed one: its body ended properly). Follow with `nextAction(now:)`.
    mutating func responseCompleted(keepAlive: Bool, now: MonotonicInstant) -> Action {
        guard mode == .responding || mode == .streaming else { return .waitForBytes }
        if keepAlive && mode == .responding && !draining && !peerClosed {
            mode = .reading
            idleSince = now
            return nextAction(now: now)
        }
        mode = .finishing
        return .finish
    }

    /// The head of a response whose body stays open is queued: from now on the connection
    /// only discards what the peer sends (pipelined requests are dropped: this response is
    /// the last) and holds no parser buffer, until the body ends (``responseCompleted(keepAlive:now:)``)
    /// or the peer closes (`.close`, from here when it already has, else from ``nextAction(now:)``).
    mutating func beginStreaming() -> Action {
        guard mode == .responding else { return .waitForBytes }
        mode = .streaming
        parser = HTTPRequestParser(limits: settings.limits)
        return peerClosed ? close() : .waitForBytes
    }

    /// The last response has been flushed and the write side shut down.
    mutating func writeSideClosed(now: MonotonicInstant) -> Action {
        guard mode != .closed else { return .close }
        mode = .lingering(since: now)
        return peerClosed ? close() : .waitForBytes
    }

    /// Checks deadlines. Returns `.sendError` (408), `.close`, or `.waitForBytes`.
    mutating func checkTimeouts(now: MonotonicInstant) -> Action {
        switch mode {
        case .reading:
            if pendingHead != nil {
                if now.duration(since: lastBodyProgress) >= settings.bodyTimeout {
                    return fail(HTTPParserError(.bodyTimeout, offset: 0))
                }
            } else if let headStartedAt {
                if now.duration(since: headStartedAt) >= settings.headerTimeout {
                    return fail(HTTPParserError(.headerTimeout, offset: 0))
                }
            } else if parser.phase != .idle {
                headStartedAt = now
            } else if now.duration(since: idleSince) >= settings.idleTimeout {
                return close()
            }
            return .waitForBytes
        case .lingering(let since):
            return now.duration(since: since) >= settings.lingerTimeout ? close() : .waitForBytes
        case .responding, .streaming, .finishing:
            return .waitForBytes
        case .closed:
            return .close
        }
    }

    /// What a request in progress is when a shutdown can wait no longer for it.
    enum CutOff: Equatable {
        /// Partly read, never handed to the responder: it was not processed.
        case unread
        /// With the responder, its response not begun: it may or may not have taken effect.
        case unanswered
    }

    /// The request a shutdown past its deadline cuts, if one is in progress before its
    /// response (nil: nothing in progress, or a response already under way).
    var cutOff: CutOff? {
        switch mode {
        case .reading: isIdle ? nil : .unread
        case .responding: .unanswered
        case .streaming, .finishing, .lingering, .closed: nil
        }
    }

    /// The server is shutting down: idle connections close now; others finish the request
    /// in progress and then close (a streaming one once its body ends: the channel ends it).
    mutating func beginDraining() -> Action {
        draining = true
        return isIdle ? close() : .waitForBytes
    }

    /// The channel closed the socket (error, abort, or after `.close`). Gives back only the
    /// reservation of a body still being read; a body with the responder is the request's
    /// (``HTTPRequest/bodyReservation``), released when the server is done with it.
    mutating func closed() {
        mode = .closed
        releaseBody()
    }

    /// Grows the body's reservation to `total` bytes; false when the budget cannot hold it.
    private mutating func reserveBody(_ total: Int) -> Bool {
        guard let budget = settings.bodyBudget, total > bodyReservation else { return true }
        guard budget.tryReserve(total - bodyReservation) else { return false }
        bodyReservation = total
        return true
    }

    private mutating func releaseBody() {
        settings.bodyBudget?.release(bodyReservation)
        bodyReservation = 0
    }

    /// The body does not fit the budget: drop what was read, answer 503 and close (413 when
    /// it is larger than the whole budget: waiting could not help).
    private mutating func refuseBody(_ total: Int) -> Action {
        let neverFits = total > (settings.bodyBudget?.capacity ?? .max)
        return fail(HTTPParserError(neverFits ? .bodyTooLarge : .bodyBudgetExhausted, offset: 0))
    }

    /// An error ends the connection: nothing more is parsed, the body is dropped and its
    /// reservation given back, the error is answered.
    private mutating func fail(_ error: HTTPParserError) -> Action {
        parser.abandon()
        releaseBody()
        pendingHead = nil
        headStartedAt = nil
        mode = .finishing
        return .sendError(error)
    }

    private mutating func close() -> Action {
        mode = .closed
        return .close
    }
}
