/// Counts the positions `0 ..< n` whose *cover* is zero, under range additions.
///
/// A view of a forest hides a position when some ancestor is collapsed or excluded;
/// each such ancestor adds one cover to the positions it hides, so the visible rows
/// are exactly the positions with cover zero, in order. Collapsing a node is
/// `add(+1, to: p + 1 ..< end)`, expanding it `add(-1, ...)`.
///
/// Layout: positions are grouped in blocks of 64, and a complete binary tree over the
/// blocks keeps, per tree node, the minimum cover below it, how many positions reach
/// that minimum, and a pending addition for the whole subtree (never pushed down). A
/// position's *raw* cover is its cover less the additions pending on its block's path.
/// Covers are never negative, so "visible" means "the minimum is zero and this position
/// reaches it".
///
/// Raw covers take a byte each: a block's leaf holds the block's minimum in its pending
/// addition, so the block keeps only how far each position is above it (nested
/// collapsed folders rarely differ by more than a few). A block whose covers spread over
/// more than `narrowLimit` (a position deep in a long chain beside a shallow one) keeps
/// them as `Int32`, apart; it returns to bytes when the spread shrinks.
struct CoverIndex: Sendable {
    static let blockShift = 6
    static let blockSize = 1 << blockShift
    /// Minimum of a leaf without covers: larger than any real cover.
    static let emptyMinimum: Int32 = 1 << 29
    /// The cover read at a position that holds no node (a gap): far from zero. Additions
    /// pass over gaps.
    static let gapCover: Int32 = 1 << 28
    /// The widest spread of covers a block keeps in bytes; small in debug builds, so that
    /// the tests move blocks between bytes and `Int32` often.
    static let narrowLimit: Int32 = _isDebugAssertConfiguration() ? 5 : 254
    /// A byte that marks a gap, or a position past the end.
    private static let narrowGap: UInt8 = 255

    private(set) var count: Int
    /// Raw covers of the narrow blocks, a byte per position (`narrowGap` for none), for
    /// whole blocks; what a wide block has here is unused.
    private var narrow: ContiguousArray<UInt8>
    /// Raw covers of the wide blocks, 64 each (`gapCover` for none), by block.
    private var wide: [Int: ContiguousArray<Int32>] = [:]
    /// The blocks kept in `wide`.
    private var isWide: Bitset
    /// Number of leaves: a power of two, at least the number of blocks.
    private var leaves: Int
    private var minimum: ContiguousArray<Int32>
    private var minimumCount: ContiguousArray<Int32>
    private var pending: ContiguousArray<Int32>

    /// Where the index's columns are stored: the same before and after an operation that
    /// changed them in place (for tests that check no operation copies a view).
    var storageAddresses: [UInt] { [narrow.storageAddress] + [minimum, minimumCount, pending].map(\.storageAddress) }

    /// Bytes held.
    var bytes: Int {
        narrow.capacity + (minimum.capacity + minimumCount.capacity + pending.capacity) * 4 + isWide.words.capacity * 8
            + wide.count * (CoverIndex.blockSize * 4 + 64)
    }

    /// The number of wide blocks (for tests).
    var wideBlocks: Int { wide.count }

    /// Builds the index over the given covers (`gapCover` or more for a gap).
    /// - Complexity: O(n)
    init(covers: ContiguousArray<Int32>) {
        self.init(covers: covers, parts: 1)
    }

