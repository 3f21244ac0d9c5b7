#if canImport(Glibc)
import Glibc
#endif

/// Bytes queued for a socket, as the arrays they were produced in (no copying into one
/// buffer), with partial sends tracked by an offset into the first array.
struct OutboundQueue {
    private var chunks: [[UInt8]] = []
    private var head = 0
    private var headOffset = 0
    /// Bytes queued and not yet sent. - Complexity: O(1)
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// - Complexity: amortized O(1)
    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        chunks.append(bytes)
        count += bytes.count
    }

    mutating func removeAll() {
        chunks.removeAll()
        head = 0
        headOffset = 0
        count = 0
    }

    enum SendResult: Equatable {
        /// Everything queued was sent.
        case drained
        /// The socket buffer is full; wait for writability.
        case wouldBlock
        /// The peer is gone (EPIPE, ECONNRESET, ...).
        case failed(Int32)
    }

    /// Sends as much as the socket takes. Returns the outcome and the bytes sent.
    /// - Complexity: one `send` per chunk (or partial chunk) sent.
    mutating func send(to fd: Int32) -> (SendResult, sent: Int) {
        var sent = 0
        while head < chunks.count {
            let remaining = chunks[head].count - headOffset
            let n = chunks[head].withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress! + headOffset, remaining, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                let e = errno
                if e == EINTR { continue }
                if e == EAGAIN || e == EWOULDBLOCK { return (.wouldBlock, sent) }
                return (.failed(e), sent)
            }
            sent += n
            count -= n
            if n == remaining {
                chunks[head] = []
                head += 1
                headOffset = 0
            } else {
                headOffset += n
                return (.wouldBlock, sent)
            }
        }
        chunks.removeAll(keepingCapacity: true)
        head = 0
        return (.drained, sent)
    }
}
