/// A view's selection: which nodes are selected, stored as the nodes whose state differs
/// from their parent's (its *toggles*; a root's is compared with `all`). Selecting a
/// subtree is one toggle whatever its size, and a node put into the forest later, having no
/// toggle, takes its parent's state.
///
/// A node is selected iff `all` XOR "the number of toggles among it and its ancestors is
/// odd". Each toggle `x` has two *boundaries* in tree order: its open, right before node
/// `x`, and its close, right after the last node of its subtree. Between two consecutive
/// boundaries lies an *interval* of nodes that are all selected or all not: selected iff
/// `all` XOR "the number of boundaries before it is odd"; the *head* interval, before the
/// first boundary, has `all`. Boundaries are named by slot and ordered by the forest's
/// order, computed when compared (`key`), as `SparseCover`'s are: an edit keeps their
/// order, except for a subtree that leaves, whose boundaries leave with it.
///
/// A treap over the boundaries keeps each interval's number of nodes and, per treap
/// subtree, the number of boundaries, of nodes in their intervals, and of those selected
/// when the number of boundaries before the subtree is even. Counts over a range of
/// positions end in part of an interval: the nodes there are counted by the base that
/// expands every node (`DepthBase.all`, whose cover is 0 exactly at nodes).
///
/// There is one representation of each state (a toggle is exactly a node whose state
/// differs from its parent's), so the tests compare it with a plain set of nodes.
///
/// - Complexity: reading a node's state O(log t) for t toggles; counts over a range, a
///   toggle, and following an edit O(log t + log n), plus the toggles a subtree that leaves
///   takes with it
struct Selection: Sendable {
    /// A toggle's open or close: 28 bytes.
    struct Boundary: Sendable {
        var slot: Int32
        /// The nodes in its interval (from it to the next boundary).
        var count: Int32
        /// Over its treap subtree: boundaries, nodes in their intervals, and those of them
        /// selected when the boundaries before the subtree are even in number and `all` is
        /// false.
        var size: Int32 = 1, total: Int32 = 0, selected: Int32 = 0
        var left: Int32 = -1, right: Int32 = -1
        var isClose: Bool
    }

    /// The state of a root without a toggle: what `selectAll`, `selectNone` and `invert` set.
    private(set) var all: Bool
    private var boundaries: [Boundary] = []
    private var free: [Int32] = []
    private var root: Int32 = -1
    /// The nodes before the first boundary.
    private var headCount: Int32

    /// Every node of `forest` in the state `all`.
    /// - Complexity: O(1)
    init(all: Bool, _ forest: Forest) {
        self.all = all
        headCount = Int32(forest.count)
    }

    /// The number of toggles.
    var toggleCount: Int { root < 0 ? 0 : Int(boundaries[Int(root)].size) / 2 }

    /// The toggles' slots, in tree order.
    /// - Complexity: O(t)
    var toggles: [Int32] {
        var result: [Int32] = []
        forEach(in: root) { i in if !boundaries[Int(i)].isClose { result.append(boundaries[Int(i)].slot) } }
        return result
    }

    /// Whether nothing is selected and nothing will be (no toggle, `all` false).
    var isEmpty: Bool { !all && root < 0 }

    /// Bytes held.
    var bytes: Int { boundaries.capacity * MemoryLayout<Boundary>.stride + free.capacity * 4 + MemoryLayout<Selection>.size }

    // MARK: Reading

    /// The number of selected nodes.
    /// - Complexity: O(1)
    var selectedCount: Int {
        guard root >= 0 else { return all ? Int(headCount) : 0 }
        let r = boundaries[Int(root)]
        return Int(all ? headCount + r.total - r.selected : r.selected)
    }

    /// Whether the node at position `p` is selected.
    /// - Complexity: O(log t)
    func isSelected(at p: Int, _ forest: Forest) -> Bool {
        all != (boundaries(below: Selection.key(node: p) + 1, forest).count & 1 == 1)
    }

