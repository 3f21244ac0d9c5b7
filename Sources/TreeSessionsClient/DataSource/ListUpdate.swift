import Foundation

/// What a list UI does to follow one or more changes of the rows it shows, in the terms of
/// `UICollectionView.performBatchUpdates` / `UITableView.performBatchUpdates` and of a diffable
/// data source's snapshot:
///
/// - `deletions`: rows of the list before (`oldCount` rows) that are gone;
/// - `insertions`: rows of the list after (`newCount` rows) that are new (unknown: fetch them);
/// - `reloads`: rows of the list after, still there, whose content may have changed (a title,
///   `isExpanded`, `hasChildren`, a match): reconfigure them; `reloadsBeforeUpdate` names the
///   same rows in the list before, for `reloadRows(at:)` inside the same batch update.
///
/// A reset (the rows were fetched anew: a refresh, a new filter, a stream that lost track)
/// deletes every old row and inserts every new one, and says so with `isReset`: a UI may prefer
/// `reloadData()` there.
public struct ListUpdate: Sendable, Equatable {
    public var oldCount: Int
    public var newCount: Int
    public var deletions: IndexSet
    public var insertions: IndexSet
    public var reloads: IndexSet
    public var reloadsBeforeUpdate: IndexSet
    public var isReset: Bool

    public init(oldCount: Int, newCount: Int, deletions: IndexSet = [], insertions: IndexSet = [],
                reloads: IndexSet = [], reloadsBeforeUpdate: IndexSet = [], isReset: Bool = false) {
        self.oldCount = oldCount
        self.newCount = newCount
        self.deletions = deletions
        self.insertions = insertions
        self.reloads = reloads
        self.reloadsBeforeUpdate = reloadsBeforeUpdate
        self.isReset = isReset
    }

    /// Nothing to do.
    public var isEmpty: Bool {
        deletions.isEmpty && insertions.isEmpty && reloads.isEmpty && !isReset && oldCount == newCount
    }

    /// An update that changes nothing in a list of `count` rows.
    public static func none(count: Int) -> ListUpdate { ListUpdate(oldCount: count, newCount: count) }
}

/// One change of a list of rows as the service describes it: splices applied in order (each
/// `index` counting rows as the splices before it left them), then the rows of `reload`
/// (numbered after the splices) that may have changed in place. A reset replaces every row.
public struct ListChange: Sendable, Equatable {
    public var splices: [Splice]
    public var reload: [ReloadRange]
    public var isReset: Bool

    public init(splices: [Splice] = [], reload: [ReloadRange] = [], isReset: Bool = false) {
        self.splices = splices
        self.reload = reload
        self.isReset = isReset
    }

    /// Every row replaced: `count` rows out, `total` in.
    public static func reset(from count: Int, to total: Int) -> ListChange {
        ListChange(splices: [Splice(index: 0, removed: count, inserted: total)], isReset: true)
    }
}

extension ListUpdate {
    /// The update that follows `changes`, made one after another to a list of `oldCount` rows.
    ///
    /// Splices and ranges that reach past the list are cut at its end (the service never sends
    /// them; a cache must not trap on them either).
    ///
    /// - Complexity: O(s · k), s the splices and ranges, k the runs of rows they cut the list into.
    public init(oldCount: Int, changes: [ListChange]) {
        var segments = [Segment(kind: .old(0), count: oldCount, reloaded: false)]
        segments.removeAll { $0.count == 0 }
        var isReset = false
        for change in changes {
            isReset = isReset || change.isReset
            for splice in change.splices {
                let count = segments.reduce(0) { $0 + $1.count }
                let index = min(max(splice.index, 0), count)
                let removed = min(max(splice.removed, 0), count - index)
                let from = Self.cut(&segments, at: index)
                let to = Self.cut(&segments, at: index + removed)
                segments.removeSubrange(from..<to)
                if splice.inserted > 0 {
                    segments.insert(Segment(kind: .new, count: splice.inserted, reloaded: false), at: from)
                }
            }
            for range in change.reload {
                let count = segments.reduce(0) { $0 + $1.count }
                let index = min(max(range.index, 0), count)
                let end = min(index + max(range.count, 0), count)
                let from = Self.cut(&segments, at: index)
                let to = Self.cut(&segments, at: end)
                for i in from..<to { segments[i].reloaded = true }
            }
        }
        var kept = IndexSet()
        var insertions = IndexSet(), reloads = IndexSet(), reloadsBefore = IndexSet()
        var position = 0
        for segment in segments {
            let new = position..<(position + segment.count)
            switch segment.kind {
            case .old(let start):
                let old = start..<(start + segment.count)
                kept.insert(integersIn: old)
                if segment.reloaded {
                    reloads.insert(integersIn: new)
                    reloadsBefore.insert(integersIn: old)
                }
            case .new:
                insertions.insert(integersIn: new)
            }
            position += segment.count
        }
        var deletions = IndexSet(integersIn: 0..<oldCount)
        deletions.subtract(kept)
        self.init(oldCount: oldCount, newCount: position, deletions: deletions, insertions: insertions,
                  reloads: reloads, reloadsBeforeUpdate: reloadsBefore, isReset: isReset)
    }

    /// A run of rows of the list being changed: rows of the old list from `start`, or new rows.
    private struct Segment {
        enum Kind { case old(Int), new }
        var kind: Kind
        var count: Int
        var reloaded: Bool
    }

    /// Splits the segment holding row `position` so that a segment starts there; answers the
    /// index of that segment (`segments.count` at the end).
    private static func cut(_ segments: inout [Segment], at position: Int) -> Int {
        var start = 0
        for i in segments.indices {
            let segment = segments[i]
            if position == start { return i }
            if position < start + segment.count {
                let head = position - start
                var first = segment, second = segment
                first.count = head
                second.count = segment.count - head
                if case .old(let oldStart) = segment.kind { second.kind = .old(oldStart + head) }
                segments[i] = first
                segments.insert(second, at: i + 1)
                return i + 1
            }
            start += segment.count
        }
        return segments.count
    }
}
