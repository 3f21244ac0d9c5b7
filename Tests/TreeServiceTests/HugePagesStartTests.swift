#if canImport(Glibc)
import Foundation
import Glibc
import HTTPTestSupport
import TreeProcess
import Testing

/// tree-server asks for transparent huge pages by executing itself again with
/// `glibc.malloc.hugetlb=1` in `GLIBC_TUNABLES` when the kernel's mode is `madvise`
/// (`ProcessMemory.useTransparentHugePages`). Run on the real executable: the same process,
/// arguments and name after the exec, malloc's memory advised (`hg` in /proc/PID/smaps), a
/// setting of the user's kept, the others extended. (Not /proc/PID/environ: glibc rewrites
/// the `GLIBC_TUNABLES` it reads at start.)
@Suite(.timeLimit(.minutes(1))) struct HugePagesStartTests {
    /// `tree-server`, which `swift build --build-tests` builds beside the test bundle.
    static let server = Tool.builtBesideTests("tree-server")

    struct Started {
        /// Standard error up to the line saying it listens.
        var log: String
        /// How many of its mappings are advised for huge pages (`hg` among their VmFlags).
        var advisedMappings: Int
        /// The process's name (/proc/PID/comm).
        var name: String
    }

    /// Starts tree-server (memory only, any port) with `GLIBC_TUNABLES` set to `tunables`
    /// (nil: unset), reads what it logs until it listens, looks at the running process, and
    /// stops it.
    func start(tunables: String?, reexecuted: Bool = false) throws -> Started {
        var environment = ProcessInfo.processInfo.environment
        environment["GLIBC_TUNABLES"] = tunables
        environment[ProcessMemory.reexecutedMarker] = reexecuted ? "1" : nil
        let arguments = ["--port", "0", "--data-dir", "none", "--access-log", "false"]
        return try withProcess(Self.server!, arguments, environment: environment, reading: .errors) { process, errors in
            let log = read(errors, until: "listening on")
            let pid = process.processIdentifier
            let name = try String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let advised = try String(contentsOfFile: "/proc/\(pid)/smaps", encoding: .utf8).split(separator: "\n")
                .filter { $0.hasPrefix("VmFlags:") && $0.split(separator: " ").contains("hg") }.count
            return Started(log: log, advisedMappings: advised, name: name)
        }
    }

    @Test(.enabled(if: server != nil, "tree-server is not built beside the tests (swift build --build-tests)"))
    func asksForHugePagesWhereTheKernelWantsToBeAsked() throws {
        let mode = ProcessMemory.transparentHugePageMode()
        let plain = try start(tunables: nil)
        #expect(plain.log.contains("listening on"), "\(plain.log)")
        #expect(plain.log.contains("memory only"), "the arguments did not survive: \(plain.log)")
        #expect(plain.name == "tree-server")
        if mode == "madvise" {
            #expect(plain.log.contains("transparent huge pages: GLIBC_TUNABLES has glibc.malloc.hugetlb=1"), "\(plain.log)")
            #expect(plain.advisedMappings > 0)
            let others = try start(tunables: "glibc.malloc.perturb=0")
            #expect(others.log.contains("transparent huge pages: GLIBC_TUNABLES has glibc.malloc.hugetlb=1"), "\(others.log)")
            #expect(others.advisedMappings > 0)
        } else {
            #expect(plain.log.contains("transparent huge pages: "), "\(plain.log)")
            #expect(plain.advisedMappings == 0)
        }
        // Executed once already, and the tunable lost on the way (as glibc drops it in
        // secure-execution mode): it goes on, and never executes again.
        let once = try start(tunables: nil, reexecuted: true)
        #expect(once.log.contains("listening on"))
        #expect(once.advisedMappings == 0)
        if mode == "madvise" {
            #expect(once.log.contains("transparent huge pages: not asked for (executed once"), "\(once.log)")
        }
        // The user's own setting is kept, whatever the kernel's mode.
        let declined = try start(tunables: "glibc.malloc.hugetlb=0")
        #expect(declined.log.contains("listening on"))
        #expect(declined.advisedMappings == 0)
        if mode == "madvise" {
            #expect(declined.log.contains("GLIBC_TUNABLES has glibc.malloc.hugetlb=0"), "\(declined.log)")
        }
    }
}
#endif
