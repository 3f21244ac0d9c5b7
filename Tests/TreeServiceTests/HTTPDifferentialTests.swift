import Foundation
import HTTPTestSupport
import Testing
import TreeEngine
import TreeFormats
@testable import TreeReference
@testable import TreeService

/// Random sessions driven over a real socket, every page compared with the naive
/// reference model: the service end to end (HTTP, JSON in and out, routing, views).
@Suite struct HTTPDifferentialTests {
    static let seeds = Int(ProcessInfo.processInfo.environment["HTTP_MODEL_SEEDS"] ?? "") ?? 40
    /// `HTTP_MODEL_SEED=S` replays one seed.
    static let only = UInt64(ProcessInfo.processInfo.environment["HTTP_MODEL_SEED"] ?? "")

    /// The time limit grows with `HTTP_MODEL_SEEDS` (a minute per 100 seeds; the 40 take seconds).
    @Test(.timeLimit(.minutes(HTTPDifferentialTests.seeds / 100 + 1)))
    func randomSessionsMatchTheReference() throws {
        try withServiceServer { _, port in
            let client = try HTTPTestClient(port: port)
            for seed in Self.only.map({ [$0] }) ?? Array(1 ... UInt64(Self.seeds)) {
                var run = try DifferentialRun(seed: seed, client: client)
                do {
                    try run.play(steps: 40)
                } catch {
                    Issue.record("seed \(seed): \(error)\nsteps:\n\(run.log.joined(separator: "\n"))")
                    return
                }
                if !run.problems.isEmpty {
                    Issue.record("seed \(seed): \(run.problems.prefix(5).joined(separator: "\n"))\nsteps:\n\(run.log.joined(separator: "\n"))")
                    return
                }
            }
        }
    }
}

/// One seeded session: the service over HTTP and the reference side by side.
struct DifferentialRun {
    var rng: SeededRandom
    /// A new one after the server restarts (RestartTests); or the service in process (EventStreamTests).
    var client: any HTTPRequestSending
    let sid: String
    let reference: ReferenceForest
    var filters: [FilterQuery] = []
    var used = Set<String>()
    var problems: [String] = []
    var log: [String] = []
    var nextID = 0

    /// `filterCount` filters are named at random: more than the 4 views a session keeps
    /// makes views dropped and built again.
    init(seed: UInt64, client: any HTTPRequestSending, filterCount: Int = 2) throws {
        rng = SeededRandom(seed: seed)
        self.client = client
        let generated = RandomTrees.forest(&rng, nodes: rng.int(0 ... 60), used: &used, extraTilde: -1)
        let created = try client.request("POST", "/sessions", json: Array(RandomTrees.json(generated, &rng).utf8))
        guard created.status == 201, let id = (try? JSONValue.parse(created.body))?["id"]?.stringValue else {
            throw HTTPTestClient.Failure(description: "seed \(seed): create answered \(created.status) \(created.text)")
        }
        sid = id
        reference = ReferenceForest(roots: generated.map { $0.refNode(parent: nil) }, capacity: 4)
        // Learn the generated ids from the export: it lists every node in pre-order.
        let tree = try JSONValue.parse(try client.request("GET", "/sessions/\(sid)/tree").body)
        var exported: [String] = []
        func collect(_ nodes: JSONValue?) {
            for node in nodes?.array ?? [] {
                exported.append(node["id"]!.intValue.map(String.init) ?? node["id"]!.stringValue!)
                collect(node["children"])
            }
        }
        collect(tree["nodes"])
        for (node, id) in zip(reference.allNodes, exported) where node.id == nil { node.id = .string(id) }
        let titles = reference.allNodes.map(\.title).filter { !$0.isEmpty }
        for _ in 0 ..< filterCount {
            var text = titles.isEmpty ? "a" : rng.pick(titles)
            if text.count > 1 && rng.chance(0.6) { text = String(text.prefix(rng.int(1 ... text.count))) }
            if rng.chance(0.3) { text = text.uppercased() }
            let mode = rng.pick(FilterQuery.Mode.allCases)
            RandomTrees.vary(&text, mode: mode, &rng)
            if text.isEmpty { text = "a" }
            filters.append(FilterQuery(text, mode: mode, caseSensitive: rng.chance(0.3), diacriticInsensitive: rng.chance(0.4),
                                       leavesOnly: rng.chance(0.25)))
        }
        // A filter on data fields (issue 37) in place of the last.
        if filterCount > 1 && rng.chance(0.5) { filters[filterCount - 1] = RandomTrees.fieldFilter(&rng) }
    }

