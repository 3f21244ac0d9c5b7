#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Synchronization

/// One I/O thread running an edge-triggered epoll loop. It accepts connections from the
/// shared listening sockets, reads them, checks their deadlines and closes them; responders
/// run elsewhere. Other threads talk to it only through ``execute(_:)``.
///
/// Every loop polls every listening socket (level-triggered) and accepts a few connections
/// per wake-up, so connections spread over the loops by who is free first.
final class EventLoop: @unchecked Sendable {
    // @unchecked: the `var`s below are touched only on the loop's own thread; cross-thread
    // requests go through `tasks` (a Mutex) and the eventfd.
    private let epfd: Int32
    private let wakeFD: Int32
    private let tasks = Mutex<(items: [@Sendable () -> Void], signaled: Bool, closed: Bool)>(([], false, false))
    private let context: ServerContext
    private let readBuffer: UnsafeMutableRawBufferPointer
    private let exited = DispatchSemaphore(value: 0)
    private let scanInterval: Duration

    private var channels: [Int32: ConnectionChannel] = [:]
    private var listeners: [Int32] = []
    private var running = true
    /// A descriptor held in reserve: out of descriptors, the loop frees it to accept and
    /// refuse a newcomer (see ``shed(_:)``).
    private var spareFD: Int32 = -1
    /// Out of descriptors without a spare: the listeners are left out of the poll until the
    /// next deadline scan, rather than waking the loop without end.
    private var listenersPaused = false

    init(context: ServerContext) throws {
        epfd = Epoll.create()
        guard epfd >= 0 else { throw HTTPServerError("epoll_create1") }
        wakeFD = Epoll.eventFD()
        guard wakeFD >= 0 else {
            close(epfd)
            throw HTTPServerError("eventfd")
        }
        self.context = context
        readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        let s = context.settings
        let shortest = min(s.headerTimeout, s.bodyTimeout, s.idleTimeout, s.lingerTimeout, context.writeTimeout)
        scanInterval = max(.milliseconds(10), min(.milliseconds(250), shortest / 4))
        Epoll.add(epfd, wakeFD, events: Epoll.input)
    }

    deinit {
        readBuffer.deallocate()
    }

