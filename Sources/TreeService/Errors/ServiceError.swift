import HTTP1
import TreeEngine
import TreeFormats

/// An error a handler throws; one place renders it as `application/problem+json`
/// (RFC 9457).
struct ServiceError: Error, Sendable {
    var status: Int
    /// A short slug, rendered as the problem `type` `urn:treesessions:problem:<slug>`.
    var slug: String
    var detail: String
    /// A JSON Pointer into the request body, or a byte offset, where it helps.
    var pointer: String? = nil
    var byteOffset: Int? = nil
    var headers: [(String, String)] = []

    static func badRequest(_ detail: String, slug: String = "bad-request") -> ServiceError {
        ServiceError(status: 400, slug: slug, detail: detail)
    }
    static func notFound(_ detail: String) -> ServiceError { ServiceError(status: 404, slug: "not-found", detail: detail) }
    static func unprocessable(_ detail: String, pointer: String? = nil) -> ServiceError {
        ServiceError(status: 422, slug: "invalid-node", detail: detail, pointer: pointer)
    }

    /// A body error from the engine's parser: syntax → 400, rule → 422, with location.
    init(_ error: TreeInputError) {
        switch error.kind {
        case .syntax:
            self.init(status: 400, slug: "malformed-json",
                      detail: "\(error.message) (line \(error.line), column \(error.column), byte \(error.byteOffset))",
                      pointer: error.path.isEmpty ? nil : error.path, byteOffset: error.byteOffset)
        case .limit:
            self.init(status: 429, slug: "too-many-nodes", detail: "\(error.message): this server's limit per session",
                      pointer: error.path, byteOffset: error.byteOffset)
        case .rule:
            self.init(status: 422, slug: "invalid-node",
                      detail: error.path.isEmpty ? error.message : "\(error.message) at \(error.path)",
                      pointer: error.path, byteOffset: error.byteOffset)
        }
    }

    init(status: Int, slug: String, detail: String, pointer: String? = nil, byteOffset: Int? = nil,
         headers: [(String, String)] = []) {
        self.status = status
        self.slug = slug
        self.detail = detail
        self.pointer = pointer
        self.byteOffset = byteOffset
        self.headers = headers
    }

    /// The problem document.
    var body: [UInt8] { Problem.render(status: status, slug: slug, detail: detail, pointer: pointer, byteOffset: byteOffset) }

    /// The response.
    func response(logTag: String?) -> HTTPResponse {
        var headers = HTTPHeaders([("Content-Type", Problem.contentType)])
        for (name, value) in self.headers { headers.add(name: name, value: value) }
        return HTTPResponse(status: status, headers: headers, body: .bytes(body), logTag: logTag)
    }
}

/// Renders problem documents; also the HTTP layer's error renderer.
enum Problem {
    static let contentType = "application/problem+json"

    static func render(status: Int, slug: String, detail: String, pointer: String? = nil, byteOffset: Int? = nil) -> [UInt8] {
        var out = JSONWriter(reservingCapacity: 256)
        out.raw("{\"type\":")
        out.string("urn:treesessions:problem:\(slug)")
        out.raw(",\"title\":")
        out.string(HTTPStatus.reasonPhrase(status))
        out.raw(",\"status\":")
        out.int(status)
        out.raw(",\"detail\":")
        out.string(detail)
        if let pointer {
            out.raw(",\"pointer\":")
            out.string(pointer)
        }
        if let byteOffset {
            out.raw(",\"byteOffset\":")
            out.int(byteOffset)
        }
        out.raw("}")
        return out.bytes
    }

    /// For `HTTPServerConfiguration.errorRenderer`: errors the HTTP layer answers itself.
    static let httpErrorRenderer: @Sendable (Int, String, String) -> (contentType: String, body: [UInt8]) = { status, _, detail in
        (contentType, render(status: status, slug: slug(forStatus: status), detail: detail))
    }

    static func slug(forStatus status: Int) -> String {
        switch status {
        case 400: return "malformed-http"
        case 408: return "request-timeout"
        case 413: return "body-too-large"
        case 414: return "uri-too-long"
        case 431: return "headers-too-large"
        case 501: return "not-implemented"
        case 503: return "unavailable"
        case 505: return "http-version-not-supported"
        default: return "http-\(status)"
        }
    }
}
