import Testing
import TreeEngine
@testable import TreeFormats

/// Absolute path lists, the most common there are (`find /usr`, `find /`): accepted, each id
/// its line (the roots' ids start with the separator), and exported as they came. (They
/// answered 422 "line starts with the separator".)
@Suite struct AbsolutePathTests {
    /// `find /usr -maxdepth 2` as it prints.
    static let findUsr = "/usr\n/usr/bin\n/usr/bin/swift\n/usr/lib\n/usr/lib/x86_64-linux-gnu\n/usr/share\n"

    @Test func findOutputReadsWithEachIDItsLine() throws {
        let forest = try parsePaths(Self.findUsr).get()
        #expect(flatten(forest) == [
            FlatNode(level: 0, id: "/usr", title: "usr", declares: false),
            FlatNode(level: 1, id: "/usr/bin", title: "bin", declares: false),
            FlatNode(level: 2, id: "/usr/bin/swift", title: "swift", declares: false),
            FlatNode(level: 1, id: "/usr/lib", title: "lib", declares: false),
            FlatNode(level: 2, id: "/usr/lib/x86_64-linux-gnu", title: "x86_64-linux-gnu", declares: false),
            FlatNode(level: 1, id: "/usr/share", title: "share", declares: false),
        ])
        #expect(forest.node(withID: "/usr/bin/swift").map { forest.title(of: $0) } == "swift")
        #expect(forest.node(withID: "usr/bin") == nil)
        #expect(exportPaths(forest) == Self.findUsr, "exported as it came")
    }

    /// `find /` starts with the root itself: not a node (the tree's roots are its entries).
    @Test func theRootLineAddsNothing() throws {
        let forest = try parsePaths("/\n/etc\n/etc/passwd\n/tmp/\n").get()
        #expect(flatten(forest).map(\.id) == ["/etc", "/etc/passwd", "/tmp"])
        #expect(exportPaths(forest) == "/etc\n/etc/passwd\n/tmp/\n")
    }

    /// Escapes, git's quoted form and other separators as in relative lists; the general
    /// reader and the stream (which leaves absolute lists to it) agree.
    @Test func unusualNamesAndSeparators() throws {
        let escaped = try parsePaths("/a\\/b/c\n\"/caf\\303\\251/x\"\n").get()
        #expect(flatten(escaped).map(\.id) == ["/a\\/b", "/a\\/b/c", "/café", "/café/x"])
        #expect(flatten(escaped).map(\.title) == ["a/b", "c", "café", "x"])
        #expect(exportPaths(escaped) == "/a\\/b\n/a\\/b/c\n/café\n/café/x\n")
        let arrows = try parsePaths("→a→b\n→a→c\n", separator: "→").get()
        #expect(flatten(arrows).map(\.id) == ["→a", "→a→b", "→a→c"])
        #expect(exportPaths(arrows, separator: "→") == "→a→b\n→a→c\n" || exportPaths(arrows, separator: "→") == "→a\n→a→b\n→a→c\n")
        let text = Array(Self.findUsr.utf8)
        let general = try parsePaths(text, tuning: ReaderTuning(fastPaths: false)).get()
        #expect(flatten(try parsePaths(Self.findUsr).get()) == flatten(general))
    }

    @Test(arguments: [
        ("/a\nb\n", "line 2: a relative path in a list of absolute paths (the first path starts with the separator)"),
        ("a\n/b\n", "line 2: an absolute path in a list of relative paths (the first path does not start with the separator)"),
        ("//a\n", "line 1: two separators in a row: a path's names must not be empty"),
    ])
    func aListThatMixesThemIsRefused(_ text: String, _ message: String) {
        guard case .failure(let error) = parsePaths(text) else { Issue.record("accepted \(text.debugDescription)"); return }
        #expect(error.message == message)
        #expect(error.kind == .rule)
    }
}
