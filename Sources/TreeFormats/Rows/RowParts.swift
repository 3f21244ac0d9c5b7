import TreeEngine

/// The rows' fast path (`PartedReader`): a body in pre-order built while it is read
/// (`RowStreamer`), in parts at once when it is large. A part after the first starts at
/// the first row after its offset and reads its rows as the first part does, but a row
/// whose parent is not open in it becomes one of its top-level nodes; the join hangs each
/// under the open node of the parts before whose id its parent names, found as a one-pass
/// read finds it (the innermost first), and leaves the part's open nodes open for the next.
/// Nil when anything is not as simple as that (a rule broken, a row not in pre-order, an
/// id `~N` in a later part that does not name its own slot, a duplicate id).
struct RowParts<Reader: RowReader>: PartedReader {
    let bytes: UnsafeRawBufferPointer
    let limits: ForestLimits
    let dialect: CSVDialect
    /// The store a fragment goes into; nil for a new forest.
    let target: RowTarget?

    /// A part read: its reader (whose table holds what the spans of its ids point into)
    /// and where its first row starts.
    struct Part {
        var reader: Reader
        var start: Int
    }

    var byteCount: Int { bytes.count }

    func readPart(_ index: Int, of count: Int, from: Int?, to: Int?) -> Part? {
        var reader = Reader(bytes, limits: limits, dialect: dialect)
        reader.table.existingCount = target?.existingCount ?? 0
        // Sized as the whole body (untouched room costs nothing): columns that large are
        // mapped on their own, so they go back to the system when the part is freed, not
        // into malloc's heaps (which would keep them resident).
        reader.streamer = RowStreamer(target: target, limits: limits, expectedBytes: bytes.count, isPart: index > 0)
        guard (try? reader.readPrelude()) != nil else { return nil }
        if let from { reader.position = reader.rowStart(after: from) }
        let start = reader.position
        reader.stopAfter = to ?? .max
        guard (try? reader.readRows()) != nil, !reader.streamer!.stopped else { return nil }
        return Part(reader: reader, start: start)
    }

    func join(_ parts: inout [Part]) -> RowStreamer? {
        guard var joined = parts[0].reader.streamer.take() else { return nil }
        /// The ids of the open nodes, each with the part whose table holds it.
        var path = joined.openIDs.map { (part: 0, id: $0) }
        for k in 1 ..< parts.count {
            // Each part starts where the one before stopped.
            guard parts[k].start == parts[k - 1].reader.position, var part = parts[k].reader.streamer.take() else { return nil }
            // Ids `~N` of this part named their own slots if it starts where it guessed; an
            // explicit `~N` of the first part naming one of them is a duplicate.
            if target == nil, part.guessedBase >= 0 {
                guard part.guessedBase == joined.count,
                      !joined.implicit.forward.contains(where: { $0 >= joined.count && part.implicit.contains($0) }) else { return nil }
            }
            var under: [Int] = []
            for parent in part.topLevelParents {
                let found = parent.flatMap { parent in
                    parts[k].reader.table.withRaw(parent) { id in
                        path.lastIndex { open in parts[open.part].reader.table.withRaw(open.id) { $0.elementsEqual(id) } }
                    }
                }
                if let found {
                    path.removeLast(path.count - found - 1)
                    under.append(found)
                } else {
                    // Not open: a root, or in a fragment a row under the fragment's parent.
                    if let target {
                        var existing: GroupParent?
                        if let parent {
                            guard let node = target.parent(named: parent, in: parts[k].reader.table) else { return nil }
                            existing = node
                        }
                        guard joined.goes(under: existing) else { return nil }
                    } else if parent != nil {
                        return nil
                    }
                    path.removeAll()
                    under.append(-1)
                }
            }
            guard joined.builder.appendPart(&part.builder, under: under) else { return nil }
            path += part.openIDs.map { (k, $0) }
            joined.count += part.count
        }
        return joined
    }
}

/// Builds nodes while rows are read, as long as they come in pre-order (each row's parent
/// is open when it comes): no rows kept, no second pass. The first row that is not in
/// pre-order, or breaks a rule the builder checks, stops it (`stopped`): the body is then
/// read into a `RowTable`, which reports errors with their places.
struct RowStreamer {
    var builder: ForestBuilder
    /// The ids of the open nodes, outermost first.
    var openIDs: [RowSpan] = []
    var scratch: [UInt8] = []
    var json = JSONWriter(reservingCapacity: 256)
    var implicit = ImplicitIDs()
    /// Nodes built.
    var count = 0
    var stopped = false
    let maxDepth: Int
    /// Whether this reads a later part of the body (`RowParts`): a row whose parent is not
    /// open becomes a top-level node, its parent looked for when the parts are joined.
    let isPart: Bool
    /// In a part: each top-level node's parent id, in order (nil: a root).
    var topLevelParents: [RowSpan?] = []
    /// In a part: the slot of its first node, as its first id `~N` tells (an export names
    /// nodes without an id of their own by their slots, `~slot`), -1 before one comes. The
    /// join checks it against the nodes the parts before built.
    var guessedBase = -1

