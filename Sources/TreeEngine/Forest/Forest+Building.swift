/// Limits applied while a forest is built from an upload.
public struct ForestLimits: Sendable, Equatable {
    /// The most nodes the built forest may hold, existing nodes included.
    public var maxNodes: Int
    /// The deepest nesting of nodes allowed (roots are level 0).
    public var maxDepth: Int
    /// The longest id a body may give a node, in UTF-8 bytes (`setStringID`): an id is
    /// spelled in URLs and `Location` headers, which clients and proxies cap at a few KiB.
    /// Ids given whole are bound by it, an inserted path's too (its parent's id and the
    /// path); derived ids (`setDerivedID`: an uploaded path list's or document's, composed
    /// segment by segment) are not.
    public var maxIDBytes: Int

    public static let defaultMaxIDBytes = 4096

    public init(maxNodes: Int = 100_000_000, maxDepth: Int = 1_000_000, maxIDBytes: Int = defaultMaxIDBytes) {
        self.maxNodes = maxNodes
        self.maxDepth = maxDepth
        self.maxIDBytes = maxIDBytes
    }
}

/// Builds a forest in pre-order from a format reader's events (`NodeSink`); slot =
/// position, no gaps (the first edit that needs room spreads the positions).
///
/// A reader (the JSON upload parser of `TreeFormats`, say) calls `beginNode()`, the
/// setters, and `endNode()` per node, then `finish()` for the forest. The builder
/// enforces what needs the whole forest: id uniqueness and the node limit.
public struct ForestBuilder: NodeSink {
    @usableFromInline var forest = Forest()
    /// Positions of the open nodes, outermost first.
    @usableFromInline var open: [Int32] = []
    /// Nodes begun so far: the next node's slot and position (the same while building,
    /// so `slotAt` and `positionOf` are only made by `finish()`).
    @usableFromInline var nodeCount: Int32 = 0
    /// The node count the columns were sized for.
    private let reservedNodes: Int
    @usableFromInline let limits: ForestLimits
    /// Nodes that already exist elsewhere (for a fragment inserted into a forest).
    @usableFromInline let existingCount: Int
    /// Whether an id is taken outside this document.
    private let isTakenOutside: (UnsafeRawBufferPointer) -> Bool
    /// Explicit ids of the form `~N`: they may collide with implicit ids given later.
    private var tildeIDs: [Slot] = []
    /// Nodes to insert into a forest: id-less nodes get their ids there.
    private let isFragment: Bool

    /// A builder of a new forest within `limits`; `expectedBytes`, the size of the
    /// document read, sizes the columns up front, or `expectedNodes` when the reader knows
    /// (or can estimate) how many nodes come: a format whose nodes are much smaller or
    /// larger than nested JSON's (about 24 bytes a node at the least) neither copies its
    /// columns as they grow nor zeroes id references for nodes that never come.
    public init(limits: ForestLimits = ForestLimits(), expectedBytes: Int = 0, expectedNodes: Int? = nil) {
        self.init(limits: limits, expectedBytes: expectedBytes, expectedNodes: expectedNodes, existingCount: 0,
                  isTakenOutside: { _ in false }, isFragment: false)
    }

    /// A builder of a fragment to insert into a forest of `existingCount` nodes whose
    /// ids `isTakenOutside` knows (see `TreeStore.fragmentBuilder`).
    init(limits: ForestLimits, expectedBytes: Int, expectedNodes: Int? = nil, existingCount: Int,
         isTakenOutside: @escaping (UnsafeRawBufferPointer) -> Bool, isFragment: Bool) {
        self.isFragment = isFragment
        self.limits = limits
        self.existingCount = existingCount
        self.isTakenOutside = isTakenOutside
        // Reserve from the document size; untouched capacity costs no resident memory.
        let nodes = min(limits.maxNodes, max(16, expectedNodes ?? expectedBytes / 24))
        reservedNodes = nodes
        forest.endAt.reserveCapacity(nodes)
        forest.depth.reserveCapacity(nodes)
        forest.parentSlot.reserveCapacity(nodes)
        forest.titleRef.reserveCapacity(nodes)
        forest.flags.reserveCapacity(nodes)
        nodeStage = NodeStage(expectedNodes: nodes)
        forest.titles.reserve(max(64, expectedBytes / 2))
        titleStage = PoolStage(expectedBytes: expectedBytes)
        dataStage = PoolStage(expectedBytes: expectedBytes)
        idStage = PoolStage(expectedBytes: expectedBytes)
    }

