/// How the position-indexed columns make room for edits: a packed-memory array.
///
/// Positions are grouped in segments of `segmentSize`; nodes stay in pre-order, with
/// gaps spread between them. Inserting `k` nodes uses gaps at the insertion point
/// when there are enough; otherwise the nodes of the smallest aligned window of
/// segments around it that stays below its density limit are spread evenly over the
/// window, with `k` gaps reserved at the point. A single segment may fill up; the
/// limit falls to `topDensity` for the window of all segments. When even that is too
/// full, the columns grow so that the nodes fill `spreadDensity` of them. A freshly
/// built forest has no gaps: its first insertion spreads it. When deletions leave
/// most positions empty, the columns shrink (`shrinkIfSparse`).
///
/// An insertion thus moves O(log² n) nodes amortized (usually only the few between
/// its place and the nearest gaps), taking a subtree out moves none, and growing or
/// shrinking the columns, rare and O(n), moves them all.
extension Forest {
    #if TREE_INVARIANTS
    /// Debug builds use segments of 8 positions, so that the model test's small trees
    /// go through windows of many segments, growth and shrinking.
    static let segmentShift = 3
    #else
    static let segmentShift = 9
    #endif
    static let segmentSize = 1 << segmentShift
    /// The share of positions holding nodes after the columns grow.
    static let spreadDensity = 0.9
    /// The most the window of all segments may hold before the columns grow.
    static let topDensity = 0.96

    /// Positions `0 ..< n` holding slots `0 ..< n`, as a new forest has them (`slotAt`
    /// and `positionOf`).
    /// - Complexity: O(n), written once
    static func denseSlots(_ n: Int) -> ContiguousArray<Int32> {
        .filled(count: n) { part, start in
            for i in part.indices { part.initializeElement(at: i, to: Int32(truncatingIfNeeded: start &+ i)) }
        }
    }

    /// The segment loads of `denseSlots(n)`: every segment full but the last.
    static func denseSegmentLoads(_ n: Int) -> ContiguousArray<Int32> {
        var loads = ContiguousArray<Int32>(repeating: Int32(segmentSize), count: (n + segmentSize - 1) >> segmentShift)
        if n & (segmentSize - 1) != 0 { loads[loads.count - 1] = Int32(n & (segmentSize - 1)) }
        return loads
    }

    /// The number of nodes in each segment of `slotAt`.
    /// - Complexity: O(positions)
    static func segmentLoads(_ slotAt: ContiguousArray<Int32>) -> ContiguousArray<Int32> {
        var loads = ContiguousArray<Int32>(repeating: 0, count: (slotAt.count + segmentSize - 1) >> segmentShift)
        slotAt.withUnsafeBufferPointer { slots in
            for p in slots.indices where slots[p] >= 0 { loads[p >> segmentShift] += 1 }
        }
        return loads
    }

    /// Opens `k` consecutive gaps at the insertion point `q`: every node before `q`
    /// stays before them, every node at or after `q` after them.
    /// - Returns: the first of the gaps, and how nodes moved, if any did.
    /// - Complexity: O(k + gaps at `q`) when they suffice; else O(window) for the
    ///   window respread, O(log² n) amortized per node; O(n) when the columns grow
    mutating func makeRoom(_ k: Int, at q: Position) -> (start: Position, relocation: Relocation?) {
        precondition(k > 0, "no room to make")
        let n = capacity
        var before = 0
        while before < k && q.offset - before > 0 && isGap(q - before - 1) { before += 1 }
        var after = 0
        while before + after < k && q.offset + after < n && isGap(q + after) { after += 1 }
        if before + after >= k { return (q - before, nil) }
        if let window = nearbyGaps(k, at: q) {
            let (start, relocation) = respread(window, capacity: nil, reserving: k, at: q)
            return (start, relocation)
        }

        let segments = segmentLoad.count
        if n > 0 {
            var levels = 0
            while 1 << levels < segments { levels += 1 }
            let segment = min(q.offset, n - 1) >> Forest.segmentShift
            var lo = segment, hi = segment + 1
            var load = Int(segmentLoad[segment])
            for h in 0 ... levels {
                let newLo = (segment >> h) << h, newHi = min(segments, newLo + (1 << h))
                for s in newLo ..< lo { load += Int(segmentLoad[s]) }
                for s in hi ..< newHi { load += Int(segmentLoad[s]) }
                (lo, hi) = (newLo, newHi)
                let window = Position(lo << Forest.segmentShift) ..< Position(min(n, hi << Forest.segmentShift))
                let limit = h == 0 ? 1.0 : 1.0 - (1.0 - Forest.topDensity) * Double(h) / Double(levels)
                if Double(load + k) <= limit * Double(window.count) {
                    let (start, relocation) = respread(window, capacity: nil, reserving: k, at: q)
                    return (start, relocation)
                }
            }
        }
        let (start, relocation) = respread(positions, capacity: Forest.spreadCapacity(count + k), reserving: k, at: q)
        reserveForGrowth()
        return (start, relocation)
    }

