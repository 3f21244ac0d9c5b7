/// The system calls of the storage layer that can be made to fail.
public enum FileSystemCall: String, Sendable, CaseIterable {
    case open, write, fsync, rename, truncate, unlink
}

/// Asked before each system call a `DataDirectory` makes, whether the call fails: the seam
/// through which tests play a full or failing disk (`StorageFaults`, in the tests' support).
/// A data directory made without one makes every call.
public protocol FileSystemFaults: Sendable {
    /// The errno `call` on `path` fails with, or nil when it is made. Called before the
    /// call, on the thread that makes it: may sleep to play a slow disk. A failed write
    /// writes half of its bytes first (a short write, then the error).
    func fault(_ call: FileSystemCall, path: String) -> Int32?
}