    @inlinable
    public mutating func beginNode() throws(NodeSinkError) {
        let p = nodeCount
        if Int(p) + existingCount >= limits.maxNodes {
            throw NodeSinkError(kind: .limitExceeded("more than \(limits.maxNodes) nodes"))
        }
        if nodeStage.isFull { nodeStage.flush(into: &forest) }
        nodeStage.append(end: p + 1, level: Int32(open.count), parent: open.last ?? -1)
        nodeCount = p + 1
        open.append(p)
    }

    /// The nodes begun last, before they join the forest's node columns (see `NodeStage`):
    /// the builder reads and writes a node's columns through `set` and `updateFlags`.
    @usableFromInline var nodeStage: NodeStage

    /// Writes `value` into `column` of the node begun `slot`-th, staged or not.
    @inlinable @inline(__always)
    mutating func set(_ column: NodeStage.Column, of slot: Int, _ value: UInt32) {
        if nodeStage.holds(slot) {
            nodeStage[column, slot] = value
            return
        }
        switch column {
        case .end: forest.endAt[slot] = Int32(bitPattern: value)
        case .level: forest.depth[slot] = Int32(bitPattern: value)
        case .parent: forest.parentSlot[slot] = Int32(bitPattern: value)
        case .title: forest.titleRef[slot] = value
        case .flags: forest.flags[slot] = NodeFlags(rawValue: UInt8(truncatingIfNeeded: value))
        }
    }

    /// Changes the flags of the node begun `slot`-th, staged or not.
    @inlinable @inline(__always)
    mutating func updateFlags(of slot: Int, _ change: (inout NodeFlags) -> Void) {
        if nodeStage.holds(slot) {
            var flags = NodeFlags(rawValue: UInt8(truncatingIfNeeded: nodeStage[.flags, slot]))
            change(&flags)
            nodeStage[.flags, slot] = UInt32(flags.rawValue)
        } else {
            change(&forest.flags[slot])
        }
    }

    public mutating func setTitle(_ utf8: UnsafeRawBufferPointer) throws(NodeSinkError) {
        let slot = Int(open.last!)
        set(.title, of: slot, titleStage.append(to: &forest.titles, utf8))
    }

    /// Titles, data and ids (checked in bulk) on their way to the forest's pools, in
    /// batches (see `PoolStage`): the pools (and the node columns, see `nodeStage`) are
    /// complete only after `flushStages()`, which whatever reads them calls first
    /// (`appendPart`, `indexDeferredIDs`, `finish`).
    private var titleStage: PoolStage, dataStage: PoolStage, idStage: PoolStage

    private mutating func flushStages() {
        nodeStage.flush(into: &forest)
        titleStage.flush(into: &forest.titles)
        dataStage.flush(into: &forest.dataPool)
        idStage.flush(into: &forest.ids.pool)
    }

    public mutating func setStringID(_ utf8: UnsafeRawBufferPointer) throws(NodeSinkError) {
        if utf8.count > limits.maxIDBytes {
            throw NodeSinkError(kind: .idTooLong(bytes: utf8.count, limit: limits.maxIDBytes))
        }
        try setID(utf8, form: .string)
    }

    /// Ids given by `setDerivedID` from now on are derived: a node's id is its parent's id,
    /// `separator` and its own last segment; a root's is `rootPrefix` and its segment
    /// (path lists: the separator and nothing; JSON Pointers: `/` and `/`). Only the
    /// segment is stored. Call it before the first node.
    public mutating func deriveIDs(separator: [UInt8], rootPrefix: [UInt8]) {
        precondition(nodeCount == 0, "deriveIDs before the first node")
        forest.ids.scheme = DerivedIDScheme(separator: separator, rootPrefix: rootPrefix)
        derivedSeparator = separator
        derivedRootPrefix = rootPrefix
    }

