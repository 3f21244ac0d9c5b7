import Testing
@testable import TreeSessionsClient

/// The event-stream parser on bytes split anywhere, every line ending, comments and multi-line data.
@Suite struct ServerSentEventParserTests {
    static let stream = Array((
        "\u{FEFF}retry: 2000\r\n\r\n" +
        "event: reset\nid: 7\ndata: {\"version\":7,\"total\":5,\"reason\":\"subscribed\"}\n\n" +
        ": heartbeat\r\r" +
        "event: change\r\nid: 8\r\ndata: line one\r\ndata:line two\r\ndata\r\n\r\n" +
        "data: é ünïcödé 😀\n\n" +
        "event: ignored-without-data\nid: 9\n\n" +
        "event: end\ndata: {\"reason\":\"deleted\"}\n\n" +
        "data: unfinished").utf8)

    static let expected: [ServerSentEventParser.Output] = [
        .retry(2000),
        .event(ServerSentEvent(event: "reset", data: #"{"version":7,"total":5,"reason":"subscribed"}"#, id: "7")),
        .event(ServerSentEvent(event: "change", data: "line one\nline two\n", id: "8")),
        .event(ServerSentEvent(event: "message", data: "é ünïcödé 😀", id: "8")),
        .event(ServerSentEvent(event: "end", data: #"{"reason":"deleted"}"#, id: "9")),
    ]

    @Test func wholeStream() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Self.stream) == Self.expected)
    }

    @Test func splitAtEveryByte() {
        for cut in 0...Self.stream.count {
            var parser = ServerSentEventParser()
            let outputs = parser.feed(Self.stream[..<cut]) + parser.feed(Self.stream[cut...])
            #expect(outputs == Self.expected, "split at byte \(cut)")
        }
        var parser = ServerSentEventParser()
        var outputs: [ServerSentEventParser.Output] = []
        for byte in Self.stream { outputs += parser.feed([byte]) }
        #expect(outputs == Self.expected, "a byte at a time")
    }

    @Test func typedEvents() throws {
        let change = ServerSentEvent(event: "change", data: #"{"version":8,"total":8,"changes":[{"index":1,"removed":0,"inserted":3}],"reload":[{"index":0,"count":1}],"index":0}"#, id: "8")
        guard case .change(let event)? = try ServerEvent(change) else { Issue.record("not a change"); return }
        #expect(event.response.version == 8)
        #expect(event.response.changes == [Splice(index: 1, removed: 0, inserted: 3)])
        #expect(try ServerEvent(ServerSentEvent(event: "end", data: #"{"reason":"expired"}"#, id: nil)) == .end(EndEvent(reason: .expired)))
        #expect(try ServerEvent(ServerSentEvent(event: "message", data: "x", id: nil)) == nil)
    }
}
