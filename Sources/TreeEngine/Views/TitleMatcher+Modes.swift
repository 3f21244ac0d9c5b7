/// Folding, the `words` and `fuzzy` modes, and the fuzzy score.
///
/// `words`: the text is split at scalars with the Unicode White_Space property; a title
/// matches when it contains every word (folded as the title is), in any order. A word
/// that folds to nothing (only combining marks, diacritic-insensitive) is contained in
/// every title; a text of white space only has no words and matches every title.
///
/// `fuzzy`: a title matches when the folded text's scalars occur in the folded title in
/// order (a subsequence). Of all the ways they occur, the one with the highest score
/// is chosen, and of those the one whose positions come first (lexicographically
/// smallest); for positions p₀ < p₁ < … < pₘ₋₁ in a folded title of n scalars:
///
///     score = 16·m + 8·W + 8·C − 4·G − (n − m)
///
/// W: matched scalars at a word start (p = 0, or the scalar before is not a letter, mark
/// or number: General_Category L*, M*, N*); C: i ≥ 1 with pᵢ = pᵢ₋₁ + 1 (consecutive);
/// G: i ≥ 1 with pᵢ > pᵢ₋₁ + 1 (gaps). An empty folded text matches every title with
/// score −n and no ranges.
extension TitleMatcher {
    // MARK: Folding