    /// Reserves room for the slot-indexed columns, the id column and the title pool to
    /// grow by a quarter, when the position columns grow: a later insertion then does
    /// not pay for copying them (untouched capacity costs no resident memory).
    /// - Complexity: O(n) when it reallocates
    private mutating func reserveForGrowth() {
        let slots = flags.count + flags.count / 4 + 16
        positionOf.reserveCapacity(slots)
        parentSlot.reserveCapacity(slots)
        titleRef.reserveCapacity(slots)
        flags.reserveCapacity(slots)
        if !dataRef.isEmpty { dataRef.reserveCapacity(slots) }
        titles.reserve(titles.bytes.count + titles.bytes.count / 4 + 1024)
        // Inserted nodes without ids get generated ones, which need the id column: an
        // uploaded forest without ids has none yet. Made here, in the first edit's O(n),
        // rather than in a later insertion.
        ids.refs.reserveCapacity(slots)
        ids.growRefs(to: flags.count)
    }

    /// The smallest range from `q` rightwards, or else leftwards, that holds `k` gaps,
    /// if one is short: packing its nodes away from `q` opens the room at `q` while
    /// moving only them (the common case: the gaps of a spread segment are a few
    /// positions apart).
    /// - Complexity: O(`nearbyLimit`)
    private func nearbyGaps(_ k: Int, at q: Position) -> Range<Position>? {
        let limit = Forest.nearbyLimit + k
        var gaps = 0
        var r = q
        while r.offset < capacity && r - q < limit {
            if isGap(r) { gaps += 1; if gaps == k { return q ..< r + 1 } }
            r += 1
        }
        gaps = 0
        var l = q
        while l.offset > 0 && q - l < limit {
            l -= 1
            if isGap(l) { gaps += 1; if gaps == k { return l ..< q } }
        }
        return nil
    }

    /// How far `makeRoom` looks for gaps near the insertion point before it spreads a window.
    static let nearbyLimit = 32

    /// Spreads the nodes over fewer positions when they fill less than a third of
    /// `spreadDensity` (after large deletions), so that memory follows the node count down.
    /// - Complexity: O(positions) when it shrinks, O(1) otherwise
    mutating func shrinkIfSparse() -> Relocation? {
        let capacity = Forest.spreadCapacity(count)
        guard self.capacity > 3 * capacity else { return nil }
        return respread(positions, capacity: capacity, reserving: 0, at: Position(0)).1
    }

    /// The number of positions that `nodes` fill to `spreadDensity`, in whole segments.
    static func spreadCapacity(_ nodes: Int) -> Int {
        let needed = Int((Double(max(nodes, 1)) / spreadDensity).rounded(.up))
        return ((needed + segmentSize - 1) >> segmentShift) << segmentShift
    }

    /// Spreads the nodes of `window` evenly over it (or, given a new `capacity`, over
    /// all of the new columns), with `k` consecutive gaps where the insertion point
    /// `q` falls among them.
    /// - Complexity: O(window) or O(capacity)
    private mutating func respread(_ window: Range<Position>, capacity newCapacity: Int?, reserving k: Int,
                                   at q: Position) -> (Position, Relocation) {
        var items = ContiguousArray<Int32>()  // old positions of the window's nodes, in order
        var reservedAt = 0  // how many of them precede the insertion point
        forEachPosition(in: window) { p in
            if p < q { reservedAt += 1 }
            items.append(p.entry)
        }
        let target = newCapacity.map { Position(0) ..< Position($0) } ?? window
        let width = target.count, m = items.count + k
        // The j-th of the m nodes (the k new ones counted in place) goes to `place(j)`;
        // width ≥ m, so places are at least one apart and the k new ones can be consecutive.
        func place(_ j: Int) -> Position { m == 0 ? target.lowerBound : target.lowerBound + j * width / m }
        let start = place(reservedAt)

        var source = ContiguousArray<Int32>(repeating: -1, count: width)
        var newOfOld = ContiguousArray<Int32>(repeating: -1, count: window.count)
        for (i, old) in items.enumerated() {
            let new = place(i < reservedAt ? i : i + k)
            source[new - target.lowerBound] = old
            newOfOld[Position(entry: old) - window.lowerBound] = new.entry
        }
        // An end moves with the last descendant it follows.
        func moved(_ end: Int32) -> Int32 {
            let last = Position(entry: end) - 1
            return window.contains(last) ? newOfOld[last - window.lowerBound] + 1 : end
        }
        var slots = ContiguousArray<Int32>(repeating: Forest.gap, count: width)
        var depths = ContiguousArray<Int32>(repeating: 0, count: width)
        var ends = ContiguousArray<Int32>(repeating: 0, count: width)
        for i in 0 ..< width where source[i] >= 0 {
            let old = Int(source[i])
            slots[i] = slotAt[old]
            depths[i] = depth[old]
            ends[i] = moved(endAt[old])
            positionOf[Int(slotAt[old])] = (target.lowerBound + i).entry
        }
        if newCapacity != nil {
            slotAt = slots
            depth = depths
            endAt = ends
            segmentLoad = Forest.segmentLoads(slotAt)
        } else {
            // Ancestors before the window whose last descendant is in it: the
            // ancestors of its first node.
            if let first = items.first {
                var a = parent(ofSlot: slot(at: Position(entry: first)))
                while let s = a {
                    let pa = position(ofSlot: s).offset
                    if Position(entry: endAt[pa]) - 1 >= window.upperBound { break }
                    endAt[pa] = moved(endAt[pa])
                    a = parent(ofSlot: s)
                }
            }
            let columns = window.lowerBound.offset ..< window.upperBound.offset
            slotAt.replaceSubrange(columns, with: slots)
            depth.replaceSubrange(columns, with: depths)
            endAt.replaceSubrange(columns, with: ends)
            for s in columns.lowerBound >> Forest.segmentShift ..< (columns.upperBound + Forest.segmentSize - 1) >> Forest.segmentShift {
                var load: Int32 = 0
                for p in s << Forest.segmentShift ..< min(capacity, (s + 1) << Forest.segmentShift) where slotAt[p] >= 0 { load += 1 }
                segmentLoad[s] = load
            }
        }
        return (start, Relocation(range: target, source: source, resized: newCapacity != nil))
    }

