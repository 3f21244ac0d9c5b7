import Foundation
import Glibc
import Testing
import TreeEngine
@testable import TreeStorage

/// A fresh directory under the system's temporary directory, removed after `body`.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    var template = Array((NSTemporaryDirectory() + "tree-storage-test-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    guard made != nil else { throw StorageError(errno: errno, operation: "mkdtemp", path: "") }
    let path = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
    defer { try? FileSystem(faults: nil).removeTree(path) }
    return try body(path)
}

/// The whole of a file.
func fileBytes(_ path: String) throws -> [UInt8] {
    try FileSystem(faults: nil).read(path)
}

func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    let fs = FileSystem(faults: nil)
    let fd = try fs.open(path, O_WRONLY | O_CREAT | O_TRUNC)
    defer { fs.close(fd) }
    try fs.write(fd, bytes, at: 0, path: path)
}

func fileSize(_ path: String) -> Int? { FileSystem(faults: nil).size(path) }
func fileExists(_ path: String) -> Bool { FileSystem(faults: nil).exists(path) }
func listDirectory(_ path: String) throws -> [String] { try FileSystem(faults: nil).list(path) }

/// A session's "state" for the storage tests: the versions applied, kept in the image's
/// caller block (the snapshot) and extended by the journal's records (each record's payload
/// names its version). Replaying a `StoredSession` gives the versions in order.
enum Versions {
    static func image(_ versions: [UInt64]) -> [UInt8] {
        var caller: [UInt8] = []
        for v in versions { caller.appendLE(v) }
        return StoreImage.image(of: TreeStore(forest: Forest()), caller: caller)
    }

    static func payload(_ version: UInt64) -> [UInt8] { Array("change \(version)".utf8) }

    /// The versions in the snapshot, then those of the records.
    static func replay(_ stored: StoredSession) throws -> [UInt64] {
        let caller = try stored.snapshot.withUnsafeBytes { raw throws in try StoreImage.load(raw).caller }
        var versions = stride(from: 0, to: caller.count, by: 8).map { i in
            caller[i ..< i + 8].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        }
        for r in stored.records {
            #expect(r.payload == payload(r.version))
            versions.append(r.version)
        }
        return versions
    }

    /// A sink writer for `create` and `finishCompaction`.
    static func writer(_ versions: [UInt64]) -> (_ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Void {
        let bytes = image(versions)
        return { sink in
            // In two chunks, as a real image comes in several.
            try bytes.withUnsafeBytes { raw in
                try sink(UnsafeRawBufferPointer(rebasing: raw[..<(raw.count / 2)]))
                try sink(UnsafeRawBufferPointer(rebasing: raw[(raw.count / 2)...]))
            }
        }
    }
}

extension SessionFiles {
    /// Appends the record of `version` (test shorthand).
    @discardableResult
    func append(_ version: UInt64) throws(StorageError) -> JournalPosition {
        try append(version: version, payload: Versions.payload(version))
    }
}

/// Runs `body(i)` for i in 0 ..< count, each on its own thread, and waits for all.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for i in 0 ..< count {
        group.enter()
        Thread.detachNewThread {
            body(i)
            group.leave()
        }
    }
    group.wait()
}

/// The error `body` throws, nil if it returns.
func failure<E: Error>(of body: () throws(E) -> Void) -> E? {
    do {
        try body()
        return nil
    } catch {
        return error
    }
}

extension RecoveryError {
    var isMissingSnapshot: Bool { if case .missingSnapshot = self { return true } else { return false } }
    var isIncomplete: Bool { if case .incomplete = self { return true } else { return false } }
}
