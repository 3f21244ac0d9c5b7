import HTTP1
import TreeFormats

/// Which form of a tree a request sends (`Content-Type`) or wants back (`Accept`); the
/// query parameter `format` names it outright and wins over both, for clients that cannot
/// set headers (a plain `curl --data-binary`, a download link).
extension TreeFormat {
    /// The names `format` takes, with the media type of each.
    static let names: [(name: String, mediaType: String)] = [
        ("nodes", "application/json"), ("document", "application/json"), ("csv", "text/csv"),
        ("ndjson", "application/x-ndjson"), ("paths", "text/plain"),
    ]

    /// The media type a body of this format is labelled with.
    var mediaType: String {
        switch self {
        case .nodes, .document: "application/json"
        case .csv: "text/csv; charset=utf-8"
        case .ndjson: "application/x-ndjson"
        case .paths: "text/plain; charset=utf-8"
        }
    }

    /// The media types an upload may be declared with, for `Accept-Post`.
    static let uploadMediaTypes = "application/json, text/csv, text/tab-separated-values, application/x-ndjson, text/plain"

    /// The format a media type (without parameters, lower case) stands for: JSON is the
    /// nested upload format; NDJSON also goes by `application/ndjson` and `application/jsonl`.
    static func named(mediaType type: String, separator: String) -> TreeFormat? {
        switch type {
        case "application/json": .nodes
        case "text/csv": .csv(CSVDialect())
        case "text/tab-separated-values": .csv(CSVDialect(delimiter: 0x09))
        case "application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines": .ndjson
        case "text/plain": .paths(separator: separator)
        default: type.hasPrefix("application/") && type.hasSuffix("+json") ? .nodes : nil
        }
    }

    /// The format `format=name` stands for.
    static func named(_ name: String, separator: String) -> TreeFormat? {
        switch name {
        case "nodes": .nodes
        case "document": .document
        case "csv": .csv(CSVDialect())
        case "ndjson": .ndjson
        case "paths": .paths(separator: separator)
        default: nil
        }
    }
}

extension HTTPRequest {
    /// The format of the body: `format` if given, else `Content-Type` (415 for another
    /// type, or a charset other than UTF-8). `format=document` needs a JSON body.
    func uploadFormat() throws(ServiceError) -> TreeFormat {
        let format = try declaredUploadFormat()
        guard case .csv(var dialect) = format else {
            if queryValue("columns") != nil { throw .badQueryParameter("query parameter columns is for CSV rows") }
            return format
        }
        // `separator` and `columns` say how the CSV is written.
        if let text = queryValue("separator") {
            guard text.utf8.count == 1, let byte = text.utf8.first, CSVDialect.delimiters.contains(byte) else {
                throw .badQueryParameter("query parameter separator of CSV rows must be one of , ; | or a tab (%09), not \"\(text)\"")
            }
            dialect.delimiter = byte
        }
        if let text = queryValue("columns") {
            var columns: [String: String] = [:]
            for pair in text.split(separator: ",", omittingEmptySubsequences: false) {
                let parts = pair.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, columns[String(parts[0])] == nil else {
                    throw .badQueryParameter("query parameter columns must be role:name pairs separated by commas (id:ID,parentId:Parent,title:Name), each role once, not \"\(text)\"")
                }
                columns[String(parts[0])] = String(parts[1])
            }
            if let problem = CSVDialect.problem(delimiter: nil, columns: columns) {
                throw .badQueryParameter("query parameter columns: \(problem)")
            }
            dialect.columns = columns
        }
        return .csv(dialect)
    }

    /// The format `format` or `Content-Type` names, a CSV one in its default dialect (its
    /// `separator` is its delimiter: see `uploadFormat`), a path list's split at `separator`.
    private func declaredUploadFormat() throws(ServiceError) -> TreeFormat {
        let declared = headers["content-type"].map(MediaType.init)
        if let charset = declared?.parameters["charset"], charset.lowercased() != "utf-8" {
            throw unsupported("bodies are read as UTF-8, not charset=\(charset)")
        }
        let format: TreeFormat
        if let name = queryValue("format") {
            guard let named = TreeFormat.named(name, separator: TreeFormat.defaultSeparator) else {
                throw .badQueryParameter("query parameter format must be \(TreeFormat.names.map(\.name).joined(separator: ", ")), not \"\(name)\"")
            }
            format = named
        } else {
            guard let declared else { throw unsupported("the body's Content-Type is undeclared") }
            guard let named = TreeFormat.named(mediaType: declared.type, separator: TreeFormat.defaultSeparator) else {
                throw unsupported("the body must be one of \(TreeFormat.uploadMediaTypes), not \"\(declared.type)\"")
            }
            format = named
        }
        if case .csv = format { return format }
        let separator = try pathSeparator()
        if case .paths = format { return .paths(separator: separator) }
        return format
    }

