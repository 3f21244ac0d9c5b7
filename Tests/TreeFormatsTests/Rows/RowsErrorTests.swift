import Testing
import TreeEngine
@testable import TreeFormats
@testable import TreeReference

/// Each error of the row formats, with its kind, line, column and path.
@Suite("RowsErrorTests")
struct RowsErrorTests {
    /// Expects `body` to fail with `kind` at `line`:`column` (column nil: not checked),
    /// with `path`, and a message containing `words`.
    func expectError(_ body: String, _ format: Rows.Format, _ kind: TreeInputError.Kind, line: Int, column: Int?,
                     path: String = "", _ words: String = "", limits: ForestLimits = ForestLimits(),
                     sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error = Rows.error(body, format, limits: limits) else {
            Issue.record("no error for \(body.debugDescription)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
        #expect(error.line == line, "\(error)", sourceLocation: sourceLocation)
        if let column { #expect(error.column == column, "\(error)", sourceLocation: sourceLocation) }
        #expect(error.path == path, "\(error)", sourceLocation: sourceLocation)
        if !words.isEmpty { #expect(error.message.contains(words), "\(error)", sourceLocation: sourceLocation) }
        #expect(error.message.hasPrefix("line \(line)"), "\(error)", sourceLocation: sourceLocation)
    }

    static let header = "id,parentId,title\n"

    // MARK: CSV syntax

    @Test func csvQuoteInsideUnquotedField() {
        expectError(Self.header + "a,,ti\"tle\n", .csv, .syntax, line: 2, column: 6, "quote inside an unquoted field")
    }

    @Test func csvTextAfterClosingQuote() {
        expectError(Self.header + "a,,\"x\"y\n", .csv, .syntax, line: 2, column: 7, "after the closing quote")
    }

    @Test func csvUnterminatedQuote() {
        expectError(Self.header + "a,,b\nc,,\"xyz\nmore", .csv, .syntax, line: 3, column: 4, "not closed")
    }

    @Test func csvInvalidUTF8() {
        let body = Array((Self.header + "a,,x").utf8) + [0xFF] + Array("\n".utf8)
        let error = Rows.parse(body, .csv).failure
        #expect(error?.kind == .syntax)
        #expect(error?.line == 2)
        #expect(error?.column == 5)
        let quoted = Array((Self.header + "a,,\"x").utf8) + [0xC3, 0x28] + Array("\"\n".utf8)
        #expect(Rows.parse(quoted, .csv).failure?.column == 6)
    }

    @Test func csvWrongFieldCount() {
        expectError(Self.header + "a,,x\nb,\n", .csv, .syntax, line: 3, column: 1, "2 fields, the header has 3")
        expectError(Self.header + "a,,x,y\n", .csv, .syntax, line: 2, column: 1, "4 fields")
    }

    @Test func csvBareCarriageReturn() {
        expectError(Self.header + "a,,x\ry\n", .csv, .syntax, line: 2, column: 5, "carriage return")
    }

    @Test func csvLinesCountQuotedLineFeeds() {
        expectError(Self.header + "a,,\"two\nlines\"\r\nb,,x\"\n", .csv, .syntax, line: 4, column: 5, "quote")
    }

    /// A rule error gives way to a syntax error later in the body.
    @Test func csvSyntaxWinsOverRule() {
        expectError("id,parentId,title,expanded\na,,t,yes\nb,,\"x\n", .csv, .syntax, line: 3, column: 4, "not closed")
    }

    // MARK: CSV rules

    @Test func csvHeaderErrors() {
        expectError("id,title\na,b\n", .csv, .rule, line: 1, column: 1, "\"parentId\"")
        expectError("\u{FEFF}parentId,title\n", .csv, .rule, line: 1, column: 4, "\"id\"")
        expectError("id,parentId,title,id\n", .csv, .rule, line: 1, column: 19, "duplicate column \"id\"")
        expectError("id,parentId,title,data,owner\n", .csv, .rule, line: 1, column: 24, "\"data\"")
    }

    @Test func csvEmptyID() {
        expectError(Self.header + "a,,x\n,a,y\n", .csv, .rule, line: 3, column: 1, "id is empty")
    }

    @Test func csvBadBoolean() {
        expectError("id,parentId,title,expanded,hasChildren\na,,t,true,\nb,,t,,True\n", .csv, .rule, line: 3, column: 7,
                    "hasChildren must be true, false or empty")
    }

    @Test func csvBadData() {
        expectError("id,parentId,title,data\na,,t,\"{\"\"k\"\":}\"\n", .csv, .rule, line: 2, column: 14, "data is not valid JSON")
        expectError("id,parentId,title,data\na,,t,[1 2]\n", .csv, .rule, line: 2, column: 9, "data is not valid JSON")
    }

    @Test func csvOrphanParent() {
        expectError(Self.header + "a,,x\nb,a,y\nc,zz,z\n", .csv, .rule, line: 4, column: 3, "parentId \"zz\" names no node")
    }

    @Test func csvCycle() {
        expectError(Self.header + "r,,root\na,b,x\nb,a,y\n", .csv, .rule, line: 3, column: 3, "cycle")
        expectError(Self.header + "a,a,self\n", .csv, .rule, line: 2, column: 3, "cycle")
    }

    @Test func csvDuplicateID() {
        expectError(Self.header + "a,,x\nb,a,y\na,b,z\n", .csv, .rule, line: 4, column: 1, "duplicate id \"a\"")
        // Found by the builder (pre-order guess): still the later row.
        expectError(Self.header + "a,,x\nb,,y\nb,a,z\n", .csv, .rule, line: 4, column: 1, "duplicate id \"b\"")
    }

    /// An id `~N` read as the implicit id of slot N still collides with an explicit `~N`.
    @Test func generatedIDsCollide() {
        expectError(Self.header + "~0,,x\n~0,,y\n", .csv, .rule, line: 3, column: 1, "duplicate id \"~0\"")
        expectError(Self.header + "~1,,x\n~1,,y\n", .csv, .rule, line: 3, column: 1, "duplicate id \"~1\"")
        expectError(Self.header + "a,,x\n~0,,y\n~1,,z\n~1,a,w\n", .csv, .rule, line: 5, column: 1, "duplicate id \"~1\"")
        expectError("{\"id\":\"~0\",\"title\":\"x\"}\n{\"id\":\"~0\",\"title\":\"y\"}\n", .ndjson, .rule, line: 2, column: 7,
                    path: "/id", "duplicate id \"~0\"")
        // Explicit `~N` ids elsewhere: as uploaded in nested JSON.
        let forest = try? Rows.parse(Self.header + "~1,,x\n~0,,y\n", .csv).get()
        #expect(forest.map { Rows.describe($0, types: false) } == [#"0 str:"~1" "x" e=false h=false d=-"#, #"0 str:"~0" "y" e=false h=false d=-"#])
    }

    @Test func csvTooDeep() {
        expectError(Self.header + "a,,x\nb,a,y\nc,b,z\nd,c,w\n", .csv, .rule, line: 4, column: 3, "deeper",
                    limits: ForestLimits(maxDepth: 2))
        #expect(Rows.error(Self.header + "a,,x\nb,a,y\n", .csv, limits: ForestLimits(maxDepth: 2)) == nil)
    }

    /// Errors come in row order: a duplicate before a row nested too deep is the one named,
    /// though ids are checked in bulk after the build.
    @Test func theFirstErrorInRowOrderIsNamed() {
        expectError(Self.header + "a,,x\na,,y\nb,a,z\nc,b,w\n", .csv, .rule, line: 3, column: 1, "duplicate id \"a\"",
                    limits: ForestLimits(maxDepth: 2))
    }

    @Test func csvTooManyNodes() {
        expectError(Self.header + "a,,x\nb,a,y\nc,b,z\n", .csv, .limit, line: 4, column: 1, "more than 2 nodes",
                    limits: ForestLimits(maxNodes: 2))
    }

    // MARK: NDJSON

    @Test func ndjsonMalformedLine() {
        expectError("{\"id\":1,\"title\":\"a\"}\n{\"id\":2,\"title\":}\n", .ndjson, .syntax, line: 2, column: 17, path: "/title")
        expectError("{\"id\":1,\"title\":\"a\"} x\n", .ndjson, .syntax, line: 1, column: 22, "end of the line")
    }

    @Test func ndjsonObjectSpanningLines() {
        expectError("{\"id\":1,\n\"title\":\"a\"}\n", .ndjson, .syntax, line: 1, column: 9, "line ends inside")
        expectError("{\"id\":1,\"title\":\"a\",\"data\":[1,\n2]}\n", .ndjson, .syntax, line: 1, column: 31, path: "/data",
                    "line ends inside")
    }

    @Test func ndjsonNotAnObject() {
        expectError("{\"id\":1,\"title\":\"a\"}\n[1, 2]\n", .ndjson, .rule, line: 2, column: 1, "must be a JSON object")
        expectError("[1, 2\n", .ndjson, .syntax, line: 1, column: 6, "line ends inside")
    }

    @Test func ndjsonMembers() {
        expectError("{\"id\":1,\"title\":\"a\",\"color\":\"red\"}\n", .ndjson, .rule, line: 1, column: 21, path: "/color", "unknown member")
        expectError("{\"id\":1,\"title\":\"a\",\"children\":[]}\n", .ndjson, .rule, line: 1, column: 21, path: "/children", "children")
        expectError("{\"id\":1,\"title\":\"a\",\"title\":\"b\"}\n", .ndjson, .rule, line: 1, column: 21, path: "/title", "duplicate member")
        expectError("\n{\"title\":\"a\"}\n", .ndjson, .rule, line: 2, column: 1, "no \"id\"")
        expectError("{\"id\":\"a\"}\n", .ndjson, .rule, line: 1, column: 1, "no \"title\"")
    }

    @Test func ndjsonTypes() {
        expectError("{\"id\":1,\"title\":5}\n", .ndjson, .rule, line: 1, column: 17, path: "/title", "must be a string")
        expectError("{\"id\":1.5,\"title\":\"a\"}\n", .ndjson, .rule, line: 1, column: 7, path: "/id", "string or an integer")
        expectError("{\"id\":true,\"title\":\"a\"}\n", .ndjson, .rule, line: 1, column: 7, path: "/id", "string or an integer")
        expectError("{\"id\":1,\"title\":\"a\",\"expanded\":\"yes\"}\n", .ndjson, .rule, line: 1, column: 32, path: "/expanded", "boolean")
        expectError("{\"id\":1,\"title\":\"a\",\"parentId\":[]}\n", .ndjson, .rule, line: 1, column: 32, path: "/parentId", "null")
    }

    @Test func ndjsonDataErrorsNameTheirPath() {
        expectError("{\"id\":1,\"title\":\"a\",\"data\":{\"k\":[1,]}}\n", .ndjson, .syntax, line: 1, column: 36, path: "/data/k/1")
    }

    @Test func ndjsonInvalidUTF8() {
        let body = Array("{\"id\":1,\"title\":\"a".utf8) + [0xE2, 0x82] + Array("\"}\n".utf8)
        let error = Rows.parse(body, .ndjson).failure
        #expect(error?.kind == .syntax)
        #expect(error?.line == 1)
        #expect(error?.column == 19)
    }

    @Test func ndjsonResolutionErrors() {
        expectError("{\"id\":1,\"title\":\"a\"}\n{\"id\":2,\"title\":\"b\",\"parentId\":\"zz\"}\n", .ndjson, .rule,
                    line: 2, column: 32, path: "/parentId", "parentId \"zz\" names no node")
        expectError("{\"id\":1,\"title\":\"a\"}\n{\"title\":\"b\",  \"id\":\"1\"}\n", .ndjson, .rule,
                    line: 2, column: 21, path: "/id", "duplicate id \"1\"")
        expectError("{\"id\":1,\"title\":\"a\",\"parentId\":2}\n{\"id\":2,\"title\":\"b\",\"parentId\":1}\n", .ndjson, .rule,
                    line: 1, column: 32, path: "/parentId", "cycle")
        expectError("{\"id\":1,\"title\":\"a\"}\n{\"id\":2,\"title\":\"b\",\"parentId\":1}\n", .ndjson, .rule,
                    line: 2, column: 32, path: "/parentId", "deeper", limits: ForestLimits(maxDepth: 1))
        expectError("{\"id\":1,\"title\":\"a\"}\n\n{\"id\":2,\"title\":\"b\"}\n", .ndjson, .limit,
                    line: 3, column: 1, "more than 1 nodes", limits: ForestLimits(maxNodes: 1))
    }

    @Test func ndjsonSyntaxWinsOverRule() {
        expectError("{\"id\":1,\"title\":2}\n{\"id\":2,\"title\":\"b\"\n", .ndjson, .syntax, line: 2, column: 20, "line ends inside")
    }

    /// An empty `parentId` is a root unless a node has the empty id.
    @Test func emptyParentIsARootOrTheEmptyID() throws {
        let roots = try Rows.parse(Self.header + "a,\"\",x\n", .csv).get()
        #expect(roots.parent(of: try #require(roots.node(withID: "a"))) == nil)
        let child = try Rows.parse(Self.header + "a,\"\",x\n\"\",,e\n", .csv).get()
        #expect(child.parent(of: try #require(child.node(withID: "a"))) == child.node(withID: ""))
        let ndjson = try Rows.parse("{\"id\":\"a\",\"parentId\":\"\",\"title\":\"x\"}\n", .ndjson).get()
        #expect(ndjson.parent(of: try #require(ndjson.node(withID: "a"))) == nil)
    }
}
