/// A JSON Pointer (RFC 6901), built token by token: every path in an error is made
/// here, e.g. `/nodes/3/children/0/title`. The empty pointer names the whole document.
public struct JSONPointer: Equatable, Sendable, CustomStringConvertible {
    /// The pointer's text.
    public private(set) var text = ""

    public init() {}

    /// Appends an object member's key, escaped.
    public mutating func append(key: String) {
        text += "/"
        text += Self.escape(key)
    }

    /// Appends an array element's index.
    mutating func append(index: Int) {
        text += "/"
        text += String(index)
    }

    /// Appends every token of `suffix`.
    mutating func append(contentsOf suffix: JSONPointer) {
        text += suffix.text
    }

    /// This pointer with an array element's index appended.
    func appending(index: Int) -> JSONPointer {
        var copy = self
        copy.append(index: index)
        return copy
    }

    public var description: String { text }

    /// One reference token: `~` becomes `~0` and `/` becomes `~1`.
    static func escape(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
            return token
        }
        var result = ""
        for character in token.unicodeScalars {
            switch character {
            case "~": result += "~0"
            case "/": result += "~1"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}
