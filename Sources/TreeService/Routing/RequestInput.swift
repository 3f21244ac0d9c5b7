import HTTP1
import TreeEngine
import TreeFormats

/// Reading what a request says: query parameters, JSON bodies, preconditions.
extension HTTPRequest {
    /// The view named by `filter`, `match`, `caseSensitive`, `diacritics`, `leavesOnly`,
    /// `fields` and `where`; nil for the unfiltered view (no text and no condition). Every
    /// parameter is checked, even without a filter.
    func filterQuery() throws(ServiceError) -> FilterQuery? { try query(named: "filter") }

    /// `highlight` with the same options as `filter` (`match`, `caseSensitive`, `diacritics`,
    /// `leavesOnly`, `fields`, `where`): the matches to flag in unfiltered rows; not with a
    /// `filter` (400; an empty one names the unfiltered rows). Its text must not be empty.
    func highlightQuery() throws(ServiceError) -> FilterQuery? {
        guard queryValue("highlight")?.isEmpty == false, let query = try query(named: "highlight") else { return nil }
        if queryValue("filter")?.isEmpty == false { throw .badQueryParameter("give query parameter filter or highlight, not both") }
        return query
    }

    /// The query of the text parameter `name`, the match options, the fields and the
    /// conditions.
    private func query(named name: String) throws(ServiceError) -> FilterQuery? {
        let mode: FilterQuery.Mode
        switch queryValue("match") {
        case nil: mode = .contains
        case let text?:
            guard let m = FilterQuery.Mode(rawValue: text) else {
                throw .badQueryParameter("query parameter match must be contains, prefix, exact, words or fuzzy, not \"\(text)\"")
            }
            mode = m
        }
        let caseSensitive = try booleanQuery("caseSensitive") ?? false
        let diacriticInsensitive: Bool
        switch queryValue("diacritics") {
        case nil, "sensitive": diacriticInsensitive = false
        case "insensitive": diacriticInsensitive = true
        case let text?: throw .badQueryParameter("query parameter diacritics must be sensitive or insensitive, not \"\(text)\"")
        }
        let leavesOnly = try booleanQuery("leavesOnly") ?? false
        let fields = try syntaxQuery("fields", FieldSyntax.fields) ?? [.title]
        let conditions = queryValue("where")?.isEmpty == false ? try syntaxQuery("where", FieldSyntax.conditions) ?? [] : []
        let text = queryValue(name) ?? ""
        if text.isEmpty && queryValue("fields") != nil {
            throw .badQueryParameter("query parameter fields says where a text is searched: give a \(name) text too")
        }
        guard !text.isEmpty || !conditions.isEmpty else { return nil }
        return FilterQuery(text, mode: mode, caseSensitive: caseSensitive, diacriticInsensitive: diacriticInsensitive,
                           leavesOnly: leavesOnly, fields: fields, conditions: conditions)
    }

    /// The `aggregate` query parameter of a rows page (none when absent).
    func aggregateQuery() throws(ServiceError) -> [AggregateRequest] {
        try syntaxQuery("aggregate", FieldSyntax.aggregates) ?? []
    }

    /// The `sort` query parameter (`FieldSyntax.sort`), nil when absent.
    func sortQuery() throws(ServiceError) -> SortKeys? {
        try syntaxQuery("sort", FieldSyntax.sort)
    }

    /// The query parameter `name` read by `parse` (`FieldSyntax`), nil when absent; 400 with
    /// the position of the error when it does not parse.
    private func syntaxQuery<T>(_ name: String, _ parse: (String) throws(FieldSyntax.Failure) -> T) throws(ServiceError) -> T? {
        guard let text = queryValue(name) else { return nil }
        do throws(FieldSyntax.Failure) {
            return try parse(text)
        } catch {
            throw .badQueryParameter("query parameter \(name): \(error.message) (at character \(error.position))")
        }
    }

    func booleanQuery(_ name: String) throws(ServiceError) -> Bool? {
        switch queryValue(name) {
        case nil: return nil
        case "true": return true
        case "false": return false
        case let text?: throw .badQueryParameter("query parameter \(name) must be true or false, not \"\(text)\"")
        }
    }

    /// The `expand` query parameter of an upload in any format: `none`, `all` or a depth N
    /// (1 to 18 digits, as the spec's pattern says), as the nested JSON body's `expand`
    /// member says it (nil when absent).
    func expandQuery() throws(ServiceError) -> JSONValue? {
        guard let text = queryValue("expand") else { return nil }
        if text == "none" || text == "all" { return .string(text) }
        guard (1 ... 18).contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let depth = Int(text) else {
            throw .badQueryParameter("query parameter expand must be none, all or a depth of at most 18 digits, not \"\(text)\"")
        }
        return .number(String(depth))
    }

    /// The `ttl` query parameter of an upload: whole seconds, 0 for never (nil when absent).
    func ttlQuery() throws(ServiceError) -> Duration? {
        guard queryValue("ttl") != nil else { return nil }
        return .seconds(try integerQuery("ttl", default: 0, maximum: TreeService.longestTTL))
    }

