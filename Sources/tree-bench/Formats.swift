// The import formats (`--formats`), in the same run as the nested JSON parse:
//
//   parseCSV, parseNDJSON  the tree as adjacency rows, as a database table exports it: ids
//                          1…n in pre-order, parentId, title (parents before children)
//   parseCSVByLevel        the same CSV rows ordered by level (as a table whose ids were
//                          given breadth-first): parents first, but not in pre-order
//   parseCSVExport         the CSV that GET /tree exports for the data set uploaded as
//                          nested JSON without ids: its nodes named by their slots, `~N`
//   insertCSV, insertNDJSON  the rows of parseCSV and parseNDJSON inserted into a session of
//                          one node (POST /sessions/{sid}/items): read, then inserted
//   parsePaths             one line per node with the node's path of titles (as `find`
//                          lists a directory tree)
//   parseDocument          a JSON document of records of about 300 MB (the size does not
//                          follow the data set): every member and element becomes a node
//   snapshotDocument       the snapshot image of that document's session written (to a sink
//                          that drops it: the image's own work, its 19.3M ids and data, no disk)
//
// TREE_BENCH_FORMATS=parseCSV,parseDocument (say) runs only those. Each reports mb_per_s, vs_parse (its MB/s over the nested JSON parse's) and the resident
// bytes per node of the forest it builds beside the same forest built from nested JSON (its
// own export, ids included): memory_vs_nested is their ratio; memory_restored_vs_nested the
// same for the stores loaded from their snapshot images (after a restart). TREE_BENCH_MEMORY=0 leaves
// the memory out (about a minute an op at 7.2M: for A/B runs and profiles of the parse alone).
import Foundation
import TreeEngine
import TreeFormats
import TreeProcess
#if canImport(TreeStorage)
import TreeStorage
#endif

/// The data set as CSV rows `id,parentId,title` (ids 1…n in pre-order).
func menuItemsCSV(_ d: Dataset) -> [UInt8] {
    menuItemsRows(d, header: "id,parentId,title\n") { out, id, parent, title in
        out += Array("\(id),\(parent.map(String.init) ?? ""),\"\(title)\"\n".utf8)
    }
}

/// The CSV rows of `menuItemsCSV` (header first) ordered by level, keeping their order
/// within a level.
func menuItemsCSVByLevel(_ d: Dataset) -> [UInt8] {
    var rows: [[UInt8]] = Array(repeating: [], count: d.nestLevel)
    var levelOf: [Int] = [-1]  // by id; ids are 1, 2, … in the order the rows come
    _ = menuItemsRows(d, header: "") { _, id, parent, title in
        let level = parent.map { levelOf[$0] + 1 } ?? 0
        levelOf.append(level)
        rows[level] += Array("\(id),\(parent.map(String.init) ?? ""),\"\(title)\"\n".utf8)
    }
    var out = Array("id,parentId,title\n".utf8)
    for level in rows { out += level }
    return out
}

/// The data set as NDJSON rows `{"id":N,"parentId":P|null,"title":"…"}`.
func menuItemsNDJSON(_ d: Dataset) -> [UInt8] {
    menuItemsRows(d, header: "") { out, id, parent, title in
        out += Array("{\"id\":\(id),\"parentId\":\(parent.map(String.init) ?? "null"),\"title\":\"\(title)\"}\n".utf8)
    }
}

/// Walks the data set's tree in pre-order, numbering nodes from 1.
func menuItemsRows(_ d: Dataset, header: String, _ row: (inout [UInt8], Int, Int?, String) -> Void) -> [UInt8] {
    var out = Array(header.utf8)
    out.reserveCapacity(60 * Int(pow(Double(d.itemsInSection), Double(d.nestLevel))))
    var next = 1
    // (level, parent id, next item) frames instead of recursion.
    var stack: [(level: Int, parent: Int?, item: Int)] = [(0, nil, 1)]
    while let top = stack.popLast() {
        guard top.level < d.nestLevel, top.item <= d.itemsInSection else { continue }
        stack.append((top.level, top.parent, top.item + 1))
        let id = next
        next += 1
        row(&out, id, top.parent, "Level \(top.level), item: \(top.item)")
        stack.append((top.level + 1, id, 1))
    }
    return out
}

