#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// One accepted socket: carries out the actions of its ``HTTPConnection`` state machine.
///
/// Threading: reads, timer checks and `close` happen on the owning ``EventLoop``'s
/// thread; the responder runs on a worker thread (``ServerContext/serve(_:_:)``), and that worker
/// writes the response straight to the socket (no hop back to the loop on the fast path),
/// blocking when the client reads slowly. Everything mutable
/// is in `state`, behind one `Mutex`; the fd is only used under that lock while the
/// phase is not `.closed`, and only the loop closes it, so an fd number is never reused
/// under a writer's feet.
///
/// A push body (``HTTPBody/push(_:)``) is written from any thread through its
/// ``HTTPPushStream``, whose sink takes this lock under the stream's own; so the channel
/// never calls into the stream while holding its lock: it ends the stream from another
/// thread (`ServerContext.streamEnds`).
final class ConnectionChannel: Sendable {
    let fd: Int32
    let loop: EventLoop
    let context: ServerContext
    let remoteAddress: String
    private let state: Mutex<State>

    struct State {
        var machine: HTTPConnection
        var outbox = OutboundQueue()
        var phase = Phase.open(readPaused: false, writerWaiting: false)
        var lastWriteProgress: MonotonicInstant
        /// The open push body, until the connection closes.
        var push: HTTPPushStream? = nil
        /// Bytes of the response to the request with the responder have been queued.
        var responseBegun = false
        /// Body bytes of the push body queued so far (without framing), for the access log.
        var pushedBytes = 0
        /// Wakes a worker blocked in `enqueue`; made the first time one blocks (most
        /// connections never do, and an idle one should hold little).
        var writerWakeup: DispatchSemaphore? = nil

        /// Queues `bytes`; the write-stall clock starts now if nothing was queued.
        mutating func queue(_ bytes: [UInt8], now: MonotonicInstant) {
            if outbox.isEmpty { lastWriteProgress = now }
            outbox.append(bytes)
        }

        /// The last response is queued: flush, then shut down the write side.
        mutating func requestFinish() {
            if case .open = phase { phase = .finishing }
        }

        /// The loop is to close the socket (output, if any, may still be flushed first).
        mutating func requestClose() {
            switch phase {
            case .open, .finishing, .writeShutDown: phase = .closing(broken: false)
            case .closing, .closed: break
            }
        }

        /// Whether a worker blocked in `enqueue` waits (and stops it waiting).
        mutating func takeWaitingWriter() -> Bool {
            guard case .open(let readPaused, true) = phase else { return false }
            phase = .open(readPaused: readPaused, writerWaiting: false)
            return true
        }

        /// Wakes the worker blocked in `enqueue`, if one waits.
        mutating func wakeWaitingWriter() {
            if takeWaitingWriter() { writerWakeup?.signal() }
        }
    }

    /// The socket's life. A connection moves down this list, possibly skipping steps, and
    /// never back up.
    enum Phase: Equatable {
        /// Reading and writing. `readPaused`: the loop stopped reading because the machine
        /// wants no bytes now (a response is in progress and enough is pipelined); the
        /// worker resumes it after the response. `writerWaiting`: a worker blocks in
        /// `enqueue` until the loop drains the outbox to the low-water mark.
        case open(readPaused: Bool, writerWaiting: Bool)
        /// The last response is queued: flush the outbox, then shut down the write side.
        case finishing
        /// The write side is shut down; the machine lingers, reading and discarding.
        case writeShutDown
        /// The loop is to close the socket. `broken`: a send failed or a write stalled, so
        /// nothing more is sent.
        case closing(broken: Bool)
        /// The socket is closed.
        case closed

        /// Whether the fd may still be used.
        var isSocketOpen: Bool { self != .closed }
        /// Whether reading goes on (no close pending).
        var isReading: Bool {
            switch self {
            case .open, .finishing, .writeShutDown: true
            case .closing, .closed: false
            }
        }
        /// Whether output may still be sent.
        var isWritable: Bool { self != .closed && self != .closing(broken: true) }
        var isBroken: Bool { self == .closing(broken: true) }
        var isClosing: Bool {
            if case .closing = self { return true }
            return false
        }
        var isReadPaused: Bool {
            if case .open(true, _) = self { return true }
            return false
        }
    }

    enum Work {
        case none
        case respond(HTTPRequest, keepAlive: Bool)
        case close
    }

