#if canImport(Glibc)
import Glibc
#endif

/// Giving freed memory back to the system, for a long-running server under a memory limit,
/// and asking for large pages where they save page faults.
///
/// glibc's malloc raises its mmap threshold each time a large mmapped block is freed (up to
/// 32 MiB), after which large blocks come from the heap, and freed heap memory stays with
/// the process. A server that builds and drops structures of hundreds of megabytes then
/// keeps its peak resident size for ever. ``fixAllocatorThresholds(mmapThreshold:)`` at
/// start keeps large blocks in their own mappings (returned on `free`), and
/// ``returnFreedMemory()`` after dropping a large structure releases the free pages of
/// every heap.
///
/// Both functions are looked up at run time (`malloc.h` is not part of Swift's Glibc
/// module) and do nothing on other C libraries (musl gives memory back by itself).
/// ``useTransparentHugePages()``, first thing at start, has glibc put large blocks on
/// 2 MiB pages.
public enum ProcessMemory {
    /// Fixes malloc's mmap threshold (which also stops its dynamic adjustment): blocks of at
    /// least `mmapThreshold` bytes get their own mapping. Call once, at start, before threads.
    /// Returns whether the C library took the setting.
    @discardableResult
    public static func fixAllocatorThresholds(mmapThreshold: Int = 1 << 20) -> Bool {
        #if canImport(Glibc)
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let mallopt: Mallopt = symbol("mallopt") else { return false }
        let M_MMAP_THRESHOLD: Int32 = -3  // malloc.h
        return mallopt(M_MMAP_THRESHOLD, Int32(clamping: mmapThreshold)) == 1
        #else
        return false
        #endif
    }

    /// Releases the free pages of every malloc heap to the system (`malloc_trim(0)`).
    /// - Complexity: O(heap size) in the worst case; call after freeing something large,
    ///   not per request.
    public static func returnFreedMemory() {
        #if canImport(Glibc)
        typealias MallocTrim = @convention(c) (Int) -> Int32
        if let trim: MallocTrim = symbol("malloc_trim") { _ = trim(0) }
        #endif
    }

    /// The tunable that makes glibc's malloc ask for transparent huge pages
    /// (`madvise(MADV_HUGEPAGE)`) for the mappings of its large blocks (glibc 2.35 and later).
    private static let hugePagesTunable = "glibc.malloc.hugetlb"

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
    /// and never in secure-execution mode (setuid, file capabilities: `AT_SECURE`).
    public static func useTransparentHugePages() -> String {
        #if canImport(Glibc)
        let mode = transparentHugePageMode()
        guard mode == "madvise" else {
            return "transparent huge pages: \(mode.map { "the kernel's mode is \($0)" } ?? "not offered by the kernel")"
        }
        guard let _: @convention(c) () -> UnsafePointer<CChar> = symbol("gnu_get_libc_version") else {
            return "transparent huge pages: not asked for (the C library is not glibc)"
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
        typealias AuxiliaryValue = @convention(c) (UInt) -> UInt
        let atSecure: UInt = 23  // AT_SECURE of <elf.h>
        if let getauxval: AuxiliaryValue = symbol("getauxval"), getauxval(atSecure) != 0 {
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

    private static func symbol<F>(_ name: String) -> F? {
        guard let handle = dlopen(nil, RTLD_NOW), let pointer = dlsym(handle, name) else { return nil }
        return unsafeBitCast(pointer, to: F.self)
    }
    #endif
}
