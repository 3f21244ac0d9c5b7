import Foundation
import HTTP1
import HTTPTestSupport
import Synchronization
import Testing
import TreeEngine
import TreeFormats
import TreeStorage
@testable import TreeReference
@testable import TreeService

/// A server over a data directory, stopped and started again between random changes:
/// every page after every restart is compared with the naive reference model, which
/// never restarts (the differential run of `HTTPDifferentialTests`, with more filters than
/// a session keeps, so views are dropped, built again and reset across restarts).
///
/// Random views come and go meanwhile (`RandomViews`): made every way, changed, edited
/// through, deleted. The reference model has no views, so every request also goes to a
/// memory-only service that never restarts (`TeeClient`): each answer of the restarted one
/// must be its answer (status, `ETag`, `Location`, body; ids mapped, times left out), and
/// after each restart every view's rows, filtered rows and versions are read from both.
@Suite struct RestartTests {
    static let seeds = Int(ProcessInfo.processInfo.environment["RESTART_MODEL_SEEDS"] ?? "") ?? 12

    @Test(.timeLimit(.minutes(3)))
    func randomSessionsSurviveRestartsAndCrashes() throws {
        for seed in 1 ... UInt64(Self.seeds) {
            let directory = try TemporaryDirectory()
            var run: DifferentialRun? = nil
            var views = RandomViews(seed: seed)
            let tee = TeeClient(reference: ServiceHarness())
            var rng = SeededRandom(seed: seed &* 7919)
            for round in 0 ..< 5 {
                // Every other stop is a crash: no shutdown, nothing synced or compacted.
                let crash = rng.chance(0.5)
                try withDurableServer(directory.path, fsync: rng.pick(FsyncMode.allCases), crash: crash) { _, port in
                    tee.durable = try HTTPTestClient(port: port)
                    if run == nil {
                        run = try DifferentialRun(seed: seed, client: tee, filterCount: 6)
                    } else {
                        run!.log.append("-- restarted (after a \(crash ? "crash" : "shutdown"))")
                        // Every view the reference keeps is there, as it was.
                        for filter in [nil] + run!.reference.kept { try run!.checkRows(filter, -round) }
                        try views.readAll(&run!, tee)
                    }
                    try run!.play(steps: 10)
                    try views.play(steps: 10, &run!, tee)
                }
                if let run, !(run.problems + tee.problems).isEmpty {
                    Issue.record("seed \(seed) round \(round): \((run.problems + tee.problems).prefix(5).joined(separator: "\n"))\nsteps:\n\(run.log.joined(separator: "\n"))")
                    return
                }
            }
        }
    }
}

/// Sends every request to the server under test (`durable`) and then to a memory-only
/// service (`reference`), and records where their answers differ: status, `ETag`,
/// `Location` and body, with the reference's session and view ids mapped to the durable
/// server's and the wall-clock times (`createdAt`, `lastUse`, `expiresAt`) left out. Answers
/// with the durable server's response.
final class TeeClient: HTTPRequestSending, @unchecked Sendable {  // used from one thread at a time
    var durable: (any HTTPRequestSending)?
    let reference: ServiceHarness
    /// The durable server's ids and the reference's, both ways.
    private var toReference: [String: String] = [:]
    private var fromReference: [String: String] = [:]
    private(set) var problems: [String] = []

    init(reference: ServiceHarness) { self.reference = reference }

    private func map(_ text: String, _ table: [String: String]) -> String {
        table.reduce(text) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
    }

    /// The body without its wall-clock times, ids of the reference mapped.
    private func normalized(_ body: [UInt8], mapping table: [String: String]) -> String {
        func strip(_ value: JSONValue) -> JSONValue {
            switch value {
            case .object(let members):
                return .object(members.filter { !["createdAt", "lastUse", "expiresAt"].contains($0.key) }.map { ($0.key, strip($0.value)) })
            case .array(let items): return .array(items.map(strip))
            default: return value
            }
        }
        let text = (try? JSONValue.parse(body)).map { String(decoding: strip($0).serialize(), as: UTF8.self) } ?? String(decoding: body, as: UTF8.self)
        return map(text, table)
    }

