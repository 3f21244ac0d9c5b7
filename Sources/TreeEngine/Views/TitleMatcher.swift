/// Matches titles (UTF-8) against a `FilterQuery`, and finds match ranges.
///
/// ASCII titles are lowercased byte by byte; other titles scalar by scalar with
/// `Unicode.Scalar.Properties.lowercaseMapping`, which is what `String.lowercased()`
/// does, or with the diacritic-insensitive folds of `TitleFolding`. A UTF-8 substring
/// of valid UTF-8 always starts and ends on scalar boundaries, so matching bytes is
/// matching scalars. The words and fuzzy modes are in `TitleMatcher+Modes.swift`.
struct TitleMatcher: Sendable {
    let query: FilterQuery
    /// The needle folded as titles are (lowercased unless case-sensitive, combining
    /// marks dropped when diacritic-insensitive), as UTF-8. Empty only when every scalar
    /// of a diacritic-insensitive text is a combining mark.
    let needle: [UInt8]
    /// `words`: each whitespace-separated word of the text, folded; empty otherwise.
    let words: [[UInt8]]
    /// `fuzzy`: the scalars of `needle`.
    let needleScalars: [UInt32]
    /// The diacritic-insensitive folds (`TitleFolding`), nil when diacritic-sensitive.
    let folds: [UInt32: [UInt8]]?

    init(_ query: FilterQuery) {
        self.query = query
        folds = query.diacriticInsensitive ? (query.caseSensitive ? TitleFolding.caseSensitive : TitleFolding.caseInsensitive) : nil
        let folds = self.folds
        func fold(_ text: Substring) -> [UInt8] {
            var out: [UInt8] = []
            var scalars = String(text)
            scalars.withUTF8 { TitleMatcher.fold(UnsafeRawBufferPointer($0), into: &out, scalarStarts: nil,
                                                 caseSensitive: query.caseSensitive, folds: folds) }
            return out
        }
        needle = fold(Substring(query.text))
        words = query.mode == .words
            ? query.text.unicodeScalars.split(whereSeparator: \.properties.isWhitespace).map { fold(Substring($0)) }
            : []
        needleScalars = query.mode == .fuzzy ? TitleMatcher.scalars(of: needle) : []
    }

    /// Whether `title` matches. `scratch` is reused between calls.
    /// - Complexity: O(title length · needle length) worst case, O(title length) typical
    @inline(__always)
    func matches(_ title: UnsafeRawBufferPointer, scratch: inout [UInt8]) -> Bool {
        if folds != nil || query.mode == .words || query.mode == .fuzzy { return matchesFolding(title, scratch: &scratch) }
        if query.caseSensitive { return find(in: title, from: 0) != nil }
        if TitleMatcher.isASCII(title) {
            return findLoweringASCII(in: title)
        } else {
            TitleMatcher.lowercase(title, into: &scratch, scalarStarts: nil)
        }
        return scratch.withUnsafeBytes { find(in: $0, from: 0) != nil }
    }

    /// The first match in `haystack` at or after `from` under the mode's rule.
    @inline(__always)
    func find(in haystack: UnsafeRawBufferPointer, from: Int) -> Int? {
        let n = needle.count, h = haystack.count
        switch query.mode {
        case .exact:
            return from == 0 && h == n && needle.withUnsafeBytes { bytesEqual($0, haystack) } ? 0 : nil
        case .prefix:
            return from == 0 && h >= n && needle.withUnsafeBytes { bytesEqual($0, UnsafeRawBufferPointer(rebasing: haystack[0 ..< n])) } ? 0 : nil
        case .contains, .words, .fuzzy:
            return TitleMatcher.occurrence(of: needle, in: haystack, from: from)
        }
    }

    /// Whether the lowercased needle matches an ASCII `title` lowered byte by byte as it
    /// is read (no copy): the common case of case-insensitive filtering.
    @inline(__always)
    func findLoweringASCII(in title: UnsafeRawBufferPointer) -> Bool {
        let n = needle.count, h = title.count
        return needle.withUnsafeBufferPointer { nd -> Bool in
            @inline(__always) func equal(at i: Int) -> Bool {
                var j = 0
                while j < n && TitleMatcher.lowerASCII(title[i + j]) == nd[j] { j += 1 }
                return j == n
            }
            switch query.mode {
            case .exact: return h == n && equal(at: 0)
            case .prefix: return h >= n && equal(at: 0)
            case .contains, .words, .fuzzy:
                if n == 0 { return true }
                if n > h { return false }
                let first = nd[0]
                var i = 0
                while i <= h - n {
                    if TitleMatcher.lowerASCII(title[i]) == first && equal(at: i) { return true }
                    i += 1
                }
                return false
            }
        }
    }

