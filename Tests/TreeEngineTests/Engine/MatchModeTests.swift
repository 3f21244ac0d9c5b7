import Foundation
import Testing
@testable import TreeEngine
import TreeFormats

/// Hand examples of every match mode and option (the model tests compare random ones
/// with the reference's definitions).
@Suite struct MatchModeTests {
    static func matches(_ title: String, _ f: FilterQuery) -> Bool {
        Array(title.utf8).withUnsafeBytes { raw in
            var scratch: [UInt8] = []
            return TitleMatcher(f).matches(raw, scratch: &scratch)
        }
    }

    static func ranges(_ title: String, _ f: FilterQuery) -> [[Int]] {
        Array(title.utf8).withUnsafeBytes { TreeStore.matchRanges(title: $0, filter: f) }.map { [$0.start, $0.length] }
    }

    static func score(_ title: String, _ f: FilterQuery) -> Int? {
        Array(title.utf8).withUnsafeBytes { TreeStore.fuzzyScore(title: $0, filter: f) }
    }

    static func di(_ text: String, _ mode: FilterQuery.Mode = .contains, caseSensitive: Bool = false) -> FilterQuery {
        FilterQuery(text, mode: mode, caseSensitive: caseSensitive, diacriticInsensitive: true)
    }

    @Test func diacriticsSensitiveByDefault() {
        #expect(!Self.matches("Café", FilterQuery("cafe")))
        #expect(!Self.matches("cafe\u{301}", FilterQuery("café")))  // scalars differ
        #expect(Self.matches("Café", FilterQuery("CAFÉ")))
    }

    @Test func diacriticsInsensitive() {
        // Precomposed, decomposed, and plain, every way round, with either case mode.
        for title in ["Café", "Cafe\u{301}", "Cafe"] {
            for text in ["cafe", "café", "cafe\u{301}", "CAFÉ"] {
                #expect(Self.matches(title, Self.di(text)), "\(title) \(text)")
            }
            #expect(!Self.matches(title, Self.di("cafe", caseSensitive: true)))
            #expect(Self.matches(title, Self.di("Cafe", caseSensitive: true)))
        }
        #expect(Self.matches("Zürich", Self.di("zurich")))
        #expect(Self.matches("Zu\u{308}rich", Self.di("ZÜRICH", .exact)))
        #expect(Self.matches("Ångström", Self.di("angstrom", .prefix)))
        #expect(Self.matches("\u{212B}", Self.di("a", .exact)))  // the Angstrom sign decomposes to A + ring
        // Greek tonos, Cyrillic short i (и + breve), Vietnamese stacked marks.
        #expect(Self.matches("Ἀθῆναι", Self.di("αθηναι")))
        #expect(Self.matches("Йорк", Self.di("иорк")))
        #expect(Self.matches("Hà Nội", Self.di("ha noi")))
        // Hangul syllables decompose to jamo, which are letters: a syllable matches its leading jamo.
        #expect(Self.matches("한국", Self.di("\u{1112}")))
        #expect(Self.ranges("한국", Self.di("\u{1112}")) == [[0, 1]])
        // CJK and emoji have no decomposition: as they are.
        #expect(Self.matches("漢字", Self.di("字")))
        #expect(Self.matches("👨\u{200D}👩\u{200D}👧 family", Self.di("👩")))
        #expect(Self.ranges("👨\u{200D}👩\u{200D}👧", Self.di("👩")) == [[3, 2]])
        // Compatibility forms are not canonical: "ﬁ" is not "fi".
        #expect(!Self.matches("ﬁle", Self.di("file")))
    }

    @Test func diacriticRangesPointIntoTheOriginalTitle() {
        // "Zu" + U+0308 + "rich": the range takes in the mark after "u".
        #expect(Self.ranges("Zu\u{308}rich", Self.di("zu")) == [[0, 3]])
        #expect(Self.ranges("Zu\u{308}rich", Self.di("rich")) == [[3, 4]])
        #expect(Self.ranges("Zürich", Self.di("u")) == [[1, 1]])
        #expect(Self.ranges("cafe\u{301} café", Self.di("cafe")) == [[0, 5], [6, 4]])
        // A UTF-16 surrogate pair before the match counts two.
        #expect(Self.ranges("😀é", Self.di("e")) == [[2, 1]])
    }

    @Test func onlyCombiningMarks() {
        // Without the option a mark is a scalar like any other.
        #expect(Self.matches("e\u{301}", FilterQuery("\u{301}")))
        #expect(Self.ranges("e\u{301}", FilterQuery("\u{301}")) == [[1, 1]])
        // With it, a text of marks folds to nothing: contains and prefix match every title,
        // exact only the titles of marks (or empty), with no ranges.
        #expect(Self.matches("abc", Self.di("\u{301}")))
        #expect(Self.matches("", Self.di("\u{301}\u{308}", .prefix)))
        #expect(!Self.matches("a", Self.di("\u{301}", .exact)))
        #expect(Self.matches("\u{308}", Self.di("\u{301}", .exact)))
        #expect(Self.ranges("abc", Self.di("\u{301}")).isEmpty)
    }

