import HTTP1

/// The resources of the API, matched from the path segments. The resources that read or
/// change a view's state exist twice: for the session's default view, and under
/// `/sessions/{sid}/views/{vid}/` for a view of its own; `view` is then the `{vid}` segment.
enum Route: Equatable {
    case root
    case health
    case metrics
    case openAPI
    /// `/client/{file}`: a module of the TypeScript client, compiled, as the demo page imports it.
    case client(String)
    case sessions
    case session(String)
    case rows(String, view: String?)
    case tree(String, view: String?)
    case items(String, view: String?)
    case item(String, String, view: String?)
    /// `/sessions/{sid}/items/{itemId}/children` (an item's) and `/sessions/{sid}/children`
    /// (the roots, `item` nil): a node's children in the view's rows, by the page.
    case children(String, item: String?, view: String?)
    case batch(String, view: String?)
    case events(String, view: String?)
    case eventToken(String)
    /// `/sessions/{sid}/tokens`: tokens minted for the session.
    case tokens(String)
    case matches(String, view: String?)
    /// `/sessions/{sid}/selection`: the view's selected nodes.
    case selection(String, view: String?)
    /// `/sessions/{sid}/expansion`: the view's expanded nodes as a list, to save and set.
    case expansion(String, view: String?)
    /// `/sessions/{sid}/fields`: the fields the tree's nodes carry.
    case fields(String)
    /// `/sessions/{sid}/views`: the session's views.
    case views(String)
    /// `/sessions/{sid}/views/{vid}`: one view (its summary, its expansion as a whole, its removal).
    case view(String, String)

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
        let view = template.isInView ? values[1] : nil
        switch template {
        case .root: self = .root
        case .health: self = .health
        case .metrics: self = .metrics
        case .openAPI: self = .openAPI
        case .client: self = .client(values[0])
        case .sessions: self = .sessions
        case .session: self = .session(values[0])
        case .rows, .viewRows: self = .rows(values[0], view: view)
        case .tree, .viewTree: self = .tree(values[0], view: view)
        case .items, .viewItems: self = .items(values[0], view: view)
        case .item: self = .item(values[0], values[1], view: nil)
        case .viewItem: self = .item(values[0], values[2], view: view)
        case .children, .viewChildren: self = .children(values[0], item: nil, view: view)
        case .itemChildren: self = .children(values[0], item: values[1], view: nil)
        case .viewItemChildren: self = .children(values[0], item: values[2], view: view)
        case .batch, .viewBatch: self = .batch(values[0], view: view)
        case .events, .viewEvents: self = .events(values[0], view: view)
        case .eventToken: self = .eventToken(values[0])
        case .tokens: self = .tokens(values[0])
        case .matches, .viewMatches: self = .matches(values[0], view: view)
        case .selection, .viewSelection: self = .selection(values[0], view: view)
        case .expansion, .viewExpansion: self = .expansion(values[0], view: view)
        case .fields: self = .fields(values[0])
        case .views: self = .views(values[0])
        case .view: self = .view(values[0], values[1])
        }
    }

    /// The 404's detail for a path no resource has. Under `/sessions/{sid}/items/` it is an
    /// item id with a `/` in it, most likely: it says how to write one.
    static func unmatchedDetail(_ segments: [String], path: String) -> String {
        // The item segment's place: /sessions/{sid}/items/…, or /sessions/{sid}/views/{vid}/items/….
        let inView = segments.count > 6 && segments[2] == "views" && segments[4] == "items"
        let at = inView ? 5 : 3
        guard segments.count > at + 1, segments[0] == "sessions", inView || segments[2] == "items" else { return "no resource at \(path)" }
        let id = segments[at...].joined(separator: "/")
        let prefix = "/sessions/\(PathSegment.encode(segments[1]))" + (inView ? "/views/\(PathSegment.encode(segments[3]))" : "")
        return "no resource at \(path): an item id containing \"/\" is percent-encoded in the URL, "
            + "\(prefix)/items/\(PathSegment.encode(id)) for the item \"\(id)\""
    }

    /// The route templates: the one list that logs and metrics label requests with.
    enum Template: String, CaseIterable, Sendable {
        case root = "/"
        case health = "/healthz"
        case metrics = "/metrics"
        case openAPI = "/openapi.yaml"
        case client = "/client/{file}"
        case sessions = "/sessions"
        case session = "/sessions/{sid}"
        case rows = "/sessions/{sid}/rows"
        case tree = "/sessions/{sid}/tree"
        case items = "/sessions/{sid}/items"
        case item = "/sessions/{sid}/items/{itemId}"
        case children = "/sessions/{sid}/children"
        case itemChildren = "/sessions/{sid}/items/{itemId}/children"
        case batch = "/sessions/{sid}/batch"
        case events = "/sessions/{sid}/events"
        case eventToken = "/sessions/{sid}/events/token"
        case tokens = "/sessions/{sid}/tokens"
        case matches = "/sessions/{sid}/matches"
        case selection = "/sessions/{sid}/selection"
        case expansion = "/sessions/{sid}/expansion"
        case fields = "/sessions/{sid}/fields"
        case views = "/sessions/{sid}/views"
        case view = "/sessions/{sid}/views/{vid}"
        case viewRows = "/sessions/{sid}/views/{vid}/rows"
        case viewItems = "/sessions/{sid}/views/{vid}/items"
        case viewItem = "/sessions/{sid}/views/{vid}/items/{itemId}"
        case viewChildren = "/sessions/{sid}/views/{vid}/children"
        case viewItemChildren = "/sessions/{sid}/views/{vid}/items/{itemId}/children"
        case viewBatch = "/sessions/{sid}/views/{vid}/batch"
        case viewEvents = "/sessions/{sid}/views/{vid}/events"
        case viewMatches = "/sessions/{sid}/views/{vid}/matches"
        case viewSelection = "/sessions/{sid}/views/{vid}/selection"
        case viewExpansion = "/sessions/{sid}/views/{vid}/expansion"
        case viewTree = "/sessions/{sid}/views/{vid}/tree"

        /// Whether the template is a view's resource (its second placeholder is `{vid}`).
        var isInView: Bool {
            switch self {
            case .viewRows, .viewItems, .viewItem, .viewChildren, .viewItemChildren, .viewBatch, .viewEvents, .viewMatches, .viewSelection,
                 .viewExpansion, .viewTree: true
            default: false
            }
        }

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
            case .root, .health, .metrics, .openAPI, .client, .rows, .tree, .events, .matches, .viewRows, .viewEvents, .viewMatches,
                 .selection, .viewSelection, .viewTree, .fields, .children, .itemChildren, .viewChildren, .viewItemChildren:
                return ["GET", "HEAD", "OPTIONS"]
            case .items, .batch, .eventToken, .tokens, .viewItems, .viewBatch: return ["POST", "OPTIONS"]
            case .sessions, .views: return ["GET", "HEAD", "POST", "OPTIONS"]
            case .session, .item, .view, .viewItem: return ["GET", "HEAD", "PATCH", "DELETE", "OPTIONS"]
            case .expansion, .viewExpansion: return ["GET", "HEAD", "PUT", "OPTIONS"]
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
        case .client: return .client
        case .sessions: return .sessions
        case .session: return .session
        case .rows(_, let view): return view == nil ? .rows : .viewRows
        case .tree(_, let view): return view == nil ? .tree : .viewTree
        case .items(_, let view): return view == nil ? .items : .viewItems
        case .item(_, _, let view): return view == nil ? .item : .viewItem
        case .children(_, let item, let view): return item == nil ? (view == nil ? .children : .viewChildren) : (view == nil ? .itemChildren : .viewItemChildren)
        case .batch(_, let view): return view == nil ? .batch : .viewBatch
        case .events(_, let view): return view == nil ? .events : .viewEvents
        case .eventToken: return .eventToken
        case .tokens: return .tokens
        case .matches(_, let view): return view == nil ? .matches : .viewMatches
        case .selection(_, let view): return view == nil ? .selection : .viewSelection
        case .expansion(_, let view): return view == nil ? .expansion : .viewExpansion
        case .fields: return .fields
        case .views: return .views
        case .view: return .view
        }
    }

    /// The session the resource is part of.
    var session: String? {
        switch self {
        case .root, .health, .metrics, .openAPI, .client, .sessions: nil
        case .session(let sid), .eventToken(let sid), .tokens(let sid), .fields(let sid), .views(let sid), .view(let sid, _),
             .rows(let sid, _), .tree(let sid, _), .items(let sid, _), .item(let sid, _, _), .children(let sid, _, _),
             .batch(let sid, _), .events(let sid, _), .matches(let sid, _), .selection(let sid, _), .expansion(let sid, _): sid
        }
    }

    /// The view whose rows or state the resource is: its `{vid}`, nil for the session's
    /// default view (or a resource of no view).
    var viewName: String? {
        switch self {
        case .view(_, let vid): vid
        case .rows(_, let view), .tree(_, let view), .items(_, let view), .item(_, _, let view), .children(_, _, let view),
             .batch(_, let view), .events(_, let view), .matches(_, let view), .selection(_, let view), .expansion(_, let view): view
        default: nil
        }
    }

    /// The methods the resource answers.
    var allowedMethods: [String] { template.allowedMethods }

    /// The label of a request that matched no route.
    static let unmatchedLabel = "unmatched"
}
