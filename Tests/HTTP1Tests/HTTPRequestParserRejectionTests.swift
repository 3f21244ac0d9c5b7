import Testing
@testable import HTTP1

/// Inputs that must be refused at once: malformed chunk extensions (RFC 9112 §7.1.1) and
/// bytes that can never begin a request line (TLS, binary). Each input is parsed whole, one
/// byte at a time and split at every position, with the same outcome.
@Suite struct HTTPRequestParserRejectionTests {
    private func events(_ input: [UInt8], limits: HTTPParserLimits = testLimits) -> [HTTPParserEvent] {
        let (events, mismatch) = parseEverySplit(input, limits: limits)
        #expect(mismatch == nil, "\(mismatch ?? "")")
        return events
    }

    private func expectError(
        _ input: [UInt8], _ kind: HTTPParserError.Kind, status: Int = 400, offset: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let events = events(input)
        guard let error = events.last?.error else {
            Issue.record("expected \(kind), got \(events)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
        #expect(error.status == status, "\(error)", sourceLocation: sourceLocation)
        if let offset { #expect(error.offset == offset, "\(error)", sourceLocation: sourceLocation) }
    }

    // MARK: Chunk extensions

    static let chunkedHead = "PUT / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"

    @Test func chunkExtensionWithoutANameIsRefused() {
        let head = Self.chunkedHead
        expectError(bytes(head + "5;\r\nhello\r\n0\r\n\r\n"), .invalidChunkExtension, offset: head.utf8.count + 2)
        expectError(bytes(head + "5; \r\nhello\r\n0\r\n\r\n"), .invalidChunkExtension)
        expectError(bytes(head + "5;;a\r\nhello\r\n0\r\n\r\n"), .invalidChunkExtension)
        expectError(bytes(head + "5;=v\r\nhello\r\n0\r\n\r\n"), .invalidChunkExtension)
        expectError(bytes(head + "5;a;\r\nhello\r\n0\r\n\r\n"), .invalidChunkExtension)
        expectError(bytes(head + "0;\r\n\r\n"), .invalidChunkExtension)
    }

    @Test func chunkExtensionValuesMustBeTokensOrQuotedStrings() {
        let head = Self.chunkedHead
        expectError(bytes(head + "5;a=\r\nhello\r\n0\r\n\r\n"), .invalidChunkExtension)
        expectError(bytes(head + "5;a=b c\r\nhello\r\n0\r\n\r\n"), .invalidChunkExtension)
        expectError(bytes(head + "5;a=\"open\r\nhello\r\n0\r\n\r\n"), .invalidChunkExtension)
        expectError(bytes(head + "5;a=(b)\r\nhello\r\n0\r\n\r\n"), .invalidChunkExtension)
        expectError(bytes(head + "5;a b\r\nhello\r\n0\r\n\r\n"), .invalidChunkExtension)
        expectError(bytes(head + "5;a\u{7F}\r\nhello\r\n0\r\n\r\n"), .invalidChunkExtension)
        expectError(bytes(head + "5;a\rb\r\nhello\r\n0\r\n\r\n"), .bareCR)
    }

    @Test func wellFormedChunkExtensionsAreIgnored() {
        let head = Self.chunkedHead
        let valid = [
            "5;a\r\nhello\r\n0\r\n\r\n",
            "5;a=b\r\nhello\r\n0\r\n\r\n",
            "5 ; a = b ; c\r\nhello\r\n0\r\n\r\n",
            "5;\ta\t=\t\"quoted \\\" ; \\\\ value\"\r\nhello\r\n0;last\r\n\r\n",
            "5;a=\"\"\r\nhello\r\n0\r\n\r\n",
        ]
        var roomy = testLimits
        roomy.maxChunkSizeLineLength = 64
        for body in valid {
            let events = events(bytes(head + body), limits: roomy)
            #expect(events.count == 2, "\(body.debugDescription): \(events)")
            #expect(events.last?.body == bytes("hello"), "\(body.debugDescription)")
        }
    }

    // MARK: Bytes that cannot start a request

    /// The first bytes of a TLS 1.2/1.3 ClientHello record (handshake, version 3.1, length).
    static let tlsClientHello: [UInt8] = [
        0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03, 0x5A, 0x9E, 0x11, 0x42,
    ]

    @Test func tlsClientHelloIsRefusedAtTheFirstByte() {
        expectError(Self.tlsClientHello, .invalidMethod, offset: 0)
        // Nothing more than the first byte is needed.
        var parser = HTTPRequestParser(limits: testLimits)
        #expect(parser.parse([0x16]).last?.error?.kind == .invalidMethod)
    }

    @Test func binaryOrControlBytesBeforeTheMethodAreRefused() {
        expectError([0x00], .invalidMethod, offset: 0)
        expectError([0x80, 0x81], .invalidMethod, offset: 0)
        expectError(bytes("\u{1B}[A"), .invalidMethod, offset: 0)
        expectError(bytes("\tGET / HTTP/1.1\r\n"), .invalidMethod, offset: 0)
        expectError(bytes(" GET / HTTP/1.1\r\n"), .invalidRequestLine, offset: 0)
        // A bad byte inside the method is found before the line ends.
        expectError(bytes("GE") + [0x16], .invalidMethod, offset: 2)
        expectError(bytes("G{T / HTTP/1.1\r\nHost: h\r\n\r\n"), .invalidMethod, offset: 1)
        // A CR must end the line.
        expectError(bytes("\rX"), .bareCR, offset: 0)
        expectError(bytes("GET\rX"), .bareCR, offset: 3)
    }

    @Test func aPartialMethodWaitsForMoreBytes() {
        var parser = HTTPRequestParser(limits: testLimits)
        #expect(parser.parse(bytes("GE")).isEmpty)
        #expect(parser.parse(bytes("\r")).isEmpty)
        #expect(parser.parse(bytes("\n")).last?.error?.kind == .invalidRequestLine)
    }

    @Test func emptyLinesBeforeTheRequestLineAreStillIgnored() throws {
        let events = events(bytes("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n"))
        #expect(events.count == 2)
        #expect(try #require(events.first?.head).path == "/")
        // An empty line then garbage: refused at the garbage.
        expectError([0x0D, 0x0A, 0x16, 0x03], .invalidMethod, offset: 2)
    }
}
