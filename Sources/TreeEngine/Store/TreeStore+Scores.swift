extension TreeStore {
    /// The fuzzy score of `title` for `filter` (see `FilterQuery.Mode.fuzzy` and
    /// `TitleMatcher+Modes.swift`): nil unless the filter is fuzzy, searches titles and
    /// the title matches it.
    /// - Complexity: O(title length · text length)
    public static func fuzzyScore(title: UnsafeRawBufferPointer, filter: FilterQuery) -> Int? {
        guard !filter.text.isEmpty, filter.fields.contains(.title) else { return nil }
        return TitleMatcher(filter).fuzzyScore(title)
    }

    /// The fuzzy score of the title of `node` for `filter`.
    /// - Complexity: O(title length · text length)
    public func fuzzyScore(of node: NodeHandle, _ filter: FilterQuery) -> Int? {
        forest.withTitle(of: node) { TreeStore.fuzzyScore(title: $0, filter: filter) }
    }
}