    init(fd: Int32, remoteAddress: String, loop: EventLoop, context: ServerContext, now: MonotonicInstant) {
        self.fd = fd
        self.loop = loop
        self.context = context
        self.remoteAddress = remoteAddress
        self.state = Mutex(State(
            machine: HTTPConnection(settings: context.settings, remoteAddress: remoteAddress, now: now),
            lastWriteProgress: now))
    }

    // MARK: Loop side

    /// Reads what the socket has (or until the machine stops wanting bytes) and acts on it.
    /// Loop thread only. `buffer` is the loop's scratch read buffer.
    func readable(buffer: UnsafeMutableRawBufferPointer) {
        while true {
            let go = state.withLock { s -> Bool in
                guard s.phase.isReading else { return false }
                if !s.machine.wantsRead {
                    if case .open(_, let writerWaiting) = s.phase {
                        s.phase = .open(readPaused: true, writerWaiting: writerWaiting)
                    }
                    return false
                }
                return true
            }
            guard go else { return }
            let n = read(fd, buffer.baseAddress, buffer.count)
            let now = MonotonicInstant.now()
            if n > 0 {
                let work = state.withLock { s -> Work in
                    s.machine.bytesReceived(UnsafeRawBufferPointer(rebasing: buffer[0..<n]), now: now)
                    return run(nil, &s, now: now)
                }
                perform(work, onLoop: true)
                // Edge-triggered: a short read means the socket is drained for now; any
                // later data raises a new edge.
                if n < buffer.count { return }
            } else if n == 0 {
                let work = state.withLock { s -> Work in
                    s.machine.peerClosedInput()
                    return run(nil, &s, now: now)
                }
                perform(work, onLoop: true)
                return
            } else {
                let e = errno
                if e == EINTR { continue }
                if e == EAGAIN || e == EWOULDBLOCK { return }
                abort()
                return
            }
        }
    }

    /// The socket can take more bytes. Loop thread only.
    func writable() {
        let work = state.withLock { s -> Work in
            guard s.phase.isSocketOpen else { return .none }
            if case .open = s.phase, s.outbox.isEmpty { return .none }
            flush(&s, now: MonotonicInstant.now())
            return s.phase.isClosing ? .close : .none
        }
        perform(work, onLoop: true)
    }

    /// Deadlines: header/body/idle/linger from the machine, plus write stalls. Loop thread.
    func checkTimeouts(now: MonotonicInstant) {
        let work = state.withLock { s -> Work in
            guard s.phase.isSocketOpen else { return .none }
            if !s.outbox.isEmpty && now.duration(since: s.lastWriteProgress) >= context.writeTimeout {
                breakConnection(&s)
                return .close
            }
            return run(s.machine.checkTimeouts(now: now), &s, now: now)
        }
        perform(work, onLoop: true)
    }

    /// Server shutdown begins: idle connections close, busy ones finish their request, an
    /// open push body is finished (its terminating chunk sent), off the loop.
    func beginDraining() {
        let (work, push) = state.withLock { s -> (Work, HTTPPushStream?) in
            guard s.phase.isSocketOpen else { return (.none, nil) }
            return (run(s.machine.beginDraining(), &s, now: MonotonicInstant.now()), s.push)
        }
        perform(work, onLoop: true)
        if let push { context.streamEnds.async { push.finish() } }
    }

    /// Drops the connection without further output. Loop thread only.
    func abort() {
        state.withLock { s in breakConnection(&s) }
        closeNow()
    }

    /// The shutdown's deadline passed: drops the connection. A request in progress whose
    /// response has not begun is answered first, `503` with `Connection: close` (what the
    /// socket takes at once): one not yet handed to the responder was not processed, one
    /// with the responder may or may not have taken effect. What the peer sent and nobody
    /// read is drained first, so that the close does not reset the connection (which could
    /// discard the answer before the peer reads it); bytes that arrive later still may.
    /// Loop thread only.
    func abortAtShutdownDeadline() {
        state.withLock { s in
            if s.phase.isWritable, !s.responseBegun, let cut = s.machine.cutOff {
                s.outbox.append(context.errorResponse(
                    status: 503, title: "Service Unavailable", detail: Self.cutOffDetail(cut), retryAfter: 1))
                _ = s.outbox.send(to: fd)
                shutdown(fd, Int32(SHUT_WR))
                var scratch = [UInt8](repeating: 0, count: 4096)
                var reads = 0
                while reads < 64 && recv(fd, &scratch, scratch.count, Int32(MSG_DONTWAIT)) > 0 { reads += 1 }
            }
            breakConnection(&s)
        }
        closeNow()
    }

