/// Why an edit was refused. A refused edit changes nothing.
public struct EditError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// `index` is not a position among the parent's children.
        case indexOutOfRange
        /// A node would move into its own subtree.
        case cycle
        /// The forest would hold more nodes than allowed.
        case tooManyNodes
    }
    public var kind: Kind
    public var message: String
    public var description: String { message }
}

extension Forest {
    /// The insertion point (see `makeRoom`) of a new child of `parent` (a root when
    /// nil) at `index` among its children; `index` nil means after the last child.
    /// - Complexity: O(1) without an index, else O(index + gaps between the children)
    func insertionPoint(parent: NodeHandle?, index: Int?) throws(EditError) -> Position {
        let appended = parent.map { subtreeEnd(of: position(of: $0)) } ?? endOfNodes(before: positions.upperBound)
        guard let index else { return appended }
        var seen = 0
        var found: Position?
        if index >= 0 {
            forEachChild(ofPosition: parent.map { position(of: $0) }) { c in
                if seen == index { found = c }
                seen += 1
            } while: { found == nil }
        }
        if let found { return found }
        guard index == seen else {
            let count = childCount(of: parent)
            throw EditError(kind: .indexOutOfRange,
                            message: "index \(index) is out of range: the parent has \(count) children (0...\(count) allowed)")
        }
        return appended
    }

    /// Gives the nodes of `fragment` slots here (titles, data, flags, ids; ids the
    /// fragment generated become explicit generated ids here), not yet placed:
    /// `put` the returned run into room made for it. The caller checked that the
    /// fragment's explicit ids are free in this forest.
    /// - Complexity: O(fragment size)
    mutating func adopt(_ fragment: Forest) -> Run {
        let k = fragment.count
        var run = Run()
        run.slots.reserveCapacity(k)
        for _ in 0 ..< k { run.slots.append(allocateSlot()) }
        // Every node gets an id here (explicit or generated): room for all at once. Many
        // explicit ids (as many as a quarter of those here) are stored first and indexed
        // together, partition by partition (the table's ids are hashed again for that).
        ids.reserve(ids.count + k)
        let inBulk = k >= IDTable.parallelIndexing && k >= ids.count / 4
        var stored = DeferredIDs()
        // A large fragment's pools are appended whole: its entries keep their offsets, moved
        // by the bytes before them (a derived id names slots of the fragment: such ids are
        // stored whole here, one by one).
        let whole = k >= Forest.wholePoolAdoption
        let wholeIDs = whole && inBulk && fragment.ids.scheme == nil
        let titleBase = whole ? titles.appendWhole(fragment.titles) : 0
        let dataBase = whole ? dataPool.appendWhole(fragment.dataPool) : 0
        let idBase = wholeIDs ? ids.pool.appendWhole(fragment.ids.pool) : 0
        if whole && !fragment.dataRef.isEmpty { growDataRefs() }
        for q in 0 ..< k {
            let slot = run.slots[q].index
            let fragSlot = fragment.slot(at: Position(q))
            let fragParent = fragment.parent(ofSlot: fragSlot)
            parentSlot[slot] = fragParent.map { run.slots[fragment.position(ofSlot: $0).offset].rawValue } ?? -1
            flags[slot] = fragment.flags[fragSlot.index].subtracting(.implicitID)
            if whole {
                titleRef[slot] = fragment.titleRef[fragSlot.index] &+ titleBase
                let data = fragSlot.index < fragment.dataRef.count ? fragment.dataRef[fragSlot.index] : 0
                if data != 0 { dataRef[slot] = data &+ dataBase }
            } else {
                titleRef[slot] = fragment.withTitle(of: NodeHandle(slot: fragSlot)) { titles.append($0) }
                fragment.withData(of: NodeHandle(slot: fragSlot)) { raw in
                    guard let raw else { return }
                    growDataRefs()
                    dataRef[slot] = dataPool.append(raw) + 1
                }
            }
            if fragment.ids.hasID(slot: fragSlot) {
                ids.growRefs(to: flags.count)
                if wholeIDs {
                    ids.refs[slot] = fragment.ids.refs[fragSlot.index] &+ idBase
                    stored.append(slot: run.slots[q], hash: fragment.ids.withKey(slot: fragSlot) { IDTable.hash($0) })
                    continue
                }
                let isInteger = fragment.ids.isInteger(slot: fragSlot)
                fragment.ids.withKey(slot: fragSlot) { key in
                    if inBulk {
                        ids.store(slot: run.slots[q], key: key, form: isInteger ? .integer : .string)
                        stored.append(slot: run.slots[q], hash: IDTable.hash(key))
                    } else {
                        ids.insert(slot: run.slots[q], key: key, isInteger: isInteger)
                    }
                }
            }
        }
        if !stored.isEmpty {
            let duplicate = ids.indexDeferred([stored])
            precondition(duplicate == nil, "adopt: an id of the fragment is taken here")
        }
        // Generated ids only once every explicit id of the fragment is known, so
        // that none is taken twice.
        for q in 0 ..< k where !fragment.ids.hasID(slot: fragment.slot(at: Position(q))) {
            assignGeneratedID(slot: run.slots[q])
        }
        run.depths = fragment.depth
        run.ends = fragment.endAt
        readFields(of: run.slots)
        return run
    }

