import Foundation
import HTTP1
import HTTPTestSupport
import Synchronization
import TreeEngine
import TreeFormats
import TreeStorage
@testable import TreeReference
@testable import TreeService

/// Calls a `TreeService` in process, the way the HTTP layer would.
struct ServiceHarness {
    let service: TreeService
    let clock: TestClock

    /// - Parameters:
    ///   - clock: a clock to go on with (a service started again on the same data directory).
    ///   - dataDirectory: where the service stores its sessions; its stored ones are loaded
    ///     before this returns.
    init(clock: TestClock = TestClock(), dataDirectory: DataDirectory? = nil, _ configure: (inout ServiceConfiguration) -> Void = { _ in }) {
        var configuration = ServiceConfiguration()
        configure(&configuration)
        self.clock = clock
        service = TreeService(configuration: configuration, clock: clock, dataDirectory: dataDirectory)
        let loaded = DispatchSemaphore(value: 0)
        service.loadStoredSessions { loaded.signal() }
        loaded.wait()
    }

    struct Reply {
        let status: Int
        let headers: HTTPHeaders
        let body: [UInt8]
        var json: JSONValue { (try? JSONValue.parse(body)) ?? .null }
        var text: String { String(decoding: body, as: UTF8.self) }
        subscript(_ key: String) -> JSONValue? { json.member(key) }
    }

    @discardableResult
    func call(_ method: String, _ target: String, json: String? = nil, contentType: String = "application/json",
              headers: [(String, String)] = []) -> Reply {
        var h = HTTPHeaders(headers)
        if json != nil { h.add(name: "Content-Type", value: contentType) }
        return reply(to: HTTPRequest(method: method, target: target, headers: h, body: Array((json ?? "").utf8)))
    }

    /// The service's response to `request`, as the server would send it; a pushed body
    /// (an event stream) goes to `stream` when given.
    func reply(to request: HTTPRequest, stream: HTTPPushStream? = nil) -> Reply {
        var response = service.respond(to: request)
        if let deferral = response.deferral {
            // Sent later (after an fsync shared with other changes), as the server would.
            let sent = Mutex<HTTPResponse?>(nil), done = DispatchSemaphore(value: 0)
            deferral { final in
                sent.withLock { $0 = final }
                done.signal()
            }
            precondition(done.wait(timeout: .now() + 60) == .success, "a deferred response was never sent")
            response = sent.withLock { $0 }!
        }
        var body: [UInt8] = []
        switch response.body {
        case .bytes(let b): body = b
        case .stream:
            // The one streamed body is the export of a tree: made here from the session's forest.
            if let sid = request.pathSegments.dropFirst().first, request.pathSegments.last == "tree",
               let session = service.registry.lookup(sid) {
                // In the form the response announces (the service picked it from Accept or format).
                let type = response.headers["content-type"] ?? ""
                let separator = request.queryValue("separator") ?? "/"
                session.state.withReadLock { state in
                    let forest = state.core.store.forest
                    if response.headers["etag"]?.hasSuffix("-document\"") == true { forest.exportDocument { body += $0 } }
                    else if type.hasPrefix("text/csv") { forest.exportCSV { body += $0 } }
                    else if type.hasPrefix("application/x-ndjson") { forest.exportNDJSON { body += $0 } }
                    else if type.hasPrefix("text/plain") { forest.exportPaths(separator: separator) { body += $0 } }
                    else { forest.export { body += $0 } }
                }
            } else {
                body = Array("(streamed; see LoopbackTests)".utf8)
            }
        case .push(let start):
            if let stream { start(stream) } else { body = Array("(pushed; see EventStreamTests)".utf8) }
        }
        return Reply(status: response.status, headers: response.headers, body: body)
    }

    /// Creates a session from the outline sample; returns its id.
    func createSample(expand: String = "\"none\"") -> String {
        let reply = call("POST", "/sessions", json: "{\"nodes\": \(ServiceHarness.sampleNodes), \"expand\": \(expand)}")
        precondition(reply.status == 201, "create failed: \(reply.text)")
        return reply["id"]!.stringValue!
    }

    /// The outline sample (`Tests/Support/TreeReference/Resources/outline-small.json`).
    static var sample: [UInt8] { TestData.outlineSample }

    /// The `nodes` array of the sample, as JSON text.
    static let sampleNodes: String = {
        guard case .array(let nodes)? = try! JSONValue.parse(sample).member("nodes") else { fatalError("sample has no nodes") }
        return String(decoding: JSONValue.array(nodes).serialize(), as: UTF8.self)
    }()
}

extension ServiceHarness {
    /// Runs `body` while another thread holds the session's lock (exclusively, or shared as a
    /// reader) until `body` returns (or 30 s pass, which only ends a failing run); also tells
    /// whether `body` returned while the lock was still held, i.e. did not wait for it.
    func whileAnotherThreadHolds<T>(_ session: Session, exclusively: Bool, _ body: () -> T) -> (result: T, answeredWhileHeld: Bool) {
        let holding = Atomic<Bool>(false)
        let held = DispatchSemaphore(value: 0), letGo = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            func hold() {
                holding.store(true, ordering: .sequentiallyConsistent)
                held.signal()
                _ = letGo.wait(timeout: .now() + 30)
                holding.store(false, ordering: .sequentiallyConsistent)
            }
            if exclusively { session.state.withLock { _ in hold() } } else { session.state.withReadLock { _ in hold() } }
            done.signal()
        }
        held.wait()
        let result = body()
        let answeredWhileHeld = holding.load(ordering: .sequentiallyConsistent)
        letGo.signal()
        done.wait()
        return (result, answeredWhileHeld)
    }
}

/// A settable clock for expiry tests: it moves only when told to.
final class TestClock: ServiceClock {
    private let origin = ContinuousClock.now
    private let elapsed = Mutex<Duration>(.zero)
    var now: ContinuousClock.Instant { origin.advanced(by: elapsed.withLock { $0 }) }
    /// 2027-01-15T08:00:00Z at the start.
    var wallNow: Date { Date(timeIntervalSince1970: 1_800_000_000).advanced(by: elapsed.withLock { $0 }) }
    func advance(_ span: Duration) { elapsed.withLock { $0 += span } }
}

extension JSONValue {
    func member(_ key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }
    var array: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
}

/// The service behind the real HTTP server (`withServer` of HTTPTestSupport, with the service's
/// problem documents for HTTP-layer errors and a 1 MiB body limit) on a free loopback port;
/// `body` gets the base URL (`http://127.0.0.1:PORT`) and the port.
@discardableResult
func withServiceServer<T>(
    _ configure: (inout ServiceConfiguration) -> Void = { _ in },
    _ body: (_ base: String, _ port: Int) throws -> T
) throws -> T {
    var configuration = ServiceConfiguration()
    configure(&configuration)
    return try withServer({ http in
        http.errorRenderer = TreeService.httpErrorRenderer
        http.maxBodySize = 1 << 20
    }, responder: TreeService(configuration: configuration)) { _, port in
        try body("http://127.0.0.1:\(port)", port)
    }
}

extension ServiceHarness: HTTPRequestSending {
    func request(_ method: String, _ target: String, json: [UInt8]?, headers: [(String, String)]) throws -> HTTPTestResponse {
        var h = HTTPHeaders(headers)
        if json != nil { h.add(name: "Content-Type", value: "application/json") }
        let reply = reply(to: HTTPRequest(method: method, target: target, headers: h, body: json ?? []))
        return HTTPTestResponse(status: reply.status, headers: reply.headers, body: reply.body)
    }
}
