import Synchronization

/// Writes a streamed response body. Handed to the closure of ``HTTPBody/stream(_:)``,
/// which runs on a worker thread.
///
/// Small writes are gathered into pieces of about 32 KiB, each sent as one chunk, so
/// writing many small arrays costs one copy each, not a syscall each. The connection
/// never queues much more than ``HTTPServerConfiguration/outputHighWaterMark``: past it,
/// `write` blocks until the client has read enough.
public final class HTTPBodyWriter: Sendable {
    private let channel: ConnectionChannel
    private let chunked: Bool
    private let pending = Mutex<[UInt8]>([])
    private let written = Atomic<Int>(0)
    static let gatherSize = 32 * 1024

    init(channel: ConnectionChannel, chunked: Bool) {
        self.channel = channel
        self.chunked = chunked
    }

    /// Body bytes written so far (without chunk framing).
    public var bytesWritten: Int { written.load(ordering: .relaxed) }

    /// Appends bytes to the body. Blocks while the client is slow; throws once the client
    /// is gone or stalled past the write timeout (then stop producing).
    /// - Complexity: O(bytes.count) copying for small writes, plus a send whenever 32 KiB
    ///   have gathered; a write of 1 MiB or more is queued without copying.
    public func write(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        written.add(bytes.count, ordering: .relaxed)
        let full: [UInt8]? = pending.withLock { p in
            if p.isEmpty && bytes.count >= Self.gatherSize { return bytes }
            p.append(contentsOf: bytes)
            guard p.count >= Self.gatherSize else { return nil }
            defer { p = [] }
            return p
        }
        if let full { try send(full) }
    }

    /// Appends the UTF-8 bytes of `string`.
    public func write(_ string: String) throws {
        try write(Array(string.utf8))
    }

    /// Sends what has gathered, without waiting to fill a piece.
    public func flush() throws {
        let rest = pending.withLock { p in
            defer { p = [] }
            return p
        }
        if !rest.isEmpty { try send(rest) }
    }

    func finish() throws {
        try flush()
        if chunked { try channel.enqueue(Array("0\r\n\r\n".utf8), blocking: false) }
    }

    private func send(_ data: [UInt8]) throws {
        if chunked && data.count >= 1 << 20 {
            // Large pieces are queued as they are, between their framing, not copied.
            var prefix: [UInt8] = []
            ResponseHead.appendChunkSize(data.count, to: &prefix)
            try channel.enqueue(prefix, blocking: false)
            try channel.enqueue(data, blocking: false)
            try channel.enqueue([ByteClass.cr, ByteClass.lf], blocking: true)
        } else if chunked {
            var framed: [UInt8] = []
            framed.reserveCapacity(data.count + 20)
            ResponseHead.appendChunkSize(data.count, to: &framed)
            framed.append(contentsOf: data)
            framed.append(ByteClass.cr)
            framed.append(ByteClass.lf)
            try channel.enqueue(framed, blocking: true)
        } else {
            try channel.enqueue(data, blocking: true)
        }
    }
}

/// The client went away (or stopped reading for longer than the write timeout).
public struct HTTPConnectionClosedError: Error, Sendable {}