/// The data set as a path list: every node's path of titles, in pre-order.
func menuItemsPaths(_ d: Dataset) -> [UInt8] {
    var out: [UInt8] = []
    var path: [[UInt8]] = []
    var stack: [(level: Int, item: Int)] = [(0, 1)]
    while let top = stack.popLast() {
        guard top.level < d.nestLevel, top.item <= d.itemsInSection else { continue }
        stack.append((top.level, top.item + 1))
        path.removeLast(path.count - top.level)
        path.append(Array("Level \(top.level), item: \(top.item)".utf8))
        for (k, name) in path.enumerated() {
            if k > 0 { out.append(UInt8(ascii: "/")) }
            out += name
        }
        out.append(UInt8(ascii: "\n"))
        stack.append((top.level + 1, 1))
    }
    return out
}

/// The data set's forest (uploaded as nested JSON, without ids) exported as CSV.
func csvExport(_ d: Dataset) -> [UInt8] {
    var out: [UInt8] = []
    try! Forest.parse(menuItemsJSON(d)).forest.exportCSV { out += $0 }
    return out
}

/// A JSON document of about `megabytes` MB: `{"catalog":{"name":…,"records":[…]}}`, records
/// with numbers, strings, a boolean, a null, a nested object and an array.
func recordsDocument(megabytes: Int) -> [UInt8] {
    var out = Array("{\"catalog\":{\"name\":\"generated records\",\"version\":3,\"records\":[".utf8)
    out.reserveCapacity(megabytes * 1_000_000 + 4096)
    var k = 0
    while out.count < megabytes * 1_000_000 {
        if k > 0 { out.append(UInt8(ascii: ",")) }
        out += Array(("{\"id\":\(k),\"name\":\"Level \(k % 14), item: \(k % 3 + 1)\",\"price\":\(k % 1000).\(k % 100),"
            + "\"active\":\(k % 2 == 0),\"note\":null,\"description\":\"A generated record of the benchmark catalog, number \(k)\","
            + "\"tags\":[\"red\",\"blue\"],\"size\":{\"w\":\(k % 50),\"h\":\(k % 70)}}").utf8)
        k += 1
    }
    out += Array("]}}".utf8)
    return out
}

/// Resident bytes per node of the forest `build` makes, measured in this process with
/// freed pages given back before the build and after it (as the service does after a large
/// import: what the reader held beside the forest is then gone); the forest is returned for
/// the next step.
func residentPerNode(_ build: () -> Forest) -> (Forest, Double) {
    ProcessMemory.returnFreedMemory()
    let before = residentBytes()
    let forest = build()
    ProcessMemory.returnFreedMemory()
    return (forest, Double(residentBytes() - before) / Double(max(1, forest.count)))
}

#if canImport(TreeStorage)
/// Resident bytes per node of the store loaded from the snapshot image of `forest` (as a
/// restart loads a session), measured as `residentPerNode` does.
func restoredPerNode(_ forest: Forest) -> Double {
    let image = StoreImage.image(of: TreeStore(forest: forest))
    var store: TreeStore? = nil
    let (loaded, perNode) = residentPerNode {
        store = load(image)
        return store!.forest
    }
    return withExtendedLifetime((loaded, store)) { perNode }
}
#endif

