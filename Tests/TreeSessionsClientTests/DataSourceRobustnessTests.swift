import Foundation
import Testing
@testable import TreeSessionsClient

/// What goes wrong around the row cache: a filter that fails or races a change, 409
/// `filter-superseded`, a background refresh that fails, loads of one block asked many times, a
/// 412 whose refresh fails, and the updates stream before anyone reads it. Against a real
/// tree-server where it can show the case, else against a `FakeServer` that answers as scripted.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct DataSourceRobustnessTests {
    /// 20 collapsed roots with one leaf each; "leaf-x" matches the leaves of the even roots.
    static func rootsAndLeaves(_ count: Int, every: Int = 2) -> [Node] {
        (0..<count).map { i in
            Node(id: .string("r\(i)"), title: "root \(i)",
                 children: [Node(id: .string("l\(i)"), title: i % every == 0 ? "leaf-x \(i)" : "leaf-y \(i)")], expanded: false)
        }
    }

    // MARK: 1. A failed setFilter changes nothing

    @Test func failedSetFilterChangesNothing() async throws {
        try await withTreeServer { server in
            let client = server.client()
            let session = try await client.createSession(.nodes(Self.rootsAndLeaves(20)))
            let view = try await client.createView(session.id)
            let dataSource = RemoteListTreeDataSource(client: client, session: session.id, view: view.id, blockSize: 10, maxBlocks: 10)
            var shadow = ShadowList(rows: [])
            dataSource.onChange = { update in
                do { try shadow.apply(update, items: dataSource.items) } catch { Issue.record("onChange: \(error)") }
            }
            try shadow.apply(try await dataSource.open(), items: dataSource.items)
            try shadow.apply(try await dataSource.load(0..<20), items: dataSource.items)
            #expect(await eventually { dataSource.streamConnected })
            let before = (dataSource.filter, dataSource.total, dataSource.version, dataSource.items.map { $0?.id })

            // A setFilter whose task is cancelled (a UI does that when the user types on)…
            let cancelled = Task { @MainActor in try await dataSource.setFilter(RowFilter("leaf-x")) }
            cancelled.cancel()
            await #expect(throws: (any Error).self) { try await cancelled.value }
            // …and one the server refuses (a malformed condition: 400).
            await #expect(throws: Problem.self) { try await dataSource.setFilter(RowFilter("x", conditions: "((")) }
            #expect(dataSource.filter == before.0)
            #expect(dataSource.total == before.1)
            #expect(dataSource.version == before.2)
            #expect(dataSource.items.map { $0?.id } == before.3, "the old filter's rows are kept as they were")
            #expect(dataSource.streamConnected, "the stream still follows")

            // Another client's edit still arrives through the stream.
            _ = try await client.patchItem(session.id, view: view.id, "r0", .updateItem(UpdateItem(title: "renamed")))
            let serverVersion = try await client.view(session.id, view.id).version
            #expect(await eventually { dataSource.version == serverVersion }, "held \(dataSource.version), the view at \(serverVersion)")
            try shadow.apply(try await dataSource.load(0..<20), items: dataSource.items)
            #expect(dataSource.items[0]?.title == "renamed")
            #expect(shadow.rows.count == dataSource.total)
            dataSource.close()
        }
    }

    // MARK: 2. A change asked while a filter is out waits for it

    @Test func changeDuringSetFilterGoesOutForTheNewRows() async throws {
        try await withTreeServer { server in
            let client = server.client()
            let session = try await client.createSession(.nodes(Self.rootsAndLeaves(200, every: 7)))
            for trial in 0..<8 {
                let view = try await client.createView(session.id)
                let dataSource = RemoteListTreeDataSource(client: client, session: session.id, view: view.id, blockSize: 50, followsEvents: false)
                try await dataSource.open()
                var shown = try await dataSource.setFilter(RowFilter("leaf-x")).newCount
                shown = try await dataSource.setFilter(.unfiltered).newCount  // the view keeps the filtered rows
                var handedOut: [(String, ListUpdate)] = []
                let filtering = Task { @MainActor in handedOut.append(("filter", try await dataSource.setFilter(RowFilter("leaf-x")))) }
                await Task.yield()
                let id = NodeId.string("r\(trial * 7 % 200)")
                let expanding = Task { @MainActor in handedOut.append(("expand", try await dataSource.setExpanded(id, true))) }
                try await filtering.value
                try await expanding.value
                #expect(handedOut.map(\.0) == ["filter", "expand"], "the change waited for the filter")
                for (what, update) in handedOut {
                    #expect(update.oldCount == shown, "trial \(trial) \(what): an update from \(update.oldCount) rows for a list of \(shown)")
                    shown = update.newCount
                }
                #expect(shown == dataSource.total)
                let page = try await client.rows(session.id, view: view.id, filter: RowFilter("leaf-x"), offset: 0, limit: 1000)
                #expect(page.version == dataSource.version && page.total == dataSource.total, "trial \(trial)")
                try await dataSource.load(0..<dataSource.total)
                #expect(dataSource.items.map { $0?.id } == page.rows.map(\.id), "trial \(trial)")
            }
        }
    }

    @Test func concurrentFiltersTheLastWins() async throws {
        try await withTreeServer { server in
            let client = server.client()
            let session = try await client.createSession(.nodes(Self.rootsAndLeaves(50)))
            let view = try await client.createView(session.id)
            let dataSource = RemoteListTreeDataSource(client: client, session: session.id, view: view.id, blockSize: 100)
            var shown = try await dataSource.open().newCount
            var updates: [ListUpdate] = []
            let first = Task { @MainActor in updates.append(try await dataSource.setFilter(RowFilter("leaf-x"))) }
            await Task.yield()
            let second = Task { @MainActor in updates.append(try await dataSource.setFilter(RowFilter("leaf-y 1"))) }
            try await first.value
            try await second.value
            for update in updates {
                #expect(update.oldCount == shown)
                shown = update.newCount
            }
            #expect(dataSource.filter == RowFilter("leaf-y 1"))
            let page = try await client.rows(session.id, view: view.id, filter: RowFilter("leaf-y 1"), offset: 0, limit: 100)
            #expect(dataSource.total == page.total && shown == page.total)
            // The stream follows the last filter's rows.
            _ = try await client.patchItem(session.id, view: view.id, "r1", .setExpanded(SetExpanded(expanded: false)), filter: RowFilter("leaf-y 1"))
            let version = try await client.rows(session.id, view: view.id, filter: RowFilter("leaf-y 1"), offset: 0, limit: 1).version
            #expect(await eventually { dataSource.version == version })
            dataSource.close()
        }
    }

    // MARK: 3. 409 filter-superseded is asked again

    @Test func filterSupersededIsRetried() async throws {
        let counter = Counter()
        let server = try FakeServer { request in
            let n = counter.next(request.method + request.path)
            if n <= 2 { return .problem(409, "filter-superseded") }
            if request.method == "GET" { return .json(fakePage(version: 1, total: 3, offset: request.offset, limit: request.limit)) }
            return .json(ChangeResponse(version: 2, total: 3, changes: [], reload: [ReloadRange(index: 0, count: 1)]))
        }
        defer { server.stop() }
        let dataSource = RemoteListTreeDataSource(client: server.client(), session: "s", filter: RowFilter("x"), followsEvents: false)
        let opened = try await dataSource.open()
        #expect(opened.newCount == 3)
        #expect(server.requests(to: "/rows").count == 3)
        let update = try await dataSource.expandAll()
        #expect(update.reloads == [0])
        #expect(dataSource.version == 2)
        // A move into its own subtree (409 `cycle`) is the caller's at once.
        let cycle = try FakeServer { _ in .problem(409, "cycle") }
        defer { cycle.stop() }
        let other = RemoteListTreeDataSource(client: cycle.client(), session: "s", followsEvents: false)
        await #expect(throws: Problem.self) { try await other.collapseAll() }
        #expect(cycle.requests.count == 1)
    }

    // MARK: 4. A failed background refresh is reported and tried again

    @Test func failedBackgroundRefreshIsReportedAndRetried() async throws {
        let counter = Counter()
        let server = try FakeServer { request in
            switch counter.next("rows") {
            case 1: return .json(fakePage(version: 1, total: 5, offset: 0, limit: request.limit))
            case 2: return .problem(503, "unavailable")
            default: return .json(fakePage(version: 9, total: 4, offset: 0, limit: request.limit))
            }
        }
        defer { server.stop() }
        let dataSource = RemoteListTreeDataSource(client: server.client(), session: "s", followsEvents: false)
        var errors: [any Error] = []
        dataSource.onError = { errors.append($0) }
        var shadow = ShadowList(rows: [])
        dataSource.onChange = { try? shadow.apply($0) }
        try shadow.apply(try await dataSource.open())
        // Two changes past a missing one: without a stream, one refresh, not one per change.
        dataSource.apply(ChangeResponse(version: 3, total: 5, changes: [], reload: []))
        dataSource.apply(ChangeResponse(version: 4, total: 5, changes: [], reload: []))
        #expect(await eventually { !errors.isEmpty }, "the failed refresh was not reported")
        #expect((errors.first as? Problem)?.status == 503)
        #expect(server.requests(to: "/rows").count == 2, "one refresh for both gaps")
        #expect(await eventually(timeout: .seconds(4)) { dataSource.version == 9 }, "the refresh was not tried again")
        #expect(server.requests(to: "/rows").count == 3)
        #expect(dataSource.total == 4 && shadow.rows.count == 4)
    }

    /// `close()` ends a background refresh that keeps failing: nothing is asked after it.
    @Test func closeStopsTheBackgroundRefresh() async throws {
        let counter = Counter()
        let server = try FakeServer { request in
            counter.next("rows") == 1 ? .json(fakePage(version: 1, total: 5, offset: 0, limit: request.limit)) : .problem(503, "unavailable")
        }
        defer { server.stop() }
        let dataSource = RemoteListTreeDataSource(client: server.client(), session: "s", followsEvents: false)
        var errors = 0
        dataSource.onError = { _ in errors += 1 }
        try await dataSource.open()
        dataSource.apply(ChangeResponse(version: 3, total: 5, changes: [], reload: []))
        #expect(await eventually { errors == 1 }, "the failed refresh was not reported")
        dataSource.close()
        let asked = server.requests(to: "/rows").count
        try await Task.sleep(for: .milliseconds(1500))  // past the first retry's 1 s
        #expect(server.requests(to: "/rows").count == asked, "a closed data source went on refreshing")
    }

    // MARK: 5. `updates` buffers nothing before it is read

    @Test func updatesStartWhenRead() async throws {
        let server = try FakeServer { request in .json(fakePage(version: 1, total: 30, offset: request.offset, limit: request.limit)) }
        defer { server.stop() }
        let dataSource = RemoteListTreeDataSource(client: server.client(), session: "s", blockSize: 10, followsEvents: false)
        try await dataSource.open()
        try await dataSource.load(10..<12)
        let updates = dataSource.updates
        let loaded = try await dataSource.load(20..<22)
        var iterator = updates.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first == loaded, "updates handed out before it was read were kept: \(String(describing: first))")
    }

    // MARK: 6. Loads of one block make one request

    @Test func concurrentLoadsOfOneBlockMakeOneRequest() async throws {
        let server = try FakeServer { request in
            if request.offset > 0 { Thread.sleep(forTimeInterval: 0.1) }
            return .json(fakePage(version: 1, total: 100, offset: request.offset, limit: request.limit))
        }
        defer { server.stop() }
        let dataSource = RemoteListTreeDataSource(client: server.client(), session: "s", blockSize: 20, followsEvents: false)
        var shadow = ShadowList(rows: [])
        try shadow.apply(try await dataSource.open())
        // What a table does: each cell of rows 40..<50 asks for its row.
        let loads = (40..<50).map { i in Task { @MainActor in try await dataSource.load(i..<(i + 1)) } }
        for load in loads { try shadow.apply(try await load.value, items: dataSource.items) }
        #expect(server.requests(to: "/rows").filter { $0.offset == 40 }.count == 1)
        #expect((40..<50).allSatisfy { shadow.rows[$0] == dataSource.items[$0]?.id && shadow.rows[$0] != nil })
    }

    // MARK: 9. A 412 whose refresh fails is the caller's

    @Test func preconditionFailureSurvivesAFailedRefresh() async throws {
        let counter = Counter()
        let server = try FakeServer { request in
            if request.method == "PATCH" { return .problem(412, "version-mismatch") }
            return counter.next("rows") == 1 ? .json(fakePage(version: 1, total: 3, offset: 0, limit: request.limit)) : .problem(500, "internal")
        }
        defer { server.stop() }
        let dataSource = RemoteListTreeDataSource(client: server.client(), session: "s", followsEvents: false)
        var errors: [any Error] = []
        dataSource.onError = { errors.append($0) }
        try await dataSource.open()
        let thrown = await #expect(throws: Problem.self) { try await dataSource.update("r0", title: "new") }
        #expect(thrown?.status == 412)
        #expect((errors.first as? Problem)?.status == 500, "the refresh's failure is reported too")
    }
}

/// Counts calls per key, from any thread.
final class Counter: @unchecked Sendable {  // `counts` is guarded by `lock`
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    func next(_ key: String) -> Int {
        lock.withLock {
            counts[key, default: 0] += 1
            return counts[key, default: 0]
        }
    }
}
