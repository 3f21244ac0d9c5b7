import Testing
import TreeEngine
@testable import TreeFormats
@testable import TreeReference

/// Export → import round trips of the model's random trees in CSV and NDJSON, in
/// pre-order (as exported) and shuffled (parents after children, siblings in order).
@Suite("RowsRoundTripTests")
struct RowsRoundTripTests {
    /// Titles and ids that CSV must quote, and other odd bytes.
    static let oddTexts = [
        "a,b", ",", "\"", "\"\"", "say \"hi\"", "line\nbreak", "\r\n", "cr\ronly", " lead", "trail ", "", "\n",
        "x/y", "~0", "tab\there", "日本,語", "{\"json\":1}", "'single'", "\\", "end\"",
    ]

    /// Gives some nodes odd titles and odd (unique) ids.
    static func oddify(_ nodes: inout [GenNode], _ rng: inout SeededRandom, counter: inout Int) {
        for i in nodes.indices {
            if rng.chance(0.15) { nodes[i].title = rng.pick(oddTexts) }
            if rng.chance(0.08) {
                counter += 1
                nodes[i].id = .string(rng.pick(oddTexts) + "#\(counter)")
            }
            oddify(&nodes[i].children, &rng, counter: &counter)
        }
    }

    static func randomForest(seed: UInt64) throws -> Forest {
        var rng = SeededRandom(seed: seed &+ 15_000)
        var used: Set<String> = []
        var nodes = RandomTrees.forest(&rng, nodes: RandomTrees.size(&rng), used: &used, extraTilde: 40)
        var counter = 0
        oddify(&nodes, &rng, counter: &counter)
        return try Rows.forest(json: RandomTrees.json(nodes, &rng))
    }

    @Test(arguments: [Rows.Format.csv, .ndjson])
    func exportThenImportGivesTheSameForest(format: Rows.Format) throws {
        var failures = 0
        for seed in 0 ..< UInt64(Rows.seedCount) {
            let original = try Self.randomForest(seed: seed)
            let expected = Rows.describe(original, types: format == .ndjson)
            let body = Rows.export(original, format, chunkSize: Int(seed % 7) * 40 + 1)
            switch Rows.parse(body, format) {
            case .success(let back):
                let got = Rows.describe(back, types: format == .ndjson)
                if got != expected {
                    Issue.record("seed \(seed): \(format) round trip differs\nexport:\n\(String(decoding: body, as: UTF8.self))\nexpected:\n\(expected.joined(separator: "\n"))\ngot:\n\(got.joined(separator: "\n"))")
                    failures += 1
                }
            case .failure(let error):
                Issue.record("seed \(seed): \(format) import failed: \(error)\n\(String(decoding: body, as: UTF8.self))")
                failures += 1
            }
            if failures >= 3 { return }
        }
    }

    /// Splits the export of `original` at every row boundary after the first row and reads
    /// it in two parts (`RowParts`), and at as many random sets of two to four boundaries
    /// in three to five parts (some of them empty): each join must give the forest of one
    /// pass (ids found, levels, order, everything). Returns how many reads there were and
    /// how many joined (the others are left to the table).
    static func joinAtEverySplit(_ original: Forest, _ format: Rows.Format, seed: UInt64) -> (splits: Int, joined: Int) {
        let expected = Rows.describe(original, types: format == .ndjson)
        let body = Rows.export(original, format)
        let splits = Rows.splits(body, format)
        var rng = SeededRandom(seed: seed &+ 18_000)
        let cuts = splits.map { [$0] } + splits.map { _ in (0 ..< rng.int(2 ... 4)).map { _ in rng.pick(splits) }.sorted() }
        var joined = 0
        for cut in cuts {
            guard let forest = Rows.inParts(body, format, cuts: cut) else { continue }
            joined += 1
            let got = Rows.describe(forest, types: format == .ndjson)
            #expect(got == expected, "seed \(seed), \(format) cut near \(cut)")
            forest.forEachNode { node, _ in
                let id = forest.id(of: node).description
                #expect(forest.node(withID: id) == node, "seed \(seed), cut near \(cut): \(id)")
            }
            if got != expected { break }
        }
        return (cuts.count, joined)
    }