    /// Whether the node in `slot` is a toggle (its state differs from its parent's).
    /// - Complexity: O(log t)
    func isToggle(_ slot: Slot, _ forest: Forest) -> Bool {
        let key = Selection.key(slot.rawValue, isClose: false, forest)
        var t = root
        while t >= 0 {
            let k = self.key(t, forest)
            if k == key { return true }
            t = k < key ? boundaries[Int(t)].right : boundaries[Int(t)].left
        }
        return false
    }

    /// The selected nodes at positions before `p`.
    /// - Complexity: O(log t + log n)
    func selected(before p: Int, _ forest: Forest, _ nodes: DepthBase) -> Int {
        let below = boundaries(below: Selection.key(node: p), forest)
        guard below.count > 0 else { return all ? Selection.count(0, p, forest, nodes) : 0 }
        var result = all ? Int(headCount) + below.total - below.selected : below.selected
        // The last interval before `p` may go on past it.
        if all != (below.count & 1 == 1) {
            let end = below.next >= 0 ? start(below.next, forest) : forest.capacity
            result -= Selection.count(p, end, forest, nodes)
        }
        return result
    }

    /// The node at position `p`: whether it is selected, how many of its descendants are,
    /// and whether its subtree holds both selected and unselected nodes.
    /// - Complexity: O(log t + log n)
    func state(at p: Int, _ forest: Forest, _ nodes: DepthBase) -> (selected: Bool, below: Int, partial: Bool) {
        let upTo = boundaries(below: Selection.key(node: p) + 1, forest)
        let selected = all != (upTo.count & 1 == 1)
        let end = Int(forest.endAt[p])
        guard end > p + 1 else { return (selected, 0, false) }
        // No toggle below it (the next boundary is its own close, or after): its descendants
        // have its state.
        if upTo.next < 0 || key(upTo.next, forest) >= Selection.key(forest.slotAt[p], isClose: true, forest) {
            return (selected, selected ? Selection.count(p + 1, end, forest, nodes) : 0, false)
        }
        let below = self.selected(before: end, forest, nodes) - self.selected(before: p + 1, forest, nodes)
        let partial = selected ? below < Selection.count(p + 1, end, forest, nodes) : below > 0
        return (selected, below, partial)
    }

    /// Calls `body` with the positions of selected nodes from `p` on, in order, until it
    /// returns false; `topMost`: only those whose parent is not selected.
    /// - Complexity: O(log t + depth + nodes visited + boundaries passed)
    func forEachSelected(from p: Int, topMost: Bool, _ forest: Forest, _ body: (Int) -> Bool) {
        var parity = boundaries(below: Selection.key(node: p), forest).count & 1 == 1
        var more = true
        guard topMost else {
            // The nodes of the selected intervals.
            var q = p
            forEachBoundary(from: Selection.key(node: p), forest) { i in
                let s = start(i, forest)
                if all != parity { more = forEachNode(from: q, to: s, forest, body) }
                q = s
                parity.toggle()
                return more
            }
            if more && all != parity { _ = forEachNode(from: q, to: forest.capacity, forest, body) }
            return
        }
        // The toggles whose open selects their node and, with `all`, the roots that are no
        // toggle, merged in order.
        var root = all ? Selection.root(from: p, forest) : forest.capacity
        forEachBoundary(from: Selection.key(node: p), forest) { i in
            parity.toggle()
            guard !boundaries[Int(i)].isClose else { return true }
            let s = start(i, forest)
            while root < s {
                guard body(root) else { more = false; return false }
                root = Selection.root(after: root, forest)
            }
            if root == s { root = Selection.root(after: s, forest) }
            if all != parity { more = body(s) }
            return more
        }
        while more && root < forest.capacity {
            more = body(root)
            root = Selection.root(after: root, forest)
        }
    }

    /// The first root at or after position `p`, or the end of the positions.
    private static func root(from p: Int, _ forest: Forest) -> Int {
        let q = forest.nextNode(from: Position(p))
        guard q.offset < forest.capacity, forest.depth[q.offset] > 0 else { return q.offset }
        var slot = forest.slot(at: q)
        while let parent = forest.parent(ofSlot: slot) { slot = parent }
        return root(after: forest.position(ofSlot: slot).offset, forest)
    }