    func query(_ filter: FilterQuery?, first: Bool = true) -> String {
        guard let filter else { return "" }
        return (first ? "?" : "&") + DifferentialRun.parameters(filter)
    }

    /// The query parameters naming `filter`'s view (defaults sometimes left out).
    static func parameters(_ filter: FilterQuery) -> String {
        var out = "filter=\(PathSegment.encode(filter.text))&match=\(filter.mode.rawValue)&caseSensitive=\(filter.caseSensitive)"
        if filter.diacriticInsensitive || filter.text.utf8.count % 2 == 0 {
            out += "&diacritics=\(filter.diacriticInsensitive ? "insensitive" : "sensitive")"
        }
        if filter.leavesOnly || filter.text.utf8.count % 3 == 0 { out += "&leavesOnly=\(filter.leavesOnly)" }
        if filter.fields != [.title] { out += "&fields=" + PathSegment.encode(filter.fields.map(\.description).joined(separator: ",")) }
        if !filter.conditions.isEmpty { out += "&where=" + PathSegment.encode(FieldSyntax.text(of: filter.conditions)) }
        return out
    }

    func itemPath(_ node: RefNode, _ filter: FilterQuery?) -> String {
        "/sessions/\(sid)/items/\(PathSegment.encode(node.key))\(query(filter))"
    }

    mutating func problem(_ text: String) { problems.append(text) }

