import HTTP1
import HTTPTestSupport
import Testing

/// Responses sent later (`HTTPResponse.deferral`): the worker is free meanwhile, and the
/// connection keeps its order. Serialized: `/park` and `/release` share one list.
@Suite(.serialized) struct DeferredResponseTests {
    @Test func parkedResponsesHoldNoWorker() throws {
        try withServer { _, port in
            // More waiting responses than any worker pool has threads.
            let parked = try (0 ..< 40).map { _ in try HTTPTestClient(port: port) }
            for client in parked { client.send("GET /park HTTP/1.1\r\nHost: h\r\n\r\n") }
            let other = try HTTPTestClient(port: port)
            // Every park has reached the responder before the release (the echo proves workers are free).
            var released = 0
            for _ in 0 ..< 100 where released < 40 {
                other.send("GET /echo/free HTTP/1.1\r\nHost: h\r\n\r\n")
                #expect(other.readResponse()?.text.contains("free") == true)
                other.send("GET /release HTTP/1.1\r\nHost: h\r\n\r\n")
                released += Int(other.readResponse()?.text ?? "") ?? 0
            }
            #expect(released == 40)
            for client in parked {
                let response = client.readResponse()
                #expect(response?.status == 200)
                #expect(response?.text == "parked")
            }
        }
    }

    @Test func aParkedResponseKeepsThePipelineInOrder() throws {
        try withServer { _, port in
            let client = try HTTPTestClient(port: port)
            client.send("GET /park HTTP/1.1\r\nHost: h\r\n\r\nGET /echo/2 HTTP/1.1\r\nHost: h\r\n\r\n")
            let other = try HTTPTestClient(port: port)
            var released = 0
            for _ in 0 ..< 100 where released == 0 {
                other.send("GET /release HTTP/1.1\r\nHost: h\r\n\r\n")
                released = Int(other.readResponse()?.text ?? "") ?? 0
            }
            #expect(released == 1)
            #expect(client.readResponse()?.text == "parked")
            #expect(client.readResponse()?.text.contains("[\"echo\", \"2\"]") == true)
        }
    }
}
