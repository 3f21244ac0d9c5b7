/// A view's visible rows, stored as where its expansion differs from a shared base
/// (`CoverBase`: a `DepthBase` for unfiltered rows, a text's shared filtered `ViewState` for
/// filtered ones): memory in proportion to what its user changed, not to the tree.
///
/// A filtered base's covers change with edits: each boundary's base minimum then takes a
/// pending shift (`shift`), handed down the treap as it is walked.
///
/// The view's cover of a position is `c0(p) + k(p)`: `c0` the base's, `k` the sum over the
/// view's *exceptions* `x` that are strict ancestors of `p` of
/// `κ(x) = [x collapsed here] − [x collapsed in the base]` (±1). Both terms count collapsed
/// ancestors, so covers are never negative, and a position is a visible row iff its cover
/// is zero, as in `CoverIndex`.
///
/// Each exception `x` has two *boundaries*: its open, right after node `x`, and its close,
/// right after the last node of its subtree. Boundaries are named by slot, never by
/// position: their order is the forest's, computed when compared (`key`), so the
/// relocations of the forest's gaps cost a view nothing, and an edit keeps their order
/// (pre-order is kept) except for a subtree that leaves, whose boundaries go with it.
/// Between two consecutive boundaries lies an *interval* of positions where `k` is
/// constant: the prefix sum of the boundaries' `δ` (`+κ` at an open, `−κ` at a close).
/// Its visible rows are the positions whose base cover is `−k`, which is the base's
/// minimum there when any is visible; so each boundary carries the base's minimum and
/// its count over the interval to its right, and a treap over the boundaries keeps, per
/// subtree, `Σδ` and the minimum of `m + k` with its count: a cover index whose leaves are
/// intervals. The head interval, before the first boundary, has `k = 0`.
///
/// - Complexity: toggles, row index and the k-th row O(log |X| + log n) for |X|
///   exceptions; following an edit O((log |X| + log n) + its exceptions moved · log)
struct SparseCover: Sendable {
    /// The cover of a position that holds no node, and the minimum of an empty range.
    static let infinite: Int32 = 1 << 28

    /// A boundary: 40 bytes.
    struct Node: Sendable {
        var slot: Int32
        /// The position its key names (`SparseCover.key`), cached: kept right by
        /// `refreshPositions` wherever the forest moves nodes, so that comparing keys reads
        /// the forest only when two positions are equal.
        var q: UInt32
        /// The base's minimum cover over this boundary's interval (29 bits: at most
        /// `SparseCover.infinite`), then the kind, the value and the sign of κ.
        private var bits: UInt32
        /// How many positions reach the minimum.
        var c: Int32
        /// Over the node's treap subtree: Σδ, and the minimum of `m + k` (k relative to the
        /// subtree's start) with its count.
        var sum: Int32 = 0, aggregateMinimum: Int32 = 0, aggregateCount: Int32 = 0
        /// A shift of the base (`shift`) applied to this boundary and not yet to its
        /// children's `m` and aggregates.
        var lazy: Int32 = 0
        var left: Int32 = -1, right: Int32 = -1

        private static let mMask: UInt32 = (1 << 29) - 1
        private static let closeBit: UInt32 = 1 << 29, expandedBit: UInt32 = 1 << 30, negativeBit: UInt32 = 1 << 31

        init(slot: Int32, q: Int, kind: UInt8, expanded: Bool, kappa: Int8, m: Int32, c: Int32) {
            self.slot = slot
            self.q = UInt32(q)
            bits = 0
            self.c = c
            self.kind = kind
            self.expanded = expanded
            self.kappa = kappa
            self.m = m
        }

        /// 0: the open boundary, 1: the close.
        var kind: UInt8 {
            get { bits & Node.closeBit != 0 ? 1 : 0 }
            set { bits = newValue == 0 ? bits & ~Node.closeBit : bits | Node.closeBit }
        }
        /// The exception's value: expanded (kept on both boundaries).
        var expanded: Bool {
            get { bits & Node.expandedBit != 0 }
            set { bits = newValue ? bits | Node.expandedBit : bits & ~Node.expandedBit }
        }
        /// ±1: `[collapsed here] − [collapsed in the base]`.
        var kappa: Int8 {
            get { bits & Node.negativeBit != 0 ? -1 : 1 }
            set { bits = newValue < 0 ? bits | Node.negativeBit : bits & ~Node.negativeBit }
        }
        /// The base's minimum cover over the interval (`SparseCover.infinite`: no node).
        var m: Int32 {
            get { Int32(bitPattern: bits & Node.mMask) }
            set { bits = bits & ~Node.mMask | UInt32(bitPattern: newValue) & Node.mMask }
        }

        @inline(__always) var delta: Int32 { kind == 0 ? Int32(kappa) : -Int32(kappa) }
    }

    private(set) var nodes: [Node] = []
    private var freeNodes: [Int32] = []
    private var root: Int32 = -1
    /// The head interval's base minimum and count.
    private var headMinimum = SparseCover.infinite, headCount: Int32 = 0
    /// The number of exceptions.
    private(set) var exceptionCount = 0

