/// The JSON type of a leaf that `JSONLeaves.forEach` reports.
public enum JSONLeafKind: Int, CaseIterable, Sendable {
    case string, number, boolean, null, array, object
}

/// The leaves of a JSON document with their member paths, read without building the
/// document: what `GET /sessions/{sid}/fields` counts in each node's `data`.
public enum JSONLeaves {
    /// Calls `body` with each leaf of the JSON document `bytes` and its path: `prefix`, then
    /// for each object member entered `.` and the member's name, with `.` and `\` in it
    /// escaped by `\` (so that every path names one member). Objects are entered at most
    /// `maxDepth` members deep and only when not empty; an array, an empty object and an
    /// object deeper than that are leaves (of type `array` and `object`).
    /// - Throws: `TreeInputError` when `bytes` is not one JSON value.
    /// - Complexity: O(bytes + the paths' lengths)
    public static func forEach(in bytes: UnsafeRawBufferPointer, prefix: String, maxDepth: Int,
                               _ body: (_ path: UnsafeRawBufferPointer, JSONLeafKind) -> Void) throws(TreeInputError) {
        var scanner = JSONScanner(bytes)
        var path = Array(prefix.utf8)
        var name: [UInt8] = []
        // Per object entered: the length of the path before its members' names.
        var objects: [Int] = []
        var skipped = ContiguousArray<JSONScanner.ValueFrame>()
        func leaf(_ kind: JSONLeafKind) { path.withUnsafeBytes { body($0, kind) } }
        /// Reads `"name" :` and adds the name to the path.
        func member() throws(JSONScanError) {
            let token = try scanner.scanMemberName()
            try scanner.scanNameSeparator()
            path.append(UInt8(ascii: "."))
            func append(_ bytes: some Sequence<UInt8>) {
                for byte in bytes {
                    if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "\\") { path.append(UInt8(ascii: "\\")) }
                    path.append(byte)
                }
            }
            if token.hasEscapes {
                scanner.decode(token, into: &name)
                append(name)
            } else {
                append(scanner.slice(token.start, token.end))
            }
        }
        do throws(JSONScanError) {
            scanner.skipWhitespace()
            value: while true {
                switch scanner.current {
                case UInt8(ascii: "{") where objects.count < maxDepth:
                    scanner.pos &+= 1
                    scanner.skipWhitespace()
                    if scanner.current == UInt8(ascii: "}") {
                        scanner.pos &+= 1
                        leaf(.object)
                    } else {
                        objects.append(path.count)
                        try member()
                        continue value
                    }
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    let isObject = scanner.current == UInt8(ascii: "{")
                    try scanner.skipValue(stack: &skipped, maxDepth: 512)
                    leaf(isObject ? .object : .array)
                case UInt8(ascii: "\""):
                    _ = try scanner.scanString()
                    leaf(.string)
                case UInt8(ascii: "-"), UInt8(ascii: "0") ... UInt8(ascii: "9"):
                    _ = try scanner.scanNumber()
                    leaf(.number)
                case UInt8(ascii: "n"):
                    try scanner.scanLiteral("null")
                    leaf(.null)
                default:
                    guard scanner.scanBool() != nil else { throw scanner.unexpected("expected a value") }
                    leaf(.boolean)
                }
                // After a value: the next member of the objects it ends, or their ends.
                while let start = objects.last {
                    path.removeSubrange(start...)
                    scanner.skipWhitespace()
                    if scanner.current == UInt8(ascii: ",") {
                        scanner.pos &+= 1
                        scanner.skipWhitespace()
                        try member()
                        continue value
                    }
                    guard scanner.current == UInt8(ascii: "}") else { throw scanner.unexpected("expected ',' or '}' after object member") }
                    scanner.pos &+= 1
                    objects.removeLast()
                }
                break
            }
            scanner.skipWhitespace()
            if !scanner.atEnd { throw scanner.unexpected("unexpected data after the document") }
        } catch {
            throw TreeInputError(kind: error.kind, message: error.message, byteOffset: error.offset,
                                 path: error.path ?? JSONPointer(), in: bytes)
        }
    }
}
