/// Building a filtered view in its initial state, on several threads.
///
/// In the initial state exactly A is expanded, so the visible rows are A ∪ M and the
/// covers follow from A and M alone: a node in A ∪ M has cover 0, any other node one
/// more than its parent (a root: 1). (A node outside A ∪ M whose parent is in A is
/// excluded: 0 + 1; whose parent is a match outside A: the parent is collapsed, 0 + 1;
/// whose parent is hidden: the parent is collapsed and not excluded, its cover + 1.)
///
/// The build runs in phases, each split between threads by disjoint 64-position
/// words, so no word is written by two threads:
/// 1. the matches by slot (M): every title, or only the matches of a kept view whose
///    query the new one narrows (`FilterQuery.isNarrowing`);
/// 2. each chunk's first match by position;
/// 3. M and A by position, backwards in each chunk: a node is in A exactly when the
///    first match after it lies inside its subtree (before `endAt`);
/// 4. the covers, forwards in each chunk, starting from the chunk's first node's
///    ancestors; and A by slot;
/// 5. the cover index's leaves (`CoverIndex(covers:parts:)`).
/// `isCancelled` is polled while titles are matched and between the phases.
extension ViewState {
    /// A filtered view of `forest` for `query` in its initial state (see `filtered`).
    /// `narrowing`: the matches of a view of the same forest whose query `query`
    /// narrows; only those titles are matched.
    /// - Complexity: O(positions / workers + matched title length / workers)
    static func buildFiltered(_ forest: Forest, query: FilterQuery, narrowing baseView: ViewState?, workers: Int,
                              isCancelled: () -> Bool) throws(Cancelled) -> ViewState {
        let base = baseView?.filter!.matches
        let matcher = NodeMatcher(query)
        let slots = forest.flags.count
        let capacity = forest.capacity
        var matches = Bitset(count: slots)
        var matchCount = 0
        let stop = Flag()
        let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: workers)
        counts.initialize(repeating: 0)
        defer { counts.deallocate() }
        // 1. M by slot.
        withoutActuallyEscaping(isCancelled) { isCancelled in
            forest.flags.withUnsafeBufferPointer { flags in
                forest.withPooledValues(query.text.isEmpty ? [] : query.fields) { fields in
                    forest.withPooledValues(query.conditions.map(\.field)) { conditions in
                        matches.withWordBuffer { out in
                            let run = { (baseWords: UnsafeBufferPointer<UInt64>?) in
                                let job = MatchJob(flags: flags, fields: fields, conditions: conditions, out: out, base: baseWords,
                                                   matcher: matcher, kernel: ASCIIKernel(matcher.text), counts: counts,
                                                   isCancelled: isCancelled, stop: stop)
                                ParallelWork.run(workers) { job.run(part: $0, of: workers) }
                            }
                            if let base { base.words.withUnsafeBufferPointer { run($0) } } else { run(nil) }
                        }
                    }
                }
            }
        }
        if stop.isSet || isCancelled() { throw Cancelled() }
        for c in counts { matchCount += c }
        if query.leavesOnly {
            keepLeaves(&matches, forest)
            matchCount = matches.population
        }
        // The same matches as the narrowed view (a subset of them, as many): when that view
        // is still in its initial state (exactly A expanded), it is this view already.
        if let kept = baseView?.filter, kept.matchCount == matchCount, kept.expanded == kept.ancestors {
            let state = FilterState(matcher: matcher, matches: kept.matches, expanded: kept.expanded, ancestors: kept.ancestors,
                                    matchesBelow: kept.matchesBelow, matchCount: matchCount, workers: workers,
                                    matchIndex: kept.matchIndex)
            return ViewState(filter: state, index: baseView!.index)
        }

