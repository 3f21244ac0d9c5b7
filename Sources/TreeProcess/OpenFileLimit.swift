#if canImport(Glibc)
import Glibc
#endif

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`, `ulimit -n`). Each
/// connection is a descriptor, and the soft limit is often 1024: a server raises it at start
/// to what its connection limit needs.
public enum OpenFileLimit {
    /// Raises the soft limit to `wanted`, as far as the hard limit allows; a limit already
    /// that high is left as it is. Returns the soft limit now, nil when it cannot be read.
    /// - Complexity: O(1), two system calls.
    @discardableResult
    public static func raise(to wanted: Int) -> Int? {
        #if canImport(Glibc)
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur < rlim_t(wanted) {
            var raised = limit
            raised.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
        #else
        return nil
        #endif
    }
}