    /// The node's id is `utf8`, which is its parent's id (or the root prefix), the
    /// separator and a segment of `segmentCount` bytes, as `deriveIDs` set them: only the
    /// segment is stored, and the id is hashed from the parent's hash and the segment.
    /// - Precondition: `deriveIDs` was called, the parent (if any) has a derived id, and
    ///   `utf8` is composed exactly as described (checked in debug builds).
    public mutating func setDerivedID(_ utf8: UnsafeRawBufferPointer, segmentCount: Int) throws(NodeSinkError) {
        let slot = Slot(rawValue: open.last!)
        let depth = open.count - 1
        let parentEntry = nodeStage.holds(slot.index) ? Int32(bitPattern: nodeStage[.parent, slot.index]) : forest.parentSlot[slot.index]
        let parent = parentEntry < 0 ? nil : Slot(rawValue: parentEntry)
        guard forest.ids.scheme != nil, segmentCount >= 0, segmentCount <= utf8.count,
              parent == nil || (depth <= derivedPath.count && derivedPath[depth - 1].slot == parent) else {
            preconditionFailure("a derived id needs deriveIDs and a parent whose id is derived")
        }
        // The hash from the parent's (kept by depth along the open path, or the context's for
        // a part's top-level node) and the segment.
        let underContext = depth == 0 && partParent >= 0
        var hasher = depth > 0 ? derivedPath[depth - 1].hasher : underContext ? partContext[partParent] : IDHasher()
        if depth == 0 && !underContext {
            derivedRootPrefix.withUnsafeBytes { hasher.combine($0) }
        } else {
            derivedSeparator.withUnsafeBytes { hasher.combine($0) }
        }
        hasher.combine(UnsafeRawBufferPointer(rebasing: utf8[(utf8.count - segmentCount)...]))
        if derivedPath.count > depth {
            derivedPath[depth] = (slot, hasher)
        } else {
            derivedPath.append((slot, hasher))
        }
        try setID(utf8, form: .derived(parent: parent, segmentCount: segmentCount), hash: hasher.finalize())
        assert(IDTable.hash(utf8) == hasher.finalize() || !partContext.isEmpty, "a derived id composed otherwise than given")
    }

    /// Makes this builder a part (see `appendPart`) whose top-level nodes may have derived
    /// ids under nodes of the builder it will join: `ids` are the ids of that builder's open
    /// nodes, outermost first (each derived under the one before it, the first a root).
    /// Before each top-level node, `setPartParent` says which of them it goes under.
    package mutating func deriveIDs(under ids: [[UInt8]]) {
        precondition(forest.ids.scheme != nil && nodeCount == 0, "deriveIDs(under:) after deriveIDs, before the first node")
        partContext = ids.map { id in
            var hasher = IDHasher()
            id.withUnsafeBytes { hasher.combine($0) }
            return hasher
        }
    }

    /// The node the next top-level node goes under: an index of the ids given to
    /// `deriveIDs(under:)`, or -1 for the top level.
    package mutating func setPartParent(_ index: Int) {
        precondition(index >= -1 && index < partContext.count && open.isEmpty, "setPartParent: an index of the context, between top-level nodes")
        partParent = index
        partParents.append(index)
    }

    /// Each `setPartParent`, in order: the `under` of `appendPart`.
    package private(set) var partParents: [Int] = []
    /// A part's context: the hash states of the ids of the nodes it goes under.
    private var partContext: [IDHasher] = []
    private var partParent = -1

    /// The nodes along the open path whose ids are derived, by depth, with their ids' hash
    /// states (an entry past the open path's depth is stale: its slot is no parent).
    private var derivedPath: [(slot: Slot, hasher: IDHasher)] = []
    /// The scheme's bytes, kept here so that a derived id costs no copy of the scheme.
    private var derivedSeparator: [UInt8] = []
    private var derivedRootPrefix: [UInt8] = []

