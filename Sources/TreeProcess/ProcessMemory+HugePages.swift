#if canImport(Glibc)
import Glibc
#endif
import CTreeSystem

extension ProcessMemory {
    /// The tunable that makes glibc's malloc ask for transparent huge pages
    /// (`madvise(MADV_HUGEPAGE)`) for the mappings of its large blocks.
    private static let hugePagesTunable = "glibc.malloc.hugetlb"

    /// The first glibc that reads ``hugePagesTunable`` (older ones ignore it).
    private static let hugePagesGlibc = (major: 2, minor: 35)

    /// Set in the environment of the one execution `useTransparentHugePages` makes, and
    /// removed by the program it starts.
    public static let reexecutedMarker = "TREE_SESSIONS_REEXECUTED"

    /// Has glibc's malloc put large blocks on transparent huge pages where the kernel gives
    /// them only to memory that asks (`[madvise]` in
    /// /sys/kernel/mm/transparent_hugepage/enabled, as on many distributions). As the
    /// setting is read when a program starts, the process executes itself again (same
    /// process id, arguments and environment) with `glibc.malloc.hugetlb=1` added to
    /// `GLIBC_TUNABLES`. Call it first in `main`, before any thread or output.
    ///
    /// A large import writes gigabytes of memory never touched before; in 4 KiB pages each
    /// is a page fault, and on virtual machines a fault costs microseconds (docs/OPERATIONS.md,
    /// "Huge pages"). In 2 MiB pages there are 512 times fewer.
    ///
    /// Returns (when it does not execute) a line for the start-up log saying which pages
    /// large blocks get and why. A `glibc.malloc.hugetlb` already in `GLIBC_TUNABLES` is
    /// left as it is: `glibc.malloc.hugetlb=0` keeps 4 KiB pages. It executes at most once
    /// (`reexecutedMarker`, a variable of its own, says it did: where glibc drops
    /// `GLIBC_TUNABLES`, as in secure-execution mode, it would otherwise again and again),
    /// never in secure-execution mode (setuid, file capabilities: `AT_SECURE`), and not
    /// under a glibc older than 2.35, which has no such tunable.
    public static func useTransparentHugePages() -> String {
        #if canImport(Glibc)
        let mode = transparentHugePageMode()
        guard mode == "madvise" else {
            return "transparent huge pages: \(mode.map { "the kernel's mode is \($0)" } ?? "not offered by the kernel")"
        }
        guard let version = ctree_glibc_version().map({ String(cString: $0) }) else {
            return "transparent huge pages: not asked for (the C library is not glibc)"
        }
        guard Self.version(version, isAtLeast: hugePagesGlibc) else {
            return "transparent huge pages: not asked for (glibc \(version) has no \(hugePagesTunable); 2.35 and later have)"
        }
        let tunables = getenv("GLIBC_TUNABLES").map { String(cString: $0) } ?? ""
        let reexecuted = getenv(reexecutedMarker) != nil
        unsetenv(reexecutedMarker)
        if let setting = tunables.split(separator: ":").last(where: { $0.hasPrefix(hugePagesTunable + "=") }) {
            return "transparent huge pages: GLIBC_TUNABLES has \(setting)"
        }
        if reexecuted {
            return "transparent huge pages: not asked for (executed once with \(hugePagesTunable)=1, and GLIBC_TUNABLES did not reach the program)"
        }
        if ctree_secure_execution() != 0 {
            return "transparent huge pages: not asked for (secure-execution mode: glibc ignores GLIBC_TUNABLES)"
        }
        let path = [CChar](unsafeUninitializedCapacity: Int(PATH_MAX) + 1) { buffer, count in
            let n = readlink("/proc/self/exe", buffer.baseAddress!, Int(PATH_MAX))
            count = max(0, n)
            if n >= 0 { buffer[n] = 0; count += 1 }
        }
        setenv("GLIBC_TUNABLES", (tunables.isEmpty ? "" : tunables + ":") + hugePagesTunable + "=1", 1)
        setenv(reexecutedMarker, "1", 1)
        if !path.isEmpty { execv(path, CommandLine.unsafeArgv) }
        let reason = String(cString: strerror(errno))
        unsetenv(reexecutedMarker)
        if tunables.isEmpty { unsetenv("GLIBC_TUNABLES") } else { setenv("GLIBC_TUNABLES", tunables, 1) }
        return "transparent huge pages: not asked for (executing again with \(hugePagesTunable)=1 failed: \(reason))"
        #else
        return "transparent huge pages: not asked for (not glibc)"
        #endif
    }

    /// Whether a glibc version ("2.36", "2.35.9000") is `minimum` or later; false for one
    /// that does not read as numbers.
    static func version(_ version: String, isAtLeast minimum: (major: Int, minor: Int)) -> Bool {
        let parts = version.split(separator: ".").prefix(2).map { Int($0) }
        guard parts.count == 2, let major = parts[0], let minor = parts[1] else { return false }
        return (major, minor) >= minimum
    }

    #if canImport(Glibc)
    /// The kernel's transparent huge page mode (`always`, `madvise`, `never`), nil when the
    /// kernel has none.
    public static func transparentHugePageMode() -> String? {
        guard let file = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        guard fgets(&line, Int32(line.count), file) != nil else { return nil }
        // "always [madvise] never": the chosen one is bracketed.
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let open = text.firstIndex(of: "["), let close = text[open...].firstIndex(of: "]") else { return nil }
        return String(text[text.index(after: open) ..< close])
    }
    #endif
}