    /// Runs `steps` random requests, each checked against the reference; `afterStep` runs after each.
    mutating func play(steps: Int, afterStep: (Int) throws -> Void = { _ in }) throws {
        for step in 0 ..< steps where problems.isEmpty {
            let filter: FilterQuery? = rng.chance(0.5) ? nil : rng.pick(filters)
            let old = reference.rows(filter).map(\.key)
            let nodes = reference.allNodes
            let reply: HTTPTestResponse
            var expectChange = true
            switch rng.int(0 ... 10) {
            case 0, 1, 2:
                guard let node = nodes.randomElement(using: &rng) else { continue }
                let value = rng.chance(0.5), recursive = rng.chance(0.2)
                log.append("\(step): expand \(node.key)=\(value) recursive=\(recursive) in \(filter?.description ?? "unfiltered")")
                reply = try client.request("PATCH", itemPath(node, filter), json: Array("{\"expanded\":\(value),\"recursive\":\(recursive)}".utf8))
                reference.setExpanded(node, value, recursive: recursive, filter)
            case 3:
                guard let node = nodes.randomElement(using: &rng) else { continue }
                log.append("\(step): reveal \(node.key) in \(filter?.description ?? "unfiltered")")
                reply = try client.request("PATCH", itemPath(node, filter), json: Array("{\"reveal\":true}".utf8))
                reference.reveal(node, filter)
            case 4:
                let depth = rng.chance(0.3) ? nil : rng.int(0 ... 4)
                let collapse = depth == nil && rng.chance(0.5)
                let body = collapse ? "{\"collapseAll\":true}" : depth.map { "{\"expandDepth\":\($0)}" } ?? "{\"expandAll\":true}"
                log.append("\(step): \(body) in \(filter?.description ?? "unfiltered")")
                reply = try client.request("PATCH", "/sessions/\(sid)\(query(filter))", json: Array(body.utf8))
                if collapse { reference.collapseAll(filter) } else { reference.expand(toDepth: depth, filter) }
            case 5, 6:
                reply = try insert(filter, nodes, step)
            case 7:
                guard let node = nodes.randomElement(using: &rng) else { continue }
                log.append("\(step): delete \(node.key) in \(filter?.description ?? "unfiltered")")
                reply = try client.request("DELETE", itemPath(node, filter))
                reference.delete(node)
                reference.editDone(filter)
            case 8:
                guard let node = nodes.randomElement(using: &rng) else { continue }
                let parent = rng.chance(0.2) ? nil : nodes.randomElement(using: &rng)
                let index: Int? = rng.chance(0.3) ? nil : rng.int(0 ... 3)
                let parentJSON = parent.map { "\"\(jsonEscaped($0.key))\"" } ?? "null"
                let body = "{\"parentId\":\(parentJSON)" + (index.map { ",\"index\":\($0)" } ?? "") + "}"
                log.append("\(step): move \(node.key) \(body) in \(filter?.description ?? "unfiltered")")
                reply = try client.request("PATCH", itemPath(node, filter), json: Array(body.utf8))
                // A refused move has named its view all the same (built it when not kept, made
                // it the most recently used), as a read would.
                switch reference.move(node, to: parent, index: index) {
                case .cycle?: expectChange = false; reference.use(filter); if reply.status != 409 { problem("step \(step): move into own subtree answered \(reply.status)") }
                case .indexOutOfRange?: expectChange = false; reference.use(filter); if reply.status != 422 { problem("step \(step): bad index answered \(reply.status)") }
                case nil: reference.editDone(filter)
                }
            case 10:
                guard let (body, path) = select(filter, nodes, step) else { continue }
                reply = try client.request("PATCH", path, json: Array(body.utf8))
            default:
                guard let node = nodes.randomElement(using: &rng) else { continue }
                let title = RandomTrees.title(&rng)
                log.append("\(step): title of \(node.key) = \(title.debugDescription) in \(filter?.description ?? "unfiltered")")
                reply = try client.request("PATCH", itemPath(node, filter), json: Array("{\"title\":\"\(jsonEscaped(title))\"}".utf8))
                node.title = title
                reference.editDone(filter)
            }
            if expectChange {
                guard reply.status == 200 || reply.status == 201 else {
                    problem("step \(step): answered \(reply.status) \(reply.text)")
                    return
                }
                try checkChanges(reply, old: old, filter, step)
            }
            try checkRows(filter, step)
            if filter != nil { try checkRows(nil, step) }
            try checkChildren(filter, step)
            try afterStep(step)
        }
    }

    /// A random change of the default view's selection, told to the reference: its body
    /// and path, nil when there is no node.
    mutating func select(_ filter: FilterQuery?, _ nodes: [RefNode], _ step: Int) -> (body: String, path: String)? {
        guard let node = nodes.randomElement(using: &rng) else { return nil }
        let value = rng.chance(0.6), recursive = rng.chance(0.7)
        let ref = ViewRef(nil, filter: filter)
        reference.use(filter)
        let body: String
        switch rng.int(0 ... 9) {
        case 0 ... 4:
            body = "{\"selected\":\(value),\"recursive\":\(recursive)}"
            log.append("\(step): \(body) of \(node.key) in \(filter?.description ?? "unfiltered")")
            reference.setSelected(node, value, recursive: recursive, in: nil)
            return (body, itemPath(node, filter))
        case 5 ... 7:
            let rows = reference.rows(filter).count
            let offset = rng.int(0 ... rows), count = rng.int(1 ... 6)
            body = "{\"selectRows\":{\"offset\":\(offset),\"count\":\(count),\"selected\":\(value),\"recursive\":\(recursive)}}"
            reference.selectRows(ref, offset: offset, count: count, value, recursive: recursive)
        case 8:
            body = "{\"invertSelection\":true}"
            reference.invertSelection(ref)
        default:
            body = value ? "{\"selectAll\":true}" : "{\"selectNone\":true}"
            if value { reference.selectAll(ref) } else { reference.selectNone(in: nil) }
        }
        log.append("\(step): \(body) in \(filter?.description ?? "unfiltered")")
        return (body, "/sessions/\(sid)\(query(filter))")
    }

