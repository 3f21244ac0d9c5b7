/// The sparse cache of a list's rows: runs of consecutive known rows, sorted and disjoint,
/// each with the time it was last used; every other row of `0..<total` is unknown.
///
/// It follows changes without fetching: a splice drops the rows it removes and shifts every
/// row after them, leaving its inserted rows unknown; a reload range drops its rows. At most
/// `capacity` rows are kept: storing more drops the runs used longest ago.
struct RowCache<Row: Sendable>: Sendable {
    struct Run: Sendable {
        var start: Int
        var rows: [Row]
        var lastUse: Int
        var end: Int { start + rows.count }
    }

    private(set) var runs: [Run] = []
    var total = 0
    let capacity: Int
    private var clock = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The rows held.
    var cachedCount: Int { runs.reduce(0) { $0 + $1.rows.count } }

    /// The run holding `index`, if any.
    ///
    /// - Complexity: O(log r), r the runs.
    private func runIndex(holding index: Int) -> Int? {
        var low = 0, high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].start <= index { low = middle + 1 } else { high = middle }
        }
        let candidate = low - 1
        guard candidate >= 0, index < runs[candidate].end else { return nil }
        return candidate
    }

    /// The row at `index`, nil when it is not known.
    ///
    /// - Complexity: O(log r).
    func row(at index: Int) -> Row? {
        guard let run = runIndex(holding: index) else { return nil }
        return runs[run].rows[index - runs[run].start]
    }

    /// The parts of `range` (clamped to the rows there are) whose rows are not known.
    ///
    /// - Complexity: O(r).
    func missing(in range: Range<Int>) -> [Range<Int>] {
        let range = range.clamped(to: 0..<total)
        var gaps: [Range<Int>] = []
        var position = range.lowerBound
        for run in runs where run.end > position && run.start < range.upperBound {
            if run.start > position { gaps.append(position..<run.start) }
            position = max(position, run.end)
        }
        if position < range.upperBound { gaps.append(position..<range.upperBound) }
        return gaps
    }

    /// Marks the runs that hold rows of `range` as used now.
    mutating func touch(_ range: Range<Int>) {
        clock += 1
        for i in runs.indices where runs[i].end > range.lowerBound && runs[i].start < range.upperBound {
            runs[i].lastUse = clock
        }
    }

    /// Stores `rows` from `offset` (replacing what was known there), then drops the runs used
    /// longest ago while more than `capacity` rows are held.
    ///
    /// - Complexity: O(r + rows).
    mutating func store(_ rows: [Row], at offset: Int) {
        let rows = Array(rows.prefix(max(0, total - offset)))
        guard !rows.isEmpty, offset >= 0 else { return }
        forget(offset..<(offset + rows.count))
        clock += 1
        let position = runs.firstIndex { $0.start > offset } ?? runs.count
        runs.insert(Run(start: offset, rows: rows, lastUse: clock), at: position)
        while cachedCount > capacity, runs.count > 1,
              let oldest = runs.indices.min(by: { runs[$0].lastUse < runs[$1].lastUse }) {
            runs.remove(at: oldest)
        }
    }

    /// Drops every row.
    mutating func removeAll() {
        runs.removeAll()
    }

    /// Drops the rows of `range`, splitting the runs it cuts.
    ///
    /// - Complexity: O(r).
    mutating func forget(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        var result: [Run] = []
        result.reserveCapacity(runs.count + 1)
        for run in runs {
            if run.end <= range.lowerBound || run.start >= range.upperBound {
                result.append(run)
                continue
            }
            if run.start < range.lowerBound {
                result.append(Run(start: run.start, rows: Array(run.rows[..<(range.lowerBound - run.start)]), lastUse: run.lastUse))
            }
            if run.end > range.upperBound {
                result.append(Run(start: range.upperBound, rows: Array(run.rows[(range.upperBound - run.start)...]), lastUse: run.lastUse))
            }
        }
        runs = result
    }

    /// Applies one splice: the `removed` rows at `index` are dropped, the rows after them move by
    /// `inserted - removed`, and the `inserted` rows are unknown. `total` is not changed (the
    /// change's `total` is set once all its splices are applied).
    ///
    /// - Complexity: O(r).
    mutating func splice(at index: Int, removed: Int, inserted: Int) {
        let removed = max(0, removed), inserted = max(0, inserted)
        forget(index..<(index + removed))
        let shift = inserted - removed
        guard shift != 0 else { return }
        var result: [Run] = []
        result.reserveCapacity(runs.count + 1)
        for var run in runs {
            if run.end <= index {
                result.append(run)
            } else if run.start >= index {
                run.start += shift
                result.append(run)
            } else {
                // The run holds rows before `index` and after it (nothing was removed from it).
                let head = index - run.start
                result.append(Run(start: run.start, rows: Array(run.rows[..<head]), lastUse: run.lastUse))
                result.append(Run(start: index + shift + removed, rows: Array(run.rows[head...]), lastUse: run.lastUse))
            }
        }
        runs = result
    }

    /// Drops every row at or past `total` (after a change made the list shorter).
    mutating func trim() {
        forget(total..<Int.max)
    }

    /// Whether the runs are sorted, disjoint, non-empty and inside `0..<total`.
    var isValid: Bool {
        var position = 0
        for run in runs {
            guard !run.rows.isEmpty, run.start >= position, run.end <= total else { return false }
            position = run.end
        }
        return true
    }
}