    /// A view with no exception over `base`.
    /// - Complexity: O(log n)
    init(base: some CoverBase, forest: Forest) {
        (headMinimum, headCount) = base.minimumAndCount(0, forest.capacity, forest)
    }

    /// Where the boundaries are stored (see `CoverIndex.storageAddresses`).
    var storageAddresses: [UInt] { [nodes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }] }

    /// Bytes held.
    var bytes: Int { nodes.capacity * MemoryLayout<Node>.stride + freeNodes.capacity * 4 + MemoryLayout<SparseCover>.size }

    // MARK: Keys

    /// The order of a boundary: its position (an open: the node's, a close: its subtree's
    /// last node's) in the high bits; closes after opens at one position, deeper closes first.
    @inline(__always)
    static func key(slot: Int32, kind: UInt8, _ forest: Forest) -> UInt64 {
        let p = Int(forest.positionOf[Int(slot)])
        if kind == 0 { return UInt64(p) << 32 }
        let last = Int(forest.endAt[p]) - 1
        return UInt64(last) << 32 | 0x8000_0000 | UInt64(0x7FFF_FFFF - forest.depth[p])
    }

    /// The first key at or after position `p`.
    @inline(__always) static func key(at p: Int) -> UInt64 { UInt64(p) << 32 }

    /// The position a key names.
    @inline(__always) static func position(_ key: UInt64) -> Int { Int(key >> 32) }

    /// The key of boundary `i`: its cached position, and for a close the depth from the forest.
    @inline(__always) private func key(_ i: Int32, _ forest: Forest) -> UInt64 {
        let node = nodes[Int(i)]
        guard node.kind == 1 else { return UInt64(node.q) << 32 }
        return UInt64(node.q) << 32 | 0x8000_0000 | UInt64(0x7FFF_FFFF - forest.depth[Int(forest.positionOf[Int(node.slot)])])
    }

    /// Whether boundary `i`'s key is below `key`: the cached positions decide, the forest
    /// only when they are equal.
    @inline(__always) private func isBelow(_ i: Int32, _ key: UInt64, _ forest: Forest) -> Bool {
        let q = UInt64(nodes[Int(i)].q)
        if q != key >> 32 { return q < key >> 32 }
        return self.key(i, forest) < key
    }

    /// The first position of the interval after boundary `i`.
    @inline(__always) private func start(after i: Int32, _ forest: Forest) -> Int { Int(nodes[Int(i)].q) + 1 }

    @inline(__always) private static func priority(_ slot: Int32, _ kind: UInt8) -> UInt32 {
        var x = (UInt32(bitPattern: slot) << 1 | UInt32(kind)) &* 0x9E37_79B1
        x ^= x >> 15
        return x &* 0x85EB_CA6B
    }

    // MARK: Treap

    private mutating func newNode(_ node: Node) -> Int32 {
        let i: Int32
        if let reused = freeNodes.popLast() {
            i = reused
            nodes[Int(i)] = node
        } else {
            i = Int32(nodes.count)
            // Grown by an eighth, not doubled: a view costs what it holds.
            if nodes.count == nodes.capacity { nodes.reserveCapacity(nodes.count + max(8, nodes.count / 8)) }
            nodes.append(node)
        }
        pull(i)
        return i
    }

    @inline(__always) private mutating func pull(_ i: Int32) {
        let (sum, minimum, count) = aggregates(of: i)
        nodes[Int(i)].aggregateMinimum = minimum
        nodes[Int(i)].aggregateCount = count
        nodes[Int(i)].sum = sum
    }

    /// What `pull` stores for boundary `i`, from its own fields and its children's aggregates.
    @inline(__always) private func aggregates(of i: Int32) -> (sum: Int32, minimum: Int32, count: Int32) {
        let j = Int(i)
        let l = nodes[j].left, r = nodes[j].right
        var minimum = SparseCover.infinite, count: Int32 = 0
        let lazy = nodes[j].lazy
        let leftSum: Int32 = l >= 0 ? nodes[Int(l)].sum : 0
        if l >= 0 && nodes[Int(l)].aggregateMinimum < SparseCover.infinite / 2 {
            minimum = nodes[Int(l)].aggregateMinimum &+ lazy
            count = nodes[Int(l)].aggregateCount
        }
        let prefix = leftSum &+ nodes[j].delta
        if nodes[j].m < SparseCover.infinite / 2 {
            let v = nodes[j].m &+ prefix
            if v < minimum { minimum = v; count = nodes[j].c } else if v == minimum { count &+= nodes[j].c }
        }
        if r >= 0 && nodes[Int(r)].aggregateMinimum < SparseCover.infinite / 2 {
            let v = nodes[Int(r)].aggregateMinimum &+ lazy &+ prefix
            if v < minimum { minimum = v; count = nodes[Int(r)].aggregateCount } else if v == minimum { count &+= nodes[Int(r)].aggregateCount }
        }
        return (prefix &+ (r >= 0 ? nodes[Int(r)].sum : 0), minimum, count)
    }

    /// Adds `delta` to the base minimum of every interval of the treap `t`: at its root now,
    /// below it when pushed.
    @inline(__always) private mutating func applyShift(_ t: Int32, _ delta: Int32) {
        guard t >= 0 else { return }
        let j = Int(t)
        if nodes[j].m < SparseCover.infinite / 2 { nodes[j].m &+= delta }
        if nodes[j].aggregateMinimum < SparseCover.infinite / 2 { nodes[j].aggregateMinimum &+= delta }
        nodes[j].lazy &+= delta
    }

    /// Hands boundary `t`'s pending shift to its children.
    @inline(__always) private mutating func push(_ t: Int32) {
        let j = Int(t), delta = nodes[j].lazy
        guard delta != 0 else { return }
        applyShift(nodes[j].left, delta)
        applyShift(nodes[j].right, delta)
        nodes[j].lazy = 0
    }

    /// Splits the treap `t` into the boundaries with keys below `key` and the others.
    private mutating func split(_ t: Int32, _ key: UInt64, _ forest: Forest) -> (Int32, Int32) {
        if t < 0 { return (-1, -1) }
        push(t)
        if isBelow(t, key, forest) {
            let (a, b) = split(nodes[Int(t)].right, key, forest)
            nodes[Int(t)].right = a
            pull(t)
            return (t, b)
        } else {
            let (a, b) = split(nodes[Int(t)].left, key, forest)
            nodes[Int(t)].left = b
            pull(t)
            return (a, t)
        }
    }

    /// Joins two treaps, every key of `a` below every key of `b`.
    private mutating func merge(_ a: Int32, _ b: Int32) -> Int32 {
        if a < 0 { return b }
        if b < 0 { return a }
        push(a)
        push(b)
        let na = nodes[Int(a)], nb = nodes[Int(b)]
        if SparseCover.priority(na.slot, na.kind) > SparseCover.priority(nb.slot, nb.kind) {
            nodes[Int(a)].right = merge(na.right, b)
            pull(a)
            return a
        } else {
            nodes[Int(b)].left = merge(a, nb.left)
            pull(b)
            return b
        }
    }

    private func first(_ t: Int32) -> Int32 {
        var i = t
        while nodes[Int(i)].left >= 0 { i = nodes[Int(i)].left }
        return i
    }

    private func last(_ t: Int32) -> Int32 {
        var i = t
        while nodes[Int(i)].right >= 0 { i = nodes[Int(i)].right }
        return i
    }

    /// Changes the interval (m, c) of the last boundary of the treap `t`.
    private mutating func changeLast(_ t: Int32, _ change: (inout (Int32, Int32)) -> Void) {
        push(t)
        if nodes[Int(t)].right >= 0 {
            changeLast(nodes[Int(t)].right, change)
        } else {
            var mc = (nodes[Int(t)].m, nodes[Int(t)].c)
            change(&mc)
            (nodes[Int(t)].m, nodes[Int(t)].c) = mc
        }
        pull(t)
    }

    /// Sets the interval (m, c) of the last boundary of the treap `t`.
    private mutating func setLast(_ t: Int32, _ m: Int32, _ c: Int32) { changeLast(t) { $0 = (m, c) } }

    // MARK: Counting

    /// The visible rows of treap `t` whose k before its start is `prefix`, `shift` being the
    /// shifts pending above it.
    @inline(__always) private func visible(_ t: Int32, _ prefix: Int32, _ shift: Int32 = 0) -> Int {
        guard t >= 0 else { return 0 }
        let node = nodes[Int(t)]
        return node.aggregateMinimum < SparseCover.infinite / 2 && node.aggregateMinimum &+ shift &+ prefix == 0
            ? Int(node.aggregateCount) : 0
    }

    /// A boundary's base minimum with the shifts pending above it.
    @inline(__always) private func minimum(_ node: Node, _ shift: Int32) -> Int32 {
        node.m < SparseCover.infinite / 2 ? node.m &+ shift : SparseCover.infinite
    }

    private var headVisible: Int { headMinimum == 0 ? Int(headCount) : 0 }

    /// The number of visible rows.
    /// - Complexity: O(1)
    var total: Int { headVisible + visible(root, 0) }

    /// Where a position lies: the interval holding it.
    struct Place {
        /// Visible rows before the interval.
        var rowsBefore = 0
        /// The interval's first position and its k.
        var start = 0
        var k: Int32 = 0
        /// The boundary that ends the interval (-1: none).
        var successor: Int32 = -1
        /// The boundary whose interval it is (-1: the head).
        fileprivate var boundary: Int32 = -1
    }

    /// The interval holding the positions just before key `key`: the last boundary below it.
    /// - Complexity: O(log |X|)
    private func place(before key: UInt64, _ forest: Forest, path: UnsafeMutableBufferPointer<Int32>? = nil,
                       pathLength: UnsafeMutablePointer<Int>? = nil) -> Place {
        var i = root, prefix: Int32 = 0, rows = headVisible, shift: Int32 = 0
        var found = Place()
        var depth = 0
        while i >= 0 {
            if let path, depth < path.count { path[depth] = i }
            depth += 1
            let node = nodes[Int(i)]
            let m = minimum(node, shift)
            shift &+= node.lazy
            if isBelow(i, key, forest) {
                let l = node.left
                let kHere = prefix &+ (l >= 0 ? nodes[Int(l)].sum : 0) &+ node.delta
                rows += visible(l, prefix, shift)
                found.rowsBefore = rows
                found.start = Int(node.q) + 1
                found.k = kHere
                found.boundary = i
                pathLength?.pointee = depth
                if m &+ kHere == 0 { rows += Int(node.c) }
                prefix = kHere
                i = node.right
            } else {
                found.successor = i
                i = node.left
            }
        }
        return found
    }

    /// Changes the base's (m, c) of the interval holding the positions just before `key`
    /// (`change` gets them and where the interval lies), and the aggregates above it.
    /// - Complexity: O(log |X|), plus what `change` costs
    private mutating func changeInterval(before key: UInt64, _ forest: Forest,
                                         _ change: (inout (Int32, Int32), _ place: Place, _ end: Int) -> Void) -> Place {
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 128) { path in
            var length = 0
            let place = self.place(before: key, forest, path: path, pathLength: &length)
            let end = place.successor >= 0 ? start(after: place.successor, forest) : forest.capacity
            guard place.boundary >= 0 else {
                var mc = (headMinimum, headCount)
                change(&mc, place, end)
                (headMinimum, headCount) = mc
                return place
            }
            precondition(length <= path.count, "treap deeper than 128")
            for d in 0 ..< length { push(path[d]) }
            let j = Int(place.boundary)
            var mc = (nodes[j].m, nodes[j].c)
            change(&mc, place, end)
            (nodes[j].m, nodes[j].c) = mc
            for d in stride(from: length - 1, through: 0, by: -1) { pull(path[d]) }
            return place
        }
    }

    /// The number of visible rows at positions before `p`.
    /// - Complexity: O(log |X| + log n)
    func rows(before p: Int, _ base: some CoverBase, _ forest: Forest) -> Int {
        let place = place(before: SparseCover.key(at: p), forest)
        return place.rowsBefore + base.count(-place.k, place.start, p, forest)
    }

    /// The number of visible rows at the positions `range`.
    /// - Complexity: O(log |X| + log n)
    func rows(in range: Range<Int>, _ base: some CoverBase, _ forest: Forest) -> Int {
        rows(before: range.upperBound, base, forest) - rows(before: range.lowerBound, base, forest)
    }

    /// The row index of the node at position `p`, or nil when it is hidden.
    /// - Complexity: O(log |X| + log n)
    func rowIndex(at p: Int, _ base: some CoverBase, _ forest: Forest) -> Int? {
        let place = place(before: SparseCover.key(at: p), forest)
        guard base.cover(at: p, in: forest) == -place.k else { return nil }
        return place.rowsBefore + base.count(-place.k, place.start, p, forest)
    }

    /// The position of row `r` and the interval holding it: its end and its target cover.
    /// - Complexity: O(log |X| + log n)
    func select(_ r: Int, _ base: some CoverBase, _ forest: Forest) -> (position: Int, end: Int, target: Int32) {
        var r = r
        if r < headVisible {
            let end = root >= 0 ? start(after: first(root), forest) : forest.capacity
            return (base.select(0, r, 0, end, forest), end, 0)
        }
        r -= headVisible
        var i = root, prefix: Int32 = 0, end = forest.capacity, shift: Int32 = 0
        while true {
            precondition(i >= 0, "row out of range")
            let node = nodes[Int(i)]
            let m = minimum(node, shift)
            shift &+= node.lazy
            let l = node.left
            let inLeft = visible(l, prefix, shift)
            if r < inLeft {
                end = start(after: i, forest)
                i = l
                continue
            }
            r -= inLeft
            let k = prefix &+ (l >= 0 ? nodes[Int(l)].sum : 0) &+ node.delta
            let own = m &+ k == 0 ? Int(node.c) : 0
            if r < own {
                let intervalEnd = node.right >= 0 ? start(after: first(node.right), forest) : end
                return (base.select(-k, r, start(after: i, forest), intervalEnd, forest), intervalEnd, -k)
            }
            r -= own
            prefix = k
            i = node.right
        }
    }

    /// Calls `body` with the positions of rows `offset ..< offset + limit` (fewer at the
    /// end), in order: a select per interval entered, then the base's positions with the
    /// interval's target cover (`CoverBase.forEachPosition`).
    /// - Complexity: O((intervals entered) · (log |X| + log n)), plus the base's walks
    func forEachRow(from offset: Int, limit: Int, _ base: some CoverBase, _ forest: Forest, _ body: (Int) -> Void) {
        let end = offset >= total ? offset : offset + min(max(0, limit), total - offset)  // never past Int.max
        var r = offset
        while r < end {
            // Inside an interval no exception starts: its rows are the base's positions
            // with the interval's target cover.
            let (p, intervalEnd, target) = select(r, base, forest)
            r += base.forEachPosition(withCover: target, from: p, to: intervalEnd, limit: end - r, forest, body)
        }
    }

    // MARK: Exceptions

    /// The open boundary of the exception of `slot`, or -1.
    /// - Complexity: O(log |X|)
    private func openBoundary(_ slot: Slot, _ forest: Forest) -> Int32 {
        let p = Int(forest.positionOf[slot.index])
        let key = SparseCover.key(at: p)
        var i = root
        while i >= 0 {
            if nodes[Int(i)].q == UInt32(p) && nodes[Int(i)].kind == 0 { return i }
            i = isBelow(i, key, forest) ? nodes[Int(i)].right : nodes[Int(i)].left
        }
        return -1
    }

    /// The value the view stores for `slot`, or nil when it follows its base.
    /// - Complexity: O(log |X|)
    func exception(_ slot: Slot, _ forest: Forest) -> Bool? {
        let i = openBoundary(slot, forest)
        return i >= 0 ? nodes[Int(i)].expanded : nil
    }

    /// Whether the node in `slot` is expanded in the view (its children visible when it is).
    /// - Complexity: O(log |X|)
    func isExpanded(_ slot: Slot, _ base: some CoverBase, _ forest: Forest) -> Bool {
        exception(slot, forest) ?? base.isExpanded(slot, in: forest)
    }

    @inline(__always) private static func kappa(_ expanded: Bool, base: Bool) -> Int8 {
        (expanded ? 0 : 1) - (base ? 0 : 1)
    }

    /// Sets the view's value of `slot` (an exception when it differs from the base's); no rows counted.
    /// - Complexity: O(log |X| + log n)
    mutating func setException(_ slot: Slot, _ expanded: Bool, _ base: some CoverBase, _ forest: Forest) {
        let kappa = SparseCover.kappa(expanded, base: base.isExpanded(slot, in: forest))
        let open = openBoundary(slot, forest)
        if open < 0 {
            guard kappa != 0 else { return }
            insertBoundary(slot.rawValue, kind: 0, expanded, kappa, base, forest)
            insertBoundary(slot.rawValue, kind: 1, expanded, kappa, base, forest)
            exceptionCount += 1
        } else if kappa == 0 {
            removeBoundary(slot.rawValue, kind: 1, forest)
            removeBoundary(slot.rawValue, kind: 0, forest)
            exceptionCount -= 1
        } else {
            setBoundary(slot.rawValue, kind: 0, expanded, kappa, forest)
            setBoundary(slot.rawValue, kind: 1, expanded, kappa, forest)
        }
    }

    /// Expands or collapses the node in `slot`; the splice of the rows when they changed.
    /// - Complexity: O(log |X| + log n)
    mutating func setExpanded(_ slot: Slot, _ expanded: Bool, _ base: some CoverBase, _ forest: Forest) -> Splice? {
        let p = Int(forest.positionOf[slot.index])
        let row = rowIndex(at: p, base, forest)
        let before = total
        setException(slot, expanded, base, forest)
        let after = total
        guard let row, before != after else { return nil }
        return after > before ? Splice(index: row + 1, removed: 0, inserted: after - before)
                              : Splice(index: row + 1, removed: before - after, inserted: 0)
    }

    /// Sets the view's value of `slots` (a recursive expand or collapse: nodes of the subtree
    /// of `slot`, it among them) to `expanded`; the splice of the rows below it.
    /// - Complexity: O(slots · (log |X| + log n))
    mutating func setExpanded(_ slots: [Slot], below slot: Slot, _ expanded: Bool, _ base: some CoverBase, _ forest: Forest) -> Splice? {
        let p = Int(forest.positionOf[slot.index])
        let inner = p + 1 ..< Int(forest.endAt[p])
        let row = rowIndex(at: p, base, forest)
        let before = rows(in: inner, base, forest)
        for slot in slots { setException(slot, expanded, base, forest) }
        let after = rows(in: inner, base, forest)
        guard let row, before != after else { return nil }
        return Splice(index: row + 1, removed: before, inserted: after)
    }

    /// The exceptions, in tree order: (slot, expanded).
    /// - Complexity: O(|X|)
    var exceptions: [(slot: Slot, expanded: Bool)] {
        var result: [(slot: Slot, expanded: Bool)] = []
        result.reserveCapacity(exceptionCount)
        func visit(_ t: Int32) {
            guard t >= 0 else { return }
            visit(nodes[Int(t)].left)
            if nodes[Int(t)].kind == 0 { result.append((Slot(rawValue: nodes[Int(t)].slot), nodes[Int(t)].expanded)) }
            visit(nodes[Int(t)].right)
        }
        visit(root)
        return result
    }

    private mutating func insertBoundary(_ slot: Int32, kind: UInt8, _ expanded: Bool, _ kappa: Int8,
                                         _ base: some CoverBase, _ forest: Forest) {
        let key = SparseCover.key(slot: slot, kind: kind, forest)
        let (a, b) = split(root, key, forest)
        let start = SparseCover.position(key) + 1
        let end = b >= 0 ? self.start(after: first(b), forest) : forest.capacity
        let (m, c) = base.minimumAndCount(start, end, forest)
        let node = newNode(Node(slot: slot, q: SparseCover.position(key), kind: kind, expanded: expanded, kappa: kappa, m: m, c: c))
        // The interval it splits now ends at the new boundary.
        if a >= 0 {
            let (m, c) = base.minimumAndCount(self.start(after: last(a), forest), start, forest)
            setLast(a, m, c)
        } else {
            (headMinimum, headCount) = base.minimumAndCount(0, start, forest)
        }
        root = merge(merge(a, node), b)
    }

    /// Splits out the one boundary with `key`: (before, it, after).
    private mutating func isolate(_ key: UInt64, _ forest: Forest) -> (Int32, Int32, Int32) {
        let (a, b) = split(root, key, forest)
        let (n, rest) = split(b, key + 1, forest)
        precondition(n >= 0 && nodes[Int(n)].left < 0 && nodes[Int(n)].right < 0, "boundary not found")
        return (a, n, rest)
    }

    private mutating func setBoundary(_ slot: Int32, kind: UInt8, _ expanded: Bool, _ kappa: Int8, _ forest: Forest) {
        let (a, n, rest) = isolate(SparseCover.key(slot: slot, kind: kind, forest), forest)
        nodes[Int(n)].kappa = kappa
        nodes[Int(n)].expanded = expanded
        pull(n)
        root = merge(a, merge(n, rest))
    }

    private mutating func removeBoundary(_ slot: Int32, kind: UInt8, _ forest: Forest) {
        let (a, n, rest) = isolate(SparseCover.key(slot: slot, kind: kind, forest), forest)
        // Its interval joins the one before it.
        let mine = (nodes[Int(n)].m, nodes[Int(n)].c)
        if a >= 0 {
            changeLast(a) { $0 = combineMinimums($0, mine) }
        } else {
            (headMinimum, headCount) = combineMinimums((headMinimum, headCount), mine)
        }
        freeNodes.append(n)
        root = merge(a, rest)
    }

    // MARK: Following edits of the forest

    /// After the forest moved nodes: the boundaries whose cached position is in `range`
    /// (old positions) take their positions from the forest again. Their order does not
    /// change: the forest keeps pre-order, and no boundary lies where positions were
    /// gaps. Called for a window the forest spread or resized, and for the closes of the
    /// ancestors whose last node changed when nodes were put or taken out after it.
    /// - Complexity: O(log |X| + the boundaries refreshed)
    mutating func refreshPositions(in range: Range<Int>, _ forest: Forest) {
        func refresh(_ t: Int32) {
            guard t >= 0 else { return }
            let q = Int(nodes[Int(t)].q)
            if q >= range.lowerBound { refresh(nodes[Int(t)].left) }
            if range.contains(q) {
                let p = Int(forest.positionOf[Int(nodes[Int(t)].slot)])
                nodes[Int(t)].q = UInt32(nodes[Int(t)].kind == 0 ? p : Int(forest.endAt[p]) - 1)
            }
            if q < range.upperBound { refresh(nodes[Int(t)].right) }
        }
        refresh(root)
    }

    /// After nodes were put at the positions `range` (none of them has an exception here),
    /// `run` being the base's (m, c) over them: the interval holding them, and the splice of
    /// their rows.
    /// - Complexity: O(log |X| + log n)
    mutating func inserted(_ range: Range<Int>, run: (Int32, Int32), _ base: some CoverBase, _ forest: Forest) -> Splice? {
        var splice: Splice? = nil
        _ = changeInterval(before: SparseCover.key(at: range.lowerBound), forest) { mc, place, _ in
            mc = combineMinimums(mc, run)
            let t = -place.k
            guard run.0 == t, run.1 > 0 else { return }
            splice = Splice(index: place.rowsBefore + base.count(t, place.start, range.lowerBound, forest), removed: 0, inserted: Int(run.1))
        }
        return splice
    }

    /// What a subtree leaving its place takes along (`removing`), for `removed` and `arrived`.
    struct Departure {
        /// The rows it hid.
        var splice: Splice?
        /// Its exceptions, in tree order.
        var exceptions: [(slot: Slot, expanded: Bool)]
        /// The boundary after it (its interval's end is recomputed once it left), nil: none.
        var after: (slot: Int32, kind: UInt8)?
        /// The base's (m, c) over the subtree when it held no exception (its interval then
        /// loses just that), else nil.
        var subtree: (Int32, Int32)?
    }

    /// Before the subtree of `slot` leaves its positions, `subtree` being the base's (m, c)
    /// over them: its rows, and its exceptions taken out.
    /// - Complexity: O(log |X| + log n), plus O(its exceptions · log |X|)
    mutating func removing(_ slot: Slot, subtree: (Int32, Int32), _ base: some CoverBase, _ forest: Forest) -> Departure {
        let p = Int(forest.positionOf[slot.index])
        let place = place(before: SparseCover.key(at: p), forest)
        let after = place.successor >= 0 ? (nodes[Int(place.successor)].slot, nodes[Int(place.successor)].kind) : nil
        if place.successor >= 0 && isBelow(place.successor, SparseCover.key(slot: slot.rawValue, kind: 1, forest) + 1, forest) {
            return removingExceptions(slot, base, forest)
        }
        // No exception inside: the subtree is part of one interval.
        let t = -place.k
        guard subtree.0 == t, subtree.1 > 0 else { return Departure(splice: nil, exceptions: [], after: after, subtree: subtree) }
        let row = place.rowsBefore + base.count(t, place.start, p, forest)
        return Departure(splice: Splice(index: row, removed: Int(subtree.1), inserted: 0), exceptions: [], after: after, subtree: subtree)
    }

    /// `removing` a subtree that holds exceptions: they are split out of the treap.
    private mutating func removingExceptions(_ slot: Slot, _ base: some CoverBase, _ forest: Forest) -> Departure {
        let p = Int(forest.positionOf[slot.index]), end = Int(forest.endAt[p])
        let r0 = rows(before: p, base, forest), r1 = rows(before: end, base, forest)
        let (a, b) = split(root, SparseCover.key(at: p), forest)
        let (inside, rest) = split(b, SparseCover.key(slot: slot.rawValue, kind: 1, forest) + 1, forest)
        var taken: [(slot: Slot, expanded: Bool)] = []
        collect(inside, into: &taken)
        let after = rest >= 0 ? (nodes[Int(first(rest))].slot, nodes[Int(first(rest))].kind) : nil
        root = merge(a, rest)
        return Departure(splice: r1 > r0 ? Splice(index: r0, removed: r1 - r0, inserted: 0) : nil, exceptions: taken, after: after)
    }

    private mutating func collect(_ t: Int32, into out: inout [(slot: Slot, expanded: Bool)]) {
        guard t >= 0 else { return }
        collect(nodes[Int(t)].left, into: &out)
        if nodes[Int(t)].kind == 0 {
            out.append((Slot(rawValue: nodes[Int(t)].slot), nodes[Int(t)].expanded))
            exceptionCount -= 1
        }
        freeNodes.append(t)
        collect(nodes[Int(t)].right, into: &out)
    }

    /// After the subtree left (the forest and the base updated): the interval that held it
    /// loses its positions.
    /// - Complexity: O(log |X|), plus O(log n) when its minimum's count falls to zero
    mutating func removed(_ departure: Departure, _ base: some CoverBase, _ forest: Forest) {
        let key = departure.after.map { SparseCover.key(slot: $0.slot, kind: $0.kind, forest) } ?? .max
        _ = changeInterval(before: key, forest) { mc, place, end in
            if let gone = departure.subtree, gone.1 == 0 || gone.0 > mc.0 { return }
            if let gone = departure.subtree, gone.0 == mc.0, mc.1 > gone.1 { mc.1 -= gone.1; return }
            mc = base.minimumAndCount(place.start, end, forest)
        }
    }

    /// After a subtree that left arrived at `range`, `run` being the base's (m, c) over it:
    /// its interval, then its exceptions again (one now equal to the base's rule at its new
    /// place is dropped); the splice of its rows.
    /// - Complexity: O((1 + its exceptions) · (log |X| + log n))
    mutating func arrived(_ range: Range<Int>, run: (Int32, Int32), _ departure: Departure, _ base: some CoverBase, _ forest: Forest) -> Splice? {
        guard !departure.exceptions.isEmpty else { return inserted(range, run: run, base, forest) }
        _ = changeInterval(before: SparseCover.key(at: range.lowerBound), forest) { mc, _, _ in mc = combineMinimums(mc, run) }
        for exception in departure.exceptions { setException(exception.slot, exception.expanded, base, forest) }
        let r0 = rows(before: range.lowerBound, base, forest), r1 = rows(before: range.upperBound, base, forest)
        return r1 > r0 ? Splice(index: r0, removed: 0, inserted: r1 - r0) : nil
    }
}