    func request(_ method: String, _ target: String, json: [UInt8]?, headers: [(String, String)]) throws -> HTTPTestResponse {
        let answer = try durable!.request(method, target, json: json, headers: headers)
        let other = try reference.request(method, map(target, toReference), json: json.map { Array(map(String(decoding: $0, as: UTF8.self), toReference).utf8) },
                                          headers: headers.map { ($0.0, map($0.1, toReference)) })
        // A session or view made on both: their ids name each other from now on.
        if method == "POST", answer.status == 201, other.status == 201, target == "/sessions" || target.hasSuffix("/views"),
           let mine = (try? JSONValue.parse(answer.body))?["id"]?.stringValue, let theirs = (try? JSONValue.parse(other.body))?["id"]?.stringValue {
            toReference[mine] = theirs
            fromReference[theirs] = mine
        }
        let got = [String(answer.status), answer.headers["etag"] ?? "", answer.headers["location"] ?? "", normalized(answer.body, mapping: [:])]
        let want = [String(other.status), other.headers["etag"] ?? "", map(other.headers["location"] ?? "", fromReference),
                    normalized(other.body, mapping: fromReference)]
        if got != want {
            func shown(_ parts: [String]) -> String { parts.map { $0.count > 1200 ? $0.prefix(1200) + "…" : $0 }.description }
            problems.append("\(method) \(target) \(json.map { String(decoding: $0, as: UTF8.self) } ?? ""):\n durable   \(shown(got))\n reference \(shown(want))")
        }
        return answer
    }
}

/// Random views of one session (`DifferentialRun`'s), through a `TeeClient`: made every
/// way, deleted, expanded and collapsed in their unfiltered and filtered rows, read, and
/// edited through (renames, moves and deletes, which the run's reference model follows).
struct RandomViews {
    var rng: SeededRandom
    var views: [String] = []

    init(seed: UInt64) { rng = SeededRandom(seed: seed &* 104_729) }

    private mutating func filter(_ run: DifferentialRun) -> String {
        rng.chance(0.5) ? "" : DifferentialRun.parameters(rng.pick(run.filters))
    }

    /// `path` with the query `query` (none when empty).
    private func with(_ path: String, _ query: String) -> String { query.isEmpty ? path : path + "?" + query }

