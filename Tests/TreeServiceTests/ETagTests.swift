import Testing
@testable import TreeService

/// One reading of entity-tag lists for If-Match (strong) and If-None-Match (weak).
@Suite struct ETagTests {
    @Test func aListNamesAVersionByItsTagOrStar() {
        #expect(ETag.list("\"1\", \"2\"", names: 2, weakly: false))
        #expect(ETag.list(" *", names: 7, weakly: false))
        #expect(!ETag.list("\"1\",\"3\"", names: 2, weakly: true))
        #expect(!ETag.list("\"12\"", names: 1, weakly: true))
    }

    @Test func onlyTheWeakComparisonTakesAWeakTag() {
        #expect(ETag.list("W/\"2\"", names: 2, weakly: true))
        #expect(!ETag.list("W/\"2\"", names: 2, weakly: false))
    }

    @Test func ifMatchWithAWeakTagIsRefusedAndIfNoneMatchTakesIt() {
        let h = ServiceHarness()
        let sid = h.createSample()
        #expect(h.call("GET", "/sessions/\(sid)", headers: [("If-None-Match", "W/\"1\"")]).status == 304)
        #expect(h.call("PATCH", "/sessions/\(sid)", json: "{\"expandAll\": true}", headers: [("If-Match", "W/\"1\"")]).status == 412)
        #expect(h.call("PATCH", "/sessions/\(sid)", json: "{\"expandAll\": true}", headers: [("If-Match", "\"0\", \"1\"")]).status == 200)
    }
}
