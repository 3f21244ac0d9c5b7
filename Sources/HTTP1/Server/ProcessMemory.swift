#if canImport(Glibc)
import Glibc
#endif

/// Giving freed memory back to the system, for a long-running server under a memory limit.
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

    #if canImport(Glibc)
    private static func symbol<F>(_ name: String) -> F? {
        guard let handle = dlopen(nil, RTLD_NOW), let pointer = dlsym(handle, name) else { return nil }
        return unsafeBitCast(pointer, to: F.self)
    }
    #endif
}
