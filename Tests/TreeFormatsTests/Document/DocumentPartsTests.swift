import Testing
import TreeEngine
@testable import TreeFormats
@testable import TreeReference

/// A large document is read in parts at once (`DocumentParts`): cut anywhere, the joined
/// parts are the forest the one-pass read builds, every id found.
@Suite struct DocumentPartsTests {
    /// What the fast path builds of `bytes` read in parts aimed at `cuts` (a part more than
    /// cuts), or nil when it leaves the document to the one-pass read.
    static func inParts(_ bytes: UnsafeRawBufferPointer, cuts: [Int], limits: ForestLimits = ForestLimits()) -> Forest? {
        ReaderTuning.$current.withValue(ReaderTuning(parts: cuts.count + 1, cutsNear: cuts)) {
            DocumentParts(bytes: bytes, limits: limits).readInParts()
        }
    }

    /// Keys and strings that a scan for the cut must not misread: commas, brackets, quotes
    /// and backslashes inside strings, pointer escapes, non-ASCII text.
    static let texts = ["a", "b/c", "~0", "x y", "k,1", #"q\"u"#, "é", "[", "{}", "]", #"\\"#, #"\u00e9\/"#, "", ":"]

    /// A random JSON value, `depth` levels deep at most, with random whitespace.
    static func value(_ rng: inout SeededRandom, depth: Int) -> String {
        func space() -> String { rng.chance(0.3) ? rng.pick([" ", "\n", "\t ", "\r\n"]) : "" }
        switch depth > 0 ? rng.int(0 ... 5) : rng.int(2 ... 5) {
        case 0, 1:
            let isObject = rng.chance(0.5)
            let items = (0 ..< rng.int(0 ... 4)).map { i in
                let value = space() + Self.value(&rng, depth: depth - 1) + space()
                // Keys unique within their object: a text and the member's index.
                return isObject ? space() + "\"" + rng.pick(texts) + "\(i)\"" + space() + ":" + value : value
            }
            return (isObject ? "{" : "[") + items.joined(separator: ",") + space() + (isObject ? "}" : "]")
        case 2: return "\"" + rng.pick(texts) + "\""
        case 3: return rng.pick(["0", "-12.5e3", "7"])
        default: return rng.pick(["true", "false", "null"])
        }
    }

    /// Every cut of many random documents in two parts, and as many random pairs of cuts in
    /// three; a cut joins unless the document has none.
    @Test func partsJoinAsOnePass() throws {
        var cutsJoined = 0
        for seed in 0 ..< UInt64(80) {
            var rng = SeededRandom(seed: seed &+ 31_000)
            let isObject = rng.chance(0.5)
            let items = (0 ..< rng.int(1 ... 4)).map { i in (isObject ? "\"m\(i)\":" : "") + Self.value(&rng, depth: 5) }
            let text = Array(((isObject ? "{" : "[") + items.joined(separator: ",") + (isObject ? "}" : "]")).utf8)
            let expected = try parseDocument(text).get()
            var lastCut = -1
            var nears: [[Int]] = []
            for near in 0 ..< text.count {
                let cut = text.withUnsafeBytes { DocumentReader.Cut.find(in: $0, near: near)?.offset }
                guard let cut, cut != lastCut else { continue }
                lastCut = cut
                nears.append([near])
            }
            nears += nears.map { _ in [rng.int(0 ... lastCut - 1), rng.int(0 ... lastCut - 1)].sorted() }
            for near in nears {
                let forest = text.withUnsafeBytes { Self.inParts($0, cuts: near) }
                let got = try #require(forest, "seed \(seed), cut near \(near): no join")
                cutsJoined += 1
                #expect(flatten(got) == flatten(expected), "seed \(seed), cut near \(near) of \(String(decoding: text, as: UTF8.self))")
                got.forEachNode { node, _ in
                    let id = got.id(of: node).description
                    #expect(got.node(withID: id) == node, "seed \(seed), cut near \(near): \(id)")
                }
            }
        }
        #expect(cutsJoined > 500, "\(cutsJoined) cuts joined")
    }

    /// The scan for the cut (strings skipped eight bytes at a time) against a byte-by-byte
    /// reference, at every offset of random documents whose strings are long, with quotes
    /// and backslashes escaped at every place within a word.
    @Test func cutScanMatchesByteByByteScan() {
        var checked = 0
        for seed in 0 ..< UInt64(40) {
            var rng = SeededRandom(seed: seed &+ 32_000)
            func text() -> String {
                let pieces = ["abcdefgh", "é", #"\""#, #"\\"#, ",", "[", "}", ":", #"\u0041"#, " "]
                return (0 ..< rng.int(0 ... 14)).map { _ in rng.pick(pieces) }.joined()
            }
            let members = (0 ..< rng.int(1 ... 12)).map { i in
                "\"" + text() + "\(i)\": [\"" + text() + "\", {\"" + text() + "\": \"" + text() + "\"}, 7]"
            }
            let document = Array(("{" + members.joined(separator: ", ") + "}").utf8)
            document.withUnsafeBytes { raw in
                for near in 0 ... raw.count {
                    let expected = Self.referenceCut(raw, near: near)
                    #expect(DocumentReader.Cut.find(in: raw, near: near) == expected, "seed \(seed), near \(near)")
                    if expected != nil { checked += 1 }
                }
            }
        }
        #expect(checked > 5_000, "\(checked) cuts checked")
    }

    /// `Cut.find` written plainly: one byte at a time.
    static func referenceCut(_ bytes: UnsafeRawBufferPointer, near: Int) -> DocumentReader.Cut? {
        var frames: [DocumentReader.Cut.Frame] = []
        var i = 0, stringStart = -1
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "\""):
                stringStart = i
                i += 1
                while i < bytes.count && bytes[i] != UInt8(ascii: "\"") { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
                if i >= bytes.count { return nil }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                frames.append(.init(isObject: bytes[i] == UInt8(ascii: "{"), index: 0, keyStart: -1))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard frames.popLast() != nil, !frames.isEmpty else { return nil }
            case UInt8(ascii: ":"):
                guard let top = frames.indices.last, frames[top].isObject, stringStart >= 0 else { return nil }
                frames[top].keyStart = stringStart
            case UInt8(ascii: ","):
                guard let top = frames.indices.last else { return nil }
                frames[top].index += 1
                if i >= near { return DocumentReader.Cut(offset: i + 1, frames: frames) }
            default:
                break
            }
            i += 1
        }
        return nil
    }

