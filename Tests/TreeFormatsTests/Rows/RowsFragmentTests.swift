import Testing
import TreeEngine
@testable import TreeFormats
@testable import TreeReference

/// Rows to insert into a session (`POST /sessions/{sid}/items`): the streamed path (rows in
/// pre-order under one parent, built while read) against the table, which takes any body.
struct RowsFragmentTests {
    /// The groups of `body` for `store`, as their parents' ids and their nodes, or the error.
    typealias Outcome = Result<[String], TreeInputError>

    static func describe(_ groups: [FragmentGroup], in store: TreeStore) -> [String] {
        groups.flatMap { group in
            ["under \(group.parent.map { store.forest.id(of: $0).description } ?? "-")"] + Rows.describe(group.fragment, types: true)
        }
    }

    /// Whether two outcomes are the same groups, or the same error at the same line.
    static func same(_ a: Outcome, _ b: Outcome) -> Bool {
        switch (a, b) {
        case (.success(let x), .success(let y)): x == y
        case (.failure(let x), .failure(let y)): x.kind == y.kind && x.line == y.line && x.message == y.message
        default: false
        }
    }

    /// What `parseCSVFragments` / `parseNDJSONFragments` answer.
    static func parsed(_ body: [UInt8], _ format: Rows.Format, _ store: TreeStore) -> Outcome {
        body.withUnsafeBytes { raw in
            do throws(TreeInputError) {
                let groups = format == .csv ? try store.parseCSVFragments(raw, limits: ForestLimits())
                    : try store.parseNDJSONFragments(raw, limits: ForestLimits())
                return .success(describe(groups, in: store))
            } catch {
                return .failure(error)
            }
        }
    }

    /// What the table alone answers.
    static func tabled(_ body: [UInt8], _ format: Rows.Format, _ store: TreeStore) -> Outcome {
        func build<R: RowReader>(_: R.Type, _ raw: UnsafeRawBufferPointer) throws(TreeInputError) -> [FragmentGroup] {
            var rows = try R.readTable(raw, limits: ForestLimits(), existingCount: store.forest.count)
            return try rows.table.buildFragments(target: RowTarget(store: store), locate: { [locator = rows.locator] in locator.locate($0, $1) })
                .map { FragmentGroup(parent: $0.parent?.node, fragment: $0.fragment) }
        }
        return body.withUnsafeBytes { raw in
            do throws(TreeInputError) {
                let groups = format == .csv ? try build(CSVReader.self, raw) : try build(NDJSONReader.self, raw)
                return .success(describe(groups, in: store))
            } catch {
                return .failure(error)
            }
        }
    }

    /// Whether the streamed path alone builds `body` in one part (none of its rows stopped it).
    static func streams(_ body: [UInt8], _ format: Rows.Format, _ store: TreeStore) -> Bool {
        Rows.fragmentsInParts(body, format, store: store, cuts: []) != nil
    }

