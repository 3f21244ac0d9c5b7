import Testing
import TreeEngine
@testable import TreeFormats

/// A streamed path list is built on a thread of its own only when it is large and fewer than
/// `PathBuildThread.threadLimit` such threads run (over all uploads at once); else on the
/// reading thread. Either way the forest is the general reader's.
@Suite struct PathBuildThreadTests {
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

    static func read(_ list: [UInt8], streaming: Bool) throws -> Forest {
        try list.withUnsafeBytes { try Forest.parsePaths($0, separator: "/", limits: ForestLimits(), streaming: streaming) }
    }

    @Test func aSmallListIsBuiltOnTheReadingThread() {
        let list = Self.list(bytes: 10_000)
        let build = list.withUnsafeBytes {
            PathBuildThread(base: $0.baseAddress!, limits: ForestLimits(), expectedBytes: $0.count, separator: Array("/".utf8))
        }
        #expect(!build.threaded)
        build.close()
        #expect(build.join() != nil)
    }

    @Test func aLargeListReadsAsTheGeneralReaderDoesWithAThreadOrWithout() throws {
        let list = Self.list(bytes: 2 * PathBuildThread.threadedBytes)
        let general = flatten(try Self.read(list, streaming: false))
        #expect(flatten(try Self.read(list, streaming: true)) == general)
        // Every build thread taken (as by a burst of uploads): built on this thread.
        let limit = PathBuildThread.threadLimit
        PathBuildThread.running.add(limit, ordering: .relaxed)
        defer { PathBuildThread.running.subtract(limit, ordering: .relaxed) }
        let build = list.withUnsafeBytes {
            PathBuildThread(base: $0.baseAddress!, limits: ForestLimits(), expectedBytes: $0.count, separator: Array("/".utf8))
        }
        #expect(!build.threaded, "no thread past the limit")
        build.close()
        _ = build.join()
        #expect(flatten(try Self.read(list, streaming: true)) == general)
    }
}
