/// Counts the positions `0 ..< n` whose *cover* is zero, under range additions.
///
/// A view of a forest hides a position when some ancestor is collapsed or excluded;
/// each such ancestor adds one cover to the positions it hides, so the visible rows
/// are exactly the positions with cover zero, in order. Collapsing a node is
/// `add(+1, to: p + 1 ..< end)`, expanding it `add(-1, ...)`.
///
/// Layout: positions are grouped in blocks of 64; each block keeps its raw covers in
/// one flat column, and a complete binary tree over the blocks keeps, per tree node,
/// the minimum cover below it, how many positions reach that minimum, and a pending
/// addition for the whole subtree (never pushed down). Covers are never negative, so
/// "visible" means "the minimum is zero and this position reaches it".
struct CoverIndex: Sendable {
    static let blockShift = 6
    static let blockSize = 1 << blockShift
    /// Minimum of an empty leaf: larger than any real cover.
    static let emptyMinimum: Int32 = 1 << 29
    /// The cover of a position that holds no node: far from zero whatever is added.
    static let gapCover: Int32 = 1 << 28

    private(set) var count: Int
    /// Raw per-position covers, without the pending additions of the tree.
    private var cover: ContiguousArray<Int32>
    /// Number of leaves: a power of two, at least the number of blocks.
    private var leaves: Int
    private var minimum: ContiguousArray<Int32>
    private var minimumCount: ContiguousArray<Int32>
    private var pending: ContiguousArray<Int32>

    /// Where the index's columns are stored: the same before and after an operation that
    /// changed them in place (for tests that check no operation copies a view).
    var storageAddresses: [UInt] { [cover, minimum, minimumCount, pending].map(\.storageAddress) }

    /// Bytes held.
    var bytes: Int { (cover.capacity + minimum.capacity + minimumCount.capacity + pending.capacity) * 4 }

    /// Builds the index over the given covers.
    /// - Complexity: O(n)
    init(covers: ContiguousArray<Int32>) {
        self.init(covers: covers, parts: 1)
    }

    /// Builds the index over the given covers, the leaves on `parts` threads.
    /// - Complexity: O(n / parts + n / 64)
    init(covers: ContiguousArray<Int32>, parts: Int) {
        count = covers.count
        cover = covers
        let blocks = max(1, (covers.count + CoverIndex.blockSize - 1) >> CoverIndex.blockShift)
        var leaves = 1
        while leaves < blocks { leaves <<= 1 }
        self.leaves = leaves
        var minimum = ContiguousArray(repeating: CoverIndex.emptyMinimum, count: 2 * leaves)
        var minimumCount = ContiguousArray<Int32>(repeating: 0, count: 2 * leaves)
        pending = ContiguousArray(repeating: 0, count: 2 * leaves)
        let n = covers.count
        let perChunk = 1024
        covers.withUnsafeBufferPointer { cov in
            minimum.withUnsafeMutableBufferPointer { minimum in
                minimumCount.withUnsafeMutableBufferPointer { minimumCount in
                    ParallelWork.run((blocks + perChunk - 1) / perChunk, workers: parts) { chunk in
                        for block in chunk * perChunk ..< min(blocks, (chunk + 1) * perChunk) {
                            let start = block << CoverIndex.blockShift
                            let end = min(n, start + CoverIndex.blockSize)
                            guard end > start else { continue }
                            var m = CoverIndex.emptyMinimum
                            var c: Int32 = 0
                            for q in start ..< end {
                                let v = cov[q]
                                if v < m { m = v; c = 1 } else if v == m { c += 1 }
                            }
                            minimum[leaves + block] = m
                            minimumCount[leaves + block] = c
                        }
                    }
                }
            }
        }
        self.minimum = minimum
        self.minimumCount = minimumCount
        var node = leaves - 1
        while node >= 1 { pull(node); node -= 1 }
    }

    /// The number of positions with cover zero.
    /// - Complexity: O(1)
    var zeroCount: Int { minimum[1] == 0 ? Int(minimumCount[1]) : 0 }

    /// The cover of position `p`.
    /// - Complexity: O(log n)
    func cover(at p: Position) -> Int32 { cover[p.offset] &+ pathAddition(p.offset >> CoverIndex.blockShift) }