    /// One row of a body: its id, its parent (nil: none; `""`: the empty id), its title.
    static func row(_ id: String, _ parent: String?, _ title: String, _ format: Rows.Format) -> String {
        switch format {
        case .csv:
            return "\(id),\(parent.map { $0.isEmpty ? "\"\"" : $0 } ?? ""),\(title)\n"
        case .ndjson:
            return "{\"id\":\"\(id)\"" + (parent.map { ",\"parentId\":\"\($0)\"" } ?? "") + ",\"title\":\"\(title)\"}\n"
        }
    }

    /// A random session, and a body for it: mostly in pre-order under one parent; when
    /// `messy` (every third seed), not always (other parents, parents later or closed,
    /// orphans, taken and repeated ids, the empty id).
    static func randomBody(seed: UInt64, _ format: Rows.Format) throws -> (store: TreeStore, body: [UInt8], messy: Bool) {
        var rng = SeededRandom(seed: seed)
        let existing = Int.random(in: 1 ... 12, using: &rng)
        let nodes = (0 ..< existing).map { i in
            #"{"id":"s\#(i)","title":"S\#(i)"\#(i > 0 && Bool.random(using: &rng) ? #","children":[{"id":"c\#(i)","title":"C"}]"# : "")}"#
        }
        let store = TreeStore(forest: try Rows.forest(json: "[\(nodes.joined(separator: ","))]"))
        let messy = seed % 3 == 0
        let home: String? = Bool.random(using: &rng) ? "s\(Int.random(in: 0 ..< existing, using: &rng))" : nil
        var body = format == .csv ? "id,parentId,title\n" : ""
        var open: [String] = []
        let count = Int.random(in: 0 ... 25, using: &rng)
        for i in 0 ..< count {
            var id = "r\(i)"
            var parent: String?
            if !open.isEmpty && Int.random(in: 0 ..< 4, using: &rng) > 0 {
                open.removeLast(Int.random(in: 0 ..< open.count, using: &rng))
                parent = open.last
            } else {
                open.removeAll()
                parent = home
            }
            if messy {
                switch Int.random(in: 0 ..< 12, using: &rng) {
                case 0: parent = "s\(Int.random(in: 0 ..< existing, using: &rng))"  // another parent
                case 1: parent = "r\(Int.random(in: 0 ... count, using: &rng))"  // closed, later or none
                case 2: parent = "zz"  // an orphan
                case 3: parent = ""  // the empty id
                case 4: id = "s\(Int.random(in: 0 ..< existing, using: &rng))"  // taken
                case 5 where i > 0: id = "r\(Int.random(in: 0 ..< i, using: &rng))"  // repeated
                case 6: id = ""
                case 7: parent = nil
                default: break
                }
            }
            if parent != nil && parent != "" && !open.isEmpty && open.last != parent { open.removeAll() }
            body += Self.row(id, parent, "T\(i)", format)
            open.append(id)
        }
        return (store, Array(body.utf8), messy)
    }

    /// Random sessions and bodies: the answer is the table's, and a clean body (in pre-order
    /// under one parent) streams.
    @Test(arguments: [Rows.Format.csv, .ndjson])
    func streamedFragmentsAreTheTables(format: Rows.Format) throws {
        var streamed = 0
        for seed in 0 ..< UInt64(Rows.seedCount) {
            let (store, bytes, messy) = try Self.randomBody(seed: seed, format)
            let expected = Self.tabled(bytes, format, store)
            let answer = Self.parsed(bytes, format, store)
            #expect(Self.same(answer, expected), "seed \(seed): \(answer) against \(expected)")
            if !messy {
                let streams = Self.streams(bytes, format, store)
                #expect(streams, "seed \(seed): a clean body in pre-order under one parent")
                streamed += 1
            }
        }
        #expect(streamed > Rows.seedCount / 2)
    }

    /// What a body read before its session is known answers once attached to `store`: the
    /// groups, nil when `attach` leaves it to a read against the store, or the body's own error.
    static func detached(_ body: [UInt8], _ format: Rows.Format, _ store: TreeStore) -> Result<[String]?, TreeInputError> {
        body.withUnsafeBytes { raw in
            do throws(TreeInputError) {
                let read = format == .csv ? try TreeStore.parseDetachedCSVFragments(raw, limits: ForestLimits())
                    : try TreeStore.parseDetachedNDJSONFragments(raw, limits: ForestLimits())
                return .success(store.attach(read, limits: ForestLimits()).map { describe($0, in: store) })
            } catch {
                return .failure(error)
            }
        }
    }

    /// Random sessions and bodies read before the session is known: attached, they are the
    /// groups a read against the session gives; `attach` refuses only what that read
    /// refuses (or, rarely, groups it cannot place one to one), and an error of the body's
    /// own is one the read against the session has too, unless that read finds one of the
    /// session's first.
    @Test(arguments: [Rows.Format.csv, .ndjson])
    func detachedFragmentsAttachAsTheStoresOwn(format: Rows.Format) throws {
        var attached = 0
        for seed in 0 ..< UInt64(Rows.seedCount) {
            let (store, bytes, _) = try Self.randomBody(seed: seed, format)
            let expected = Self.tabled(bytes, format, store)
            switch (Self.detached(bytes, format, store), expected) {
            case (.success(let groups?), _):
                #expect(Self.same(.success(groups), expected), "seed \(seed): attached \(groups) against \(expected)")
                attached += 1
            case (.success(nil), .success(let groups)):
                // Only groups that an empty parent id and the top level share are left.
                #expect(groups.filter { $0 == "under -" }.count <= 1 && bytes.count > 0, "seed \(seed): attach refused \(groups)")
            case (.success(nil), .failure):
                break
            case (.failure(let own), .failure(let error)):
                // The same error, or the session's (a taken id, a parent it lacks) found
                // first by the read against it.
                #expect(Self.same(.failure(own), .failure(error)) || error.message.contains("duplicate") || error.message.contains("names no node"),
                        "seed \(seed): \(own) against \(error)")
            case (.failure(let own), .success(let groups)):
                Issue.record("seed \(seed): detached read refused (\(own)) what the session takes: \(groups)")
            }
        }
        #expect(attached > Rows.seedCount / 3)
    }

    /// A large body is read in parts at once: at every split of random bodies into two
    /// parts, and at as many random sets of splits into three to five, a clean one joins
    /// into the table's answer; another joins only into the table's answer.
    @Test(arguments: [Rows.Format.csv, .ndjson])
    func partsJoinAsOnePass(format: Rows.Format) throws {
        var joined = 0
        for seed in 0 ..< UInt64(min(Rows.seedCount, 80)) {
            let (store, bytes, messy) = try Self.randomBody(seed: seed, format)
            let expected = Self.tabled(bytes, format, store)
            let splits = Rows.splits(bytes, format)
            var rng = SeededRandom(seed: seed &+ 19_000)
            let cuts = splits.map { [$0] } + splits.map { _ in (0 ..< rng.int(2 ... 4)).map { _ in rng.pick(splits) }.sorted() }
            for cut in cuts {
                if let groups = Rows.fragmentsInParts(bytes, format, store: store, cuts: cut) {
                    joined += 1
                    #expect(Self.same(.success(Self.describe(groups, in: store)), expected), "seed \(seed), cut near \(cut)")
                } else {
                    #expect(messy, "seed \(seed): a clean body not joined when cut near \(cut)")
                }
            }
        }
        #expect(joined > 200)
    }

    /// The second half's top-level rows: under an open node of the first half, at the
    /// fragment's top level when their parent is the fragment's, else no join.
    @Test(arguments: [Rows.Format.csv, .ndjson])
    func secondHalfParents(format: Rows.Format) throws {
        let store = TreeStore(forest: try Rows.forest(json: #"[{"id":"a","title":"A"},{"id":"b","title":"B"}]"#))
        let header = format == .csv ? "id,parentId,title\n" : ""
        for (rows, joins) in [([("x", "a"), ("y", "x"), ("z", "a")], true), ([("x", nil), ("y", "x"), ("z", nil)], true),
                              ([("x", "a"), ("y", "x"), ("z", "x")], true), ([("x", "a"), ("y", "x"), ("z", "b")], false),
                              ([("x", "a"), ("y", "x"), ("z", nil)], false), ([("x", nil), ("y", "x"), ("z", "a")], false),
                              ([("x", "a"), ("y", "a"), ("z", "x")], false)] as [([(String, String?)], Bool)] {
            let first = header + rows.dropLast().enumerated().map { Self.row($1.0, $1.1, "T\($0)", format) }.joined()
            let bytes = Array((first + Self.row(rows.last!.0, rows.last!.1, "T2", format)).utf8)
            let groups = Rows.fragmentsInParts(bytes, format, store: store, cuts: [first.utf8.count - 1])
            #expect((groups != nil) == joins, "\(rows)")
            if let groups {
                #expect(Self.same(.success(Self.describe(groups, in: store)), Self.tabled(bytes, format, store)), "\(rows)")
            }
        }
    }

    /// Each way a streamed body stops, with the table's answer.
    @Test(arguments: [Rows.Format.csv, .ndjson])
    func whatStopsTheStream(format: Rows.Format) throws {
        let store = TreeStore(forest: try Rows.forest(json: #"[{"id":"a","title":"A"},{"id":"b","title":"B"}]"#))
        let header = format == .csv ? "id,parentId,title\n" : ""
        func body(_ rows: [(String, String?)]) -> [UInt8] {
            Array((header + rows.enumerated().map { Self.row($1.0, $1.1, "T\($0)", format) }.joined()).utf8)
        }
        // Under one parent, in pre-order: streamed.
        let clean = body([("x", "a"), ("y", "x"), ("z", "a")]), top = body([("x", nil), ("y", "x"), ("z", nil)])
        let cleanStreams = Self.streams(clean, format, store), topStreams = Self.streams(top, format, store)
        let emptyStreams = Self.streams(Array(header.utf8), format, store)
        #expect(cleanStreams && topStreams && emptyStreams)
        #expect(Self.same(Self.parsed(clean, format, store), Self.tabled(clean, format, store)))
        #expect(try Self.parsed(clean, format, store).get().first == "under a")
        #expect(try Self.parsed(top, format, store).get().first == "under -")
        #expect(try Self.parsed(Array(header.utf8), format, store).get() == [])
        // Two parents, a parent closed or later, the empty id, taken and repeated ids: the table's answer.
        for rows in [[("x", "a"), ("y", "b")], [("x", "a"), ("y", nil)], [("x", "a"), ("y", "a"), ("z", "x")],
                     [("x", "a"), ("y", "z"), ("z", "a")], [("x", ""), ("y", "x")], [("x", "a"), ("a", "x")],
                     [("x", "a"), ("x", "a")], [("x", "a"), ("y", "zz")]] as [[(String, String?)]] {
            let bytes = body(rows)
            let streams = Self.streams(bytes, format, store)
            #expect(!streams, "\(rows)")
            #expect(Self.same(Self.parsed(bytes, format, store), Self.tabled(bytes, format, store)), "\(rows)")
        }
    }
}