    /// Starts the thread, polling `listeners`.
    func start(listeners: [Int32], name: String) {
        let thread = Thread { [self] in
            spareFD = Self.openSpare()
            for fd in listeners {
                self.listeners.append(fd)
                Epoll.add(epfd, fd, events: Epoll.input)
            }
            run()
            exited.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Runs `task` on the loop thread soon. Any thread.
    /// After the loop has ended, tasks are dropped. The eventfd is written under the lock
    /// that also guards its closing, so a late caller never writes to a reused fd number.
    func execute(_ task: @escaping @Sendable () -> Void) {
        tasks.withLock { t in
            guard !t.closed else { return }
            t.items.append(task)
            if t.signaled { return }
            t.signaled = true
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
    }

    /// Waits for the thread to end after ``stop()``.
    func join() {
        exited.wait()
    }

    private func run() {
        let events = Epoll.Events(capacity: 256)
        defer { events.deallocate() }
        var nextScan = MonotonicInstant.now() + scanInterval
        while running {
            let now = MonotonicInstant.now()
            let timeout = nextScan.duration(since: now).epollMilliseconds
            let n = Epoll.wait(epfd, events, timeoutMilliseconds: timeout)
            if n < 0 && errno != EINTR { break }
            for i in 0..<max(0, Int(n)) {
                let (fd, mask) = events.event(i)
                if fd == wakeFD {
                    runTasks()
                } else if let channel = channels[fd] {
                    if mask & (Epoll.input | Epoll.readHangUp | Epoll.hangUp | Epoll.error) != 0 {
                        channel.readable(buffer: readBuffer)
                    }
                    if mask & (Epoll.output | Epoll.error | Epoll.hangUp) != 0 {
                        channel.writable()
                    }
                } else if listeners.contains(fd) {
                    accept(from: fd)
                }
            }
            let after = MonotonicInstant.now()
            if after >= nextScan {
                if listenersPaused {
                    listenersPaused = false
                    for fd in listeners { Epoll.add(epfd, fd, events: Epoll.input) }
                }
                for channel in Array(channels.values) { channel.checkTimeouts(now: after) }
                nextScan = after + scanInterval
            }
        }
        for channel in Array(channels.values) { channel.abort() }
        if spareFD >= 0 { close(spareFD) }
        tasks.withLock { t in
            t.closed = true
            t.items = []
            close(wakeFD)
        }
        close(epfd)
    }

    private func runTasks() {
        var counter: UInt64 = 0
        _ = read(wakeFD, &counter, 8)
        let items = tasks.withLock { t -> [@Sendable () -> Void] in
            t.signaled = false
            defer { t.items = [] }
            return t.items
        }
        for item in items { item() }
    }

    private func accept(from listener: Int32) {
        for _ in 0..<4 {
            guard let (fd, address) = Socket.accept(listener) else {
                if errno == EMFILE || errno == ENFILE { shed(listener) }
                return
            }
            let open = context.openConnections.add(1, ordering: .relaxed).newValue
            if open > context.configuration.maxConnections || context.draining.load(ordering: .relaxed) {
                context.openConnections.subtract(1, ordering: .relaxed)
                reject(fd)
                continue
            }
            let channel = ConnectionChannel(
                fd: fd, remoteAddress: address, loop: self, context: context, now: MonotonicInstant.now())
            channels[fd] = channel
            Epoll.add(epfd, fd, events: Epoll.input | Epoll.output | Epoll.readHangUp | Epoll.edgeTriggered)
        }
    }

    /// Out of file descriptors: the newcomer would wait in the backlog while the
    /// (level-triggered) listener wakes the loop again at once, forever. Frees the spare
    /// descriptor, accepts the newcomer and refuses it (503), and takes the spare again.
    /// Without a spare (another thread took the number meanwhile) and none to be had, it stops
    /// polling the listeners until the next deadline scan.
    private func shed(_ listener: Int32) {
        if spareFD >= 0 {
            close(spareFD)
            if let (fd, _) = Socket.accept(listener) { reject(fd) }
        }
        spareFD = Self.openSpare()
        if spareFD < 0 && !listenersPaused {
            listenersPaused = true
            for fd in listeners { Epoll.remove(epfd, fd) }
        }
    }

    private static func openSpare() -> Int32 {
        open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    /// Over the connection limit (or shutting down): a 503 with `Connection: close`, best
    /// effort, without blocking this thread.
    private func reject(_ fd: Int32) {
        _ = read(fd, readBuffer.baseAddress, readBuffer.count)
        let bytes = context.errorResponse(
            status: 503, title: "Service Unavailable",
            detail: "The server is at its connection limit or shutting down; retry later.")
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        shutdown(fd, Int32(SHUT_WR))
        close(fd)
    }

    /// Loop thread: forget a channel that is closing its fd.
    func unregister(_ channel: ConnectionChannel) {
        if channels[channel.fd] === channel {
            channels[channel.fd] = nil
            Epoll.remove(epfd, channel.fd)
        }
    }

    /// Loop thread: read again after a pause for back-pressure.
    func resumeReading(_ channel: ConnectionChannel) {
        if channels[channel.fd] === channel { channel.readable(buffer: readBuffer) }
    }

    /// Loop thread: stop polling the listening sockets (the server closes them).
    func stopAccepting() {
        for fd in listeners { Epoll.remove(epfd, fd) }
        listeners = []
    }

    /// Loop thread: shutdown begins.
    func beginDraining() {
        for channel in Array(channels.values) { channel.beginDraining() }
    }

    /// Loop thread: the deadline passed; drop every connection (answering what it cuts).
    func abortAll() {
        for channel in Array(channels.values) { channel.abortAtShutdownDeadline() }
    }

    /// Ends the loop thread after the current iteration. Any thread.
    func stop() {
        execute { [self] in running = false }
    }
}
