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

    /// Matches decoded path segments; nil when no resource has this path.
    init?(_ segments: [String]) {
        switch segments.count {
        case 0: self = .root
        case 1:
            switch segments[0] {
            case "healthz": self = .health
            case "metrics": self = .metrics
            case "openapi.yaml": self = .openAPI
            case "sessions": self = .sessions
            default: return nil
            }
        case 2 where segments[0] == "sessions": self = .session(segments[1])
        case 3 where segments[0] == "sessions":
            switch segments[2] {
            case "rows": self = .rows(segments[1])
            case "tree": self = .tree(segments[1])
            case "items": self = .items(segments[1])
            default: return nil
            }
        case 4 where segments[0] == "sessions" && segments[2] == "items": self = .item(segments[1], segments[3])
        default: return nil
        }
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

        /// The methods the resource answers (HEAD wherever GET; OPTIONS everywhere).
        var allowedMethods: [String] {
            switch self {
            case .root, .health, .metrics, .openAPI, .rows, .tree: return ["GET", "HEAD", "OPTIONS"]
            case .sessions, .items: return ["POST", "OPTIONS"]
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
        }
    }

    /// The methods the resource answers.
    var allowedMethods: [String] { template.allowedMethods }

    /// The label of a request that matched no route.
    static let unmatchedLabel = "unmatched"
}