    /// Whether position `p` has cover zero.
    /// - Complexity: O(log n)
    func isZero(_ p: Position) -> Bool { cover(at: p) == 0 }

    /// The number of zero positions in `0 ..< p`.
    /// - Complexity: O(log n + 64)
    func zeros(before p: Position) -> Int {
        if p.offset <= 0 { return 0 }
        if p.offset >= count { return zeroCount }
        return rank(p.offset, onlyIfZero: false)!
    }

    /// The number of zeros before `p` when `p` is a zero itself, else nil: `zeros(before:)`
    /// and `isZero` in one descent.
    /// - Complexity: O(log n + 64)
    func rank(ofZero p: Position) -> Int? { rank(p.offset, onlyIfZero: true) }

    /// One descent to the block of `p`, counting the zeros of the blocks before it, then
    /// the zeros before `p` in its block; nil when `onlyIfZero` and `p` is not a zero.
    private func rank(_ p: Int, onlyIfZero: Bool) -> Int? {
        let block = p >> CoverIndex.blockShift
        var node = 1
        var acc: Int32 = 0
        var low = 0
        var width = leaves
        var result = 0
        while node < leaves {
            acc &+= pending[node]
            width >>= 1
            let left = node << 1
            if block < low + width {
                node = left
            } else {
                if acc &+ minimum[left] == 0 { result += Int(minimumCount[left]) }
                node = left + 1
                low += width
            }
        }
        acc &+= pending[node]
        let target = -acc
        return cover.withUnsafeBufferPointer { c in
            if onlyIfZero && c[p] != target { return nil }
            for q in block << CoverIndex.blockShift ..< p where c[q] == target { result += 1 }
            return result
        }
    }

    /// The number of zero positions in `range`.
    /// - Complexity: O(log n + 64)
    func zeros(in range: Range<Position>) -> Int {
        range.isEmpty ? 0 : zeros(before: range.upperBound) - zeros(before: range.lowerBound)
    }

    /// Finds the `k`-th zero: its position, and the total pending addition on its block.
    private func locate(_ k: Int) -> (position: Int, blockAddition: Int32) {
        precondition(k >= 0 && k < zeroCount, "zero rank out of range")
        var k = k
        var node = 1
        var acc: Int32 = 0
        while node < leaves {
            acc &+= pending[node]
            let left = node << 1
            let z = acc &+ minimum[left] == 0 ? Int(minimumCount[left]) : 0
            if k < z { node = left } else { k -= z; node = left + 1 }
        }
        acc &+= pending[node]
        let target = -acc
        var q = (node - leaves) << CoverIndex.blockShift
        return cover.withUnsafeBufferPointer { c in
            while true {
                if c[q] == target {
                    if k == 0 { return (q, acc) }
                    k -= 1
                }
                q += 1
            }
        }
    }

    /// Calls `body` with the positions of the zeros of rank `first ..< first + limit`
    /// (fewer at the end), in order.
    /// - Complexity: O((limit / 64 + 1) · log n + limit + 64)
    func forEachZero(from first: Int, limit: Int, _ body: (Position) -> Void) {
        let end = min(zeroCount, first + limit)
        var k = first
        var (q, acc) = end > first ? locate(k) : (0, 0)
        cover.withUnsafeBufferPointer { cover in
            while k < end {
                let target = -acc
                let blockEnd = min(count, ((q >> CoverIndex.blockShift) + 1) << CoverIndex.blockShift)
                while q < blockEnd && k < end {
                    if cover[q] == target {
                        body(Position(q))
                        k += 1
                    }
                    q += 1
                }
                guard k < end else { return }
                // The next block, when it holds zeros (rows are mostly dense), without a descent.
                let block = q >> CoverIndex.blockShift
                let next = pathAddition(block)
                let leaf = leaves + block
                if minimum[leaf] &- pending[leaf] &+ next == 0 { acc = next } else { (q, acc) = locate(k) }
            }
        }
    }

