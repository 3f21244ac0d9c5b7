import Testing
import TreeEngine
@testable import TreeFormats

/// CSV as it comes: `;` and TAB between fields (the header's first, or as asked), a header in
/// any letter case, and columns named otherwise (`ID,Parent,Name`) mapped to their roles.
/// (Such files answered 422: required id, parentId, title.)
@Suite struct CSVDialectTests {
    static func parse(_ body: String, _ dialect: CSVDialect = CSVDialect()) -> Result<Forest, TreeInputError> {
        Array(body.utf8).withUnsafeBytes { raw in
            do throws(TreeInputError) { return .success(try Forest.parseCSV(raw, dialect: dialect)) } catch { return .failure(error) }
        }
    }

    /// Every node as `id<title>data`, depth first.
    static func outline(_ forest: Forest) -> [String] {
        var out: [String] = []
        func walk(_ parent: NodeHandle?, _ depth: Int) {
            for node in forest.children(of: parent) {
                out.append(String(repeating: " ", count: depth) + "\(forest.id(of: node))<\(forest.title(of: node))>\(forest.data(of: node).map { String(decoding: $0, as: UTF8.self) } ?? "")")
                walk(node, depth + 1)
            }
        }
        walk(nil, 0)
        return out
    }

    @Test(arguments: [
        "id;parentId;title\n1;;Root\n2;1;\"a;b\"\n",
        "id\tparentId\ttitle\n1\t\tRoot\n2\t1\t\"a;b\"\n",
        "ID,ParentId,TITLE\n1,,Root\n2,1,\"a;b\"\n",
        "\"id\";\"parentId\";\"title\"\r\n1;;Root\r\n2;1;\"a;b\"\r\n",
    ])
    func delimitersAndLetterCaseAsTheHeaderHasThem(_ body: String) throws {
        #expect(Self.outline(try Self.parse(body).get()) == ["1<Root>", " 2<a;b>"])
    }

    @Test func columnsNamedOtherwiseAreMapped() throws {
        let body = "ID,Parent,Name,Size\n1,,Root,10\n2,1,Child,5\n"
        let dialect = CSVDialect(columns: ["id": "ID", "parentId": "Parent", "title": "Name"])
        #expect(Self.outline(try Self.parse(body, dialect).get()) == [#"1<Root>{"Size":"10"}"#, #" 2<Child>{"Size":"5"}"#])
        // A role the dialect names otherwise does not take its own name's column.
        let renamed = CSVDialect(columns: ["title": "Name"])
        #expect(Self.outline(try Self.parse("id,parentId,title,Name\n1,,x,Root\n", renamed).get()) == [#"1<Root>{"title":"x"}"#])
    }

    @Test func anAskedDelimiterWins() throws {
        #expect(Self.outline(try Self.parse("id|parentId|title\n1||a,b\n", CSVDialect(delimiter: UInt8(ascii: "|"))).get()) == ["1<a,b>"])
    }

    @Test(arguments: [
        ("ID,Parent,Name\n1,,a\n", CSVDialect(columns: ["id": "ID", "parentId": "Parent"]),
         #"line 1: the header has no "title" column (required: id, parentId, title)"#),
        ("ID,Parent,Name\n1,,a\n", CSVDialect(columns: ["id": "ID", "parentId": "Parent", "title": "Label"]),
         #"line 1: the header has no "Label" column (the title column, as columns names it)"#),
        ("id,parentId,title,data\n", CSVDialect(columns: ["expanded": "Open"]),
         #"line 1: the header has no "Open" column (the expanded column, as columns names it)"#),
        ("id,parentId,title,Title\n1,,a,b\n", CSVDialect(), #"line 1: the header has two title columns: "title" and "Title""#),
        ("id,parentId,title\n1,,a\n", CSVDialect(delimiter: UInt8(ascii: ";")),
         #"line 1: the header has no "id" column (required: id, parentId, title)"#),
    ])
    func aHeaderThatLacksAColumnSaysWhich(_ body: String, _ dialect: CSVDialect, _ message: String) {
        guard case .failure(let error) = Self.parse(body, dialect) else { Issue.record("accepted"); return }
        #expect(error.message == message)
        #expect(error.line == 1)
    }

    /// Rows with `;` read in parts at once give the forest of a one-pass read.
    @Test func aBodyReadInPartsAgrees() throws {
        // In pre-order: each row under one of the open rows (a path kept as a stack).
        var body = "Key;Up;Label\n", open: [Int] = []
        for i in 0 ..< 400 {
            open.removeLast(min(open.count, i % 4 == 3 ? 2 : 0))
            body += "\(i);\(open.last.map(String.init) ?? "");node \(i)\n"
            open.append(i)
        }
        let dialect = CSVDialect(columns: ["id": "Key", "parentId": "Up", "title": "Label"])
        let whole = try Self.parse(body, dialect).get()
        let bytes = Array(body.utf8)
        #expect(Self.outline(whole).count == 400)
        // Parts aimed inside the header, at the middle, at quarters, past the end.
        for cuts in [[0], [bytes.count / 2], [bytes.count / 4, bytes.count / 2, bytes.count * 3 / 4], [bytes.count]] {
            let parts = Rows.inParts(bytes, .csv, cuts: cuts, dialect: dialect)
            #expect(parts.map(Self.outline) == Self.outline(whole), "cut near \(cuts)")
        }
    }

    static func exportCSV(_ forest: Forest) -> String {
        var bytes: [UInt8] = []
        forest.exportCSV { bytes += $0 }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A CSV's other columns come back as columns (they went into each node's data as an
    /// object of strings), not as one JSON `data` column.
    @Test func otherColumnsComeBackAsColumns() throws {
        let body = "id,parentId,title,owner,note\n1,,Root,ann,\"a, b\"\n2,1,Child,bob,\n"
        let forest = try Self.parse(body).get()
        let exported = Self.exportCSV(forest)
        #expect(exported == "id,parentId,title,expanded,hasChildren,owner,note\r\n1,,Root,,,ann,\"a, b\"\r\n2,1,Child,,,bob,\r\n")
        #expect(Self.outline(try Self.parse(exported).get()) == Self.outline(forest))
        // Data of another shape on any node: the data column, as JSON.
        let mixed = try Self.parse("id,parentId,title,data\n1,,Root,\"{\"\"n\"\":1}\"\n2,1,Child,\n").get()
        #expect(Self.exportCSV(mixed).hasPrefix("id,parentId,title,expanded,hasChildren,data\r\n1,,Root,,,\"{\"\"n\"\":1}\"\r\n"))
        let roleNamed = try Self.parse("id,parentId,title,data\n1,,Root,\"{\"\"Title\"\":\"\"x\"\"}\"\n").get()
        #expect(Self.exportCSV(roleNamed).hasPrefix("id,parentId,title,expanded,hasChildren,data\r\n"), "a member named as a role stays data")
    }
}
