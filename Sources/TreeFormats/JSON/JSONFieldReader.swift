import TreeEngine

/// Reads a data field out of a node's `data` JSON, without building the document: what
/// the engine's field columns hold for filters that search or compare data fields.
///
/// The path's members are looked up object by object (the first member of a name wins);
/// anything else on the way (not an object, a member absent) makes the field `missing`,
/// as does data that is not valid JSON.
public struct JSONFieldReader: NodeDataReader {
    public init() {}

    public func read(_ path: FieldPath, in data: UnsafeRawBufferPointer,
                     _ body: (FieldKind, UnsafeRawBufferPointer, Double) -> Void) {
        var scanner = JSONScanner(data)
        var name: [UInt8] = []
        var skipped = ContiguousArray<JSONScanner.ValueFrame>()
        do throws(JSONScanError) {
            scanner.skipWhitespace()
            for member in path.members {
                guard try find(member, &scanner, &name, &skipped) else { return body(.missing, UnsafeRawBufferPointer(start: nil, count: 0), 0) }
            }
            let empty = UnsafeRawBufferPointer(start: nil, count: 0)
            switch scanner.current {
            case UInt8(ascii: "\""):
                let token = try scanner.scanString()
                if token.hasEscapes {
                    scanner.decode(token, into: &name)
                    name.withUnsafeBytes { body(.string, $0, 0) }
                } else {
                    body(.string, scanner.slice(token.start, token.end), 0)
                }
            case UInt8(ascii: "-"), UInt8(ascii: "0") ... UInt8(ascii: "9"):
                let token = try scanner.scanNumber()
                let text = scanner.slice(token.start, token.end)
                let value = token.isInteger ? scanner.int64(token).map(Double.init) : nil
                body(.number, text, value ?? Double(String(decoding: text, as: UTF8.self)) ?? 0)
            case UInt8(ascii: "n"):
                body(.null, empty, 0)
            case UInt8(ascii: "t"), UInt8(ascii: "f"):
                let start = scanner.pos
                guard scanner.scanBool() != nil else { return body(.missing, empty, 0) }
                body(.boolean, scanner.slice(start, scanner.pos), 0)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                body(.compound, empty, 0)
            default:
                body(.missing, empty, 0)
            }
        } catch {
            body(.missing, UnsafeRawBufferPointer(start: nil, count: 0), 0)
        }
    }

    /// Moves `scanner` from an object's `{` onto the value of its first member named
    /// `member`; false when the value there is not an object or has no such member.
    private func find(_ member: String, _ scanner: inout JSONScanner, _ name: inout [UInt8],
                      _ skipped: inout ContiguousArray<JSONScanner.ValueFrame>) throws(JSONScanError) -> Bool {
        guard scanner.current == UInt8(ascii: "{") else { return false }
        scanner.pos &+= 1
        scanner.skipWhitespace()
        if scanner.current == UInt8(ascii: "}") { return false }
        while true {
            let token = try scanner.scanMemberName()
            try scanner.scanNameSeparator()
            let isWanted: Bool
            if token.hasEscapes {
                scanner.decode(token, into: &name)
                isWanted = name.elementsEqual(member.utf8)
            } else {
                isWanted = scanner.slice(token.start, token.end).elementsEqual(member.utf8)
            }
            if isWanted { return true }
            try scanner.skipValue(stack: &skipped, maxDepth: 512)
            scanner.skipWhitespace()
            guard scanner.current == UInt8(ascii: ",") else { return false }
            scanner.pos &+= 1
            scanner.skipWhitespace()
        }
    }
}
