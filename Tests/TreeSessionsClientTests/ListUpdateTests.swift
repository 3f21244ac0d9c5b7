import Foundation
import Testing
@testable import TreeSessionsClient

/// Splices → `ListUpdate`, by hand and against a naive model: a list of tokens that the splices
/// edit one by one, whose survivors and newcomers give the expected deletions and insertions.
@Suite struct ListUpdateTests {
    @Test func handCases() {
        // Expanding row 1 of 5 shows 3 children after it; the row itself reloads.
        let expand = ListUpdate(oldCount: 5, changes: [ListChange(splices: [Splice(index: 2, removed: 0, inserted: 3)],
                                                                  reload: [ReloadRange(index: 1, count: 1)])])
        #expect(expand.deletions == [])
        #expect(expand.insertions == IndexSet(2..<5))
        #expect(expand.reloads == [1])
        #expect(expand.reloadsBeforeUpdate == [1])
        #expect(expand.newCount == 8)

        // Two splices: the second counts rows as the first left them.
        let two = ListUpdate(oldCount: 10, changes: [ListChange(splices: [Splice(index: 2, removed: 3, inserted: 0),
                                                                          Splice(index: 4, removed: 1, inserted: 2)])])
        #expect(two.deletions == IndexSet([2, 3, 4, 7]))
        #expect(two.insertions == IndexSet([4, 5]))
        #expect(two.newCount == 8)

        // A reload of an inserted row stays an insertion; of a moved-up row, a reload at both indices.
        let mixed = ListUpdate(oldCount: 4, changes: [ListChange(splices: [Splice(index: 0, removed: 1, inserted: 0),
                                                                           Splice(index: 1, removed: 0, inserted: 1)],
                                                                 reload: [ReloadRange(index: 0, count: 2)])])
        #expect(mixed.deletions == [0])
        #expect(mixed.insertions == [1])
        #expect(mixed.reloads == [0])
        #expect(mixed.reloadsBeforeUpdate == [1])

        // Changes one after another compose.
        let composed = ListUpdate(oldCount: 3, changes: [ListChange(splices: [Splice(index: 3, removed: 0, inserted: 2)]),
                                                         ListChange(splices: [Splice(index: 0, removed: 2, inserted: 0)])])
        #expect(composed.deletions == [0, 1])
        #expect(composed.insertions == [1, 2])
        #expect(composed.newCount == 3)

        let reset = ListUpdate(oldCount: 3, changes: [.reset(from: 3, to: 2)])
        #expect(reset.isReset && reset.deletions == IndexSet(0..<3) && reset.insertions == IndexSet(0..<2))
        #expect(ListUpdate(oldCount: 4, changes: []).isEmpty)
    }

    enum Token: Equatable { case old(Int, reloaded: Bool), new }

    @Test(arguments: 0..<200)
    func randomAgainstNaive(seed: Int) {
        var random = SplitMix(seed: UInt64(seed))
        let oldCount = Int(random.next() % 30)
        var tokens: [Token] = (0..<oldCount).map { .old($0, reloaded: false) }
        var changes: [ListChange] = []
        for _ in 0..<Int(random.next() % 4) {
            var change = ListChange()
            for _ in 0..<Int(random.next() % 4) {
                let index = Int(random.next() % UInt64(tokens.count + 1))
                let removed = Int(random.next() % UInt64(tokens.count - index + 1))
                let inserted = Int(random.next() % 5)
                tokens.replaceSubrange(index..<(index + removed), with: Array(repeating: .new, count: inserted))
                change.splices.append(Splice(index: index, removed: removed, inserted: inserted))
            }
            var position = 0
            while position < tokens.count, random.next() % 3 == 0 {
                let start = position + Int(random.next() % UInt64(tokens.count - position))
                let count = 1 + Int(random.next() % UInt64(tokens.count - start))
                for i in start..<(start + count) { if case .old(let o, _) = tokens[i] { tokens[i] = .old(o, reloaded: true) } }
                change.reload.append(ReloadRange(index: start, count: count))
                position = start + count + 1
            }
            changes.append(change)
        }
        let update = ListUpdate(oldCount: oldCount, changes: changes)
        var kept = IndexSet(), insertions = IndexSet(), reloads = IndexSet(), reloadsBefore = IndexSet()
        for (i, token) in tokens.enumerated() {
            switch token {
            case .new: insertions.insert(i)
            case .old(let o, let reloaded):
                kept.insert(o)
                if reloaded { reloads.insert(i); reloadsBefore.insert(o) }
            }
        }
        #expect(update.deletions == IndexSet(integersIn: 0..<oldCount).subtracting(kept), "seed \(seed)")
        #expect(update.insertions == insertions, "seed \(seed)")
        #expect(update.reloads == reloads, "seed \(seed)")
        #expect(update.reloadsBeforeUpdate == reloadsBefore, "seed \(seed)")
        #expect(update.newCount == tokens.count, "seed \(seed)")
    }

    /// The row cache follows splices as an array of optional rows does.
    @Test(arguments: 0..<100)
    func rowCacheAgainstNaive(seed: Int) {
        var random = SplitMix(seed: UInt64(seed) &+ 1000)
        var cache = RowCache<Int>(capacity: 40)
        var naive: [Int?] = Array(repeating: nil, count: 60)
        cache.total = 60
        var next = 0
        for step in 0..<60 {
            switch random.next() % 4 {
            case 0:
                let offset = Int(random.next() % UInt64(naive.count + 1))
                let count = Int(random.next() % 12)
                let rows = (0..<count).map { _ in next += 1; return next }
                cache.store(rows, at: offset)
                for (i, row) in rows.enumerated() where offset + i < naive.count { naive[offset + i] = row }
            case 1, 2:
                let index = Int(random.next() % UInt64(naive.count + 1))
                let removed = Int(random.next() % UInt64(min(8, naive.count - index) + 1))
                let inserted = Int(random.next() % 8)
                cache.splice(at: index, removed: removed, inserted: inserted)
                naive.replaceSubrange(index..<(index + removed), with: Array(repeating: nil, count: inserted))
                cache.total = naive.count
            default:
                guard !naive.isEmpty else { continue }
                let start = Int(random.next() % UInt64(naive.count))
                let end = min(naive.count, start + Int(random.next() % 6))
                cache.forget(start..<end)
                for i in start..<end { naive[i] = nil }
            }
            #expect(cache.isValid, "seed \(seed) step \(step)")
            #expect(cache.cachedCount <= 40, "seed \(seed) step \(step)")
            // Eviction may drop rows; every row the cache holds must be the naive one.
            for i in 0..<naive.count {
                if let row = cache.row(at: i) { #expect(row == naive[i], "seed \(seed) step \(step) row \(i)") }
            }
            let missing = cache.missing(in: 0..<naive.count).flatMap { Array($0) }
            #expect(missing == (0..<naive.count).filter { cache.row(at: $0) == nil }, "seed \(seed) step \(step)")
        }
    }
}

/// A small seeded generator (SplitMix64), so a failing seed replays.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
