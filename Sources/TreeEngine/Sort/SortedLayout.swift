/// The position columns of a forest (`Forest.swift`): where each node is, its level and
/// subtree end by position, the segments' loads, and the node count they hold. A forest
/// has its own, in the order of the tree; a `SortedLayout` has another, in the order a
/// sort gives siblings, over the same slots.
struct LayoutColumns: Sendable {
    var slotAt: ContiguousArray<Int32> = []
    var depth: ContiguousArray<Int32> = []
    var endAt: ContiguousArray<Int32> = []
    var segmentLoad: ContiguousArray<Int32> = []
    var positionOf: ContiguousArray<Int32> = []
    var count = 0

    /// The bytes the columns take.
    var bytes: Int { (slotAt.capacity + depth.capacity + endAt.capacity + segmentLoad.capacity + positionOf.capacity) * 4 }
}

extension Forest {
    /// Exchanges the forest's position columns with `other`: the forest then places its
    /// nodes as `other` did, and every reader and editor of positions works on those.
    /// - Complexity: O(1)
    mutating func swapLayout(_ other: inout LayoutColumns) {
        swap(&slotAt, &other.slotAt)
        swap(&depth, &other.depth)
        swap(&endAt, &other.endAt)
        swap(&segmentLoad, &other.segmentLoad)
        swap(&positionOf, &other.positionOf)
        swap(&count, &other.count)
    }

    /// The forest with `columns` as its positions, for reading (its other columns shared).
    /// - Complexity: O(1)
    func withLayout(_ columns: LayoutColumns) -> Forest {
        var copy = self
        var columns = columns
        copy.swapLayout(&columns)
        return copy
    }
}

/// A forest's nodes placed in the order `keys` gives siblings (`SortKeys`), over the same
/// slots: pre-order of the sorted tree, so a subtree is still a range of positions, and
/// everything that reads positions (children pages, the `DepthBase`s that count them)
/// works on `forest.withLayout(columns)` as on the forest.
struct SortedLayout: Sendable {
    let keys: SortKeys
    var columns: LayoutColumns
    /// The bases that count children in this layout, most recently used last.
    var childBases: [DepthBase] = []
    /// The views sorted by `keys` and what they share (`TreeStore+SortedViews.swift`).
    var views = LayoutViews()

    /// The nodes of `forest` sorted by `keys` (the columns of their data fields made), without
    /// gaps: the children of each node grouped by parent, each group sorted on one of
    /// `workers` threads, then one walk.
    /// - Complexity: O(n log(children)) comparisons, reading each key's value of each node once
    init(_ keys: SortKeys, of forest: Forest, workers: Int? = nil) {
        self.keys = keys
        let slots = forest.flags.count, n = forest.count
        // Group g holds the children of slot g - 1 (the roots: 0), in tree order, at
        // order[start[g] ..< start[g + 1]].
        var start = ContiguousArray<Int32>(repeating: 0, count: slots + 2)
        var order = ContiguousArray<Int32>(repeating: 0, count: n)
        forest.slotAt.withUnsafeBufferPointer { slotAt in
            forest.parentSlot.withUnsafeBufferPointer { parents in
                for s in slotAt where s >= 0 { start[Int(parents[Int(s)]) + 2] += 1 }
                for g in 1 ..< start.count { start[g] += start[g - 1] }
                var next = start
                for s in slotAt where s >= 0 {
                    let g = Int(parents[Int(s)]) + 1
                    order[Int(next[g])] = s
                    next[g] += 1
                }
            }
        }
        // Each thread sorts the groups of a range of `order` that ends where a group does.
        let parts = max(1, workers ?? ParallelWork.workerCount(items: n))
        var firstGroup = [0]
        for part in 1 ..< parts {
            let target = Int32(n * part / parts)
            var lo = firstGroup.last!, hi = slots + 1
            while lo < hi {
                let mid = (lo + hi) / 2
                if start[mid] < target { lo = mid + 1 } else { hi = mid }
            }
            firstGroup.append(lo)
        }
        firstGroup.append(slots + 1)
        forest.withPooledValues(keys.fields) { values in
            start.withUnsafeBufferPointer { start in
                order.withUnsafeMutableBufferPointer { order in
                    ParallelWork.run(parts) { part in
                        var sorter = SiblingOrder(keys)
                        for g in firstGroup[part] ..< firstGroup[part + 1] where start[g + 1] - start[g] > 1 {
                            sorter.sort(UnsafeMutableBufferPointer(rebasing: order[Int(start[g]) ..< Int(start[g + 1])]), values)
                        }
                    }
                }
            }
        }
        columns = SortedLayout.preOrder(order, start, nodes: n, slots: slots)
    }

    /// The columns of the walk that visits each group's members in order, each one's
    /// children (its group) right after it.
    /// - Complexity: O(n)
    private static func preOrder(_ order: ContiguousArray<Int32>, _ start: ContiguousArray<Int32>, nodes n: Int, slots: Int) -> LayoutColumns {
        var columns = LayoutColumns()
        columns.slotAt = ContiguousArray(repeating: 0, count: n)
        columns.depth = ContiguousArray(repeating: 0, count: n)
        columns.endAt = ContiguousArray(repeating: 0, count: n)
        columns.positionOf = ContiguousArray(repeating: -1, count: slots)
        columns.segmentLoad = Forest.denseSegmentLoads(n)
        columns.count = n
        // The groups being walked: the next member's index and the group's end; and the
        // positions of the nodes whose subtrees are open, one per group but the roots'.
        var stack: [(next: Int32, end: Int32)] = [(start[0], start[1])]
        var open: [Int32] = []
        var p: Int32 = 0
        while let top = stack.last {
            if top.next == top.end {
                stack.removeLast()
                if let q = open.popLast() { columns.endAt[Int(q)] = p }
                continue
            }
            stack[stack.count - 1].next += 1
            let s = order[Int(top.next)]
            columns.slotAt[Int(p)] = s
            columns.depth[Int(p)] = Int32(stack.count - 1)
            columns.positionOf[Int(s)] = p
            let g = Int(s) + 1
            if start[g] < start[g + 1] {
                open.append(p)
                stack.append((start[g], start[g + 1]))
            } else {
                columns.endAt[Int(p)] = p + 1
            }
            p += 1
        }
        return columns
    }
}
