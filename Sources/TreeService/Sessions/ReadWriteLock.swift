#if canImport(Glibc)
import Glibc
#endif

/// A value behind a reader–writer lock that prefers writers: many readers at once,
/// or one writer, and a waiting writer is not starved by a stream of readers.
final class ReadWriteLocked<Value>: @unchecked Sendable {
    private var lock = pthread_rwlock_t()
    private var value: Value

    init(_ value: Value) {
        self.value = value
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        pthread_rwlock_init(&lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    deinit { pthread_rwlock_destroy(&lock) }

    /// Runs `body` alone, with the value to change.
    func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        pthread_rwlock_wrlock(&lock)
        defer { pthread_rwlock_unlock(&lock) }
        return try body(&value)
    }

    /// Runs `body` beside other readers, with the value to read.
    func withReadLock<R, E: Error>(_ body: (Value) throws(E) -> R) throws(E) -> R {
        pthread_rwlock_rdlock(&lock)
        defer { pthread_rwlock_unlock(&lock) }
        return try body(value)
    }
}