        // 2.–4. By position, in chunks of whole words.
        let posWords = (capacity + 63) >> 6
        var matchAt = Bitset(count: capacity)
        var ancestorAt = Bitset(count: capacity)
        var ancestors = Bitset(count: slots)
        let chunkWords = max(64, (posWords + 4 * workers - 1) / (4 * workers))
        let chunks = max(1, (posWords + chunkWords - 1) / chunkWords)
        var firstMatch = [Int](repeating: Int.max, count: chunks + 1)
        var covers = ContiguousArray<Int32>(unsafeUninitializedCapacity: capacity) { out, initialized in
            forest.slotAt.withUnsafeBufferPointer { slotAt in
            forest.depth.withUnsafeBufferPointer { depth in
            forest.endAt.withUnsafeBufferPointer { endAt in
            forest.positionOf.withUnsafeBufferPointer { positionOf in
            forest.parentSlot.withUnsafeBufferPointer { parentSlot in
            forest.flags.withUnsafeBufferPointer { flags in
            matches.withWordBuffer { m in
            matchAt.withWordBuffer { mp in
            ancestorAt.withWordBuffer { ap in
            ancestors.withWordBuffer { a in
            firstMatch.withUnsafeMutableBufferPointer { firstMatch in
                let m = UnsafeBufferPointer(m)
                func range(_ chunk: Int) -> Range<Int> {
                    (chunk * chunkWords << 6) ..< min(capacity, (chunk + 1) * chunkWords << 6)
                }
                @inline(__always) func isMatch(_ p: Int) -> Bool {
                    let s = Int(slotAt[p])
                    return s >= 0 && m[s >> 6] & (1 << UInt64(s & 63)) != 0
                }
                // 2. Each chunk's first match (a scan that mostly stops at once).
                ParallelWork.run(chunks, workers: workers) { chunk in
                    var first = Int.max
                    for p in range(chunk) where isMatch(p) { first = p; break }
                    firstMatch[chunk] = first
                }
                // The first match after each chunk.
                var next = Int.max
                for chunk in stride(from: chunks - 1, through: 0, by: -1) {
                    let own = firstMatch[chunk]
                    firstMatch[chunk] = next
                    if own != Int.max { next = own }
                }
                if isCancelled() { stop.set(); return }
                // 3. M and A by position, backwards.
                ParallelWork.run(chunks, workers: workers) { chunk in
                    let r = range(chunk)
                    var next = firstMatch[chunk]  // the first match after p
                    var w = (r.upperBound - 1) >> 6
                    while w >= r.lowerBound >> 6 {
                        let start = w << 6
                        var matchWord: UInt64 = 0
                        var word: UInt64 = 0
                        var p = min(r.upperBound, start + 64) - 1
                        while p >= start {
                            let s = Int(slotAt[p])
                            if s >= 0 {
                                if next < Int(endAt[p]) { word |= 1 << UInt64(p - start) }
                                if m[s >> 6] & (1 << UInt64(s & 63)) != 0 {
                                    matchWord |= 1 << UInt64(p - start)
                                    next = p
                                }
                            }
                            p -= 1
                        }
                        mp[w] = matchWord
                        ap[w] = word
                        w -= 1
                    }
                }
                if isCancelled() { stop.set(); return }
                let mpr = UnsafeBufferPointer(mp)
                // 4. Covers, forwards: 0 in A ∪ M, else the parent's + 1.
                let apr = UnsafeBufferPointer(ap)
                @inline(__always) func visible(_ p: Int) -> Bool {
                    (mpr[p >> 6] | apr[p >> 6]) & (1 << UInt64(p & 63)) != 0
                }
                ParallelWork.run(chunks, workers: workers) { chunk in
                    let r = range(chunk)
                    // The cover of the open node at each level.
                    var levels = 64
                    var byDepth = UnsafeMutablePointer<Int32>.allocate(capacity: levels)
                    defer { byDepth.deallocate() }
                    @inline(__always) func set(_ d: Int, _ c: Int32) {
                        if d >= levels {
                            let more = UnsafeMutablePointer<Int32>.allocate(capacity: 2 * d)
                            more.update(from: byDepth, count: levels)
                            byDepth.deallocate()
                            byDepth = more
                            levels = 2 * d
                        }
                        byDepth[d] = c
                    }
                    var p = r.lowerBound
                    while p < r.upperBound && slotAt[p] < 0 { out[p] = CoverIndex.gapCover; p += 1 }
                    if p < r.upperBound {
                        // The open ancestors of the chunk's first node, outermost first.
                        var path: [Int] = []
                        var s = parentSlot[Int(slotAt[p])]
                        while s >= 0 { path.append(Int(positionOf[Int(s)])); s = parentSlot[Int(s)] }
                        var c: Int32 = 0
                        for (d, q) in path.reversed().enumerated() {
                            c = visible(q) ? 0 : c + 1
                            set(d, c)
                        }
                    }
                    while p < r.upperBound {
                        if slotAt[p] < 0 { out[p] = CoverIndex.gapCover; p += 1; continue }
                        let d = Int(depth[p])
                        let c: Int32 = visible(p) ? 0 : (d == 0 ? 1 : byDepth[d - 1] + 1)
                        out[p] = c
                        set(d, c)
                        p += 1
                    }
                }
                // A by slot.
                let slotWords = a.count
                let slotChunkWords = max(64, (slotWords + 4 * workers - 1) / (4 * workers))
                ParallelWork.run((slotWords + slotChunkWords - 1) / slotChunkWords, workers: workers) { chunk in
                    for w in chunk * slotChunkWords ..< min(slotWords, (chunk + 1) * slotChunkWords) {
                        var word: UInt64 = 0
                        let start = w << 6
                        for s in start ..< min(slots, start + 64) where !flags[s].contains(.free) {
                            let p = Int(positionOf[s])
                            if apr[p >> 6] & (1 << UInt64(p & 63)) != 0 { word |= 1 << UInt64(s - start) }
                        }
                        a[w] = word
                    }
                }
            }}}}}}}}}}}
            initialized = capacity
        }
        if stop.isSet || isCancelled() { throw Cancelled() }
        // The matches by position are the match index (rank and select; the rows' matchesBelow).
        let state = FilterState(matcher: matcher, matches: matches, expanded: ancestors, ancestors: ancestors,
                                matchesBelow: nil, matchCount: matchCount, workers: workers,
                                matchIndex: MatchIndex(positions: matchAt.words))
        let index = CoverIndex(covers: covers, parts: workers)
        covers = []
        return ViewState(filter: state, index: index)
    }

    /// One thread's share of matching: whole 64-slot words, so no word is shared. With
    /// `base`, only the slots in it are matched.
    /// Phase 1 on one thread: the matches among its share of the slots, by whole words.
    private struct MatchJob: @unchecked Sendable {
        let flags: UnsafeBufferPointer<NodeFlags>
        /// The values of the query's fields (none without a text) and of its conditions' fields.
        let fields: [PooledValues]
        let conditions: [PooledValues]
        let out: UnsafeMutableBufferPointer<UInt64>
        let base: UnsafeBufferPointer<UInt64>?
        let matcher: NodeMatcher
        let kernel: ASCIIKernel?
        let counts: UnsafeMutableBufferPointer<Int>
        let isCancelled: () -> Bool
        let stop: Flag

        func run(part: Int, of parts: Int) {
            var scratch: [UInt8] = []
            scratch.reserveCapacity(256)
            let text = matcher.text
            if matcher.isTitleOnly {
                let titleRef = fields[0].refs, pool = fields[0].pool
                if let kernel {
                    kernel.needle.withUnsafeBufferPointer { needle in
                        run(part: part, of: parts) { slot in
                            let (start, length) = BytePool.bounds(in: pool, at: titleRef[slot])
                            return kernel.matches(pool, start: start, length: length, needle: needle.baseAddress!)
                                ?? text.matches(UnsafeRawBufferPointer(rebasing: pool[start ..< start + length]), scratch: &scratch)
                        }
                    }
                } else {
                    run(part: part, of: parts) { text.matches(BytePool.entry(in: pool, at: titleRef[$0]), scratch: &scratch) }
                }
                return
            }
            (kernel?.needle ?? [0]).withUnsafeBufferPointer { needle in
                run(part: part, of: parts) { slot in
                    matcher.matches(text: { i in
                        let v = fields[i].value(slot)
                        guard NodeMatcher.isSearchable(v.kind) else { return false }
                        let pool = fields[i].pool
                        return kernel?.matches(pool, start: v.start, length: v.length, needle: needle.baseAddress!)
                            ?? text.matches(UnsafeRawBufferPointer(rebasing: pool[v.start ..< v.start + v.length]), scratch: &scratch)
                    }, condition: { i in
                        let v = conditions[i].value(slot)
                        let pool = conditions[i].pool
                        return matcher.holds(i, v.kind, UnsafeRawBufferPointer(rebasing: pool[v.start ..< v.start + v.length]), v.number,
                                             scratch: &scratch)
                    })
                }
            }
        }

        @inline(__always)
        private func run(part: Int, of parts: Int, _ test: (Int) -> Bool) {
            let n = flags.count
            let words = out.count
            var count = 0
            defer { counts[part] = count }
            for w in words * part / parts ..< words * (part + 1) / parts {
                if w & 1023 == 0 && (stop.isSet || (part == 0 && isCancelled())) { stop.set(); return }
                var word: UInt64 = 0
                let start = w << 6
                if let base {
                    var candidates = w < base.count ? base[w] : 0
                    while candidates != 0 {
                        let bit = candidates.trailingZeroBitCount
                        candidates &= candidates &- 1
                        let slot = start + bit
                        if slot < n && !flags[slot].contains(.free) && test(slot) { word |= 1 << UInt64(bit) }
                    }
                } else {
                    for slot in start ..< min(n, start + 64) where !flags[slot].contains(.free) {
                        if test(slot) { word |= 1 << UInt64(slot - start) }
                    }
                }
                out[w] = word
                count += word.nonzeroBitCount
            }
        }
    }
}