    static func cutOffDetail(_ cut: HTTPConnection.CutOff) -> String {
        switch cut {
        case .unread:
            "The server is shutting down and could not wait for the rest of this request: it was not processed. Send it again."
        case .unanswered:
            "The server is shutting down and could not wait for this request's response: it may or may not have taken effect. Read the resource before sending it again."
        }
    }

    /// Closes the socket and unregisters it. Loop thread only; idempotent.
    func closeNow() {
        let (wasOpen, push) = state.withLock { s -> (Bool, HTTPPushStream?) in
            guard s.phase.isSocketOpen else { return (false, nil) }
            s.wakeWaitingWriter()
            s.phase = .closed
            s.machine.closed()
            s.outbox.removeAll()
            defer { s.push = nil }
            return (true, s.push)
        }
        guard wasOpen else { return }
        loop.unregister(self)
        close(fd)
        context.openConnections.subtract(1, ordering: .relaxed)
        // Ends the stream (if it has not ended already): its handlers run off the loop, not here.
        if let push { context.streamEnds.async { push.cancel() } }
    }

    // MARK: Shared (under the lock)

    /// Carries out machine actions until one needs work outside the lock.
    private func run(_ first: HTTPConnection.Action?, _ s: inout State, now: MonotonicInstant) -> Work {
        var action = first ?? s.machine.nextAction(now: now)
        var work = Work.none
        loop: while true {
            switch action {
            case .waitForBytes:
                break loop
            case .sendContinue:
                s.outbox.append(ResponseHead.continueBytes)
            case .sendError(let error):
                s.outbox.append(context.errorResponse(
                    status: error.status, title: error.title, detail: error.detail, retryAfter: error.retryAfter))
                s.requestFinish()
                break loop
            case .respond(let request, let keepAlive):
                work = .respond(request, keepAlive: keepAlive)
                break loop
            case .finish:
                s.requestFinish()
                break loop
            case .close:
                s.requestClose()
                break loop
            }
            action = s.machine.nextAction(now: now)
        }
        flush(&s, now: now)
        guard s.phase.isClosing else { return work }
        // A request handed out just now is never served: the server is done with it.
        if case .respond(let request, _) = work { request.bodyReservation?.release() }
        return .close
    }

    /// Sends what the socket takes; after the last response, shuts down the write side.
    private func flush(_ s: inout State, now: MonotonicInstant) {
        guard s.phase.isWritable else { return }
        if !s.outbox.isEmpty {
            let (result, sent) = s.outbox.send(to: fd)
            if sent > 0 { s.lastWriteProgress = now }
            if case .failed = result {
                breakConnection(&s)
                return
            }
        } else {
            s.lastWriteProgress = now
        }
        if s.outbox.count <= context.configuration.outputLowWaterMark { s.wakeWaitingWriter() }
        if s.outbox.isEmpty && s.phase == .finishing {
            s.phase = .writeShutDown
            shutdown(fd, Int32(SHUT_WR))
            if s.machine.writeSideClosed(now: now) == .close { s.requestClose() }
        }
    }

    private func breakConnection(_ s: inout State) {
        s.wakeWaitingWriter()
        if s.phase.isSocketOpen { s.phase = .closing(broken: true) }
        s.outbox.removeAll()
    }

    private func perform(_ work: Work, onLoop: Bool) {
        switch work {
        case .none:
            break
        case .respond(let request, let keepAlive):
            context.serve(request) { self.serve(request, keepAlive: keepAlive) }
        case .close:
            if onLoop { closeNow() } else { loop.execute { self.closeNow() } }
        }
    }

    // MARK: Worker side

    /// Runs the responder and writes the response; then, if pipelined bytes complete
    /// another request, serves it too on this worker. A deferred response
    /// (`HTTPResponse.deferral`) frees the worker: it is written, and the requests after it
    /// served, on a worker when its sender is called.
    private func serve(_ first: HTTPRequest, keepAlive firstKeepAlive: Bool) {
        var request = first
        var keepAlive = firstKeepAlive
        while true {
            // The log's duration runs from the request's first byte to the response's last.
            let started = request.receivedAt ?? MonotonicInstant.now()
            let response = context.responder.respond(to: request)
            if let deferral = response.deferral {
                let sent = Atomic<Bool>(false)
                deferral { [self, request, keepAlive] final in
                    guard !sent.exchange(true, ordering: .relaxed) else { return }
                    context.serve(request) { [self] in
                        var final = final
                        final.deferral = nil
                        guard let (next, nextKeepAlive) = finish(final, for: request, keepAlive: keepAlive, started: started) else { return }
                        serve(next, keepAlive: nextKeepAlive)
                    }
                }
                return
            }
            guard let next = finish(response, for: request, keepAlive: keepAlive, started: started) else { return }
            (request, keepAlive) = next
        }
    }

