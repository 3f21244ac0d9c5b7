import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An error the service answered: its `application/problem+json` document (RFC 9457), or, for
/// an answer that is not one (a proxy's page, a bare status), the status with the body's text
/// as `detail`. Also the model of the `Problem` schema of openapi.yaml.
///
/// `type` is `urn:treesessions:problem:<slug>` (see `slug`); every member of the document is
/// kept in `members`, those this type does not name too.
public struct Problem: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    public var type: String
    /// The reason phrase of the status.
    public var title: String
    public var status: Int
    public var detail: String
    /// A JSON Pointer into the request body ("" is the whole body), when the problem has a place.
    public var pointer: String?
    /// A byte offset into the request body.
    public var byteOffset: Int?
    /// The 1-based line of `byteOffset` (lines end at LF).
    public var line: Int?
    /// The 1-based column of `byteOffset` in its line, in bytes.
    public var column: Int?
    /// Every member of the document as it was sent.
    public var members: [String: JSONValue]
    /// The answer's `ETag` (a 412 carries the current version's).
    public var etag: String?

    public init(type: String, title: String, status: Int, detail: String, pointer: String? = nil,
                byteOffset: Int? = nil, line: Int? = nil, column: Int? = nil,
                members: [String: JSONValue] = [:], etag: String? = nil) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.pointer = pointer
        self.byteOffset = byteOffset
        self.line = line
        self.column = column
        self.members = members
        self.etag = etag
    }

    /// The last part of `type` (`version-mismatch`, `not-found`), or `type` itself when it is
    /// not a TreeSessions problem type.
    public var slug: String {
        let prefix = "urn:treesessions:problem:"
        return type.hasPrefix(prefix) ? String(type.dropFirst(prefix.count)) : type
    }

    public var description: String { "\(status) \(slug): \(detail)" }

    enum CodingKeys: String, CodingKey {
        case type, title, status, detail, pointer, byteOffset, line, column
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        title = try container.decode(String.self, forKey: .title)
        status = try container.decode(Int.self, forKey: .status)
        detail = try container.decode(String.self, forKey: .detail)
        pointer = try container.decodeIfPresent(String.self, forKey: .pointer)
        byteOffset = try container.decodeIfPresent(Int.self, forKey: .byteOffset)
        line = try container.decodeIfPresent(Int.self, forKey: .line)
        column = try container.decodeIfPresent(Int.self, forKey: .column)
        members = try JSONValue(from: decoder).objectValue ?? [:]
        etag = nil
    }

    /// Writes `members` (the document as it came), with the named members as they are now.
    public func encode(to encoder: any Encoder) throws {
        var all = members
        all["type"] = .string(type)
        all["title"] = .string(title)
        all["status"] = .integer(status)
        all["detail"] = .string(detail)
        all["pointer"] = pointer.map(JSONValue.string)
        all["byteOffset"] = byteOffset.map(JSONValue.integer)
        all["line"] = line.map(JSONValue.integer)
        all["column"] = column.map(JSONValue.integer)
        try JSONValue.object(all).encode(to: encoder)
    }

    /// The problem an answer of status `status` carries: its problem+json document when the body
    /// is one, else the status with the body's text.
    static func from(status: Int, contentType: String?, body: Data, etag: String?) -> Problem {
        let isProblem = contentType.map { $0.lowercased().hasPrefix("application/problem+json") } ?? false
        if isProblem, var problem = try? JSONDecoder().decode(Problem.self, from: body) {
            problem.etag = etag
            return problem
        }
        let reason = HTTPURLResponse.localizedString(forStatusCode: status)
        return Problem(type: "about:blank", title: reason, status: status,
                       detail: String(decoding: body, as: UTF8.self), etag: etag)
    }
}
