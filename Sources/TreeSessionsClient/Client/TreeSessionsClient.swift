import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The TreeSessions HTTP API as `async` calls: one method per operation, typed bodies and
/// answers (the models of openapi.yaml), errors as `Problem`.
///
/// A client is a base URL, an optional bearer token (sent as `Authorization: Bearer` on every
/// request, event streams included) and a `URLSession`. It holds no other state and is
/// `Sendable`: share one between tasks. Routes that exist for the default view and for views
/// take `view: ViewId?` (nil: the default view; else `/sessions/{sid}/views/{vid}/…`).
///
/// Conditional requests: `ifMatch` (edits, deletions; `ETag.version(n)` writes `"n"`) answers
/// 412 `version-mismatch` as a `Problem` when the version moved; `ifNoneMatch` (reads) throws
/// `NotModified` on 304.
public final class TreeSessionsClient: Sendable {
    /// Where the server is, e.g. `http://127.0.0.1:8080` (a path prefix is kept).
    public let baseURL: URL
    /// The bearer token sent with every request; nil sends none (an open server).
    public let token: String?
    /// The session every request goes through; event streams make their own with its configuration.
    public let urlSession: URLSession

    public init(baseURL: URL, token: String? = nil, urlSession: URLSession = .shared) {
        self.baseURL = baseURL
        self.token = token
        self.urlSession = urlSession
    }

    /// The same server with another token (say, a session token minted with this one).
    public func withToken(_ token: String?) -> TreeSessionsClient {
        TreeSessionsClient(baseURL: baseURL, token: token, urlSession: urlSession)
    }
}

/// `If-None-Match` named the current version: the answer was 304, without a body.
public struct NotModified: Error, Sendable, Equatable {
    /// The current version's `ETag`.
    public var etag: String?
}

/// Entity tags as the service writes them.
public enum ETag {
    /// `"7"`: the strong tag of version 7, for `If-Match` and `If-None-Match`.
    public static func version(_ version: Int) -> String { "\"\(version)\"" }

    /// The version an `ETag` header names (`"7"` → 7; `"7-csv"` → 7), nil when it names none.
    public static func version(of tag: String) -> Int? {
        let inner = tag.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        return Int(inner.prefix { $0.isNumber })
    }
}

// MARK: Requests

extension TreeSessionsClient {
    /// A request to the API: a method, the path's segments (percent-encoded here), a query.
    struct Call: Sendable {
        var method: String
        var path: [String]
        var query: [(String, String)] = []
        var body: Data? = nil
        var contentType: String? = nil
        var headers: [(String, String)] = []
    }

    /// What came back: a 2xx or 304 (every other status is thrown as a `Problem`).
    struct Answer: Sendable {
        var status: Int
        var body: Data
        var etag: String?
        var headers: [String: String]
    }

    /// `/sessions/{sid}` or `/sessions/{sid}/views/{vid}`, then `rest`.
    static func viewPath(_ session: String, _ view: ViewId?, _ rest: String...) -> [String] {
        var path = ["sessions", session]
        if let view { path += ["views", view] }
        return path + rest
    }

    /// The characters a path segment or query value keeps as they are (RFC 3986's unreserved):
    /// everything else (`/`, `+`, `%`, spaces, non-ASCII) is percent-encoded.
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    func urlRequest(_ call: Call) throws -> URLRequest {
        var text = baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += "/" + call.path.map(Self.encode).joined(separator: "/")
        if !call.query.isEmpty {
            text += "?" + call.query.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        }
        guard let url = URL(string: text) else {
            throw Problem(type: "about:blank", title: "Bad URL", status: 0, detail: "not a URL: \(text)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = call.method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body = call.body {
            request.httpBody = body
            request.setValue(call.contentType ?? "application/json", forHTTPHeaderField: "Content-Type")
        }
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in call.headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    /// Sends `call`; a status other than 2xx and 304 throws its `Problem`.
    func send(_ call: Call) async throws -> Answer {
        let request = try urlRequest(call)
        let (data, response) = try await urlSession.data(for: request)
        guard let http = response as? HTTPURLResponse else {
            throw Problem(type: "about:blank", title: "No HTTP response", status: 0, detail: "\(response)")
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        let etag = headers["etag"]
        if http.statusCode == 304 { throw NotModified(etag: etag) }
        guard (200..<300).contains(http.statusCode) else {
            throw Problem.from(status: http.statusCode, contentType: headers["content-type"], body: data, etag: etag,
                               retryAfter: headers["retry-after"])
        }
        return Answer(status: http.statusCode, body: data, etag: etag, headers: headers)
    }

    /// Sends `call` and decodes its JSON answer.
    func json<T: Decodable>(_ type: T.Type, _ call: Call) async throws -> T {
        let answer = try await send(call)
        do {
            return try JSONDecoder().decode(T.self, from: answer.body)
        } catch {
            throw Problem(type: "about:blank", title: "Undecodable answer", status: answer.status,
                          detail: "\(call.method) /\(call.path.joined(separator: "/")): \(error)")
        }
    }

    /// A call with a JSON body.
    static func body<T: Encodable>(_ method: String, _ path: [String], _ value: T) throws -> Call {
        Call(method: method, path: path, body: try JSONEncoderFactory.make().encode(value), contentType: "application/json")
    }
}

extension TreeSessionsClient.Call {
    /// Adds `If-Match` / `If-None-Match` when given.
    func conditions(ifMatch: String? = nil, ifNoneMatch: String? = nil) -> Self {
        var call = self
        if let ifMatch { call.headers.append(("If-Match", ifMatch)) }
        if let ifNoneMatch { call.headers.append(("If-None-Match", ifNoneMatch)) }
        return call
    }

    /// Adds query parameters; nil values are left out.
    func query(_ items: [(String, String?)]) -> Self {
        var call = self
        for (name, value) in items { if let value { call.query.append((name, value)) } }
        return call
    }

    func filter(_ filter: RowFilter) -> Self { query(filter.queryItems) }
}
