extension ContiguousArray {
    /// The address of the array's elements: an array that is changed in place keeps it,
    /// a copy (made when the buffer was shared) gets another.
    var storageAddress: UInt { withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }
}