    /// The root after the root at `r`, or the end of the positions.
    private static func root(after r: Int, _ forest: Forest) -> Int { forest.nextNode(from: Position(entry: forest.endAt[r])).offset }

    // MARK: Changing

    /// Sets every node to `value`: no toggle left.
    /// - Complexity: O(1), freeing the boundaries
    mutating func reset(_ value: Bool, _ forest: Forest) {
        self = Selection(all: value, forest)
    }

    /// Flips every node.
    /// - Complexity: O(1)
    mutating func invert() { all.toggle() }

    /// Flips the subtree of the node in `slot` (every node in it).
    /// - Complexity: O(log t + log n)
    mutating func toggle(_ slot: Slot, _ forest: Forest, _ nodes: DepthBase) {
        if isToggle(slot, forest) {
            remove(slot.rawValue, isClose: true, forest)
            remove(slot.rawValue, isClose: false, forest)
        } else {
            insertToggle(slot.rawValue, forest, nodes)
        }
    }

    /// Sets the node in `slot` and its whole subtree to `value`.
    /// - Complexity: O((toggles in the subtree + 1) · log t + log n)
    mutating func set(subtreeOf slot: Slot, _ value: Bool, _ forest: Forest, _ nodes: DepthBase) {
        let p = forest.position(ofSlot: slot).offset
        discard(cutOut(p, forest))
        if value != parentState(of: slot, forest) { insertToggle(slot.rawValue, forest, nodes) }
    }

    /// Sets the node in `slot` alone to `value`: its children keep their states, each
    /// becoming a toggle or ceasing to be one.
    /// - Complexity: O(children · (log t + log n))
    mutating func set(nodeIn slot: Slot, _ value: Bool, _ forest: Forest, _ nodes: DepthBase) {
        let p = forest.position(ofSlot: slot)
        guard isSelected(at: p.offset, forest) != value else { return }
        toggle(slot, forest, nodes)
        forest.forEachChild(ofPosition: p) { child in toggle(forest.slot(at: child), forest, nodes) }
    }

    // MARK: Following edits

    /// What a subtree that leaves takes along: its root's state and the toggles below it.
    struct Departure {
        var selected: Bool
        var toggles: [Int32]
    }

    /// Nodes new to the forest were put at `range` (positions, gaps among them counted by
    /// `nodes`): they take their parents' states.
    /// - Complexity: O(log t + log n)
    mutating func inserted(_ range: Range<Int>, _ forest: Forest, _ nodes: DepthBase) {
        add(Int32(Selection.count(range.lowerBound, range.upperBound, forest, nodes)), at: range.lowerBound, forest)
    }

    /// Before the subtree of the node at `p` leaves its place (deleted, or moved): its
    /// boundaries and nodes leave the intervals.
    /// - Complexity: O((toggles in the subtree + 1) · log t + log n)
    mutating func departing(_ p: Int, _ forest: Forest, _ nodes: DepthBase) -> Departure {
        let selected = isSelected(at: p, forest)
        let removed = cutOut(p, forest)
        var toggles: [Int32] = []
        forEach(in: removed) { i in if !boundaries[Int(i)].isClose { toggles.append(boundaries[Int(i)].slot) } }
        discard(removed)
        add(-Int32(Selection.count(p, Int(forest.endAt[p]), forest, nodes)), at: p, forest)
        return Departure(selected: selected, toggles: toggles)
    }

    /// The subtree that left with `departure` was put at `range`: every node in it has its
    /// state again (its root's compared with its new parent's).
    /// - Complexity: O((toggles in the subtree + 1) · (log t + log n))
    mutating func arrived(_ range: Range<Int>, _ departure: Departure, _ forest: Forest, _ nodes: DepthBase) {
        inserted(range, forest, nodes)
        let root = forest.slot(at: Position(range.lowerBound))
        for slot in departure.toggles where slot != root.rawValue { insertToggle(slot, forest, nodes) }
        if departure.selected != parentState(of: root, forest) { insertToggle(root.rawValue, forest, nodes) }
    }

    // MARK: Keys

