extension Forest {
    /// The node at position `p`, which holds one.
    /// - Complexity: O(1)
    func node(atPosition p: Position) -> NodeHandle { NodeHandle(slot: slot(at: p)) }

    /// The position of `node`.
    /// - Complexity: O(1)
    func position(of node: NodeHandle) -> Position { position(ofSlot: node.slot) }

    /// Calls `body` with every node and its level (0 for roots), in pre-order.
    /// - Complexity: O(n) plus `body`
    public func forEachNode(_ body: (NodeHandle, _ level: Int) throws -> Void) rethrows {
        try forEachPosition { p in try body(NodeHandle(slot: slot(at: p)), level(at: p)) }
    }

    /// How derived ids are composed (a path list's, a JSON document's): a child's is its
    /// parent's, `separator` and its segment; a root's `rootPrefix` and its segment. Nil
    /// when the forest's ids are stored whole.
    package var derivedIDScheme: (separator: [UInt8], rootPrefix: [UInt8])? {
        ids.scheme.map { ($0.separator, $0.rootPrefix) }
    }

    /// The node whose id has this string form (an integer id by its decimal form).
    /// - Complexity: O(length of `id`) expected (plus the depth of a derived id)
    public func node(withID id: String) -> NodeHandle? {
        var id = id
        return id.withUTF8 { node(withIDBytes: UnsafeRawBufferPointer($0)) }
    }

    /// The node whose id has this string form, given as UTF-8.
    func node(withIDBytes key: UnsafeRawBufferPointer) -> NodeHandle? {
        if let slot = ids.slot(forKey: key) { return NodeHandle(slot: slot) }
        if let slot = implicitSlot(named: key) { return NodeHandle(slot: slot) }
        return nil
    }

    /// The slot whose implicit id is `key` (`~N` with N canonical decimal), if alive.
    func implicitSlot(named key: UnsafeRawBufferPointer) -> Slot? {
        guard let n = Forest.generatedNumber(key), n < Int64(implicitIDLimit) else { return nil }
        let slot = Slot(Int(n))
        return flags[slot.index].contains(.implicitID) && !flags[slot.index].contains(.free) ? slot : nil
    }

    /// N for a key of the form `~N` (N decimal without leading zeros), else nil.
    static func generatedNumber(_ key: UnsafeRawBufferPointer) -> Int64? {
        guard key.count >= 2, key.count <= 19, key[0] == UInt8(ascii: "~") else { return nil }
        if key[1] == UInt8(ascii: "0") && key.count > 2 { return nil }
        var n: Int64 = 0
        for b in key.dropFirst() {
            guard b >= 48 && b <= 57 else { return nil }
            n = n * 10 + Int64(b - 48)
        }
        return n
    }

    /// Whether an id with this string form exists.
    func idExists(_ key: UnsafeRawBufferPointer) -> Bool { node(withIDBytes: key) != nil }

    /// The id of `node`.
    /// - Complexity: O(length of the id), plus the depth for a derived id
    public func id(of node: NodeHandle) -> NodeID {
        if ids.hasID(slot: node.slot) {
            let text = ids.withKey(slot: node.slot) { String(decoding: $0, as: UTF8.self) }
            return ids.isInteger(slot: node.slot) ? .integer(Int64(text)!) : .string(text)
        }
        return .string("~\(node.slot.rawValue)")
    }

