/// One data field's values by slot, read out of the nodes' `data` by a `NodeDataReader`:
/// what filters search and conditions compare without reading `data` again.
///
/// Per slot: the kind (a byte), the text (a reference into a byte pool, 0 for none:
/// `missing`, `null` and `compound` values and empty strings) and, once any
/// value is a number or a string written as a JSON number (CSV columns are strings), that
/// number (8 bytes; NaN for other values). About 13 bytes a node plus the texts. The
/// forest keeps its columns up to date through every change of a node's data
/// (`Forest+FieldColumns.swift`); free slots keep stale values nobody reads.
struct FieldColumn: Sendable {
    let path: FieldPath
    let reader: any NodeDataReader
    private(set) var kinds: ContiguousArray<FieldKind> = []
    /// Offset + 1 of the text in `texts`; 0 for none.
    private(set) var textRef: ContiguousArray<UInt32> = []
    private(set) var texts = BytePool()
    /// Empty until some value is a number or a numeric string; then one entry a slot (NaN
    /// for other values).
    private(set) var numbers: ContiguousArray<Double> = []

    /// The column of `path` for every slot of `forest`, read on `workers` threads (nil: as
    /// many as `ParallelWork.workerCount` gives): each reads a range of slots into a pool of
    /// its own, and the pools are joined in order.
    /// - Complexity: O(slots + data bytes)
    init(_ path: FieldPath, reader: any NodeDataReader, of forest: Forest, workers: Int?) {
        self.path = path
        self.reader = reader
        let slots = forest.flags.count
        let parts = max(1, workers ?? ParallelWork.workerCount(items: slots))
        kinds = ContiguousArray(repeating: .missing, count: slots)
        textRef = ContiguousArray(repeating: 0, count: slots)
        var values = ContiguousArray<Double>(repeating: .nan, count: slots)
        var pools = [BytePool](repeating: BytePool(), count: parts)
        var hasNumbers = [Bool](repeating: false, count: parts)
        func range(_ part: Int) -> Range<Int> { slots * part / parts ..< slots * (part + 1) / parts }
        kinds.withUnsafeMutableBufferPointer { kinds in
        textRef.withUnsafeMutableBufferPointer { refs in
        values.withUnsafeMutableBufferPointer { values in
        pools.withUnsafeMutableBufferPointer { pools in
        hasNumbers.withUnsafeMutableBufferPointer { hasNumbers in
            ParallelWork.run(parts) { part in
                var pool = BytePool()
                var numbers = false
                for s in range(part) where !forest.flags[s].contains(.free) {
                    forest.withData(of: NodeHandle(slot: Slot(s))) { data in
                        guard let data else { return }
                        reader.read(path, in: data) { kind, text, n in
                            kinds[s] = kind
                            let number = kind.number(text, reported: n)
                            values[s] = number
                            if !number.isNaN { numbers = true }
                            if !text.isEmpty { refs[s] = pool.append(text) + 1 }
                        }
                    }
                }
                pools[part] = pool
                hasNumbers[part] = numbers
            }
        }}}}}
        texts = pools[0]
        for part in 1 ..< max(1, parts) {
            let base = texts.appendWhole(pools[part])
            textRef.withUnsafeMutableBufferPointer { refs in
                for s in range(part) where refs[s] != 0 { refs[s] &+= base }
            }
        }
        if hasNumbers.contains(true) { numbers = values }
    }

    /// Reads the value of `slot` again from its data in `forest` (after an edit of it, or
    /// for a slot new to the forest).
    /// - Complexity: O(data length), amortized O(1) growth
    mutating func read(_ slot: Slot, in forest: Forest) {
        let s = slot.index
        if s >= kinds.count {
            kinds.append(contentsOf: repeatElement(.missing, count: s + 1 - kinds.count))
            textRef.append(contentsOf: repeatElement(0, count: s + 1 - textRef.count))
            if !numbers.isEmpty { numbers.append(contentsOf: repeatElement(.nan, count: s + 1 - numbers.count)) }
        }
        if textRef[s] != 0 { texts.release(textRef[s] - 1) }
        var kind = FieldKind.missing, ref: UInt32 = 0, number = Double.nan
        forest.withData(of: NodeHandle(slot: slot)) { data in
            guard let data else { return }
            reader.read(path, in: data) { k, text, n in
                kind = k
                number = k.number(text, reported: n)
                if !text.isEmpty { ref = texts.append(text) + 1 }
            }
        }
        kinds[s] = kind
        textRef[s] = ref
        if !number.isNaN && numbers.isEmpty { numbers = ContiguousArray(repeating: .nan, count: kinds.count) }
        if !numbers.isEmpty { numbers[s] = number }
        if texts.wantsCompaction { texts.compact(refs: &textRef, biased: true, isLive: { _ in true }) }
    }

    /// The value of `slot`: its kind, its text and its number.
    @inline(__always)
    func withValue<R>(_ slot: Slot, _ body: (FieldKind, UnsafeRawBufferPointer, Double) -> R) -> R {
        let s = slot.index, ref = textRef[s], number = numbers.isEmpty ? .nan : numbers[s]
        if ref == 0 { return body(kinds[s], UnsafeRawBufferPointer(start: nil, count: 0), number) }
        return texts.withEntry(ref - 1) { body(kinds[s], $0, number) }
    }

    /// The bytes this column holds.
    var byteCount: Int { kinds.count + textRef.count * 4 + numbers.count * 8 + texts.bytes.count }
}
