extension ContiguousArray where Element: BitwiseCopyable {
    /// An array of `count` elements that `initialize` writes, in two halves on two threads
    /// when the array is large: `initialize(part, start)` must initialize every element of
    /// `part`, which holds the elements from index `start` on.
    ///
    /// Filling a fresh array of hundreds of megabytes is mostly the kernel providing its
    /// pages on first touch, not the writing (on this project's virtual machines a fresh
    /// page costs as much as copying a few that are already there): two processors halve it.
    /// - Complexity: O(count), on two threads from `parallelFillBytes` bytes
    static func filled(count: Int, _ initialize: (_ part: UnsafeMutableBufferPointer<Element>, _ start: Int) -> Void) -> ContiguousArray {
        ContiguousArray(unsafeUninitializedCapacity: count) { buffer, initialized in
            let halves = count * MemoryLayout<Element>.stride >= parallelFillBytes && ParallelWork.activeProcessors > 1 ? 2 : 1
            ParallelWork.run(halves) { half in
                let start = count * half / halves
                initialize(UnsafeMutableBufferPointer(rebasing: buffer[start ..< count * (half + 1) / halves]), start)
            }
            initialized = count
        }
    }

    /// `count` copies of `value`, written as `filled(count:_:)` does.
    static func filled(with value: Element, count: Int) -> ContiguousArray {
        filled(count: count) { part, _ in part.initialize(repeating: value) }
    }
}

/// From this size on `ContiguousArray.filled(count:_:)` fills on two threads.
let parallelFillBytes = 8 << 20
