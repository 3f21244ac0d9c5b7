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
    /// The pre-order position where a new child of `parent` (a root when nil) at
    /// `index` among its children goes; `index` nil means after the last child.
    /// - Complexity: O(number of children)
    func insertionPosition(parent: NodeHandle?, index: Int?) throws(EditError) -> Int {
        let children = childPositions(ofPosition: parent.map { position(of: $0) })
        guard let index else { return parent.map { position(of: $0) + subtreeCount($0) } ?? count }
        guard index >= 0 && index <= children.count else {
            throw EditError(kind: .indexOutOfRange,
                            message: "index \(index) is out of range: the parent has \(children.count) children (0...\(children.count) allowed)")
        }
        if index < children.count { return children[index] }
        return parent.map { position(of: $0) + subtreeCount($0) } ?? count
    }

    /// Inserts the whole of `fragment` at position `p` under `parent`: ids the fragment
    /// generated become explicit generated ids here. The caller checked that the
    /// fragment's explicit ids are free in this forest.
    /// - Complexity: O(n + fragment size)
    mutating func insert(_ fragment: Forest, at p: Int, parent: NodeHandle?) {
        let k = fragment.count
        if k == 0 { return }
        let parentDepth = parent.map { Int32(level(of: $0)) } ?? -1
        var newSlots = ContiguousArray<Slot>()
        newSlots.reserveCapacity(k)
        for _ in 0 ..< k { newSlots.append(allocateSlot()) }
        // Slot-indexed columns.
        for q in 0 ..< k {
            let slot = Int(newSlots[q])
            let fragSlot = fragment.slotAt[q]
            let fragParent = fragment.parentSlot[Int(fragSlot)]
            parentSlot[slot] = fragParent < 0 ? (parent?.slot ?? -1) : newSlots[Int(fragment.positionOf[Int(fragParent)])]
            titleRef[slot] = fragment.withTitle(of: NodeHandle(slot: fragSlot)) { titles.append($0) }
            flags[slot] = fragment.flags[Int(fragSlot)].subtracting(.implicitID)
            fragment.withData(of: NodeHandle(slot: fragSlot)) { raw in
                guard let raw else { return }
                if dataRef.count < flags.count { dataRef.append(contentsOf: repeatElement(0, count: flags.count - dataRef.count)) }
                dataRef[slot] = dataPool.append(raw) + 1
            }
            if fragment.ids.hasID(slot: fragSlot) {
                let isInteger = fragment.ids.isInteger(slot: fragSlot)
                ids.growRefs(to: flags.count)
                fragment.ids.withKey(slot: fragSlot) { ids.insert(slot: Slot(slot), key: $0, isInteger: isInteger) }
            }
        }
        // Generated ids only once every explicit id of the fragment is known, so
        // that none is taken twice.
        for q in 0 ..< k where !fragment.ids.hasID(slot: fragment.slotAt[q]) {
            assignGeneratedID(slot: newSlots[q])
        }
        // Position-indexed columns.
        subtreeSize.insert(contentsOf: fragment.subtreeSize, at: p)
        depth.insert(contentsOf: fragment.depth.lazy.map { $0 + parentDepth + 1 }, at: p)
        slotAt.insert(contentsOf: fragment.slotAt.lazy.map { newSlots[Int(fragment.positionOf[Int($0)])] }, at: p)
        adjustAncestors(of: parent, by: Int32(k))
        renumberPositions(from: p)
    }

    /// Removes the subtree at position `p`; its slots become free.
    /// - Complexity: O(n)
    mutating func removeSubtree(at p: Int) {
        let s = Int(subtreeSize[p])
        let parent = self.parent(of: node(atPosition: p))
        for q in p ..< p + s {
            let slot = slotAt[q]
            ids.remove(slot: slot)
            titles.release(titleRef[Int(slot)])
            if Int(slot) < dataRef.count && dataRef[Int(slot)] != 0 {
                dataPool.release(dataRef[Int(slot)] - 1)
                dataRef[Int(slot)] = 0
            }
            flags[Int(slot)] = .free
            positionOf[Int(slot)] = -1
            parentSlot[Int(slot)] = -1
            freeSlots.append(slot)
        }
        subtreeSize.removeSubrange(p ..< p + s)
        depth.removeSubrange(p ..< p + s)
        slotAt.removeSubrange(p ..< p + s)
        adjustAncestors(of: parent, by: -Int32(s))
        renumberPositions(from: p)
        compactPoolsIfNeeded()
    }

    /// Moves the subtree of `node` to be the child at `index` of `newParent` (a root
    /// when nil), `index` counted once the node has left its old place.
    /// - Complexity: O(n)
    mutating func move(_ node: NodeHandle, to newParent: NodeHandle?, index: Int?) throws(EditError) {
        if let newParent, isAncestorOrSelf(node, of: newParent) {
            throw EditError(kind: .cycle, message: "cannot move \(id(of: node)) into its own subtree")
        }
        let p = position(of: node)
        let s = Int(subtreeSize[p])
        let sizes = Array(subtreeSize[p ..< p + s])
        let depths = Array(depth[p ..< p + s])
        let slots = Array(slotAt[p ..< p + s])
        let oldParent = parent(of: node)
        // Take the subtree out (positions only; slots stay).
        subtreeSize.removeSubrange(p ..< p + s)
        depth.removeSubrange(p ..< p + s)
        slotAt.removeSubrange(p ..< p + s)
        adjustAncestors(of: oldParent, by: -Int32(s))
        renumberPositions(from: p)
        let target: Int
        do {
            target = try insertionPosition(parent: newParent, index: index)
        } catch {
            // Put it back where it was: nothing changed.
            subtreeSize.insert(contentsOf: sizes, at: p)
            depth.insert(contentsOf: depths, at: p)
            slotAt.insert(contentsOf: slots, at: p)
            adjustAncestors(of: oldParent, by: Int32(s))
            renumberPositions(from: p)
            throw error
        }
        let shift = (newParent.map { Int32(level(of: $0)) } ?? -1) + 1 - depths[0]
        subtreeSize.insert(contentsOf: sizes, at: target)
        depth.insert(contentsOf: depths.lazy.map { $0 + shift }, at: target)
        slotAt.insert(contentsOf: slots, at: target)
        parentSlot[Int(node.slot)] = newParent?.slot ?? -1
        adjustAncestors(of: newParent, by: Int32(s))
        renumberPositions(from: min(p, target))
    }

    /// Replaces the title of `node`.
    /// - Complexity: O(title length), amortized
    mutating func setTitle(of node: NodeHandle, to utf8: UnsafeRawBufferPointer) {
        titles.release(titleRef[Int(node.slot)])
        titleRef[Int(node.slot)] = titles.append(utf8)
        compactPoolsIfNeeded()
    }

    /// Replaces the `data` of `node` with raw JSON bytes.
    /// - Complexity: O(data length), amortized
    mutating func setData(of node: NodeHandle, to raw: UnsafeRawBufferPointer) {
        let s = Int(node.slot)
        if dataRef.count < flags.count { dataRef.append(contentsOf: repeatElement(0, count: flags.count - dataRef.count)) }
        if dataRef[s] != 0 { dataPool.release(dataRef[s] - 1) }
        dataRef[s] = dataPool.append(raw) + 1
        compactPoolsIfNeeded()
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

    private mutating func adjustAncestors(of node: NodeHandle?, by delta: Int32) {
        var s = node?.slot ?? -1
        while s >= 0 {
            subtreeSize[Int(positionOf[Int(s)])] += delta
            s = parentSlot[Int(s)]
        }
    }

    private mutating func renumberPositions(from p: Int) {
        slotAt.withUnsafeBufferPointer { slotAt in
            positionOf.withUnsafeMutableBufferPointer { positionOf in
                for q in p ..< slotAt.count { positionOf[Int(slotAt[q])] = Int32(q) }
            }
        }
    }

    private mutating func compactPoolsIfNeeded() {
        let flags = self.flags
        let live: (Int) -> Bool = { !flags[$0].contains(.free) }
        if titles.wantsCompaction { titles.compact(refs: &titleRef, biased: false, isLive: live) }
        if dataPool.wantsCompaction { dataPool.compact(refs: &dataRef, biased: true, isLive: live) }
        ids.compactIfNeeded(isLive: live)
    }
}