    mutating func insert(_ filter: FilterQuery?, _ nodes: [RefNode], _ step: Int) throws -> HTTPTestResponse {
        var fragment = RandomTrees.forest(&rng, nodes: rng.int(0 ... 4), used: &used, extraTilde: -1)
        // Nested nodes need an id we know; top-level ones may be generated (the response lists them).
        func name(_ g: inout GenNode) {
            for i in g.children.indices {
                if g.children[i].id == nil { nextID += 1; g.children[i].id = .string("ins\(nextID)") }
                name(&g.children[i])
            }
        }
        for i in fragment.indices { name(&fragment[i]) }
        let document = try JSONValue.parse(RandomTrees.json(fragment, &rng))
        var body = "{\"nodes\":" + String(decoding: (document["nodes"] ?? document).serialize(), as: UTF8.self)
        let refs = fragment.map { $0.refNode(parent: nil) }
        let target = nodes.randomElement(using: &rng)
        var placement = ""
        switch (target, rng.int(0 ... 2)) {
        case (let t?, 0): placement = ",\"before\":\"\(jsonEscaped(t.key))\""; reference.insert(refs, before: t)
        case (let t?, 1): placement = ",\"after\":\"\(jsonEscaped(t.key))\""; reference.insert(refs, after: t)
        default:
            let parent = rng.chance(0.3) ? nil : target
            let count = reference.siblings(of: parent).count
            let index = rng.chance(0.3) ? nil : rng.int(0 ... count)
            placement = ",\"parentId\":" + (parent.map { "\"\(jsonEscaped($0.key))\"" } ?? "null") + (index.map { ",\"index\":\($0)" } ?? "")
            _ = reference.insert(refs, parent: parent, index: index)
        }
        body += placement + "}"
        log.append("\(step): insert \(body) in \(filter?.description ?? "unfiltered")")
        let reply = try client.request("POST", "/sessions/\(sid)/items\(query(filter))", json: Array(body.utf8))
        if let ids = (try? JSONValue.parse(reply.body))?["ids"]?.array {
            for (node, id) in zip(refs, ids) where node.id == nil { node.id = .string(id.stringValue ?? "?") }
        }
        reference.takeParentStates(refs)
        reference.editDone(filter)
        return reply
    }

    func jsonEscaped(_ s: String) -> String {
        var w = JSONWriter()
        w.string(s)
        return String(decoding: w.bytes.dropFirst().dropLast(), as: UTF8.self)
    }

    mutating func checkChanges(_ reply: HTTPTestResponse, old: [RefKey], _ filter: FilterQuery?, _ step: Int) throws {
        let json = try JSONValue.parse(reply.body)
        var keys = old
        for change in json["changes"]?.array ?? [] {
            let index = change["index"]!.intValue!, removed = change["removed"]!.intValue!, inserted = change["inserted"]!.intValue!
            guard index >= 0, removed >= 0, inserted >= 0, index + removed <= keys.count else {
                problem("step \(step): splice \(change) out of range for \(keys.count) rows")
                return
            }
            keys.replaceSubrange(index ..< index + removed, with: repeatElement(RefKey(id: "?", level: -1), count: inserted))
        }
        let new = reference.rows(filter).map(\.key)
        let comparable = zip(keys, new).allSatisfy { $0.level == -1 || $0 == $1 }
        if keys.count != new.count || !comparable {
            problem("step \(step): splices \(json["changes"]!) do not turn \(old) into \(new)")
        }
        if json["total"]?.intValue != new.count { problem("step \(step): total \(json["total"]!) != \(new.count)") }
    }

