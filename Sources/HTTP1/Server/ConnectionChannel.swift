#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// One accepted socket: carries out the actions of its ``HTTPConnection`` state machine.
///
/// Threading: reads, timer checks and `close` happen on the owning ``EventLoop``'s
/// thread; the responder runs on a worker queue, and that worker writes the response
/// straight to the socket (no hop back to the loop on the fast path). Everything mutable
/// is in `state`, behind one `Mutex`; the fd is only used under that lock while
/// `socketOpen`, and only the loop closes it, so an fd number is never reused under a
/// writer's feet.
final class ConnectionChannel: Sendable {
    let fd: Int32
    let loop: EventLoop
    let context: ServerContext
    let remoteAddress: String
    private let state: Mutex<State>
    private let writerWakeup = DispatchSemaphore(value: 0)

    struct State {
        var machine: HTTPConnection
        var outbox = OutboundQueue()
        var socketOpen = true
        /// A send failed or a write stalled: no more output; close soon.
        var broken = false
        var readPaused = false
        var writerWaiting = false
        /// Flush the outbox, then shut down the write side.
        var finishRequested = false
        var writeShutDown = false
        var closeRequested = false
        var lastWriteProgress: UInt64
    }

    enum Work {
        case none
        case respond(HTTPRequest, keepAlive: Bool)
        case close
    }

