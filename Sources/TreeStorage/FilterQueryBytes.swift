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
/// UTF-8.
public enum FilterQueryBytes {
    /// The option bit that says the fields and conditions follow.
    public static let flag: UInt8 = 8

    /// Whether `query` needs them written (it is not a title-only query).
    public static func isNeeded(_ query: FilterQuery) -> Bool { !query.isTitleOnly }

    /// The bytes of `query`'s fields and conditions.
    public static func bytes(of query: FilterQuery) -> [UInt8] {
        var out: [UInt8] = []
        func varint(_ value: Int) {
            var v = UInt(value)
            while v >= 0x80 { out.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
            out.append(UInt8(v))
        }
        func text(_ s: String) { varint(s.utf8.count); out.append(contentsOf: s.utf8) }
        func field(_ f: NodeField) {
            switch f {
            case .title: out.append(0)
            case .data(let path):
                out.append(1)
                varint(path.members.count)
                path.members.forEach(text)
            }
        }
        varint(query.fields.count)
        query.fields.forEach(field)
        varint(query.conditions.count)
        for c in query.conditions {
            field(c.field)
            out.append(UInt8(FieldCondition.Comparison.allCases.firstIndex(of: c.comparison)!))
            switch c.operand {
            case .null: out.append(0)
            case .boolean(let b): out.append(b ? 2 : 1)
            case .number(let n):
                out.append(3)
                withUnsafeBytes(of: n.bitPattern.littleEndian) { out.append(contentsOf: $0) }
            case .string(let s):
                out.append(4)
                text(s)
            }
        }
        return out
    }

    /// The fields and conditions at `o` in `bytes`, moving `o` past them; nil when they are
    /// malformed (a bad count, kind or text, or past the end).
    public static func read(_ bytes: UnsafeRawBufferPointer, at o: inout Int) -> (fields: [NodeField], conditions: [FieldCondition])? {
        func byte() -> UInt8? {
            guard o < bytes.count else { return nil }
            defer { o += 1 }
            return bytes[o]
        }
        func varint() -> Int? {
            var value = 0, shift = 0
            while let b = byte() {
                guard shift < 63 else { return nil }
                value |= Int(b & 0x7F) << shift
                if b & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }
        func text() -> String? {
            guard let n = varint(), n <= bytes.count - o else { return nil }
            defer { o += n }
            return String(validating: UnsafeRawBufferPointer(rebasing: bytes[o ..< o + n]), as: UTF8.self)
        }
        func field() -> NodeField? {
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
        guard let fieldCount = varint(), fieldCount >= 1, fieldCount <= bytes.count - o else { return nil }
        var fields: [NodeField] = []
        for _ in 0 ..< fieldCount {
            guard let f = field() else { return nil }
            fields.append(f)
        }
        guard let conditionCount = varint(), conditionCount <= bytes.count - o else { return nil }
        var conditions: [FieldCondition] = []
        for _ in 0 ..< conditionCount {
            guard let f = field(), let c = byte(), Int(c) < FieldCondition.Comparison.allCases.count, let kind = byte() else { return nil }
            let operand: FieldCondition.Operand
            switch kind {
            case 0: operand = .null
            case 1, 2: operand = .boolean(kind == 2)
            case 3:
                guard bytes.count - o >= 8 else { return nil }
                var bits: UInt64 = 0
                for k in 0 ..< 8 { bits |= UInt64(bytes[o + k]) << UInt64(8 * k) }
                o += 8
                operand = .number(Double(bitPattern: bits))
            case 4:
                guard let s = text() else { return nil }
                operand = .string(s)
            default: return nil
            }
            conditions.append(FieldCondition(f, FieldCondition.Comparison.allCases[Int(c)], operand))
        }
        return (fields, conditions)
    }
}