    /// A page of the children of a random node (or of the roots) in the rows `filter` names
    /// (read after `checkRows`, so they are kept): ids, total, and each child's place, row,
    /// expansion and own children.
    mutating func checkChildren(_ filter: FilterQuery?, _ step: Int) throws {
        let nodes = reference.allNodes
        let parent = nodes.isEmpty || rng.chance(0.2) ? nil : rng.pick(nodes)
        let ref = ViewRef(nil, filter: filter)
        // Sometimes sorted (issue 37).
        let sort = rng.chance(0.4) ? RandomTrees.sortKeys(&rng) : nil
        var expected = reference.children(of: parent, ref)
        if let sort { expected = ReferenceForest.sorted(expected, sort) }
        let offset = rng.int(0 ... expected.count), limit = rng.int(1 ... 5)
        let path = parent.map { "/sessions/\(sid)/items/\(PathSegment.encode($0.key))/children" } ?? "/sessions/\(sid)/children"
        let page = try JSONValue.parse(try client.request("GET", path + query(filter) + (filter == nil ? "?" : "&") + "offset=\(offset)&limit=\(limit)"
                                                          + (sort.map { "&sort=" + PathSegment.encode($0.description) } ?? "")).body)
        let slice = Array(expected.dropFirst(offset).prefix(limit))
        let rows = reference.rows(filter)
        func id(_ value: JSONValue?) -> String? { value?.intValue.map(String.init) ?? value?.stringValue }
        let got = (page["children"]?.array ?? []).map { id($0["id"]) ?? "?" }
        if page["total"]?.intValue != expected.count || got != slice.map(\.key) {
            problem("step \(step): children of \(parent?.key ?? "the roots") \(offset)+\(limit) in \(filter?.description ?? "unfiltered") by \(sort?.description ?? "tree order"): "
                    + "\(page["total"] ?? .null) \(got), want \(expected.count) \(slice.map(\.key))")
            return
        }
        for (k, (child, node)) in zip(page["children"]?.array ?? [], slice).enumerated() {
            let want = (offset + k, rows.firstIndex { $0.id == node.key }, reference.isExpanded(node, filter),
                        reference.children(of: node, ref).count)
            let have = (child["position"]?.intValue, child["index"]?.intValue, child["expanded"]?.boolValue, child["childCount"]?.intValue)
            if have.0 != want.0 || have.1 != want.1 || have.2 != want.2 || have.3 != want.3 {
                problem("step \(step): child \(node.key): position, index, expanded, childCount \(have), want \(want)")
            }
        }
    }