    /// The path separator (`separator`, default `/`): 1 to 4 characters (so at most 16
    /// bytes), no backslash, CR or LF, not starting with `n`, `r` or `"` (a backslash before
    /// it would read as `\n`, `\r` or `\"`, so two names could share one id).
    private func pathSeparator() throws(ServiceError) -> String {
        guard let separator = queryValue("separator") else { return TreeFormat.defaultSeparator }
        guard (1 ... 4).contains(separator.unicodeScalars.count), !separator.utf8.contains(where: { $0 == 0x5C || $0 == 0x0A || $0 == 0x0D }),
              ![UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "\"")].contains(separator.utf8.first) else {
            throw .badQueryParameter("query parameter separator must be 1 to 4 characters without a backslash, CR or LF, not starting with n, r or \"")
        }
        return separator
    }

    private func unsupported(_ detail: String) -> ServiceError {
        ServiceError(.unsupportedMediaType, detail: detail,
                     headers: [("Accept-Post", TreeFormat.uploadMediaTypes), ("Accept-Patch", "application/json")])
    }

    /// The formats an export may take, best first: `format` alone if given, else those
    /// `Accept` takes (RFC 9110 §12.5.1: quality values, the most
    /// specific matching range; JSON first on a tie, and alone without `Accept`); 406 when
    /// `Accept` takes none of them.
    func exportFormats() throws(ServiceError) -> [TreeFormat] {
        let separator = try pathSeparator()
        if let name = queryValue("format") {
            guard let format = TreeFormat.named(name, separator: separator) else {
                throw .badQueryParameter("query parameter format must be nodes, document, csv, ndjson or paths, not \"\(name)\"")
            }
            return [format]
        }
        guard let accept = headers["accept"] else { return [.nodes] }
        let offered: [(types: [String], format: TreeFormat)] = [
            (["application/json"], .nodes), (["text/csv"], .csv(CSVDialect())),
            (["application/x-ndjson", "application/ndjson", "application/jsonl"], .ndjson),
            (["text/plain"], .paths(separator: separator)),
        ]
        let ranges = accept.split(separator: ",").map { MediaType(String($0)) }.filter { !$0.type.isEmpty }
        var taken: [(format: TreeFormat, quality: Double)] = []
        for (types, format) in offered {
            // The most specific range that matches decides the quality (RFC 9110 §12.5.1).
            let quality = types.compactMap { type in ranges.filter { $0.matches(type) }.max { $0.specificity < $1.specificity }?.quality }.max()
            if let quality, quality > 0 { taken.append((format, quality)) }
        }
        guard !taken.isEmpty else {
            throw ServiceError(.notAcceptable, detail: "the tree is available as application/json, text/csv, application/x-ndjson and text/plain; Accept takes none of them")
        }
        // A stable sort: equal qualities keep the order offered (JSON first).
        return taken.enumerated().sorted { ($0.element.quality, -$0.offset) > ($1.element.quality, -$1.offset) }.map(\.element.format)
    }

    /// The entity tag of the tree's export in `format` at `version`: the version's for JSON,
    /// with the format's name after it for the others (`"7-csv"`), so that a cache keeping
    /// several forms tells them apart.
    static func exportTag(_ format: TreeFormat, version: Int) -> String {
        switch format {
        case .nodes: ETag.of(version)
        case .document: "\"\(version)-document\""
        case .csv: "\"\(version)-csv\""
        case .ndjson: "\"\(version)-ndjson\""
        case .paths: "\"\(version)-paths\""
        }
    }
}

/// A media type or media range with its parameters, as `Content-Type` and `Accept` carry
/// them: `type/subtype; name=value; q=0.5`.
struct MediaType {
    /// `type/subtype`, lower case (`*/*` and `text/*` in a range).
    var type: String
    /// Parameters by lower-case name, values unquoted.
    var parameters: [String: String] = [:]

    init(_ text: String) {
        let parts = text.split(separator: ";", omittingEmptySubsequences: false)
        type = parts.first.map { $0.trimmingSpaces().lowercased() } ?? ""
        for part in parts.dropFirst() {
            guard let eq = part.firstIndex(of: "=") else { continue }
            let name = part[..<eq].trimmingSpaces().lowercased()
            var value = part[part.index(after: eq)...].trimmingSpaces()
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            parameters[name] = value
        }
    }

    /// The range's quality value (1 when absent or unreadable).
    var quality: Double {
        guard let q = parameters["q"], let value = Double(q), (0 ... 1).contains(value) else { return 1 }
        return value
    }

    /// 2 for a full type, 1 for `type/*`, 0 for `*/*`.
    var specificity: Int { type == "*/*" ? 0 : type.hasSuffix("/*") ? 1 : 2 }

    /// Whether this range takes the media type `other` (`type/subtype`).
    func matches(_ other: String) -> Bool {
        switch specificity {
        case 0: true
        case 1: other.hasPrefix(type.dropLast())
        default: type == other
        }
    }
}