    /// Appends the fold of valid UTF-8 `text` to `out` (cleared first): lowercased unless
    /// `caseSensitive`, then with `folds` (the diacritic-insensitive table) when given;
    /// records where each original scalar's fold starts in `out` (plus a final sentinel).
    static func fold(_ text: UnsafeRawBufferPointer, into out: inout [UInt8], scalarStarts: UnsafeMutablePointer<[Int]>?,
                     caseSensitive: Bool, folds: [UInt32: [UInt8]]?) {
        guard let folds else {
            if !caseSensitive { return lowercase(text, into: &out, scalarStarts: scalarStarts) }
            out.removeAll(keepingCapacity: true)
            out.append(contentsOf: text)
            if let scalarStarts {
                scalarStarts.pointee.removeAll(keepingCapacity: true)
                for i in 0 ..< text.count where text[i] & 0xC0 != 0x80 { scalarStarts.pointee.append(i) }
                scalarStarts.pointee.append(text.count)
            }
            return
        }
        out.removeAll(keepingCapacity: true)
        scalarStarts?.pointee.removeAll(keepingCapacity: true)
        var i = 0
        let n = text.count
        while i < n {
            scalarStarts?.pointee.append(out.count)
            let b = text[i]
            if b < 0x80 {
                out.append(caseSensitive ? b : lowerASCII(b))
                i += 1
                continue
            }
            let len = b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4
            var v = UInt32(b) & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07)
            for k in 1 ..< len { v = v << 6 | UInt32(text[i + k] & 0x3F) }
            if let folded = folds[v] {
                out.append(contentsOf: folded)
            } else {
                for k in 0 ..< len { out.append(text[i + k]) }
            }
            i += len
        }
        scalarStarts?.pointee.append(out.count)
    }

    static func fold(_ text: UnsafeRawBufferPointer, into out: inout [UInt8], scalarStarts: inout [Int],
                     caseSensitive: Bool, folds: [UInt32: [UInt8]]?) {
        withUnsafeMutablePointer(to: &scalarStarts) {
            fold(text, into: &out, scalarStarts: $0, caseSensitive: caseSensitive, folds: folds)
        }
    }

    /// The scalars of valid UTF-8.
    static func scalars(of utf8: [UInt8]) -> [UInt32] {
        var out: [UInt32] = []
        forEachScalar(utf8) { v, _ in out.append(v) }
        return out
    }

    /// Calls `body` with each scalar of valid UTF-8 and its byte offset.
    @inline(__always)
    static func forEachScalar(_ utf8: [UInt8], _ body: (UInt32, Int) -> Void) {
        var i = 0
        let n = utf8.count
        while i < n {
            let b = utf8[i]
            if b < 0x80 {
                body(UInt32(b), i)
                i += 1
                continue
            }
            let len = b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4
            var v = UInt32(b) & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07)
            for k in 1 ..< len { v = v << 6 | UInt32(utf8[i + k] & 0x3F) }
            body(v, i)
            i += len
        }
    }

    // MARK: Matching

    /// `matches` for the words and fuzzy modes and diacritic-insensitive queries.
    func matchesFolding(_ title: UnsafeRawBufferPointer, scratch: inout [UInt8]) -> Bool {
        let ascii = TitleMatcher.isASCII(title)
        switch query.mode {
        case .contains, .prefix, .exact:
            if needle.isEmpty && query.mode != .exact { return true }
            // An ASCII title folds to itself, lowercased unless case-sensitive.
            if ascii { return query.caseSensitive ? find(in: title, from: 0) != nil : findLoweringASCII(in: title) }
            TitleMatcher.fold(title, into: &scratch, scalarStarts: nil, caseSensitive: query.caseSensitive, folds: folds)
            return scratch.withUnsafeBytes { find(in: $0, from: 0) != nil }
        case .words:
            if !ascii {
                TitleMatcher.fold(title, into: &scratch, scalarStarts: nil, caseSensitive: query.caseSensitive, folds: folds)
                return scratch.withUnsafeBytes { hay in words.allSatisfy { TitleMatcher.occurrence(of: $0, in: hay, from: 0) != nil } }
            }
            let lowering = !query.caseSensitive
            return words.allSatisfy { TitleMatcher.containsASCII($0, in: title, lowering: lowering) }
        case .fuzzy:
            if ascii {
                // Bytes are scalars; a non-ASCII needle byte never equals one.
                let n = needle.count
                if n == 0 { return true }
                return needle.withUnsafeBufferPointer { nd in
                    var j = 0
                    let lowering = !query.caseSensitive
                    for b in title where (lowering ? TitleMatcher.lowerASCII(b) : b) == nd[j] {
                        j += 1
                        if j == n { return true }
                    }
                    return false
                }
            }
            TitleMatcher.fold(title, into: &scratch, scalarStarts: nil, caseSensitive: query.caseSensitive, folds: folds)
            let n = needleScalars.count
            if n == 0 { return true }
            var j = 0
            TitleMatcher.forEachScalar(scratch) { v, _ in
                if j < n && v == needleScalars[j] { j += 1 }
            }
            return j == n
        }
    }

    /// The first occurrence of `needle` in `hay` at or after `from` (`from` itself for an empty needle).
    @inline(__always)
    static func occurrence(of needle: [UInt8], in hay: UnsafeRawBufferPointer, from: Int) -> Int? {
        let n = needle.count, h = hay.count
        if n > h - from { return nil }
        if n == 0 { return from }
        return needle.withUnsafeBufferPointer { nd -> Int? in
            let first = nd[0]
            var i = from
            let last = h - n
            while i <= last {
                if hay[i] == first {
                    var j = 1
                    while j < n && hay[i + j] == nd[j] { j += 1 }
                    if j == n { return i }
                }
                i += 1
            }
            return nil
        }
    }

    /// Whether the ASCII `title` (lowered byte by byte with `lowering`) contains `needle`.
    @inline(__always)
    static func containsASCII(_ needle: [UInt8], in title: UnsafeRawBufferPointer, lowering: Bool) -> Bool {
        let n = needle.count, h = title.count
        if n == 0 { return true }
        if n > h { return false }
        return needle.withUnsafeBufferPointer { nd in
            let first = nd[0]
            var i = 0
            while i <= h - n {
                if (lowering ? lowerASCII(title[i]) : title[i]) == first {
                    var j = 1
                    while j < n && (lowering ? lowerASCII(title[i + j]) : title[i + j]) == nd[j] { j += 1 }
                    if j == n { return true }
                }
                i += 1
            }
            return false
        }
    }

    // MARK: Ranges

    /// The matches in the folded title as (start, length) in its bytes (see `matchRanges`).
    func foldedSpans(_ folded: [UInt8]) -> [(Int, Int)] {
        var spans: [(Int, Int)] = []
        folded.withUnsafeBytes { hay in
            switch query.mode {
            case .contains, .prefix, .exact:
                if needle.isEmpty { return }
                var from = 0
                while let at = find(in: hay, from: from) {
                    spans.append((at, needle.count))
                    from = at + needle.count
                    if query.mode != .contains { break }
                }
            case .words:
                for word in words where !word.isEmpty {
                    var from = 0
                    let found = spans.count
                    while let at = TitleMatcher.occurrence(of: word, in: hay, from: from) {
                        spans.append((at, word.count))
                        from = at + word.count
                    }
                    if spans.count == found {  // a word is missing: no match
                        spans = []
                        return
                    }
                }
            case .fuzzy:
                break
            }
        }
        if query.mode == .fuzzy {
            var title: [UInt32] = []
            var offsets: [Int] = []
            TitleMatcher.forEachScalar(folded) { v, at in
                title.append(v)
                offsets.append(at)
            }
            offsets.append(folded.count)
            guard let best = TitleMatcher.fuzzyMatch(title: title, needle: needleScalars) else { return [] }
            var k = 0
            let p = best.positions
            while k < p.count {
                var end = k
                while end + 1 < p.count && p[end + 1] == p[end] + 1 { end += 1 }
                spans.append((offsets[p[k]], offsets[p[end] + 1] - offsets[p[k]]))
                k = end + 1
            }
        }
        return spans
    }

    /// Ranges sorted by start, overlapping or touching ones merged.
    static func merged(_ ranges: [(start: Int, length: Int)]) -> [(start: Int, length: Int)] {
        var out: [(start: Int, length: Int)] = []
        for r in ranges.sorted(by: { $0.start < $1.start || ($0.start == $1.start && $0.length < $1.length) }) {
            if let last = out.last, r.start <= last.start + last.length {
                out[out.count - 1].length = max(last.length, r.start + r.length - last.start)
            } else {
                out.append(r)
            }
        }
        return out
    }

    // MARK: Fuzzy score

    /// The fuzzy score of `title` (see the formula above), nil when it does not match or
    /// the query is not fuzzy.
    /// - Complexity: O(title length · needle length)
    func fuzzyScore(_ title: UnsafeRawBufferPointer) -> Int? {
        guard query.mode == .fuzzy else { return nil }
        var folded: [UInt8] = []
        TitleMatcher.fold(title, into: &folded, scalarStarts: nil, caseSensitive: query.caseSensitive, folds: folds)
        return TitleMatcher.fuzzyMatch(title: TitleMatcher.scalars(of: folded), needle: needleScalars)?.score
    }

    /// Whether the scalar before a word start may not be this one: letters, marks, numbers.
    static func isWordScalar(_ v: UInt32) -> Bool {
        guard let s = Unicode.Scalar(v) else { return false }
        switch s.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber:
            return true
        default:
            return false
        }
    }

    /// The best way `needle` occurs in `title` in order (see the formula above), or nil.
    ///
    /// g[i][j], the best score of matching needle[i...] with pᵢ = j counting the bonuses of
    /// those scalars and the pairs between them, is computed from the last needle scalar
    /// backwards; the positions are then chosen forwards, each the first that keeps the best.
    /// - Complexity: O(title · needle) time and memory
    static func fuzzyMatch(title t: [UInt32], needle q: [UInt32]) -> (score: Int, positions: [Int])? {
        let n = t.count, m = q.count
        if m == 0 { return (-n, []) }
        if m > n { return nil }
        let none = Int.min / 4
        var bonus = [Int](repeating: 16, count: n)
        for j in 0 ..< n where j == 0 || !isWordScalar(t[j - 1]) { bonus[j] += 8 }
        @inline(__always) func pair(_ a: Int, _ b: Int) -> Int { b == a + 1 ? 8 : -4 }
        var g = [Int](repeating: none, count: m * n)
        for i in stride(from: m - 1, through: 0, by: -1) {
            var far = none  // max of g[i + 1][k] for k ≥ j + 2
            for j in stride(from: n - 1, through: 0, by: -1) {
                if i + 1 < m && j + 2 < n { far = max(far, g[(i + 1) * n + j + 2]) }
                guard t[j] == q[i] else { continue }
                if i == m - 1 {
                    g[i * n + j] = bonus[j]
                    continue
                }
                var rest = none
                if j + 1 < n && g[(i + 1) * n + j + 1] > none { rest = g[(i + 1) * n + j + 1] + 8 }
                if far > none { rest = max(rest, far - 4) }
                if rest > none { g[i * n + j] = bonus[j] + rest }
            }
        }
        var best = none
        for j in 0 ..< n { best = max(best, g[j]) }
        if best == none { return nil }
        var positions = [g.firstIndex(of: best)!]
        for i in 1 ..< m {
            let prev = positions[i - 1]
            let target = g[(i - 1) * n + prev] - bonus[prev]
            var k = prev + 1
            while !(g[i * n + k] > none && g[i * n + k] + pair(prev, k) == target) { k += 1 }
            positions.append(k)
        }
        return (best - (n - m), positions)
    }
}
