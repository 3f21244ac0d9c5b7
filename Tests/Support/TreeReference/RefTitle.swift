import Foundation
import TreeEngine

/// A title as the reference matches it: the definitions of the match modes spelled out
/// with String APIs, scalar by scalar, and nothing cleverer (no byte tricks, no tables,
/// fuzzy by trying every way to match).
final class RefTitle {
    let title: String
    let scalars: [Unicode.Scalar]
    /// Folds by options (bit 0 case-sensitive, bit 1 diacritic-insensitive), made when first asked.
    private var folds: [Int: [(scalar: Unicode.Scalar, owner: Int)]] = [:]
    private var foldedScalars: [Int: [Unicode.Scalar]] = [:]

    init(_ title: String) {
        self.title = title
        scalars = Array(title.unicodeScalars)
    }

    // MARK: Folding

    /// One scalar folded: lowercased (`String.lowercased()`) unless case-sensitive, then
    /// with diacritics insensitive its canonical decomposition without the scalars of
    /// canonical combining class ≠ 0.
    static func fold(_ s: Unicode.Scalar, caseSensitive: Bool, diacriticInsensitive: Bool) -> [Unicode.Scalar] {
        var x = String(s)
        if !caseSensitive { x = x.lowercased() }
        guard diacriticInsensitive else { return Array(x.unicodeScalars) }
        return x.decomposedStringWithCanonicalMapping.unicodeScalars.filter { $0.properties.canonicalCombiningClass.rawValue == 0 }
    }

    /// The folded title: each folded scalar with the index of the title scalar it comes from.
    func folded(_ f: FilterQuery) -> [(scalar: Unicode.Scalar, owner: Int)] {
        let key = (f.caseSensitive ? 1 : 0) | (f.diacriticInsensitive ? 2 : 0)
        if let done = folds[key] { return done }
        var out: [(scalar: Unicode.Scalar, owner: Int)] = []
        for (i, s) in scalars.enumerated() {
            for x in Self.fold(s, caseSensitive: f.caseSensitive, diacriticInsensitive: f.diacriticInsensitive) { out.append((x, i)) }
        }
        folds[key] = out
        return out
    }

    static func fold(_ text: some StringProtocol, _ f: FilterQuery) -> [Unicode.Scalar] {
        text.unicodeScalars.flatMap { fold($0, caseSensitive: f.caseSensitive, diacriticInsensitive: f.diacriticInsensitive) }
    }

    /// The words of a `words` query: split at White_Space scalars, empty pieces dropped.
    static func words(_ f: FilterQuery) -> [[Unicode.Scalar]] {
        f.text.unicodeScalars.split(whereSeparator: { $0.properties.isWhitespace }).map { fold(String($0), f) }
    }

    /// Every start where `needle` occurs in `hay` (overlapping too); every index for an empty needle.
    static func occurrences(_ needle: [Unicode.Scalar], in hay: [Unicode.Scalar]) -> [Int] {
        guard needle.count <= hay.count else { return [] }
        return (0 ... hay.count - needle.count).filter { Array(hay[$0 ..< $0 + needle.count]) == needle }
    }

    static func occurs(_ needle: [Unicode.Scalar], in hay: [Unicode.Scalar]) -> Bool {
        guard needle.count <= hay.count else { return false }
        return (0 ... hay.count - needle.count).contains { hay[$0 ..< $0 + needle.count].elementsEqual(needle) }
    }

    /// Whether `needle` is a subsequence of `hay`.
    static func isSubsequence(_ needle: [Unicode.Scalar], of hay: [Unicode.Scalar]) -> Bool {
        var rest = needle[...]
        for s in hay where s == rest.first { rest = rest.dropFirst() }
        return rest.isEmpty
    }

    // MARK: Matching

    func matches(_ f: FilterQuery) -> Bool { matches(RefQuery(f)) }

    func matches(_ query: RefQuery) -> Bool {
        let key = (query.f.caseSensitive ? 1 : 0) | (query.f.diacriticInsensitive ? 2 : 0)
        let t = foldedScalars[key] ?? folded(query.f).map(\.scalar)
        foldedScalars[key] = t
        let q = query.folded
        switch query.f.mode {
        case .contains: return Self.occurs(q, in: t)
        case .prefix: return t.starts(with: q)
        case .exact: return t == q
        case .words: return query.words.allSatisfy { Self.occurs($0, in: t) }
        case .fuzzy: return Self.isSubsequence(q, of: t)
        }
    }

    // MARK: Fuzzy

    static func isWordScalar(_ s: Unicode.Scalar) -> Bool {
        let letters: [Unicode.GeneralCategory] = [.uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter]
        let marks: [Unicode.GeneralCategory] = [.nonspacingMark, .spacingMark, .enclosingMark]
        let numbers: [Unicode.GeneralCategory] = [.decimalNumber, .letterNumber, .otherNumber]
        return (letters + marks + numbers).contains(s.properties.generalCategory)
    }

