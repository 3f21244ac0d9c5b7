/// How a view follows edits of the forest in place.
///
/// The cover of a position is a sum of contributions of its ancestors (see
/// `ViewState`), each a range addition over a subtree:
/// - a collapsed node adds one to its descendants;
/// - in a filtered view, a node in A adds one to its descendants, and a node in
///   A or M whose parent is in A (or that is a root) takes one off its own subtree;
///   with one added everywhere, this is exactly "an excluded node covers its
///   subtree".
/// An edit changes the contributions of the nodes it touches and of the ancestors
/// whose membership of A changes (their match count reaches or leaves zero), and
/// nothing else. The changes are applied increases first, so that no cover goes
/// below zero on the way; each one is then a single splice of the view's rows.
extension ViewState {
    /// What a view remembers of a subtree taken out, for `departed` and `arrived`.
    struct Departure {
        /// Matches in the subtree (filtered views).
        var matches = 0
        /// The covers of the subtree's nodes minus its root's, in pre-order (for a move).
        var covers = ContiguousArray<Int32>()
        /// Ancestors that left A when the subtree left: if it brings them back into A
        /// where it arrives, they keep their expansion (they never left, seen from outside).
        var leftA: [Slot] = []
        /// The parent the subtree left (nil: it was a root), which may have become a leaf.
        var parent: Slot?
        /// What each follower of a shared state keeps of it.
        var followers: [ViewID: SparseCover.Departure] = [:]
        /// The subtree's root's level where it left (own expansion, see `arrived`).
        var level = 0
    }

    /// What an edit changes of a view's covers, applied together (`apply`): range additions
    /// of +1 or -1 over positions, and in a shared state the nodes whose fresh expansion
    /// changed, for the views that follow it.
    struct Changes {
        var additions: [(delta: Int32, range: Range<Position>)] = []
        var flips: [Flip] = []
    }

    /// A node of a shared filtered state that entered A (expanded now) or left it
    /// (collapsed now). A view following the state gets it expanded when it entered A
    /// (unless `kept`) and keeps its own expansion otherwise, as a filtered state of its
    /// own would (`FilterState.propagate`).
    struct Flip {
        var slot: Slot
        var expanded: Bool
        var kept: Bool
    }

    /// Grows the per-slot state to the forest's slots.
    /// - Complexity: O(added slots), amortized
    mutating func reserveSlots(_ forest: Forest) {
        if own != nil { own!.expanded.grow(to: forest.flags.count) }
        guard filter != nil else { return }
        let n = forest.flags.count
        filter!.matches.grow(to: n)
        filter!.expanded.grow(to: n)
        filter!.ancestors.grow(to: n)
        filter!.matchesBelow?.grow(to: n)
    }

    /// Before the first edit a filtered view follows: counts the matches below each node.
    /// - Complexity: O(positions) once, then O(1)
    mutating func prepareForEdits(_ forest: Forest) {
        guard filter != nil, filter!.matchesBelow == nil else { return }
        filter!.matchesBelow = ViewState.matchesBelow(forest, matches: filter!.matches)
    }

    /// Nodes moved to make room (see `Relocation`).
    mutating func relocate(_ relocation: Relocation) { index.relocate(relocation) }

    // MARK: Inserted nodes