    /// The key of a toggle's open (twice its node's position) or close (twice the position
    /// of its subtree's last node, plus one; deeper subtrees first).
    @inline(__always)
    static func key(_ slot: Int32, isClose: Bool, _ forest: Forest) -> UInt64 {
        let p = Int(forest.positionOf[Int(slot)])
        guard isClose else { return UInt64(2 * p) << 32 }
        return UInt64(2 * Int(forest.endAt[p]) - 1) << 32 | UInt64(0x7FFF_FFFF - forest.depth[p])
    }

    /// The key of the node at position `p`, which is its toggle's open's: the node lies in
    /// the interval its open begins.
    @inline(__always) static func key(node p: Int) -> UInt64 { UInt64(2 * p) << 32 }

    @inline(__always) private func key(_ i: Int32, _ forest: Forest) -> UInt64 {
        Selection.key(boundaries[Int(i)].slot, isClose: boundaries[Int(i)].isClose, forest)
    }

    /// The first position of boundary `i`'s interval.
    @inline(__always) private func start(_ i: Int32, _ forest: Forest) -> Int {
        let p = Int(forest.positionOf[Int(boundaries[Int(i)].slot)])
        return boundaries[Int(i)].isClose ? Int(forest.endAt[p]) : p
    }

    /// The nodes at positions `l ..< r`.
    @inline(__always) static func count(_ l: Int, _ r: Int, _ forest: Forest, _ nodes: DepthBase) -> Int {
        let r = min(r, forest.capacity)
        return l < r ? Int(nodes.minimumAndCount(l, r, forest).1) : 0
    }

    /// The state a child of the parent of the node in `slot` takes (its parent's, or `all`).
    private func parentState(of slot: Slot, _ forest: Forest) -> Bool {
        forest.parent(ofSlot: slot).map { isSelected(at: forest.position(ofSlot: $0).offset, forest) } ?? all
    }

    // MARK: Treap

    /// The boundaries with a key below `key`: their number, the nodes of their intervals and
    /// those selected (as `Boundary.selected`), and the first boundary at or after `key`.
    private func boundaries(below key: UInt64, _ forest: Forest) -> (count: Int, total: Int, selected: Int, next: Int32) {
        var t = root, count = 0, total = 0, selected = 0, next: Int32 = -1
        while t >= 0 {
            let b = boundaries[Int(t)]
            if self.key(t, forest) < key {
                // The left subtree, then this boundary's interval, each with the parity so far.
                if b.left >= 0 {
                    let l = boundaries[Int(b.left)]
                    selected += count & 1 == 1 ? Int(l.total - l.selected) : Int(l.selected)
                    total += Int(l.total)
                    count += Int(l.size)
                }
                count += 1
                if count & 1 == 1 { selected += Int(b.count) }
                total += Int(b.count)
                t = b.right
            } else {
                next = t
                t = b.left
            }
        }
        return (count, total, selected, next)
    }

    /// Calls `body` with the boundaries at or after `key`, in order, until it returns false.
    private func forEachBoundary(from key: UInt64, _ forest: Forest, _ body: (Int32) -> Bool) {
        var stack: [Int32] = []
        var t = root
        while t >= 0 {
            if self.key(t, forest) >= key {
                stack.append(t)
                t = boundaries[Int(t)].left
            } else {
                t = boundaries[Int(t)].right
            }
        }
        while let i = stack.popLast() {
            guard body(i) else { return }
            var t = boundaries[Int(i)].right
            while t >= 0 {
                stack.append(t)
                t = boundaries[Int(t)].left
            }
        }
    }

    /// Calls `body` with the boundaries of the treap `t` in order.
    private func forEach(in t: Int32, _ body: (Int32) -> Void) {
        guard t >= 0 else { return }
        forEach(in: boundaries[Int(t)].left, body)
        body(t)
        forEach(in: boundaries[Int(t)].right, body)
    }

    /// Adds `delta` nodes to the interval that holds position `p`.
    private mutating func add(_ delta: Int32, at p: Int, _ forest: Forest) {
        guard delta != 0 else { return }
        let (a, b) = split(root, Selection.key(node: p) + 1, forest)
        addToLastInterval(of: a, delta)
        root = merge(a, b)
    }

