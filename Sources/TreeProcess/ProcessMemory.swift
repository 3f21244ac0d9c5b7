import CTreeSystem

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
/// Both go through the CTreeSystem C target (`malloc.h` is not part of Swift's Glibc
/// module) and do nothing on other C libraries (musl gives memory back by itself).
/// ``useTransparentHugePages()`` (ProcessMemory+HugePages.swift), first thing at start, has
/// glibc put large blocks on 2 MiB pages.
public enum ProcessMemory {
    /// Fixes malloc's mmap threshold (which also stops its dynamic adjustment): blocks of at
    /// least `mmapThreshold` bytes get their own mapping. Call once, at start, before threads.
    /// Returns whether the C library took the setting.
    /// - Complexity: O(1)
    @discardableResult
    public static func fixAllocatorThresholds(mmapThreshold: Int = 1 << 20) -> Bool {
        ctree_set_mmap_threshold(Int32(clamping: mmapThreshold)) == 1
    }

    /// Releases the free pages of every malloc heap to the system (`malloc_trim(0)`).
    /// - Complexity: O(heap size) in the worst case; call after freeing something large,
    ///   not per request.
    public static func returnFreedMemory() {
        _ = ctree_malloc_trim()
    }
}
