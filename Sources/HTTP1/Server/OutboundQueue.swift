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

    /// Sends as much as the socket takes, up to ``gatherLimit`` arrays per `sendmsg` (a
    /// chunk's size line, its bytes and its CRLF go out in one system call). Returns the
    /// outcome and the bytes sent.
    /// - Complexity: one `sendmsg` per ``gatherLimit`` arrays (or partial array) sent.
    mutating func send(to fd: Int32) -> (SendResult, sent: Int) {
        var sent = 0
        while head < chunks.count {
            let end = min(chunks.count, head + Self.gatherLimit)
            var remaining = 0
            for i in head..<end { remaining += chunks[i].count }
            remaining -= headOffset
            let n = withUnsafeTemporaryAllocation(of: iovec.self, capacity: end - head) { iov in
                gather(from: head, to: end, into: iov) {
                    var message = msghdr()
                    message.msg_iov = iov.baseAddress
                    message.msg_iovlen = end - head
                    return sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
                }
            }
            if n < 0 {
                let e = errno
                if e == EINTR { continue }
                if e == EAGAIN || e == EWOULDBLOCK { return (.wouldBlock, sent) }
                return (.failed(e), sent)
            }
            sent += n
            count -= n
            consume(n)
            if n < remaining { return (.wouldBlock, sent) }
        }
        // Idle connections keep no array: a stream may wait hours between pieces.
        chunks = []
        head = 0
        return (.drained, sent)
    }

    /// Arrays per `sendmsg`.
    static let gatherLimit = 16

    /// Points `iov` at the unsent bytes of `chunks[index..<end]` (each array pinned by its
    /// own `withUnsafeBytes`, nested), then runs `body` while they are.
    private func gather(from index: Int, to end: Int, into iov: UnsafeMutableBufferPointer<iovec>,
                        _ body: () -> Int) -> Int {
        guard index < end else { return body() }
        return chunks[index].withUnsafeBytes { raw in
            let offset = index == head ? headOffset : 0
            iov[index - head] = iovec(iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress! + offset),
                                      iov_len: raw.count - offset)
            return gather(from: index + 1, to: end, into: iov, body)
        }
    }

    /// Drops `n` sent bytes from the front.
    private mutating func consume(_ n: Int) {
        var n = n
        while n > 0 {
            let left = chunks[head].count - headOffset
            if n < left {
                headOffset += n
                return
            }
            n -= left
            chunks[head] = []
            head += 1
            headOffset = 0
        }
    }
}
