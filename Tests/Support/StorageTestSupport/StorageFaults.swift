import Glibc
import Synchronization
import TreeStorage

/// A faulty disk for tests: makes chosen system calls of a `DataDirectory` fail with an
/// errno, as a full or failing disk would, and can slow fsyncs down. Give it to
/// `DataDirectory.init`.
///
/// An injected write fault writes the first half of the bytes before failing (a short
/// write followed by the error), so the repair after a failed append is exercised too.
public final class StorageFaults: FileSystemFaults {
    /// The calls that can be made to fail.
    public typealias Operation = FileSystemCall

    struct Rule {
        var operation: Operation
        var errno: Int32
        var skip: Int
        var times: Int
        var pathContains: String
    }

    struct State {
        var rules: [Rule] = []
        var calls: [Operation: Int] = [:]
        var fsyncDelay = 0.0
        var fsyncsHeld = false
    }

    private let state = Mutex(State())

    public init() {}

    /// Makes the `nth` next call of `operation` (1: the very next) on a path containing
    /// `pathContains` fail with `errno`, and the `times - 1` such calls after it too.
    public func inject(_ operation: Operation, errno: Int32, nth: Int = 1, times: Int = 1, pathContains: String = "") {
        precondition(nth >= 1 && times >= 1)
        state.withLock { $0.rules.append(Rule(operation: operation, errno: errno, skip: nth - 1, times: times, pathContains: pathContains)) }
    }

    /// Every fsync (journal and snapshot) sleeps this long before it runs: a slow disk.
    public func setFsyncDelay(seconds: Double) {
        state.withLock { $0.fsyncDelay = seconds }
    }

    /// Every fsync from now on waits until `releaseFsyncs()`: a disk that has not answered yet.
    public func holdFsyncs() {
        state.withLock { $0.fsyncsHeld = true }
    }

    /// Lets the held fsyncs (and those after) run.
    public func releaseFsyncs() {
        state.withLock { $0.fsyncsHeld = false }
    }

    /// Forgets every rule not used up yet.
    public func clear() {
        state.withLock { $0.rules.removeAll() }
    }

    /// How many calls of `operation` were made so far (failed ones included).
    public func calls(_ operation: Operation) -> Int {
        state.withLock { $0.calls[operation, default: 0] }
    }

    /// The errno the call must fail with, if a rule says so (and counts the call).
    public func fault(_ operation: Operation, path: String) -> Int32? {
        let (error, delay): (Int32?, Double) = state.withLock { s in
            s.calls[operation, default: 0] += 1
            let delay = operation == .fsync ? s.fsyncDelay : 0
            guard let i = s.rules.firstIndex(where: {
                $0.operation == operation && ($0.pathContains.isEmpty || path.contains($0.pathContains))
            }) else { return (nil, delay) }
            if s.rules[i].skip > 0 {
                s.rules[i].skip -= 1
                return (nil, delay)
            }
            let errno = s.rules[i].errno
            s.rules[i].times -= 1
            if s.rules[i].times == 0 { s.rules.remove(at: i) }
            return (errno, delay)
        }
        if delay > 0 { usleep(UInt32(delay * 1_000_000)) }
        while operation == .fsync && state.withLock({ $0.fsyncsHeld }) { usleep(1000) }
        return error
    }
}