    /// Adds `delta` nodes to the interval of the last boundary of the treap `t`: the head
    /// interval when `t` is empty (`t` holds the boundaries before some point).
    private mutating func addToLastInterval(of t: Int32, _ delta: Int32) {
        if t >= 0 { addToLast(t, delta) } else { headCount += delta }
    }

    /// Makes the node in `slot` a toggle: its open, then its close.
    private mutating func insertToggle(_ slot: Int32, _ forest: Forest, _ nodes: DepthBase) {
        insert(slot, isClose: false, forest, nodes)
        insert(slot, isClose: true, forest, nodes)
    }

    /// Adds a toggle's open or close: it takes the part of its interval from its start on.
    private mutating func insert(_ slot: Int32, isClose: Bool, _ forest: Forest, _ nodes: DepthBase) {
        let (a, b) = split(root, Selection.key(slot, isClose: isClose, forest), forest)
        let i = newBoundary(Boundary(slot: slot, count: 0, isClose: isClose))
        let end = b >= 0 ? start(first(b), forest) : forest.capacity
        let count = Int32(Selection.count(start(i, forest), end, forest, nodes))
        boundaries[Int(i)].count = count
        pull(i)
        addToLastInterval(of: a, -count)
        root = merge(merge(a, i), b)
    }

    /// Removes a toggle's open or close: its interval joins the one before.
    private mutating func remove(_ slot: Int32, isClose: Bool, _ forest: Forest) {
        let key = Selection.key(slot, isClose: isClose, forest)
        let (a, rest) = split(root, key, forest)
        let (i, b) = split(rest, key + 1, forest)
        precondition(i >= 0 && boundaries[Int(i)].size == 1, "no boundary of slot \(slot) to remove")
        let count = boundaries[Int(i)].count
        addToLastInterval(of: a, count)
        discard(i)
        root = merge(a, b)
    }

    /// Takes out the boundaries of the subtree of the node at `p` (the toggles of its nodes);
    /// their intervals' nodes join the interval before. Returns them as a treap.
    private mutating func cutOut(_ p: Int, _ forest: Forest) -> Int32 {
        let slot = forest.slotAt[p]
        let (a, rest) = split(root, Selection.key(node: p), forest)
        let (m, b) = split(rest, Selection.key(slot, isClose: true, forest) + 1, forest)
        if m >= 0 { addToLastInterval(of: a, boundaries[Int(m)].total) }
        root = merge(a, b)
        return m
    }

    /// Frees the boundaries of the treap `t`.
    private mutating func discard(_ t: Int32) {
        guard t >= 0 else { return }
        discard(boundaries[Int(t)].left)
        discard(boundaries[Int(t)].right)
        free.append(t)
        if free.count == boundaries.count {
            boundaries.removeAll(keepingCapacity: true)
            free.removeAll(keepingCapacity: true)
        }
    }

    private mutating func newBoundary(_ b: Boundary) -> Int32 {
        if let i = free.popLast() {
            boundaries[Int(i)] = b
            return i
        }
        boundaries.append(b)
        return Int32(boundaries.count - 1)
    }

    private func first(_ t: Int32) -> Int32 {
        var t = t
        while boundaries[Int(t)].left >= 0 { t = boundaries[Int(t)].left }
        return t
    }

    private mutating func addToLast(_ t: Int32, _ delta: Int32) {
        if boundaries[Int(t)].right >= 0 { addToLast(boundaries[Int(t)].right, delta) } else { boundaries[Int(t)].count += delta }
        pull(t)
    }

    /// Splits the treap `t` into the boundaries with a key below `key` and the others.
    private mutating func split(_ t: Int32, _ key: UInt64, _ forest: Forest) -> (Int32, Int32) {
        guard t >= 0 else { return (-1, -1) }
        if self.key(t, forest) < key {
            let (l, r) = split(boundaries[Int(t)].right, key, forest)
            boundaries[Int(t)].right = l
            pull(t)
            return (t, r)
        }
        let (l, r) = split(boundaries[Int(t)].left, key, forest)
        boundaries[Int(t)].left = r
        pull(t)
        return (l, t)
    }

