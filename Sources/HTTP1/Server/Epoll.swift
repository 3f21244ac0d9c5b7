#if canImport(Glibc)
import Glibc
#endif

/// epoll and eventfd, which Glibc's Swift module map leaves out (`sys/epoll.h`,
/// `sys/eventfd.h`). The functions are looked up once with `dlsym` and called through
/// `@convention(c)` pointers, so no C target is needed; `struct epoll_event` is handled
/// as raw bytes because it is packed on x86_64 (12 bytes) and padded elsewhere (16).
enum Epoll {
    static let input: UInt32 = 0x001
    static let output: UInt32 = 0x004
    static let error: UInt32 = 0x008
    static let hangUp: UInt32 = 0x010
    static let readHangUp: UInt32 = 0x2000
    static let edgeTriggered: UInt32 = 1 << 31

    static let ctlAdd: Int32 = 1
    static let ctlDel: Int32 = 2
    static let closeOnExec: Int32 = 0o2000000  // EPOLL_CLOEXEC == EFD_CLOEXEC == O_CLOEXEC
    static let eventFDNonBlocking: Int32 = 0o4000  // EFD_NONBLOCK == O_NONBLOCK

    #if arch(x86_64)
    static let eventSize = 12
    static let dataOffset = 4
    #else
    static let eventSize = 16
    static let dataOffset = 8
    #endif

    private typealias CreateFn = @convention(c) (Int32) -> Int32
    private typealias CtlFn = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    private typealias WaitFn = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32
    private typealias EventFDFn = @convention(c) (UInt32, Int32) -> Int32

    private static func symbol<T>(_ name: String, as type: T.Type) -> T {
        guard let handle = dlopen(nil, RTLD_NOW), let pointer = dlsym(handle, name) else {
            fatalError("\(name) not found in libc")
        }
        return unsafeBitCast(pointer, to: type)
    }

    private static let createFn = symbol("epoll_create1", as: CreateFn.self)
    private static let ctlFn = symbol("epoll_ctl", as: CtlFn.self)
    private static let waitFn = symbol("epoll_wait", as: WaitFn.self)
    private static let eventFDFn = symbol("eventfd", as: EventFDFn.self)

    static func create() -> Int32 { createFn(closeOnExec) }

    static func eventFD() -> Int32 { eventFDFn(0, eventFDNonBlocking | closeOnExec) }

    /// Registers `fd` with `events`; the event's data is the fd itself.
    @discardableResult
    static func add(_ epfd: Int32, _ fd: Int32, events: UInt32) -> Int32 {
        var raw: (UInt64, UInt64) = (0, 0)
        return withUnsafeMutableBytes(of: &raw) { p in
            p.storeBytes(of: events, toByteOffset: 0, as: UInt32.self)
            p.storeBytes(of: Int64(fd), toByteOffset: dataOffset, as: Int64.self)
            return ctlFn(epfd, ctlAdd, fd, p.baseAddress)
        }
    }

    @discardableResult
    static func remove(_ epfd: Int32, _ fd: Int32) -> Int32 {
        var raw: (UInt64, UInt64) = (0, 0)
        return withUnsafeMutableBytes(of: &raw) { ctlFn(epfd, ctlDel, fd, $0.baseAddress) }
    }

    /// A buffer for `epoll_wait` results.
    struct Events {
        let buffer: UnsafeMutableRawBufferPointer
        let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            buffer = .allocate(byteCount: capacity * Epoll.eventSize, alignment: 8)
        }

        func deallocate() { buffer.deallocate() }

        @inline(__always)
        func event(_ i: Int) -> (fd: Int32, mask: UInt32) {
            let base = i * Epoll.eventSize
            let mask = buffer.loadUnaligned(fromByteOffset: base, as: UInt32.self)
            let data = buffer.loadUnaligned(fromByteOffset: base + Epoll.dataOffset, as: Int64.self)
            return (Int32(truncatingIfNeeded: data), mask)
        }
    }

    static func wait(_ epfd: Int32, _ events: Events, timeoutMilliseconds: Int32) -> Int32 {
        waitFn(epfd, events.buffer.baseAddress, Int32(events.capacity), timeoutMilliseconds)
    }
}
