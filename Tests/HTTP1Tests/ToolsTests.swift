#if canImport(Glibc)
import Glibc
#endif
import HTTPTestSupport
import Testing

/// The process runner behind the curl and Python tests: outputs kept apart, and a process
/// that outlives its timeout killed rather than left to hang the run.
@Suite(.timeLimit(.minutes(1))) struct ToolsTests {
    @Test func toolsAreFoundOnThePath() {
        #expect(Tool.find("sh") != nil)
        #expect(Tool.find("no-such-tool-\(getpid())") == nil)
    }

    @Test func outputErrorOutputAndStatusComeBack() throws {
        let sh = try #require(Tool.find("sh"))
        let result = try runProcess(sh, ["-c", "cat; echo err >&2; exit 3"], stdin: Array("in\n".utf8))
        #expect(result.status == 3)
        #expect(result.text == "in\n")
        #expect(result.errorText == "err\n")
    }

    @Test func aProcessThatOutlivesItsTimeoutIsKilled() throws {
        let sleep = try #require(Tool.find("sleep"))
        let result = try runProcess(sleep, ["600"], timeout: .milliseconds(300))
        #expect(result.status == SIGKILL)
    }
}
