// Built only where the engine has TreeStorage, so that scripts/bench-engine.sh can build
// this bench against engines from before it.
#if canImport(TreeStorage)
import Foundation
import TreeEngine
import TreeStorage

/// snapshot.write and snapshot.load (issue 11): the snapshot image of `store` written
/// to memory (its size in MB), and a store loaded from it, ready to serve (its
/// unfiltered view built), next to `parse` of the same tree in the same run
/// (`vs_parse`: how many times faster the load is than the parse). The `.views4`
/// variants keep the four filtered views of the edit ops, whose matches a load computes again.
@MainActor func measureSnapshot(_ d: Dataset, nodes: Int, _ store: TreeStore, parseMedian: Double, runs: Int) {
    for withViews in [false, true] {
        var source = store
        if withViews { for f in editFilters(d) { try! source.prepareView(f) } }
        let suffix = withViews ? ".views4" : ""
        // A first image gives the size to reserve, so that the runs measure the writing.
        let size = StoreImage.image(of: source).count
        var image: [UInt8] = []
        let writes = (0 ..< runs).map { _ in
            var buffer: [UInt8] = []
            buffer.reserveCapacity(size)
            let elapsed = seconds { try! StoreImage.write(source) { buffer.append(contentsOf: $0) } }
            image = buffer
            return elapsed
        }
        report(d, nodes: nodes, op: "snapshot.write" + suffix, samples: writes,
               extra: ["mb": Double(image.count) / 1e6, "bytes_per_node": Double(image.count) / Double(nodes)])
        if !withViews {
            // The checksum alone: what a load must at least read.
            var crc: UInt32 = 0
            let crcs = (0 ..< runs).map { _ in seconds { crc = CRC32C.checksum(image) } }
            report(d, nodes: nodes, op: "snapshot.crc32c", samples: crcs, extra: ["mb_per_s": Double(image.count) / 1e6 / median(crcs)])
            if crc == 0 { print("(crc 0)") }
        }
        var loaded: TreeStore? = nil
        let loads = (0 ..< runs).map { _ in
            loaded = nil
            return seconds { loaded = load(image) }
        }
        guard loaded!.forest.count == nodes, loaded!.keptRowCount(nil) == source.keptRowCount(nil),
              loaded!.keptFilters == source.keptFilters else {
            fail("the loaded snapshot differs from the store written")
        }
        loaded = nil
        report(d, nodes: nodes, op: "snapshot.load" + suffix, samples: loads,
               extra: ["mb_per_s": Double(image.count) / 1e6 / median(loads), "vs_parse": parseMedian / median(loads)])
        if !withViews { measureSnapshotFiles(d, nodes: nodes, source, parseMedian: parseMedian, runs: runs) }
    }
}

/// snapshot.file.write and snapshot.file.load: the same through a data directory in the
/// system's temporary directory, as the server does it: a new session's snapshot written
/// durably (temporary file, fsync, rename, directory fsync), and a session opened (the file
/// read, its journal scanned) and loaded.
@MainActor func measureSnapshotFiles(_ d: Dataset, nodes: Int, _ store: TreeStore, parseMedian: Double, runs: Int) {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("tree-bench-data-\(getpid())").path
    try? FileManager.default.removeItem(atPath: path)
    defer { try? FileManager.default.removeItem(atPath: path) }
    do {
        let directory = try DataDirectory(path: path, fsync: .batch)
        defer { directory.close() }
        var bytes = 0
        let writes = try (0 ..< runs).map { run in
            try seconds {
                let files = try directory.create("bench-\(run)") { sink in bytes = try StoreImage.write(store, to: sink) }
                files.close()
            }
        }
        report(d, nodes: nodes, op: "snapshot.file.write", samples: writes, extra: ["mb": Double(bytes) / 1e6])
        var loaded: TreeStore? = nil
        let loads = try (0 ..< runs).map { run in
            loaded = nil
            return try seconds {
                let stored = try directory.open("bench-\(run)")
                stored.files.close()
                loaded = try stored.snapshot.withUnsafeBytes { try StoreImage.load($0).store }
            }
        }
        guard loaded?.forest.count == nodes else { fail("the snapshot file loads another store") }
        report(d, nodes: nodes, op: "snapshot.file.load", samples: loads, extra: ["vs_parse": parseMedian / median(loads)])
    } catch {
        fail("snapshot files: \(error)")
    }
}

/// The store of an image that must load.
func load(_ image: [UInt8]) -> TreeStore {
    image.withUnsafeBytes { raw in
        do {
            return try StoreImage.load(raw).store
        } catch {
            fail("the snapshot does not load: \(error)")
        }
    }
}
#endif
