extension TreeStore {
    /// Checks the forest and every kept view against their definitions; a no-op
    /// unless built with `TREE_INVARIANTS` (debug builds).
    /// - Complexity: O(positions · views) when enabled
    func checkInvariants() {
        #if TREE_INVARIANTS
        forest.checkInvariants()
        checkViews()
        for layout in sortedLayouts {
            checkLayout(layout)
            var store = self, sorted = layout
            store.sortedLayouts = []
            store.swapWorld(&sorted)
            store.checkViews()
            precondition(sorted.views.userViews.keys.allSatisfy { viewSorts[$0] == nil }, "a sorted view in the tree's order")
        }
        for (id, sort) in viewSorts {
            precondition(layoutKeys != nil || userViews[id] == nil && sortedLayouts.contains { $0.keys == sort && $0.views.userViews[id] != nil },
                         "view \(id) is in the layout of its sort")
        }
        #endif
    }

    #if TREE_INVARIANTS
    /// Checks the views of the order swapped in.
    private func checkViews() {
        if layoutKeys == nil { checkView(unfiltered) }
        for entry in filtered { checkView(entry.view) }
        var users: [Int32: Int] = [:]
        for (id, view) in userViews {
            users[view.depth, default: 0] += 1
            if !isSuspended(id) && view.dense == nil { view.cover.checkInvariants(depthBases[view.depth]!.base, forest) }
            if let dense = view.dense {
                precondition(view.cover.exceptionCount == 0 && dense.own?.depth == view.depth, "view \(id): a dense state and exceptions")
                checkView(dense)
            }
            for entry in view.filtered {
                if let own = entry.own {
                    precondition(!own.filter!.isShared && own.followers == nil, "a view's own filtered rows are not shared")
                    checkView(own)
                } else {
                    precondition(filterBases[entry.query]?.followers?.covers[id] != nil, "view \(id) follows [\(entry.query)]")
                }
            }
        }
        if !selections.isEmpty { users[DepthBase.all, default: 0] += selections.count }
        precondition(users == depthBases.filter { $0.value.users > 0 }.mapValues(\.users), "depth bases and their users")
        precondition(depthBases.values.count(where: { $0.users == 0 }) <= TreeStore.idleBases, "idle depth bases")
        for (view, selection) in selections {
            precondition(contains(view: view) && !selection.isEmpty, "a selection of view \(String(describing: view))")
            selection.checkInvariants(forest, nodeBase)
        }
        for (query, base) in filterBases {
            precondition(base.filter!.isShared && base.filter!.expanded == base.filter!.ancestors, "a shared state expands exactly A")
            checkView(base)
            precondition(!base.followers!.covers.isEmpty, "a shared state nobody follows")
            for (id, cover) in base.followers!.covers {
                precondition(userViews[id]?.filtered.contains { $0.query == query && $0.own == nil } == true,
                             "[\(query)] followed by view \(id), which does not keep it shared")
                cover.checkInvariants(base, forest)
            }
        }
        for entry in depthBases.values { entry.base.checkInvariants(forest) }
        for index in aggregateIndexes { index.checkInvariants(forest) }
        for base in childBases { base.checkInvariants(forest) }
    }

    /// A sorted layout holds the forest's nodes in the order of a fresh build of it, each at
    /// its level, each subtree ending where it does there, with gaps between.
    private func checkLayout(_ layout: SortedLayout) {
        let fresh = SortedLayout(layout.keys, of: forest, workers: 1).columns
        let sorted = forest.withLayout(layout.columns)
        precondition(layout.columns.count == forest.count && layout.columns.slotAt.count == layout.columns.depth.count
                     && layout.columns.slotAt.count == layout.columns.endAt.count, "sort \(layout.keys): column sizes")
        precondition(layout.columns.segmentLoad == Forest.segmentLoads(layout.columns.slotAt), "sort \(layout.keys): segment loads")
        var compact = [Int](repeating: -1, count: sorted.capacity)
        var i = 0
        for p in sorted.positions where !sorted.isGap(p) {
            compact[p.offset] = i
            precondition(sorted.slotAt[p.offset] == fresh.slotAt[i] && sorted.depth[p.offset] == fresh.depth[i],
                         "sort \(layout.keys): node \(i) is slot \(sorted.slotAt[p.offset]) at level \(sorted.depth[p.offset]), "
                            + "a fresh sort has \(fresh.slotAt[i]) at \(fresh.depth[i])")
            precondition(sorted.positionOf[Int(sorted.slotAt[p.offset])] == p.offset, "sort \(layout.keys): positionOf")
            i += 1
        }
        for p in sorted.positions where !sorted.isGap(p) {
            let last = Int(sorted.endAt[p.offset]) - 1
            precondition(last >= p.offset && compact[last] >= 0 && compact[last] + 1 == Int(fresh.endAt[compact[p.offset]]),
                         "sort \(layout.keys): the subtree at \(p) ends at \(last + 1)")
        }
        for base in layout.childBases { base.checkInvariants(sorted) }
    }
    #endif