    /// Frees the slots of nodes taken out for good: ids, titles and data go (while
    /// releases are held, only the ids go; the rest waits for `releaseHeld`).
    /// - Complexity: O(run)
    mutating func free(_ run: Run) {
        // Ids go descendants first: a derived id is composed from its ancestors'.
        for slot in run.slots.reversed() { ids.remove(slot: slot) }
        if held != nil {
            for slot in run.slots {
                flags[slot.index] = .free
            }
            held!.runs.append(run)
            held!.slots += run.count
            return
        }
        for slot in run.slots {
            releasePayload(of: slot)
            flags[slot.index] = .free
            parentSlot[slot.index] = -1
            freeSlots.append(slot)
        }
        compactPoolsIfNeeded()
    }

    /// Replaces the title of `node`; returns the old title's reference.
    /// - Complexity: O(title length), amortized
    @discardableResult
    mutating func setTitle(of node: NodeHandle, to utf8: UnsafeRawBufferPointer) -> UInt32 {
        let old = titleRef[node.slot.index]
        titleRef[node.slot.index] = titles.append(utf8)
        if held != nil { held!.titles.append(old) } else { titles.release(old) }
        compactPoolsIfNeeded()
        return old
    }

    /// Replaces the `data` of `node` with raw JSON bytes; returns the old `dataRef` (0: none).
    /// - Complexity: O(data length), amortized
    @discardableResult
    mutating func setData(of node: NodeHandle, to raw: UnsafeRawBufferPointer) -> UInt32 {
        let s = node.slot.index
        growDataRefs()
        let old = dataRef[s]
        dataRef[s] = dataPool.append(raw) + 1
        if old != 0 {
            if held != nil { held!.data.append(old - 1) } else { dataPool.release(old - 1) }
        }
        compactPoolsIfNeeded()
        readFields(of: CollectionOfOne(node.slot))
        return old
    }

    // MARK: Held releases

    /// What a transaction holds back (see `TreeStore.transaction`): old titles and
    /// data, and the slots of deleted nodes, stay as they were, and no pool is
    /// compacted, so that a rollback finds everything where it was.
    struct HeldReleases: Sendable {
        var titles: [UInt32] = []
        /// Offsets in `dataPool`.
        var data: [UInt32] = []
        var runs: [Run] = []
        /// Slots in `runs`.
        var slots = 0
    }

    /// Releases what was held, as if each release had happened when asked for.
    /// - Complexity: O(held)
    mutating func releaseHeld() {
        guard let held else { return }
        self.held = nil
        for run in held.runs {
            for slot in run.slots {
                releasePayload(of: slot)
                parentSlot[slot.index] = -1
                freeSlots.append(slot)
            }
        }
        for ref in held.titles { titles.release(ref) }
        for offset in held.data { dataPool.release(offset) }
        compactPoolsIfNeeded()
    }

    /// Releases the title and data of `slot` (its pool entries become garbage).
    /// - Complexity: O(1)
    mutating func releasePayload(of slot: Slot) {
        let s = slot.index
        titles.release(titleRef[s])
        if s < dataRef.count && dataRef[s] != 0 {
            dataPool.release(dataRef[s] - 1)
            dataRef[s] = 0
        }
    }

    /// Fragments of this many nodes or more are adopted with their pools appended whole.
    static let wholePoolAdoption = 1 << 12

    /// Gives `dataRef` an entry for every slot (it is empty while no node has data).
    private mutating func growDataRefs() {
        if dataRef.count < flags.count { dataRef.append(contentsOf: repeatElement(0, count: flags.count - dataRef.count)) }
    }

    // MARK: Internals

    private mutating func allocateSlot() -> Slot {
        if let slot = freeSlots.popLast() { return slot }
        let slot = Slot(flags.count)
        positionOf.append(-1)
        parentSlot.append(-1)
        titleRef.append(0)
        flags.append(.free)
        if !dataRef.isEmpty { dataRef.append(0) }
        return slot
    }

    private mutating func compactPoolsIfNeeded() {
        if held != nil { return }
        let flags = self.flags
        let live: (Int) -> Bool = { !flags[$0].contains(.free) }
        if titles.wantsCompaction { titles.compact(refs: &titleRef, biased: false, isLive: live) }
        if dataPool.wantsCompaction { dataPool.compact(refs: &dataRef, biased: true, isLive: live) }
        ids.compactIfNeeded(isLive: live)
    }
}
