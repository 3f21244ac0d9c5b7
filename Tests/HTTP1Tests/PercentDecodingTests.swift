import Testing
@testable import HTTP1

@Suite struct PercentDecodingTests {
    @Test func decodes() {
        #expect(PercentDecoding.decode(bytes("a%20b"), plusAsSpace: false) == "a b")
        #expect(PercentDecoding.decode(bytes("a+b"), plusAsSpace: false) == "a+b")
        #expect(PercentDecoding.decode(bytes("a+b%2B"), plusAsSpace: true) == "a b+")
        #expect(PercentDecoding.decode(bytes("%e2%82%ac"), plusAsSpace: false) == "€")
        #expect(PercentDecoding.decode(bytes(""), plusAsSpace: true) == "")
    }

    @Test func rejects() {
        for bad in ["%", "%4", "%4g", "%00", "a%0", "%C3%28", "%FF"] {
            #expect(PercentDecoding.decode(bytes(bad), plusAsSpace: true) == nil, "\(bad)")
        }
    }

    @Test func requestInitDecodesLikeTheParser() {
        let request = HTTPRequest(method: "GET", target: "/trees/a%20b/?q=x+y&n=1")
        #expect(request.path == "/trees/a%20b/")
        #expect(request.pathSegments == ["trees", "a b", ""])
        #expect(request.queryValue("q") == "x y")
        #expect(request.queryValue("n") == "1")
    }
}
