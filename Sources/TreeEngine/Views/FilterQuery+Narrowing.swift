extension FilterQuery {
    /// Whether every title that matches this query also matches `base`, so that a view
    /// for this query need only look at `base`'s matches.
    ///
    /// True when the two agree on every option (`base` with this query's text equals this
    /// query: whatever options `FilterQuery` has or gains are compared by `==`), the mode
    /// is not `exact`, and this text extends `base`'s. This is sound for any mode whose
    /// matches are closed under shortening the text at its end, which holds for:
    /// - `contains`: a title containing text t contains every prefix of t;
    /// - `prefix`: a title starting with t starts with every prefix of t;
    /// - a mode matching words of the text anywhere in the title: a prefix of the text
    ///   has words that are prefixes of, or equal to, the text's words, each found
    ///   where the longer one was;
    /// - a fuzzy (subsequence) mode: a prefix of a subsequence is a subsequence.
    /// Lowercasing and ignoring diacritics map the text scalar by scalar, so a prefix of
    /// the text maps to a prefix of its mapping. `exact` is not: "ab" does not match what
    /// "abc" matches. A new mode must keep this closure, or be excluded here.
    /// - Complexity: O(text length)
    public func isNarrowing(_ base: FilterQuery) -> Bool {
        guard mode != .exact else { return false }
        var same = base
        same.text = text
        return same == self && text.utf8.starts(with: base.text.utf8)
    }
}
