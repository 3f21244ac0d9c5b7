/// The forest's field columns: kept for the data fields that kept filters name, made
/// when first needed, read again wherever a node's data changes or a slot gets a node.
extension Forest {
    /// Makes the columns of `paths` that are missing, reading data with `reader` on
    /// `workers` threads (nil: as many as the forest's size calls for).
    /// - Complexity: O(slots + data bytes) per column made
    mutating func addFieldColumns(_ paths: some Sequence<FieldPath>, reader: any NodeDataReader, workers: Int?) {
        for path in paths where fieldColumns[path] == nil {
            fieldColumns[path] = FieldColumn(path, reader: reader, of: self, workers: workers)
        }
    }

    /// Drops the columns whose paths are not in `kept`.
    mutating func dropFieldColumns(keeping kept: Set<FieldPath>) {
        fieldColumns = fieldColumns.filter { kept.contains($0.key) }
    }

    /// Reads the values of `slots` again into every column.
    /// - Complexity: O(columns · data bytes of `slots`)
    mutating func readFields(of slots: some Sequence<Slot>) {
        guard !fieldColumns.isEmpty else { return }
        // No second reference to the dictionary (not even its keys, while they are walked):
        // else changing a column would copy it whole.
        var columns = fieldColumns
        fieldColumns = [:]
        for path in Array(columns.keys) {
            for slot in slots { columns[path]!.read(slot, in: self) }
        }
        fieldColumns = columns
    }

    /// Calls `body` with the value of `field` for the node in `slot` (its kind, text and
    /// number, NaN unless a number or a numeric string): the title is a string (its number
    /// NaN: titles never compare as numbers); a data field is read from its column, or where it
    /// has none with `reader` from the node's data (without a reader: missing).
    @inline(__always)
    func withField<R>(_ field: NodeField, of slot: Slot, reader: (any NodeDataReader)?,
                      _ body: (FieldKind, UnsafeRawBufferPointer, Double) -> R) -> R {
        switch field {
        case .title:
            return withTitle(of: NodeHandle(slot: slot)) { body(.string, $0, .nan) }
        case .data(let path):
            if let column = fieldColumns[path] { return column.withValue(slot, body) }
            var kind = FieldKind.missing, number = Double.nan, text: [UInt8] = []
            withData(of: NodeHandle(slot: slot)) { data in
                guard let data, let reader else { return }
                reader.read(path, in: data) { k, t, n in
                    kind = k
                    text = Array(t)
                    number = k.number(t, reported: n)
                }
            }
            return text.withUnsafeBytes { body(kind, $0, number) }
        }
    }
}

/// A field's values by slot as pointers into the forest (its titles, or a column): what
/// a filter build reads on many threads without touching reference counts.
struct PooledValues: @unchecked Sendable {
    /// Nil for titles (every title is a string).
    let kinds: UnsafeBufferPointer<FieldKind>?
    /// Titles: offsets into `pool`; a column: offset + 1, 0 for no text.
    let refs: UnsafeBufferPointer<UInt32>
    let pool: UnsafeRawBufferPointer
    /// Empty when no value is a number or a numeric string.
    let numbers: UnsafeBufferPointer<Double>

    /// The kind of the value in `slot`, where its text lies in `pool` (length -1: none),
    /// and its number.
    @inline(__always)
    func value(_ s: Int) -> (kind: FieldKind, start: Int, length: Int, number: Double) {
        guard let kinds else {
            let (start, length) = BytePool.bounds(in: pool, at: refs[s])
            return (.string, start, length, .nan)
        }
        let ref = refs[s], number = numbers.isEmpty ? .nan : numbers[s]
        if ref == 0 { return (kinds[s], 0, 0, number) }
        let (start, length) = BytePool.bounds(in: pool, at: ref - 1)
        return (kinds[s], start, length, number)
    }
}

extension Forest {
    /// Calls `body` with the values of each of `fields` (their columns must exist).
    func withPooledValues<R>(_ fields: [NodeField], _ body: ([PooledValues]) -> R) -> R {
        var values: [PooledValues] = []
        func next(_ i: Int) -> R {
            if i == fields.count { return body(values) }
            switch fields[i] {
            case .title:
                return titleRef.withUnsafeBufferPointer { refs in
                    titles.bytes.withUnsafeBytes { pool in
                        values.append(PooledValues(kinds: nil, refs: refs, pool: pool, numbers: UnsafeBufferPointer(start: nil, count: 0)))
                        return next(i + 1)
                    }
                }
            case .data(let path):
                let column = fieldColumns[path]!
                return column.kinds.withUnsafeBufferPointer { kinds in
                    column.textRef.withUnsafeBufferPointer { refs in
                        column.texts.bytes.withUnsafeBytes { pool in
                            column.numbers.withUnsafeBufferPointer { numbers in
                                values.append(PooledValues(kinds: kinds, refs: refs, pool: pool, numbers: numbers))
                                return next(i + 1)
                            }
                        }
                    }
                }
            }
        }
        return next(0)
    }
}