    #if TREE_INVARIANTS
    private func checkView(_ view: ViewState) {
        precondition(view.index.count == forest.capacity, "view index size")
        let expected = view.covers(forest)
        let actual = view.index.materializedCovers()
        for p in forest.positions {
            let i = p.offset
            if forest.isGap(p) {
                precondition(actual[i] > CoverIndex.gapCover / 2, "gap \(p) has cover \(actual[i])")
            } else {
                precondition(actual[i] == expected[i], "cover at \(p): \(actual[i]), expected \(expected[i])")
            }
        }
        precondition(view.index.zeroCount == expected.lazy.filter { $0 == 0 }.count, "visible count")
        guard let filter = view.filter else { return }
        var scratch: [UInt8] = []
        var matches = Bitset(count: filter.matches.count)
        for slot in 0 ..< forest.flags.count where !forest.flags[slot].contains(.free) {
            if (!filter.matcher.query.leavesOnly || ViewState.isLeaf(Slot(slot), in: forest))
                && filter.matcher.matches(Slot(slot), in: forest, reader: nil, scratch: &scratch) {
                matches.insert(slot)
            }
        }
        precondition(matches == filter.matches, "match bits")
        precondition(filter.matchCount == matches.population, "match count")
        let below = ViewState.matchesBelow(forest, matches: matches)
        for slot in 0 ..< below.count where !forest.flags[slot].contains(.free) {
            precondition((below[slot] > 0) == filter.ancestors.contains(slot), "ancestor bit of slot \(slot)")
            if let counted = filter.matchesBelow { precondition(below[slot] == counted[slot], "matches below slot \(slot)") }
        }
        precondition(filter.matchesBelow != nil || filter.matchIndex != nil, "matches below: neither counts nor an index")
        if let index = filter.matchIndex {
            precondition(index.count == filter.matchCount, "match index count")
            forest.forEachPosition { p in
                let slot = forest.slot(at: p)
                precondition(filter.matchesBelow(slot: slot, at: p, in: forest) == Int(below[slot.index]), "match index below position \(p)")
            }
        }
    }
    #endif
}

extension Forest {
    /// Checks the columns against each other; a no-op unless built with `TREE_INVARIANTS`.
    /// - Complexity: O(positions) when enabled
    public func checkInvariants() {
        #if TREE_INVARIANTS
        let n = capacity
        precondition(endAt.count == n && depth.count == n, "position columns")
        precondition(segmentLoad == Forest.segmentLoads(slotAt), "segment loads")
        var stack: [Position] = []  // open ancestors
        var seen = 0
        var next = Position(0)  // one past the previous node
        for p in positions where !isGap(p) {
            // Close the ancestors whose last descendant came before p.
            while let top = stack.last, subtreeEnd(of: top) <= p {
                precondition(subtreeEnd(of: top) == next || top + 1 == next, "end of \(top) is not after its last descendant")
                stack.removeLast()
            }
            let s = slot(at: p)
            precondition(position(ofSlot: s) == p, "positionOf/slotAt disagree at \(p)")
            precondition(!flags[s.index].contains(.free), "free slot in use at \(p)")
            precondition(level(at: p) == stack.count, "depth at \(p)")
            precondition(parent(ofSlot: s) == stack.last.map { slot(at: $0) }, "parent at \(p)")
            precondition(subtreeEnd(of: p) > p && !isGap(subtreeEnd(of: p) - 1), "end of \(p) is not a node")
            stack.append(p)
            next = p + 1
            seen += 1
        }
        for top in stack { precondition(subtreeEnd(of: top) == next, "end of \(top) at the end") }
        precondition(seen == count, "nodes \(seen) != count \(count)")
        var live = 0
        for slot in flags.indices where !flags[slot].contains(.free) { live += 1 }
        precondition(live == count, "live slots \(live) != nodes \(count)")
        precondition(freeSlots.count + (held?.slots ?? 0) == flags.count - count, "free list")
        #endif
    }
}