    /// Writes the response to `request`, logs it, and moves the connection on: the next
    /// pipelined request to serve, or nil when there is none now (or the connection closes).
    private func finish(_ response: HTTPResponse, for request: HTTPRequest, keepAlive: Bool,
                        started: MonotonicInstant) -> (HTTPRequest, Bool)? {
        let outcome = write(response, for: request, keepAlive: keepAlive)
        // Done with the body (the response is written or abandoned): before the next
        // pipelined request reserves its own.
        request.bodyReservation?.release()
        if outcome.ok, let open = outcome.push {
            startPush(open, chunked: outcome.chunked, for: request, status: outcome.status,
                      logTag: response.logTag, started: started)
            return nil
        }
        if let entry = accessLogEntry(request, status: outcome.status, bodyBytes: outcome.bodyBytes,
                                      logTag: response.logTag, started: started) {
            context.configuration.accessLog?(entry)
        }
        var resumeReading = false
        let work = state.withLock { s -> Work in
            guard s.phase.isSocketOpen else { return .none }
            guard outcome.ok, !s.phase.isBroken else {
                breakConnection(&s)
                return .close
            }
            let now = MonotonicInstant.now()
            let paused = s.phase.isReadPaused
            s.responseBegun = false
            let work = run(s.machine.responseCompleted(keepAlive: outcome.keepAlive, now: now), &s, now: now)
            if paused && s.machine.wantsRead {
                if case .open(true, let writerWaiting) = s.phase {
                    s.phase = .open(readPaused: false, writerWaiting: writerWaiting)
                }
                resumeReading = true
            }
            return work
        }
        if resumeReading { loop.execute { self.loop.resumeReading(self) } }
        switch work {
        case .respond(let next, let nextKeepAlive):
            return (next, nextKeepAlive)
        case .close:
            loop.execute { self.closeNow() }
            return nil
        case .none:
            return nil
        }
    }

    /// The access log entry of a response (the target's `access_token` redacted); nil
    /// without a log.
    private func accessLogEntry(_ request: HTTPRequest, status: Int, bodyBytes: Int, logTag: String?,
                                started: MonotonicInstant) -> HTTPAccessLogEntry? {
        guard context.configuration.accessLog != nil else { return nil }
        return HTTPAccessLogEntry(
            remoteAddress: remoteAddress, method: request.method,
            target: RequestTarget.redactingAccessToken(request.target), version: request.version,
            status: status, bodyBytes: bodyBytes, duration: MonotonicInstant.now().duration(since: started),
            logTag: logTag)
    }

    private struct Outcome {
        var ok: Bool
        var keepAlive: Bool
        var status: Int
        var bodyBytes: Int
        /// A push body whose head is queued: to be opened (``startPush``).
        var push: (@Sendable (HTTPPushStream) -> Void)? = nil
        var chunked = false
    }