    init(fd: Int32, remoteAddress: String, loop: EventLoop, context: ServerContext, now: UInt64) {
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
                guard s.socketOpen, !s.closeRequested else { return false }
                if !s.machine.wantsRead {
                    s.readPaused = true
                    return false
                }
                return true
            }
            guard go else { return }
            let n = read(fd, buffer.baseAddress, buffer.count)
            let now = MonotonicClock.now()
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
            guard s.socketOpen, !s.outbox.isEmpty || s.finishRequested else { return .none }
            flush(&s, now: MonotonicClock.now())
            return s.closeRequested ? .close : .none
        }
        perform(work, onLoop: true)
    }

    /// Deadlines: header/body/idle/linger from the machine, plus write stalls. Loop thread.
    func checkTimeouts(now: UInt64) {
        let work = state.withLock { s -> Work in
            guard s.socketOpen else { return .none }
            if !s.outbox.isEmpty && now.saturatingSubtract(s.lastWriteProgress) >= context.writeTimeout {
                breakConnection(&s)
                return .close
            }
            return run(s.machine.checkTimeouts(now: now), &s, now: now)
        }
        perform(work, onLoop: true)
    }

    /// Server shutdown begins: idle connections close, busy ones finish their request.
    func beginDraining() {
        let work = state.withLock { s -> Work in
            guard s.socketOpen else { return .none }
            return run(s.machine.beginDraining(), &s, now: MonotonicClock.now())
        }
        perform(work, onLoop: true)
    }

    /// Drops the connection without further output. Loop thread only.
    func abort() {
        state.withLock { s in breakConnection(&s) }
        closeNow()
    }

    /// Closes the socket and unregisters it. Loop thread only; idempotent.
    func closeNow() {
        let wasOpen = state.withLock { s -> Bool in
            guard s.socketOpen else { return false }
            s.socketOpen = false
            s.machine.closed()
            s.outbox.removeAll()
            if s.writerWaiting {
                s.writerWaiting = false
                writerWakeup.signal()
            }
            return true
        }
        guard wasOpen else { return }
        loop.unregister(self)
        close(fd)
        context.openConnections.subtract(1, ordering: .relaxed)
    }

    // MARK: Shared (under the lock)

    /// Carries out machine actions until one needs work outside the lock.
    private func run(_ first: HTTPConnection.Action?, _ s: inout State, now: UInt64) -> Work {
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
                s.finishRequested = true
                break loop
            case .respond(let request, let keepAlive):
                work = .respond(request, keepAlive: keepAlive)
                break loop
            case .finish:
                s.finishRequested = true
                break loop
            case .close:
                s.closeRequested = true
                break loop
            }
            action = s.machine.nextAction(now: now)
        }
        flush(&s, now: now)
        return s.closeRequested ? .close : work
    }

    /// Sends what the socket takes; after the last response, shuts down the write side.
    private func flush(_ s: inout State, now: UInt64) {
        guard s.socketOpen, !s.broken else { return }
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
        if s.writerWaiting && s.outbox.count <= context.configuration.outputLowWaterMark {
            s.writerWaiting = false
            writerWakeup.signal()
        }
        if s.outbox.isEmpty && s.finishRequested && !s.writeShutDown {
            s.writeShutDown = true
            shutdown(fd, Int32(SHUT_WR))
            if s.machine.writeSideClosed(now: now) == .close { s.closeRequested = true }
        }
    }

    private func breakConnection(_ s: inout State) {
        s.broken = true
        s.closeRequested = true
        s.outbox.removeAll()
        if s.writerWaiting {
            s.writerWaiting = false
            writerWakeup.signal()
        }
    }

    private func perform(_ work: Work, onLoop: Bool) {
        switch work {
        case .none:
            break
        case .respond(let request, let keepAlive):
            context.workers.async { self.serve(request, keepAlive: keepAlive) }
        case .close:
            if onLoop { closeNow() } else { loop.execute { self.closeNow() } }
        }
    }

    // MARK: Worker side

    /// Runs the responder and writes the response; then, if pipelined bytes complete
    /// another request, serves it too on this worker.
    private func serve(_ first: HTTPRequest, keepAlive firstKeepAlive: Bool) {
        var request = first
        var keepAlive = firstKeepAlive
        while true {
            let started = ContinuousClock.now
            let response = context.responder.respond(to: request)
            let outcome = write(response, for: request, keepAlive: keepAlive)
            if let log = context.configuration.accessLog {
                log(HTTPAccessLogEntry(
                    remoteAddress: remoteAddress, method: request.method, target: request.target,
                    version: request.version, status: outcome.status, bodyBytes: outcome.bodyBytes,
                    duration: ContinuousClock.now - started, logTag: response.logTag))
            }
            var resumeReading = false
            let work = state.withLock { s -> Work in
                guard s.socketOpen else { return .none }
                guard outcome.ok, !s.broken else {
                    breakConnection(&s)
                    return .close
                }
                let now = MonotonicClock.now()
                let work = run(s.machine.responseCompleted(keepAlive: outcome.keepAlive, now: now), &s, now: now)
                if s.readPaused && s.machine.wantsRead {
                    s.readPaused = false
                    resumeReading = true
                }
                return work
            }
            if resumeReading { loop.execute { self.loop.resumeReading(self) } }
            switch work {
            case .respond(let next, let nextKeepAlive):
                request = next
                keepAlive = nextKeepAlive
            case .close:
                loop.execute { self.closeNow() }
                return
            case .none:
                return
            }
        }
    }

    private struct Outcome {
        var ok: Bool
        var keepAlive: Bool
        var status: Int
        var bodyBytes: Int
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
            case .stream(let produce):
                let chunked = request.version == .http1_1
                if !chunked && bodyAllowed && !isHead { keepAlive = false }
                let framing: ResponseHead.Framing = !bodyAllowed ? .none : chunked ? .chunked : .closeDelimited
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
        var next = state.withLock { s -> Next in
            guard s.socketOpen, !s.broken else { return .fail }
            s.outbox.append(bytes)
            flush(&s, now: MonotonicClock.now())
            if s.broken { return .failAndClose }
            guard blocking && s.outbox.count > highWater else { return .done }
            s.writerWaiting = true
            return .wait
        }
        while next == .wait {
            let timeout = DispatchTime.now() + .nanoseconds(Int(min(context.writeTimeout, UInt64(Int.max))))
            let signaled = writerWakeup.wait(timeout: timeout) == .success
            var consumeSignal = false
            next = state.withLock { s -> Next in
                if !signaled {
                    if s.writerWaiting {
                        // Still waiting: give up only if nothing moved for the whole timeout.
                        guard MonotonicClock.now().saturatingSubtract(s.lastWriteProgress) >= context.writeTimeout else { return .wait }
                        s.writerWaiting = false
                        breakConnection(&s)
                        return .failAndClose
                    }
                    consumeSignal = true  // signaled just after the timeout
                }
                return s.socketOpen && !s.broken ? .done : .fail
            }
            if consumeSignal { writerWakeup.wait() }
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
}
