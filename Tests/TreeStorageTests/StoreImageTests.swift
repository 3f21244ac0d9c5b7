import Testing
@testable import TreeEngine
import TreeFormats
@testable import TreeStorage

/// The snapshot image: a round trip of a store with every kind of node and view, the
/// errors of bad images, and that no input makes `load` trap.
@Suite struct StoreImageTests {
    /// Ids of both kinds (an uploaded `~1` among them), data, declared children,
    /// expansion, a deleted subtree (so the implicit ids after it no longer match their
    /// pre-order index), an inserted node (a generated id), three kept filtered
    /// views with their own expansion, and three other views (one with filtered rows).
    static func sampleStore() throws -> TreeStore {
        var store = try defaultViewSample()
        let alpha = store.forest.node(withID: "a")!, eta = store.forest.node(withID: "-3")!
        store.createView(ViewID(7), .collapsed)
        _ = store.setExpanded(alpha, true, ViewRef(ViewID(7)))
        _ = store.setExpanded(store.forest.children(of: alpha)[1], true, ViewRef(ViewID(7)))
        store.createView(ViewID(1 << 40), .depth(1))
        _ = store.setExpanded(eta, false, ViewRef(ViewID(1 << 40)))
        try store.prepareView(ViewRef(ViewID(1 << 40), filter: FilterQuery("item")))
        _ = store.collapseAll(ViewRef(ViewID(1 << 40), filter: FilterQuery("item")))
        store.createView(ViewID(3), .copy(of: nil))
        // Selections: the default view's one subtree but a node below it, view 7's every node
        // but one subtree (a new root would be selected).
        store.setSelected(alpha, true, in: nil)
        store.setSelected(store.forest.children(of: alpha)[1], false, recursive: false, in: nil)
        store.selectAll(ViewRef(ViewID(7)))
        store.setSelected(eta, false, in: ViewID(7))
        return store
    }

