// Built only where the engine has TreeStorage, so that scripts/bench-engine.sh can build
// this bench against engines from before it.
#if canImport(TreeStorage)
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
