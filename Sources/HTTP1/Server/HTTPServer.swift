#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Synchronization

/// A strict HTTP/1.1 server: non-blocking sockets driven by one epoll loop per core, the
/// responder called on a bounded pool of worker threads
/// (``HTTPServerConfiguration/workerThreads``).
///
/// ```swift
/// let server = HTTPServer(configuration: .init(host: "::", port: 8080), responder: MyResponder())
/// try server.runUntilTerminated()   // returns after SIGTERM/SIGINT and a graceful shutdown
/// ```
public final class HTTPServer: Sendable {
    public let configuration: HTTPServerConfiguration
    /// This server's budget for request bodies in memory, of
    /// ``HTTPServerConfiguration/bodyBudgetCapacity`` bytes; responders see it as
    /// ``HTTPRequest/memoryBudget``.
    public let bodyBudget: MemoryBudget
    private let context: ServerContext
    private let lifecycle = Mutex(Lifecycle())
    private let stopped = DispatchGroup()

    private struct Lifecycle {
        enum Phase { case idle, running, stopping, stopped }
        var phase = Phase.idle
        var loops: [EventLoop] = []
        var listeners: [Int32] = []
        var port = 0
    }

    public init(configuration: HTTPServerConfiguration = HTTPServerConfiguration(), responder: any HTTPResponder) {
        self.configuration = configuration
        self.bodyBudget = MemoryBudget(capacity: configuration.bodyBudgetCapacity ?? MemoryBudget.defaultCapacity)
        self.context = ServerContext(configuration: configuration, responder: responder, bodyBudget: bodyBudget)
    }

    /// Binds every address of `configuration.host`, listens, and starts the I/O threads.
    /// Returns at once; the server runs until ``shutdown(deadline:)``.
    public func start() throws {
        try lifecycle.withLock { life in
            guard life.phase == .idle else { throw HTTPServerError(message: "server already started") }
            let (fds, port) = try Socket.listen(
                host: configuration.host, port: configuration.port, backlog: configuration.listenBacklog)
            var loops: [EventLoop] = []
            do {
                for _ in 0..<max(1, configuration.eventLoopCount) { loops.append(try EventLoop(context: context)) }
            } catch {
                for fd in fds { close(fd) }
                throw error
            }
            for (index, loop) in loops.enumerated() { loop.start(listeners: fds, name: "http-io-\(index)") }
            life.loops = loops
            life.listeners = fds
            life.port = port
            life.phase = .running
            stopped.enter()
        }
    }

    /// The port actually bound (useful with port 0); 0 before ``start()``.
    public var boundPort: Int { lifecycle.withLock { $0.port } }

    /// Connections currently open. - Complexity: O(1)
    public var connectionCount: Int { context.openConnections.load(ordering: .relaxed) }

    /// Stops accepting, lets requests in progress finish (their responses carry
    /// `Connection: close`), closes idle connections, and after `deadline` drops whatever
    /// is left. Blocks until the I/O threads have ended. Safe to call more than once.
    public func shutdown(deadline: Duration = .seconds(10)) {
        let (loops, listeners) = lifecycle.withLock { life -> ([EventLoop], [Int32]) in
            guard life.phase == .running else { return ([], []) }
            life.phase = .stopping
            return (life.loops, life.listeners)
        }
        guard !loops.isEmpty else {
            waitUntilStopped()
            return
        }
        context.draining.store(true, ordering: .relaxed)
        onEveryLoop(loops) { $0.stopAccepting(); $0.beginDraining() }
        for fd in listeners { close(fd) }

        let end = MonotonicInstant.now() + deadline
        while context.openConnections.load(ordering: .relaxed) > 0 && MonotonicInstant.now() < end {
            usleep(5_000)
        }
        onEveryLoop(loops) { $0.abortAll() }
        for loop in loops { loop.stop() }
        for loop in loops { loop.join() }
        lifecycle.withLock { life in
            life.phase = .stopped
            life.loops = []
            life.listeners = []
        }
        stopped.leave()
    }

    private func onEveryLoop(_ loops: [EventLoop], _ body: @escaping @Sendable (EventLoop) -> Void) {
        let group = DispatchGroup()
        for loop in loops {
            group.enter()
            loop.execute {
                body(loop)
                group.leave()
            }
        }
        group.wait()
    }

    /// Blocks until the server has stopped (returns at once if it never started).
    public func waitUntilStopped() {
        stopped.wait()
    }

    /// Starts the server if needed, blocks until SIGTERM or SIGINT (or another thread's
    /// ``shutdown(deadline:)``), shuts down gracefully within `shutdownDeadline`, and
    /// returns, so `main` can exit 0.
    public func runUntilTerminated(shutdownDeadline: Duration = .seconds(10)) throws {
        if lifecycle.withLock({ $0.phase == .idle }) { try start() }
        let wake = DispatchSemaphore(value: 0)
        let sources = [SIGTERM, SIGINT].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { wake.signal() }
            source.resume()
            return source
        }
        DispatchQueue.global().async {
            self.waitUntilStopped()
            wake.signal()
        }
        wake.wait()
        for source in sources { source.cancel() }
        shutdown(deadline: shutdownDeadline)
        // Back to the default disposition, so a later signal is not silently ignored.
        for number in [SIGTERM, SIGINT] { signal(number, SIG_DFL) }
    }

    /// Builds a server, runs it until SIGTERM/SIGINT, shuts it down gracefully and returns.
    public static func run(
        configuration: HTTPServerConfiguration, responder: any HTTPResponder,
        shutdownDeadline: Duration = .seconds(10)
    ) throws {
        try HTTPServer(configuration: configuration, responder: responder)
            .runUntilTerminated(shutdownDeadline: shutdownDeadline)
    }
}
