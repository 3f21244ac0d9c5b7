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
}
