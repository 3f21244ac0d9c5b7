import Foundation
import Testing
import TreeEngine
@testable import TreeFormats
@testable import TreeReference

/// Parses a JSON document given as text.
func parseDocument(_ text: String, limits: ForestLimits = ForestLimits()) -> Result<Forest, TreeInputError> {
    parseDocument(Array(text.utf8), limits: limits)
}

func parseDocument(_ bytes: [UInt8], limits: ForestLimits = ForestLimits()) -> Result<Forest, TreeInputError> {
    bytes.withUnsafeBytes { raw in
        do throws(TreeInputError) { return .success(try Forest.parseDocument(raw, limits: limits)) } catch { return .failure(error) }
    }
}

@Suite("DocumentTests")
struct DocumentTests {
    @Test func nestedObjectsAndArrays() throws {
        let forest = try parseDocument(#"""
            {"store": {"book": [{"title": "A", "price": 12.50}, {"title": "B\n\u00e9", "tags": []}],
                       "open": true, "owner": null},
             "empty": {}, "n": -1e3}
            """#).get()
        #expect(flatten(forest) == [
            FlatNode(level: 0, id: "/store", title: "store", declares: false),
            FlatNode(level: 1, id: "/store/book", title: "book", declares: false),
            FlatNode(level: 2, id: "/store/book/0", title: "[0]", declares: false),
            FlatNode(level: 3, id: "/store/book/0/title", title: "title: A", declares: false, data: #""A""#),
            FlatNode(level: 3, id: "/store/book/0/price", title: "price: 12.50", declares: false, data: "12.50"),
            FlatNode(level: 2, id: "/store/book/1", title: "[1]", declares: false),
            FlatNode(level: 3, id: "/store/book/1/title", title: "title: B\né", declares: false, data: #""B\n\u00e9""#),
            FlatNode(level: 3, id: "/store/book/1/tags", title: "tags", declares: false, data: "[]"),
            FlatNode(level: 1, id: "/store/open", title: "open: true", declares: false, data: "true"),
            FlatNode(level: 1, id: "/store/owner", title: "owner: null", declares: false, data: "null"),
            FlatNode(level: 0, id: "/empty", title: "empty", declares: false, data: "{}"),
            FlatNode(level: 0, id: "/n", title: "n: -1e3", declares: false, data: "-1e3"),
        ])
    }

    @Test func rootArrayElementsAreRoots() throws {
        let forest = try parseDocument(#" [ 1 , [ "x" , false ] , { } ] "#).get()
        #expect(flatten(forest) == [
            FlatNode(level: 0, id: "/0", title: "[0]: 1", declares: false, data: "1"),
            FlatNode(level: 0, id: "/1", title: "[1]", declares: false),
            FlatNode(level: 1, id: "/1/0", title: "[0]: x", declares: false, data: #""x""#),
            FlatNode(level: 1, id: "/1/1", title: "[1]: false", declares: false, data: "false"),
            FlatNode(level: 0, id: "/2", title: "[2]", declares: false, data: "{}"),
        ])
        #expect(try parseDocument("[]").get().isEmpty)
        #expect(try parseDocument("{}").get().isEmpty)
        // Eleven elements: indexes of two digits.
        let wide = try parseDocument("[0,1,2,3,4,5,6,7,8,9,10]").get()
        #expect(flatten(wide).last?.id == "/10")
        #expect(flatten(wide).last?.title == "[10]: 10")
    }

    @Test func pointerEscaping() throws {
        let forest = try parseDocument(#"{"a/b": {"c~d": 1, "~1": 2, "\u002F": 3, "": 4}}"#).get()
        #expect(flatten(forest).map(\.id) == ["/a~1b", "/a~1b/c~0d", "/a~1b/~01", "/a~1b/~1", "/a~1b/"])
        #expect(flatten(forest).map(\.title) == ["a/b", "c~d: 1", "~1: 2", "/: 3", ": 4"])
        // The engine finds the nodes by their pointers.
        #expect(forest.node(withID: "/a~1b/c~0d") != nil)
    }

    @Test func longValuesAreShortenedAtACharacterBoundary() throws {
        let long = String(repeating: "x", count: 100)
        let accents = String(repeating: "é", count: 50)  // 100 bytes; byte 80 starts a character
        let odd = "y" + String(repeating: "é", count: 50)  // byte 80 is inside one
        let number = "1" + String(repeating: "0", count: 90)
        let forest = try parseDocument(#"{"a": "\#(long)", "b": "\#(accents)", "c": "\#(odd)", "d": \#(number), "e": "\#(String(repeating: "z", count: 80))"}"#).get()
        let titles = flatten(forest).map(\.title)
        #expect(titles[0] == "a: " + String(repeating: "x", count: 80) + "…")
        #expect(titles[1] == "b: " + String(repeating: "é", count: 40) + "…")
        #expect(titles[2] == "c: y" + String(repeating: "é", count: 39) + "…")
        #expect(titles[3] == "d: 1" + String(repeating: "0", count: 79) + "…")
        #expect(titles[4] == "e: " + String(repeating: "z", count: 80))
        // Data keeps the whole value.
        #expect(flatten(forest)[0].data == "\"\(long)\"")
    }

    // MARK: Errors

    func failure(_ text: String, limits: ForestLimits = ForestLimits()) -> TreeInputError? {
        parseDocument(text, limits: limits).failure
    }

    @Test func duplicateMemberNamesAreRuleErrorsAtTheLaterKey() throws {
        let error = try #require(failure("{\"a\": {\"x\": 1,\n \"x\": [2]}}"))
        #expect(error.kind == .rule)
        #expect((error.line, error.column) == (2, 2))
        #expect(error.message.contains("/a/x"))
        // Syntax wins over the rule.
        let both = try #require(failure("{\"x\": 1, \"x\": 2, }"))
        #expect(both.kind == .syntax)
    }

    @Test func scalarRootsAndMalformedDocuments() throws {
        for scalar in ["1", "\"s\"", "true", " null "] {
            let error = try #require(failure(scalar))
            #expect(error.kind == .rule)
            #expect(error.message.contains("object or array"))
        }
        let bad = try #require(failure("[1,\n 2,]"))
        #expect((bad.kind, bad.line, bad.column) == (.syntax, 2, 4))
        let path = try #require(failure(#"{"a": {"b": [1, tru]}}"#))
        #expect(path.kind == .syntax)
        #expect(path.path == "/a/b/1")
        #expect(try #require(failure("")).kind == .syntax)
        #expect(try #require(failure("[1] [2]")).kind == .syntax)
        #expect(try #require(failure("1 x")).kind == .syntax)
        let utf8 = try #require(parseDocument([UInt8](#"{"a": ""#.utf8) + [0xFF] + [UInt8](#""}"#.utf8)).failure)
        #expect((utf8.kind, utf8.column) == (.syntax, 8))
    }

    @Test func depthAndNodeLimits() throws {
        // Roots are depth 0: [[[1]]] holds nodes at depths 0, 1 and 2.
        #expect(try parseDocument("[[[1]]]", limits: ForestLimits(maxDepth: 3)).get().count == 3)
        let deep = try #require(failure("[[[[1]]]]", limits: ForestLimits(maxDepth: 3)))
        #expect((deep.kind, deep.column) == (.rule, 5))
        let many = try #require(failure(#"{"a": 1, "b": 2, "c": 3}"#, limits: ForestLimits(maxNodes: 2)))
        #expect((many.kind, many.column) == (.limit, 18))
    }

    @Test func deepChains() throws {
        let depth = 5_000
        let nested = String(repeating: "[", count: depth) + "7" + String(repeating: "]", count: depth)
        let forest = try parseDocument(nested).get()
        #expect(forest.count == depth)  // the root array is no node; the 7 is
        var deepest = 0
        forest.forEachNode { _, level in deepest = max(deepest, level) }
        #expect(deepest == depth - 1)
        let objects = String(repeating: #"{"k":"#, count: depth) + "1" + String(repeating: "}", count: depth)
        #expect(try parseDocument(objects).get().count == depth)
        // A million levels: the pointers alone would take 10^12 bytes; a clean limit error.
        let million = 1_000_000
        let huge = [UInt8](repeating: UInt8(ascii: "["), count: million) + [UInt8](repeating: UInt8(ascii: "]"), count: million)
        let error = try #require(parseDocument(huge, limits: ForestLimits(maxDepth: 2_000_000)).failure)
        #expect(error.kind == .limit)
        // Malformed at the end: the syntax error wins, found without recursion.
        let broken = [UInt8](repeating: UInt8(ascii: "["), count: million) + [UInt8](repeating: UInt8(ascii: "]"), count: million - 1)
        #expect(parseDocument(broken, limits: ForestLimits(maxDepth: 2_000_000)).failure?.kind == .syntax)
    }

    @Test func sameForestAsTheNestedUpload() throws {
        // The document's forest equals the nested upload of the same nodes.
        let document = try parseDocument(#"{"a": [true, {"b": "c"}]}"#).get()
        let (nested, _) = try Forest.parse(Array(#"""
            [{"id": "/a", "title": "a", "children": [
              {"id": "/a/0", "title": "[0]: true", "data": true},
              {"id": "/a/1", "title": "[1]", "children": [{"id": "/a/1/b", "title": "b: c", "data": "c"}]}]}]
            """#.utf8))
        #expect(flatten(document) == flatten(nested))
    }
}
