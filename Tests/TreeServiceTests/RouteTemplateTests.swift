import Testing
@testable import TreeService

/// The router's templates are the one list: every template matches its own paths, and
/// metrics label requests with exactly these templates.
@Suite struct RouteTemplateTests {
    static func path(_ template: Route.Template) -> String {
        template.rawValue.replacingOccurrences(of: "{sid}", with: "s1").replacingOccurrences(of: "{itemId}", with: "i1").replacingOccurrences(of: "{vid}", with: "v1")
    }

    @Test(arguments: Route.Template.allCases)
    func everyTemplateMatchesItsPaths(template: Route.Template) {
        let segments = Self.path(template).split(separator: "/").map(String.init)
        #expect(Route(segments)?.template == template)
    }

    @Test func metricsLabelRequestsWithTheRouterTemplates() {
        let h = ServiceHarness()
        for template in Route.Template.allCases { h.call("OPTIONS", Self.path(template)) }
        h.call("GET", "/no/such/path")
        let text = h.call("GET", "/metrics").text
        for template in Route.Template.allCases {
            #expect(text.contains("route=\"\(template.rawValue)\",method=\"OPTIONS\",status=\"204\""), "\(template.rawValue)")
        }
        #expect(text.contains("route=\"unmatched\",method=\"GET\",status=\"404\""))
        #expect(Metrics.routes == Route.Template.allCases.map(\.rawValue) + ["unmatched"])
    }
}

/// The router matches by the templates' segments: literals must be equal, placeholders
/// take any segment, in order.
@Suite struct RouteMatchingTests {
    @Test func placeholdersTakeTheirSegmentsInOrder() {
        #expect(Route.Template.item.match(["sessions", "s1", "items", "i1"]) == ["s1", "i1"])
        #expect(Route.Template.item.match(["sessions", "s1", "rows", "i1"]) == nil)
        #expect(Route.Template.root.match([]) == [])
        #expect(Route.Template.health.match(["healthz"]) == [])
        #expect(Route.Template.rows.segments == ["sessions", nil, "rows"])
    }

    @Test(arguments: [
        (["sessions", "healthz"], Route.session("healthz")),
        (["sessions", "s1", "items", "items"], Route.item("s1", "items", view: nil)),
    ])
    func aPlaceholderTakesAnySegment(segments: [String], route: Route) {
        #expect(Route(segments) == route)
    }

    @Test(arguments: [["healthz", "x"], ["session"], ["sessions", "s1", "row"], ["sessions", "s1", "items", "i1", "x"], ["x", "s1", "items"]])
    func pathsOfNoTemplateMatchNothing(segments: [String]) {
        #expect(Route(segments) == nil)
    }
}
