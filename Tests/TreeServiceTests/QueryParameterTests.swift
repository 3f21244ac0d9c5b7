import Testing
import HTTP1
@testable import TreeService

/// A query parameter a resource does not read answers 400 naming it and the nearest one it
/// reads: a mistyped `fliter` once answered the unfiltered rows, `fromat` a Content-Type error.
@Suite struct QueryParameterTests {
    let h = ServiceHarness()

    func session() -> String {
        h.call("POST", "/sessions", json: String(decoding: ServiceHarness.sample, as: UTF8.self))["id"]!.stringValue!
    }

    @Test func aMistypedFilterIsNamedWithTheNearestParameter() {
        let sid = session()
        let reply = h.call("GET", "/sessions/\(sid)/rows?fliter=root")
        #expect(reply.status == 400)
        #expect(reply["type"]?.stringValue == "urn:treesessions:problem:bad-query-parameter")
        #expect(reply["detail"]?.stringValue == #"unknown query parameter "fliter" (did you mean "filter"?)"#)
        #expect(h.call("GET", "/sessions/\(sid)/rows?Limit=3")["detail"]?.stringValue == #"unknown query parameter "Limit" (did you mean "limit"?)"#)
        #expect(h.call("GET", "/sessions/\(sid)/rows?filter=root").status == 200)
    }

    @Test func aMistypedFormatIsNamedBeforeTheBodyIsRead() {
        let before = h.service.sessionCount
        let reply = h.call("POST", "/sessions?fromat=csv", json: "id,parentId,title\n1,,a\n", contentType: "text/csv")
        #expect(reply.status == 400)
        #expect(reply["detail"]?.stringValue == #"unknown query parameter "fromat" (did you mean "format"?)"#)
        #expect(h.service.sessionCount == before)
    }

    @Test func aParameterFarFromEveryKnownOneListsThem() {
        let sid = session()
        #expect(h.call("GET", "/sessions/\(sid)/tree?colour=red")["detail"]?.stringValue
            == #"unknown query parameter "colour"; GET /sessions/{sid}/tree takes format, selection, separator"#)
        #expect(h.call("GET", "/healthz?verbose=1")["detail"]?.stringValue
            == #"unknown query parameter "verbose"; /healthz takes no query parameters"#)
    }

    /// Every method of every resource but the demo page refuses an unknown parameter, and
    /// changes nothing.
    @Test(arguments: Route.Template.allCases.filter { $0 != .root })
    func everyResourceRefusesAnUnknownParameter(_ template: Route.Template) {
        let sid = session()
        let path = template.rawValue.replacingOccurrences(of: "{sid}", with: sid).replacingOccurrences(of: "{itemId}", with: "1")
        for method in template.allowedMethods where method != "OPTIONS" {
            let reply = h.call(method, path + "?zzzq=1", json: method == "GET" || method == "HEAD" || method == "DELETE" ? nil : "{}")
            #expect(reply.status == 400, "\(method) \(template.rawValue)")
            #expect(reply["detail"]?.stringValue?.hasPrefix(#"unknown query parameter "zzzq""#) == true, "\(method) \(template.rawValue)")
        }
        #expect(h.call("GET", "/sessions/\(sid)")["version"]?.intValue == 1, "nothing changed")
    }

    @Test func theDemoPageTakesAnyQuery() {
        #expect(h.call("GET", "/?session=abc&utm_source=x").status == 200)
    }

    @Test func nearestNames() {
        let known: Set<String> = ["filter", "format", "limit", "offset", "expand"]
        #expect(QueryParameterName.nearest(to: "fliter", among: known) == "filter")
        #expect(QueryParameterName.nearest(to: "ofset", among: known) == "offset")
        #expect(QueryParameterName.nearest(to: "FORMAT", among: known) == "format")
        #expect(QueryParameterName.nearest(to: "expnd", among: known) == "expand")
        #expect(QueryParameterName.nearest(to: "lim", among: known) == nil)
        #expect(QueryParameterName.nearest(to: "colour", among: known) == nil)
        #expect(QueryParameterName.distance("ab", "ba") == 1)
        #expect(QueryParameterName.distance("", "abc") == 3)
    }
}