    /// Large bodies are read in parts at once: exports of random trees whose nodes all have
    /// ids of their own join at every split.
    @Test(arguments: [Rows.Format.csv, .ndjson])
    func twoPartsJoinAsOnePass(format: Rows.Format) throws {
        func nameAll(_ nodes: inout [GenNode], _ rng: inout SeededRandom, counter: inout Int) {
            for i in nodes.indices {
                counter += 1
                nodes[i].id = .string(rng.chance(0.2) ? rng.pick(Self.oddTexts) + "#\(counter)" : "r\(counter)")
                nameAll(&nodes[i].children, &rng, counter: &counter)
            }
        }
        for seed in 0 ..< UInt64(min(Rows.seedCount, 60)) {
            var rng = SeededRandom(seed: seed &+ 16_000)
            var used: Set<String> = []
            var nodes = RandomTrees.forest(&rng, nodes: RandomTrees.size(&rng), used: &used, extraTilde: 0)
            var counter = 0
            nameAll(&nodes, &rng, counter: &counter)
            let original = try Rows.forest(json: RandomTrees.json(nodes, &rng))
            let (splits, joined) = Self.joinAtEverySplit(original, format, seed: seed)
            #expect(joined == splits, "seed \(seed): \(joined) of \(splits) splits joined")
        }
    }

    /// An export names the nodes without an id of their own by their slots (`~N`): a later
    /// part takes its first slot from the first such id, and the join checks it, so such
    /// exports join at every split too. Explicit ids `~N` naming other slots (which may
    /// collide with a generated one) are left to the table where a later part has them,
    /// and give the same forest wherever they join.
    @Test(arguments: [Rows.Format.csv, .ndjson])
    func exportsWithGeneratedIDsJoinInTwoParts(format: Rows.Format) throws {
        var allJoined = 0, someJoined = 0
        for seed in 0 ..< UInt64(min(Rows.seedCount, 60)) {
            var rng = SeededRandom(seed: seed &+ 17_000)
            var used: Set<String> = []
            let explicitTilde = seed % 2 == 1
            let nodes = RandomTrees.forest(&rng, nodes: RandomTrees.size(&rng), used: &used, extraTilde: explicitTilde ? 40 : -1)
            let original = try Rows.forest(json: RandomTrees.json(nodes, &rng))
            let (splits, joined) = Self.joinAtEverySplit(original, format, seed: seed)
            if explicitTilde {
                if joined > 0 { someJoined += 1 }
            } else {
                #expect(joined == splits, "seed \(seed): \(joined) of \(splits) splits joined")
                if joined == splits && splits > 1 { allJoined += 1 }
            }
        }
        #expect(allJoined >= min(Rows.seedCount, 60) / 2 * 3 / 4, "\(allJoined) seeds joined at every split")
        #expect(someJoined > 0)
    }

    /// An explicit id `~N` in the first part naming a slot of the second, whose row has the
    /// id `~N` too: a duplicate, which the join does not let through (one pass reports it).
    @Test func anExplicitTildeIDNamingASlotOfTheSecondPartIsADuplicate() throws {
        var csv = "id,parentId,title\n~1,,a\nx,,b\n~4,,c\ny,,d\n~4,,e\nz,,f\n"
        for n in 0 ..< 20 { csv += "w\(n),,g\n" }
        let body = Array(csv.utf8)
        // After each row (the first part's) but the last.
        let rowEnds = body.indices.filter { body[$0] == 0x0A }.map { $0 + 1 }.dropFirst().dropLast()
        for split in rowEnds {
            #expect(Rows.inParts(body, .csv, cuts: [split]) == nil, "split after byte \(split)")
        }
        #expect(throws: TreeInputError.self) { try body.withUnsafeBytes { try Forest.parseCSV($0) } }
    }

    @Test(arguments: [Rows.Format.csv, .ndjson])
    func parentsAfterChildren(format: Rows.Format) throws {
        var failures = 0
        for seed in 0 ..< UInt64(Rows.seedCount) {
            let original = try Self.randomForest(seed: seed)
            let expected = Rows.describe(original, types: format == .ndjson)
            var rng = SeededRandom(seed: seed &+ 77)
            let rows = Rows.shuffledKeepingSiblings(Rows.rows(original, format), &rng)
            var body: [UInt8] = format == .csv ? Array("\u{FEFF}id,parentId,title,expanded,hasChildren,data\r\n".utf8) : []
            for row in rows {
                body += row
                if rng.chance(0.05) { body += format == .csv ? [0x0A] : Array(" \t\n".utf8) }
            }
            switch Rows.parse(body, format) {
            case .success(let back):
                let got = Rows.describe(back, types: format == .ndjson)
                if got != expected {
                    Issue.record("seed \(seed): shuffled \(format) differs\nbody:\n\(String(decoding: body, as: UTF8.self))\nexpected:\n\(expected.joined(separator: "\n"))\ngot:\n\(got.joined(separator: "\n"))")
                    failures += 1
                }
            case .failure(let error):
                Issue.record("seed \(seed): shuffled \(format) import failed: \(error)\n\(String(decoding: body, as: UTF8.self))")
                failures += 1
            }
            if failures >= 3 { return }
        }
    }