    mutating func checkRows(_ filter: FilterQuery?, _ step: Int) throws {
        // A read names a kept view without using it (it runs beside other readers, so it
        // moves nothing); a view that is not kept is built, which is a use.
        if let filter, !reference.isKept(filter) { reference.use(filter) }
        // Sometimes with aggregates of each row's descendants (issue 37).
        let aggregate = rng.chance(0.3) ? rng.pick(["count", "sum:data.size", "min:data.size,max:data.o.n", "avg:data.size,count,sum:data.name"]) : nil
        let reply = try client.request("GET", "/sessions/\(sid)/rows\(query(filter))\(filter == nil ? "?" : "&")limit=1000"
                                       + (aggregate.map { "&aggregate=" + PathSegment.encode($0) } ?? ""))
        let page = try JSONValue.parse(reply.body)
        let expected = reference.rows(filter)
        let rows = page["rows"]?.array ?? []
        if let aggregate {
            for (row, ref) in zip(rows, reference.allNodesVisible(expected)) {
                let below = Array(ref.subtree.dropFirst())
                for item in aggregate.split(separator: ",") {
                    let parts = item.split(separator: ":", maxSplits: 1)
                    let got = row["aggregates"]?[String(item)]
                    if parts.count == 1 {
                        if got?.intValue != below.count { problem("step \(step): count of \(ref.key) \(got ?? .null), want \(below.count)") }
                        continue
                    }
                    let path = FieldPath(parts[1].dropFirst("data.".count).split(separator: ".").map(String.init))
                    let want = ReferenceForest.aggregate(below, .field(path))
                    let value: Double? = switch parts[0] {
                    case "sum": want.sum
                    case "min": want.count > 0 ? want.minimum : nil
                    case "max": want.count > 0 ? want.maximum : nil
                    default: want.count > 0 ? want.sum / Double(want.count) : nil
                    }
                    let gotCount: Int? = got?["count"]?.intValue
                    let gotValue: Double? = got?["value"]?.doubleValue
                    if gotCount != want.count || gotValue != value {
                        problem("step \(step): \(item) of \(ref.key) \(String(describing: got)), want \(String(describing: value)) of \(want.count)")
                    }
                }
            }
        }
        let got = rows.map { row in
            RefRow(id: row["id"]!.intValue.map(String.init) ?? row["id"]!.stringValue!, level: row["level"]!.intValue!,
                   expanded: row["expanded"]!.boolValue!, hasChildren: row["hasChildren"]!.boolValue!,
                   parentID: row["parentId"]!.isNull ? nil : (row["parentId"]!.intValue.map(String.init) ?? row["parentId"]!.stringValue!),
                   isMatch: row["match"]?.boolValue ?? false)
        }
        if got != expected {
            problem("step \(step): rows of \(filter?.description ?? "unfiltered")\n got      \(got)\n expected \(expected)")
        }
        if page["total"]?.intValue != expected.count { problem("step \(step): total \(page["total"]!) != \(expected.count)") }
        for (row, ref) in zip(rows, reference.allNodesVisible(expected)) {
            let below = ref.subtree.dropFirst().filter { reference.isSelected($0, in: nil) }.count
            if (row["selected"]?.boolValue ?? false) != reference.isSelected(ref, in: nil)
                || !ref.children.isEmpty && (row["selectedBelow"]?.intValue ?? 0) != below {
                problem("step \(step): selection of \(ref.key): \(row["selected"] ?? .null), \(row["selectedBelow"] ?? .null) below; want \(reference.isSelected(ref, in: nil)), \(below)")
            }
        }
        if let filter, page["matchCount"]?.intValue != reference.matchCount(filter) {
            problem("step \(step): matchCount \(page["matchCount"]!) != \(reference.matchCount(filter))")
        }
        if let filter {
            let query = RefQuery(filter)
            for (row, ref) in zip(rows, reference.allNodesVisible(expected)) {
                var below: [RefNode] = []
                for child in ref.children { child.appendSubtree(to: &below) }
                let count = below.filter { ReferenceForest.matches($0, query) }.count
                if row["matchesBelow"]?.intValue != count {
                    problem("step \(step): matchesBelow of \(ref.key) \(row["matchesBelow"] ?? .null) != \(count)")
                }
            }
            for (row, ref) in zip(rows, reference.allNodesVisible(expected)) where !filter.text.isEmpty && filter.fields != [.title] {
                let got = row["matchedFields"]?.array?.compactMap(\.stringValue)
                let want = row["match"]?.boolValue == true
                    ? filter.fields.filter { ReferenceForest.textMatches(ref.folding, ref.data, $0, query) }.map(\.description) : []
                if got != want { problem("step \(step): matchedFields of \(ref.key) \(got ?? []), want \(want)") }
            }
            for (row, ref) in zip(rows, reference.allNodesVisible(expected)) where row["match"]?.boolValue == true {
                let ranges = (row["matchRanges"]?.array ?? []).map { $0.array!.map { $0.intValue! } }
                if let want = ReferenceForest.matchRanges(title: ref.title, filter), ranges != want {
                    problem("step \(step): matchRanges of \(ref.key) \(ranges), want \(want)")
                }
                let score = row["score"]?.intValue
                switch ReferenceForest.fuzzyScore(title: ref.title, filter) {
                case nil: if row["score"] != nil || (filter.mode == .fuzzy && filter.isTitleOnly) { problem("step \(step): score of \(ref.key) \(score.map(String.init) ?? "none"), want none") }
                case let want??: if score != want { problem("step \(step): score of \(ref.key) \(score.map(String.init) ?? "none"), want \(want)") }
                case .some(nil): if score == nil { problem("step \(step): no score for \(ref.key)") }
                }
            }
        }
    }
}

extension ReferenceForest {
    /// The nodes of the given rows, in order.
    func allNodesVisible(_ rows: [RefRow]) -> [RefNode] {
        let byID = Dictionary(allNodes.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        return rows.map { byID[$0.id]! }
    }
}
