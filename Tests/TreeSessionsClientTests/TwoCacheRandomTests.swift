import Foundation
import Testing
@testable import TreeSessionsClient

/// The model test of the row cache: two data sources on one session, each over a view of its
/// own and following its events, make random changes (expansions in their own view, expandAll
/// and collapseAll, selections, sorts, edits of the shared tree, batches, filters on and off)
/// and load random ranges. After every step both catch up with their view's version on the server, and then
/// every row either holds is the row `GET rows` answers at that index; the updates each handed
/// out (returned by its calls, or to `onChange`) lead a shadow list to the same rows.
@MainActor
@Suite(.timeLimit(.minutes(2))) struct TwoCacheRandomTests {
    @MainActor final class Side {
        let name: String
        let dataSource: RemoteListTreeDataSource
        var shadow: ShadowList
        init(_ name: String, _ dataSource: RemoteListTreeDataSource) {
            self.name = name
            self.dataSource = dataSource
            shadow = ShadowList(rows: [])
        }
    }

    static func randomTree(_ random: inout SplitMix, count: Int) -> [Node] {
        var made = 0
        func nodes(_ level: Int) -> [Node] {
            var result: [Node] = []
            let width = level == 0 ? 4 : Int(random.next() % 4)
            for _ in 0..<width where made < count {
                made += 1
                let id = "n\(made)"
                result.append(Node(id: .string(id), title: "\(["alpha", "beta", "gamma", "delta"][Int(random.next() % 4)]) \(made)",
                                   children: level < 3 ? nodes(level + 1) : nil, expanded: random.next() % 2 == 0))
            }
            return result
        }
        return nodes(0)
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func twoCaches(seed: Int) async throws {
        try await withTreeServer { server in
            let client = server.client()
            var random = SplitMix(seed: UInt64(seed))
            let summary = try await client.createSession(.upload(SessionUpload(nodes: Self.randomTree(&random, count: 60))))
            var sides: [Side] = []
            for name in ["A", "B"] {
                let view = try await client.createView(summary.id, CreateViewBody(expand: .depth(Int(random.next() % 3))))
                let dataSource = RemoteListTreeDataSource(client: client, session: summary.id, view: view.id, blockSize: 7, maxBlocks: 3)
                let side = Side(name, dataSource)
                dataSource.onChange = { update in
                    do { try side.shadow.apply(update, items: dataSource.items) } catch { Issue.record("seed \(seed) \(name) onChange: \(error)") }
                }
                try side.shadow.apply(try await dataSource.open(), items: dataSource.items)
                sides.append(side)
            }
            var nextId = 1000
            for step in 0..<40 {
                let side = sides[Int(random.next() % 2)]
                var described: String
                if random.next() % 4 == 0 {
                    // Both at once: own answers and the other's events cross, versions run ahead.
                    let seeds = (random.next(), random.next())
                    let ids = (nextId + 100_000, nextId + 200_000)
                    let first = Task { @MainActor in
                        var random = SplitMix(seed: seeds.0), nextId = ids.0
                        return try await Self.randomStep(sides[0], &random, &nextId)
                    }
                    let second = Task { @MainActor in
                        var random = SplitMix(seed: seeds.1), nextId = ids.1
                        return try await Self.randomStep(sides[1], &random, &nextId)
                    }
                    described = "together: A \(try await first.value); B \(try await second.value)"
                    nextId += 1
                } else {
                    described = try await Self.randomStep(side, &random, &nextId)
                }
                if ProcessInfo.processInfo.environment["TRACE_STEPS"] != nil { print("seed \(seed) step \(step) \(side.name): \(described) total \(side.dataSource.total) cached \(side.dataSource.cache.cachedCount) v\(side.dataSource.version) retries \(side.dataSource.preconditionRetries)") }
                for other in sides {
                    try await Self.check(other, client: client, session: summary.id, context: "seed \(seed) step \(step) (\(side.name): \(described))")
                }
            }
            for side in sides { side.dataSource.close() }
        }
    }

    /// One random change or load by `side`; answers what it did.
    static func randomStep(_ side: Side, _ random: inout SplitMix, _ nextId: inout Int) async throws -> String {
        let dataSource = side.dataSource
        if dataSource.total > 0 {
            let start = Int(random.next() % UInt64(dataSource.total))
            try side.shadow.apply(try await dataSource.load(start..<min(dataSource.total, start + 1 + Int(random.next() % 15))), items: dataSource.items)
        }
        let known = dataSource.items.compactMap { $0 }
        func pick() -> RemoteTreeItem? { known.isEmpty ? nil : known[Int(random.next() % UInt64(known.count))] }
        nextId += 1
        let newNode = Node(id: .string("x\(nextId)"), title: "new \(nextId)", children: random.next() % 3 == 0 ? [Node(title: "inner")] : nil)
        let choice = random.next() % 15
        let described: String
        do {
            let update: ListUpdate
            switch choice {
            case 0, 1:
                guard let item = pick() else { return "nothing" }
                described = "toggleExpand \(item.id)"
                update = try await dataSource.toggleExpand(item)
            case 2:
                described = random.next() % 2 == 0 ? "expandAll" : "collapseAll"
                update = described == "expandAll" ? try await dataSource.expandAll() : try await dataSource.collapseAll()
            case 3:
                let parent = pick()
                described = "append to \(parent?.id.description ?? "roots")"
                update = try await dataSource.append([newNode], to: parent?.id)
            case 4:
                guard let item = pick() else { return "nothing" }
                let after = random.next() % 2 == 0
                described = "insert \(after ? "after" : "before") \(item.id)"
                update = after ? try await dataSource.insert([newNode], after: item.id) : try await dataSource.insert([newNode], before: item.id)
            case 5:
                guard let item = pick(), dataSource.total > 3 else { return "nothing" }
                described = "delete \(item.id)"
                update = try await dataSource.delete([item.id])
            case 6:
                guard let item = pick() else { return "nothing" }
                let parent = random.next() % 3 == 0 ? nil : pick()
                described = "move \(item.id) under \(parent?.id.description ?? "roots")"
                update = try await dataSource.move(item.id, toIndex: 0, inParent: parent?.id)
            case 7:
                guard let item = pick() else { return "nothing" }
                described = "update \(item.id)"
                update = try await dataSource.update(item.id, title: "renamed \(nextId) \(random.next() % 2 == 0 ? "alpha" : "omega")")
            case 8:
                guard let item = pick(), let other = pick() else { return "nothing" }
                described = "batch insert+update+expand+delete"
                update = try await dataSource.batch([
                    .insertAsChildren(InsertAsChildrenOperation(nodes: [newNode], parentId: .value(item.id), index: 0)),
                    .update(UpdateOperation(id: other.id, title: "batched \(nextId)")),
                    .expand(ExpandOperation(id: item.id, expanded: true)),
                    .delete(DeleteOperation(id: newNode.id ?? "")),
                ])
            case 9:
                guard let item = pick() else { return "nothing" }
                described = "batch expand recursive \(item.id)"
                update = try await dataSource.batch([.expand(ExpandOperation(id: item.id, expanded: true, recursive: true))])
            case 10:
                let text = ["al", "ga", "1", "new", "ren"][Int(random.next() % 5)]
                described = "filter \(text)"
                update = try await dataSource.filterItemsKeepingParents(by: text)
            case 11:
                described = "resetFiltering"
                update = try await dataSource.resetFiltering()
            case 12:
                guard let item = pick() else { return "nothing" }
                let selected = random.next() % 3 != 0
                described = "\(selected ? "select" : "deselect") \(item.id)"
                update = try await dataSource.setSelected(item.id, selected, recursive: random.next() % 2 == 0)
            case 13:
                let keys = [nil, "title", "-title"][Int(random.next() % 3)]
                described = "sort \(keys ?? "none")"
                update = try await dataSource.setSort(keys)
            default:
                described = "load"
                update = .none(count: dataSource.total)
            }
            try side.shadow.apply(update, items: dataSource.items)
        } catch let problem as Problem where [404, 422].contains(problem.status) || (problem.status == 409 && problem.slug == "cycle") {
            // An id the other side deleted, a move into its own subtree: refused, nothing changed.
            // (A 409 `filter-superseded` is the data source's to send again, never the caller's.)
            return "refused: \(problem)"
        }
        return described
    }

    /// Waits until `side` holds its view's version, then compares every cached row with `GET rows`.
    static func check(_ side: Side, client: TreeSessionsClient, session: String, context: String) async throws {
        let dataSource = side.dataSource
        let view = try #require(dataSource.view)
        var serverVersion = try await client.view(session, view).version
        let caughtUp = await eventually {
            if dataSource.version == serverVersion { return true }
            serverVersion = (try? await client.view(session, view).version) ?? serverVersion
            return false
        }
        try #require(caughtUp, "\(context): \(side.name) at version \(dataSource.version), the view at \(serverVersion)")
        let page = try await client.rows(session, view: view, filter: dataSource.filter, offset: 0, limit: 1000)
        try #require(page.version == dataSource.version, "\(context): \(side.name) read version \(page.version), holds \(dataSource.version)")
        #expect(dataSource.total == page.total, "\(context): \(side.name) total")
        #expect(dataSource.cache.isValid, "\(context): \(side.name) cache invalid")
        #expect(side.shadow.rows.count == dataSource.total, "\(context): \(side.name) shadow list has \(side.shadow.rows.count) rows")
        for (index, cached) in dataSource.items.enumerated() {
            guard let cached else { continue }
            #expect(cached == RemoteTreeItem(row: page.rows[index]), "\(context): \(side.name) row \(index)")
            // Every cached row was handed out (inserted or reloaded) where it is: the list shows it.
            if index < side.shadow.rows.count {
                #expect(side.shadow.rows[index] == cached.id,
                        "\(context): \(side.name) the list shows \(side.shadow.rows[index]?.description ?? "a placeholder") at \(index), the cache \(cached.id)")
            }
        }
    }
}
