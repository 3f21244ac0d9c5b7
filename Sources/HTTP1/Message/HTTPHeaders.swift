/// One header field as received or as it will be sent: the name keeps its spelling.
public struct HTTPField: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// An ordered list of header fields with case-insensitive lookup by name.
///
/// Fields keep the order and the spelling they were received or added in; repeated
/// names are kept as separate fields. Lookups compare names ASCII case-insensitively.
/// Header sections are small (tens of fields), so lookups are linear scans: cheaper
/// than maintaining an index for every request.
public struct HTTPHeaders: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [HTTPField]

    /// - Complexity: O(1)
    public init() { fields = [] }

    /// - Complexity: O(n)
    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { HTTPField(name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    public var startIndex: Int { fields.startIndex }
    public var endIndex: Int { fields.endIndex }
    public subscript(position: Int) -> HTTPField { fields[position] }

    /// The value of the first field named `name` (case-insensitive); setting replaces every
    /// field of that name with one field at the position of the first (or appends it),
    /// setting `nil` removes them all.
    /// - Complexity: O(n) in the number of fields.
    public subscript(name: String) -> String? {
        get {
            for field in fields where field.name.asciiCaseInsensitiveEquals(name) { return field.value }
            return nil
        }
        set {
            guard let newValue else {
                remove(name: name)
                return
            }
            if let first = fields.firstIndex(where: { $0.name.asciiCaseInsensitiveEquals(name) }) {
                fields[first].value = newValue
                var index = fields.index(after: first)
                while index < fields.endIndex {
                    if fields[index].name.asciiCaseInsensitiveEquals(name) {
                        fields.remove(at: index)
                    } else {
                        index += 1
                    }
                }
            } else {
                fields.append(HTTPField(name: name, value: newValue))
            }
        }
    }

    /// Every value of the fields named `name`, in order. Values are not split on commas.
    /// - Complexity: O(n)
    public func values(for name: String) -> [String] {
        fields.lazy.filter { $0.name.asciiCaseInsensitiveEquals(name) }.map(\.value)
    }

    /// Whether a field named `name` is present. - Complexity: O(n)
    public func contains(name: String) -> Bool {
        fields.contains { $0.name.asciiCaseInsensitiveEquals(name) }
    }

    /// Appends a field, keeping any existing fields of that name. - Complexity: amortized O(1)
    public mutating func add(name: String, value: String) {
        fields.append(HTTPField(name: name, value: value))
    }

    /// Removes every field named `name`. - Complexity: O(n)
    public mutating func remove(name: String) {
        fields.removeAll { $0.name.asciiCaseInsensitiveEquals(name) }
    }

    mutating func reserveCapacity(_ n: Int) { fields.reserveCapacity(n) }
    mutating func appendUnchecked(_ field: HTTPField) { fields.append(field) }
}

extension String {
    /// ASCII case-insensitive comparison, as header names and tokens require.
    /// - Complexity: O(n); O(1) when the UTF-8 lengths differ.
    @inlinable
    func asciiCaseInsensitiveEquals(_ other: String) -> Bool {
        let a = self.utf8, b = other.utf8
        guard a.count == b.count else { return false }
        return a.elementsEqual(b) { x, y in
            if x == y { return true }
            let lower = x | 0x20
            return lower == y | 0x20 && lower >= 0x61 && lower <= 0x7A
        }
    }
}