    /// score = 16·m + 8·W + 8·C − 4·G − (n − m), by the definition.
    static func score(_ p: [Int], in t: [Unicode.Scalar]) -> Int {
        let n = t.count, m = p.count
        let w = p.filter { $0 == 0 || !isWordScalar(t[$0 - 1]) }.count
        let c = (1 ..< max(1, m)).filter { p[$0] == p[$0 - 1] + 1 }.count
        let g = (1 ..< max(1, m)).filter { p[$0] > p[$0 - 1] + 1 }.count
        return 16 * m + 8 * w + 8 * c - 4 * g - (n - m)
    }

    /// Every way the query occurs in order, in lexicographic order of positions: the first
    /// with the highest score. nil when it does not match, or past 200,000 ways.
    func fuzzyBest(_ f: FilterQuery) -> (score: Int, positions: [Int])? {
        let t = folded(f).map(\.scalar)
        let q = Self.fold(f.text, f)
        var best: (score: Int, positions: [Int])?
        var tried = 0
        var p: [Int] = []
        func visit(_ i: Int, from: Int) {
            if tried > 200_000 { return }
            if i == q.count {
                tried += 1
                let s = Self.score(p, in: t)
                if best == nil || s > best!.score { best = (s, p) }
                return
            }
            guard from < t.count else { return }
            for j in from ..< t.count where t[j] == q[i] {
                p.append(j)
                visit(i + 1, from: j + 1)
                p.removeLast()
            }
        }
        visit(0, from: 0)
        return tried > 200_000 ? nil : best
    }

    // MARK: Ranges

    /// The match ranges in UTF-16 code units, nil when fuzzy has too many ways to match:
    /// each match in the folded title (a run of folded scalars) covers the title scalars
    /// it comes from, and those right after them that fold to nothing. contains: every
    /// non-overlapping occurrence from the left; prefix, exact: the one; words: every
    /// non-overlapping occurrence of every word, fuzzy: each run of consecutive positions
    /// of the best way, both sorted with overlapping or touching ranges merged. Nothing
    /// for an empty folded query (or word).
    func matchRanges(_ f: FilterQuery) -> [[Int]]? {
        guard matches(f) else { return [] }
        let folded = self.folded(f)
        let t = folded.map(\.scalar)
        let q = Self.fold(f.text, f)
        var utf16Start: [Int] = [0]
        for s in scalars { utf16Start.append(utf16Start.last! + String(s).utf16.count) }
        func range(_ a: Int, _ b: Int) -> [Int] {  // folded scalars a ... b
            let first = folded[a].owner
            var last = folded[b].owner
            while last + 1 < scalars.count && !folded.contains(where: { $0.owner == last + 1 }) { last += 1 }
            return [utf16Start[first], utf16Start[last + 1] - utf16Start[first]]
        }
        func nonOverlapping(_ needle: [Unicode.Scalar]) -> [[Int]] {
            guard !needle.isEmpty else { return [] }
            var out: [[Int]] = []
            var next = 0
            for at in Self.occurrences(needle, in: t) where at >= next {
                out.append(range(at, at + needle.count - 1))
                next = at + needle.count
            }
            return out
        }
        func merged(_ ranges: [[Int]]) -> [[Int]] {
            var out: [[Int]] = []
            for r in ranges.sorted(by: { ($0[0], $0[1]) < ($1[0], $1[1]) }) {
                if let last = out.last, r[0] <= last[0] + last[1] {
                    out[out.count - 1][1] = max(last[1], r[0] + r[1] - last[0])
                } else {
                    out.append(r)
                }
            }
            return out
        }
        switch f.mode {
        case .contains: return nonOverlapping(q)
        case .prefix, .exact: return q.isEmpty ? [] : [range(0, q.count - 1)]
        case .words: return merged(Self.words(f).flatMap(nonOverlapping))
        case .fuzzy:
            guard let best = fuzzyBest(f) else { return nil }
            var runs: [[Int]] = []
            for (i, p) in best.positions.enumerated() {
                if i > 0 && p == best.positions[i - 1] + 1 { runs[runs.count - 1][1] = p } else { runs.append([p, p]) }
            }
            return merged(runs.map { range($0[0], $0[1]) })
        }
    }
}

/// A query's text folded once, to match many titles.
struct RefQuery {
    let f: FilterQuery
    let folded: [Unicode.Scalar]
    /// `words`: the folded words.
    let words: [[Unicode.Scalar]]

    init(_ f: FilterQuery) {
        self.f = f
        folded = RefTitle.fold(f.text, f)
        words = f.mode == .words ? RefTitle.words(f) : []
    }
}
