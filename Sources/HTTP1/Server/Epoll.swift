#if canImport(Glibc)
import Glibc
#endif
import CTreeSystem

/// epoll and eventfd, which Glibc's Swift module leaves out (`sys/epoll.h`, `sys/eventfd.h`),
/// through the CTreeSystem C target: the functions and the real `struct epoll_event` (packed
/// on x86_64, padded elsewhere: the C compiler knows which), and the flags by name.
enum Epoll {
    static let input = ctree_epoll_in
    static let output = ctree_epoll_out
    static let error = ctree_epoll_err
    static let hangUp = ctree_epoll_hup
    static let readHangUp = ctree_epoll_rdhup
    static let edgeTriggered = ctree_epoll_et

    /// A new epoll instance (close-on-exec), or -1.
    static func create() -> Int32 { epoll_create1(ctree_epoll_cloexec) }

    /// A new non-blocking, close-on-exec eventfd counting from 0, or -1.
    static func eventFD() -> Int32 { eventfd(0, ctree_efd_nonblock | ctree_efd_cloexec) }

    /// Registers `fd` with `events`; the event's data is the fd itself.
    @discardableResult
    static func add(_ epfd: Int32, _ fd: Int32, events: UInt32) -> Int32 {
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        return epoll_ctl(epfd, ctree_epoll_ctl_add, fd, &event)
    }

    @discardableResult
    static func remove(_ epfd: Int32, _ fd: Int32) -> Int32 {
        // Linux before 2.6.9 wanted an event here even though it is ignored.
        var event = epoll_event()
        return epoll_ctl(epfd, ctree_epoll_ctl_del, fd, &event)
    }

    /// A buffer for `epoll_wait` results.
    struct Events {
        let buffer: UnsafeMutableBufferPointer<epoll_event>

        init(capacity: Int) {
            buffer = .allocate(capacity: capacity)
        }

        var capacity: Int { buffer.count }

        func deallocate() { buffer.deallocate() }

        /// The fd (the data `add` registered) and event bits of result `i`.
        @inline(__always)
        func event(_ i: Int) -> (fd: Int32, mask: UInt32) {
            let event = buffer[i]
            return (event.data.fd, event.events)
        }
    }

    /// Waits for events (at most `events.capacity`); the number stored, or -1 (`errno`).
    static func wait(_ epfd: Int32, _ events: Events, timeoutMilliseconds: Int32) -> Int32 {
        epoll_wait(epfd, events.buffer.baseAddress, Int32(events.capacity), timeoutMilliseconds)
    }
}