@MainActor func measureFormats(_ d: Dataset, parseMedian: Double, nestedBytes: Int, runs: Int) {
    let nestedRate = Double(nestedBytes) / 1e6 / parseMedian
    // TREE_BENCH_FORMATS=parseCSV,parsePaths runs only those.
    let only = ProcessInfo.processInfo.environment["TREE_BENCH_FORMATS"].map { Set($0.split(separator: ",").map(String.init)) }
    let withMemory = ProcessInfo.processInfo.environment["TREE_BENCH_MEMORY"] != "0"
    func measure(_ op: String, _ input: @autoclosure () -> [UInt8], _ parse: (UnsafeRawBufferPointer) throws -> Forest) {
        if let only, !only.contains(op) { return }
        let input = input()
        var extra: [String: Double] = [:]
        var nodes = 0
        if withMemory {
            // Memory first, in a process whose allocator has given back what it could.
            let (built, perNode) = input.withUnsafeBytes { raw in residentPerNode { try! parse(raw) } }
            nodes = built.count
            var nested: [UInt8] = []
            built.export { nested += $0 }
            let viaNested: Double = withExtendedLifetime(built) {
                let (forest, perNode) = nested.withUnsafeBytes { raw in residentPerNode { try! Forest.parse(raw).forest } }
                return withExtendedLifetime(forest) { perNode }
            }
            extra = ["bytes_per_node": perNode, "bytes_per_node_nested": viaNested, "memory_vs_nested": perNode / viaNested]
            #if canImport(TreeStorage)
            // After a restart: the store loaded from each forest's snapshot image.
            let restored = restoredPerNode(built), restoredNested = restoredPerNode(nested.withUnsafeBytes { try! Forest.parse($0).forest })
            extra["memory_restored_vs_nested"] = restored / restoredNested
            #endif
        }
        let samples = (0 ..< runs).map { _ in
            input.withUnsafeBytes { raw in seconds { nodes = try! parse(raw).count } }
        }
        let rate = Double(input.count) / 1e6 / median(samples)
        extra.merge(["mb": Double(input.count) / 1e6, "mb_per_s": rate, "vs_parse": rate / nestedRate]) { $1 }
        report(d, nodes: nodes, op: op, samples: samples, extra: extra)
    }
    measure("parseCSV", menuItemsCSV(d)) { try Forest.parseCSV($0) }
    /// Rows inserted into a session of one node (`POST /sessions/{sid}/items`): read as
    /// fragments, then inserted.
    func insert(_ parse: @escaping (TreeStore, UnsafeRawBufferPointer) throws -> [FragmentGroup]) -> (UnsafeRawBufferPointer) throws -> Forest {
        { raw in
            let session = Array("id,parentId,title\nx,,X\n".utf8)
            var store = TreeStore(forest: try session.withUnsafeBytes { try Forest.parseCSV($0) })
            for group in try parse(store, raw) {
                _ = try store.insert(group.fragment, .child(of: group.parent, index: nil), nil)
            }
            return store.forest
        }
    }
    measure("insertCSV", menuItemsCSV(d), insert { try $0.parseCSVFragments($1, limits: ForestLimits()) })
    measure("insertNDJSON", menuItemsNDJSON(d), insert { try $0.parseNDJSONFragments($1, limits: ForestLimits()) })
    measure("parseCSVByLevel", menuItemsCSVByLevel(d)) { try Forest.parseCSV($0) }
    measure("parseCSVExport", csvExport(d)) { try Forest.parseCSV($0) }
    measure("parseNDJSON", menuItemsNDJSON(d)) { try Forest.parseNDJSON($0) }
    measure("parsePaths", menuItemsPaths(d)) { try Forest.parsePaths($0) }
    lazy var document = recordsDocument(megabytes: 300)  // made once, for the ops that want it
    measure("parseDocument", document) { try Forest.parseDocument($0) }
    #if canImport(TreeStorage)
    if only?.contains("snapshotDocument") ?? true {
        let store = TreeStore(forest: document.withUnsafeBytes { try! Forest.parseDocument($0) })
        var size = 0
        let samples = (0 ..< runs).map { _ in seconds { size = try! StoreImage.write(store) { _ in } } }
        report(d, nodes: store.forest.count, op: "snapshotDocument", samples: samples,
               extra: ["mb": Double(size) / 1e6, "mb_per_s": Double(size) / 1e6 / median(samples)])
    }
    #endif
}
