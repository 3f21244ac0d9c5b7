import Testing
import TreeFormats
@testable import TreeService

/// The `pointer` of a 422 names the member as an escaped JSON Pointer (RFC 6901).
@Suite struct ProblemPointerTests {
    let h = ServiceHarness()

    @Test(arguments: [
        ("PATCH", "", "{\"a/b~c\": true}"),
        ("PATCH", "/items/2", "{\"expanded\": true, \"a/b~c\": 1}"),
        ("POST", "/items", "{\"nodes\": [{\"title\": \"x\"}], \"a/b~c\": 1}"),
    ])
    func anUnknownMemberWithSlashAndTildeIsEscaped(method: String, path: String, body: String) {
        let sid = h.createSample()
        let reply = h.call(method, "/sessions/\(sid)\(path)", json: body)
        #expect(reply.status == 422)
        #expect(reply["pointer"]?.stringValue == "/a~1b~0c", "\(reply.text)")
    }

    @Test func aMemberPointerIsTheEscapedKey() {
        #expect(ServiceError.unprocessable("x", member: "a/b~c").pointer == "/a~1b~0c")
        #expect(ServiceError.unprocessable("x", member: "index").pointer == "/index")
    }
}
