import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an open event stream gives the code that follows it: that it opened (200), a `retry:`
/// value, an event.
enum EventStreamItem: Sendable {
    case opened
    case retry(Int)
    case event(ServerSentEvent)
}

extension TreeSessionsClient {
    /// `GET …/events`: the view's changes as they happen, typed, until `end` (after which the
    /// sequence finishes) or an error (thrown: a `Problem` when the server refused the stream,
    /// e.g. 404 for a session that is gone, with `retryAfter` on a 429 or 503; an
    /// `EventStreamIdle` when nothing, heartbeats included, came for `idleTimeout`; else the
    /// transport's error). `lastEventId` resumes after that version (`Last-Event-ID`). Cancelling
    /// the task that iterates it closes the connection. It does not reconnect:
    /// `RemoteListTreeDataSource` does, with backoff.
    public func events(_ session: String, view: ViewId? = nil, filter: RowFilter = .unfiltered,
                       lastEventId: Int? = nil, idleTimeout: Duration = .seconds(45)) -> AsyncThrowingStream<ServerEvent, any Error> {
        eventStream(session, view: view, filter: filter, lastEventId: lastEventId, idleTimeout: idleTimeout) { item in
            guard case .event(let event) = item else { return (nil, false) }
            let typed = try ServerEvent(event)
            if case .end = typed { return (typed, true) }
            return (typed, false)
        }
    }

    /// The raw stream: every item, for the follower of a data source.
    func eventItems(_ session: String, view: ViewId?, filter: RowFilter, lastEventId: Int?,
                    idleTimeout: Duration) -> AsyncThrowingStream<EventStreamItem, any Error> {
        eventStream(session, view: view, filter: filter, lastEventId: lastEventId, idleTimeout: idleTimeout) { ($0, false) }
    }

    /// Opens the stream with a data task whose delegate parses bytes as they arrive (Linux's
    /// FoundationNetworking has no `URLSession.bytes(for:)`; this works on every platform).
    /// `map` turns an item into an element (nil: none) and says whether the stream ends there.
    /// A watchdog closes a stream that read nothing for `idleTimeout` (the server writes a
    /// comment every 15 s: silence means a dead link).
    private func eventStream<Element: Sendable>(
        _ session: String, view: ViewId?, filter: RowFilter, lastEventId: Int?, idleTimeout: Duration,
        map: @escaping @Sendable (EventStreamItem) throws -> (Element?, Bool)
    ) -> AsyncThrowingStream<Element, any Error> {
        AsyncThrowingStream { continuation in
            var call = Call(method: "GET", path: Self.viewPath(session, view, "events")).filter(filter)
            if let lastEventId { call.headers.append(("Last-Event-ID", String(lastEventId))) }
            let request: URLRequest
            do {
                var built = try urlRequest(call)
                built.setValue("text/event-stream", forHTTPHeaderField: "Accept")
                built.timeoutInterval = 3600  // the watchdog below bounds a silent link
                request = built
            } catch {
                continuation.finish(throwing: error)
                return
            }
            let delegate = EventStreamDelegate(continuation: continuation, map: map)
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            let streamSession = URLSession(configuration: urlSession.configuration, delegate: delegate, delegateQueue: queue)
            let task = streamSession.dataTask(with: request)
            let watchdog = Task {
                let step = max(min(idleTimeout / 4, .seconds(1)), .milliseconds(10))
                while !Task.isCancelled {
                    try? await Task.sleep(for: step)
                    if delegate.silence >= idleTimeout {
                        delegate.timeOut(after: idleTimeout)
                        task.cancel()
                        return
                    }
                }
            }
            continuation.onTermination = { _ in
                watchdog.cancel()
                task.cancel()
                streamSession.invalidateAndCancel()
            }
            task.resume()
        }
    }
}

/// An event stream read nothing, not even a heartbeat, for `idleTimeout`: it was closed.
public struct EventStreamIdle: Error, Sendable, Equatable {
    public var idleTimeout: Duration
}

/// Feeds one stream's bytes to its parser and its continuation. Its state is touched only on its
/// session's delegate queue, which runs one operation at a time, but for the time of the last
/// bytes and the watchdog's verdict, which are guarded by `lock`: hence `@unchecked Sendable`.
private final class EventStreamDelegate<Element: Sendable>: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let continuation: AsyncThrowingStream<Element, any Error>.Continuation
    private let map: @Sendable (EventStreamItem) throws -> (Element?, Bool)
    private var parser = ServerSentEventParser()
    private var status = 0
    private var contentType: String?
    private var etag: String?
    private var retryAfter: String?
    private var errorBody = Data()
    private var finished = false
    private let lock = NSLock()
    private var lastRead = ContinuousClock.now
    private var idleTimeout: Duration?

    init(continuation: AsyncThrowingStream<Element, any Error>.Continuation,
         map: @escaping @Sendable (EventStreamItem) throws -> (Element?, Bool)) {
        self.continuation = continuation
        self.map = map
    }

    /// How long nothing was read.
    var silence: Duration { lock.withLock { ContinuousClock.now - lastRead } }

    /// The watchdog closes the stream: it ends with `EventStreamIdle`.
    func timeOut(after idleTimeout: Duration) {
        lock.withLock { self.idleTimeout = idleTimeout }
    }

    private func noteRead() {
        lock.withLock { lastRead = ContinuousClock.now }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        noteRead()
        let http = response as? HTTPURLResponse
        status = http?.statusCode ?? 0
        contentType = http?.value(forHTTPHeaderField: "Content-Type")
        etag = http?.value(forHTTPHeaderField: "ETag")
        retryAfter = http?.value(forHTTPHeaderField: "Retry-After")
        if status == 200 { deliver(.opened) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        noteRead()
        guard !finished else { return }
        guard status == 200 else {
            errorBody.append(data)
            return
        }
        for output in parser.feed(data) {
            switch output {
            case .event(let event): deliver(.event(event))
            case .retry(let milliseconds): deliver(.retry(milliseconds))
            }
            if finished { return }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        session.finishTasksAndInvalidate()
        guard !finished else { return }
        finished = true
        if let idleTimeout = lock.withLock({ self.idleTimeout }) {
            continuation.finish(throwing: EventStreamIdle(idleTimeout: idleTimeout))
        } else if status != 200 && status != 0 {
            continuation.finish(throwing: Problem.from(status: status, contentType: contentType, body: errorBody, etag: etag,
                                                       retryAfter: retryAfter))
        } else if let error {
            continuation.finish(throwing: error)
        } else {
            continuation.finish()
        }
    }

    private func deliver(_ item: EventStreamItem) {
        guard !finished else { return }
        do {
            let (element, ends) = try map(item)
            if let element { continuation.yield(element) }
            if ends {
                finished = true
                continuation.finish()
            }
        } catch {
            finished = true
            continuation.finish(throwing: error)
        }
    }
}