    /// A document large enough that the join copies on two threads, cut at a few places
    /// into two parts and into four.
    @Test func largePartsJoinAsOnePass() throws {
        var rng = SeededRandom(seed: 31_999)
        let records = (0 ..< 30_000).map { _ in Self.value(&rng, depth: 4) }
        let text = Array(("{\"records\":[" + records.joined(separator: ",") + "],\"end\":1}").utf8)
        let expected = try parseDocument(text).get()
        #expect(expected.count > 70_000)
        for near in [[text.count / 5], [text.count / 2], [text.count * 4 / 5], [text.count / 5, text.count / 2, text.count * 4 / 5]] {
            let forest = text.withUnsafeBytes { Self.inParts($0, cuts: near) }
            let got = try #require(forest, "cut near \(near): no join")
            #expect(flatten(got) == flatten(expected), "cut near \(near)")
            var missed: [String] = []
            got.forEachNode { node, _ in
                let id = got.id(of: node).description
                if got.node(withID: id) != node { missed.append(id) }
            }
            #expect(missed.isEmpty, "cut near \(near): \(missed.count) ids not found, as \(missed.prefix(3))")
        }
    }

    /// What a read in parts refuses is left to the one-pass read, which names it.
    @Test func errorsFallBackToTheOnePassRead() throws {
        func twoParts(_ text: String, near: Int, limits: ForestLimits = ForestLimits()) -> Forest? {
            Array(text.utf8).withUnsafeBytes { Self.inParts($0, cuts: [near], limits: limits) }
        }
        let good = #"{"a": [1, 2, {"b": 3}], "c": 4}"#
        #expect(twoParts(good, near: 10) != nil)
        // A member name twice, the second in the second part: found when the ids are indexed.
        #expect(twoParts(#"{"a": [1, 2, {"b": 3}], "a": 4}"#, near: 10) == nil)
        // Malformed in either part.
        #expect(twoParts(#"{"a": [1, 2, {"b": 3}], "c": 4]"#, near: 10) == nil)
        #expect(twoParts(#"{"a": [1 2, {"b": 3}], "c": 4}"#, near: 12) == nil)
        // Brackets closing what never opened, before the cut: the scan gives up, the reader reports.
        #expect(twoParts("]" + good, near: 10) == nil)
        #expect(twoParts("[]]" + good, near: 10) == nil)
        // A cut so deep that its containers' pointers (quadratic in the depth) pass the bound:
        // refused before they are composed (here 100 levels, about 10 KB, against 1,000 bytes).
        let deep = Array((String(repeating: "[", count: 100) + "1,2" + String(repeating: "]", count: 100)).utf8)
        deep.withUnsafeBytes { raw in
            guard let cut = DocumentReader.Cut.find(in: raw, near: 100) else { Issue.record("no cut"); return }
            #expect(cut.frames.count == 100)
            #expect(throws: JSONScanError.self) { try DocumentReader.rest(raw, after: cut, limits: ForestLimits(), maxContextBytes: 1_000) }
            #expect((try? DocumentReader.rest(raw, after: cut, limits: ForestLimits()))?.context.count == 99)
        }
        // No comma past the offset: nothing to cut, the first part reads it all.
        #expect(twoParts(good, near: good.utf8.count - 2).map(flatten) == flatten(try parseDocument(good).get()))
        // Limits over both parts: nodes and depth.
        #expect(twoParts(good, near: 10, limits: ForestLimits(maxNodes: 5)) == nil)
        #expect(twoParts(good, near: 10, limits: ForestLimits(maxDepth: 2)) == nil)
        #expect(twoParts(good, near: 10, limits: ForestLimits(maxDepth: 3)) != nil)
    }
}
