import Dispatch
import Synchronization

/// What every connection of a server shares: configuration, responder, counters.
final class ServerContext: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let settings: HTTPConnection.Settings
    let writeTimeout: Duration
    /// Where requests that may change something are served (see `serve`).
    let workers: WorkerPool
    /// Where reads are served: Dispatch's shared threads, as many running as there are cores.
    let readers = DispatchQueue.global(qos: .userInitiated)
    /// Where the end of a push body is handled (its end handlers run): short work that does
    /// not wait behind requests.
    let streamEnds = DispatchQueue.global(qos: .userInitiated)
    /// Open connections, for `maxConnections` and for shutdown to wait on.
    let openConnections = Atomic<Int>(0)
    let draining = Atomic<Bool>(false)

    init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, bodyBudget: MemoryBudget) {
        self.configuration = configuration
        self.responder = responder
        self.settings = configuration.connectionSettings(bodyBudget: bodyBudget)
        self.writeTimeout = configuration.writeTimeout
        self.workers = WorkerPool(threadLimit: max(1, configuration.workerThreads))
    }

    /// Runs `job`, which serves `request` (runs the responder, writes the response, blocking
    /// as it must): a read (GET, HEAD, OPTIONS) on Dispatch's shared threads, which suit short
    /// work that needs a core; any other request, which may wait for a disk, on the bounded
    /// pool (``HTTPServerConfiguration/workerThreads``), so that a burst of slow writes
    /// cannot take every thread.
    func serve(_ request: HTTPRequest, _ job: @escaping @Sendable () -> Void) {
        switch request.method {
        case "GET", "HEAD", "OPTIONS": readers.async(execute: job)
        default: workers.execute(job)
        }
    }

    /// A complete error response with `Connection: close`, body rendered by the configured
    /// renderer.
    func errorResponse(status: Int, title: String, detail: String, retryAfter: Int? = nil, headRequest: Bool = false) -> [UInt8] {
        let rendered = configuration.errorRenderer(status, title, detail)
        let body = headRequest ? [] : rendered.body
        var headers: HTTPHeaders = ["Content-Type": rendered.contentType]
        if let retryAfter { headers.add(name: "Retry-After", value: String(retryAfter)) }
        if var bytes = ResponseHead.serialize(
            status: status, headers: headers, framing: .length(rendered.body.count),
            keepAlive: false, requestVersion: .http1_1, reserving: body.count)
        {
            bytes.append(contentsOf: body)
            return bytes
        }
        // The renderer gave an unusable content type: send the status alone.
        return ResponseHead.serialize(
            status: status, headers: [:], framing: .length(0), keepAlive: false, requestVersion: .http1_1) ?? []
    }
}