extension SparseCover {
    // MARK: Following changes of the base

    /// After the base's cover of every position in `range` changed by `delta` (a filter's
    /// base following an edit): the intervals inside follow at once (a shift pending in the
    /// treap), the two at its ends, partly inside, are read from the base again. The rows
    /// are not counted: the caller counts them before or after.
    /// - Complexity: O(log |X| + log n)
    mutating func shift(_ delta: Int32, _ range: Range<Int>, _ base: some CoverBase, _ forest: Forest) {
        guard !range.isEmpty else { return }
        // Boundaries at positions l - 1 ..< r - 1 start the intervals that start in the range.
        let (before, rest) = split(root, SparseCover.key(at: max(0, range.lowerBound - 1)), forest)
        let (inside, after) = split(rest, SparseCover.key(at: range.upperBound - 1), forest)
        let afterStart = after >= 0 ? start(after: first(after), forest) : forest.capacity
        var insideStart = afterStart
        if inside >= 0 {
            insideStart = start(after: first(inside), forest)
            applyShift(inside, delta)
            let (m, c) = base.minimumAndCount(start(after: last(inside), forest), afterStart, forest)
            setLast(inside, m, c)
        }
        if before >= 0 {
            let (m, c) = base.minimumAndCount(start(after: last(before), forest), insideStart, forest)
            setLast(before, m, c)
        } else {
            (headMinimum, headCount) = base.minimumAndCount(0, insideStart, forest)
        }
        root = merge(merge(before, inside), after)
    }
}

