/// Splits a request-target (RFC 9112 §3.2) into path, decoded segments and query.
enum RequestTarget {
    struct Parts {
        var path: String
        var segments: [String]
        var query: [(name: String, value: String)]
    }

    enum Failure: Error {
        case badForm
        case badEncoding
    }

    /// - Parameter lenient: keep undecodable parts as written instead of failing
    ///   (used by ``HTTPRequest/init(method:target:headers:body:version:remoteAddress:)``).
    /// - Complexity: O(n)
    static func split(_ bytes: [UInt8], method: String, lenient: Bool = false) -> Result<Parts, Failure> {
        bytes.withUnsafeBufferPointer { split($0, method: method, lenient: lenient) }
    }

    static func split(_ t: UnsafeBufferPointer<UInt8>, method: String, lenient: Bool) -> Result<Parts, Failure> {
        let n = t.count
        guard n > 0 else { return .failure(.badForm) }
        if method == "CONNECT" {
            // authority-form: host:port, nothing else.
            for b in t where !ByteClass.isHostChar(b) { return .failure(.badForm) }
            return .success(Parts(path: "", segments: [], query: []))
        }
        if n == 1 && t[0] == UInt8(ascii: "*") {
            guard method == "OPTIONS" else { return .failure(.badForm) }
            return .success(Parts(path: "*", segments: [], query: []))
        }
        var pathStart = 0
        if t[0] != UInt8(ascii: "/") {
            // absolute-form: http[s]://authority[path][?query]
            let schemeEnd: Int
            if t.equalsLowercase(0..<min(n, 7), "http://") {
                schemeEnd = 7
            } else if t.equalsLowercase(0..<min(n, 8), "https://") {
                schemeEnd = 8
            } else {
                return .failure(.badForm)
            }
            var i = schemeEnd
            while i < n, t[i] != UInt8(ascii: "/"), t[i] != UInt8(ascii: "?") {
                guard ByteClass.isHostChar(t[i]) else { return .failure(.badForm) }
                i += 1
            }
            guard i > schemeEnd else { return .failure(.badForm) }
            pathStart = i
        }
        var queryStart = n
        for i in pathStart..<n where t[i] == UInt8(ascii: "?") {
            queryStart = i
            break
        }
        let pathRange = pathStart..<queryStart
        let path = pathRange.isEmpty ? "/" : t.string(pathRange)

        var segments: [String] = []
        if pathRange.count > 1 {
            var start = pathRange.lowerBound + 1
            var i = start
            while i <= pathRange.upperBound {
                if i == pathRange.upperBound || t[i] == UInt8(ascii: "/") {
                    let raw = UnsafeBufferPointer(rebasing: t[start..<i])
                    if let s = PercentDecoding.decode(raw, plusAsSpace: false) {
                        segments.append(s)
                    } else if lenient {
                        segments.append(String(decoding: raw, as: UTF8.self))
                    } else {
                        return .failure(.badEncoding)
                    }
                    start = i + 1
                }
                i += 1
            }
        }

        var query: [(name: String, value: String)] = []
        if queryStart < n {
            var start = queryStart + 1
            var i = start
            while i <= n {
                if i == n || t[i] == UInt8(ascii: "&") {
                    if i > start {
                        var eq = i
                        for j in start..<i where t[j] == UInt8(ascii: "=") {
                            eq = j
                            break
                        }
                        let rawName = UnsafeBufferPointer(rebasing: t[start..<eq])
                        let rawValue = UnsafeBufferPointer(rebasing: t[min(eq + 1, i)..<i])
                        let name = PercentDecoding.decode(rawName, plusAsSpace: true)
                        let value = PercentDecoding.decode(rawValue, plusAsSpace: true)
                        if let name, let value {
                            query.append((name, value))
                        } else if lenient {
                            query.append((
                                name ?? String(decoding: rawName, as: UTF8.self),
                                value ?? String(decoding: rawValue, as: UTF8.self)
                            ))
                        } else {
                            return .failure(.badEncoding)
                        }
                    }
                    start = i + 1
                }
                i += 1
            }
        }
        return .success(Parts(path: path, segments: segments, query: query))
    }

    /// `target` with the value of every `access_token` query parameter (the name as the
    /// query is decoded, so `access%5Ftoken` too) replaced by `REDACTED`, for logs: a bearer
    /// token in a URI must never be logged (RFC 6750 §5.3). The target itself when it has none.
    /// - Complexity: O(target length)
    static func redactingAccessToken(_ target: String) -> String {
        let bytes = Array(target.utf8)
        guard let question = bytes.firstIndex(of: UInt8(ascii: "?")) else { return target }
        var out = Array(bytes[...question])
        var redacted = false
        for (i, part) in bytes[(question + 1)...].split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false).enumerated() {
            if i > 0 { out.append(UInt8(ascii: "&")) }
            let name = part.prefix { $0 != UInt8(ascii: "=") }
            if PercentDecoding.decode(Array(name), plusAsSpace: true) == "access_token" {
                out.append(contentsOf: name)
                out.append(contentsOf: "=REDACTED".utf8)
                redacted = true
            } else {
                out.append(contentsOf: part)
            }
        }
        return redacted ? String(decoding: out, as: UTF8.self) : target
    }
}