    /// Adds `delta` to the cover of every position in `range`.
    /// - Complexity: O(log n + 128)
    mutating func add(_ delta: Int32, to range: Range<Position>) {
        if range.isEmpty { return }
        let l = range.lowerBound.offset, r = range.upperBound.offset
        let firstBlock = l >> CoverIndex.blockShift
        let lastBlock = (r - 1) >> CoverIndex.blockShift
        if firstBlock == lastBlock {
            let blockStart = firstBlock << CoverIndex.blockShift
            let blockEnd = min(count, blockStart + CoverIndex.blockSize)
            if l == blockStart && r == blockEnd {
                addToBlocks(delta, firstBlock ..< firstBlock + 1)
            } else {
                addRaw(delta, l ..< r)
                recomputeLeaf(firstBlock)
                pullAncestors(of: leaves + firstBlock)
            }
            return
        }
        var fullFirst = firstBlock
        if l & (CoverIndex.blockSize - 1) != 0 {
            addRaw(delta, l ..< (firstBlock + 1) << CoverIndex.blockShift)
            recomputeLeaf(firstBlock)
            pullAncestors(of: leaves + firstBlock)
            fullFirst += 1
        }
        var fullEnd = lastBlock + 1
        let lastStart = lastBlock << CoverIndex.blockShift
        if r != min(count, lastStart + CoverIndex.blockSize) {
            addRaw(delta, lastStart ..< r)
            recomputeLeaf(lastBlock)
            pullAncestors(of: leaves + lastBlock)
            fullEnd -= 1
        }
        if fullFirst < fullEnd { addToBlocks(delta, fullFirst ..< fullEnd) }
    }

    /// The covers of all positions, pending additions included.
    /// - Complexity: O(n)
    func materializedCovers() -> ContiguousArray<Int32> {
        let total = blockAdditions()
        var result = cover
        for q in 0 ..< count { result[q] &+= total[q >> CoverIndex.blockShift] }
        return result
    }

    /// One bit per position, set where the cover is zero.
    /// - Complexity: O(n)
    func zeroBits() -> Bitset {
        let total = blockAdditions()
        var bits = Bitset(count: count)
        let n = count
        bits.withWordBuffer { words in
            cover.withUnsafeBufferPointer { c in
                for w in 0 ..< words.count {
                    let start = w << 6  // one word is one block
                    let target = -total[w]
                    var word: UInt64 = 0
                    for q in start ..< min(n, start + 64) where c[q] == target { word |= 1 << UInt64(q - start) }
                    words[w] = word
                }
            }
        }
        return bits
    }

    /// The sum of pending additions over each block's leaf and its ancestors.
    private func blockAdditions() -> ContiguousArray<Int32> {
        var total = ContiguousArray<Int32>(repeating: 0, count: 2 * leaves)
        total[1] = pending[1]
        for node in 2 ..< 2 * leaves { total[node] = pending[node] &+ total[node >> 1] }
        return ContiguousArray(total[leaves ..< 2 * leaves])
    }

    /// The covers of the positions in `range`, pending additions included.
    /// - Complexity: O(range + log n · blocks of the range)
    func covers(in range: Range<Position>) -> ContiguousArray<Int32> {
        var result = ContiguousArray<Int32>()
        result.reserveCapacity(range.count)
        var q = range.lowerBound.offset
        while q < range.upperBound.offset {
            let block = q >> CoverIndex.blockShift
            let acc = pathAddition(block)
            let end = min(range.upperBound.offset, (block + 1) << CoverIndex.blockShift)
            while q < end { result.append(cover[q] &+ acc); q += 1 }
        }
        return result
    }

    /// Sets the covers of the positions `start ..< start + values.count`.
    /// - Complexity: O(values + log n · blocks touched)
    mutating func setCovers(_ values: ContiguousArray<Int32>, at start: Position) {
        if values.isEmpty { return }
        let start = start.offset
        var i = 0
        while i < values.count {
            let q = start + i
            let block = q >> CoverIndex.blockShift
            let acc = pathAddition(block)
            let end = min(start + values.count, (block + 1) << CoverIndex.blockShift)
            cover.withUnsafeMutableBufferPointer { c in
                for r in q ..< end { c[r] = values[r - start] &- acc }
            }
            i += end - q
            recomputeLeaf(block)
        }
        // The ancestors of the leaves touched, level by level.
        var lo = (leaves + (start >> CoverIndex.blockShift)) >> 1
        var hi = (leaves + ((start + values.count - 1) >> CoverIndex.blockShift)) >> 1
        while lo >= 1 {
            for node in lo ... hi { pull(node) }
            lo >>= 1
            hi >>= 1
        }
    }

