import HTTPTestSupport
import Testing
@testable import HTTP1

/// Input that is not HTTP, or malformed framing, over a real socket: answered 400 at once
/// and closed, never left to the header timeout.
@Suite(.timeLimit(.minutes(1))) struct LoopbackRejectionTests {
    /// The header timeout is far longer than the client waits (5 s), so only an immediate
    /// answer passes.
    static func configure(_ c: inout HTTPServerConfiguration) {
        c.headerReadTimeout = .seconds(120)
        c.bodyReadTimeout = .seconds(120)
    }

    @Test func tlsClientHelloOnThePlainPortGets400AtOnce() throws {
        try withServer(Self.configure) { _, port in
            let client = try HTTPTestClient(port: port, timeout: .seconds(5))
            client.send(HTTPRequestParserRejectionTests.tlsClientHello)
            let response = try #require(client.readResponse())
            #expect(response.status == 400)
            #expect(response.headers["connection"] == "close")
            #expect(client.readsEOF())
        }
    }

    @Test func aChunkExtensionWithoutANameGets400AndClose() throws {
        try withServer(Self.configure) { _, port in
            let client = try HTTPTestClient(port: port, timeout: .seconds(5))
            client.send("PUT /sum HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;\r\nhello\r\n0\r\n\r\n")
            let response = try #require(client.readResponse())
            #expect(response.status == 400)
            #expect(response.text.contains("chunk extension"))
            #expect(client.readsEOF())
        }
    }
}