    private func write(_ response: HTTPResponse, for request: HTTPRequest, keepAlive: Bool) -> Outcome {
        var keepAlive = keepAlive && !ResponseHead.asksToClose(response.headers)
            && !context.draining.load(ordering: .relaxed)
        let isHead = request.method == "HEAD"
        let bodyAllowed = ResponseHead.allowsBody(response.status)
        do {
            switch response.body {
            case .bytes(let body):
                let sendBody = bodyAllowed && !isHead && !body.isEmpty
                let inline = sendBody && body.count <= 16 * 1024
                guard var head = ResponseHead.serialize(
                    status: response.status, headers: response.headers,
                    framing: bodyAllowed ? .length(body.count) : .none,
                    keepAlive: keepAlive, requestVersion: request.version, reserving: inline ? body.count : 0)
                else { return invalidResponse(request) }
                if inline {
                    head.append(contentsOf: body)
                    try enqueue(head, blocking: false)
                } else {
                    try enqueue(head, blocking: false)
                    if sendBody { try enqueue(body, blocking: true) }
                }
                return Outcome(ok: true, keepAlive: keepAlive, status: response.status, bodyBytes: sendBody ? body.count : 0)
            case .push(let open):
                // The last response of the connection: its body ends when the stream does.
                // Whatever happens, the closure gets its stream once (already ended when there
                // is no body to send, or the head could not be).
                func openEnded() {
                    let ended = HTTPPushStream { _ in false }
                    ended.cancel()
                    open(ended)
                }
                let (chunked, framing) = Self.openEndedFraming(request.version, bodyAllowed: bodyAllowed)
                guard let head = ResponseHead.serialize(
                    status: response.status, headers: response.headers, framing: framing,
                    keepAlive: false, requestVersion: request.version)
                else {
                    openEnded()
                    return invalidResponse(request)
                }
                do {
                    try enqueue(head, blocking: false)
                } catch {
                    openEnded()
                    throw error
                }
                if !bodyAllowed || isHead {
                    openEnded()
                    return Outcome(ok: true, keepAlive: false, status: response.status, bodyBytes: 0)
                }
                return Outcome(ok: true, keepAlive: false, status: response.status, bodyBytes: 0, push: open, chunked: chunked)
            case .stream(let produce):
                let (chunked, framing) = Self.openEndedFraming(request.version, bodyAllowed: bodyAllowed)
                if !chunked && bodyAllowed && !isHead { keepAlive = false }
                guard let head = ResponseHead.serialize(
                    status: response.status, headers: response.headers, framing: framing,
                    keepAlive: keepAlive, requestVersion: request.version)
                else { return invalidResponse(request) }
                try enqueue(head, blocking: false)
                guard bodyAllowed && !isHead else {
                    return Outcome(ok: true, keepAlive: keepAlive, status: response.status, bodyBytes: 0)
                }
                let writer = HTTPBodyWriter(channel: self, chunked: chunked)
                do {
                    try produce(writer)
                    try writer.finish()
                } catch {
                    // Truncate: the client must not take a partial body for a complete one.
                    return Outcome(ok: false, keepAlive: false, status: response.status, bodyBytes: writer.bytesWritten)
                }
                return Outcome(ok: true, keepAlive: keepAlive, status: response.status, bodyBytes: writer.bytesWritten)
            }
        } catch {
            return Outcome(ok: false, keepAlive: false, status: response.status, bodyBytes: 0)
        }
    }

    /// A body of unknown length: chunked to HTTP/1.1, close-delimited to HTTP/1.0.
    private static func openEndedFraming(_ version: HTTPVersion, bodyAllowed: Bool) -> (chunked: Bool, framing: ResponseHead.Framing) {
        let chunked = version == .http1_1
        return (chunked, !bodyAllowed ? .none : chunked ? .chunked : .closeDelimited)
    }

    /// The responder produced a head that cannot be sent safely: answer 500 instead.
    private func invalidResponse(_ request: HTTPRequest) -> Outcome {
        let bytes = context.errorResponse(
            status: 500, title: "Internal Server Error", detail: "The response could not be serialized.",
            headRequest: request.method == "HEAD")
        let ok = (try? enqueue(bytes, blocking: false)) != nil
        return Outcome(ok: ok, keepAlive: false, status: 500, bodyBytes: 0)
    }

    /// Queues bytes and sends what the socket takes. With `blocking`, waits while more than
    /// the high-water mark is queued, until the loop has drained it to the low-water mark.
    /// Worker threads only. Throws ``HTTPConnectionClosedError`` once the peer is gone.
    func enqueue(_ bytes: [UInt8], blocking: Bool) throws {
        let highWater = context.configuration.outputHighWaterMark
        enum Next { case done, wait, fail, failAndClose }
        var wakeup: DispatchSemaphore? = nil
        var next = state.withLock { s -> Next in
            guard s.phase.isWritable else { return .fail }
            let now = MonotonicInstant.now()
            s.responseBegun = true
            s.queue(bytes, now: now)
            flush(&s, now: now)
            if s.phase.isBroken { return .failAndClose }
            guard blocking && s.outbox.count > highWater, case .open(let readPaused, _) = s.phase else { return .done }
            s.phase = .open(readPaused: readPaused, writerWaiting: true)
            if s.writerWakeup == nil { s.writerWakeup = DispatchSemaphore(value: 0) }
            wakeup = s.writerWakeup
            return .wait
        }
        while next == .wait, let wakeup {
            let timeout = (MonotonicInstant.now() + context.writeTimeout).dispatchTime
            let signaled = wakeup.wait(timeout: timeout) == .success
            var consumeSignal = false
            next = state.withLock { s -> Next in
                if !signaled {
                    if case .open(_, true) = s.phase {
                        // Still waiting: give up only if nothing moved for the whole timeout.
                        guard MonotonicInstant.now().duration(since: s.lastWriteProgress) >= context.writeTimeout else { return .wait }
                        _ = s.takeWaitingWriter()
                        breakConnection(&s)
                        return .failAndClose
                    }
                    consumeSignal = true  // signaled just after the timeout
                }
                return s.phase.isWritable ? .done : .fail
            }
            if consumeSignal { wakeup.wait() }
        }
        switch next {
        case .done, .wait:
            return
        case .fail:
            throw HTTPConnectionClosedError()
        case .failAndClose:
            loop.execute { self.closeNow() }
            throw HTTPConnectionClosedError()
        }
    }

