import Testing
@testable import TreeEngine
@testable import TreeReference

/// The cover index against a plain array of covers, under random range additions.
@Suite struct CoverIndexTests {
    @Test(arguments: 0 ..< 40)
    func randomRangeAdditions(seed: Int) {
        var rng = SeededRandom(seed: UInt64(seed) &+ 7_000)
        let n = rng.pick([0, 1, 63, 64, 65, 127, 128, 200, 1000, 4097])
        var naive = (0 ..< n).map { _ in Int32(rng.int(0 ... 2)) }
        var index = CoverIndex(covers: ContiguousArray(naive))
        var added: [Range<Int>] = []  // additions still in force, so covers never go below zero
        for step in 0 ..< 300 {
            if n > 0 && (added.isEmpty || rng.chance(0.6)) {
                let a = rng.int(0 ... n - 1), b = rng.int(a + 1 ... n)
                index.add(1, to: Position(a) ..< Position(b))
                for p in a ..< b { naive[p] += 1 }
                added.append(a ..< b)
            } else if !added.isEmpty {
                let range = added.remove(at: rng.int(0 ... added.count - 1))
                index.add(-1, to: Position(range.lowerBound) ..< Position(range.upperBound))
                for p in range { naive[p] -= 1 }
            }
            let zeros = naive.indices.filter { naive[$0] == 0 }
            #expect(index.zeroCount == zeros.count, "seed \(seed) step \(step)")
            if n > 0 {
                let p = rng.int(0 ... n - 1)
                #expect(index.cover(at: Position(p)) == naive[p], "seed \(seed) step \(step) cover at \(p)")
                #expect(index.zeros(before: Position(p)) == zeros.filter { $0 < p }.count, "seed \(seed) step \(step) rank of \(p)")
                #expect(index.rank(ofZero: Position(p)) == (naive[p] == 0 ? zeros.filter { $0 < p }.count : nil), "seed \(seed) step \(step) rank of zero \(p)")
            }
            if !zeros.isEmpty {
                let first = rng.int(0 ... zeros.count - 1), limit = rng.int(0 ... 130)
                var found: [Int] = []
                index.forEachZero(from: first, limit: limit) { found.append($0.offset) }
                #expect(found == Array(zeros[first ..< min(zeros.count, first + limit)]), "seed \(seed) step \(step)")
            }
        }
        #expect(index.materializedCovers() == ContiguousArray(naive))
        #expect(index.zeroBits() == { var b = Bitset(count: n); for p in naive.indices where naive[p] == 0 { b.insert(p) }; return b }())
    }

    /// Gaps, large additions (blocks whose covers spread too far for bytes), covers set over
    /// ranges, and the range queries, against a plain array (nil for a gap).
    @Test(arguments: 0 ..< 40)
    func gapsAndWideBlocks(seed: Int) {
        var rng = SeededRandom(seed: UInt64(seed) &+ 9_000)
        let n = rng.pick([1, 64, 65, 200, 1000, 4097])
        var naive: [Int32?] = (0 ..< n).map { _ in rng.chance(0.1) ? nil : Int32(rng.chance(0.05) ? rng.int(0 ... 600) : rng.int(0 ... 3)) }
        var index = CoverIndex(covers: ContiguousArray(naive.map { $0 ?? CoverIndex.gapCover }))
        var added: [(range: Range<Int>, delta: Int32)] = []
        for step in 0 ..< 200 {
            let roll = rng.int(0 ... 9)
            if roll < 5 || added.isEmpty {
                let a = rng.int(0 ... n - 1), b = rng.int(a + 1 ... min(n, a + rng.pick([3, 70, n])))
                let delta = Int32(rng.chance(0.3) ? rng.int(1 ... 400) : 1)
                index.add(delta, to: Position(a) ..< Position(b))
                for p in a ..< b { naive[p] = naive[p].map { $0 + delta } }
                added.append((a ..< b, delta))
            } else if roll < 8 {
                let (range, delta) = added.remove(at: rng.int(0 ... added.count - 1))
                index.add(-delta, to: Position(range.lowerBound) ..< Position(range.upperBound))
                for p in range { naive[p] = naive[p].map { $0 - delta } }
            } else {
                // New covers for a few positions: at least what the additions in force give them.
                let a = rng.int(0 ... n - 1), b = rng.int(a + 1 ... min(n, a + 80))
                var values = ContiguousArray<Int32>()
                for p in a ..< b {
                    let floor = added.reduce(Int32(0)) { $0 + ($1.range.contains(p) ? $1.delta : 0) }
                    naive[p] = rng.chance(0.15) ? nil : floor + Int32(rng.chance(0.1) ? rng.int(0 ... 300) : rng.int(0 ... 2))
                    values.append(naive[p] ?? CoverIndex.gapCover)
                }
                index.setCovers(values, at: Position(a))
            }
            let zeros = naive.indices.filter { naive[$0] == 0 }
            #expect(index.zeroCount == zeros.count, "seed \(seed) step \(step)")
            let p = rng.int(0 ... n - 1)
            #expect(index.cover(at: Position(p)) == naive[p] ?? CoverIndex.gapCover, "seed \(seed) step \(step) cover at \(p)")
            #expect(index.rank(ofZero: Position(p)) == (naive[p] == 0 ? zeros.filter { $0 < p }.count : nil), "seed \(seed) step \(step)")
            let l = rng.int(0 ... n - 1), r = rng.int(l + 1 ... n)
            let inRange = naive[l ..< r].compactMap { $0 }
            let expected: (Int32, Int32) = inRange.min().map { m in (m, Int32(inRange.filter { $0 == m }.count)) } ?? (CoverIndex.gapCover, 0)
            let actual = index.minimumAndCount(l, r)
            #expect(actual == expected, "seed \(seed) step \(step) minimum of \(l) ..< \(r)")
            if expected.1 > 0 {
                let k = rng.int(0 ... Int(expected.1) - 1)
                let wanted = (l ..< r).filter { naive[$0] == expected.0 }[k]
                #expect(index.select(expected.0, k, l, r) == wanted, "seed \(seed) step \(step) select \(k) in \(l) ..< \(r)")
            }
            if !zeros.isEmpty {
                let first = rng.int(0 ... zeros.count - 1), limit = rng.int(0 ... 130)
                var found: [Int] = []
                index.forEachZero(from: first, limit: limit) { found.append($0.offset) }
                #expect(found == Array(zeros[first ..< min(zeros.count, first + limit)]), "seed \(seed) step \(step)")
            }
        }
        #expect(index.materializedCovers() == ContiguousArray(naive.map { $0 ?? CoverIndex.gapCover }))
    }

    /// A block moves to `Int32` covers when they spread too far for bytes, and back.
    @Test func blocksWidenAndNarrow() {
        var index = CoverIndex(covers: ContiguousArray(repeating: 0, count: 200))
        #expect(index.wideBlocks == 0)
        index.add(300, to: Position(10) ..< Position(20))
        #expect(index.wideBlocks == 1)
        #expect(index.cover(at: Position(15)) == 300 && index.zeroCount == 190)
        index.add(-300, to: Position(10) ..< Position(20))
        #expect(index.wideBlocks == 0)
        #expect(index.zeroCount == 200)
    }
}