    /// Nodes new to the forest were put at `range`, their roots children of `parent`
    /// (roots when nil): they get their state in this view (a filtered view matches
    /// their titles and expands exactly those that are ancestors of matches, as a
    /// build does), their covers, and their ancestors' match counts.
    /// - Complexity: O(range + total title length + depth · log n)
    mutating func inserted(_ range: Range<Position>, parent: Slot?, in forest: Forest, splices: inout [Splice]?) {
        reserveSlots(forest)
        var found = 0
        let rootDepth = forest.level(at: range.lowerBound)
        if filter != nil {
            var scratch: [UInt8] = []
            var sums: [UInt32] = [0, 0]
            let leavesOnly = filter!.matcher.query.leavesOnly
            for p in range.reversed() {
                let slot = forest.slot(at: p)
                let isMatch = (!leavesOnly || !forest.hasChildren(atPosition: p))
                    && filter!.matcher.matches(slot, in: forest, reader: nil, scratch: &scratch)
                let d = forest.level(at: p) - rootDepth
                while sums.count < d + 2 { sums.append(0) }
                let inside = sums[d + 1]
                sums[d + 1] = 0
                sums[d] &+= inside &+ (isMatch ? 1 : 0)
                filter!.matches.set(slot.index, isMatch)
                filter!.matchesBelow![slot.index] = inside
                filter!.ancestors.set(slot.index, inside > 0)
                filter!.expanded.set(slot.index, inside > 0)
                if isMatch { found += 1 }
            }
            filter!.matchCount += found
        }
        if own != nil {
            for p in range { own!.expanded.set(forest.slot(at: p).index, own!.rule(level: forest.level(at: p))) }
        }
        setFreshCovers(range, parent: parent, in: forest)
        followInsertion(range, in: forest, nil)
        recordInsertion(range, &splices)
        if found > 0, let parent {
            var roots: [Slot] = []
            forest.forEachRoot(ofRun: range) { p in
                let slot = forest.slot(at: p)
                if filter!.isIncluded(slot) { roots.append(slot) }
            }
            var changes = Changes()
            filter!.propagate(found, from: parent, included: roots, in: forest, &changes)
            apply(changes, in: forest, &splices)
        }
        // The parent has children now: with leaves only, it stops matching.
        if let parent, filter?.matcher.query.leavesOnly == true {
            var changed: [Slot] = []
            rematch(parent, in: forest, splices: &splices, changed: &changed)
        }
    }

    // MARK: Subtrees taken out and put back

    /// Before the subtree at `p` is taken out: its removal from the rows, its
    /// matches, and with `keepingCovers` its covers relative to its root (for a move).
    /// - Complexity: O(log n), O(subtree positions) when keeping covers
    mutating func departing(_ p: Position, in forest: Forest, keepingCovers: Bool, splices: inout [Splice]?) -> Departure {
        var departure = Departure()
        departure.level = forest.level(at: p)
        let subtree = forest.subtree(of: p)
        if hasFollowers {
            let slot = forest.slot(at: p)
            let mc = index.minimumAndCount(subtree.lowerBound.offset, subtree.upperBound.offset)
            follow { id, cover, base, _ in
                let gone = cover.removing(slot, subtree: mc, base, forest)
                departure.followers[id] = gone
                return gone.splice
            }
        }
        if let filter {
            let slot = forest.slot(at: p)
            departure.matches = Int(filter.matchesBelow![slot.index]) + (filter.matches.contains(slot.index) ? 1 : 0)
        }
        if keepingCovers && own == nil {
            let covers = index.covers(in: subtree)
            let root = covers[0]
            forest.forEachPosition(in: subtree) { q in departure.covers.append(covers[q - p] - root) }
        }
        if splices != nil {
            let removed = index.zeros(in: subtree)
            if removed > 0 { splices!.append(Splice(index: index.zeros(before: p), removed: removed, inserted: 0)) }
        }
        return departure
    }

