/// A small JSON document held in memory: request bodies such as `{"expanded": true}`
/// and the members of an upload object other than `nodes`.
///
/// Numbers keep their text exactly as written (`1.50` stays `1.50`), objects keep their
/// members in order. Two values are equal when they have the same structure, the same
/// number texts, and the same object members in the same order.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number's text, valid per RFC 8259 (e.g. `-12`, `0.5`, `1e3`).
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in document order; keys are unique when parsed.
    case object(JSONMembers)

    /// Structural equality; object members compared pairwise in order.
    ///
    /// - Complexity: O(size of the smaller value).
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null):
            return true
        case let (.bool(a), .bool(b)):
            return a == b
        case let (.number(a), .number(b)):
            return a == b
        case let (.string(a), .string(b)):
            return a == b
        case let (.array(a), .array(b)):
            return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default:
            return false
        }
    }

    // MARK: Accessors

    /// The value of a number whose value is an integer that fits `Int`, however it is
    /// written (`2`, `2.0`, `2e0`, `-0.0` is 0); nil for a fraction (`2.5`), an integer
    /// out of range (`1e300`), or anything that is not a valid JSON number.
    ///
    /// - Complexity: O(length of the number text).
    public var intValue: Int? {
        guard case .number(let text) = self else { return nil }
        var utf8 = Array(text.utf8)
        return utf8.withUnsafeMutableBytes { buffer -> Int? in
            var scanner = JSONScanner(UnsafeRawBufferPointer(buffer))
            guard !scanner.atEnd, let token = try? scanner.scanNumber(), scanner.atEnd,
                  case .integer(let value) = scanner.integralValue(token) else { return nil }
            return Int(exactly: value)
        }
    }

    /// The number as a `Double` (nearest value); nil when not a number.
    ///
    /// - Complexity: O(length of the number text).
    public var doubleValue: Double? {
        guard case .number(let text) = self else { return nil }
        return Double(text)
    }

    /// The flag of a `bool`; nil otherwise. O(1), like `stringValue` and `isNull`.
    public var boolValue: Bool? {
        guard case .bool(let flag) = self else { return nil }
        return flag
    }

    /// The text of a `string`; nil otherwise.
    public var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// True for `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value of the first member named `key` of an object; nil when absent or not an object.
    ///
    /// - Complexity: O(number of members).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first(where: { $0.key == key })?.value
    }

    // MARK: Serializing

    /// The value as compact JSON text, UTF-8.
    ///
    /// - Complexity: O(size of the output).
    public func serialize() -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 64)
        writer.value(self)
        return writer.bytes
    }

    // MARK: Parsing

    /// Parses one JSON document (a value, optionally surrounded by whitespace).
    ///
    /// Iterative: nesting is limited by `maxDepth`, never by the thread's stack.
    /// Duplicate keys in an object are a `.rule` error.
    ///
    /// - Throws: `TreeInputError` (`.syntax` for malformed JSON, `.rule` for duplicate
    ///   keys or nesting deeper than `maxDepth`).
    /// - Complexity: O(n) in the document size.
    public static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 512) throws(TreeInputError) -> JSONValue {
        var scanner = JSONScanner(bytes)
        var scratch: [UInt8] = []
        do throws(JSONScanError) {
            scanner.skipWhitespace()
            if scanner.atEnd { throw .syntax("empty document", at: scanner.pos) }
            let value = try parseValue(&scanner, maxDepth: maxDepth, scratch: &scratch)
            scanner.skipWhitespace()
            if !scanner.atEnd { throw scanner.unexpected("unexpected data after the document") }
            return value
        } catch {
            if error.kind != .syntax,
               let syntax = JSONScanner.firstSyntaxError(in: bytes, maxDepth: maxDepth) {
                throw syntax
            }
            throw TreeInputError(kind: error.kind, message: error.message, byteOffset: error.offset,
                                 path: error.path ?? JSONPointer(), in: bytes)
        }
    }

    /// Parses one JSON document from any collection of bytes.
    ///
    /// - Complexity: O(n) in the document size.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 512) throws(TreeInputError) -> JSONValue {
        let result: Result<JSONValue, TreeInputError>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(TreeInputError) in try parse(UnsafeRawBufferPointer(buffer), maxDepth: maxDepth) }
        }
        if let result {
            return try result.get()
        }
        let copy = Array(bytes)
        let copied = copy.withUnsafeBytes { buffer in
            Result { () throws(TreeInputError) in try parse(buffer, maxDepth: maxDepth) }
        }
        return try copied.get()
    }

    /// Parses a JSON document given as a string.
    ///
    /// - Complexity: O(n) in the document size.
    public static func parse(_ text: String, maxDepth: Int = 512) throws(TreeInputError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }

    /// An array or object being built.
    private struct Container {
        var isObject: Bool
        var elements: [JSONValue] = []
        var members: JSONMembers = []
        /// The key of the member whose value is being read.
        var key: String?
        /// The error is at a separator: the path names the container itself.
        var atSeparator = false
        /// Keys seen, once the object is large enough for linear search to hurt.
        var keyIndex: Set<String>?

        mutating func hasKey(_ key: String) -> Bool {
            if keyIndex == nil {
                if members.count < 16 {
                    return members.contains(where: { $0.key == key })
                }
                keyIndex = Set(members.map(\.key))
            }
            return keyIndex!.contains(key)
        }

        mutating func add(_ value: JSONValue) {
            if isObject {
                let key = self.key!
                members.append((key: key, value: value))
                keyIndex?.insert(key)
                self.key = nil
            } else {
                elements.append(value)
            }
        }

        var value: JSONValue {
            isObject ? .object(members) : .array(elements)
        }
    }

    /// Builds one value starting at `scanner.pos` (whitespace skipped), without
    /// recursion; leaves `pos` after it. On error, `JSONScanError.path` names the place
    /// below the value.
    static func parseValue(_ scanner: inout JSONScanner, maxDepth: Int, scratch: inout [UInt8]) throws(JSONScanError) -> JSONValue {
        var stack: [Container] = []
        do throws(JSONScanError) {
            value: while true {
                var value: JSONValue
                switch scanner.current {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    let isObject = scanner.current == UInt8(ascii: "{")
                    guard stack.count < maxDepth else {
                        throw .rule("nesting is deeper than the maximum depth of \(maxDepth)", at: scanner.pos)
                    }
                    scanner.pos += 1
                    scanner.skipWhitespace()
                    if scanner.current == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        scanner.pos += 1
                        value = isObject ? .object([]) : .array([])
                        break
                    }
                    stack.append(Container(isObject: isObject))
                    if isObject {
                        try readKey(&scanner, into: &stack[stack.count - 1], scratch: &scratch)
                    }
                    continue value
                case UInt8(ascii: "\""):
                    let token = try scanner.scanString()
                    value = .string(scanner.string(token, scratch: &scratch))
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    let token = try scanner.scanNumber()
                    value = .number(String(decoding: scanner.slice(token.start, token.end), as: UTF8.self))
                case UInt8(ascii: "t"):
                    try scanner.scanLiteral("true")
                    value = .bool(true)
                case UInt8(ascii: "f"):
                    try scanner.scanLiteral("false")
                    value = .bool(false)
                case UInt8(ascii: "n"):
                    try scanner.scanLiteral("null")
                    value = .null
                default:
                    throw scanner.unexpected("expected a value")
                }
                // After a complete value: add it to its container, close containers.
                while let top = stack.indices.last {
                    stack[top].add(value)
                    scanner.skipWhitespace()
                    let isObject = stack[top].isObject
                    switch scanner.current {
                    case UInt8(ascii: ","):
                        scanner.pos += 1
                        scanner.skipWhitespace()
                        if isObject {
                            try readKey(&scanner, into: &stack[top], scratch: &scratch)
                        }
                        continue value
                    case UInt8(ascii: "}") where isObject, UInt8(ascii: "]") where !isObject:
                        scanner.pos += 1
                        value = stack.removeLast().value
                    default:
                        // A separator error names the container, not its last element.
                        stack[top].atSeparator = true
                        throw scanner.unexpected(isObject
                            ? "expected ',' or '}' after object member"
                            : "expected ',' or ']' after array element")
                    }
                }
                return value
            }
        } catch {
            var error = error
            error.path = path(of: stack)
            throw error
        }
    }

    /// Reads `"key" :` into `container`, `pos` on the opening quote.
    private static func readKey(_ scanner: inout JSONScanner, into container: inout Container, scratch: inout [UInt8]) throws(JSONScanError) {
        let token = try scanner.scanMemberName()
        let key = scanner.string(token, scratch: &scratch)
        if container.hasKey(key) {
            container.key = key
            throw .rule("duplicate key \"\(key)\"", at: token.start - 1)
        }
        container.key = key
        try scanner.scanNameSeparator()
    }

    private static func path(of stack: [Container]) -> JSONPointer {
        var path = JSONPointer()
        for container in stack {
            if container.atSeparator {
                break
            }
            if container.isObject {
                if let key = container.key {
                    path.append(key: key)
                }
            } else {
                path.append(index: container.elements.count)
            }
        }
        return path
    }
}

/// The members of a JSON object in document order, keys decoded: a request body's
/// members, or an upload's top-level members other than `nodes`.
public typealias JSONMembers = [(key: String, value: JSONValue)]
