import Foundation
import Testing
@testable import HTTP1

/// Every file in Fuzz/corpus (seeds) and Fuzz/regressions (inputs that once broke the
/// parser) must parse identically whole, byte by byte and split anywhere, with the
/// fuzzer's limits.
@Suite struct FuzzCorpusTests {
    static let fuzzLimits = HTTPParserLimits(
        maxRequestLineLength: 256, maxHeaderSectionSize: 512, maxHeaderCount: 12,
        maxBodySize: 2048, maxChunkSizeLineLength: 40)

    static var files: [URL] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz")
        return ["corpus", "regressions"].flatMap { folder -> [URL] in
            let dir = root.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            return names.sorted().map { dir.appendingPathComponent($0) }
        }
    }

    @Test func corpusIsPresent() {
        #expect(Self.files.count >= 8)
    }

    @Test(arguments: files)
    func parsesTheSameHoweverSplit(file: URL) throws {
        let input = try [UInt8](Data(contentsOf: file))
        let (_, mismatch) = parseEverySplit(input, limits: Self.fuzzLimits)
        #expect(mismatch == nil, "\(file.lastPathComponent): \(mismatch ?? "")")
    }
}
