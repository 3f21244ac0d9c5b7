/// What a filtered view matches titles against.
///
/// Case-insensitive matching compares `title.lowercased()` with `text.lowercased()`
/// (Swift's full Unicode lowercase mapping, scalar by scalar), and compares Unicode
/// scalars: no normalization, so "é" precomposed and "e" + U+0301 differ.
public struct FilterQuery: Hashable, Sendable, CustomStringConvertible {
    public enum Mode: String, Sendable, CaseIterable {
        /// The title contains the text.
        case contains
        /// The title starts with the text.
        case prefix
        /// The title is the text.
        case exact
    }

    public var text: String
    public var mode: Mode
    public var caseSensitive: Bool

    /// A query; `text` must not be empty (the empty filter is the unfiltered view).
    public init(_ text: String, mode: Mode = .contains, caseSensitive: Bool = false) {
        precondition(!text.isEmpty, "the empty filter is the unfiltered view")
        self.text = text
        self.mode = mode
        self.caseSensitive = caseSensitive
    }

    public var description: String { "\(mode.rawValue)(\(caseSensitive ? "case-sensitive" : "any case")): \(text)" }

    /// Queries are equal when their texts have the same Unicode scalars, not merely
    /// canonically equivalent ones: matching compares scalars, so "é" and "e\u{301}"
    /// are different filters.
    public static func == (a: FilterQuery, b: FilterQuery) -> Bool {
        a.mode == b.mode && a.caseSensitive == b.caseSensitive && a.text.utf8.elementsEqual(b.text.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(mode)
        hasher.combine(caseSensitive)
        for byte in text.utf8 { hasher.combine(byte) }
    }
}