    public mutating func setIntegerID(_ value: Int64) throws(NodeSinkError) {
        try value.withDecimalText { (text) throws(NodeSinkError) in try setID(text, form: .integer) }
    }

    /// Records `key` as the open node's id (`hash`: its hash when known).
    private mutating func setID(_ key: UnsafeRawBufferPointer, form: IDTable.Form, hash: UInt64? = nil) throws(NodeSinkError) {
        if isFragment, isTakenOutside(key) {
            throw NodeSinkError(kind: .duplicateID(String(decoding: key, as: UTF8.self)))
        }
        let slot = Slot(rawValue: open.last!)
        if forest.ids.refs.isEmpty { forest.ids.refs.reserveCapacity(reservedNodes) }  // filled as ids come
        if !indexesIDs {
            forest.ids.appendEntry(slot: slot, key: key, form: form, stage: &idStage)
        } else if defersIDChecks {
            if deferredIDs.isEmpty { deferredIDs.reserveCapacity(reservedNodes) }
            forest.ids.appendEntry(slot: slot, key: key, form: form, stage: &idStage)
            deferredIDs.append(slot: slot, hash: hash ?? IDTable.hash(key))
        } else {
            idStage.flush(into: &forest.ids.pool)  // this entry goes after the staged ones
            if !forest.ids.insertIfAbsent(slot: slot, key: key, form: form) {
                throw NodeSinkError(kind: .duplicateID(String(decoding: key, as: UTF8.self)))
            }
        }
        updateFlags(of: slot.index) { $0.remove(.implicitID) }
        if Forest.generatedNumber(key) != nil { tildeIDs.append(slot) }
    }

    /// Whether ids are indexed (checked for duplicates, as they come or in bulk). A fragment
    /// whose reader has checked its ids among themselves (a row table does) sets it to
    /// false: its ids are only stored, for `TreeStore.insert` to index where the fragment
    /// goes (ids taken outside are still refused as they come), and the fragment's forest
    /// cannot look its ids up.
    package var indexesIDs = true

    /// Whether ids are only recorded as they come, and checked for duplicates and indexed
    /// all at once by `indexDeferredIDs()` (much faster for many ids: the hash table is
    /// filled partition by partition). A reader that sets it calls `indexDeferredIDs()`
    /// before `finish()`; when that finds a duplicate, the reader reads the body again
    /// without deferring, to report the duplicate where it is (`buildCheckingIDsInBulk`
    /// does both). Ids taken outside (by the forest a fragment goes into) are still
    /// refused as they come.
    package var defersIDChecks = false
    /// The ids that wait for `indexDeferredIDs()` (their slots, and their hashes taken
    /// while the ids were at hand), in order: those of parts joined (`appendPart`) and
    /// before them this builder's own, then those that came to this builder since.
    private var joinedDeferredIDs: [DeferredIDs] = []
    private var deferredIDs = DeferredIDs()

    /// Checks and indexes the ids recorded while `defersIDChecks` was set.
    /// - Returns: false when some id is a duplicate (of an earlier node's): the builder is
    ///   then of no further use.
    /// - Complexity: O(ids + their bytes) expected
    package mutating func indexDeferredIDs() -> Bool {
        flushStages()
        let runs = (joinedDeferredIDs + [deferredIDs]).filter { !$0.isEmpty }
        joinedDeferredIDs = []
        deferredIDs = DeferredIDs()
        return runs.isEmpty || forest.ids.indexDeferred(runs) == nil
    }

    /// Builds a forest with `fill` (which gets one builder, `builders[0]`, from `make`),
    /// checking ids all at once at the end (`defersIDChecks`): much faster for many ids.
    /// When that finds a duplicate, or `fill` throws, it fills a fresh builder again,
    /// checking each id as it comes, so that the error thrown is the first in input order
    /// (a failed upload costs two reads; a good one, one).
    /// - Complexity: that of `fill`, twice on an error
    package static func buildCheckingIDsInBulk<E: Error>(make: () -> ForestBuilder,
                                                        fill: (inout [ForestBuilder]) throws(E) -> Void) throws(E) -> Forest {
        do {
            var builders = [make()]
            builders[0].defersIDChecks = true
            try fill(&builders)
            if builders[0].indexDeferredIDs() { return builders[0].finish() }
        } catch {}
        var builders = [make()]
        try fill(&builders)
        return builders[0].finish()
    }