    /// Calls `body` with the string form of the id of `node` as UTF-8, and whether it is an integer.
    /// - Complexity: O(1) plus `body`; O(length of the id + depth) for a derived id
    @inlinable
    public func withID<R>(of node: NodeHandle, _ body: (UnsafeRawBufferPointer, _ isInteger: Bool) throws -> R) rethrows -> R {
        if ids.hasID(slot: node.slot) {
            let isInteger = ids.isInteger(slot: node.slot)
            return try ids.withKey(slot: node.slot) { try body($0, isInteger) }
        }
        // `~` and the slot in decimal, formatted on the stack: rows print many of these.
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 12) { buffer in
            var n = UInt32(bitPattern: node.slot.rawValue)
            var start = 12
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") &+ UInt8(n % 10)
                n /= 10
            } while n != 0
            start -= 1
            buffer[start] = UInt8(ascii: "~")
            return try body(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[start ..< 12])), false)
        }
    }

    /// Calls `body` with the title of `node` as UTF-8.
    /// - Complexity: O(1) plus `body`
    @inlinable
    public func withTitle<R>(of node: NodeHandle, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try titles.withEntry(titleRef[node.slot.index], body)
    }

    /// The title of `node`.
    /// - Complexity: O(length of the title)
    public func title(of node: NodeHandle) -> String {
        withTitle(of: node) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the raw JSON bytes of the node's `data`, or nil when it has none.
    /// - Complexity: O(1) plus `body`
    @inlinable
    public func withData<R>(of node: NodeHandle, _ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        let s = node.slot.index
        guard s < dataRef.count, dataRef[s] != 0 else { return try body(nil) }
        return try dataPool.withEntry(dataRef[s] - 1, body)
    }

    /// The raw JSON bytes of the node's `data`, or nil.
    public func data(of node: NodeHandle) -> [UInt8]? { withData(of: node) { $0.map { Array($0) } } }

    /// Whether `node` has `data`.
    /// - Complexity: O(1)
    public func hasData(_ node: NodeHandle) -> Bool {
        let s = node.slot.index
        return s < dataRef.count && dataRef[s] != 0
    }

    /// The parent of `node`, nil for a root.
    /// - Complexity: O(1)
    public func parent(of node: NodeHandle) -> NodeHandle? {
        parent(ofSlot: node.slot).map { NodeHandle(slot: $0) }
    }

    /// The nesting level of `node`: 0 for roots.
    /// - Complexity: O(1)
    public func level(of node: NodeHandle) -> Int { level(at: position(of: node)) }

    /// The ancestors of `node`, root first.
    /// - Complexity: O(depth)
    public func path(of node: NodeHandle) -> [NodeHandle] {
        var result: [NodeHandle] = []
        var next = parent(ofSlot: node.slot)
        while let s = next {
            result.append(NodeHandle(slot: s))
            next = parent(ofSlot: s)
        }
        return result.reversed()
    }

    /// Whether `node` has children, or was uploaded with `hasChildren: true`.
    /// - Complexity: O(1)
    public func hasChildren(_ node: NodeHandle) -> Bool { hasChildren(atPosition: position(of: node)) }

    func hasChildren(atPosition p: Position) -> Bool {
        subtreeEnd(of: p) > p + 1 || flags(at: p).contains(.declaresChildren)
    }

    /// Whether `node` has children in the forest (not only declared ones).
    /// - Complexity: O(1)
    public func hasChildNodes(_ node: NodeHandle) -> Bool {
        let p = position(of: node)
        return subtreeEnd(of: p) > p + 1
    }

    /// Whether `node` was uploaded with `hasChildren: true`.
    public func declaresChildren(_ node: NodeHandle) -> Bool { flags[node.slot.index].contains(.declaresChildren) }

    /// The number of nodes in the subtree of `node`, itself included.
    /// - Complexity: O(positions of the subtree)
    public func subtreeCount(_ node: NodeHandle) -> Int {
        var n = 0
        forEachPosition(in: subtree(of: position(of: node))) { _ in n += 1 }
        return n
    }

    /// The positions of the descendants of the node at `p`, or every position when nil (the
    /// roots and theirs): where its children are.
    /// - Complexity: O(1)
    func descendantPositions(of p: Position?) -> Range<Int> {
        p.map { ($0 + 1).offset ..< subtreeEnd(of: $0).offset } ?? 0 ..< capacity
    }

    /// Calls `body` with the positions of the children of the node at `p` (of the
    /// roots when nil), in order.
    /// - Complexity: O(number of children + gaps between them)
    @inline(__always)
    func forEachChild(ofPosition p: Position?, _ body: (Position) -> Void, while more: () -> Bool = { true }) {
        let end = p.map { subtreeEnd(of: $0) } ?? positions.upperBound
        var c = nextNode(from: p.map { $0 + 1 } ?? Position(0))
        while c < end && more() {
            body(c)
            c = nextNode(from: subtreeEnd(of: c))
        }
    }

    /// Calls `body` with the positions of the roots of the nodes at `range`, which
    /// holds whole subtrees and no gap (as `put` leaves them).
    /// - Complexity: O(number of roots)
    func forEachRoot(ofRun range: Range<Position>, _ body: (Position) -> Void) {
        var p = range.lowerBound
        while p < range.upperBound {
            body(p)
            p = subtreeEnd(of: p)
        }
    }

    /// The positions of the children of the node at `p` (of the roots when nil), in order.
    /// - Complexity: O(number of children + gaps between them)
    func childPositions(ofPosition p: Position?) -> [Position] {
        var result: [Position] = []
        forEachChild(ofPosition: p) { result.append($0) }
        return result
    }

    /// The children of `node` (the roots when nil), in order.
    /// - Complexity: O(number of children + gaps between them)
    public func children(of node: NodeHandle?) -> [NodeHandle] {
        childPositions(ofPosition: node.map { position(of: $0) }).map { self.node(atPosition: $0) }
    }

    /// The number of children of `node` (roots when nil).
    /// - Complexity: O(number of children + gaps between them)
    public func childCount(of node: NodeHandle?) -> Int {
        var n = 0
        forEachChild(ofPosition: node.map { position(of: $0) }) { _ in n += 1 }
        return n
    }

    /// Whether `node` is expanded in the unfiltered view.
    /// - Complexity: O(1)
    public func isExpandedUnfiltered(_ node: NodeHandle) -> Bool { flags[node.slot.index].contains(.expanded) }

    /// Whether `a` is `b` or one of its ancestors.
    /// - Complexity: O(1)
    public func isAncestorOrSelf(_ a: NodeHandle, of b: NodeHandle) -> Bool {
        let pa = position(of: a), pb = position(of: b)
        return pa <= pb && pb < subtreeEnd(of: pa)
    }
}