    /// Building a fragment to insert (`TreeStore.parseCSVFragments`): the store it goes
    /// into, whose node a row whose parent is not open must name (a row without a parent
    /// goes to the top level). Nil for a new forest.
    let target: RowTarget?
    /// For a fragment: where it goes, once its first row tells (nil inside: the top
    /// level). A row that would go elsewhere stops the stream (the table makes a fragment
    /// per parent).
    var fragmentParent: GroupParent??

    /// A streamer of a new forest, or (`target`) of one fragment to insert, its ids checked
    /// against the store's as they come and among themselves all at once at the end.
    init(target: RowTarget?, limits: ForestLimits, expectedBytes: Int, isPart: Bool = false) {
        self.isPart = isPart
        self.target = target
        builder = target?.fragmentBuilder(limits: limits, expectedBytes: expectedBytes) ?? ForestBuilder(limits: limits, expectedBytes: expectedBytes)
        // Ids are checked all at once at the end; a duplicate then sends the body to the
        // `RowTable`, which names its row.
        builder.defersIDChecks = true
        maxDepth = limits.maxDepth
        scratch.reserveCapacity(256)
    }

    /// Builds `row`'s node (its spans refer to `table`'s input and side buffer).
    /// - Returns: false (and `stopped`) when it cannot.
    /// - Complexity: amortized O(1): the open nodes passed to find the parent are closed.
    @inline(__always)
    mutating func stream(_ row: Row, table: RowTable) -> Bool {
        do throws(NodeSinkError) {
            // An id `~N` names slot N, which a part knows only from the first one it reads:
            // every later one must name its own slot too (as an export's do), or it stops.
            if isPart, target == nil, let n = table.withRaw(row.id, { RowTable.generatedNumber($0) }) {
                if guessedBase < 0 && n >= count { guessedBase = n - count }
                guard guessedBase >= 0, n == guessedBase + count else {
                    stopped = true
                    return false
                }
            }
            let slot = target != nil ? -1 : !isPart ? count : guessedBase >= 0 ? guessedBase + count : -1
            if row.flags.contains(.hasParent) {
                var k = openIDs.count - 1
                while k >= 0, !table.equal(openIDs[k], row.parent) { k -= 1 }
                if k < 0 {
                    if isPart {
                        topLevelParents.append(row.parent)
                    } else if let target {
                        // A node of the store; else a row of the body not open (or none, or
                        // the top level for `""`): the table says.
                        guard let existing = target.parent(named: row.parent, in: table) else {
                            stopped = true
                            return false
                        }
                        guard goes(under: existing) else { return false }
                    } else {
                        stopped = true
                        return false
                    }
                    closeOpenNodes()
                } else {
                    while openIDs.count > k + 1 {
                        builder.endNode()
                        openIDs.removeLast()
                    }
                }
            } else {
                guard target == nil || isPart || goes(under: nil) else { return false }
                closeOpenNodes()
                if isPart { topLevelParents.append(nil) }
            }
            guard openIDs.count < maxDepth else {
                stopped = true
                return false
            }
            try table.feed(row, into: &builder, slot: slot, implicit: &implicit, scratch: &scratch, extraJSON: &json)
            openIDs.append(row.id)
            count &+= 1
            return true
        } catch {
            stopped = true
            return false
        }
    }

    /// Whether a top-level row of a fragment may go under `parent` (nil: the top level):
    /// the first decides for the fragment; one that would go elsewhere stops the stream.
    mutating func goes(under parent: GroupParent?) -> Bool {
        guard let fragmentParent else {
            fragmentParent = .some(parent)
            return true
        }
        if fragmentParent != parent { stopped = true }
        return !stopped
    }

    /// Ends every open node.
    mutating func closeOpenNodes() {
        while builder.openNodeCount > 0 { builder.endNode() }
        openIDs.removeAll(keepingCapacity: true)
    }

    /// The forest built (every row read, none stopped it), or nil (and `stopped`) when two
    /// rows have the same id.
    mutating func finish() -> Forest? {
        closeOpenNodes()
        guard builder.indexDeferredIDs() else {
            stopped = true
            return nil
        }
        return builder.finish()
    }

    /// The fragment built, as the one group of its parent (none for a body without rows),
    /// or nil (and `stopped`) when two rows have the same id.
    mutating func finishFragment() -> [RowGroup]? {
        guard let fragmentParent else { return [] }
        return finish().map { [(fragmentParent, $0)] }
    }
}
