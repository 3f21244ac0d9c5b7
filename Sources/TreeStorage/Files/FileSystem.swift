import Glibc

/// The system calls of the storage layer, each turned into a thrown `StorageError`, with
/// EINTR retried and the test faults applied. Paths are absolute or relative to the
/// working directory; nothing here keeps state.
struct FileSystem: Sendable {
    let faults: (any FileSystemFaults)?

    private func fault(_ operation: FileSystemCall, _ path: String) throws(StorageError) {
        if let faults, let errno = faults.fault(operation, path: path) {
            throw StorageError(errno: errno, operation: operation.rawValue, path: path)
        }
    }

    static func error(_ operation: String, _ path: String) -> StorageError {
        StorageError(errno: Glibc.errno, operation: operation, path: path)
    }

    func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(StorageError) -> Int32 {
        try fault(.open, path)
        while true {
            let fd = Glibc.open(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if Glibc.errno != EINTR { throw Self.error("open", path) }
        }
    }

    func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// Writes all of `bytes` at `offset` (short writes continued); on an error some prefix
    /// may have been written.
    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int, path: String) throws(StorageError) {
        var done = 0
        if let faults, let errno = faults.fault(.write, path: path) {
            // A short write, then the error.
            let half = bytes.count / 2
            if half > 0 { _ = pwrite(fd, bytes.baseAddress!, half, off_t(offset)) }
            throw StorageError(errno: errno, operation: "write", path: path)
        }
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if n > 0 {
                done += n
            } else if n == 0 {
                throw StorageError(errno: EIO, operation: "write (no progress)", path: path)
            } else if Glibc.errno != EINTR {
                throw Self.error("write", path)
            }
        }
    }

    /// Writes all of `bytes` at `offset`.
    func write(_ fd: Int32, _ bytes: [UInt8], at offset: Int, path: String) throws(StorageError) {
        var failure: StorageError?
        bytes.withUnsafeBytes { raw in
            do throws(StorageError) {
                try write(fd, raw, at: offset, path: path)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// `fdatasync` (or `fsync` when `metadata`, as a directory or a new file's size needs).
    func sync(_ fd: Int32, path: String, metadata: Bool = false) throws(StorageError) {
        try fault(.fsync, path)
        while (metadata ? fsync(fd) : fdatasync(fd)) != 0 {
            if Glibc.errno != EINTR { throw Self.error("fsync", path) }
        }
    }

    /// Makes the names in a directory durable (after a create, rename or delete in it).
    func syncDirectory(_ path: String) throws(StorageError) {
        let fd = try open(path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        try sync(fd, path: path, metadata: true)
    }

    func truncate(_ fd: Int32, to length: Int, path: String) throws(StorageError) {
        try fault(.truncate, path)
        while ftruncate(fd, off_t(length)) != 0 {
            if Glibc.errno != EINTR { throw Self.error("truncate", path) }
        }
    }

    func rename(_ from: String, _ to: String) throws(StorageError) {
        try fault(.rename, from)
        if Glibc.rename(from, to) != 0 { throw StorageError(errno: Glibc.errno, operation: "rename to \(to)", path: from) }
    }

    /// Removes a file; a file already gone is no error.
    func unlink(_ path: String) throws(StorageError) {
        try fault(.unlink, path)
        if Glibc.unlink(path) != 0 && Glibc.errno != ENOENT { throw Self.error("unlink", path) }
    }

    /// Creates a directory; with `existingOK`, one already there is no error.
    func makeDirectory(_ path: String, existingOK: Bool) throws(StorageError) {
        if mkdir(path, 0o755) != 0 {
            let e = Glibc.errno
            if e == EEXIST && existingOK && isDirectory(path) { return }
            throw StorageError(errno: e, operation: "mkdir", path: path)
        }
    }

    func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    /// The size of an open file.
    func size(_ fd: Int32, path: String) throws(StorageError) -> Int {
        var st = stat()
        if fstat(fd, &st) != 0 { throw Self.error("stat", path) }
        return Int(st.st_size)
    }

    /// The size of a file, nil if it cannot be read.
    func size(_ path: String) -> Int? {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : nil
    }

    /// The names in a directory, "." and ".." left out, sorted.
    func list(_ path: String) throws(StorageError) -> [String] {
        guard let dir = opendir(path) else { throw Self.error("opendir", path) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Removes a directory and everything in it (no symbolic link is followed).
    func removeTree(_ path: String) throws(StorageError) {
        var st = stat()
        guard lstat(path, &st) == 0 else {
            if Glibc.errno == ENOENT { return }
            throw Self.error("stat", path)
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            for name in try list(path) { try removeTree(path + "/" + name) }
            if rmdir(path) != 0 && Glibc.errno != ENOENT { throw Self.error("rmdir", path) }
        } else {
            try unlink(path)
        }
    }

    /// The whole file.
    func read(_ path: String) throws(StorageError) -> [UInt8] {
        let fd = try open(path, O_RDONLY)
        defer { close(fd) }
        return try read(fd, count: try size(fd, path: path), path: path)
    }

    /// `count` bytes from the start of an open file (fewer if it is shorter).
    func read(_ fd: Int32, count: Int, path: String) throws(StorageError) -> [UInt8] {
        var failure: StorageError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var done = 0
            while done < count {
                let n = pread(fd, buffer.baseAddress! + done, count - done, off_t(done))
                if n > 0 {
                    done += n
                } else if n == 0 {
                    break
                } else if Glibc.errno != EINTR {
                    failure = Self.error("read", path)
                    break
                }
            }
            initialized = done
        }
        if let failure { throw failure }
        return bytes
    }
}
