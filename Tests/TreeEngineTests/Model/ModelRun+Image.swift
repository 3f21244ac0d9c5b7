@testable import TreeEngine
@testable import TreeReference
import TreeStorage
import TreeFormats

/// Issue 11: a random store through its snapshot image and back.
extension ModelRun {
    /// Writes the store's image (in chunks of a random size, with random caller bytes),
    /// loads it, and compares the loaded store with the store (every node, and of the
    /// default view and every other view the unfiltered rows and every kept filtered view) and with the reference; the image of
    /// the loaded store must be the same bytes. The run then goes on with the loaded store.
    func checkImage(_ context: String) {
        let caller = (0 ..< rng.int(0 ... 40)).map { _ in UInt8(rng.int(0 ... 255)) }
        let chunkSize = rng.chance(0.5) ? rng.int(1 ... 200) : 1 << 16
        var bytes: [UInt8] = []
        var chunks = 0
        do {
            let size = try StoreImage.write(store, caller: caller, chunkSize: chunkSize) { bytes += $0; chunks += 1 }
            expectEqual(size, bytes.count, "\(context): image size")
        } catch {
            problem("\(context): image not written: \(error)")
            return
        }
        var loaded: TreeStore
        do {
            let image = try bytes.withUnsafeBytes { try StoreImage.load($0, dataReader: JSONFieldReader()) }
            loaded = image.store
            expectEqual(image.caller, caller, "\(context): caller bytes")
        } catch {
            problem("\(context): image (\(bytes.count) bytes) not loaded: \(error)")
            return
        }
        record("image round trip: \(bytes.count) bytes in \(chunks) chunks, \(store.keptFilters.count) filtered views")
        compareStores(store, loaded, "\(context): loaded image")
        if failed { return }
        if StoreImage.image(of: loaded, caller: caller) != bytes { problem("\(context): the loaded store's image differs") }
        loaded.filterWorkers = store.filterWorkers
        store = loaded
        checkForest(store.forest, "\(context): loaded image")
        checkKeptViews("\(context): loaded image")
    }

    /// Everything a client can see of two stores, node by node in pre-order.
    func compareStores(_ a: TreeStore, _ b: TreeStore, _ context: String) {
        expectEqual(b.forest.count, a.forest.count, "\(context): node count")
        expectEqual(b.filteredViewCapacity, a.filteredViewCapacity, "\(context): filtered view capacity")
        expectEqual(b.forest.nextGeneratedID, a.forest.nextGeneratedID, "\(context): next generated id")
        var nodesA: [(NodeHandle, Int)] = [], nodesB: [(NodeHandle, Int)] = []
        a.forest.forEachNode { nodesA.append(($0, $1)) }
        b.forest.forEachNode { nodesB.append(($0, $1)) }
        guard nodesA.count == nodesB.count else { return problem("\(context): \(nodesB.count) nodes walked, \(nodesA.count) before") }
        func parentID(_ f: Forest, _ h: NodeHandle) -> String? { f.parent(of: h).map { f.id(of: $0).description } }
        for ((ha, la), (hb, lb)) in zip(nodesA, nodesB) {
            let id = a.forest.id(of: ha)
            let what = "\(context): node \(id)"
            expectEqual(b.forest.id(of: hb), id, "\(what): id")
            expectEqual(b.forest.node(withID: id.description), hb, "\(what): node(withID:)")
            expectEqual(b.forest.title(of: hb), a.forest.title(of: ha), "\(what): title")
            expectEqual(b.forest.data(of: hb), a.forest.data(of: ha), "\(what): data")
            expectEqual(lb, la, "\(what): level")
            expectEqual(parentID(b.forest, hb), parentID(a.forest, ha), "\(what): parent")
            expectEqual(b.forest.isExpandedUnfiltered(hb), a.forest.isExpandedUnfiltered(ha), "\(what): expanded")
            expectEqual(b.forest.declaresChildren(hb), a.forest.declaresChildren(ha), "\(what): declaresChildren")
            expectEqual(b.forest.hasChildren(hb), a.forest.hasChildren(ha), "\(what): hasChildren")
            if failed { return }
        }
        func rows(_ s: TreeStore, _ v: ViewRef) -> [RefRow]? {
            guard let count = s.keptRowCount(v), let rows = s.keptRows(v, offset: 0, limit: count + 1) else { return nil }
            return rows.map { r in
                RefRow(id: s.forest.id(of: r.node).description, level: r.level, expanded: r.isExpanded,
                       hasChildren: r.hasChildren, parentID: r.parent.map { s.forest.id(of: $0).description }, isMatch: r.isMatch)
            }
        }
        // The default view (nil), then every other view: the unfiltered rows, then each kept filter's.
        expectEqual(b.views, a.views, "\(context): views")
        guard b.views == a.views else { return }
        for view in [nil] + a.views.map(Optional.some) {
            let name = view.map { "view \($0)" } ?? "the default view"
            expectEqual(rows(b, ViewRef(view)), rows(a, ViewRef(view)), "\(context): unfiltered rows of \(name)")
            expectEqual(b.keptFilters(in: view), a.keptFilters(in: view), "\(context): kept filtered views of \(name) (least recently used first)")
            guard b.keptFilters(in: view) == a.keptFilters(in: view) else { return }
            for f in a.keptFilters(in: view) {
                let ref = ViewRef(view, filter: f)
                let what = "\(context), \(name), kept filter [\(f)]"
                expectEqual(b.keptMatchCount(ref), a.keptMatchCount(ref), "\(what): matchCount")
                expectEqual(rows(b, ref), rows(a, ref), "\(what): rows")
                for ((ha, _), (hb, _)) in zip(nodesA, nodesB) {
                    let pa = a.keptPlacement(of: ha, ref), pb = b.keptPlacement(of: hb, ref)
                    expectEqual(pb?.expanded, pa?.expanded, "\(what): expansion of \(a.forest.id(of: ha))")
                    expectEqual(pb?.match, pa?.match, "\(what): match of \(a.forest.id(of: ha))")
                    expectEqual(pb?.index, pa?.index, "\(what): row of \(a.forest.id(of: ha))")
                    if failed { return }
                }
            }
        }
    }
}