    /// A non-negative integer query parameter, at most `maximum`.
    func integerQuery(_ name: String, default value: Int, maximum: Int = Int.max) throws(ServiceError) -> Int {
        guard let text = queryValue(name) else { return value }
        guard let n = Int(text), n >= 0, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            throw .badQueryParameter("query parameter \(name) must be a non-negative integer, not \"\(text)\"")
        }
        guard n <= maximum else {
            throw .badQueryParameter("query parameter \(name) must be at most \(maximum), not \(n)")
        }
        return n
    }

    /// Checks that the body is declared as JSON (415 otherwise).
    func requireJSONBody() throws(ServiceError) {
        let type = headers["content-type"]?.split(separator: ";").first.map { $0.trimmingSpaces().lowercased() }
        guard type == "application/json" || (type?.hasPrefix("application/") == true && type?.hasSuffix("+json") == true) else {
            throw ServiceError(.unsupportedMediaType,
                               detail: "the body must be application/json, not \(headers["content-type"].map { "\"\($0)\"" } ?? "undeclared")",
                               headers: [("Accept-Post", "application/json"), ("Accept-Patch", "application/json")])
        }
    }

    /// The body as one JSON object of members.
    func jsonObjectBody() throws(ServiceError) -> [(String, JSONValue)] {
        try requireJSONBody()
        return try jsonObject(body)
    }

    /// Throws 412 unless `If-Match` is absent, `*`, or names `version`.
    func checkIfMatch(version: Int) throws(ServiceError) {
        guard let header = headers["if-match"] else { return }
        if ETag.list(header, names: version, weakly: false) { return }
        throw ServiceError(.versionMismatch,
                           detail: "If-Match \(header) does not match the current version \(ETag.of(version))",
                           headers: [("ETag", ETag.of(version))])
    }
}

enum ETag {
    static func of(_ version: Int) -> String { "\"\(version)\"" }

    /// Whether an entity-tag list (`If-Match`, `If-None-Match`) is `*` or names `version`:
    /// `weakly` also takes its weak tag `W/"N"` (RFC 9110's weak comparison, for
    /// `If-None-Match`); `If-Match` compares strongly.
    static func list(_ header: String, names version: Int, weakly: Bool) -> Bool {
        list(header, names: of(version), weakly: weakly)
    }

    /// Whether an entity-tag list is `*` or names `tag` (strongly, or weakly too).
    static func list(_ header: String, names tag: String, weakly: Bool) -> Bool {
        header.split(separator: ",").contains { element in
            let item = element.trimmingSpaces()
            return item == "*" || item == tag || (weakly && item == "W/" + tag)
        }
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}

/// Reading members of a JSON object body.
struct Members {
    let members: [(String, JSONValue)]
    init(_ members: [(String, JSONValue)]) { self.members = members }

    subscript(_ key: String) -> JSONValue? { members.first { $0.0 == key }?.1 }
    func has(_ key: String) -> Bool { members.contains { $0.0 == key } }
    var keys: [String] { members.map(\.0) }

    /// Throws 422 for any member not in `allowed`.
    func allowOnly(_ allowed: Set<String>) throws(ServiceError) {
        for key in keys where !allowed.contains(key) {
            throw .unprocessable("unknown member \"\(key)\"; allowed here: \(allowed.sorted().joined(separator: ", "))", member: key)
        }
    }

    func bool(_ key: String) throws(ServiceError) -> Bool? {
        guard let v = self[key] else { return nil }
        guard case .bool(let b) = v else { throw .unprocessable("\"\(key)\" must be true or false", member: key) }
        return b
    }

    /// A non-negative integer member, written as any number with an integer value (`2`, `2.0`, `2e0`).
    func nonNegativeInt(_ key: String) throws(ServiceError) -> Int? {
        guard let v = self[key] else { return nil }
        guard let n = v.intValue, n >= 0 else { throw .unprocessable("\"\(key)\" must be a non-negative integer", member: key) }
        return n
    }

    /// An item id member that may be null (no item: the roots): a string, or an integer
    /// by its decimal form (`7.0` is the id `7`). The member must be present.
    func itemIDOrNull(_ key: String) throws(ServiceError) -> ItemID? {
        if self[key] == .null { return nil }
        if let id = self[key].flatMap(ItemID.init) { return id }
        throw .unprocessable("\"\(key)\" must be an item id (a string or an integer) or null", member: key)
    }

    /// An item id member that must name an item.
    func itemID(_ key: String) throws(ServiceError) -> ItemID {
        guard let id = try itemIDOrNull(key) else { throw .unprocessable("\"\(key)\" must name an item", member: key) }
        return id
    }
}

/// Percent-encoding of one path segment: everything but unreserved characters.
enum PathSegment {
    static func encode(_ text: String) -> String {
        var out = ""
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "A") ... UInt8(ascii: "Z"),
                 UInt8(ascii: "0") ... UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hex[Int(b >> 4)])
                out.unicodeScalars.append(hex[Int(b & 15)])
            }
        }
        return out
    }
}

/// `bytes` as one JSON object of members (400 for malformed JSON, 422 for another value).
func jsonObject(_ bytes: [UInt8]) throws(ServiceError) -> [(String, JSONValue)] {
    let value: JSONValue
    do { value = try JSONValue.parse(bytes) } catch { throw ServiceError(error) }
    guard case .object(let members) = value else {
        throw .unprocessable("the body must be a JSON object")
    }
    return members
}