    /// Appends the nodes `part` built from the rest of the same input (read at the same
    /// time, on another thread) as if they had come to this builder after its own: the
    /// top-level nodes of `part`, in order, go under this builder's open node at index
    /// `under[k]` of the open path (-1: at the top level), the open nodes past that index
    /// ending first; the nodes `part` left open stay open here, after the open path that its
    /// last top-level node left. Only more parts, and `endNode`, come after a part.
    ///
    /// Both build new forests, or both fragments for one store (`TreeStore.fragmentBuilder`),
    /// with ids checked in bulk (`defersIDChecks`) and derived alike (or not at all). A part
    /// whose top-level nodes have ids derived under this builder's open nodes was told their
    /// ids (`deriveIDs(under:)`) and, before each top-level node, which one (`setPartParent`,
    /// the same as `under`).
    /// - Returns: false, and nothing changed, when the whole would break a limit (more than
    ///   `maxNodes` nodes, existing ones included, a node at `maxDepth` or deeper), `under` does not fit (one index
    ///   per top-level node of `part`, each within the open path left by the one before), or
    ///   `part` has an id `~N` (which names a slot, so it must come through this builder).
    /// - Complexity: O(nodes of `part` + the bytes of its titles, ids and data)
    package mutating func appendPart(_ part: inout ForestBuilder, under: [Int]) -> Bool {
        flushStages()
        part.flushStages()
        precondition(isFragment == part.isFragment, "appendPart: two new forests or two fragments")
        precondition(forest.ids.scheme == part.forest.ids.scheme, "appendPart: ids derived alike")
        precondition(defersIDChecks && part.defersIDChecks, "appendPart: ids checked in bulk")
        let base = Int(nodeCount), n = Int(part.nodeCount)
        guard part.tildeIDs.isEmpty, existingCount + base + n <= limits.maxNodes else { return false }
        // Check first: each top-level node's place, every level within the limit.
        var k = -1, openCount = open.count, shift = 0
        for j in 0 ..< n {
            if part.forest.parentSlot[j] < 0 {
                k += 1
                guard k < under.count, under[k] >= -1, under[k] < openCount else { return false }
                openCount = under[k] + 1
                shift = openCount
            }
            if Int(part.forest.depth[j]) + shift >= limits.maxDepth { return false }
        }
        guard k + 1 == under.count else { return false }
        // A part's top-level derived ids were hashed under the context it was given.
        if part.forest.ids.scheme != nil {
            guard under == part.partParents || (part.partContext.isEmpty && under.allSatisfy { $0 == -1 }) else { return false }
            guard part.partContext.count <= self.open.count, part.partContext.indices.allSatisfy({ i in
                forest.ids.withKey(slot: Slot(rawValue: self.open[i])) { IDTable.hash($0) } == part.partContext[i].finalize()
            }) else { return false }
        }
        let limit = Int(UInt32.max) - 64
        guard forest.titles.bytes.count + part.forest.titles.bytes.count < limit,
              forest.dataPool.bytes.count + part.forest.dataPool.bytes.count < limit,
              forest.ids.pool.bytes.count + part.forest.ids.pool.bytes.count < limit else { return false }

        // Copied as four jobs, taken in turn by the threads `ParallelWork` gives for the nodes
        // (columns that large are mostly page faults and memory traffic), the largest first: the node columns with their
        // fix pass, the ids, the titles, the data. Each works on columns taken out of the
        // forest (so no copy on write), and frees each of the part's columns once copied, so
        // that the next copy can have its pages while they are warm (on a VM that gives
        // free memory back to its host, pages freed a while ago cost a second fault there).
        // The ids waiting to be indexed are not copied: the part's follow this builder's,
        // moved by `base`.
        let titleBase = UInt32(forest.titles.bytes.count)
        var titles = forest.titles.bytes, data = forest.dataPool.bytes, idPool = forest.ids.pool.bytes
        var dataRef = forest.dataRef, idRefs = forest.ids.refs
        var endAt = forest.endAt, titleRef = forest.titleRef, flags = forest.flags, depth = forest.depth
        var parents = forest.parentSlot
        forest.titles.bytes = []; forest.dataPool.bytes = []; forest.ids.pool.bytes = []
        forest.dataRef = []; forest.ids.refs = []
        forest.endAt = []; forest.titleRef = []; forest.flags = []; forest.depth = []
        forest.parentSlot = []
        var partTitles = part.forest.titles.bytes, partData = part.forest.dataPool.bytes, partIDPool = part.forest.ids.pool.bytes
        var partDataRef = part.forest.dataRef, partIDRefs = part.forest.ids.refs
        var partEndAt = part.forest.endAt, partTitleRef = part.forest.titleRef, partFlags = part.forest.flags, partDepth = part.forest.depth
        part.forest.titles.bytes = []; part.forest.dataPool.bytes = []; part.forest.ids.pool.bytes = []
        part.forest.dataRef = []; part.forest.ids.refs = []
        part.forest.endAt = []; part.forest.titleRef = []; part.forest.flags = []; part.forest.depth = []
        let partParents = part.forest.parentSlot  // read by the ids' job too: freed with the part
        var open = self.open
        let workers = ParallelWork.workerCount(items: base + n)
        ParallelWork.run(4, workers: workers) { job in
            switch job {
            case 0:
                // The nodes, copied whole, then moved: ends, parents and slots by `base`,
                // titles by `titleBase`, a top-level node's parent the open node at its place
                // (the open nodes past it end there), levels below it.
                endAt.append(contentsOf: partEndAt[..<n]); partEndAt = []
                titleRef.append(contentsOf: partTitleRef[..<n]); partTitleRef = []
                flags.append(contentsOf: partFlags[..<n]); partFlags = []
                depth.append(contentsOf: partDepth[..<n]); partDepth = []
                parents.append(contentsOf: partParents[..<n])
                var k = -1, shift = 0
                parents.withUnsafeMutableBufferPointer { parents in
                    depth.withUnsafeMutableBufferPointer { depth in
                        endAt.withUnsafeMutableBufferPointer { endAt in
                            titleRef.withUnsafeMutableBufferPointer { titleRef in
                                for j in base ..< base + n {
                                    endAt[j] &+= Int32(base)
                                    titleRef[j] &+= titleBase
                                    if parents[j] < 0 {
                                        k += 1
                                        while open.count > under[k] + 1 { endAt[Int(open.removeLast())] = Int32(j) }
                                        parents[j] = under[k] >= 0 ? open[under[k]] : -1
                                        shift = under[k] + 1
                                    } else {
                                        parents[j] &+= Int32(base)
                                    }
                                    depth[j] &+= Int32(shift)
                                }
                            }
                        }
                    }
                }
            case 1:
                // The ids: the pool appended whole, references moved by the bytes before
                // them; a derived entry names its parent's slot: the part's moved, or for a
                // top-level node the open node at its place.
                guard !idRefs.isEmpty || !partIDRefs.isEmpty else { return }
                let idBase = idPool.count
                idPool.append(contentsOf: partIDPool); partIDPool = []
                Self.appendReferences(&idRefs, partIDRefs, base: base, count: n, moving: idBase); partIDRefs = []
                if part.forest.ids.scheme != nil {
                    Self.moveDerivedParents(idPool: &idPool, refs: idRefs, parents: partParents, base: base, under: under, open: self.open)
                }
            case 2:
                titles.append(contentsOf: partTitles); partTitles = []
            default:
                guard !dataRef.isEmpty || !partDataRef.isEmpty else { return }
                let dataBase = data.count
                data.append(contentsOf: partData); partData = []
                Self.appendReferences(&dataRef, partDataRef, base: base, count: n, moving: dataBase); partDataRef = []
            }
        }
        forest.titles.bytes = titles; forest.dataPool.bytes = data; forest.ids.pool.bytes = idPool
        forest.dataRef = dataRef; forest.ids.refs = idRefs
        forest.endAt = endAt; forest.titleRef = titleRef; forest.flags = flags; forest.depth = depth
        forest.parentSlot = parents
        joinedDeferredIDs.append(deferredIDs)
        for var run in part.joinedDeferredIDs + [part.deferredIDs] {
            run.moveSlots(by: Int32(base))
            joinedDeferredIDs.append(run)
        }
        deferredIDs = DeferredIDs()
        self.open = open + part.open.map { $0 &+ Int32(base) }
        derivedPath = []  // no node is begun here after a part
        nodeCount = Int32(base + n)
        nodeStage.restart(at: base + n)
        return true
    }

