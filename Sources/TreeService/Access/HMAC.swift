/// HMAC-SHA256 (RFC 2104), and the comparison of two MACs in constant time.
enum HMAC {
    /// The MAC of `message` under `key`.
    static func sha256(key: some Collection<UInt8>, _ message: some Sequence<UInt8>) -> [UInt8] {
        var block = key.count > SHA256.blockSize ? SHA256.hash(key) : Array(key)
        block += repeatElement(0, count: SHA256.blockSize - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(inner.finish())
        return outer.finish()
    }

    /// Whether `a` and `b` are equal, in a time that depends on their lengths only.
    static func equal(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
