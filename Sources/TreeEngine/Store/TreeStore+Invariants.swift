extension TreeStore {
    /// Checks the forest and every kept view against their definitions; a no-op
    /// unless built with `TREE_INVARIANTS` (debug builds).
    /// - Complexity: O(n · views) when enabled
    func checkInvariants() {
        #if TREE_INVARIANTS
        forest.checkInvariants()
        checkView(unfiltered)
        for entry in filtered { checkView(entry.view) }
        #endif
    }

    #if TREE_INVARIANTS
    private func checkView(_ view: ViewState) {
        precondition(view.index.count == forest.count, "view index size")
        let expected = view.filter.map { ViewState.filteredCovers(forest, $0) } ?? ViewState.unfilteredCovers(forest)
        precondition(view.index.materializedCovers() == expected, "view covers differ from expansion state")
        precondition(view.index.zeroCount == expected.lazy.filter { $0 == 0 }.count, "visible count")
    }
    #endif
}

extension Forest {
    /// Checks the columns against each other; a no-op unless built with `TREE_INVARIANTS`.
    /// - Complexity: O(n) when enabled
    public func checkInvariants() {
        #if TREE_INVARIANTS
        let n = count
        precondition(subtreeSize.count == n && depth.count == n, "position columns")
        var stack: [Int] = []  // open ancestors' positions
        var seen = 0
        for p in 0 ..< n {
            while let top = stack.last, top + Int(subtreeSize[top]) <= p { stack.removeLast() }
            let slot = Int(slotAt[p])
            precondition(Int(positionOf[slot]) == p, "positionOf/slotAt disagree at \(p)")
            precondition(!flags[slot].contains(.free), "free slot in use at \(p)")
            precondition(Int(depth[p]) == stack.count, "depth at \(p)")
            precondition(parentSlot[slot] == (stack.last.map { slotAt[$0] } ?? -1), "parent at \(p)")
            precondition(subtreeSize[p] >= 1 && p + Int(subtreeSize[p]) <= (stack.last.map { $0 + Int(subtreeSize[$0]) } ?? n),
                         "subtree of \(p) overflows its parent")
            stack.append(p)
            seen += 1
        }
        var live = 0
        for slot in flags.indices where !flags[slot].contains(.free) { live += 1 }
        precondition(live == n, "live slots \(live) != nodes \(n)")
        precondition(freeSlots.count == flags.count - n, "free list")
        #endif
    }
}
