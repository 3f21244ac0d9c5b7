import Dispatch
import Synchronization

/// What every connection of a server shares: configuration, responder, counters.
final class ServerContext: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let settings: HTTPConnection.Settings
    let writeTimeout: Duration
    /// Where requests are served: the responder runs and its response is written, blocking
    /// as it must (``HTTPServerConfiguration/workerThreads`` threads at most).
    let workers: WorkerPool
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
