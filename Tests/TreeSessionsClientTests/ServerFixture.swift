#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTPTestSupport
import Testing
@testable import TreeSessionsClient

/// A tree-server of its own for a test: memory only, on a free port (`--port 0`, the port read
/// from its "listening on" line), killed when the test's body returns. The binary is the one
/// `swift build --build-tests` built beside the tests, else the package's `.build/debug` one; a
/// test that finds neither fails (it does not skip).
final class TreeServer: Sendable {
    let port: Int
    let baseURL: URL
    private let process: Process

    static var executable: String? {
        if let beside = Tool.builtBesideTests("tree-server") { return beside }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let path = package.appendingPathComponent(".build/debug/tree-server").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    init(_ arguments: [String] = []) throws {
        guard let executable = Self.executable else {
            throw Failure("tree-server is not built: run swift build --build-tests (or swift build --product tree-server)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--data-dir", "none", "--port", "0", "--host", "127.0.0.1", "--access-log", "false"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let log = read(errors.fileHandleForReading, until: "listening on")
        guard let port = listeningPort(in: log) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw Failure("tree-server did not say where it listens: \(log)")
        }
        // Keep reading standard error so that the server never blocks on a full pipe.
        let handle = errors.fileHandleForReading
        Thread { while !handle.availableData.isEmpty {} }.start()
        self.process = process
        self.port = port
        guard let url = URL(string: "http://127.0.0.1:\(port)") else { throw Failure("no URL for port \(port)") }
        baseURL = url
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }

    func client(token: String? = nil) -> TreeSessionsClient {
        TreeSessionsClient(baseURL: baseURL, token: token)
    }
}

/// Runs `body` with a server of its own, stopped however `body` ends.
func withTreeServer<T>(_ arguments: [String] = [], isolation: isolated (any Actor)? = #isolation,
                       _ body: (TreeServer) async throws -> T) async throws -> T {
    let server = try TreeServer(arguments)
    defer { server.stop() }
    return try await body(server)
}

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The outline sample of the demo (SwiftListTreeDataSource's own example data: 38 nodes, 5 roots).
func outlineSample() throws -> [Node] {
    let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let data = try Data(contentsOf: package.appendingPathComponent("Sources/TreeService/Demo/outline-small.json"))
    return try JSONDecoder().decode(SessionUpload.self, from: data).nodes
}

/// Waits (polling every 10 ms, at most `timeout`) until `condition` holds; false on timeout.
@MainActor
func eventually(timeout: Duration = .seconds(5), _ condition: @MainActor () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
}

/// A list as a UI holds it: the rows' ids, changed only by `ListUpdate`s, to check that the
/// updates a data source hands out lead to what it holds. Given the data source's `items` (as
/// they are when the update is handed out), an inserted or reloaded row shows what a cell
/// configured from `items` would: the cached row's id, or nil (a placeholder); without them,
/// nil.
struct ShadowList {
    var rows: [NodeId?]

    mutating func apply(_ update: ListUpdate, items: RemoteTreeItems? = nil) throws {
        guard update.oldCount == rows.count else {
            throw Failure("an update from \(update.oldCount) rows applied to \(rows.count)")
        }
        for index in update.deletions.reversed() { rows.remove(at: index) }
        for index in update.insertions { rows.insert(items.flatMap { $0.indices.contains(index) ? $0[index]?.id : nil }, at: index) }
        for index in update.reloads { rows[index] = items.flatMap { $0.indices.contains(index) ? $0[index]?.id : nil } }
        guard rows.count == update.newCount else { throw Failure("\(rows.count) rows after an update to \(update.newCount)") }
    }
}