    /// Rewrites the parent slot of each derived id entry of a part's nodes (appended at
    /// `base`, their references in `refs`, their parents in the part `parents`) as
    /// `appendPart` places them.
    private static func moveDerivedParents(idPool: inout ContiguousArray<UInt8>, refs: ContiguousArray<UInt32>, parents: ContiguousArray<Int32>,
                                           base: Int, under: [Int], open: [Int32]) {
        var k = -1
        idPool.withUnsafeMutableBytes { pool in
            refs.withUnsafeBufferPointer { refs in
                parents.withUnsafeBufferPointer { parents in
                    for j in 0 ..< min(parents.count, refs.count - base) {
                        var parent = parents[j]
                        if parent < 0 {
                            k += 1
                            parent = under[k] >= 0 ? open[under[k]] : -1
                        } else {
                            parent &+= Int32(base)
                        }
                        guard refs[base + j] != 0 else { continue }
                        let (start, _) = BytePool.bounds(in: UnsafeRawBufferPointer(pool), at: refs[base + j] - 1)
                        guard pool[start] == IDTable.tagDerived else { continue }
                        pool.storeBytes(of: UInt32(bitPattern: parent).littleEndian, toByteOffset: start + 1, as: UInt32.self)
                    }
                }
            }
        }
    }

