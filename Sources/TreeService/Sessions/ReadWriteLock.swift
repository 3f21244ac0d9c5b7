#if canImport(Glibc)
import Glibc
#endif

/// A value behind a reader–writer lock that prefers writers: many readers at once,
/// or one writer, and a waiting writer is not starved by a stream of readers.
///
/// The lock lives at an address allocated once (a `pthread_rwlock_t` must not move
/// while it is in use), every call's result is checked, and the box is `Sendable` only
/// for a `Sendable` value, since readers on several threads see the value at once.
/// Not recursive, and a thread must never take it again while it holds it: a second write
/// lock, or a read lock after the write lock, stops the process (glibc answers `EDEADLK`);
/// a write lock after a read lock hangs for ever, and so does a second read lock while a
/// writer waits (the waiting writer is preferred) — glibc detects neither.
final class ReadWriteLocked<Value> {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>
    private var value: Value

    init(_ value: Value) {
        self.value = value
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        // The attributes too stay at one address from their init to their destroy.
        var attributes = pthread_rwlockattr_t()
        withUnsafeMutablePointer(to: &attributes) { [lock] attributes in
            ReadWriteLocked.check(pthread_rwlockattr_init(attributes), "pthread_rwlockattr_init")
            defer { ReadWriteLocked.check(pthread_rwlockattr_destroy(attributes), "pthread_rwlockattr_destroy") }
            ReadWriteLocked.check(pthread_rwlockattr_setkind_np(attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP)),
                                  "pthread_rwlockattr_setkind_np")
            ReadWriteLocked.check(pthread_rwlock_init(lock, attributes), "pthread_rwlock_init")
        }
    }

    deinit {
        ReadWriteLocked.check(pthread_rwlock_destroy(lock), "pthread_rwlock_destroy")
        lock.deinitialize(count: 1)
        lock.deallocate()
    }

    /// Runs `body` alone, with the value to change.
    func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        ReadWriteLocked.check(pthread_rwlock_wrlock(lock), "pthread_rwlock_wrlock")
        defer { ReadWriteLocked.check(pthread_rwlock_unlock(lock), "pthread_rwlock_unlock") }
        return try body(&value)
    }

    /// Runs `body` beside other readers, with the value to read.
    func withReadLock<R, E: Error>(_ body: (Value) throws(E) -> R) throws(E) -> R {
        ReadWriteLocked.check(pthread_rwlock_rdlock(lock), "pthread_rwlock_rdlock")
        defer { ReadWriteLocked.check(pthread_rwlock_unlock(lock), "pthread_rwlock_unlock") }
        return try body(value)
    }

    /// Runs `body` beside other readers when the lock is free for a reader now (no writer
    /// holds it or waits for it); nil, at once, otherwise.
    func withReadLockIfFree<R, E: Error>(_ body: (Value) throws(E) -> R) throws(E) -> R? {
        let result = pthread_rwlock_tryrdlock(lock)
        if result == EBUSY { return nil }
        ReadWriteLocked.check(result, "pthread_rwlock_tryrdlock")
        defer { ReadWriteLocked.check(pthread_rwlock_unlock(lock), "pthread_rwlock_unlock") }
        return try body(value)
    }

    /// Runs `body` alone when the lock is free now (no reader nor writer holds it); nil, at
    /// once, otherwise.
    func withLockIfFree<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R? {
        let result = pthread_rwlock_trywrlock(lock)
        if result == EBUSY { return nil }
        ReadWriteLocked.check(result, "pthread_rwlock_trywrlock")
        defer { ReadWriteLocked.check(pthread_rwlock_unlock(lock), "pthread_rwlock_unlock") }
        return try body(&value)
    }

    /// Stops the process when a pthread call failed: a lock that is not held cannot be
    /// trusted to protect anything.
    private static func check(_ result: Int32, _ call: StaticString) {
        if result != 0 { preconditionFailure("\(call) failed: \(errorName(result))") }
    }

    /// The symbolic name of an error number the rwlock calls return, e.g. `EDEADLK`.
    static func errorName(_ code: Int32) -> String {
        switch code {
        case EAGAIN: return "EAGAIN"
        case EBUSY: return "EBUSY"
        case EDEADLK: return "EDEADLK"
        case EINVAL: return "EINVAL"
        case ENOMEM: return "ENOMEM"
        case EPERM: return "EPERM"
        default: return "errno \(code)"
        }
    }
}

/// Readers share the value across threads, so it must be `Sendable` itself.
extension ReadWriteLocked: @unchecked Sendable where Value: Sendable {}