    /// Moves covers the way the forest moved its nodes (see `Relocation`); positions
    /// without a node get `gapCover`.
    /// - Complexity: O(relocated positions + log n · blocks), O(n) when resized
    mutating func relocate(_ r: Relocation) {
        let old = r.resized ? materializedCovers() : covers(in: r.range)
        let base = r.resized ? 0 : r.range.lowerBound.offset
        var values = ContiguousArray<Int32>(repeating: CoverIndex.gapCover, count: r.source.count)
        for i in values.indices where r.source[i] >= 0 { values[i] = old[Int(r.source[i]) - base] }
        if r.resized { self = CoverIndex(covers: values) } else { setCovers(values, at: r.range.lowerBound) }
    }

    // MARK: Ranges

    /// The minimum cover over the positions `l ..< r` and how many positions reach it; a
    /// range of gaps only: (`gapCover`, 0).
    /// - Complexity: O(log n + 128)
    func minimumAndCount(_ l: Int, _ r: Int) -> (Int32, Int32) {
        guard l < r else { return (CoverIndex.gapCover, 0) }
        let first = l >> CoverIndex.blockShift, last = (r - 1) >> CoverIndex.blockShift
        var result: (Int32, Int32)
        if first == last {
            result = scanMinimum(l ..< r, pathAddition(first))
        } else {
            result = combineMinimums(scanMinimum(l ..< (first + 1) << CoverIndex.blockShift, pathAddition(first)),
                                     scanMinimum(last << CoverIndex.blockShift ..< r, pathAddition(last)))
            if first + 1 < last { result = combineMinimums(result, nodesMinimum(1, 0, leaves, first + 1, last, 0)) }
        }
        return result.0 < CoverIndex.gapCover / 2 ? result : (CoverIndex.gapCover, 0)
    }

    /// The minimum and its count over the positions of `range` (one block), `addition` being
    /// the additions pending above it.
    private func scanMinimum(_ range: Range<Int>, _ addition: Int32) -> (Int32, Int32) {
        var m = CoverIndex.emptyMinimum, c: Int32 = 0
        cover.withUnsafeBufferPointer { cover in
            for q in range {
                let v = cover[q]
                if v < m { m = v; c = 1 } else if v == m { c &+= 1 }
            }
        }
        return (m &+ addition, c)
    }

    /// The minimum and its count over the blocks `lo ..< hi` below tree node `node` (covering
    /// the blocks `low ..< low + width`), `addition` being the additions pending above it.
    private func nodesMinimum(_ node: Int, _ low: Int, _ width: Int, _ lo: Int, _ hi: Int, _ addition: Int32) -> (Int32, Int32) {
        if low + width <= lo || low >= hi { return (CoverIndex.emptyMinimum, 0) }
        if lo <= low && low + width <= hi { return (minimum[node] &+ addition, minimumCount[node]) }
        let half = width / 2, below = addition &+ pending[node]
        return combineMinimums(nodesMinimum(2 * node, low, half, lo, hi, below), nodesMinimum(2 * node + 1, low + half, half, lo, hi, below))
    }

    /// The cover of position `q` without the pending additions above its block (see `pathAddition`).
    @inline(__always) func rawCover(_ q: Int) -> Int32 { cover[q] }

    /// The `k`-th (from 0) position of `l ..< r` whose cover is `t`, for a `t` not above
    /// the minimum there; there must be more than `k`. The same pieces as `minimumAndCount`:
    /// the partial blocks at the ends, the whole blocks between as tree nodes.
    /// - Complexity: O(log n + 128)
    func select(_ t: Int32, _ k: Int, _ l: Int, _ r: Int) -> Int {
        var k = k
        let first = l >> CoverIndex.blockShift, last = (r - 1) >> CoverIndex.blockShift
        if first == last { return scanSelect(t, &k, l ..< r, pathAddition(first))! }
        if let q = scanSelect(t, &k, l ..< (first + 1) << CoverIndex.blockShift, pathAddition(first)) { return q }
        if first + 1 < last, let q = nodesSelect(t, &k, 1, 0, leaves, first + 1, last, 0) { return q }
        return scanSelect(t, &k, last << CoverIndex.blockShift ..< r, pathAddition(last))!
    }

