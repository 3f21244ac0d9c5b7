import Testing
import TreeEngine
@testable import TreeFormats
@testable import TreeReference

/// A plain path list read in parts at once (`PathParts`): each part after the first starts
/// under the open path that the lines before it leave (its context), read back from them.
/// Cut anywhere, the joined parts are the general reader's forest, or the list is left to
/// the general reader; never another forest.
@Suite struct PathPartsTests {
    /// A plain list in pre-order of about `bytes` bytes: folders of 100 files.
    static func list(bytes: Int) -> [UInt8] {
        var out: [UInt8] = []
        var folder = 0
        while out.count < bytes {
            for file in 0 ..< 100 { out += Array("src/folder-\(folder)/file-\(file).swift\n".utf8) }
            folder += 1
        }
        return out
    }

    /// The general reader's forest of `text`.
    static func general(_ text: [UInt8], separator: String = "/") throws -> [FlatNode] {
        flatten(try parsePaths(text, separator: separator, tuning: ReaderTuning(fastPaths: false)).get())
    }

    /// A large list, in one to five parts cut at random: the general reader's forest, every id found.
    @Test func aLargeListReadInPartsIsTheGeneralReaders() throws {
        let list = Self.list(bytes: 1 << 21)
        let general = try Self.general(list)
        var rng = SeededRandom(seed: 0x9A27)
        for parts in 1 ... 5 {
            let cuts = (1 ..< parts).map { _ in rng.int(0 ... list.count) }.sorted()
            let forest = try #require(pathsInParts(list, cuts: cuts), "cut near \(cuts)")
            #expect(flatten(forest) == general, "cut near \(cuts)")
            #expect(general.allSatisfy { forest.node(withID: $0.id) != nil }, "cut near \(cuts)")
        }
    }

    /// Every cut of lists whose context is not the line just before it (that line names a
    /// folder listed already: the open path is a line further back), of lists that declare
    /// a folder of the context (`a/b/` just after the cut), with CR LF and a byte order mark:
    /// each joins into the general reader's forest.
    @Test(arguments: [
        "a/b/c\na/b\na\na/b/d\na/x\n",
        "a/b\na/b/c\na/b/\na/b/d/e\na/b/\nf\n",
        "\u{FEFF}r/s\r\nr/s/t\r\nr/s\r\nr/u/\r\nr/u/v\r\n",
        "x/y/z\n\nx/y\n\n\nx/y/w\nx/q\n",
        "one\ntwo/\ntwo/a/\ntwo/a\ntwo/b\n",
    ])
    func everyCutJoins(_ text: String) throws {
        let list = Array(text.utf8)
        let general = try Self.general(list)
        for near in 0 ... list.count {
            let forest = try #require(pathsInParts(list, cuts: [near]), "cut near \(near)")
            #expect(flatten(forest) == general, "cut near \(near)")
            for other in near ... list.count {
                let three = pathsInParts(list, cuts: [near, other])
                #expect(three.map(flatten) == general, "cut near \(near) and \(other)")
            }
        }
    }

    /// A line that reaches back into a folder the list has left, on either side of a cut: a
    /// duplicate id, so the parts are left to the general reader, which reuses the folder.
    @Test func aNameThatReachesBackIsLeftToTheGeneralReader() throws {
        let list = Array("a/b\nc/d\na/e\nc/f\n".utf8)
        let general = try Self.general(list)
        for near in 0 ... list.count {
            #expect(pathsInParts(list, cuts: [near]) == nil, "cut near \(near)")
            #expect(try flatten(parsePaths(list, tuning: ReaderTuning(parts: 2, cutsNear: [near])).get()) == general)
        }
    }
}
