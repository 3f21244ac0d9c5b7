/// Sorts groups of siblings by `SortKeys`: each member's value of each key read once into
/// reusable buffers (a class, a number, a folded text), then the members' indexes sorted by
/// comparing those, ties by the index (the order in the tree). The values come from the
/// titles and the keys' field columns as `PooledValues` (`Forest.withPooledValues(keys.fields)`),
/// so threads read them without reference counting.
struct SiblingOrder {
    let keys: SortKeys
    /// The class of each member's value by key, then members.
    private var classes: [UInt8] = []
    private var numbers: [Double] = []
    /// Where each member's folded text starts in `texts`, by key then member, and one more.
    private var starts: [Int] = []
    private var texts: [UInt8] = []
    private var scratch: [UInt8] = []
    private var indexes: [Int32] = []
    private var permuted: [Int32] = []

    init(_ keys: SortKeys) { self.keys = keys }

    /// The classes of values, ascending; `absent` (null, or no such field) stays last in
    /// both directions.
    enum Class: UInt8 {
        case number, string, boolean, compound, absent
    }

    /// The class of a value of `kind` whose number is `number` (NaN unless it is one).
    @inline(__always)
    static func valueClass(_ kind: FieldKind, number: Double) -> Class {
        if !number.isNaN { return .number }
        switch kind {
        case .string: return .string
        case .boolean: return .boolean
        case .compound: return .compound
        case .number, .null, .missing: return .absent
        }
    }

    /// Sorts `slots` (siblings in tree order) in place.
    /// - Complexity: O(m log m) comparisons of m members, plus reading their values once
    mutating func sort(_ slots: UnsafeMutableBufferPointer<Int32>, _ values: [PooledValues]) {
        let m = slots.count
        guard m > 1 else { return }
        read(slots, values)
        // Sorted outside `self`, which the comparison reads.
        var order = indexes
        indexes = []
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: 0 ..< Int32(m))
        order.sort { a, b in
            let byKeys = compare(Int(a), Int(b), members: m)
            return byKeys != 0 ? byKeys < 0 : a < b
        }
        permuted.removeAll(keepingCapacity: true)
        for i in order { permuted.append(slots[Int(i)]) }
        for i in 0 ..< m { slots[i] = permuted[i] }
        indexes = order
    }

    /// -1, 0 or 1 as the node in `a` orders before, with or after the one in `b` by the keys
    /// alone.
    mutating func compare(_ a: Slot, _ b: Slot, _ values: [PooledValues]) -> Int {
        var pair: [Int32] = [a.rawValue, b.rawValue]
        pair.withUnsafeMutableBufferPointer { read($0, values) }
        return compare(0, 1, members: 2)
    }

    /// Whether the node in `a` comes before the one in `b` among siblings: by the keys, then
    /// by their order in the tree, whose positions by slot are `tree`.
    mutating func isBefore(_ a: Slot, _ b: Slot, _ values: [PooledValues], tree: ContiguousArray<Int32>) -> Bool {
        let byKeys = compare(a, b, values)
        return byKeys != 0 ? byKeys < 0 : tree[a.index] < tree[b.index]
    }

    /// -1, 0 or 1 as the member at `a` orders before, with or after the one at `b` by the
    /// keys alone.
    @inline(__always)
    private func compare(_ a: Int, _ b: Int, members m: Int) -> Int {
        for k in keys.keys.indices {
            let x = k * m + a, y = k * m + b
            let cx = classes[x], cy = classes[y]
            if cx != cy {
                if cx == Class.absent.rawValue { return 1 }
                if cy == Class.absent.rawValue { return -1 }
                return (cx < cy) != keys.keys[k].descending ? -1 : 1
            }
            var order = 0
            switch Class(rawValue: cx)! {
            case .number:
                order = numbers[x] < numbers[y] ? -1 : numbers[x] > numbers[y] ? 1 : 0
            case .string, .boolean:
                order = texts.withUnsafeBytes { all in
                    NaturalOrder.compare(UnsafeRawBufferPointer(rebasing: all[starts[x] ..< starts[x + 1]]),
                                         UnsafeRawBufferPointer(rebasing: all[starts[y] ..< starts[y + 1]]))
                }
            case .compound, .absent:
                order = 0
            }
            if order != 0 { return keys.keys[k].descending ? -order : order }
        }
        return 0
    }

    /// Reads every key's value of every member.
    private mutating func read(_ slots: UnsafeMutableBufferPointer<Int32>, _ values: [PooledValues]) {
        classes.removeAll(keepingCapacity: true)
        numbers.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        texts.removeAll(keepingCapacity: true)
        for field in values {
            for s in slots {
                let value = field.value(Int(s))
                let valueClass = SiblingOrder.valueClass(value.kind, number: value.number)
                classes.append(valueClass.rawValue)
                numbers.append(value.number)
                starts.append(texts.count)
                guard valueClass == .string || valueClass == .boolean, value.length > 0 else { continue }
                let text = UnsafeRawBufferPointer(rebasing: field.pool[value.start ..< value.start + value.length])
                if valueClass == .string {
                    TitleMatcher.fold(text, into: &scratch, scalarStarts: nil, caseSensitive: false, folds: nil)
                    texts.append(contentsOf: scratch)
                } else {
                    texts.append(contentsOf: text)
                }
            }
        }
        starts.append(texts.count)
    }
}

extension SortKeys {
    /// The fields the keys read, in order.
    var fields: [NodeField] { keys.map(\.field) }
}