    mutating func play(steps: Int, _ run: inout DifferentialRun, _ client: TeeClient) throws {
        let session = "/sessions/\(run.sid)"
        for step in 0 ..< steps {
            let nodes = run.reference.allNodes
            let node = nodes.isEmpty ? nil : rng.pick(nodes)
            guard let vid = views.isEmpty ? nil : rng.pick(views), rng.int(0 ... 9) > 0 else {
                let start = rng.pick([#"{}"#, #"{"expand":"all"}"#, #"{"expand":2}"#, #"{"from":"default"}"#]
                                     + views.prefix(3).map { "{\"from\":\"\($0)\"}" })
                run.log.append("view \(step): create \(start)")
                let made = try client.request("POST", "\(session)/views", json: Array(start.utf8))
                if let id = (try? JSONValue.parse(made.body))?["id"]?.stringValue { views.append(id) }
                continue
            }
            let at = "\(session)/views/\(vid)"
            let query = filter(run)
            switch rng.int(0 ... 12) {
            case 0:
                run.log.append("view \(step): delete \(vid)")
                _ = try client.request("DELETE", at)
                views.removeAll { $0 == vid }
            case 1, 2, 3:
                guard let node else { continue }
                let body = rng.chance(0.2) ? #"{"reveal":true}"# : "{\"expanded\":\(rng.chance(0.5)),\"recursive\":\(rng.chance(0.2))}"
                run.log.append("view \(step): \(vid) item \(node.key) \(body) \(query)")
                _ = try client.request("PATCH", with("\(at)/items/\(PathSegment.encode(node.key))", query), json: Array(body.utf8))
            case 4:
                let body = rng.pick([#"{"expandAll":true}"#, #"{"collapseAll":true}"#, "{\"expandDepth\":\(rng.int(0 ... 3))}"])
                run.log.append("view \(step): \(vid) \(body) \(query)")
                _ = try client.request("PATCH", with(at, query), json: Array(body.utf8))
            case 5:
                guard let node else { continue }
                let body = #"{"operations":[{"op":"expand","id":"\#(run.jsonEscaped(node.key))","expanded":true},{"op":"collapseAll"}]}"#
                run.log.append("view \(step): \(vid) batch \(body) \(query)")
                _ = try client.request("POST", with("\(at)/batch", query), json: Array(body.utf8))
            case 6:
                guard let node else { continue }
                let title = RandomTrees.title(&rng)
                run.log.append("view \(step): \(vid) title of \(node.key) = \(title.debugDescription) \(query)")
                let reply = try client.request("PATCH", with("\(at)/items/\(PathSegment.encode(node.key))", query),
                                               json: Array("{\"title\":\"\(run.jsonEscaped(title))\"}".utf8))
                if reply.status == 200 {
                    node.title = title
                    run.reference.editDone(nil)
                }
            case 7:
                guard let node, rng.chance(0.5) else { continue }
                run.log.append("view \(step): \(vid) delete \(node.key) \(query)")
                if try client.request("DELETE", with("\(at)/items/\(PathSegment.encode(node.key))", query)).status == 200 {
                    run.reference.delete(node)
                    run.reference.editDone(nil)
                }
            case 8:
                guard let node else { continue }
                let parent = rng.chance(0.2) ? nil : rng.pick(nodes)
                let body = "{\"parentId\":" + (parent.map { "\"\(run.jsonEscaped($0.key))\"" } ?? "null") + "}"
                run.log.append("view \(step): \(vid) move \(node.key) \(body) \(query)")
                let reply = try client.request("PATCH", with("\(at)/items/\(PathSegment.encode(node.key))", query), json: Array(body.utf8))
                if run.reference.move(node, to: parent, index: nil) == nil {
                    run.reference.editDone(nil)
                    if reply.status != 200 { run.problem("view \(step): a move through a view answered \(reply.status)") }
                }
            case 9:
                // A read with the view's version, which a change of another view does not move.
                let version = (try? JSONValue.parse(try client.request("GET", at).body))?["version"]?.intValue ?? 0
                run.log.append("view \(step): \(vid) collapse with If-Match \(version)")
                _ = try client.request("PATCH", at, json: Array(#"{"collapseAll":true}"#.utf8), headers: [("If-Match", "\"\(version)\"")])
            default:
                run.log.append("view \(step): \(vid) rows \(query)")
                _ = try client.request("GET", with("\(at)/rows", query + (query.isEmpty ? "" : "&") + "limit=1000"))
            }
        }
    }

    /// Reads, through both servers, every view's summary and its rows unfiltered and in
    /// every filter of the run (building and dropping them alike on both).
    mutating func readAll(_ run: inout DifferentialRun, _ client: TeeClient) throws {
        let listed = try client.request("GET", "/sessions/\(run.sid)/views?limit=1000")
        let ids = ((try? JSONValue.parse(listed.body))?["views"]?.array ?? []).compactMap { $0["id"]?.stringValue }
        if ids != views { run.problem("after the restart the views are \(ids), not \(views)") }
        for vid in ids {
            let at = "/sessions/\(run.sid)/views/\(vid)"
            _ = try client.request("GET", at)
            for query in [""] + run.filters.map(DifferentialRun.parameters) {
                _ = try client.request("GET", "\(at)/rows?limit=1000" + (query.isEmpty ? "" : "&" + query))
            }
        }
    }
}

/// A directory under the system's temporary one, removed when the value goes away.
final class TemporaryDirectory {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("tree-sessions-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Runs `body` against a server on a data directory, its stored sessions loaded; then
/// shuts it down (`crash`: without making anything durable or compacting, as a kill would).
func withDurableServer<T>(_ path: String, fsync: FsyncMode = .batch, crash: Bool = false,
                          _ configure: (inout ServiceConfiguration) -> Void = { _ in },
                          _ body: (TreeService, Int) throws -> T) throws -> T {
    var configuration = ServiceConfiguration()
    configure(&configuration)
    let directory = try DataDirectory(path: path, fsync: fsync)
    defer { directory.close() }
    let service = TreeService(configuration: configuration, dataDirectory: directory)
    let loaded = DispatchSemaphore(value: 0)
    service.loadStoredSessions { loaded.signal() }
    loaded.wait()
    defer { if !crash { service.shutDownStorage() } }
    return try withServer({ http in
        http.errorRenderer = TreeService.httpErrorRenderer
        http.maxBodySize = 1 << 20
    }, responder: service) { _, port in
        try body(service, port)
    }
}
