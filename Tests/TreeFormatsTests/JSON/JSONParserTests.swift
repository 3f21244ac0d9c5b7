import Testing
import TreeEngine
@testable import TreeFormats
@testable import TreeReference

@Suite("JSONParserTests")
struct JSONParserTests {
    // MARK: Valid documents

    @Test func bareArrayEventsInPreOrder() throws {
        let result = record(#"""
            [ {"title": "A", "id": "a", "expanded": true, "children": [
                {"title": "A1", "id": 1, "hasChildren": true},
                {"children": [], "title": "A2"}
              ]},
              {"id": -7, "data": {"k": [1, 2]}, "title": "B", "hasChildren": false, "expanded": false} ]
            """#)
        #expect(result.error == nil)
        #expect(result.members?.isEmpty == true)
        #expect(result.sink.events == [
            .begin, .title("A"), .stringID("a"), .expanded(true),
            .begin, .title("A1"), .integerID(1), .hasChildren(true), .end,
            .begin, .title("A2"), .end,
            .end,
            .begin, .integerID(-7), .data(#"{"k": [1, 2]}"#), .title("B"), .hasChildren(false), .expanded(false), .end,
        ])
    }

    @Test func objectDocumentReturnsOtherMembersInOrder() throws {
        let result = record(#"""
            {"expand": "all", "nodes": [{"title": "x"}], "parentId": null, "index": 3, "before": {"a": [true, 1.5]}}
            """#)
        #expect(result.error == nil)
        #expect(result.sink.events == [.begin, .title("x"), .end])
        let members = try #require(result.members)
        #expect(members.map(\.key) == ["expand", "parentId", "index", "before"])
        #expect(members.map(\.value) == [
            .string("all"), .null, .number("3"),
            .object([(key: "a", value: .array([.bool(true), .number("1.5")]))]),
        ])
    }

    @Test func emptyForests() {
        for document in ["[]", " [ ] ", #"{"nodes":[]}"#, "\t\r\n{ \"nodes\" : [ ] }\n"] {
            let result = record(document)
            #expect(result.error == nil, "\(document)")
            #expect(result.sink.events.isEmpty)
        }
    }

    @Test func emptyChildrenAndEveryWhitespace() {
        let result = record(" \t\r\n[\t{\r\n\"title\"\t:\t\"a\" ,\n\"children\" : [ \n ] } \r\n] \t")
        #expect(result.error == nil)
        #expect(result.sink.events == [.begin, .title("a"), .end])
    }

    @Test func integerIDsStayIntegersAndStringIDsStayStrings() {
        let result = record(#"""
            [{"title":"a","id":42},{"title":"b","id":"42"},{"title":"c","id":-0},{"title":"d","id":9223372036854775807},
             {"title":"e","id":-9223372036854775808},{"title":"f","id":"\u0034\u0032x"},{"title":"g","id":0},
             {"title":"h","id":999999999999999999},{"title":"i","id":-999999999999999999},{"title":"j","id":1000000000000000000}]
            """#)
        #expect(result.error == nil)
        let ids = result.sink.events.filter {
            switch $0 {
            case .integerID, .stringID: true
            default: false
            }
        }
        #expect(ids == [
            .integerID(42), .stringID("42"), .integerID(0), .integerID(.max), .integerID(.min), .stringID("42x"), .integerID(0),
            .integerID(999_999_999_999_999_999), .integerID(-999_999_999_999_999_999), .integerID(1_000_000_000_000_000_000),
        ])
    }

    /// An integral number written with a fraction or an exponent is that integer id.
    @Test func integralNumberIDsWithFractionOrExponentAreIntegers() {
        let result = record(#"""
            [{"title":"a","id":7.0},{"title":"b","id":8e0},{"title":"c","id":-0.0},{"title":"d","id":90E-1},
             {"title":"e","id":1.2e1},{"title":"f","id":9.223372036854775807e18},{"title":"g","id":-5.00}]
            """#)
        #expect(result.error == nil)
        let ids = result.sink.events.filter {
            if case .integerID = $0 { true } else { false }
        }
        #expect(ids == [.integerID(7), .integerID(8), .integerID(0), .integerID(9), .integerID(12), .integerID(.max), .integerID(-5)])
    }

    @Test func nonIntegralOrHugeNumberIDsStayRuleErrors() {
        for (id, message) in [
            ("7.5", #""id" must be a string or an integer"#), ("75e-1", #""id" must be a string or an integer"#),
            ("1e300", #""id" integer is out of the 64-bit range"#), ("-1e19", #""id" integer is out of the 64-bit range"#),
        ] {
            let error = record(#"[{"title":"a","id":\#(id)}]"#).error
            #expect(error?.kind == .rule, "\(id)")
            #expect(error?.message == message, "\(id)")
            #expect(error?.path == "/0/id", "\(id)")
        }
    }

    /// The id `7.0` is the id `7`: the same node, and a duplicate of `7` or `"7"`.
    @Test func integralIDWithFractionIsTheSameIDAsTheInteger() throws {
        let forest = try Forest.parse(Array(#"[{"title":"a","id":7.0}]"#.utf8)).forest
        let node = try #require(forest.node(withID: "7"))
        #expect(forest.id(of: node) == .integer(7))
        #expect(throws: TreeInputError.self) { try Forest.parse(Array(#"[{"title":"a","id":7},{"title":"b","id":7e0}]"#.utf8)) }
        #expect(throws: TreeInputError.self) { try Forest.parse(Array(#"[{"title":"a","id":"7"},{"title":"b","id":70e-1}]"#.utf8)) }
    }

    @Test func dataOfEveryTypeIsPassedByteExact() {
        let values = [
            #"null"#, #"true"#, #"false"#, #"0"#, #"-0.0"#, #"1E+2"#, #"-12.5e-3"#, #"123456789012345678901234567890"#,
            #""text""#, #""esc \" \\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00""#, #""é ü 😀""#,
            #"[]"#, #"{}"#, #"[ 1 , "a" , [ ] , { } ]"#, #"{ "a" : { "b" : [ null ] } , "a" : 2 }"#,
        ]
        for value in values {
            let document = "[{\"title\":\"t\",\"data\":  \n\(value)\t ,\"id\":1}]"
            let result = record(document)
            #expect(result.error == nil, "\(value)")
            #expect(result.sink.events == [.begin, .title("t"), .data(value), .integerID(1), .end], "\(value)")
            #expect(result.sink.payloads.last == Array(value.utf8))
        }
    }

    @Test func everyEscapeIsDecoded() {
        let result = record(#"[{"title":"\"\\\/\b\f\n\r\t\u0041\u00e9\u20AC\ud83d\ude00\u0000end"}]"#)
        #expect(result.error == nil)
        let expected: [UInt8] = [0x22, 0x5C, 0x2F, 0x08, 0x0C, 0x0A, 0x0D, 0x09, 0x41, 0xC3, 0xA9, 0xE2, 0x82, 0xAC,
                                 0xF0, 0x9F, 0x98, 0x80, 0x00] + Array("end".utf8)
        #expect(result.sink.payloads == [expected])
        #expect(result.sink.titlesInPlace == [false])
    }

    @Test func surrogatePairsCombine() {
        // U+10000, U+1F600, U+10FFFF: the lowest, a common, and the highest pair.
        let result = record(#"[{"title":"\uD800\uDC00|\ud83d\ude00|\udbff\udfff"}]"#)
        #expect(result.error == nil)
        #expect(result.sink.events == [.begin, .title("\u{10000}|\u{1F600}|\u{10FFFF}"), .end])
    }

    @Test func validUTF8AtEveryBoundary() {
        // The smallest and largest scalar of each length, and characters right beside the surrogates.
        let title = "\u{7F}\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{FFFF}\u{10000}\u{10FFFF}"
        let result = record("[{\"title\":\"\(title)\"}]")
        #expect(result.error == nil)
        #expect(result.sink.events == [.begin, .title(title), .end])
        #expect(result.sink.titlesInPlace == [true])
    }

    @Test func plainTitlesArePassedInPlace() {
        let result = record(#"[{"title":"short"},{"title":"a longer title with some words in it"},{"title":""}]"#)
        #expect(result.error == nil)
        #expect(result.sink.titlesInPlace == [true, true, true])
        #expect(result.sink.events == [.begin, .title("short"), .end, .begin, .title("a longer title with some words in it"), .end,
                                       .begin, .title(""), .end])
    }

    @Test func escapedKeysAreRecognised() {
        let result = record(#"[{"\u0074itle":"a","\u0063hildren":[{"title":"b"}],"i\u0064":"x"}]"#)
        #expect(result.error == nil)
        #expect(result.sink.events == [.begin, .title("a"), .begin, .title("b"), .end, .stringID("x"), .end])
    }

    @Test func specialBytesAtEveryPositionOfLongStrings() {
        // Exercises the eight-bytes-at-a-time scan: a quote, an escape, or multi-byte UTF-8 at every offset.
        for length in 0..<20 {
            for special in [#"\""#, #"\\"#, "é", "😀", #"\n"#] {
                let prefix = String(repeating: "x", count: length)
                let json = "[{\"title\":\"\(prefix)\(special)yz0123456789\"}]"
                let decoded = prefix + (special == #"\""# ? "\"" : special == #"\\"# ? "\\" : special == #"\n"# ? "\n" : special) + "yz0123456789"
                let result = record(json)
                #expect(result.error == nil, "\(json)")
                #expect(result.sink.events == [.begin, .title(decoded), .end], "\(json)")
            }
        }
    }

    // MARK: Invalid documents

    @Test(arguments: InvalidDocuments.all)
    func invalidCorpus(_ expectation: InvalidDocument) throws {
        let document = expectation.document
        let error = try #require(record(document).error, "\(expectation.name): parsed without error")
        #expect(error.kind == expectation.kind, "\(expectation.name): \(error)")
        #expect(error.byteOffset == expectation.byteOffset, "\(expectation.name): \(error)")
        #expect(error.path == expectation.path, "\(expectation.name): \(error)")
        #expect(!error.message.isEmpty)
        // The plain validator judges well-formedness the same way, at the same place.
        let syntax = document.withUnsafeBytes { JSONScanner.firstSyntaxError(in: $0, maxDepth: 10_000) }
        #expect((syntax != nil) == (expectation.kind == .syntax), "\(expectation.name)")
        if let syntax {
            #expect(sameLocation(syntax, error), "\(expectation.name): \(syntax) vs \(error)")
        }
    }

    @Test func corpusCoversBothKinds() {
        #expect(InvalidDocuments.all.count > 80)
        #expect(Set(InvalidDocuments.all.map(\.name)).count == InvalidDocuments.all.count)
        #expect(InvalidDocuments.all.contains { $0.kind == .rule } && InvalidDocuments.all.contains { $0.kind == .syntax })
    }

    @Test func messagesReadWell() {
        let cases: [(String, String)] = [
            (#"[{"title":"a" "id":1}]"#, #"expected ',' or '}' after object member, found '"'"#),
            (#"[{"title":1}]"#, #""title" must be a string"#),
            (#"[{"id":"x"}]"#, #"node is missing "title""#),
            (#"[{"title":"a","name":1}]"#, #"unknown key "name" in node"#),
            (#"[{"title":"a","title":"b"}]"#, #"duplicate key "title" in node"#),
            (#"[{"title":"a","id":1.5}]"#, #""id" must be a string or an integer"#),
            ("", "empty document"),
            (#"[{"title":"a\u00"}]"#, #"\u must be followed by four hexadecimal digits"#),
            ("[{\"title\":\"\u{1}\"}]", "control character U+0001 must be escaped in a string"),
            ("[1,", "unexpected end of input, expected a value"),
        ]
        for (document, message) in cases {
            #expect(record(document).error?.message == message, "\(document)")
        }
    }

    @Test func lineAndColumnAreComputedFromTheOffset() throws {
        let error = try #require(record("[\n  {\"title\": \"a\"},\n  {\"title\": 5}\n]").error)
        #expect(error.kind == .rule)
        #expect(error.line == 3)
        #expect(error.column == 13)
        #expect(error.byteOffset == 32)
        #expect(error.path == "/1/title")
        let first = try #require(record("x").error)
        #expect((first.line, first.column, first.byteOffset) == (1, 1, 0))
        #expect(first.description.contains("line 1, column 1"))
    }

    @Test func everyTruncationIsASyntaxError() {
        let document = Array(#"{"nodes":[{"title":"A é","id":1,"children":[{"title":"\u00e9\ud83d\ude00","data":{"a":[1.5e3,true,null]},"expanded":false}]}],"expand":"all"}"#.utf8)
        #expect(record(document).error == nil)
        for length in 0..<document.count {
            let error = record(Array(document[..<length])).error
            #expect(error?.kind == .syntax, "prefix of \(length) bytes")
            #expect((error?.byteOffset ?? -1) <= length)
        }
    }

    @Test func mutatedDocumentsNeverCrashAndAgreeWithTheValidator() {
        let document = Array(#"{"nodes":[{"title":"A é","id":1,"children":[{"title":"b\n","data":{"a":[1.5e3,true,null,"x"]},"hasChildren":false}]}]}"#.utf8)
        var generator = SeededRandom(seed: 0x5EED)
        let replacements: [UInt8] = Array("{}[],:\"\\ 0-1e.tfnu".utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xE2, 0xFF]
        for round in 0..<3000 {
            var mutated = document
            for _ in 0..<(1 + Int(generator.next() % 3)) {
                let index = Int(generator.next() % UInt64(mutated.count))
                switch generator.next() % 3 {
                case 0: mutated[index] = replacements[Int(generator.next() % UInt64(replacements.count))]
                case 1: mutated.remove(at: index)
                default: mutated.insert(replacements[Int(generator.next() % UInt64(replacements.count))], at: index)
                }
            }
            let nodes = record(mutated).error
            let value: TreeInputError?
            do { _ = try JSONValue.parse(mutated, maxDepth: 100); value = nil } catch { value = error }
            let syntax = mutated.withUnsafeBytes { JSONScanner.firstSyntaxError(in: $0, maxDepth: 100) }
            // Well-formedness is judged the same way by all three.
            #expect((nodes?.kind == .syntax) == (syntax != nil), "round \(round): \(String(decoding: mutated, as: UTF8.self))")
            #expect((value?.kind == .syntax) == (syntax != nil), "round \(round): \(String(decoding: mutated, as: UTF8.self))")
            if let syntax, let nodes, let value {
                #expect(sameLocation(nodes, syntax), "round \(round): \(nodes) vs \(syntax)")
                #expect(sameLocation(value, syntax), "round \(round): \(value) vs \(syntax)")
            }
        }
    }

    // MARK: Sink errors and limits

    @Test func duplicateIDFromTheSinkGetsOffsetAndPath() throws {
        let document = #"{"nodes":[{"title":"a","id":42,"children":[{"title":"b","id":"42"}]}]}"#
        let result = parseNodes(document, into: UniqueIDSink())
        let error = try #require(result.error)
        #expect(error.kind == .rule)
        #expect(error.message == #"duplicate id "42""#)
        #expect(error.path == "/nodes/0/children/0/id")
        #expect(error.byteOffset == 61)
    }

    @Test func escapedDuplicateStringIDIsDecodedBeforeTheSinkSeesIt() throws {
        let error = try #require(parseNodes(#"[{"title":"a","id":"x"},{"title":"b","id":"\u0078"}]"#, into: UniqueIDSink()).error)
        #expect(error.message == #"duplicate id "x""#)
        #expect(error.path == "/1/id")
        #expect(error.byteOffset == 42)
    }

    @Test func sinkLimitBecomesALimitErrorAtTheNode() throws {
        var sink = UniqueIDSink()
        sink.maxNodes = 2
        let error = try #require(parseNodes(#"[{"title":"a","children":[{"title":"b"}]},{"title":"c"}]"#, into: sink).error)
        #expect(error.kind == .limit)
        #expect(error.message == "too many nodes: the limit is 2")
        #expect(error.path == "/1")
        #expect(error.byteOffset == 42)
    }

    @Test func maxNodesOption() throws {
        let document = #"[{"title":"a","children":[{"title":"b"},{"title":"c"}]}]"#
        #expect(parseNodes(document, into: CountingSink(), options: NodesDocumentOptions(maxNodes: 3)).error == nil)
        let error = try #require(parseNodes(document, into: CountingSink(), options: NodesDocumentOptions(maxNodes: 2)).error)
        #expect(error.kind == .limit)
        #expect(error.path == "/0/children/1")
        #expect(error.message.contains("maximum of 2 nodes"))
    }

    @Test func maxDepthOptionCountsNodeLevelsAndDataLevels() throws {
        let nested = #"[{"title":"a","children":[{"title":"b","children":[{"title":"c"}]}]}]"#
        #expect(parseNodes(nested, into: CountingSink(), options: NodesDocumentOptions(maxDepth: 3)).error == nil)
        let error = try #require(parseNodes(nested, into: CountingSink(), options: NodesDocumentOptions(maxDepth: 2)).error)
        #expect(error.kind == .rule)
        #expect(error.path == "/0/children/0/children/0")
        let data = #"[{"title":"a","data":[[1]]}]"#
        #expect(parseNodes(data, into: CountingSink(), options: NodesDocumentOptions(maxDepth: 3)).error == nil)
        let dataError = try #require(parseNodes(data, into: CountingSink(), options: NodesDocumentOptions(maxDepth: 2)).error)
        #expect(dataError.path == "/0/data/0")
        #expect(dataError.byteOffset == 22)
    }

    // MARK: Depth

    static func deepChildren(_ depth: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(depth * 30)
        let open = Array(#"{"title":"n","children":["#.utf8)
        bytes.append(UInt8(ascii: "["))
        for _ in 0..<depth { bytes += open }
        for _ in 0..<depth { bytes += [UInt8(ascii: "]"), UInt8(ascii: "}")] }
        bytes.append(UInt8(ascii: "]"))
        return bytes
    }

    @Test func millionDeepChildrenParse() {
        let document = Self.deepChildren(1_000_000)
        let result = parseNodes(document, into: CountingSink())
        #expect(result.error == nil)
        #expect(result.sink.nodes == 1_000_000)
        #expect(result.sink.maxDepth == 1_000_000)
        #expect(result.sink.depth == 0)
    }

    @Test func tooDeepChildrenGiveACleanError() throws {
        let document = Self.deepChildren(1_000_001)
        let error = try #require(parseNodes(document, into: CountingSink()).error)
        #expect(error.kind == .rule)
        #expect(error.message.contains("maximum depth"))
        #expect(error.byteOffset == 1 + 1_000_000 * 25)
        #expect(error.path.hasPrefix("/0/children/0/children/0"))
        #expect(error.path.count == "/0".count + 1_000_000 * "/children/0".count)
        // A syntax error deep down still wins over the depth rule.
        var broken = Self.deepChildren(1_000_001)
        broken[broken.count - 2] = UInt8(ascii: ",")
        #expect(parseNodes(broken, into: CountingSink()).error?.kind == .syntax)
    }

    @Test func millionDeepDataArrays() throws {
        let depth = 1_000_000
        let value = [UInt8](repeating: UInt8(ascii: "["), count: depth) + [UInt8](repeating: UInt8(ascii: "]"), count: depth)
        let document = Array(#"[{"title":"a","data":"#.utf8) + value + Array("}]".utf8)
        // One level for the node, a million for the data: over the default limit, cleanly.
        let error = try #require(parseNodes(document, into: CountingSink()).error)
        #expect(error.kind == .rule)
        #expect(error.message.contains("maximum depth"))
        #expect(error.byteOffset == 21 + depth - 1)
        // Within a raised limit, it is passed through byte-exact.
        let result = parseNodes(document, into: CountingSink(), options: NodesDocumentOptions(maxDepth: depth + 1))
        #expect(result.error == nil)
        #expect(result.sink.dataBytes == value)
        // Unbalanced: a syntax error, not a crash.
        let unbalanced = Array(#"[{"title":"a","data":"#.utf8) + value.dropLast() + Array("}]".utf8)
        #expect(parseNodes(unbalanced, into: CountingSink(), options: NodesDocumentOptions(maxDepth: depth + 1)).error?.kind == .syntax)
    }

    @Test func millionDeepObjectsInData() throws {
        let depth = 1_000_000
        var value: [UInt8] = []
        for _ in 0..<depth { value += Array(#"{"k":"#.utf8) }
        value += Array("0".utf8)
        value += [UInt8](repeating: UInt8(ascii: "}"), count: depth)
        let document = Array(#"[{"title":"a","data":"#.utf8) + value + Array("}]".utf8)
        let result = parseNodes(document, into: CountingSink(), options: NodesDocumentOptions(maxDepth: depth + 1))
        #expect(result.error == nil)
        #expect(result.sink.dataBytes == value)
        let error = try #require(parseNodes(document, into: CountingSink()).error)
        #expect(error.kind == .rule)
        #expect(error.path.hasPrefix("/0/data/k/k/k"))
    }

    @Test func millionDeepTopLevelMemberIsRejectedCleanly() throws {
        let depth = 1_000_000
        let document = Array(#"{"nodes":[],"expand":"#.utf8)
            + [UInt8](repeating: UInt8(ascii: "["), count: depth) + [UInt8](repeating: UInt8(ascii: "]"), count: depth) + [UInt8(ascii: "}")]
        let error = try #require(parseNodes(document, into: CountingSink()).error)
        #expect(error.kind == .rule)
        #expect(error.message.contains("maximum depth of 512"))
        #expect(error.path.hasPrefix("/expand/0/0/0"))
    }
}

/// Same kind, offset and path (messages may word the same problem differently).
func sameLocation(_ a: TreeInputError, _ b: TreeInputError) -> Bool {
    a.kind == b.kind && a.byteOffset == b.byteOffset && a.path == b.path && a.line == b.line && a.column == b.column
}