    /// The subtree whose nodes are `run` left `positions` (now gaps), its root a
    /// child of `parent` (a root when nil). `deleted`: the nodes leave the forest.
    /// - Complexity: O(positions + depth · log n)
    mutating func departed(_ positions: Range<Position>, _ run: Run, parent: Slot?, _ departure: inout Departure,
                           deleted: Bool, in forest: Forest, splices: inout [Splice]?) {
        index.setCovers(ContiguousArray(repeating: CoverIndex.gapCover, count: positions.count), at: positions.lowerBound)
        let gone = departure.followers
        follow { id, cover, base, _ in
            cover.removed(gone[id]!, base, forest)
            return nil
        }
        guard filter != nil else { return }
        if deleted {
            filter!.matchCount -= departure.matches
            for slot in run.slots {
                filter!.matches.remove(slot.index)
                filter!.expanded.remove(slot.index)
                filter!.ancestors.remove(slot.index)
                filter!.matchesBelow![slot.index] = 0
            }
        }
        if departure.matches > 0, let parent {
            var changes = Changes()
            filter!.propagate(-departure.matches, from: parent, included: [], in: forest, &changes,
                              changed: &departure.leftA)
            apply(changes, in: forest, &splices)
        }
        departure.parent = parent
        // With leaves only, a parent left without children may start matching; its
        // ancestors that have just left A keep their expansion when they come back. After
        // a move, once the subtree has arrived (see `arrived`).
        if deleted, let parent, filter!.matcher.query.leavesOnly {
            var changed: [Slot] = []
            rematch(parent, in: forest, splices: &splices, keepingExpansionOf: departure.leftA, changed: &changed)
        }
    }

    /// The subtree taken out with `departure` was put at `range` under `parent`
    /// (a root when nil), keeping every node's state in this view.
    /// - Complexity: O(range + depth · log n)
    mutating func arrived(_ range: Range<Position>, parent: Slot?, _ departure: Departure,
                          in forest: Forest, splices: inout [Splice]?) {
        let root = forest.slot(at: range.lowerBound)
        if own != nil {
            // A node's own value stays; one that followed the rule follows it at its new level.
            let shift = forest.level(at: range.lowerBound) - departure.level
            forest.forEachPosition(in: range) { p in
                let slot = forest.slot(at: p), level = forest.level(at: p)
                if own!.expanded.contains(slot.index) == own!.rule(level: level - shift) {
                    own!.expanded.set(slot.index, own!.rule(level: level))
                }
            }
            setFreshCovers(range, parent: parent, in: forest)
        } else {
            let (base, parentInA) = childBase(of: parent, in: forest)
            let cover = base + (parentInA && !(filter?.isIncluded(root) ?? true) ? 1 : 0)
            index.setCovers(ContiguousArray(departure.covers.lazy.map { $0 + cover }), at: range.lowerBound)
        }
        followInsertion(range, in: forest, departure.followers)
        recordInsertion(range, &splices)
        if departure.matches > 0, let parent {
            var changes = Changes()
            var entered: [Slot] = []
            filter!.propagate(departure.matches, from: parent, included: filter!.isIncluded(root) ? [root] : [],
                              in: forest, &changes, keepingExpansionOf: departure.leftA, changed: &entered)
            apply(changes, in: forest, &splices)
        }
        // With leaves only: the new parent stops matching (matches only go away, so its
        // ancestors leave A, if at all, after the subtree's matches came in), then the old
        // one may start (ancestors that left A on the way keep their expansion).
        if filter?.matcher.query.leavesOnly == true {
            var left = departure.leftA
            if let parent { rematch(parent, in: forest, splices: &splices, changed: &left) }
            if let oldParent = departure.parent {
                var changed: [Slot] = []
                rematch(oldParent, in: forest, splices: &splices, keepingExpansionOf: left, changed: &changed)
            }
        }
    }

    // MARK: Renamed nodes

    /// The title or data of `slot` changed: in a filtered view, it may match or stop matching.
    /// - Complexity: O(title and fields' length + depth · log n)
    mutating func rematched(_ slot: Slot, in forest: Forest, splices: inout [Splice]?) {
        guard filter != nil else { return }
        var changed: [Slot] = []
        rematch(slot, in: forest, splices: &splices, changed: &changed)
    }

