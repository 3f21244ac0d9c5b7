/// Matches titles (UTF-8) against a `FilterQuery`, and finds match ranges.
///
/// ASCII titles are lowercased byte by byte; other titles scalar by scalar with
/// `Unicode.Scalar.Properties.lowercaseMapping`, which is what `String.lowercased()`
/// does. A UTF-8 substring of valid UTF-8 always starts and ends on scalar
/// boundaries, so matching bytes is matching scalars.
struct TitleMatcher: Sendable {
    let query: FilterQuery
    /// The needle as UTF-8, lowercased unless case-sensitive.
    let needle: [UInt8]

    init(_ query: FilterQuery) {
        self.query = query
        needle = Array((query.caseSensitive ? query.text : query.text.lowercased()).utf8)
    }

    /// Whether `title` matches. `scratch` is reused between calls.
    /// - Complexity: O(title length · needle length) worst case, O(title length) typical
    @inline(__always)
    func matches(_ title: UnsafeRawBufferPointer, scratch: inout [UInt8]) -> Bool {
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
        case .contains:
            if n > h - from { return nil }
            return needle.withUnsafeBufferPointer { nd -> Int? in
                let first = nd[0]
                var i = from
                let last = h - n
                while i <= last {
                    if haystack[i] == first {
                        var j = 1
                        while j < n && haystack[i + j] == nd[j] { j += 1 }
                        if j == n { return i }
                    }
                    i += 1
                }
                return nil
            }
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
            case .contains:
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
    /// original title: every non-overlapping occurrence, left to right.
    /// - Complexity: O(title length · needle length)
    func matchRanges(_ title: UnsafeRawBufferPointer) -> [(start: Int, length: Int)] {
        var lowered: [UInt8] = []
        // scalarStarts[i]: offset in `lowered` where original scalar i's mapping starts (plus one sentinel).
        var scalarStarts: [Int] = []
        let ascii = TitleMatcher.isASCII(title)
        if query.caseSensitive {
            lowered = Array(title)
        } else if ascii {
            lowered = title.map(TitleMatcher.lowerASCII)
        } else {
            TitleMatcher.lowercase(title, into: &lowered, scalarStarts: &scalarStarts)
        }
        var byteRanges: [(Int, Int)] = []
        lowered.withUnsafeBytes { hay in
            var from = 0
            while let at = find(in: hay, from: from) {
                byteRanges.append((at, needle.count))
                from = at + max(needle.count, 1)
                if query.mode != .contains { break }
            }
        }
        if byteRanges.isEmpty { return [] }
        if ascii { return byteRanges.map { (start: $0.0, length: $0.1) } }
        // Original UTF-16 offset of each original scalar, and its byte offset.
        var utf16Start: [Int] = []
        var byteStart: [Int] = []
        var u16 = 0
        var i = 0
        while i < title.count {
            let b = title[i]
            let len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4
            utf16Start.append(u16)
            byteStart.append(i)
            u16 += len == 4 ? 2 : 1
            i += len
        }
        utf16Start.append(u16)
        byteStart.append(title.count)
        // Map positions in `lowered` back to original scalar indexes.
        let starts = query.caseSensitive ? byteStart : scalarStarts
        func scalarContaining(_ offset: Int) -> Int {
            // Largest i with starts[i] <= offset.
            var lo = 0, hi = starts.count - 1
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if starts[mid] <= offset { lo = mid } else { hi = mid - 1 }
            }
            return lo
        }
        return byteRanges.map { (start, length) in
            let first = scalarContaining(start)
            let last = scalarContaining(start + length - 1)
            return (start: utf16Start[first], length: utf16Start[last + 1] - utf16Start[first])
        }
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