    private mutating func merge(_ a: Int32, _ b: Int32) -> Int32 {
        if a < 0 { return b }
        if b < 0 { return a }
        if priority(a) > priority(b) {
            boundaries[Int(a)].right = merge(boundaries[Int(a)].right, b)
            pull(a)
            return a
        }
        boundaries[Int(b)].left = merge(a, boundaries[Int(b)].left)
        pull(b)
        return b
    }

    @inline(__always) private func priority(_ i: Int32) -> UInt32 {
        var x = (UInt32(bitPattern: boundaries[Int(i)].slot) << 1 | (boundaries[Int(i)].isClose ? 1 : 0)) &* 0x9E37_79B1
        x ^= x >> 15
        return x &* 0x85EB_CA6B
    }

    /// Recomputes boundary `i`'s subtree sums from its children.
    @inline(__always) private mutating func pull(_ i: Int32) {
        var b = boundaries[Int(i)]
        var size: Int32 = 1, total = b.count, selected: Int32 = 0
        if b.left >= 0 {
            let l = boundaries[Int(b.left)]
            size += l.size
            total += l.total
            selected += l.selected
        }
        // After this boundary an odd number of boundaries of the subtree has passed iff the
        // left subtree holds an even number.
        let odd = size & 1 == 1
        if odd { selected += b.count }
        if b.right >= 0 {
            let r = boundaries[Int(b.right)]
            size += r.size
            total += r.total
            selected += odd ? r.total - r.selected : r.selected
        }
        b.size = size
        b.total = total
        b.selected = selected
        boundaries[Int(i)] = b
    }

    // MARK: Walks

    /// Calls `body` with the nodes at positions `q ..< end`; false once `body` returned false.
    private func forEachNode(from q: Int, to end: Int, _ forest: Forest, _ body: (Int) -> Bool) -> Bool {
        var q = forest.nextNode(from: Position(q)).offset
        while q < end {
            guard body(q) else { return false }
            q = forest.nextNode(from: Position(q + 1)).offset
        }
        return true
    }

    // MARK: Invariants

    /// Checks the boundaries against the forest: in order, in pairs, each interval's count,
    /// and the subtree sums.
    func checkInvariants(_ forest: Forest, _ nodes: DepthBase) {
        var order: [Int32] = []
        forEach(in: root) { order.append($0) }
        var opens: [Int32: Int] = [:]
        for (n, i) in order.enumerated() {
            let b = boundaries[Int(i)]
            precondition(!forest.flags[Int(b.slot)].contains(.free), "a boundary of a free slot \(b.slot)")
            if n > 0 { precondition(key(order[n - 1], forest) < key(i, forest), "boundaries out of order at \(n)") }
            let end = n + 1 < order.count ? start(order[n + 1], forest) : forest.capacity
            precondition(Int(b.count) == Selection.count(start(i, forest), end, forest, nodes), "the count of boundary \(n)")
            opens[b.slot, default: 0] += b.isClose ? -1 : 1
            if b.isClose { precondition(opens[b.slot] == 0, "a close without its open") }
        }
        precondition(opens.values.allSatisfy { $0 == 0 }, "an open without its close")
        let head = order.first.map { start($0, forest) } ?? forest.capacity
        precondition(Int(headCount) == Selection.count(0, head, forest, nodes), "the head count")
        func check(_ t: Int32) -> (Int32, Int32, Int32) {
            guard t >= 0 else { return (0, 0, 0) }
            let b = boundaries[Int(t)]
            let l = check(b.left), r = check(b.right)
            let odd = (l.0 + 1) & 1 == 1
            let expected = (l.0 + 1 + r.0, l.1 + b.count + r.1, l.2 + (odd ? b.count : 0) + (odd ? r.1 - r.2 : r.2))
            precondition(expected == (b.size, b.total, b.selected), "the sums of boundary \(t)")
            if b.left >= 0 { precondition(priority(b.left) <= priority(t), "heap order") }
            if b.right >= 0 { precondition(priority(b.right) <= priority(t), "heap order") }
            return expected
        }
        _ = check(root)
        precondition(free.count + order.count == boundaries.count, "boundaries lost")
    }
}
