import Testing
@testable import HTTP1

@Suite struct HTTPHeadersTests {
    @Test func caseInsensitiveLookupKeepsOrderAndSpelling() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "X-A": "1"]
        headers.add(name: "x-a", value: "2")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers["CONTENT-TYPE"] == "text/plain")
        #expect(headers.values(for: "X-a") == ["1", "2"])
        #expect(headers["missing"] == nil)
        headers["X-A"] = "3"
        #expect(headers.values(for: "x-a") == ["3"])
        #expect(headers.map(\.name) == ["Content-Type", "X-A"])
        headers["content-type"] = nil
        #expect(!headers.contains(name: "Content-Type"))
        #expect(headers.count == 1)
    }

    @Test func nonLettersAreNotFolded() {
        #expect(!"a[".asciiCaseInsensitiveEquals("a{"))
        #expect(!"@".asciiCaseInsensitiveEquals("`"))
        #expect("Content-LENGTH".asciiCaseInsensitiveEquals("content-length"))
    }
}