    /// `column` cut or padded to `base` references, then `other`'s first `count` (0: none)
    /// moved by `shift`.
    private static func appendReferences(_ column: inout ContiguousArray<UInt32>, _ other: ContiguousArray<UInt32>,
                                         base: Int, count n: Int, moving shift: Int) {
        if column.count > base { column.removeLast(column.count - base) } else { column.append(contentsOf: repeatElement(0, count: base - column.count)) }
        let copied = min(n, other.count)
        column.append(contentsOf: other[..<copied])
        column.append(contentsOf: repeatElement(0, count: n - copied))
        column.withUnsafeMutableBufferPointer { refs in
            for j in base ..< base + copied where refs[j] != 0 { refs[j] &+= UInt32(shift) }
        }
    }

    /// Readies the id table for about `count` explicit ids of about `bytes` bytes in all
    /// (a reader that knows or can estimate what is coming: no rehash of long ids while
    /// they arrive).
    /// - Complexity: O(`count`)
    public mutating func reserveIDs(_ count: Int, bytes: Int = 0) {
        let count = min(count, limits.maxNodes)
        if forest.ids.refs.isEmpty { forest.ids.refs.reserveCapacity(reservedNodes) }  // filled as ids come
        forest.ids.reserve(count)
        if bytes > 0 { forest.ids.pool.reserve(bytes + 3 * count) }
    }

    /// Readies the `data` pool for about `bytes` bytes of raw JSON in all (a reader whose
    /// nodes mostly carry data: no copying as the pool grows).
    /// - Complexity: O(1) (the room is only reserved)
    public mutating func reserveData(bytes: Int) {
        forest.dataPool.reserve(bytes)
    }

    /// Readies the title pool for about `bytes` bytes of titles in all (a reader whose
    /// titles take more than half its input: no copying as the pool grows).
    /// - Complexity: O(1) (the room is only reserved)
    public mutating func reserveTitles(bytes: Int) {
        forest.titles.reserve(bytes)
    }

