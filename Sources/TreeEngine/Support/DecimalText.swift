extension Int64 {
    /// Calls `body` with the decimal text of this integer (`-` and digits, at most 20
    /// bytes), written into a buffer on the stack: no allocation.
    /// - Complexity: O(1) plus `body`
    @inlinable
    public func withDecimalText<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = magnitude
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest != 0
            if self < 0 {
                start -= 1
                digits[start] = UInt8(ascii: "-")
            }
            do throws(E) {
                return .success(try body(UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: digits[start...]))))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
