import Synchronization

/// The body of a response that stays open and is written to later, from any thread
/// (server-sent events): ``HTTPBody/push(_:)`` hands one to the responder once the head is
/// queued, and the worker thread is free as soon as that closure returns.
///
/// Every ``send(_:)`` is one piece of the body, queued whole (pieces from different threads
/// never interleave) and never blocking: a peer too slow to take what is queued is dropped
/// instead. The stream ends once, for whichever reason comes first: ``finish()`` (the body
/// ends properly), the peer going away, the transport dropping a slow peer, or the server
/// shutting down; the handlers given to ``onEnd(_:)`` then run, once.
public final class HTTPPushStream: Sendable {
    /// What the transport is asked to do.
    public enum Output: Sendable {
        /// Send these bytes as the next piece of the body.
        case bytes([UInt8])
        /// End the body properly (the terminating chunk), then the connection.
        case finish
    }

    private struct State {
        var open = true
        var handlers: [@Sendable () -> Void] = []

        /// Marks the stream ended; the handlers to run (outside the lock).
        mutating func end() -> [@Sendable () -> Void] {
            open = false
            defer { handlers = [] }
            return handlers
        }
    }

    private let state = Mutex(State())
    private let sink: @Sendable (Output) -> Bool

    /// A stream whose output goes to `sink`, called under the stream's lock (so in order, and
    /// never after the end); it returns false when the bytes cannot be taken (the peer is gone
    /// or too slow), which ends the stream. The server makes these; tests and in-process
    /// callers may too. A transport must not call back into the stream from `sink`.
    public init(sink: @escaping @Sendable (Output) -> Bool) {
        self.sink = sink
    }

    /// Whether the stream has not ended.
    public var isOpen: Bool { state.withLock { $0.open } }

    /// Queues `bytes` as the next piece of the body. False (and nothing sent) once the stream
    /// has ended, or when the transport refuses them, which ends it.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        let result = state.withLock { s -> (sent: Bool, ended: [@Sendable () -> Void]?) in
            guard s.open else { return (false, nil) }
            if sink(.bytes(bytes)) { return (true, nil) }
            return (false, s.end())
        }
        result.ended?.forEach { $0() }
        return result.sent
    }

    /// Ends the body properly; the connection closes once it is sent. Idempotent.
    public func finish() {
        let ended = state.withLock { s -> [@Sendable () -> Void]? in
            guard s.open else { return nil }
            _ = sink(.finish)
            return s.end()
        }
        ended?.forEach { $0() }
    }

    /// Ends the stream without a proper end of the body (the peer is gone, was too slow, or
    /// the server is stopping): for the transport. Idempotent.
    public func cancel() {
        let ended = state.withLock { s -> [@Sendable () -> Void]? in
            guard s.open else { return nil }
            return s.end()
        }
        ended?.forEach { $0() }
    }

    /// Runs `handler` once the stream has ended (at once, on this thread, when it has already).
    public func onEnd(_ handler: @escaping @Sendable () -> Void) {
        let ended = state.withLock { s -> Bool in
            if s.open { s.handlers.append(handler) }
            return !s.open
        }
        if ended { handler() }
    }
}
