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
@Suite struct RestartTests {
    static let seeds = Int(ProcessInfo.processInfo.environment["RESTART_MODEL_SEEDS"] ?? "") ?? 12

    @Test(.timeLimit(.minutes(2)))
    func randomSessionsSurviveRestartsAndCrashes() throws {
        for seed in 1 ... UInt64(Self.seeds) {
            let directory = try TemporaryDirectory()
            var run: DifferentialRun? = nil
            var rng = SeededRandom(seed: seed &* 7919)
            for round in 0 ..< 5 {
                // Every other stop is a crash: no shutdown, nothing synced or compacted.
                let crash = rng.chance(0.5)
                try withDurableServer(directory.path, fsync: rng.pick(FsyncMode.allCases), crash: crash) { _, port in
                    let client = try HTTPTestClient(port: port)
                    if run == nil {
                        run = try DifferentialRun(seed: seed, client: client, filterCount: 6)
                    } else {
                        run!.client = client
                        run!.log.append("-- restarted (after a \(crash ? "crash" : "shutdown"))")
                        // Every view the reference keeps is there, as it was.
                        for filter in [nil] + run!.reference.kept { try run!.checkRows(filter, -round) }
                    }
                    try run!.play(steps: 10)
                }
                if let run, !run.problems.isEmpty {
                    Issue.record("seed \(seed) round \(round): \(run.problems.prefix(5).joined(separator: "\n"))\nsteps:\n\(run.log.joined(separator: "\n"))")
                    return
                }
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