    /// Matches `slot` again (its fields, and with leaves only whether it has children) and
    /// follows when that changed. Ancestors that enter A are expanded, except those of
    /// `kept`; those that leave or enter A are appended to `changed`.
    /// - Complexity: O(title length + depth · log n)
    mutating func rematch(_ slot: Slot, in forest: Forest, splices: inout [Splice]?, keepingExpansionOf kept: [Slot] = [],
                          changed: inout [Slot]) {
        guard filter != nil else { return }
        var scratch: [UInt8] = []
        let isMatch = (!filter!.matcher.query.leavesOnly || ViewState.isLeaf(slot, in: forest))
            && filter!.matcher.matches(slot, in: forest, reader: nil, scratch: &scratch)
        guard isMatch != filter!.matches.contains(slot.index) else { return }
        filter!.matches.set(slot.index, isMatch)
        filter!.matchCount += isMatch ? 1 : -1
        var changes = Changes()
        let parent = forest.parent(ofSlot: slot)
        let inA = filter!.isAncestorOfMatch(slot)
        if !inA && (parent.map { filter!.isAncestorOfMatch($0) } ?? true) {
            // Leaves or joins the excluded nodes under a parent in A.
            changes.additions.append((isMatch ? -1 : 1, forest.subtree(of: forest.position(ofSlot: slot))))
        }
        if let parent {
            filter!.propagate(isMatch ? 1 : -1, from: parent, included: isMatch && !inA ? [slot] : [], in: forest, &changes,
                              keepingExpansionOf: kept, changed: &changed)
        }
        apply(changes, in: forest, &splices)
    }

    // MARK: Internals

    /// Sets the covers of the nodes at `range` (subtrees whose roots are children of
    /// `parent`, a root when nil) from their state in this view.
    /// - Complexity: O(range + log n · blocks)
    private mutating func setFreshCovers(_ range: Range<Position>, parent: Slot?, in forest: Forest) {
        let rootDepth = forest.level(at: range.lowerBound)
        let (base, parentInA) = childBase(of: parent, in: forest)
        var covers = ContiguousArray<Int32>()
        covers.reserveCapacity(range.count)
        var bases: [(cover: Int32, inA: Bool)] = [(base, parentInA)]  // by level below the roots
        for p in range {
            let slot = forest.slot(at: p)
            let d = forest.level(at: p) - rootDepth
            let above = bases[d]
            let c = above.cover + (above.inA && !(filter?.isIncluded(slot) ?? true) ? 1 : 0)
            covers.append(c)
            let below = (c + (isExpanded(slot: slot, in: forest) ? 0 : 1), filter?.isAncestorOfMatch(slot) ?? false)
            if d + 1 < bases.count { bases[d + 1] = below } else { bases.append(below) }
        }
        index.setCovers(covers, at: range.lowerBound)
    }

    /// What a child of `parent` (a root when nil) has for a cover before its own
    /// exclusion, and whether it is excluded unless included (its parent in A).
    private func childBase(of parent: Slot?, in forest: Forest) -> (cover: Int32, parentInA: Bool) {
        guard let parent else { return (0, filter != nil) }
        let p = forest.position(ofSlot: parent)
        let cover = index.cover(at: p) + (isExpanded(slot: parent, in: forest) ? 0 : 1)
        return (cover, filter?.isAncestorOfMatch(parent) ?? false)
    }

    /// The followers take the nodes put at `range` (with what they kept of them when they
    /// arrive from elsewhere).
    private mutating func followInsertion(_ range: Range<Position>, in forest: Forest,
                                          _ departures: [ViewID: SparseCover.Departure]?) {
        guard hasFollowers else { return }
        let positions = range.lowerBound.offset ..< range.upperBound.offset
        let run = index.minimumAndCount(positions.lowerBound, positions.upperBound)
        follow { id, cover, base, _ in
            if let departure = departures?[id] { return cover.arrived(positions, run: run, departure, base, forest) }
            return cover.inserted(positions, run: run, base, forest)
        }
    }

    private func recordInsertion(_ range: Range<Position>, _ splices: inout [Splice]?) {
        guard splices != nil else { return }
        let inserted = index.zeros(in: range)
        if inserted > 0 { splices!.append(Splice(index: index.zeros(before: range.lowerBound), removed: 0, inserted: inserted)) }
    }

