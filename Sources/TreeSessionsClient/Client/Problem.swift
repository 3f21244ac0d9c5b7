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
    /// The answer's `Retry-After` in seconds (a 429 or 503 may carry one), from a number of
    /// seconds or an HTTP date.
    public var retryAfter: Int?

    public init(type: String, title: String, status: Int, detail: String, pointer: String? = nil,
                byteOffset: Int? = nil, line: Int? = nil, column: Int? = nil,
                members: [String: JSONValue] = [:], etag: String? = nil, retryAfter: Int? = nil) {
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
        self.retryAfter = retryAfter
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
        retryAfter = nil
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
    static func from(status: Int, contentType: String?, body: Data, etag: String?, retryAfter: String? = nil) -> Problem {
        let isProblem = contentType.map { $0.lowercased().hasPrefix("application/problem+json") } ?? false
        if isProblem, var problem = try? JSONDecoder().decode(Problem.self, from: body) {
            problem.etag = etag
            problem.retryAfter = seconds(retryAfter: retryAfter)
            return problem
        }
        let reason = HTTPURLResponse.localizedString(forStatusCode: status)
        return Problem(type: "about:blank", title: reason, status: status,
                       detail: String(decoding: body, as: UTF8.self), etag: etag, retryAfter: seconds(retryAfter: retryAfter))
    }

    /// The seconds a `Retry-After` value asks for: a number of seconds, or the time until an
    /// HTTP date (0 when it is past); nil when there is none or it is neither.
    static func seconds(retryAfter value: String?, now: Date = Date()) -> Int? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.allSatisfy({ $0.isASCII && $0.isNumber }) { return Int(value) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, Int(date.timeIntervalSince(now).rounded(.up)))
    }
}
