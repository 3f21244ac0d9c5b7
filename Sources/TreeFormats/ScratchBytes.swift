/// A growable byte buffer a reader rewrites for every node (an id or title being composed):
/// appends and truncations without the copy-on-write checks of an array, which cost more
/// than the bytes themselves when each node writes a few.
final class ScratchBytes {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 256) {
        self.capacity = max(16, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    @inline(__always)
    func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        base[count] = byte
        count &+= 1
    }

    @inline(__always)
    func append(_ bytes: UnsafeRawBufferPointer) {
        if count &+ bytes.count > capacity { grow(to: count + bytes.count) }
        if let source = bytes.baseAddress { (base + count).initialize(from: source.assumingMemoryBound(to: UInt8.self), count: bytes.count) }
        count &+= bytes.count
    }

    @inline(__always)
    func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `value` (not negative) in decimal.
    @inline(__always)
    func appendDecimal(_ value: Int) {
        precondition(value >= 0)
        if count &+ 20 > capacity { grow(to: count + 20) }
        let start = count
        var rest = value
        repeat {
            base[count] = UInt8(truncatingIfNeeded: 0x30 &+ rest % 10)
            count &+= 1
            rest /= 10
        } while rest > 0
        var digits = UnsafeMutableBufferPointer(start: base + start, count: count &- start)
        digits.reverse()
    }

    /// Keeps the first `length` bytes.
    @inline(__always)
    func truncate(to length: Int) {
        precondition(length <= count)
        count = length
    }

    private func grow(to minimum: Int) {
        var newCapacity = capacity * 2
        while newCapacity < minimum { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }
}