    /// Applies range additions, increases first, recording one splice for each that
    /// hides or shows rows. The followers follow each, and the flips between the increases
    /// and the decreases: a node entering A only hides rows of a follower, one leaving it
    /// only shows them, and one `apply` has flips of one kind; so no cover goes below zero
    /// on the way.
    private mutating func apply(_ changes: Changes, in forest: Forest, _ splices: inout [Splice]?) {
        for (delta, range) in changes.additions where delta > 0 && !range.isEmpty {
            if splices != nil {
                let removed = index.zeros(in: range)
                if removed > 0 { splices!.append(Splice(index: index.zeros(before: range.lowerBound), removed: removed, inserted: 0)) }
            }
            add(delta, to: range, in: forest)
        }
        for flip in changes.flips { follow(flip, in: forest) }
        for (delta, range) in changes.additions where delta < 0 && !range.isEmpty {
            add(delta, to: range, in: forest)
            recordInsertion(range, &splices)
        }
    }
}

extension ViewState.FilterState {
    /// Adds `delta` matches below `start` and each of its ancestors. A node whose
    /// count leaves zero enters A: it adds one to its descendants, starts expanded,
    /// stops being excluded, and its included children (`included` for `start`, the
    /// child it was reached from above it) stop being excluded too. A node whose
    /// count reaches zero leaves A and keeps its expansion. Only the nodes nearest
    /// `start` can change membership: the first that does not ends the changes,
    /// which are listed in `changed`. Nodes of `keepingExpansionOf` enter A without
    /// being expanded.
    /// - Complexity: O(depth + keepingExpansionOf)
    mutating func propagate(_ delta: Int, from start: Slot, included: [Slot], in forest: Forest,
                            _ changes: inout ViewState.Changes, keepingExpansionOf kept: [Slot] = []) {
        var changed: [Slot] = []
        propagate(delta, from: start, included: included, in: forest, &changes, keepingExpansionOf: kept, changed: &changed)
    }

    mutating func propagate(_ delta: Int, from start: Slot, included: [Slot], in forest: Forest,
                            _ changes: inout ViewState.Changes, keepingExpansionOf kept: [Slot] = [],
                            changed: inout [Slot]) {
        var next: Slot? = start
        var children = included
        var changing = true
        while let slot = next {
            let (old, new) = matchesBelow!.add(delta, at: slot.index)
            ancestors.set(slot.index, new > 0)
            let parent = forest.parent(ofSlot: slot)
            if changing && (old == 0) != (new == 0) {
                let p = forest.position(ofSlot: slot)
                let descendants = forest.descendants(of: p), subtree = forest.subtree(of: p)
                let excludable = !matches.contains(slot.index) && (parent.map { isAncestorOfMatch($0) } ?? true)
                changed.append(slot)
                if new > 0 {
                    // One more cover on the descendants, unless a collapsed node starts
                    // expanded, which takes its own cover off them: no change then. A
                    // shared state expands it always; its followers decide (`Flip`).
                    if isShared {
                        expanded.insert(slot.index)
                        changes.flips.append(ViewState.Flip(slot: slot, expanded: true, kept: kept.contains(slot)))
                    } else if !expanded.contains(slot.index) && !kept.contains(slot) {
                        expanded.insert(slot.index)
                    } else {
                        changes.additions.append((1, descendants))
                    }
                    if excludable { changes.additions.append((-1, subtree)) }
                    for child in children { changes.additions.append((-1, forest.subtree(of: forest.position(ofSlot: child)))) }
                } else {
                    // One cover less on the descendants; a shared state collapses it, which
                    // puts it back.
                    if isShared {
                        expanded.remove(slot.index)
                        changes.flips.append(ViewState.Flip(slot: slot, expanded: false, kept: true))
                    } else {
                        changes.additions.append((-1, descendants))
                    }
                    if excludable { changes.additions.append((1, subtree)) }
                }
                children = [slot]
            } else {
                changing = false
            }
            next = parent
        }
    }
}
