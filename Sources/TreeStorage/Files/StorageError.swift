import Glibc

/// How hard the journal is pushed to the disk before a change counts as durable.
public enum FsyncMode: String, Sendable, CaseIterable {
    /// Every `waitDurable` runs its own `fdatasync` of the journal.
    case always
    /// Group commit: a `waitDurable` waits for the next `fdatasync` that covers its record;
    /// the callers waiting during one fsync share the next one.
    case batch
    /// `waitDurable` returns at once; the kernel writes the journal when it likes.
    case off
}

/// A failed system call on the data directory: which one, on which path, and its errno.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The errno of the failed call (`ENOSPC`, `EIO`, ...), or 0 for an error that is not
    /// a system call's (a snapshot writer that threw, see `operation`).
    public var errno: Int32
    /// What was done: "open", "write", "fsync", "rename", "truncate", "lock", ...
    public var operation: String
    /// The file or directory.
    public var path: String

    public init(errno: Int32, operation: String, path: String) {
        self.errno = errno
        self.operation = operation
        self.path = path
    }

    /// The disk refuses to keep what it is given: full (`ENOSPC`), over quota (`EDQUOT`),
    /// failing (`EIO`), mounted read-only (`EROFS`), or the file would grow past what the file
    /// system allows (`EFBIG`). The service answers such a change with 507. `ENOMEM`,
    /// `EMFILE`, `EACCES` and the rest are not: they say nothing about the disk (500).
    public var isDiskFailure: Bool {
        switch errno {
        case ENOSPC, EDQUOT, EIO, EROFS, EFBIG: return true
        default: return false
        }
    }

    public var description: String {
        guard errno != 0 else { return "\(operation) \(path)" }
        return "\(operation) \(path): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// Why a stored session could not be opened.
public enum RecoveryError: Error, Sendable, CustomStringConvertible {
    /// The snapshot cannot be used (the reason): move the files to quarantine. `open` does
    /// not throw it (the generation is in the file name, the bytes are checked by
    /// `StoreImage.load`); it is here for the service to report its own decision.
    case badSnapshot(String)
    /// Journal files without any snapshot: the records cannot be replayed onto anything.
    /// Move the files to quarantine.
    case missingSnapshot
    /// The directory held neither a snapshot nor a journal: a `create` that did not finish
    /// (its upload was never acknowledged). The directory has been removed; forget the id.
    case incomplete
    /// The directory holds no snapshot or journal, but other files (`names`, the first few)
    /// that this server did not write: not a session. It is left as it is.
    case notASession(names: [String])
    /// A system call failed (the directory is left as it was, apart from repairs done).
    case io(StorageError)

    public var description: String {
        switch self {
        case .badSnapshot(let why): return "bad snapshot: \(why)"
        case .missingSnapshot: return "journal without a snapshot"
        case .incomplete: return "an unfinished create (no snapshot, no journal): removed"
        case .notASession(let names): return "not a session (no snapshot or journal; it holds \(names.joined(separator: ", "))): left as it is"
        case .io(let error): return error.description
        }
    }
}
