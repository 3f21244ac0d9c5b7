import HTTP1

/// The resources of the API, matched from the path segments.
enum Route: Equatable {
    case root
    case health
    case metrics
    case openAPI
    case sessions
    case session(String)
    case rows(String)
    case tree(String)
    case items(String)
    case item(String, String)
    case batch(String)
    case events(String)
    case eventToken(String)
    case matches(String)

    /// Matches decoded path segments against the templates; nil when no resource has this path.
    init?(_ segments: [String]) {
        for (template, pattern) in Template.patterns {
            if let values = Template.match(segments, pattern) {
                self.init(template, values)
                return
            }
        }
        return nil
    }

    /// The route of `template` with the values of its placeholders, in order.
    private init(_ template: Template, _ values: [String]) {
        switch template {
        case .root: self = .root
        case .health: self = .health
        case .metrics: self = .metrics
        case .openAPI: self = .openAPI
        case .sessions: self = .sessions
        case .session: self = .session(values[0])
        case .rows: self = .rows(values[0])
        case .tree: self = .tree(values[0])
        case .items: self = .items(values[0])
        case .item: self = .item(values[0], values[1])
        case .batch: self = .batch(values[0])
        case .events: self = .events(values[0])
        case .eventToken: self = .eventToken(values[0])
        case .matches: self = .matches(values[0])
        }
    }

    /// The 404's detail for a path no resource has. Under `/sessions/{sid}/items/` it is an
    /// item id with a `/` in it, most likely: it says how to write one.
    static func unmatchedDetail(_ segments: [String], path: String) -> String {
        guard segments.count > 4, segments[0] == "sessions", segments[2] == "items" else { return "no resource at \(path)" }
        let id = segments[3...].joined(separator: "/")
        return "no resource at \(path): an item id containing \"/\" is percent-encoded in the URL, "
            + "/sessions/\(PathSegment.encode(segments[1]))/items/\(PathSegment.encode(id)) for the item \"\(id)\""
    }

    /// The route templates: the one list that logs and metrics label requests with.
    enum Template: String, CaseIterable, Sendable {
        case root = "/"
        case health = "/healthz"
        case metrics = "/metrics"
        case openAPI = "/openapi.yaml"
        case sessions = "/sessions"
        case session = "/sessions/{sid}"
        case rows = "/sessions/{sid}/rows"
        case tree = "/sessions/{sid}/tree"
        case items = "/sessions/{sid}/items"
        case item = "/sessions/{sid}/items/{itemId}"
        case batch = "/sessions/{sid}/batch"
        case events = "/sessions/{sid}/events"
        case eventToken = "/sessions/{sid}/events/token"
        case matches = "/sessions/{sid}/matches"

        /// The template's path segments: a literal, or a `{placeholder}` (nil).
        var segments: [String?] {
            rawValue.split(separator: "/").map { $0.hasPrefix("{") && $0.hasSuffix("}") ? nil : String($0) }
        }

        /// The values of the placeholders, in order, when `segments` has this template's
        /// shape; nil otherwise.
        func match(_ segments: [String]) -> [String]? { Template.match(segments, self.segments) }

        /// Every template with its segments, split once.
        static let patterns: [(Template, [String?])] = allCases.map { ($0, $0.segments) }

        /// The values of the placeholders of `pattern` in `segments`, nil when they differ in shape.
        static func match(_ segments: [String], _ pattern: [String?]) -> [String]? {
            guard pattern.count == segments.count else { return nil }
            var values: [String] = []
            for (literal, segment) in zip(pattern, segments) {
                if let literal {
                    guard literal == segment else { return nil }
                } else {
                    values.append(segment)
                }
            }
            return values
        }

        /// The methods the resource answers (HEAD wherever GET; OPTIONS everywhere).
        var allowedMethods: [String] {
            switch self {
            case .root, .health, .metrics, .openAPI, .rows, .tree, .events, .matches: return ["GET", "HEAD", "OPTIONS"]
            case .sessions, .items, .batch, .eventToken: return ["POST", "OPTIONS"]
            case .session, .item: return ["GET", "HEAD", "PATCH", "DELETE", "OPTIONS"]
            }
        }
    }

    /// The route's template.
    var template: Template {
        switch self {
        case .root: return .root
        case .health: return .health
        case .metrics: return .metrics
        case .openAPI: return .openAPI
        case .sessions: return .sessions
        case .session: return .session
        case .rows: return .rows
        case .tree: return .tree
        case .items: return .items
        case .item: return .item
        case .batch: return .batch
        case .events: return .events
        case .eventToken: return .eventToken
        case .matches: return .matches
        }
    }

    /// The methods the resource answers.
    var allowedMethods: [String] { template.allowedMethods }

    /// The label of a request that matched no route.
    static let unmatchedLabel = "unmatched"
}