    /// Builds the index over the given covers, the leaves on `parts` threads.
    /// - Complexity: O(n / parts + n / 64)
    init(covers: ContiguousArray<Int32>, parts: Int) {
        let n = covers.count
        count = n
        let blocks = max(1, (n + CoverIndex.blockSize - 1) >> CoverIndex.blockShift)
        var leaves = 1
        while leaves < blocks { leaves <<= 1 }
        self.leaves = leaves
        isWide = Bitset(count: blocks)
        var minimum = ContiguousArray(repeating: CoverIndex.emptyMinimum, count: 2 * leaves)
        var minimumCount = ContiguousArray<Int32>(repeating: 0, count: 2 * leaves)
        var pending = ContiguousArray<Int32>(repeating: 0, count: 2 * leaves)
        var spread = ContiguousArray<Bool>(repeating: false, count: blocks)  // too wide for bytes
        let perChunk = 1024
        // Every byte is written below, by the chunk of its block.
        var narrow = ContiguousArray<UInt8>(unsafeUninitializedCapacity: blocks << CoverIndex.blockShift) { _, initialized in
            initialized = blocks << CoverIndex.blockShift
        }
        covers.withUnsafeBufferPointer { cov in
            narrow.withUnsafeMutableBufferPointer { narrow in
                minimum.withUnsafeMutableBufferPointer { minimum in
                    minimumCount.withUnsafeMutableBufferPointer { minimumCount in
                        pending.withUnsafeMutableBufferPointer { pending in
                            spread.withUnsafeMutableBufferPointer { spread in
                                ParallelWork.run((blocks + perChunk - 1) / perChunk, workers: parts) { chunk in
                                    for block in chunk * perChunk ..< min(blocks, (chunk + 1) * perChunk) {
                                        let start = block << CoverIndex.blockShift
                                        let end = min(n, start + CoverIndex.blockSize)
                                        let (m, c, top) = CoverIndex.extent(UnsafeBufferPointer(rebasing: cov[start ..< end]))
                                        let bytes = UnsafeMutableBufferPointer(rebasing: narrow[start ..< start + CoverIndex.blockSize])
                                        guard c > 0 && top &- m <= CoverIndex.narrowLimit else {
                                            bytes.initialize(repeating: CoverIndex.narrowGap)
                                            spread[block] = c > 0
                                            continue
                                        }
                                        for q in start ..< end {
                                            let v = cov[q]
                                            bytes[q - start] = v < CoverIndex.gapCover / 2 ? UInt8(truncatingIfNeeded: v &- m) : CoverIndex.narrowGap
                                        }
                                        for i in end - start ..< CoverIndex.blockSize { bytes[i] = CoverIndex.narrowGap }
                                        pending[leaves + block] = m
                                        minimum[leaves + block] = m
                                        minimumCount[leaves + block] = c
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        self.narrow = narrow
        self.minimum = minimum
        self.minimumCount = minimumCount
        self.pending = pending
        for block in 0 ..< blocks where spread[block] {
            let start = block << CoverIndex.blockShift
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: CoverIndex.blockSize) { values in
                for i in 0 ..< CoverIndex.blockSize { values[i] = start + i < n ? covers[start + i] : CoverIndex.gapCover }
                store(block, values)
            }
        }
        var node = leaves - 1
        while node >= 1 { pull(node); node -= 1 }
    }

    /// The number of positions with cover zero.
    /// - Complexity: O(1)
    var zeroCount: Int { minimum[1] == 0 ? Int(minimumCount[1]) : 0 }

    /// The cover of position `p` (`gapCover` for a gap).
    /// - Complexity: O(log n)
    func cover(at p: Position) -> Int32 {
        let raw = rawCover(p.offset)
        return raw == CoverIndex.gapCover ? raw : raw &+ pathAddition(p.offset >> CoverIndex.blockShift)
    }

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
        let zeros = positions(of: -acc, in: block)
        let bit = UInt64(p & (CoverIndex.blockSize - 1))
        if onlyIfZero && zeros >> bit & 1 == 0 { return nil }
        return result + (zeros & ((1 << bit) &- 1)).nonzeroBitCount
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
        let block = node - leaves
        return (block << CoverIndex.blockShift | CoverIndex.member(k, of: positions(of: -acc, in: block)), acc)
    }

    /// Calls `body` with the positions of the zeros of rank `first ..< first + limit`
    /// (fewer at the end), in order.
    /// - Complexity: O((limit / 64 + 1) · log n + limit + 64)
    func forEachZero(from first: Int, limit: Int, _ body: (Position) -> Void) {
        guard first < zeroCount, limit > 0 else { return }
        let end = first + min(limit, zeroCount - first)  // never past Int.max
        var k = first
        var (q, acc) = locate(k)
        while true {
            let block = q >> CoverIndex.blockShift
            var zeros = positions(of: -acc, in: block) & ~((1 << UInt64(q & (CoverIndex.blockSize - 1))) &- 1)
            while zeros != 0 {
                body(Position(block << CoverIndex.blockShift | zeros.trailingZeroBitCount))
                k += 1
                guard k < end else { return }
                zeros &= zeros &- 1
            }
            // The next block, when it holds zeros (rows are mostly dense), without a descent.
            let next = pathAddition(block + 1)
            let leaf = leaves + block + 1
            if minimum[leaf] &- pending[leaf] &+ next == 0 {
                (q, acc) = ((block + 1) << CoverIndex.blockShift, next)
            } else {
                (q, acc) = locate(k)
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
            if l == blockStart && r == min(count, blockStart + CoverIndex.blockSize) {
                addToBlocks(delta, firstBlock ..< firstBlock + 1)
            } else {
                addWithin(delta, l ..< r)
            }
            return
        }
        var fullFirst = firstBlock
        if l & (CoverIndex.blockSize - 1) != 0 {
            addWithin(delta, l ..< (firstBlock + 1) << CoverIndex.blockShift)
            fullFirst += 1
        }
        var fullEnd = lastBlock + 1
        let lastStart = lastBlock << CoverIndex.blockShift
        if r != min(count, lastStart + CoverIndex.blockSize) {
            addWithin(delta, lastStart ..< r)
            fullEnd -= 1
        }
        if fullFirst < fullEnd { addToBlocks(delta, fullFirst ..< fullEnd) }
    }

    /// The covers of all positions, pending additions included (`gapCover` for a gap).
    /// - Complexity: O(n)
    func materializedCovers() -> ContiguousArray<Int32> {
        covers(in: Position(0) ..< Position(count))
    }

    /// One bit per position, set where the cover is zero.
    /// - Complexity: O(n)
    func zeroBits() -> Bitset {
        let total = blockAdditions()
        var bits = Bitset(count: count)
        bits.withWordBuffer { words in
            for w in 0 ..< words.count { words[w] = positions(of: -total[w], in: w) }  // one word is one block
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

    /// The covers of the positions in `range`, pending additions included (`gapCover` for
    /// a gap).
    /// - Complexity: O(range + log n · blocks of the range)
    func covers(in range: Range<Position>) -> ContiguousArray<Int32> {
        var result = ContiguousArray<Int32>()
        result.reserveCapacity(range.count)
        var q = range.lowerBound.offset
        while q < range.upperBound.offset {
            let block = q >> CoverIndex.blockShift
            let acc = pathAddition(block)
            let end = min(range.upperBound.offset, (block + 1) << CoverIndex.blockShift)
            withRaw(block) { values in
                let start = block << CoverIndex.blockShift
                for r in q ..< end {
                    let v = values[r - start]
                    result.append(v == CoverIndex.gapCover ? v : v &+ acc)
                }
            }
            q = end
        }
        return result
    }

    /// Sets the covers of the positions `start ..< start + values.count` (`gapCover` or
    /// more for a gap).
    /// - Complexity: O(values + log n · blocks touched)
    mutating func setCovers(_ values: ContiguousArray<Int32>, at start: Position) {
        if values.isEmpty { return }
        let start = start.offset
        var q = start
        while q < start + values.count {
            let block = q >> CoverIndex.blockShift
            let acc = pathAddition(block)
            let end = min(start + values.count, (block + 1) << CoverIndex.blockShift)
            updateRaw(block) { raw in
                let blockStart = block << CoverIndex.blockShift
                for r in q ..< end {
                    let v = values[r - start]
                    raw[r - blockStart] = v >= CoverIndex.gapCover / 2 ? CoverIndex.gapCover : v &- acc
                }
            }
            q = end
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
        let block = range.lowerBound >> CoverIndex.blockShift, start = block << CoverIndex.blockShift
        let (m, c, _) = withRaw(block) { CoverIndex.extent(UnsafeBufferPointer(rebasing: $0[range.lowerBound - start ..< range.upperBound - start])) }
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

    /// The cover of position `q` without the pending additions above its block (see
    /// `pathAddition`); `gapCover` for a gap.
    @inline(__always) func rawCover(_ q: Int) -> Int32 {
        let block = q >> CoverIndex.blockShift
        if isWide.contains(block) { return wide[block]![q & (CoverIndex.blockSize - 1)] }
        let v = narrow[q]
        return v == CoverIndex.narrowGap ? CoverIndex.gapCover : Int32(v)
    }

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
        let block = range.lowerBound >> CoverIndex.blockShift
        let low = UInt64(range.lowerBound & (CoverIndex.blockSize - 1)), width = UInt64(range.count)
        let within: UInt64 = (width == 64 ? ~0 : (1 << width) &- 1) << low
        let found = positions(of: t &- addition, in: block) & within
        let n = found.nonzeroBitCount
        guard k < n else { k -= n; return nil }
        return block << CoverIndex.blockShift | CoverIndex.member(k, of: found)
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
                return scanSelect(t, &k, start ..< start + CoverIndex.blockSize, addition &+ pending[node])
            }
        }
        let half = width / 2, below = addition &+ pending[node]
        return nodesSelect(t, &k, 2 * node, low, half, lo, hi, below) ?? nodesSelect(t, &k, 2 * node + 1, low + half, half, lo, hi, below)
    }

    // MARK: Tree

    /// The pending additions on the path from `block`'s leaf to the root.
    @inline(__always)
    func pathAddition(_ block: Int) -> Int32 {
        var acc: Int32 = 0
        var node = leaves + block
        while node >= 1 { acc &+= pending[node]; node >>= 1 }
        return acc
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

    // MARK: Blocks

    /// Adds `delta` to the raw covers of `range`, within one block, and updates the tree.
    private mutating func addWithin(_ delta: Int32, _ range: Range<Int>) {
        let block = range.lowerBound >> CoverIndex.blockShift, start = block << CoverIndex.blockShift
        updateRaw(block) { raw in
            for q in range where raw[q - start] != CoverIndex.gapCover { raw[q - start] &+= delta }
        }
        pullAncestors(of: leaves + block)
    }

    /// The positions of `block` whose raw cover is `target`, a bit each (the block's
    /// first position in the lowest bit).
    @inline(__always)
    private func positions(of target: Int32, in block: Int) -> UInt64 {
        if isWide.contains(block) {
            return wide[block]!.withUnsafeBufferPointer { raw in
                var found: UInt64 = 0
                for i in 0 ..< CoverIndex.blockSize where raw[i] == target { found |= 1 << UInt64(i) }
                return found
            }
        }
        guard target >= 0 && target <= CoverIndex.narrowLimit else { return 0 }
        // Eight bytes at a time: a byte equal to the target becomes zero, a zero byte sets its
        // top bit (exactly, without borrows between bytes), and a multiplication gathers the
        // eight top bits into one byte.
        let pattern = UInt64(truncatingIfNeeded: target) &* 0x0101_0101_0101_0101
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        return narrow.withUnsafeBytes { bytes in
            var found: UInt64 = 0
            let start = block << CoverIndex.blockShift
            for w in 0 ..< CoverIndex.blockSize / 8 {
                let x = bytes.loadUnaligned(fromByteOffset: start + w * 8, as: UInt64.self) ^ pattern
                let zero = ~(((x & low7) &+ low7) | x | low7)
                found |= (((zero >> 7) &* 0x0102_0408_1020_4080) >> 56) << UInt64(w * 8)
            }
            return found
        }
    }

    /// The position (0 ..< 64) of the `k`-th set bit of `bits`.
    @inline(__always)
    private static func member(_ k: Int, of bits: UInt64) -> Int {
        var bits = bits
        for _ in 0 ..< k { bits &= bits &- 1 }
        return bits.trailingZeroBitCount
    }

    /// The minimum of `values` below `gapCover / 2`, how many reach it, and their maximum;
    /// (`emptyMinimum`, 0, _) when there are none.
    @inline(__always)
    private static func extent(_ values: UnsafeBufferPointer<Int32>) -> (Int32, Int32, Int32) {
        // Without branches, for the vector units: gaps are above every cover.
        var m = CoverIndex.emptyMinimum
        for v in values { m = min(m, v) }
        guard m < CoverIndex.gapCover / 2 else { return (CoverIndex.emptyMinimum, 0, 0) }
        var c: Int32 = 0, top = Int32.min
        for v in values {
            c &+= v == m ? 1 : 0
            top = max(top, v < CoverIndex.gapCover / 2 ? v : Int32.min)
        }
        return (m, c, top)
    }

    /// Calls `body` with the raw covers of `block`: 64 of them, `gapCover` for a gap or a
    /// position past the end.
    private func withRaw<R>(_ block: Int, _ body: (UnsafeMutableBufferPointer<Int32>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: CoverIndex.blockSize) { raw in
            load(block, into: raw)
            return body(raw)
        }
    }

    /// Lets `change` rewrite the raw covers of `block` (as `withRaw` gives them), then stores
    /// them and recomputes the block's leaf (not its ancestors).
    private mutating func updateRaw(_ block: Int, _ change: (UnsafeMutableBufferPointer<Int32>) -> Void) {
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: CoverIndex.blockSize) { raw in
            load(block, into: raw)
            change(raw)
            store(block, raw)
        }
    }

    /// Writes the 64 raw covers of `block` into `raw` (see `withRaw`).
    private func load(_ block: Int, into raw: UnsafeMutableBufferPointer<Int32>) {
        if isWide.contains(block) {
            wide[block]!.withUnsafeBufferPointer { _ = raw.initialize(fromContentsOf: $0) }
            return
        }
        narrow.withUnsafeBufferPointer { bytes in
            let start = block << CoverIndex.blockShift
            for i in 0 ..< CoverIndex.blockSize {
                let v = bytes[start + i]
                raw[i] = v == CoverIndex.narrowGap ? CoverIndex.gapCover : Int32(v)
            }
        }
    }

    /// Stores `raw` (64 raw covers, `gapCover` or more for a gap) as `block`'s: in bytes when
    /// they spread over at most `narrowLimit`, their minimum moved into the leaf's pending
    /// addition, else wide. Recomputes the leaf, not its ancestors.
    private mutating func store(_ block: Int, _ raw: UnsafeMutableBufferPointer<Int32>) {
        let leaf = leaves + block
        let (m, c, top) = CoverIndex.extent(UnsafeBufferPointer(raw))
        minimumCount[leaf] = c
        let start = block << CoverIndex.blockShift
        if c > 0 && top &- m > CoverIndex.narrowLimit {
            for i in raw.indices where raw[i] >= CoverIndex.gapCover / 2 { raw[i] = CoverIndex.gapCover }
            if isWide.contains(block) {
                wide[block]!.withUnsafeMutableBufferPointer { _ = $0.update(fromContentsOf: raw) }
            } else {
                wide[block] = ContiguousArray(raw)
                isWide.insert(block)
            }
            minimum[leaf] = m &+ pending[leaf]
            return
        }
        if isWide.contains(block) {
            wide[block] = nil
            isWide.remove(block)
        }
        narrow.withUnsafeMutableBufferPointer { bytes in
            for i in 0 ..< CoverIndex.blockSize {
                bytes[start + i] = raw[i] >= CoverIndex.gapCover / 2 ? CoverIndex.narrowGap : UInt8(raw[i] &- m)
            }
        }
        if c > 0 {
            pending[leaf] &+= m
            minimum[leaf] = pending[leaf]
        } else {
            minimum[leaf] = CoverIndex.emptyMinimum
        }
    }
}
