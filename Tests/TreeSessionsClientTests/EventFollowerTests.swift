import Foundation
import Testing
@testable import TreeSessionsClient

/// The follower of a data source against a `FakeServer` stream: which refusals stop it, how long
/// it waits before reconnecting (`retry:`, `Retry-After`, doubling), the idle watchdog, and
/// events this client does not know.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct EventFollowerTests {
    /// A server whose rows are 3 roots at version 1 and whose stream answers `events`.
    static func server(events: @escaping @Sendable (FakeServer.Request) -> FakeServer.Reply) throws -> FakeServer {
        try FakeServer { request in
            if request.path.hasSuffix("/events") { return events(request) }
            return .json(fakePage(version: 1, total: 3, offset: request.offset, limit: request.limit))
        }
    }

    /// A data source opened on `server`, and the statuses it reports.
    static func follow(_ server: FakeServer, idle: Duration? = nil) async throws -> (RemoteListTreeDataSource, Statuses) {
        let dataSource = RemoteListTreeDataSource(client: server.client(), session: "s")
        if let idle { dataSource.eventIdleTimeout = idle }
        let statuses = Statuses()
        dataSource.onStreamStatus = { statuses.all.append($0) }
        try await dataSource.open()
        return (dataSource, statuses)
    }

    @MainActor final class Statuses {
        var all: [RemoteListTreeDataSource.StreamStatus] = []
        var delays: [Duration] {
            all.compactMap { if case .disconnected(let delay) = $0 { return delay } else { return nil } }
        }
    }

    @Test func badRequestStopsTheStream() async throws {
        let server = try Self.server { _ in .problem(400, "bad-request") }
        defer { server.stop() }
        let (dataSource, statuses) = try await Self.follow(server)
        #expect(await eventually { !statuses.all.isEmpty })
        guard case .refused(let problem)? = statuses.all.first else { Issue.record("\(statuses.all)"); return }
        #expect(problem.status == 400)
        try await Task.sleep(for: .milliseconds(1500))
        #expect(server.requests(to: "/events").count == 1, "a 400 is not asked again")
        dataSource.close()
    }

    @Test func retryAfterIsHonoured() async throws {
        let server = try Self.server { _ in .problem(503, "unavailable", headers: ["Retry-After": "3"]) }
        defer { server.stop() }
        let (dataSource, statuses) = try await Self.follow(server)
        #expect(await eventually { !statuses.delays.isEmpty })
        #expect(statuses.delays.first == .seconds(3))
        dataSource.close()
    }

    @Test func retryZeroDoesNotSpin() async throws {
        let server = try Self.server { _ in .events("retry: 0\n\n") }
        defer { server.stop() }
        let (dataSource, statuses) = try await Self.follow(server)
        #expect(await eventually { statuses.delays.count >= 2 })
        #expect(Array(statuses.delays.prefix(2)) == [.milliseconds(250), .milliseconds(500)])
        #expect(server.requests(to: "/events").count < 5)
        dataSource.close()
    }

    @Test func backoffDoublesAcrossRetryLines() async throws {
        let server = try Self.server { _ in .events(": hello\nretry: 300\n\n") }
        defer { server.stop() }
        let (dataSource, statuses) = try await Self.follow(server)
        #expect(await eventually { statuses.delays.count >= 3 })
        #expect(Array(statuses.delays.prefix(3)) == [.milliseconds(300), .milliseconds(600), .milliseconds(1200)],
                "a retry: line does not start the backoff over: \(statuses.delays)")
        dataSource.close()
    }

    @Test func backoffStartsOverAfterAnEvent() async throws {
        let counter = Counter()
        let server = try Self.server { _ in
            // Two empty connections, then one with a change: the next wait is the base again.
            counter.next("events") == 3
                ? .events("retry: 300\n\nevent: change\nid: 2\ndata: {\"version\":2,\"total\":3,\"changes\":[],\"reload\":[]}\n\n")
                : .events("retry: 300\n\n")
        }
        defer { server.stop() }
        let (dataSource, statuses) = try await Self.follow(server)
        #expect(await eventually { statuses.delays.count >= 3 })
        #expect(Array(statuses.delays.prefix(3)) == [.milliseconds(300), .milliseconds(600), .milliseconds(300)], "\(statuses.delays)")
        #expect(dataSource.version == 2)
        dataSource.close()
    }

    @Test func quietStreamIsReconnected() async throws {
        let server = try Self.server { _ in .events("retry: 250\n: heartbeat\n\n", hold: .seconds(20)) }
        defer { server.stop() }
        let (dataSource, statuses) = try await Self.follow(server, idle: .milliseconds(400))
        #expect(await eventually { server.requests(to: "/events").count >= 2 }, "a stream silent past the idle time was kept")
        #expect(statuses.all.first == .connected)
        dataSource.close()
    }

    @Test func heartbeatsKeepTheStream() async throws {
        // A comment every 100 ms, with an idle time of 400 ms: never reconnected.
        let server = try Self.server { _ in .events("retry: 250\n", hold: .seconds(20), heartbeat: .milliseconds(100)) }
        defer { server.stop() }
        let (dataSource, _) = try await Self.follow(server, idle: .milliseconds(400))
        try await Task.sleep(for: .milliseconds(1200))
        #expect(server.requests(to: "/events").count == 1)
        dataSource.close()
    }

    @Test func unknownResetReasonIsAReset() async throws {
        let server = try Self.server { _ in
            .events("event: reset\ndata: {\"version\":1,\"reason\":\"brand-new\"}\n\n", hold: .seconds(20))
        }
        defer { server.stop() }
        let (dataSource, statuses) = try await Self.follow(server)
        #expect(await eventually { server.requests(to: "/rows").count == 2 }, "the reset did not refresh")
        try await Task.sleep(for: .milliseconds(300))
        #expect(server.requests(to: "/events").count == 1, "the event made the stream reconnect: \(statuses.all)")
        dataSource.close()
    }

    @Test func unknownEndReasonEnds() async throws {
        let server = try Self.server { _ in .events("event: end\ndata: {\"reason\":\"moved\"}\n\n") }
        defer { server.stop() }
        let (dataSource, statuses) = try await Self.follow(server)
        #expect(await eventually { statuses.all.contains(.ended(nil)) }, "\(statuses.all)")
        try await Task.sleep(for: .milliseconds(1200))
        #expect(server.requests(to: "/events").count == 1)
        dataSource.close()
    }
}
