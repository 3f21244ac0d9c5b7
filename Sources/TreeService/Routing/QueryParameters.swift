import HTTP1

extension Route.Template {
    /// The query parameters that name a view's filtered rows (see `HTTPRequest.filterQuery`).
    static let viewParameters: Set<String> = ["filter", "match", "caseSensitive", "diacritics", "leavesOnly", "fields", "where"]

    /// The query parameters the resource reads for `method` (HEAD reads what GET reads); nil:
    /// any (the demo page's query is read by the page itself).
    func queryParameters(_ method: String) -> Set<String>? {
        let view = Route.Template.viewParameters
        switch self {
        case .root: return nil
        case .health, .metrics, .openAPI, .client, .eventToken, .tokens: return []
        case .sessions: return method == "GET" ? ["name", "label", "limit", "after"] : ["format", "separator", "columns", "expand", "ttl", "name"]
        case .session, .view: return method == "PATCH" ? view : []
        case .views: return method == "GET" ? ["offset", "limit"] : []
        case .rows, .viewRows: return view.union(["offset", "limit", "positions", "highlight", "aggregate"])
        case .children, .itemChildren, .viewChildren, .viewItemChildren: return view.union(["offset", "limit", "aggregate", "sort"])
        case .tree, .viewTree: return ["format", "separator", "selection"]
        case .items, .viewItems: return view.union(["format", "separator", "columns", "parentId"])
        case .item, .batch, .viewItem, .viewBatch: return view
        case .events, .viewEvents: return view.union(["lastEventId", "access_token"])
        case .matches, .viewMatches: return view.union(["after", "before", "limit", "wrap", "highlight"])
        case .selection, .viewSelection: return view.union(["after", "limit", "top"])
        case .expansion, .viewExpansion, .fields: return []
        }
    }
}

extension HTTPRequest {
    /// Throws 400 `bad-query-parameter` for the first query parameter the resource does not
    /// read, naming the nearest one it does (a mistyped `fliter` would else be ignored, and
    /// the unfiltered rows answered as if nothing was wrong).
    /// - Complexity: O(parameters · known · name length²)
    func checkQueryParameters(_ template: Route.Template) throws(ServiceError) {
        let method = self.method == "HEAD" ? "GET" : self.method
        guard let known = template.queryParameters(method) else { return }
        for (name, _) in query where !known.contains(name) {
            let takes = known.isEmpty ? "\(template.rawValue) takes no query parameters"
                : "\(method) \(template.rawValue) takes \(known.sorted().joined(separator: ", "))"
            if let nearest = QueryParameterName.nearest(to: name, among: known) {
                throw .badQueryParameter("unknown query parameter \"\(name)\" (did you mean \"\(nearest)\"?)")
            }
            throw .badQueryParameter("unknown query parameter \"\(name)\"; \(takes)")
        }
    }
}

enum QueryParameterName {
    /// The known name closest to `name`: the same but for letter case, or at most two edits
    /// away (one for names of up to four characters), a swap of neighbours counting as one.
    static func nearest(to name: String, among known: Set<String>) -> String? {
        let lowered = name.lowercased()
        if let same = known.first(where: { $0.lowercased() == lowered }) { return same }
        let limit = name.count <= 4 ? 1 : 2
        let scored = known.map { (name: $0, distance: distance(lowered, $0.lowercased())) }.filter { $0.distance <= limit }
        return scored.min { ($0.distance, $0.name) < ($1.distance, $1.name) }?.name
    }

    /// Edits (insert, delete, replace, or swap two neighbours) that turn `a` into `b`:
    /// the optimal string alignment distance.
    /// - Complexity: O(a · b)
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0 ... a.count { d[i][0] = i }
        for j in 0 ... b.count { d[0][j] = j }
        for i in 1 ... a.count {
            for j in 1 ... b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
