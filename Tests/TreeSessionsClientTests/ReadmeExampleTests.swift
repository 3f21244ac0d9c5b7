import Foundation
import Testing
import TreeSessionsClient

// The data-source part of the table view controller in clients/swift/README.md, compiled here
// on every platform; `readmeHoldsThisCode` checks that the README shows exactly this code.

// README: begin OutlineRows
/// What a table of the outline shows: the rows of one view, loaded as they scroll into sight,
/// every change handed to `apply` (a table's batch update), every error to `onError`.
@MainActor
final class OutlineRows {
    let rows: RemoteListTreeDataSource
    var apply: (ListUpdate) -> Void = { _ in }
    var onError: (any Error) -> Void = { _ in }

    init(client: TreeSessionsClient, session: String, view: ViewId) {
        rows = RemoteListTreeDataSource(client: client, session: session, view: view)
        rows.onChange = { [weak self] update in self?.apply(update) }  // other clients' edits
        rows.onError = { [weak self] error in self?.onError(error) }   // background refreshes
    }

    var count: Int { rows.total }

    /// The title and indentation of row `index`; nil while it is loading (the cells of one
    /// block make one request: the data source joins loads of a block already asked for).
    func row(_ index: Int) -> (title: String, level: Int)? {
        guard let item = rows.items[index] else {
            prefetch(index..<index + 1)
            return nil
        }
        return (item.title, item.level)
    }

    func open() async throws { apply(try await rows.open()) }

    /// A tap: a folder opens or closes.
    func select(_ index: Int) async throws {
        guard let item = rows.items[index], item.hasChildren else { return }
        apply(try await rows.toggleExpand(item))
    }

    func search(_ text: String) async throws {
        apply(try await rows.filterItemsKeepingParents(by: text))
    }

    func prefetch(_ range: Range<Int>) {
        guard !rows.items.missing(in: range).isEmpty else { return }
        Task {
            do { apply(try await rows.load(range)) } catch { onError(error) }
        }
    }
}
// README: end OutlineRows

@MainActor
@Suite(.timeLimit(.minutes(1))) struct ReadmeExampleTests {
    @Test func outlineRowsDrivesATable() async throws {
        try await withTreeServer { server in
            let client = server.client()
            let session = try await client.createSession(.nodes(try outlineSample()))
            let view = try await client.createView(session.id)
            let model = OutlineRows(client: client, session: session.id, view: view.id)
            var table = ShadowList(rows: [])
            var failures: [String] = []
            model.apply = { update in
                do { try table.apply(update) } catch { failures.append("\(error)") }
            }
            model.onError = { failures.append("onError: \($0)") }
            try await model.open()
            #expect(model.count == 5 && table.rows.count == 5)
            #expect(model.row(0)?.title == "Compositional Layout")
            try await model.select(0)
            #expect(table.rows.count == 8)
            #expect(model.row(1) == nil, "a row a change inserted is not loaded yet")
            #expect(await eventually { model.row(1)?.level == 1 }, "row(_:) did not load the row it was asked for")
            // Another client's edit reaches the table through onChange.
            _ = try await client.deleteItem(session.id, view: view.id, "1.2")
            #expect(await eventually { table.rows.count == 7 }, "the delete did not reach the table")
            try await model.search("Grid")
            #expect(table.rows.count == 5)
            #expect(failures.isEmpty, "\(failures)")
            model.rows.close()
        }
    }

    @Test func readmeHoldsThisCode() throws {
        let here = URL(fileURLWithPath: #filePath)
        let package = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: package.appendingPathComponent("clients/swift/README.md"), encoding: .utf8)
        let source = try String(contentsOf: here, encoding: .utf8)
        let begin = "// README: begin OutlineRows\n", end = "// README: end OutlineRows"
        let start = try #require(source.range(of: begin)), stop = try #require(source.range(of: end))
        let code = String(source[start.upperBound..<stop.lowerBound])
        #expect(readme.contains(code), "clients/swift/README.md does not show OutlineRows as this file has it")
    }
}