#if TREE_INVARIANTS
extension SparseCover {
    /// Checks the boundaries' order and nesting, each κ against the base's rule, each
    /// interval's (m, c) against the base, the aggregates, and the visible rows against a
    /// walk of the forest with the view's expansion.
    /// - Complexity: O(|X| · log n + positions)
    func checkInvariants(_ base: some CoverBase, _ forest: Forest) {
        var order: [Int32] = [], shifts: [Int32] = []
        func visit(_ t: Int32, _ shift: Int32) {
            guard t >= 0 else { return }
            visit(nodes[Int(t)].left, shift &+ nodes[Int(t)].lazy)
            order.append(t)
            shifts.append(shift)
            visit(nodes[Int(t)].right, shift &+ nodes[Int(t)].lazy)
        }
        visit(root, 0)
        func checkAggregates(_ t: Int32) {
            guard t >= 0 else { return }
            checkAggregates(nodes[Int(t)].left)
            checkAggregates(nodes[Int(t)].right)
            let stored = (nodes[Int(t)].sum, nodes[Int(t)].aggregateMinimum, nodes[Int(t)].aggregateCount)
            precondition(stored == aggregates(of: t), "sparse cover aggregates of boundary \(t)")
        }
        checkAggregates(root)
        let headEnd = order.first.map { start(after: $0, forest) } ?? forest.capacity
        let head = base.minimumAndCount(0, headEnd, forest)
        precondition(head.0 == headMinimum && (head.0 >= SparseCover.infinite / 2 || head.1 == headCount), "sparse cover head interval")
        var open: [(Int32, Int8)] = []
        var k: Int32 = 0
        var previous: UInt64? = nil
        for (n, i) in order.enumerated() {
            let node = nodes[Int(i)]
            let key = SparseCover.key(slot: node.slot, kind: node.kind, forest)
            precondition(self.key(i, forest) == key, "sparse cover: the cached position of slot \(node.slot)'s boundary \(node.kind) is \(node.q), the forest's \(SparseCover.position(key))")
            if let previous { precondition(previous < key, "sparse cover boundaries out of order") }
            previous = key
            let slot = Slot(rawValue: node.slot)
            precondition(!forest.flags[slot.index].contains(.free), "sparse cover names a free slot")
            if node.kind == 0 {
                let kappa = SparseCover.kappa(node.expanded, base: base.isExpanded(slot, in: forest))
                precondition(kappa != 0 && kappa == node.kappa, "sparse cover κ of slot \(slot)")
                open.append((node.slot, node.kappa))
                k += Int32(node.kappa)
            } else {
                let top = open.popLast()
                precondition(top?.0 == node.slot && top?.1 == node.kappa, "sparse cover close without its open")
                k -= Int32(node.kappa)
            }
            let end = n + 1 < order.count ? start(after: order[n + 1], forest) : forest.capacity
            let (m, c) = base.minimumAndCount(start(after: i, forest), end, forest)
            precondition(m == minimum(node, shifts[n]) && (m >= SparseCover.infinite / 2 || c == node.c), "sparse cover interval of slot \(slot)")
            precondition(m >= SparseCover.infinite / 2 || m + k >= 0, "sparse cover negative cover")
        }
        precondition(open.isEmpty && order.count == 2 * exceptionCount, "sparse cover exception count")
        // The definition: a walk with the view's expansion.
        var visible = 0
        var p = forest.nextNode(from: Position(0)).offset
        var rows: [Int] = []
        while p < forest.capacity {
            let slot = Slot(rawValue: forest.slotAt[p])
            if !base.isExcluded(slot, in: forest) {
                rows.append(p)
                visible += 1
            }
            p = forest.nextNode(from: Position(isExpanded(slot, base, forest) && !base.isExcluded(slot, in: forest)
                ? p + 1 : Int(forest.endAt[p]))).offset
        }
        precondition(visible == total, "sparse cover total \(total), a walk finds \(visible)")
        var seen: [Int] = []
        forEachRow(from: 0, limit: total, base, forest) { seen.append($0) }
        precondition(seen == rows, "sparse cover rows differ from a walk")
    }
}
#endif
