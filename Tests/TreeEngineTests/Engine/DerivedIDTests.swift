import Testing
@testable import TreeEngine
@testable import TreeReference
import TreeFormats
import TreeStorage

/// Derived ids (`ForestBuilder.deriveIDs`, `IDTable` tag 2): the ids of a path list and of
/// a JSON document store only their last segment. Every node keeps the id it was given
/// through moves, deletions (of its old parent too), insertions and rolled-back
/// transactions, on random path lists.
@Suite struct DerivedIDTests {
    /// Random paths over a few names, so that prefixes are shared, some deep.
    static func pathList(_ rng: inout SeededRandom, lines: Int) -> String {
        let names = ["a", "b", "src", "x y", "ü", "~1", "deep"]
        return (0 ..< lines).map { _ in
            let depth = 1 + Int(rng.next() % 6)
            return (0 ..< depth).map { _ in names[Int(rng.next() % UInt64(names.count))] }.joined(separator: "/")
        }.joined(separator: "\n")
    }

    /// Every live node has the id it had when `ids` was taken, and is found by it.
    static func expectIDs(_ store: TreeStore, _ ids: [NodeHandle: String], _ gone: Set<String>,
                          _ context: String) {
        var live = 0
        store.forest.forEachNode { node, _ in
            live += 1
            guard let id = ids[node] else { return }
            #expect(store.forest.withID(of: node) { text, _ in String(decoding: text, as: UTF8.self) } == id, "\(context)")
            #expect(store.forest.node(withID: id) == node, "\(context): \(id)")
        }
        #expect(live == ids.count, "\(context)")
        for id in gone { #expect(store.forest.node(withID: id) == nil, "\(context): \(id) was deleted") }
    }

    static func allIDs(_ forest: Forest) -> [NodeHandle: String] {
        var ids: [NodeHandle: String] = [:]
        forest.forEachNode { node, _ in
            ids[node] = forest.withID(of: node) { text, _ in String(decoding: text, as: UTF8.self) }
        }
        return ids
    }

    @Test(arguments: 1 ... 12)
    func idsSurviveEdits(seed: Int) throws {
        var rng = SeededRandom(seed: UInt64(seed) &+ 900)
        let text = Self.pathList(&rng, lines: 40)
        let forest = try Array(text.utf8).withUnsafeBytes { raw in try Forest.parsePaths(raw) }
        // The ids are the paths: every prefix of a line, as written.
        var expected = Set<String>()
        for line in text.split(separator: "\n") {
            let names = line.split(separator: "/")
            for k in 1 ... names.count { expected.insert(names[..<k].joined(separator: "/")) }
        }
        var ids = Self.allIDs(forest)
        #expect(Set(ids.values) == expected)
        var store = TreeStore(forest: forest)
        var gone = Set<String>()
        for step in 0 ..< 30 {
            let nodes = Array(ids.keys).sorted { $0.slot < $1.slot }
            guard nodes.count > 2 else { break }
            let node = nodes[Int(rng.next() % UInt64(nodes.count))]
            let other = nodes[Int(rng.next() % UInt64(nodes.count))]
            /// Deletes `node`'s subtree.
            func delete(_ node: NodeHandle) {
                var subtree: [NodeHandle] = []
                for (candidate, _) in ids where store.forest.isAncestorOrSelf(node, of: candidate) { subtree.append(candidate) }
                for n in subtree { gone.insert(ids.removeValue(forKey: n)!) }
                _ = store.delete(node, nil)
            }
            switch rng.next() % 4 {
            case 0, 1:
                // Under another node (or to the top level), when that makes no cycle; then,
                // half of the time, the old parent goes (its slot may be taken again).
                let parent: NodeHandle? = rng.next() % 4 == 0 ? nil : other
                if let parent, store.forest.isAncestorOrSelf(node, of: parent) { continue }
                let oldParent = store.forest.parent(of: node)
                _ = try store.move(node, to: parent, index: nil, nil)
                if let oldParent, rng.next() % 2 == 0 { delete(oldParent) }
            case 2:
                delete(node)
            default:
                // A transaction that moves and deletes, rolled back.
                struct Abandon: Error {}
                _ = try? store.transaction { (s: inout TreeStore) throws(Abandon) -> Void in
                    if !s.forest.isAncestorOrSelf(node, of: other) { _ = try? s.move(node, to: other, index: nil, nil) }
                    _ = s.delete(other, nil)
                    throw Abandon()
                }
            }
            Self.expectIDs(store, ids, gone, "seed \(seed) step \(step)")
            // Through a snapshot image (derived ids kept derived) and back.
            if step % 5 == 4 {
                let image = StoreImage.image(of: store)
                let loaded = try image.withUnsafeBytes { try StoreImage.load($0) }.store
                let loadedIDs = Self.allIDs(loaded.forest)
                #expect(Set(loadedIDs.values) == Set(ids.values), "seed \(seed) step \(step): image")
                for (node, id) in loadedIDs { #expect(loaded.forest.node(withID: id) == node, "seed \(seed) step \(step): image, \(id)") }
                #expect(StoreImage.image(of: loaded) == image, "seed \(seed) step \(step): image of the loaded store")
            }
            // A deleted path may come back as a new node of the same id.
            if step % 7 == 6, let back = gone.first {
                let fragment = try Array("[{\"id\":\"\(back)\",\"title\":\"back\"}]".utf8).withUnsafeBytes { raw in
                    try store.parseFragment(raw, limits: ForestLimits()).fragment
                }
                let inserted = try store.insert(fragment, .child(of: nil, index: nil), nil)
                gone.remove(back)
                ids[inserted.roots[0]] = back
                Self.expectIDs(store, ids, gone, "seed \(seed) step \(step), reinserted")
            }
        }
    }

    /// A derived id is hashed from its parent's hash state and its segment: the same hash as
    /// the whole key's, however the key is cut.
    @Test func hashInPiecesIsTheHashOfTheWhole() {
        var rng = SeededRandom(seed: 31)
        for length in 0 ..< 70 {
            let key = (0 ..< length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let whole = key.withUnsafeBytes { IDTable.hash($0) }
            for _ in 0 ..< 20 {
                var cuts = (0 ..< Int(rng.next() % 5)).map { _ in Int(rng.next() % UInt64(length + 1)) }.sorted()
                cuts = [0] + cuts + [length]
                var hasher = IDHasher()
                for k in 0 ..< cuts.count - 1 {
                    key.withUnsafeBytes { hasher.combine(UnsafeRawBufferPointer(rebasing: $0[cuts[k] ..< cuts[k + 1]])) }
                }
                #expect(hasher.finalize() == whole, "length \(length), cuts \(cuts)")
            }
        }
        // The same as the hash's definition, a word a step and the rest a byte a step
        // (the hasher reads the rest in at most two loads).
        for length in 0 ..< 40 {
            let key = (0 ..< length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            var h = IDTable.seed, word: UInt64 = 0
            for (k, byte) in key.enumerated() {
                word |= UInt64(byte) << UInt64(8 * (k % 8))
                if k % 8 == 7 {
                    h = (h ^ word) &* 0xBF58_476D_1CE4_E5B9
                    h ^= h >> 31
                    word = 0
                }
            }
            h = (h ^ word) &* 0x94D0_49BB_1331_11EB
            h ^= UInt64(length) &* 0x9E37_79B9_7F4A_7C15
            h ^= h >> 29
            h = h &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 32
            #expect(key.withUnsafeBytes { IDTable.hash($0) } == h, "length \(length)")
        }
        // The length counts: trailing zero bytes make another hash.
        let a = [UInt8]([1]).withUnsafeBytes { IDTable.hash($0) }, b = [UInt8]([1, 0]).withUnsafeBytes { IDTable.hash($0) }
        #expect(a != b)
    }

    /// A document's ids are its JSON Pointers, escapes included, though only tokens are kept.
    @Test func documentPointers() throws {
        let text = #"{"a/b":{"~x":[1,{"":null}]},"c":[]}"#
        let forest = try Array(text.utf8).withUnsafeBytes { raw in try Forest.parseDocument(raw) }
        #expect(Set(Self.allIDs(forest).values) == ["/a~1b", "/a~1b/~0x", "/a~1b/~0x/0", "/a~1b/~0x/1", "/a~1b/~0x/1/", "/c"])
        #expect(forest.node(withID: "/a~1b/~0x/1/") != nil)
        #expect(forest.node(withID: "/a~1b/~0x/1") != nil)
        #expect(forest.node(withID: "/a~1b/~0x/2") == nil)
    }
}
