import Testing
import TreeEngine
@testable import TreeFormats
@testable import TreeReference

/// A chain of 1,000,000 nodes in each row format, in pre-order and with every parent
/// after its child: no recursion anywhere, the right depth, and back out again.
@Suite("RowsDeepTests")
struct RowsDeepTests {
    static let depth = 1_000_000

    static func chain(_ format: Rows.Format, reversed: Bool) -> [UInt8] {
        var lines: [[UInt8]] = []
        lines.reserveCapacity(depth)
        for i in 0 ..< depth {
            switch format {
            case .csv:
                lines.append(Array((i == 0 ? "n0,,t0\n" : "n\(i),n\(i - 1),t\(i)\n").utf8))
            case .ndjson:
                lines.append(Array((i == 0 ? "{\"id\":0,\"title\":\"t0\"}\n" : "{\"id\":\(i),\"parentId\":\(i - 1),\"title\":\"t\(i)\"}\n").utf8))
            }
        }
        if reversed { lines.reverse() }
        var body: [UInt8] = format == .csv ? Array("id,parentId,title\n".utf8) : []
        for line in lines { body += line }
        return body
    }

    @Test(arguments: [(Rows.Format.csv, false), (.csv, true), (.ndjson, false), (.ndjson, true)])
    func millionDeepChain(format: Rows.Format, reversed: Bool) throws {
        let forest = try Rows.parse(Self.chain(format, reversed: reversed), format).get()
        var count = 0
        var deepest = 0
        forest.forEachNode { _, level in
            count += 1
            deepest = max(deepest, level)
        }
        #expect(count == Self.depth)
        #expect(deepest == Self.depth - 1)
        let last = try #require(forest.node(withID: "\(Self.depth - 1)") ?? forest.node(withID: "n\(Self.depth - 1)"))
        #expect(forest.level(of: last) == Self.depth - 1)
        if !reversed {
            // Out and in again.
            let back = try Rows.parse(Rows.export(forest, format), format).get()
            #expect(Rows.describe(back, types: true).count == Self.depth)
        }
        // One level too many for the limit.
        let tooDeep = Rows.parse(Self.chain(format, reversed: reversed), format, limits: ForestLimits(maxDepth: Self.depth - 1)).failure
        #expect(tooDeep?.kind == .rule)
    }
}
