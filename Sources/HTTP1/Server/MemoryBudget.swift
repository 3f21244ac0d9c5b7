#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// A number of bytes shared by every connection of a server (and by the responder), so that
/// request bodies held in memory, and what a responder builds from them, stay within one
/// bound however many clients upload at once.
///
/// The server reserves a body before it reads it: the whole `Content-Length` at the head
/// (refused: `503` with `Retry-After`, no `100 Continue`, connection closed), a chunked
/// body's buffer as it grows (refused: `503`, connection closed). The reservation is given
/// back when the server is done serving the request (the responder returned and the
/// response was written or abandoned, even if the connection closed meanwhile), or when
/// the connection closes or fails before the body was complete. A responder
/// reserves what it builds from a body through ``HTTPRequest/memoryBudget`` (for example
/// the peak of a parse) and releases it when done.
///
/// Thread-safe; one atomic counter. - Complexity: O(1) per call.
public final class MemoryBudget: Sendable {
    /// The most bytes that may be reserved at once.
    public let capacity: Int
    private let used = Atomic<Int>(0)

    public init(capacity: Int) {
        precondition(capacity >= 0, "a budget cannot be negative")
        self.capacity = capacity
    }

    /// Bytes reserved now.
    public var reserved: Int { used.load(ordering: .relaxed) }

    /// Reserves `bytes` if they fit beside what is reserved; otherwise reserves nothing.
    /// A reservation of 0 always succeeds.
    public func tryReserve(_ bytes: Int) -> Bool {
        precondition(bytes >= 0)
        guard bytes > 0 else { return true }
        var current = used.load(ordering: .relaxed)
        while true {
            guard bytes <= capacity - current else { return false }
            let (exchanged, original) = used.compareExchange(
                expected: current, desired: current + bytes, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    /// Gives back bytes reserved with ``tryReserve(_:)``.
    public func release(_ bytes: Int) {
        precondition(bytes >= 0)
        guard bytes > 0 else { return }
        let after = used.subtract(bytes, ordering: .relaxed).newValue
        precondition(after >= 0, "released more than was reserved")
    }

    /// The memory this process may use: the machine's physical memory, or the cgroup's
    /// memory limit when the process runs in a container with a smaller one.
    public static var availableMemory: Int {
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), pageSize = sysconf(Int32(_SC_PAGESIZE))
        var memory = pages > 0 && pageSize > 0 ? pages * pageSize : 4 << 30
        for path in ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"] {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8),
                let limit = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), limit > 0
            else { continue }
            memory = min(memory, limit)
        }
        return memory
    }

    /// The default capacity: a quarter of ``availableMemory``.
    public static var defaultCapacity: Int { availableMemory / 4 }
}