    // MARK: Push bodies

    static let crlf: [UInt8] = [ByteClass.cr, ByteClass.lf]
    static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)

    /// The head of a push response is queued: the connection turns to streaming, the
    /// responder's closure gets the stream on this worker, and the worker is free when it
    /// returns. The access log entry is written when the stream ends.
    private func startPush(_ open: @Sendable (HTTPPushStream) -> Void, chunked: Bool, for request: HTTPRequest,
                           status: Int, logTag: String?, started: MonotonicInstant) {
        let stream = HTTPPushStream { [self] output in push(output, chunked: chunked) }
        if let entry = accessLogEntry(request, status: status, bodyBytes: 0, logTag: logTag, started: started) {
            stream.onEnd { [self] in
                var entry = entry
                entry.bodyBytes = state.withLock { $0.pushedBytes }
                entry.duration = MonotonicInstant.now().duration(since: started)
                context.configuration.accessLog?(entry)
            }
        }
        var resumeReading = false
        let (attached, work) = state.withLock { s -> (Bool, Work) in
            guard case .open(let readPaused, let writerWaiting) = s.phase else { return (false, .none) }
            s.push = stream
            if readPaused {
                // Paused for pipelined bytes: read again, to discard them and see EOF.
                s.phase = .open(readPaused: false, writerWaiting: writerWaiting)
                resumeReading = true
            }
            // `.close` when the peer closed while the responder ran: the stream ends at once.
            return (true, run(s.machine.beginStreaming(), &s, now: MonotonicInstant.now()))
        }
        if !attached { stream.cancel() }  // the connection is closing already
        perform(work, onLoop: false)
        if resumeReading { loop.execute { self.loop.resumeReading(self) } }
        open(stream)
        // Draining began before the stream was attached: finish it now (idempotent).
        if context.draining.load(ordering: .relaxed) { stream.finish() }
    }

    /// The sink of a push stream: called under the stream's lock, in order, never after the
    /// stream ended. Never blocks: queues, sends what the socket takes, and refuses (the
    /// connection is dropped) when the peer is gone or more than `maxPushQueueBytes` stay unsent.
    private func push(_ output: HTTPPushStream.Output, chunked: Bool) -> Bool {
        let (accepted, work) = state.withLock { s -> (Bool, Work) in
            guard case .open = s.phase, s.push != nil else { return (false, .none) }
            let now = MonotonicInstant.now()
            switch output {
            case .bytes(let bytes):
                // An empty chunk would end the body: an empty piece sends nothing.
                guard !bytes.isEmpty else { return (true, .none) }
                if chunked {
                    var sizeLine: [UInt8] = []
                    sizeLine.reserveCapacity(18)
                    ResponseHead.appendChunkSize(bytes.count, to: &sizeLine)
                    s.queue(sizeLine, now: now)
                    s.outbox.append(bytes)  // shared by every stream of an event: never copied
                    s.outbox.append(Self.crlf)
                } else {
                    s.queue(bytes, now: now)
                }
                s.pushedBytes += bytes.count
                flush(&s, now: now)
                if !s.phase.isBroken && s.outbox.count > context.configuration.maxPushQueueBytes {
                    breakConnection(&s)  // too slow a reader: dropped, it resumes elsewhere
                }
                return s.phase.isBroken ? (false, .close) : (true, .none)
            case .finish:
                if chunked { s.queue(Self.lastChunk, now: now) }
                return (true, run(s.machine.responseCompleted(keepAlive: false, now: now), &s, now: now))
            }
        }
        perform(work, onLoop: false)
        return accepted
    }
}
