import Foundation
import Testing
@testable import TreeSessionsClient

/// Tokens, and `If-Match` with one retry after a refresh.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct AccessTests {
    /// A reader token reads through the data source and is refused an edit with a 403 Problem.
    @Test func readerTokenReadsButCannotEdit() async throws {
        try await withTreeServer(["--token", "ADMIN"]) { server in
            let admin = server.client(token: "ADMIN")
            let anonymous = await #expect(throws: Problem.self) { try await server.client().listSessions() }
            #expect(anonymous?.status == 401)
            let summary = try await admin.createSession(.nodes(try outlineSample()))
            let view = try await admin.createView(summary.id)
            let token = try await admin.createToken(summary.id, CreateTokenBody(role: .reader, view: .value(view.id)))
            #expect(token.role == .reader)
            #expect(token.view == view.id)
            let reader = admin.withToken(token.token)
            let dataSource = RemoteListTreeDataSource(client: reader, session: summary.id, view: view.id)
            try await dataSource.open()
            #expect(dataSource.total == 5)
            let first = try #require(dataSource.items[0])
            try await dataSource.toggleExpand(first)  // a view's state: the reader role may
            #expect(dataSource.total == 8)
            let refused = await #expect(throws: Problem.self) { try await dataSource.delete(["1"]) }
            #expect(refused?.status == 403)
            #expect(refused?.slug == "forbidden")
            #expect(dataSource.total == 8)
            // The events token is a typed call too; the stream follows with the bearer token.
            let events = try await reader.createEventToken(summary.id)
            #expect(events.token.hasPrefix("ts1."))
            _ = try await admin.deleteItem(summary.id, view: view.id, "2")
            #expect(await eventually { dataSource.total == 7 }, "the reader's stream did not bring the admin's delete")
            dataSource.close()
        }
    }

    /// An edit sent with a stale version gets 412, catches up and succeeds on its one retry; the
    /// 412 itself is a Problem with the current ETag.
    @Test func preconditionFailedIsRetriedOnce() async throws {
        try await withTreeServer { server in
            let client = server.client()
            let summary = try await client.createSession(.nodes(try outlineSample()))
            let dataSource = RemoteListTreeDataSource(client: client, session: summary.id, followsEvents: false)
            try await dataSource.open()
            // Another client edits: the data source's version is stale.
            _ = try await client.deleteItem(summary.id, "5")
            #expect(dataSource.version == 1)
            let update = try await dataSource.append([Node(id: "new", title: "New")])
            #expect(dataSource.preconditionRetries == 1)
            #expect(dataSource.version == 3)
            #expect(update.isReset)
            try await dataSource.load(0..<dataSource.total)
            #expect(dataSource.items.compactMap { $0?.title } == ["Compositional Layout", "Diffable Data Source", "Lists", "Outlines", "New"])

            let problem = await #expect(throws: Problem.self) {
                try await client.deleteItem(summary.id, "4", ifMatch: ETag.version(1))
            }
            #expect(problem?.status == 412)
            #expect(problem?.slug == "version-mismatch")
            #expect(problem?.etag == ETag.version(3))
        }
    }

    /// The event stream as a typed AsyncSequence: change, then end when the view goes; cancelling
    /// the consuming task closes the connection.
    @Test func typedEventStream() async throws {
        try await withTreeServer { server in
            let client = server.client()
            let summary = try await client.createSession(.nodes(try outlineSample()))
            let view = try await client.createView(summary.id)
            let stream = client.events(summary.id, view: view.id, lastEventId: 1)
            let reader = Task { () -> [ServerEvent] in
                var events: [ServerEvent] = []
                for try await event in stream { events.append(event) }
                return events
            }
            try await Task.sleep(for: .milliseconds(200))
            _ = try await client.patchItem(summary.id, view: view.id, "1", .setExpanded(SetExpanded(expanded: true)))
            try await Task.sleep(for: .milliseconds(200))
            try await client.deleteView(summary.id, view.id)
            let events = try await reader.value
            #expect(events.count == 2)
            guard case .change(let change)? = events.first else { Issue.record("\(events)"); return }
            #expect(change.response.version == 2)
            #expect(change.response.changes == [Splice(index: 1, removed: 0, inserted: 3)])
            #expect(events.last == .end(EndEvent(reason: .deleted)))

            let endless = client.events(summary.id)
            let cancelled = Task { for try await _ in endless {} }
            try await Task.sleep(for: .milliseconds(200))
            cancelled.cancel()
            _ = await cancelled.result
            let gone = await #expect(throws: Problem.self) { for try await _ in client.events(summary.id, view: "0000000000000000") {} }
            #expect(gone?.status == 404)
        }
    }
}