    /// The `k`-th position of `range` (one block) whose cover is `t`, or nil with `k` less
    /// the ones there; `addition` is what is pending above the block.
    private func scanSelect(_ t: Int32, _ k: inout Int, _ range: Range<Int>, _ addition: Int32) -> Int? {
        let target = t &- addition
        return cover.withUnsafeBufferPointer { c in
            for q in range where c[q] == target {
                if k == 0 { return q }
                k -= 1
            }
            return nil
        }
    }

    /// `scanSelect` over the blocks `lo ..< hi` below tree node `node` (as `nodesMinimum`).
    private func nodesSelect(_ t: Int32, _ k: inout Int, _ node: Int, _ low: Int, _ width: Int, _ lo: Int, _ hi: Int,
                             _ addition: Int32) -> Int? {
        if low + width <= lo || low >= hi { return nil }
        if lo <= low && low + width <= hi {
            let here = minimum[node] &+ addition == t ? Int(minimumCount[node]) : 0
            if k >= here {
                k -= here
                return nil
            }
            if node >= leaves {
                let start = (node - leaves) << CoverIndex.blockShift
                return scanSelect(t, &k, start ..< min(count, start + CoverIndex.blockSize), addition &+ pending[node])
            }
        }
        let half = width / 2, below = addition &+ pending[node]
        return nodesSelect(t, &k, 2 * node, low, half, lo, hi, below) ?? nodesSelect(t, &k, 2 * node + 1, low + half, half, lo, hi, below)
    }

    // MARK: Internals

    /// The pending additions on the path from `block`'s leaf to the root.
    @inline(__always)
    func pathAddition(_ block: Int) -> Int32 {
        var acc: Int32 = 0
        var node = leaves + block
        while node >= 1 { acc &+= pending[node]; node >>= 1 }
        return acc
    }

    private mutating func addRaw(_ delta: Int32, _ range: Range<Int>) {
        cover.withUnsafeMutableBufferPointer { c in
            for q in range { c[q] &+= delta }
        }
    }

    private mutating func addToBlocks(_ delta: Int32, _ blocks: Range<Int>) {
        var lo = blocks.lowerBound + leaves
        var hi = blocks.upperBound + leaves
        let firstLeaf = lo, lastLeaf = hi - 1
        while lo < hi {
            if lo & 1 == 1 { apply(delta, lo); lo += 1 }
            if hi & 1 == 1 { hi -= 1; apply(delta, hi) }
            lo >>= 1
            hi >>= 1
        }
        pullAncestors(of: firstLeaf)
        pullAncestors(of: lastLeaf)
    }

    @inline(__always)
    private mutating func apply(_ delta: Int32, _ node: Int) {
        pending[node] &+= delta
        minimum[node] &+= delta
    }

    @inline(__always)
    private mutating func pull(_ node: Int) {
        let a = minimum[2 * node], b = minimum[2 * node + 1]
        let m = min(a, b)
        minimum[node] = m &+ pending[node]
        minimumCount[node] = (a == m ? minimumCount[2 * node] : 0) &+ (b == m ? minimumCount[2 * node + 1] : 0)
    }

    private mutating func pullAncestors(of node: Int) {
        var node = node >> 1
        while node >= 1 { pull(node); node >>= 1 }
    }

    private mutating func recomputeLeaf(_ block: Int) {
        let start = block << CoverIndex.blockShift
        let end = min(count, start + CoverIndex.blockSize)
        var m = CoverIndex.emptyMinimum
        var c: Int32 = 0
        cover.withUnsafeBufferPointer { cov in
            for q in start ..< end {
                let v = cov[q]
                if v < m { m = v; c = 1 } else if v == m { c += 1 }
            }
        }
        let leaf = leaves + block
        minimum[leaf] = end > start ? m &+ pending[leaf] : CoverIndex.emptyMinimum
        minimumCount[leaf] = c
    }
}