    @inlinable
    public mutating func setExpanded(_ flag: Bool) {
        updateFlags(of: Int(open.last!)) { if flag { $0.insert(.expanded) } else { $0.remove(.expanded) } }
    }

    @inlinable
    public mutating func setHasChildren(_ flag: Bool) {
        setHasChildren(flag, slot: Int(open.last!))
    }

    /// Sets whether the node begun `slot`-th (0 the first), open or ended, declares children.
    @inlinable
    public mutating func setHasChildren(_ flag: Bool, slot: Int) {
        updateFlags(of: slot) { if flag { $0.insert(.declaresChildren) } else { $0.remove(.declaresChildren) } }
    }

    public mutating func setData(_ rawJSON: UnsafeRawBufferPointer) throws(NodeSinkError) {
        let slot = Int(open.last!)
        if forest.dataRef.count <= slot {
            forest.dataRef.append(contentsOf: repeatElement(0, count: max(slot + 1, reservedNodes) - forest.dataRef.count))
        }
        forest.dataRef[slot] = dataStage.append(to: &forest.dataPool, rawJSON) + 1
    }

    @inlinable
    public mutating func endNode() {
        set(.end, of: Int(open.removeLast()), UInt32(bitPattern: nodeCount))
    }

    /// How many nodes are begun and not yet ended.
    package var openNodeCount: Int { open.count }

    /// The slot of the open node at `index` of the open path (0: the outermost).
    package func slotOfOpenNode(at index: Int) -> Int { Int(open[index]) }

    /// The finished forest: generated ids settled (unless it is a fragment, whose
    /// id-less nodes get their ids from the forest they are inserted into), optional
    /// columns sized. Call it once, after the last `endNode()`.
    /// - Complexity: O(n)
    public mutating func finish() -> Forest {
        precondition(deferredIDs.isEmpty && joinedDeferredIDs.isEmpty, "indexDeferredIDs() must come before finish()")
        flushStages()
        let n = Int(nodeCount)
        forest.count = n
        forest.slotAt = Forest.denseSlots(n)
        forest.positionOf = Forest.denseSlots(n)  // its own buffer: an edit changes one of them
        forest.segmentLoad = Forest.denseSegmentLoads(n)
        forest.implicitIDLimit = Int32(n)
        forest.nextGeneratedID = Int64(n)
        if !forest.dataRef.isEmpty {
            // Sized to the capacity when data was first set; the columns may have grown since
            // (a document of very short nodes, e.g. CSV rows, outgrows `expectedBytes / 24`).
            if forest.dataRef.count > n {
                forest.dataRef.removeLast(forest.dataRef.count - n)
            } else {
                forest.dataRef.append(contentsOf: repeatElement(0, count: n - forest.dataRef.count))
            }
        }
        if !forest.ids.refs.isEmpty {
            forest.ids.refs.removeLast(max(0, forest.ids.refs.count - n))
            forest.ids.growRefs(to: n)
        }
        // An explicit id `~N` names what would be the implicit id of slot N: give that
        // slot a generated explicit id instead.
        for slot in tildeIDs where !isFragment {
            let n = forest.ids.withKey(slot: slot) { Forest.generatedNumber($0)! }
            if n < Int64(forest.implicitIDLimit), forest.flags[Int(n)].contains(.implicitID) {
                forest.assignGeneratedID(slot: Slot(Int(n)))
            }
        }
        return forest
    }
}

extension Forest {
    /// Gives `slot` a fresh explicit id `~N` that no node has and no implicit id can take.
    mutating func assignGeneratedID(slot: Slot) {
        while true {
            var text = "~\(nextGeneratedID)"
            nextGeneratedID += 1
            let taken = text.withUTF8 { idExists(UnsafeRawBufferPointer($0)) }
            if taken { continue }
            flags[slot.index].remove(.implicitID)
            ids.growRefs(to: flags.count)
            text.withUTF8 { ids.insert(slot: slot, key: UnsafeRawBufferPointer($0), isInteger: false) }
            return
        }
    }
}