    /// `sampleStore` with the default view only.
    static func defaultViewSample() throws -> TreeStore {
        let json = #"""
        [{"id":"a","title":"Alpha","expanded":true,"data":{"k":[1,2]},"children":[
            {"title":"beta","children":[{"title":"gamma item"},{"id":7,"title":"delta item","hasChildren":true}]},
            {"title":"epsilon","expanded":true,"children":[{"id":"~1","title":"zeta"},{"title":"iota item"}]}]},
         {"id":-3,"title":"Eta item","data":"x","children":[{"title":"theta"}]}]
        """#
        var store = TreeStore(forest: try Forest.parse(Array(json.utf8)).forest)
        store.filteredViewCapacity = 3
        let gamma = store.forest.children(of: store.forest.children(of: store.forest.node(withID: "a")!)[0])[0]
        _ = store.delete(gamma, nil)
        let fragment = try Array(#"[{"title":"kappa item","data":[true]}]"#.utf8).withUnsafeBytes { raw throws(TreeInputError) in
            try store.parseFragment(raw, limits: ForestLimits()).fragment
        }
        _ = try store.insert(fragment, .child(of: store.forest.node(withID: "-3"), index: 0), nil)
        let views = [FilterQuery("item"), FilterQuery("ETA", mode: .prefix), FilterQuery("theta", mode: .exact, caseSensitive: true)]
        for f in views { try store.prepareView(f) }
        _ = store.collapseAll(views[0])
        _ = store.setExpanded(store.forest.node(withID: "-3")!, true, views[0])
        _ = store.rowCount(views[1])  // most recently used
        return store
    }

    /// A path list's store (derived ids: `src/b/c.swift` keeps only `c.swift` and its
    /// parent), after a move (the moved node's id stored whole, its children's still
    /// derived from it), with an inserted node (a whole id) under a derived one, a
    /// root named `~1` (an id that looks generated) and a filtered view.
    static func derivedSampleStore() throws -> TreeStore {
        let text = "src/a.swift\nsrc/b/c.swift\nsrc/b/d/e.txt\ndocs/x y.md\n~1/~2\nsrc/b/\n"
        var store = TreeStore(forest: try Array(text.utf8).withUnsafeBytes { raw throws(TreeInputError) in try Forest.parsePaths(raw) })
        _ = try store.move(store.forest.node(withID: "src/b")!, to: store.forest.node(withID: "docs"), index: 0, nil)
        let fragment = try Array(#"[{"id":"n1","title":"inserted"}]"#.utf8).withUnsafeBytes { raw throws(TreeInputError) in
            try store.parseFragment(raw, limits: ForestLimits()).fragment
        }
        _ = try store.insert(fragment, .child(of: store.forest.node(withID: "src/b/d"), index: nil), nil)
        try store.prepareView(FilterQuery("e.txt"))
        return store
    }

    static func load(_ bytes: [UInt8]) throws(StoreImageError) -> (store: TreeStore, caller: [UInt8]) {
        do {
            return try bytes.withUnsafeBytes { try StoreImage.load($0) }
        } catch let error as StoreImageError {
            throw error
        } catch {
            fatalError("load threw \(error)")
        }
    }

    static func loadError(_ bytes: [UInt8]) -> StoreImageError? {
        do {
            _ = try load(bytes)
            return nil
        } catch {
            return error
        }
    }

    /// What a client sees of a store: every node, the rows of every view kept.
    static func summary(_ s: TreeStore) -> [String] {
        var lines: [String] = []
        s.forest.forEachNode { h, level in
            let data = s.forest.data(of: h).map { String(decoding: $0, as: UTF8.self) } ?? "-"
            lines.append("\(level) \(s.forest.id(of: h)) \(s.forest.title(of: h)) \(data) \(s.forest.isExpandedUnfiltered(h)) \(s.forest.declaresChildren(h))")
        }
        for f in [nil] + s.keptFilters {
            let rows = s.keptRows(f, offset: 0, limit: 1000)!
            lines.append("\(f.map(\.description) ?? "unfiltered") \(f.flatMap { s.keptMatchCount($0) } ?? 0): "
                + rows.map { "\(s.forest.id(of: $0.node))/\($0.level)/\($0.isExpanded)/\($0.isMatch)" }.joined(separator: " "))
        }
        for id in s.views {
            for f in [nil] + s.keptFilters(in: id) {
                let rows = s.keptRows(ViewRef(id, filter: f), offset: 0, limit: 1000)!
                lines.append("view \(id) \(f.map(\.description) ?? "unfiltered"): "
                    + rows.map { "\(s.forest.id(of: $0.node))/\($0.level)/\($0.isExpanded)/\($0.isMatch)" }.joined(separator: " "))
            }
        }
        for id in [nil] + s.views.map(Optional.some) {
            let selected = s.selectedNodes(in: id, after: nil, limit: 1000, topMost: false)
            lines.append("selection of \(id.map(\.description) ?? "default"): \(s.compact.selections.first { $0.view == id }?.all ?? false) "
                + selected.map { s.forest.id(of: $0).description }.joined(separator: " "))
        }
        return lines
    }

    /// An absolute path list's ids start with the separator (the forest's root prefix): a
    /// loaded image keeps them, and exports its lines as they came.
    @Test func anAbsolutePathListKeepsItsIDs() throws {
        let text = "/usr\n/usr/bin\n/usr/bin/swift\n/usr/lib/\n"
        let store = TreeStore(forest: try Array(text.utf8).withUnsafeBytes { raw throws(TreeInputError) in try Forest.parsePaths(raw) })
        var image: [UInt8] = []
        try StoreImage.write(store) { image += $0 }
        let loaded = try image.withUnsafeBytes { try StoreImage.load($0) }.store
        #expect(loaded.forest.node(withID: "/usr/bin/swift") != nil)
        var exported: [UInt8] = []
        loaded.forest.exportPaths { exported += $0 }
        #expect(String(decoding: exported, as: UTF8.self) == text)
    }

    /// An image of format version 1 (before views: no `VWS_` section) loads as the same
    /// store with the default view only.
    @Test func formatVersionOneLoads() throws {
        let store = try Self.defaultViewSample()
        var bytes = StoreImage.image(of: store)
        // Version 1: seven sections, the last two (VWS_, SEL_) gone.
        Layout.downgrade(&bytes, to: 1)
        let back = try Self.load(bytes).store
        #expect(Self.summary(back) == Self.summary(store))
        #expect(back.views.isEmpty)
    }

    /// An image of format version 3 (before selections: no `SEL_` section) loads as the same
    /// store selecting nothing.
    @Test func formatVersionThreeLoads() throws {
        let store = try Self.sampleStore()
        var bytes = StoreImage.image(of: store)
        Layout.downgrade(&bytes, to: 3)
        let back = try Self.load(bytes).store
        #expect(back.views == store.views && back.selectedCount(in: nil) == 0 && back.selectedCount(in: ViewID(7)) == 0)
        #expect(store.selectedCount(in: nil) > 0 && store.selectedCount(in: ViewID(7)) > 0)
    }

    /// A selection naming a view that is not there, or nodes out of order, is refused.
    @Test func aBadSelectionIsRefused() throws {
        let store = try Self.sampleStore()
        func edited(_ change: (inout [UInt8], Range<Int>) -> Void) -> StoreImageError? {
            var bytes = StoreImage.image(of: store)
            change(&bytes, Layout(bytes).sections[StoreImage.Section.selections.rawValue])
            Layout.reseal(&bytes)
            return Self.loadError(bytes)
        }
        // The first selection is the default view's (kind 0): name view 5 instead.
        #expect(edited { bytes, s in bytes[s.lowerBound + 1] = 1; bytes[s.lowerBound + 2] = 5 } != nil)
        // Its `all` byte is 0 or 1.
        #expect(edited { bytes, s in bytes[s.lowerBound + 10] = 2 } != nil)
        #expect(edited { _, _ in } == nil)
    }

    /// Format version 2 wrote a view's filtered rows as every node's expansion bit, with no
    /// kind byte; version 3 writes the smaller of that (kind 1) and the changed nodes (kind 0).
    @Test func aVersionTwoViewsSectionReads() throws {
        let query = FilterQuery("item")
        var section: [UInt8] = [1]  // one view
        section += (0 ..< 8).map { UInt8(truncatingIfNeeded: UInt64(9) >> (8 * UInt64($0))) }
        section += [0, 0, 0, 0, 0]  // rule 0, no changed node
        section += [1, 4] + Array("item".utf8) + [StoreImage.modeCode(query.mode), StoreImage.optionBits(query)]
        section += [0b1010_0101, 0b1]  // 9 nodes' bits
        let v2 = try section.withUnsafeBytes { try StoreImage.userViews($0, count: 9, version: 2) }
        guard case .bits(let bits) = v2[0].filtered[0].expansion else {
            Issue.record("version 2: bits expected")
            return
        }
        #expect(v2[0].id == ViewID(9) && v2[0].filtered[0].query == query && Array(bits) == [0b1010_0101, 0b1])
        // Version 3 reads the byte after the options as the kind: 0b1010_0101 is none.
        #expect(throws: StoreImageError.self) { try section.withUnsafeBytes { _ = try StoreImage.userViews($0, count: 9, version: 3) } }
    }

    @Test func roundTrip() throws {
        let store = try Self.sampleStore()
        let caller = Array("version 12, created 2026-11-30".utf8)
        let bytes = StoreImage.image(of: store, caller: caller)
        let (back, callerBack) = try Self.load(bytes)
        #expect(callerBack == caller)
        #expect(Self.summary(back) == Self.summary(store))
        #expect(back.keptFilters == store.keptFilters)
        #expect(back.views == store.views && back.views.count == 3)
        #expect(back.filteredViewCapacity == 3)
        #expect(back.forest.nextGeneratedID == store.forest.nextGeneratedID)
        #expect(StoreImage.image(of: back, caller: caller) == bytes)
        // Ids a store generates after a load are new.
        var edited = back
        let fragment = try Array(#"[{"title":"new"},{"title":"newer"}]"#.utf8).withUnsafeBytes { raw throws(TreeInputError) in
            try edited.parseFragment(raw, limits: ForestLimits()).fragment
        }
        let roots = try edited.insert(fragment, .child(of: nil, index: 0), nil).roots
        var ids = Set<String>()
        edited.forest.forEachNode { h, _ in ids.insert(edited.forest.id(of: h).description) }
        #expect(ids.count == edited.forest.count)
        #expect(roots.count == 2)
    }

    /// Derived ids stay derived in the image (header flag bit 0, the separator and root
    /// prefix first in `IDS_`), and come back whole: every node named and found as before.
    @Test func derivedIDsStayDerived() throws {
        let store = try Self.derivedSampleStore()
        let bytes = StoreImage.image(of: store)
        #expect(bytes[8] == 1, "header flag bit 0")
        let back = try Self.load(bytes).store
        #expect(Self.summary(back) == Self.summary(store))
        var count = 0
        back.forest.forEachNode { node, _ in
            count += 1
            let id = back.forest.id(of: node).description
            #expect(back.forest.node(withID: id) == node, "\(id)")
            #expect(store.forest.node(withID: id) != nil, "\(id)")
        }
        #expect(count == store.forest.count)
        #expect(StoreImage.image(of: back) == bytes)
        // The section: "/" and "" first; a derived id only as its last name; the moved
        // node whole.
        let ids = Array(bytes[Layout(bytes).sections[StoreImage.Section.ids.rawValue]])
        #expect(Array(ids.prefix(3)) == [1, UInt8(ascii: "/"), 0])
        func holds(_ text: String) -> Bool {
            let needle = Array(text.utf8)
            return ids.indices.contains { ids[$0...].starts(with: needle) }
        }
        #expect(holds("src/b") && holds("c.swift") && holds("e.txt") && holds("n1"))
        #expect(!holds("src/b/c.swift") && !holds("src/a.swift") && !holds("docs/x y.md"))
        // A document's pointers too.
        let document = TreeStore(forest: try Array(#"{"a/b":{"~x":[1,{"":null}]},"c":[]}"#.utf8).withUnsafeBytes { raw throws(TreeInputError) in
            try Forest.parseDocument(raw)
        })
        let image = StoreImage.image(of: document)
        let loaded = try Self.load(image).store
        #expect(Self.summary(loaded) == Self.summary(document))
        #expect(loaded.forest.node(withID: "/a~1b/~0x/1/") != nil)
        #expect(StoreImage.image(of: loaded) == image)
    }

    @Test func emptyStoreAndChunks() throws {
        let empty = TreeStore(forest: Forest())
        let (back, caller) = try Self.load(StoreImage.image(of: empty))
        #expect(back.forest.count == 0 && caller.isEmpty)
        // Chunks of every size give the same bytes.
        let store = try Self.sampleStore()
        let whole = StoreImage.image(of: store)
        for size in [1, 63, 64, 65, 100, 4096] {
            var bytes: [UInt8] = []
            var largest = 0
            try StoreImage.write(store, chunkSize: size) { bytes += $0; largest = max(largest, $0.count) }
            #expect(bytes == whole, "chunk size \(size)")
            #expect(largest <= max(64, size))
        }
    }

    @Test func sinkErrorsAreRethrown() throws {
        struct DiskFull: Error {}
        let store = try Self.sampleStore()
        var calls = 0
        #expect(throws: DiskFull.self) {
            try StoreImage.write(store, chunkSize: 64) { _ in
                calls += 1
                if calls == 3 { throw DiskFull() }
            }
        }
        #expect(calls == 3)
    }

    @Test func namedErrors() throws {
        let bytes = StoreImage.image(of: try Self.sampleStore())
        var wrong = bytes
        wrong[0] = UInt8(ascii: "X")
        #expect(Self.loadError(wrong) == .badMagic)
        #expect(Self.loadError(Array("{\"nodes\":[]}".utf8)) == .badMagic)
        wrong = bytes
        wrong[6] = 6
        #expect(Self.loadError(wrong) == .unsupportedVersion(6))
        wrong = bytes
        wrong[20] ^= 1  // the node count
        #expect(Self.loadError(wrong) == .checksumMismatch(section: "header"))
        let layout = Layout(bytes)
        for (s, section) in StoreImage.Section.allCases.enumerated() where layout.sections[s].count > 0 {
            wrong = bytes
            wrong[layout.sections[s].lowerBound] ^= 0x10
            #expect(Self.loadError(wrong) == .checksumMismatch(section: section.name))
        }
        wrong = bytes
        wrong[bytes.count - 12] ^= 1
        #expect(Self.loadError(wrong) == .checksumMismatch(section: "trailer"))
        #expect(Self.loadError(Array(bytes.dropLast())) == .truncated(at: bytes.count - 1))
        #expect(Self.loadError(bytes + [0]) == .inconsistent("1 bytes after the trailer"))
        #expect(Self.loadError([]) == .truncated(at: 0))
    }

    /// A large image has its checksums computed on a second thread while the store is
    /// built: it loads the same, and a damaged section is a checksum mismatch (not the
    /// inconsistency the build finds), whichever thread finishes first.
    @Test func largeImageChecksumsInParallel() throws {
        var json = "["
        for i in 0 ..< 40_000 {
            json += i % 4 == 0 ? (i > 0 ? "]}," : "") + #"{"title":"section \#(i) of the large tree","children":["# : (i % 4 == 1 ? "" : ",")
            if i % 4 != 0 { json += #"{"title":"item \#(i) of the large tree"}"# }
        }
        json += "]}]"
        var store = TreeStore(forest: try Forest.parse(Array(json.utf8)).forest)
        try store.prepareView(FilterQuery("item 3"))
        let bytes = StoreImage.image(of: store)
        #expect(bytes.count > StoreImage.parallelThreshold)
        #expect(Self.summary(try Self.load(bytes).store) == Self.summary(store))
        let layout = Layout(bytes)
        for section in [StoreImage.Section.levels, .titles, .views] {
            var wrong = bytes
            wrong[layout.sections[section.rawValue].lowerBound + 1] ^= 0x04
            #expect(Self.loadError(wrong) == .checksumMismatch(section: section.name))
        }
    }

    /// Every single-bit flip and every truncation is refused with an error.
    @Test func everyFlipAndTruncationThrows() throws {
        let bytes = StoreImage.image(of: try Self.sampleStore(), caller: [1, 2, 3])
        for offset in bytes.indices {
            for bit in 0 ..< 8 {
                var wrong = bytes
                wrong[offset] ^= 1 << UInt8(bit)
                #expect(Self.loadError(wrong) != nil, "bit \(bit) of byte \(offset) flipped")
            }
        }
        for length in 0 ..< bytes.count {
            let error = Self.loadError(Array(bytes[0 ..< length]))
            #expect(error == .truncated(at: length), "truncated at \(length): \(String(describing: error))")
        }
    }

    /// Random damage whose checksums are then made right again (as a bug or a hostile
    /// writer would): `load` throws or gives a store, and never traps; what it gives is
    /// consistent enough to be written again.
    @Test(arguments: [false, true])
    func resealedDamageNeverTraps(derived: Bool) throws {
        let bytes = StoreImage.image(of: try derived ? Self.derivedSampleStore() : Self.sampleStore(), caller: [9])
        var state: UInt64 = 2026
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        let layout = Layout(bytes)
        var loaded = 0, refused = 0
        for round in 0 ..< 3000 {
            var wrong = bytes
            // Mostly inside the sections (the engine's checks), sometimes in the header.
            for _ in 0 ..< 1 + next(3) {
                let s = layout.sections[next(layout.sections.count)]
                let offset = round % 10 == 0 ? next(StoreImage.headerSize - 4) : s.isEmpty ? 0 : s.lowerBound + next(s.count)
                wrong[offset] = next(4) == 0 ? UInt8(next(256)) : wrong[offset] ^ (1 << UInt8(next(8)))
            }
            Layout.reseal(&wrong)
            do {
                let (store, _) = try Self.load(wrong)
                _ = StoreImage.image(of: store)
                loaded += 1
            } catch {
                refused += 1
            }
        }
        #expect(refused > 1000)
        #expect(loaded > 0)
    }

    /// Contents that checksums cannot catch: each one named.
    @Test func inconsistentContents() throws {
        let bytes = StoreImage.image(of: try Self.sampleStore())
        let layout = Layout(bytes)
        func damaged(_ change: (inout [UInt8]) -> Void) -> StoreImageError? {
            var wrong = bytes
            change(&wrong)
            Layout.reseal(&wrong)
            return Self.loadError(wrong)
        }
        func isInconsistent(_ e: StoreImageError?) -> Bool { if case .inconsistent? = e { return true } else { return false } }
        let levels = layout.sections[StoreImage.Section.levels.rawValue]
        let flags = layout.sections[StoreImage.Section.flags.rawValue]
        #expect(isInconsistent(damaged { $0[levels.lowerBound] = 1 }), "the first node below level 0")
        #expect(isInconsistent(damaged { $0[levels.lowerBound + 4] = 2 }), "a node two levels below the one before")
        #expect(isInconsistent(damaged { $0[flags.lowerBound] |= 0x80 }), "an unknown flag")
        #expect(isInconsistent(damaged { $0[flags.lowerBound + 1] ^= CompactNodeFlags.storedID.rawValue }), "an id more or less")
        #expect(isInconsistent(damaged { $0[flags.lowerBound + 1] ^= CompactNodeFlags.hasData.rawValue }), "data more or less")
        #expect(isInconsistent(damaged { $0[16] &+= 1 }), "one node more in the header")
        #expect(isInconsistent(damaged { $0[32] &+= 1 }), "one filtered view more in the header")
        #expect(isInconsistent(damaged { $0[8] = 2 }), "unknown header flags")
        #expect(isInconsistent(damaged { $0[8] = 1 }), "derived ids, but no separator and root prefix first")
        // The ids: node "a" is stored first; make its tag "integer", then its key another node's.
        let ids = layout.sections[StoreImage.Section.ids.rawValue]
        #expect(bytes[ids.lowerBound] == 2 && bytes[ids.lowerBound + 1] == 0 && bytes[ids.lowerBound + 2] == UInt8(ascii: "a"))
        #expect(isInconsistent(damaged { $0[ids.lowerBound + 1] = 1 }), "an integer id that is no integer")
        #expect(isInconsistent(damaged { $0[ids.lowerBound + 1] = 2 }), "a derived id in an image without derived ids")
        #expect(isInconsistent(damaged { $0[ids.lowerBound + 1] = 3 }), "an unknown id tag")
        #expect(isInconsistent(damaged { $0[ids.lowerBound + 2] = UInt8(ascii: "7") }), "a duplicate id")
        // Derived ids: whose parent has none; an unknown tag; two nodes with one id.
        let derived = StoreImage.image(of: try Self.derivedSampleStore())
        func damagedDerived(_ change: (inout [UInt8]) -> Void) -> StoreImageError? {
            var wrong = derived
            change(&wrong)
            Layout.reseal(&wrong)
            return Self.loadError(wrong)
        }
        let derivedIDs = Layout(derived).sections[StoreImage.Section.ids.rawValue]
        let derivedFlags = Layout(derived).sections[StoreImage.Section.flags.rawValue]
        #expect(isInconsistent(damagedDerived { $0[8] = 0 }), "derived ids read as whole ones")
        // Node 0 ("src") is derived: its tag after the scheme's two entries ([1, "/"], [0]).
        #expect(Array(derived[derivedIDs.lowerBound + 3 ..< derivedIDs.lowerBound + 8]) == [4, 2] + Array("src".utf8))
        #expect(isInconsistent(damagedDerived { $0[derivedIDs.lowerBound + 4] = 3 }), "an unknown id tag")
        // The root "docs" renamed "src": two roots have that id.
        #expect(isInconsistent(damagedDerived { image in
            let section = Array(image[derivedIDs])
            let docs = section.indices.first { section[$0...].starts(with: Array("docs".utf8)) }!
            image[derivedIDs.lowerBound + docs] = UInt8(ascii: "s")
            image[derivedIDs.lowerBound + docs + 1] = UInt8(ascii: "r")
            image[derivedIDs.lowerBound + docs + 2] = UInt8(ascii: "c")
            image.remove(at: derivedIDs.lowerBound + docs + 3)
            image[derivedIDs.lowerBound + docs - 2] -= 1  // the entry's length
            Self.shrinkSection(&image, at: derivedIDs, by: 1)
        }), "two nodes named src/…")
        // The root "src" without its id: its derived children have no parent id.
        #expect(isInconsistent(damagedDerived { image in
            image[derivedFlags.lowerBound] &= ~CompactNodeFlags.storedID.rawValue
            image.removeSubrange(derivedIDs.lowerBound + 3 ..< derivedIDs.lowerBound + 8)
            Self.shrinkSection(&image, at: derivedIDs, by: 5)
        }), "a derived id whose parent has none")
        // A title that is not UTF-8 (the title matcher relies on UTF-8).
        let titles = layout.sections[StoreImage.Section.titles.rawValue]
        #expect(isInconsistent(damaged { $0[titles.lowerBound + 1] = 0xC0 }), "a title that is not UTF-8")
        // The first view's text: empty, or not UTF-8.
        let views = layout.sections[StoreImage.Section.views.rawValue]
        #expect(isInconsistent(damaged { $0[views.lowerBound + 1] = 0xFF }), "a view text that is not UTF-8")
    }
}

extension StoreImageTests {
    /// Makes the section at `range` (before a change) `by` bytes shorter in its length field
    /// and in the image's size in the trailer.
    static func shrinkSection(_ image: inout [UInt8], at range: Range<Int>, by delta: Int) {
        func add(_ value: Int, at o: Int, bytes: Int) {
            var v = 0
            for k in 0 ..< bytes { v |= Int(image[o + k]) << (8 * k) }
            v += value
            for k in 0 ..< bytes { image[o + k] = UInt8(truncatingIfNeeded: v >> (8 * k)) }
        }
        add(-delta, at: range.lowerBound - 8, bytes: 8)
        add(-delta, at: image.count - 8, bytes: 8)
    }
}

/// The loader's UTF-8 check agrees with the standard library's decoding (which
/// repairs exactly the ill-formed sequences) on random bytes, mostly non-ASCII.
@Test func utf8ValidationAgreesWithTheStandardLibrary() {
    var state: UInt64 = 7
    func next(_ n: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int((state >> 33) % UInt64(n))
    }
    let interesting: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                                0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]
    var disagreements: [[UInt8]] = []
    for _ in 0 ..< 50_000 {
        let bytes = (0 ..< next(12)).map { _ in next(3) == 0 ? UInt8(next(256)) : interesting[next(interesting.count)] }
        let valid = String(decoding: bytes, as: UTF8.self).utf8.elementsEqual(bytes)
        if bytes.withUnsafeBytes({ TreeStore.isValidUTF8($0) }) != valid { disagreements.append(bytes) }
    }
    #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
}

/// Where the sections of an image are, and how to make its checksums right again.
struct Layout {
    /// The bytes of each section, without its tag, length and checksum.
    var sections: [Range<Int>] = []

    init(_ bytes: [UInt8], version: UInt16 = StoreImage.formatVersion) {
        var o = StoreImage.headerSize
        for _ in StoreImage.Section.of(version: version) {
            let length = bytes.withUnsafeBytes { Reader(bytes: $0).u64(at: o + 4) }
            sections.append(o + 12 ..< o + 12 + Int(length))
            o += 12 + Int(length) + 4
        }
    }

    /// Makes an image of this format an image of the older format `version`: the sections
    /// that version lacks (the last ones) removed, its version, section count and size
    /// written, its checksums made right.
    static func downgrade(_ bytes: inout [UInt8], to version: UInt16) {
        let sections = Layout(bytes).sections
        let kept = StoreImage.Section.of(version: version).count
        bytes.removeSubrange(sections[kept].lowerBound - 12 ..< sections.last!.upperBound + 4)
        bytes[6] = UInt8(version)
        bytes[12] = UInt8(kept)
        let size = UInt64(bytes.count)
        for k in 0 ..< 8 { bytes[bytes.count - 8 + k] = UInt8(truncatingIfNeeded: size >> (8 * UInt64(k))) }
        reseal(&bytes, version: version)
    }

    /// Recomputes every checksum of a well-laid-out image.
    static func reseal(_ bytes: inout [UInt8], version: UInt16 = StoreImage.formatVersion) {
        func put(_ value: UInt32, at o: Int) { for k in 0 ..< 4 { bytes[o + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(k))) } }
        let h = StoreImage.headerSize
        put(CRC32C.checksum(bytes[0 ..< h - 4]), at: h - 4)
        var trailer = CRC32C()
        trailer.update(bytes[0 ..< h])
        for s in Layout(bytes, version: version).sections {
            let crc = CRC32C.checksum(bytes[s.lowerBound - 12 ..< s.upperBound])
            put(crc, at: s.upperBound)
            trailer.update(bytes[s.upperBound ..< s.upperBound + 4])
        }
        put(trailer.value, at: bytes.count - 12)
    }
}