    /// An integer id exported to CSV comes back as the string with the same text: every
    /// lookup by id works the same. NDJSON keeps it an integer.
    @Test func integerIDsInCSVComeBackAsStrings() throws {
        let original = try Rows.forest(json: #"[{"id":42,"title":"a","children":[{"id":-7,"title":"b"}]}]"#)
        let csv = try Rows.parse(Rows.export(original, .csv), .csv).get()
        #expect(csv.id(of: try #require(csv.node(withID: "42"))) == .string("42"))
        #expect(csv.parent(of: try #require(csv.node(withID: "-7"))) == csv.node(withID: "42"))
        let ndjson = try Rows.parse(Rows.export(original, .ndjson), .ndjson).get()
        #expect(ndjson.id(of: try #require(ndjson.node(withID: "42"))) == .integer(42))
    }

    @Test func exportedTextIsAsSpecified() throws {
        let forest = try Rows.forest(json: #"""
            [{"id":"r","title":"Root, \"quoted\"","expanded":true,"children":[
               {"title":"x","hasChildren":true,"data":{"k":"v, w"}},
               {"id":"","title":"","children":[{"id":5,"title":"line\nbreak"}]}]}]
            """#)
        let csv = String(decoding: Rows.export(forest, .csv), as: UTF8.self)
        #expect(csv == "id,parentId,title,expanded,hasChildren,data\r\n"
            + "r,,\"Root, \"\"quoted\"\"\",true,,\r\n"
            + "~1,r,x,,true,\"{\"\"k\"\":\"\"v, w\"\"}\"\r\n"
            + "\"\",r,,,,\r\n"
            + "5,\"\",\"line\nbreak\",,,\r\n")
        let ndjson = String(decoding: Rows.export(forest, .ndjson), as: UTF8.self)
        #expect(ndjson == #"{"id":"r","parentId":null,"title":"Root, \"quoted\"","expanded":true}"# + "\n"
            + #"{"id":"~1","parentId":"r","title":"x","hasChildren":true,"data":{"k":"v, w"}}"# + "\n"
            + #"{"id":"","parentId":"r","title":""}"# + "\n"
            + #"{"id":5,"parentId":"","title":"line\nbreak"}"# + "\n")
    }

    @Test func extraColumnsBecomeDataAndCRLFWorks() throws {
        let body = "title,id,parentId,owner,size\r\nA,a,,\"Ann, B\",3\r\nB,b,a,,\r\n"
        let forest = try Rows.parse(body, .csv).get()
        #expect(Rows.describe(forest, types: false) == [
            #"0 str:"a" "A" e=false h=false d={"owner":"Ann, B","size":"3"}"#,
            #"1 str:"b" "B" e=false h=false d={"owner":"","size":""}"#,
        ])
    }

    @Test func emptyBodiesAndHeaderOnly() throws {
        #expect(try Rows.parse("id,parentId,title\n", .csv).get().isEmpty)
        #expect(try Rows.parse("id,parentId,title", .csv).get().isEmpty)
        #expect(try Rows.parse("", .ndjson).get().isEmpty)
        #expect(try Rows.parse("\n  \r\n\t\n", .ndjson).get().isEmpty)
        #expect(Rows.error("", .csv)?.kind == .rule)
    }

    @Test func ndjsonIDsMatchByText() throws {
        let body = """
            {"id":"5","title":"five"}
            {"id":6,"parentId":5,"title":"six"}
            {"id":7,"parentId":"6","title":"seven"}
            {"id":"x","parentId":70e-1,"title":"x"}
            """
        let forest = try Rows.parse(body, .ndjson).get()
        #expect(Rows.describe(forest, types: true) == [
            #"0 str:"5" "five" e=false h=false d=-"#,
            #"1 int:"6" "six" e=false h=false d=-"#,
            #"2 int:"7" "seven" e=false h=false d=-"#,
            #"3 str:"x" "x" e=false h=false d=-"#,
        ])
    }

    /// Rows naming existing nodes of a session become one group per parent, in order of
    /// first appearance; rows without a parent the top-level group.
    @Test(arguments: [Rows.Format.csv, .ndjson])
    func fragmentsGroupByExistingParent(format: Rows.Format) throws {
        let store = TreeStore(forest: try Rows.forest(json: #"[{"id":"a","title":"A"},{"id":"b","title":"B"}]"#))
        let body = format == .csv
            ? "id,parentId,title\nn1,b,N1\nn2,n1,N2\nn3,,N3\nn4,a,N4\nn5,b,N5\n"
            : """
            {"id":"n1","parentId":"b","title":"N1"}
            {"id":"n2","parentId":"n1","title":"N2"}
            {"id":"n3","title":"N3"}
            {"id":"n4","parentId":"a","title":"N4"}
            {"id":"n5","parentId":"b","title":"N5"}
            """
        let groups = try Rows.fragments(body, format, store: store).get()
        #expect(groups.map { $0.parent.map { store.forest.id(of: $0).description } } == ["b", nil, "a"])
        #expect(groups.map { Rows.describe($0.fragment, types: false).map { $0.split(separator: " ")[0 ... 1].joined(separator: " ") } } == [
            [#"0 str:"n1""#, #"1 str:"n2""#, #"0 str:"n5""#], [#"0 str:"n3""#], [#"0 str:"n4""#],
        ])
        // Ids taken in the session, orphans.
        let taken = Rows.fragments(format == .csv ? "id,parentId,title\nx,,X\na,,A2\n" : "{\"id\":\"x\",\"title\":\"X\"}\n{\"id\":\"a\",\"title\":\"A2\"}\n",
                                   format, store: store).failure
        #expect(taken?.kind == .rule)
        #expect(taken?.line == (format == .csv ? 3 : 2))
        let orphan = Rows.fragments(format == .csv ? "id,parentId,title\nx,zz,X\n" : "{\"id\":\"x\",\"parentId\":\"zz\",\"title\":\"X\"}\n",
                                    format, store: store).failure
        #expect(orphan?.kind == .rule)
        #expect(orphan?.message.contains("zz") == true)
    }

    /// A body of 76,000 rows inserted into a session whose table has deleted ids, as
    /// fragments of 66,000 nodes (pools appended whole, ids indexed in bulk where they go),
    /// 5,000 (pools appended whole) and 1,000 (entry by entry): afterwards every id names its
    /// node, under its parent, with its title and data; a body naming a taken id is still
    /// refused.
    @Test(arguments: [Rows.Format.csv, .ndjson])
    func largeFragmentsIndexTheirIDsWhereTheyGo(format: Rows.Format) throws {
        let existing = (0 ..< 3_000).map { #"{"id":"s\#($0)","title":"S\#($0)"}"# }.joined(separator: ",")
        var store = TreeStore(forest: try Rows.forest(json: "[\(existing)]"))
        for i in stride(from: 0, to: 3_000, by: 3) {
            _ = store.delete(try #require(store.forest.node(withID: "s\(i)")), nil)
        }
        let count = 76_000
        /// The first row of each fragment goes under a kept session node, the others under
        /// earlier rows of their fragment.
        func parent(_ i: Int) -> String {
            let first = i < 66_000 ? 0 : i < 71_000 ? 66_000 : i - i % 1_000
            if i == first { return "s\(first / 1_000 * 3 + 1)" }
            return "r\(i % 7 == 0 ? first + (i - first) / 7 : i - 1)"
        }
        func data(_ i: Int) -> String? { i % 3 == 0 ? #"{"n":\#(i)}"# : nil }
        var body = format == .csv ? "id,parentId,title,data\n" : ""
        for i in 0 ..< count {
            switch format {
            case .csv:
                body += "r\(i),\(parent(i)),R\(i),\(data(i).map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" } ?? "")\n"
            case .ndjson:
                body += #"{"id":"r\#(i)","parentId":"\#(parent(i))","title":"R\#(i)""# + (data(i).map { #","data":\#($0)"# } ?? "") + "}\n"
            }
        }
        let groups = try Rows.fragments(body, format, store: store).get()
        #expect(groups.map(\.fragment.count) == [66_000, 5_000] + Array(repeating: 1_000, count: 5))
        for group in groups {
            _ = try store.insert(group.fragment, .child(of: group.parent, index: nil), nil)
        }
        store.forest.checkInvariants()
        #expect(store.forest.count == 2_000 + count)
        let forest = store.forest
        for i in 0 ..< count {
            guard let node = forest.node(withID: "r\(i)") else {
                Issue.record("no node has the id r\(i)")
                continue
            }
            #expect(forest.title(of: node) == "R\(i)")
            #expect(forest.parent(of: node).map { forest.id(of: $0).description } == parent(i))
            #expect(forest.data(of: node).map { String(decoding: $0, as: UTF8.self) } == data(i))
        }
        for i in 0 ..< 3_000 {
            #expect((forest.node(withID: "s\(i)") == nil) == (i % 3 == 0), "s\(i)")
        }
        let taken = Rows.fragments(format == .csv ? "id,parentId,title\nnew,,N\nr123,,again\n" : "{\"id\":\"new\",\"title\":\"N\"}\n{\"id\":\"r123\",\"title\":\"again\"}\n",
                                   format, store: store).failure
        #expect(taken?.kind == .rule)
        #expect(taken?.line == (format == .csv ? 3 : 2))
    }
}
