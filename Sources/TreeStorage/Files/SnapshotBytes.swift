import Glibc

/// A snapshot file's bytes, mapped read-only (no copy: a load reads the page cache
/// directly), or read into memory when the file cannot be mapped (empty, or `mmap` fails).
/// Unmapped when the last reference goes.
public final class SnapshotBytes: @unchecked Sendable {
    private let base: UnsafeRawPointer?
    /// The number of bytes.
    public let count: Int
    private let copy: [UInt8]?

    /// Maps the file open at `fd` (`count` bytes long), or reads it.
    init(fd: Int32, count: Int, path: String, fs: FileSystem) throws(StorageError) {
        self.count = count
        if count > 0, let mapped = mmap(nil, count, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0), mapped != MAP_FAILED {
            base = UnsafeRawPointer(mapped)
            copy = nil
        } else {
            base = nil
            copy = try fs.read(fd, count: count, path: path)
        }
    }

    deinit {
        if let base { munmap(UnsafeMutableRawPointer(mutating: base), count) }
    }

    /// Calls `body` with the bytes (valid only during the call).
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        if let base { return try body(UnsafeRawBufferPointer(start: base, count: count)) }
        let result: Result<R, E> = copy!.withUnsafeBytes { raw in Result { () throws(E) -> R in try body(raw) } }
        return try result.get()
    }

    /// A copy of the bytes.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }
}