    @Test func words() {
        let f = FilterQuery("layout grid", mode: .words)
        #expect(Self.matches("Grid Layout", f))
        #expect(Self.matches("gridlayout", f))
        #expect(!Self.matches("Grid", f))
        // Every occurrence of every word, sorted, overlapping or touching ones merged.
        #expect(Self.ranges("Grid Layout grid", f) == [[0, 4], [5, 6], [12, 4]])
        #expect(Self.ranges("gridlayout", f) == [[0, 10]])
        #expect(Self.ranges("aaa", FilterQuery("aa a", mode: .words)) == [[0, 3]])
        // Any white space separates words; white space alone matches everything, with no ranges.
        #expect(Self.matches("x y", FilterQuery("y\t\u{3000}x", mode: .words)))
        #expect(Self.matches("anything", FilterQuery("  ", mode: .words)))
        #expect(Self.ranges("anything", FilterQuery("  ", mode: .words)).isEmpty)
        // With the options.
        #expect(Self.matches("Zürich Café", FilterQuery("cafe zurich", mode: .words, diacriticInsensitive: true)))
        #expect(!Self.matches("Zürich Café", FilterQuery("cafe zurich", mode: .words, caseSensitive: true, diacriticInsensitive: true)))
    }

    @Test func fuzzy() {
        let f = FilterQuery("gdl", mode: .fuzzy)
        #expect(Self.matches("Grid Layout", f))
        #expect(!Self.matches("Layout Grid", FilterQuery("gdll", mode: .fuzzy)))
        #expect(!Self.matches("dgl", f))
        // g (start, word start) at 0, d at 3, l (word start) at 5; two gaps; 11 − 3 unmatched.
        #expect(Self.score("Grid Layout", f) == 16 * 3 + 8 * 2 + 8 * 0 - 4 * 2 - 8)
        #expect(Self.ranges("Grid Layout", f) == [[0, 1], [3, 1], [5, 1]])
        // Consecutive runs beat scattered letters: "lay" at the word start, not l·a·y apart.
        let lay = FilterQuery("lay", mode: .fuzzy)
        #expect(Self.ranges("la-x-y Layout", lay) == [[7, 3]])
        #expect(Self.score("la-x-y Layout", lay) == 16 * 3 + 8 * 1 + 8 * 2 - 0 - 10)
        // Ties: the positions that come first.
        #expect(Self.ranges("abab", FilterQuery("ab", mode: .fuzzy)) == [[0, 2]])
        // Not a match, or not fuzzy: no score.
        #expect(Self.score("xyz", f) == nil)
        #expect(Self.score("Grid Layout", FilterQuery("gdl")) == nil)
        // Diacritics insensitive and other scripts.
        #expect(Self.matches("Zürich", FilterQuery("zrh", mode: .fuzzy, diacriticInsensitive: true)))
        #expect(Self.ranges("Zu\u{308}rich", FilterQuery("zur", mode: .fuzzy, diacriticInsensitive: true)) == [[0, 4]])
        #expect(Self.matches("Москва", FilterQuery("мсв", mode: .fuzzy)))
        #expect(Self.matches("東京都庁", FilterQuery("東都", mode: .fuzzy)))
        // A text of marks only, diacritics insensitive: every title, score −n.
        #expect(Self.score("abc", FilterQuery("\u{301}", mode: .fuzzy, diacriticInsensitive: true)) == -3)
    }

    @Test func optionsArePartOfTheView() {
        let base = FilterQuery("a")
        let variants = [base, FilterQuery("a", mode: .words), FilterQuery("a", mode: .fuzzy),
                        FilterQuery("a", diacriticInsensitive: true), FilterQuery("a", leavesOnly: true)]
        #expect(Set(variants).count == variants.count)
        #expect(FilterQuery("a", diacriticInsensitive: true, leavesOnly: true).description == "contains(any case, no diacritics, leaves only): a")
        #expect(base.description == "contains(any case): a")
    }

    // MARK: Leaves only

    static func store(_ json: String) throws -> TreeStore {
        TreeStore(forest: try Forest.parse(Array(json.utf8)).forest)
    }

    static func matchIDs(_ store: inout TreeStore, _ f: FilterQuery) -> [String] {
        store.rows(f, offset: 0, limit: 100).filter(\.isMatch).map { store.forest.id(of: $0.node).description }
    }

    @Test func leavesOnlyFollowsEdits() throws {
        let f = FilterQuery("x", leavesOnly: true)
        var store = try Self.store(#"[{"id":"p","title":"x parent","children":[{"id":"c","title":"x child"}]},{"id":"d","title":"x declared","hasChildren":true},{"id":"l","title":"x leaf"}]"#)
        do { let ids = Self.matchIDs(&store, f); #expect(ids == ["c", "l"]) }
        // A matching leaf gains its first child: it stops matching.
        let fragment = try Array(#"[{"id":"n","title":"new"}]"#.utf8).withUnsafeBytes { raw throws(TreeInputError) -> Forest in
            try store.parseFragment(raw, limits: ForestLimits()).fragment
        }
        _ = try store.insert(fragment, .child(of: store.forest.node(withID: "l"), index: nil), f)
        do { let ids = Self.matchIDs(&store, f); #expect(ids == ["c"]) }
        let count = store.matchCount(f)
        #expect(count == 1)
        // A parent loses its last child: it starts matching.
        _ = store.delete(store.forest.node(withID: "c")!, f)
        do { let ids = Self.matchIDs(&store, f); #expect(ids == ["p"]) }
        // A move: the old parent becomes a leaf, the new one gets a child.
        _ = try store.move(store.forest.node(withID: "n")!, to: store.forest.node(withID: "p"), index: nil, f)
        do { let ids = Self.matchIDs(&store, f); #expect(ids == ["l"]) }
        // A node declared with children never matches.
        let declared = store.forest.node(withID: "d")!
        let match = store.isMatch(declared, f)
        #expect(!match)
    }
}
