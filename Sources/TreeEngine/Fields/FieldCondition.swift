/// A typed condition on a field, `data.size>1000000`: a node satisfies it when its value
/// compares as the condition says with the operand.
///
/// - Numbers compare by value (a number operand also with a string written as a JSON
///   number, as CSV columns give them: `"12"`), strings in natural order (`NaturalOrder`) after folding as
///   the filter folds titles (case-insensitive unless it is case-sensitive, without
///   combining marks when it ignores diacritics), booleans `false` before `true`; `null`
///   equals `null`. A value of another type than the operand's never satisfies `=`, `<`,
///   `<=`, `>`, `>=` (nor does a field the node lacks, nor an array or object); `!=` is
///   exactly the negation of `=`.
public struct FieldCondition: Hashable, Sendable, CustomStringConvertible {
    public enum Comparison: String, Sendable, CaseIterable {
        case equal = "="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
    }

    public enum Operand: Hashable, Sendable {
        case null
        case boolean(Bool)
        case number(Double)
        case string(String)

        /// Strings are equal when their Unicode scalars are, as a filter's texts are
        /// (`FilterQuery.==`): "é" and "e\u{301}" are different operands.
        public static func == (a: Operand, b: Operand) -> Bool {
            switch (a, b) {
            case (.null, .null): true
            case (.boolean(let x), .boolean(let y)): x == y
            case (.number(let x), .number(let y)): x == y
            case (.string(let x), .string(let y)): x.unicodeScalars.elementsEqual(y.unicodeScalars)
            default: false
            }
        }

        public func hash(into hasher: inout Hasher) {
            switch self {
            case .null: hasher.combine(0)
            case .boolean(let b): hasher.combine(b)
            case .number(let n): hasher.combine(n)
            case .string(let s): for c in s.unicodeScalars { hasher.combine(c.value) }
            }
        }
    }

    public var field: NodeField
    public var comparison: Comparison
    public var operand: Operand

    public init(_ field: NodeField, _ comparison: Comparison, _ operand: Operand) {
        self.field = field
        self.comparison = comparison
        self.operand = operand
    }

    /// `data.size>1000000`, a string operand quoted as Swift writes it (for logs; the
    /// service writes the `where` syntax itself).
    public var description: String {
        let value: String
        switch operand {
        case .null: value = "null"
        case .boolean(let b): value = b ? "true" : "false"
        case .number(let n): value = "\(n)"
        case .string(let s): value = s.debugDescription
        }
        return "\(field)\(comparison.rawValue)\(value)"
    }

    /// Whether `order` (the value's order against the operand, nil when they do not
    /// compare) satisfies the comparison.
    @inline(__always)
    func holds(_ order: Int?) -> Bool {
        guard let order else { return comparison == .notEqual }
        switch comparison {
        case .equal: return order == 0
        case .notEqual: return order != 0
        case .less: return order < 0
        case .lessOrEqual: return order <= 0
        case .greater: return order > 0
        case .greaterOrEqual: return order >= 0
        }
    }
}

/// Natural order of folded UTF-8 texts: runs of ASCII digits compare by their value
/// ("item 2" before "item 10"), everything else byte by byte (which for UTF-8 is scalar
/// order); texts equal so (`"a01"`, `"a1"`) then compare byte by byte, so that only equal
/// texts are equal.
enum NaturalOrder {
    /// -1, 0 or 1 as `a` orders before, with or after `b`.
    /// - Complexity: O(length)
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        var i = 0, j = 0
        let m = a.count, n = b.count
        @inline(__always) func isDigit(_ c: UInt8) -> Bool { c &- 48 < 10 }
        while i < m && j < n {
            let x = a[i], y = b[j]
            if isDigit(x) && isDigit(y) {
                // Skip leading zeros, then the longer run is larger, else the first
                // differing digit decides.
                var i0 = i, j0 = j
                while i0 < m && a[i0] == 48 { i0 += 1 }
                while j0 < n && b[j0] == 48 { j0 += 1 }
                var i1 = i0, j1 = j0
                while i1 < m && isDigit(a[i1]) { i1 += 1 }
                while j1 < n && isDigit(b[j1]) { j1 += 1 }
                if i1 - i0 != j1 - j0 { return i1 - i0 < j1 - j0 ? -1 : 1 }
                for k in 0 ..< (i1 - i0) where a[i0 + k] != b[j0 + k] { return a[i0 + k] < b[j0 + k] ? -1 : 1 }
                i = i1
                j = j1
                continue
            }
            if x != y { return x < y ? -1 : 1 }
            i += 1
            j += 1
        }
        if i < m || j < n { return i < m ? 1 : -1 }
        // Naturally equal: the bytes decide.
        for k in 0 ..< min(m, n) where a[k] != b[k] { return a[k] < b[k] ? -1 : 1 }
        return m == n ? 0 : (m < n ? -1 : 1)
    }
}
