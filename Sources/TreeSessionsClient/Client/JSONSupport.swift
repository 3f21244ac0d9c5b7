import Foundation

/// A member that may be absent, `null`, or a value: the type of the optional members that the
/// API also takes as `null` (`"parentId": null`, `"name": null`). As a model's member it is
/// `Nullable<T>?`: `nil` leaves the member out, `.null` writes `null`.
public enum Nullable<Wrapped: Sendable & Equatable>: Sendable, Equatable {
    case null
    case value(Wrapped)

    /// The value, nil for `null`.
    public var wrapped: Wrapped? {
        if case .value(let value) = self { return value }
        return nil
    }

    /// `.null` for nil, else the value.
    public init(_ value: Wrapped?) {
        self = value.map(Nullable.value) ?? .null
    }
}

extension Nullable: Codable where Wrapped: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self = container.decodeNil() ? .null : .value(try container.decode(Wrapped.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .value(let value): try container.encode(value)
        }
    }
}

/// A generated model of a JSON object: the member names its schema knows, requires, and fixes
/// to one value (`"op": "delete"`), which decide between the alternatives of a `oneOf`.
public protocol JSONObjectModel {
    static var requiredKeys: Set<String> { get }
    static var knownKeys: Set<String> { get }
    static var constantMembers: [String: JSONValue] { get }
}

/// Reading a `oneOf`: the value is read as JSON first; the alternative whose shape (object,
/// array, string, number) and members fit it is then decoded from the same decoder. Among
/// objects, one whose required members are present, whose fixed members have their value, and
/// which knows every member wins; failing that, the first that has what it requires (so a
/// member added to the API later does not break reading).
public enum OneOf {
    /// The JSON shapes of an alternative that is not an object.
    public enum Shape: Sendable {
        case array, string, integer, number, boolean, nodeId
    }

    /// One alternative: how well it fits a value (0: not at all, 1: it may, 2: exactly), and how
    /// to decode it into the union.
    public struct Choice<Union> {
        let fit: (JSONValue) -> Int
        let decode: (any Decoder) throws -> Union

        /// An object alternative, judged by its members.
        public init<T: JSONObjectModel & Decodable>(object type: T.Type, _ make: @escaping (T) -> Union) {
            fit = { value in
                guard case .object(let members) = value else { return 0 }
                let keys = Set(members.keys)
                guard T.requiredKeys.isSubset(of: keys) else { return 0 }
                for (name, fixed) in T.constantMembers where members[name] != fixed { return 0 }
                return keys.isSubset(of: T.knownKeys) ? 2 : 1
            }
            decode = { try make(T(from: $0)) }
        }

        /// An alternative of another shape.
        public init<T: Decodable>(_ type: T.Type, shape: Shape, _ make: @escaping (T) -> Union) {
            fit = { value in
                switch (shape, value) {
                case (.array, .array), (.string, .string), (.integer, .integer), (.number, .integer),
                     (.number, .number), (.boolean, .bool), (.nodeId, .string), (.nodeId, .integer):
                    return 2
                default:
                    return 0
                }
            }
            decode = { try make(T(from: $0)) }
        }

        /// An alternative that is itself a union: it fits when it decodes.
        public init<T: Decodable>(union type: T.Type, _ make: @escaping (T) -> Union) {
            fit = { value in
                (try? JSONValueDecoding.decode(T.self, from: value)) != nil ? 1 : 0
            }
            decode = { try make(T(from: $0)) }
        }
    }

    /// The alternative of `choices` that fits what `decoder` holds, decoded.
    public static func decode<Union>(from decoder: any Decoder, _ name: String, _ choices: [Choice<Union>]) throws -> Union {
        let value = try JSONValue(from: decoder)
        let fits = choices.map { $0.fit(value) }
        guard let best = fits.max(), best > 0, let index = fits.firstIndex(of: best) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: decoder.codingPath, debugDescription: "the value is none of the alternatives of \(name)"))
        }
        return try choices[index].decode(decoder)
    }

    /// A coding key of any name.
    public struct AnyKey: CodingKey {
        public var stringValue: String
        public var intValue: Int? { nil }
        public init(stringValue: String) { self.stringValue = stringValue }
        public init?(intValue: Int) { nil }
    }
}

/// Decoding a model from a `JSONValue` already read (a union's alternative that is itself a union).
enum JSONValueDecoding {
    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        let data = try JSONEncoderFactory.make().encode(value)
        return try JSONDecoder().decode(T.self, from: data)
    }
}

/// The encoder the client uses: no escaped slashes, keys in the models' order.
enum JSONEncoderFactory {
    static func make() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }
}

extension KeyedDecodingContainer {
    /// The member when it is present, `null` included (decoded as `T`, which reads `null`
    /// itself: `JSONValue`, `Nullable`); nil when it is absent.
    func decodePresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        contains(key) ? try decode(T.self, forKey: key) : nil
    }

    /// Checks that a member with one possible value has it.
    func expectConstant(_ expected: JSONValue, forKey key: Key) throws {
        let value = try decode(JSONValue.self, forKey: key)
        guard value == expected else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "expected \(expected), found \(value)")
        }
    }
}

extension KeyedEncodingContainer {
    /// A required member that may be `null`: written either way.
    mutating func encodeNullable<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value {
            try encode(value, forKey: key)
        } else {
            try encodeNil(forKey: key)
        }
    }
}
