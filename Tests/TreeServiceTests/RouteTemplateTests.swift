import Testing
@testable import TreeService

/// The router's templates are the one list: every template matches its own paths, and
/// metrics label requests with exactly these templates.
@Suite struct RouteTemplateTests {
    static func path(_ template: Route.Template) -> String {
        template.rawValue.replacingOccurrences(of: "{sid}", with: "s1").replacingOccurrences(of: "{itemId}", with: "i1")
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