    /// The match ranges in `title` as `(start, length)` in UTF-16 code units of the
    /// original title. Each match found in the folded title covers the whole original
    /// scalars it touches, and the scalars right after them whose fold is empty (the
    /// combining marks a diacritic-insensitive query drops). `contains`: every
    /// non-overlapping occurrence, left to right; `prefix`, `exact`: the one match;
    /// `words`: every non-overlapping occurrence of each word, `fuzzy`: each maximal
    /// run of consecutive matched scalars (see `fuzzyMatch`), these two sorted with
    /// overlapping or touching ranges merged. None when the folded query is empty.
    /// - Complexity: O(title length · needle length)
    func matchRanges(_ title: UnsafeRawBufferPointer) -> [(start: Int, length: Int)] {
        var folded: [UInt8] = []
        // scalarStarts[i]: offset in `folded` where original scalar i's fold starts (plus one sentinel).
        var scalarStarts: [Int] = []
        let ascii = TitleMatcher.isASCII(title)
        if ascii {
            folded = query.caseSensitive ? Array(title) : title.map(TitleMatcher.lowerASCII)
        } else {
            TitleMatcher.fold(title, into: &folded, scalarStarts: &scalarStarts, caseSensitive: query.caseSensitive, folds: folds)
        }
        let byteRanges = foldedSpans(folded)
        if byteRanges.isEmpty { return [] }
        var ranges: [(start: Int, length: Int)]
        if ascii {
            ranges = byteRanges.map { (start: $0.0, length: $0.1) }
        } else {
            // Original UTF-16 offset of each original scalar.
            var utf16Start: [Int] = []
            var u16 = 0
            var i = 0
            while i < title.count {
                let b = title[i]
                let len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4
                utf16Start.append(u16)
                u16 += len == 4 ? 2 : 1
                i += len
            }
            utf16Start.append(u16)
            // Map positions in `folded` back to original scalar indexes.
            let starts = scalarStarts
            func scalarContaining(_ offset: Int) -> Int {
                // Largest i with starts[i] <= offset: the scalar whose (non-empty) fold holds it.
                var lo = 0, hi = starts.count - 1
                while lo < hi {
                    let mid = (lo + hi + 1) / 2
                    if starts[mid] <= offset { lo = mid } else { hi = mid - 1 }
                }
                return lo
            }
            ranges = byteRanges.map { (start, length) in
                let first = scalarContaining(start)
                var last = scalarContaining(start + length - 1)
                // Take in the scalars after it that fold to nothing (combining marks dropped).
                while last + 2 < starts.count && starts[last + 1] == starts[last + 2] { last += 1 }
                return (start: utf16Start[first], length: utf16Start[last + 1] - utf16Start[first])
            }
        }
        if query.mode == .words || query.mode == .fuzzy { ranges = TitleMatcher.merged(ranges) }
        return ranges
    }

    @inline(__always)
    static func lowerASCII(_ b: UInt8) -> UInt8 { b &- 65 < 26 ? b | 0x20 : b }

    @inline(__always)
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        let n = bytes.count
        while i + 8 <= n {
            if bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < n {
            if bytes[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// Appends the lowercase mapping of valid UTF-8 `text` to `out` (cleared first),
    /// recording where each original scalar's mapping starts (plus a final sentinel).
    static func lowercase(_ text: UnsafeRawBufferPointer, into out: inout [UInt8], scalarStarts: UnsafeMutablePointer<[Int]>?) {
        out.removeAll(keepingCapacity: true)
        scalarStarts?.pointee.removeAll(keepingCapacity: true)
        var i = 0
        let n = text.count
        while i < n {
            scalarStarts?.pointee.append(out.count)
            let b = text[i]
            if b < 0x80 {
                out.append(lowerASCII(b))
                i += 1
                continue
            }
            let len = b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4
            var v = UInt32(b) & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07)
            for k in 1 ..< len { v = v << 6 | UInt32(text[i + k] & 0x3F) }
            let scalar = Unicode.Scalar(v)!
            if scalar.properties.changesWhenLowercased {
                out.append(contentsOf: scalar.properties.lowercaseMapping.utf8)
            } else {
                for k in 0 ..< len { out.append(text[i + k]) }
            }
            i += len
        }
        scalarStarts?.pointee.append(out.count)
    }

    static func lowercase(_ text: UnsafeRawBufferPointer, into out: inout [UInt8], scalarStarts: inout [Int]) {
        withUnsafeMutablePointer(to: &scalarStarts) { lowercase(text, into: &out, scalarStarts: $0) }
    }
}
