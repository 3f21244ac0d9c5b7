import Foundation
import Testing
@testable import TreeSessionsClient

/// SwiftListTreeDataSource's own scenarios (its ListTreeDataSource and FilterableListTreeDataSource
/// tests, on its outline example data) through `RemoteListTreeDataSource`, row by row: the
/// visible rows' titles and levels after each step, against a naive model of the tree.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct SeedScenarioTests {
    /// The outline as a naive tree: nodes with children and an expanded flag.
    struct Reference {
        struct Item { var id: String; var title: String; var expanded = false; var children: [Item] = [] }
        var roots: [Item]

        init(_ nodes: [Node]) {
            func convert(_ node: Node) -> Item {
                Item(id: node.id?.stringForm ?? "", title: node.title, children: (node.children ?? []).map(convert))
            }
            roots = nodes.map(convert)
        }

        func visible() -> [String] {
            var rows: [String] = []
            func walk(_ items: [Item], _ level: Int) {
                for item in items {
                    rows.append("\(level) \(item.title)")
                    if item.expanded { walk(item.children, level + 1) }
                }
            }
            walk(roots, 0)
            return rows
        }

        /// The seed's expandAll and collapseAll: every node's flag, leaves' too (a leaf that
        /// gains a child later shows it as the flag says; the server's views do the same).
        mutating func setAll(_ expanded: Bool) {
            func walk(_ items: inout [Item]) {
                for i in items.indices {
                    items[i].expanded = expanded
                    walk(&items[i].children)
                }
            }
            walk(&roots)
        }

        /// Applies `body` to the list holding `id` and its place there.
        mutating func withSiblings(of id: String, _ body: (inout [Item], Int) -> Void) {
            func walk(_ items: inout [Item]) -> Bool {
                if let index = items.firstIndex(where: { $0.id == id }) { body(&items, index); return true }
                for i in items.indices where walk(&items[i].children) { return true }
                return false
            }
            _ = walk(&roots)
        }

        mutating func withChildren(of id: String?, _ body: (inout [Item]) -> Void) {
            guard let id else { body(&roots); return }
            withSiblings(of: id) { items, index in body(&items[index].children) }
        }

        mutating func toggle(_ id: String) { withSiblings(of: id) { $0[$1].expanded.toggle() } }

        mutating func remove(_ id: String) -> Item? {
            var removed: Item?
            withSiblings(of: id) { removed = $0.remove(at: $1) }
            return removed
        }
    }

    static func rows(_ dataSource: RemoteListTreeDataSource) async throws -> [String] {
        try await dataSource.load(0..<dataSource.total)
        return try dataSource.items.map { item in
            let item = try #require(item, "a row not loaded after load")
            return "\(item.level) \(item.title)"
        }
    }

    /// A session of the outline sample and a data source over a fresh view of it (all collapsed).
    static func open(_ server: TreeServer) async throws -> (RemoteListTreeDataSource, Reference) {
        let client = server.client()
        let nodes = try outlineSample()
        let session = try await client.createSession(.upload(SessionUpload(nodes: nodes)))
        let view = try await client.createView(session.id)
        let dataSource = RemoteListTreeDataSource(client: client, session: session.id, view: view.id, blockSize: 10, followsEvents: false)
        try await dataSource.open()
        return (dataSource, Reference(nodes))
    }

    @Test func expandAndCollapse() async throws {
        try await withTreeServer { server in
            var (dataSource, reference) = try await Self.open(server)
            #expect(try await Self.rows(dataSource) == reference.visible())
            #expect(reference.visible().count == 5)

            // toggleExpand of the first item shows its children right after it.
            let first = try #require(dataSource.items.first ?? nil)
            let update = try await dataSource.toggleExpand(first)
            reference.toggle("1")
            #expect(update.insertions == IndexSet(1..<4))
            #expect(update.deletions.isEmpty)
            #expect(update.reloads.contains(0))
            #expect(try await Self.rows(dataSource) == reference.visible())
            #expect(try await Self.rows(dataSource).prefix(4) == ["0 Compositional Layout", "1 Getting Started", "1 Advanced Layouts", "1 Conference App"])

            // Toggling again hides them.
            let again = try #require(dataSource.items[0])
            #expect(again.isExpanded)
            let collapse = try await dataSource.toggleExpand(again)
            reference.toggle("1")
            #expect(collapse.deletions == IndexSet(1..<4))
            #expect(try await Self.rows(dataSource) == reference.visible())

            // updateAllLevels(of:isExpanded:) opens a whole subtree.
            let second = try #require(dataSource.items[1])
            try await dataSource.updateAllLevels(of: second, isExpanded: true)
            reference.withSiblings(of: "2") { items, index in
                items[index].expanded = true
                for i in items[index].children.indices where !items[index].children[i].children.isEmpty { items[index].children[i].expanded = true }
            }
            #expect(try await Self.rows(dataSource) == reference.visible())

            // expandAll shows every node depth first; collapseAll only the roots.
            try await dataSource.expandAll()
            reference.setAll(true)
            #expect(try await Self.rows(dataSource) == reference.visible())
            #expect(dataSource.total == 38)
            try await dataSource.collapseAll()
            reference.setAll(false)
            #expect(try await Self.rows(dataSource) == reference.visible())
        }
    }

    @Test func filterItemsKeepingParents() async throws {
        try await withTreeServer { server in
            let (dataSource, _) = try await Self.open(server)
            // The seed's filter examples: (text, visible rows) on the collapsed outline.
            for (text, visible) in [("Compositional", 1), ("Supp", 3), ("Gr", 8), ("Grid", 5), ("Li", 9), ("L", 23), ("Ce", 8)] {
                let update = try await dataSource.filterItemsKeepingParents(by: text)
                #expect(update.isReset)
                #expect(dataSource.total == visible, "\(text)")
            }
            try await dataSource.filterItemsKeepingParents(by: "Grid")
            #expect(try await Self.rows(dataSource) == ["0 Compositional Layout", "1 Getting Started", "2 Grid", "2 Inset Items Grid", "2 Two-Column Grid"])
            let matches = dataSource.items.compactMap { $0 }.filter { $0.row.match == true }.map(\.title)
            #expect(matches == ["Grid", "Inset Items Grid", "Two-Column Grid"])
            // Inside the filtered rows the user collapses and expands freely.
            let ancestor = try #require(dataSource.items[1])
            try await dataSource.toggleExpand(ancestor)
            #expect(try await Self.rows(dataSource) == ["0 Compositional Layout", "1 Getting Started"])
            // resetFiltering brings the unfiltered rows back as they were.
            try await dataSource.resetFiltering()
            #expect(try await Self.rows(dataSource).count == 5)
        }
    }

    @Test func insertDeleteMove() async throws {
        try await withTreeServer { server in
            var (dataSource, reference) = try await Self.open(server)
            try await dataSource.expandAll()
            reference.setAll(true)

            // insert after and before "UITableView: Editing" (the seed's verifyInsertionAfterAndBeforeItem).
            try await dataSource.insert([Node(id: "after", title: "After Editing")], after: "2.4")
            reference.withSiblings(of: "2.4") { $0.insert(.init(id: "after", title: "After Editing"), at: $1 + 1) }
            try await dataSource.insert([Node(id: "before", title: "Before Editing")], before: "2.4")
            reference.withSiblings(of: "2.4") { $0.insert(.init(id: "before", title: "Before Editing"), at: $1) }
            #expect(try await Self.rows(dataSource) == reference.visible())

            // append to a parent and to the roots.
            try await dataSource.append([Node(id: "child", title: "Appended Child")], to: "3")
            reference.withChildren(of: "3") { $0.append(.init(id: "child", title: "Appended Child")) }
            try await dataSource.append([Node(id: "root", title: "Appended Root")])
            reference.withChildren(of: nil) { $0.append(.init(id: "root", title: "Appended Root")) }
            #expect(try await Self.rows(dataSource) == reference.visible())

            // delete the first item with all its children, then a first child of the last root.
            let deleted = try await dataSource.delete(["1"])
            _ = reference.remove("1")
            #expect(deleted.deletions == IndexSet(0..<21))  // item 1 and its 20 descendants
            try await dataSource.delete(["5.1", "4.1"])
            _ = reference.remove("5.1")
            _ = reference.remove("4.1")
            #expect(try await Self.rows(dataSource) == reference.visible())

            // move: the seed's "Root2.Child2 into Root1.Child1" and a child to the roots.
            try await dataSource.move("2.4", toIndex: 0, inParent: "3.1")
            let removed = reference.remove("2.4")
            var moved = try #require(removed)
            reference.withChildren(of: "3.1") { $0.insert(moved, at: 0) }
            let shown = try await Self.rows(dataSource)
            #expect(shown == reference.visible(), "\(shown) \(reference.visible())")
            try await dataSource.move("2.1", toIndex: 1, inParent: nil)
            let removedAgain = reference.remove("2.1")
            moved = try #require(removedAgain)
            reference.withChildren(of: nil) { $0.insert(moved, at: 1) }
            #expect(try await Self.rows(dataSource) == reference.visible())
        }
    }
}