    /// Takes the subtree at `p` out of the positions: they become gaps, the nodes
    /// keep their slots. Ancestors whose last descendant was in it now end before it.
    /// - Returns: the subtree's nodes in pre-order, compact.
    /// - Complexity: O(positions of the subtree + depth)
    mutating func takeOut(_ p: Position) -> Run {
        let end = subtreeEnd(of: p)
        let root = slot(at: p)
        let rootDepth = depth[p.offset]
        var run = Run()
        var compactIndex = ContiguousArray<Int32>(repeating: -1, count: end - p)
        for q in p ..< end where !isGap(q) {
            compactIndex[q - p] = Int32(run.slots.count)
            run.slots.append(slot(at: q))
            run.depths.append(depth[q.offset] - rootDepth)
            run.ends.append(endAt[q.offset])
        }
        for j in run.ends.indices { run.ends[j] = compactIndex[Position(entry: run.ends[j]) - 1 - p] + 1 }
        for q in p.offset ..< end.offset where slotAt[q] >= 0 {
            positionOf[Int(slotAt[q])] = -1
            slotAt[q] = Forest.gap
            segmentLoad[q >> Forest.segmentShift] -= 1
        }
        count -= run.slots.count
        let newEnd = endOfNodes(before: p).entry
        var a = parent(ofSlot: root)
        while let s = a {
            let pa = position(ofSlot: s).offset
            if endAt[pa] != end.entry { break }
            endAt[pa] = newEnd
            a = parent(ofSlot: s)
        }
        return run
    }

    /// Puts `run` into the gaps `start ..< start + run.count` (made by `makeRoom`),
    /// its roots children of `parent` (roots when nil). Ancestors that now end
    /// inside the run end after it.
    /// - Complexity: O(run + depth)
    mutating func put(_ run: Run, at start: Position, parent: Slot?) {
        let k = run.slots.count
        let base = parent.map { depth[position(ofSlot: $0).offset] + 1 } ?? 0
        let parentEntry = parent?.rawValue ?? -1
        for j in 0 ..< k {
            let p = (start + j).offset
            let slot = run.slots[j]
            slotAt[p] = slot.rawValue
            depth[p] = base + run.depths[j]
            endAt[p] = start.entry + run.ends[j]
            positionOf[slot.index] = Int32(p)
            if run.depths[j] == 0 { parentSlot[slot.index] = parentEntry }
            segmentLoad[p >> Forest.segmentShift] += 1
        }
        count += k
        let end = (start + k).entry
        var a = parent
        while let s = a {
            let pa = position(ofSlot: s).offset
            if endAt[pa] >= end { break }
            endAt[pa] = end
            a = self.parent(ofSlot: s)
        }
    }
}

/// Nodes in pre-order without gaps, as `takeOut` returns them and `put` takes them:
/// their slots, levels relative to the run's roots, and subtree ends relative to
/// the run's start.
struct Run {
    var slots = ContiguousArray<Slot>()
    var depths = ContiguousArray<Int32>()
    var ends = ContiguousArray<Int32>()
    var count: Int { slots.count }
}

/// How nodes moved when an edit made room: views move what they keep by position
/// the same way.
struct Relocation {
    /// The positions rewritten: a window, or all of them when the columns grew.
    let range: Range<Position>
    /// For each position of `range`, the position its node had before (as a column
    /// stores it), or -1.
    let source: ContiguousArray<Int32>
    /// Whether the columns changed size (then `range` is all of them).
    let resized: Bool
}
