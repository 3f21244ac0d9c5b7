import TreeEngine

/// The bytes of a filter's fields and conditions, for the snapshot image and the journal:
/// what a query has beyond its text, mode and option bits. Option bit 3 (`flag`) says
/// that they follow the options byte.
///
/// Layout (counts and lengths as LEB128): the field count, then each field; the condition
/// count, then each condition: its field, the comparison's index in
/// `FieldCondition.Comparison.allCases`, the operand's kind (0 null, 1 false, 2 true,
/// 3 a number as 8 bytes of IEEE 754 binary64, little-endian, 4 a string: its length and
/// UTF-8). A field is 0 for the title, or 1, the member count and each member's length and
/// UTF-8. A sort (`bytes(of: SortKeys)`) is written with the same fields.
public enum FilterQueryBytes {
    /// The option bit that says the fields and conditions follow.
    public static let flag: UInt8 = 8

    /// Whether `query` needs them written (it is not a title-only query).
    public static func isNeeded(_ query: FilterQuery) -> Bool { !query.isTitleOnly }

    /// The bytes of `query`'s fields and conditions.
    public static func bytes(of query: FilterQuery) -> [UInt8] {
        var out = Writer()
        out.varint(query.fields.count)
        query.fields.forEach { out.field($0) }
        out.varint(query.conditions.count)
        for c in query.conditions {
            out.field(c.field)
            out.bytes.append(UInt8(FieldCondition.Comparison.allCases.firstIndex(of: c.comparison)!))
            switch c.operand {
            case .null: out.bytes.append(0)
            case .boolean(let b): out.bytes.append(b ? 2 : 1)
            case .number(let n):
                out.bytes.append(3)
                withUnsafeBytes(of: n.bitPattern.littleEndian) { out.bytes.append(contentsOf: $0) }
            case .string(let s):
                out.bytes.append(4)
                out.text(s)
            }
        }
        return out.bytes
    }

    /// The fields and conditions at `o` in `bytes`, moving `o` past them; nil when they are
    /// malformed (a bad count, kind or text, or past the end).
    public static func read(_ bytes: UnsafeRawBufferPointer, at o: inout Int) -> (fields: [NodeField], conditions: [FieldCondition])? {
        var r = Reader(bytes: bytes, o: o)
        defer { o = r.o }
        guard let fieldCount = r.varint(), fieldCount >= 1, fieldCount <= bytes.count - r.o else { return nil }
        var fields: [NodeField] = []
        for _ in 0 ..< fieldCount {
            guard let f = r.field() else { return nil }
            fields.append(f)
        }
        guard let conditionCount = r.varint(), conditionCount <= bytes.count - r.o else { return nil }
        var conditions: [FieldCondition] = []
        for _ in 0 ..< conditionCount {
            guard let f = r.field(), let c = r.byte(), Int(c) < FieldCondition.Comparison.allCases.count, let kind = r.byte() else { return nil }
            let operand: FieldCondition.Operand
            switch kind {
            case 0: operand = .null
            case 1, 2: operand = .boolean(kind == 2)
            case 3:
                guard bytes.count - r.o >= 8 else { return nil }
                var bits: UInt64 = 0
                for k in 0 ..< 8 { bits |= UInt64(bytes[r.o + k]) << UInt64(8 * k) }
                r.o += 8
                operand = .number(Double(bitPattern: bits))
            case 4:
                guard let s = r.text() else { return nil }
                operand = .string(s)
            default: return nil
            }
            conditions.append(FieldCondition(f, FieldCondition.Comparison.allCases[Int(c)], operand))
        }
        return (fields, conditions)
    }

    /// The bytes of a sort (issue 37): the key count, then each key's direction (0 ascending,
    /// 1 descending) and its field.
    public static func bytes(of sort: SortKeys) -> [UInt8] {
        var out = Writer()
        out.varint(sort.keys.count)
        for key in sort.keys {
            out.bytes.append(key.descending ? 1 : 0)
            out.field(key.field)
        }
        return out.bytes
    }

    /// The sort at `o` in `bytes`, moving `o` past it; nil when it is malformed.
    public static func readSort(_ bytes: UnsafeRawBufferPointer, at o: inout Int) -> SortKeys? {
        var r = Reader(bytes: bytes, o: o)
        defer { o = r.o }
        guard let count = r.varint(), count >= 1, count <= bytes.count - r.o else { return nil }
        var keys: [SortKeys.Key] = []
        for _ in 0 ..< count {
            guard let direction = r.byte(), direction <= 1, let field = r.field() else { return nil }
            keys.append(SortKeys.Key(field, descending: direction == 1))
        }
        return SortKeys(keys)
    }

    private struct Writer {
        var bytes: [UInt8] = []

        mutating func varint(_ value: Int) {
            var v = UInt(value)
            while v >= 0x80 { bytes.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
            bytes.append(UInt8(v))
        }

        mutating func text(_ s: String) { varint(s.utf8.count); bytes.append(contentsOf: s.utf8) }

        mutating func field(_ f: NodeField) {
            switch f {
            case .title: bytes.append(0)
            case .data(let path):
                bytes.append(1)
                varint(path.members.count)
                path.members.forEach { text($0) }
            }
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var o: Int

        mutating func byte() -> UInt8? {
            guard o < bytes.count else { return nil }
            defer { o += 1 }
            return bytes[o]
        }

        mutating func varint() -> Int? {
            var value = 0, shift = 0
            while let b = byte() {
                guard shift < 63 else { return nil }
                value |= Int(b & 0x7F) << shift
                if b & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }

        mutating func text() -> String? {
            guard let n = varint(), n <= bytes.count - o else { return nil }
            defer { o += n }
            return String(validating: UnsafeRawBufferPointer(rebasing: bytes[o ..< o + n]), as: UTF8.self)
        }

        mutating func field() -> NodeField? {
            switch byte() {
            case 0?: return .title
            case 1?:
                guard let count = varint(), count >= 1, count <= bytes.count - o else { return nil }
                var members: [String] = []
                for _ in 0 ..< count {
                    guard let m = text() else { return nil }
                    members.append(m)
                }
                return .data(FieldPath(members))
            default: return nil
            }
        }
    }
}
