import Testing
@testable import HTTP1

/// Every rule of the parser, each request also fed one byte at a time and split at every
/// position (`parseEverySplit`), which must give the same events.
@Suite struct HTTPRequestParserTests {
    private func single(_ raw: String, limits: HTTPParserLimits = testLimits) -> [HTTPParserEvent] {
        let (events, mismatch) = parseEverySplit(bytes(raw), limits: limits)
        #expect(mismatch == nil, "\(mismatch ?? "")")
        return events
    }

    private func expectError(
        _ raw: String, _ status: Int, _ kind: HTTPParserError.Kind? = nil,
        limits: HTTPParserLimits = testLimits, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let events = single(raw, limits: limits)
        guard let error = events.last?.error else {
            Issue.record("expected \(status), got \(events)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.status == status, "\(error)", sourceLocation: sourceLocation)
        if let kind { #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation) }
    }

    // MARK: Valid requests

    @Test func simpleGet() throws {
        let events = single("GET /a/b%20c/?x=1&y=a+b&x=2&flag HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n")
        #expect(events.count == 2)
        let head = try #require(events.first?.head)
        #expect(head.method == "GET")
        #expect(head.target == "/a/b%20c/?x=1&y=a+b&x=2&flag")
        #expect(head.path == "/a/b%20c/")
        #expect(head.pathSegments == ["a", "b c", ""])
        #expect(head.query.map(\.name) == ["x", "y", "x", "flag"])
        #expect(head.query.map(\.value) == ["1", "a b", "2", ""])
        #expect(head.headers["host"] == "example.com")
        #expect(head.headers["ACCEPT"] == "*/*")
        #expect(head.version == .http1_1)
        #expect(head.keepAlive)
        #expect(head.framing == .none)
        #expect(events.last?.body == [])
        let request = head.request(body: [], remoteAddress: "::1")
        #expect(request.queryValue("x") == "1")
        #expect(request.queryValue("missing") == nil)
    }

    @Test func pathSegmentRules() throws {
        func segments(_ target: String) -> [String]? {
            parseEvents(bytes("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n")).first?.head?.pathSegments
        }
        #expect(segments("/") == [])
        #expect(segments("/a/") == ["a", ""])
        #expect(segments("/a%2Fb/c") == ["a/b", "c"])
        #expect(segments("/%2525") == ["%25"])  // decoded once
        #expect(segments("//x") == ["", "x"])
        #expect(segments("/%E2%82%AC") == ["€"])
        #expect(segments("/a+b") == ["a+b"])  // '+' is literal in a path
    }

    @Test func percentEncodingErrors() {
        expectError("GET /a%2 HTTP/1.1\r\nHost: h\r\n\r\n", 400, .invalidPercentEncoding)
        expectError("GET /a%zz HTTP/1.1\r\nHost: h\r\n\r\n", 400, .invalidPercentEncoding)
        expectError("GET /a%00b HTTP/1.1\r\nHost: h\r\n\r\n", 400, .invalidPercentEncoding)
        expectError("GET /%FF HTTP/1.1\r\nHost: h\r\n\r\n", 400, .invalidPercentEncoding)
        expectError("GET /?q=%G1 HTTP/1.1\r\nHost: h\r\n\r\n", 400, .invalidPercentEncoding)
    }

    @Test func absoluteFormIsReducedToItsPath() throws {
        let head = try #require(single("GET http://example.com:8080/x/y?z=1 HTTP/1.1\r\nHost: other\r\n\r\n").first?.head)
        #expect(head.path == "/x/y")
        #expect(head.pathSegments == ["x", "y"])
        #expect(head.query.first?.value == "1")
        let bare = try #require(single("GET HTTPS://example.com HTTP/1.1\r\nHost: e\r\n\r\n").first?.head)
        #expect(bare.path == "/")
        #expect(bare.pathSegments == [])
        expectError("GET ftp://example.com/ HTTP/1.1\r\nHost: h\r\n\r\n", 400, .invalidTarget)
        expectError("GET http:///x HTTP/1.1\r\nHost: h\r\n\r\n", 400, .invalidTarget)
    }

    @Test func asteriskAndAuthorityForms() throws {
        let options = try #require(single("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n").first?.head)
        #expect(options.path == "*")
        expectError("GET * HTTP/1.1\r\nHost: h\r\n\r\n", 400, .invalidTarget)
        let connect = try #require(single("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n").first?.head)
        #expect(connect.method == "CONNECT")
        expectError("GET example.com:443 HTTP/1.1\r\nHost: h\r\n\r\n", 400, .invalidTarget)
    }

    @Test func leadingEmptyLinesAreIgnored() throws {
        let events = single("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(events.first?.head?.method == "GET")
    }

    @Test(arguments: ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"])
    func knownMethods(method: String) throws {
        let head = try #require(single("\(method) /x HTTP/1.1\r\nHost: h\r\n\r\n").first?.head)
        #expect(head.method == method)
    }

    @Test func unknownAndInvalidMethods() {
        expectError("BREW /pot HTTP/1.1\r\nHost: h\r\n\r\n", 501, .unknownMethod)
        expectError("get / HTTP/1.1\r\nHost: h\r\n\r\n", 501, .unknownMethod)  // methods are case-sensitive
        expectError("G(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400, .invalidMethod)
    }

    @Test func versions() throws {
        let old = try #require(single("GET / HTTP/1.0\r\n\r\n").first?.head)  // Host optional in 1.0
        #expect(old.version == .http1_0)
        #expect(!old.keepAlive)
        let ka = try #require(single("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").first?.head)
        #expect(ka.keepAlive)
        let future = try #require(single("GET / HTTP/1.7\r\nHost: h\r\n\r\n").first?.head)
        #expect(future.version == .http1_1)
        expectError("GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505, .unsupportedVersion)
        expectError("GET / HTTP/0.9\r\n\r\n", 505, .unsupportedVersion)
        expectError("GET / HTTP/1.10\r\nHost: h\r\n\r\n", 400, .invalidVersion)
        expectError("GET / http/1.1\r\nHost: h\r\n\r\n", 400, .invalidVersion)
        expectError("GET /\r\n\r\n", 400, .invalidRequestLine)
    }

    @Test func requestLineWhitespace() {
        expectError("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400)
        expectError("GET / x HTTP/1.1\r\nHost: h\r\n\r\n", 400, .invalidTarget)
        expectError("GET / HTTP/1.1 \r\nHost: h\r\n\r\n", 400)
        expectError(" GET / HTTP/1.1\r\nHost: h\r\n\r\n", 400)
    }

    @Test func connectionHeader() throws {
        #expect(try #require(single("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n").first?.head).keepAlive == false)
        #expect(try #require(single("GET / HTTP/1.1\r\nHost: h\r\nConnection: foo, CLOSE\r\n\r\n").first?.head).keepAlive == false)
        #expect(try #require(single("GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n").first?.head).keepAlive == false)
    }

    @Test func headerValuesAreTrimmedAndKeptInOrder() throws {
        let head = try #require(single("GET / HTTP/1.1\r\nHost: h\r\nX-A:  one \t\r\nx-a:two\r\nX-Empty:\r\nX-Obs: caf\u{E9}\r\n\r\n").first?.head)
        #expect(head.headers.values(for: "x-a") == ["one", "two"])
        #expect(head.headers["x-empty"] == "")
        #expect(head.headers.fields.map(\.name) == ["Host", "X-A", "x-a", "X-Empty", "X-Obs"])
    }

    // MARK: Bodies

    @Test func contentLengthBody() throws {
        let events = single("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello")
        #expect(events.first?.head?.framing == .length(5))
        #expect(events.last?.body == bytes("hello"))
    }

    @Test func identicalContentLengthsAreAccepted() throws {
        #expect(single("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 3\r\n\r\nabc").last?.body == bytes("abc"))
        #expect(single("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc").last?.body == bytes("abc"))
    }

    @Test func contentLengthErrors() {
        expectError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabc", 400, .conflictingContentLength)
        expectError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 4\r\n\r\nabc", 400, .conflictingContentLength)
        expectError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", 400, .invalidContentLength)
        expectError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +3\r\n\r\nabc", 400, .invalidContentLength)
        expectError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0x10\r\n\r\n", 400, .invalidContentLength)
        expectError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length:\r\n\r\n", 400, .invalidContentLength)
        expectError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999\r\n\r\n", 400, .invalidContentLength)
    }

    @Test func bodyLimitIsCheckedBeforeReading() {
        // 101 > maxBodySize (100): rejected with the head alone, no body bytes sent.
        expectError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 101\r\n\r\n", 413, .bodyTooLarge)
        #expect(single("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\n" + String(repeating: "x", count: 100)).last?.body?.count == 100)
    }

    @Test func chunkedBody() throws {
        let raw = "PUT /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value;x\r\nhello\r\nA \t; ext\r\n, world!!!\r\n0\r\nTrailer: x\r\nOther: y\r\n\r\n"
        let events = single(raw)
        #expect(events.first?.head?.framing == .chunked)
        #expect(events.count == 2)
        #expect(events.last?.body == bytes("hello, world!!!"))
    }

    @Test func chunkedThenPipelinedRequest() throws {
        let raw = "POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
            + "GET /b HTTP/1.1\r\nHost: h\r\n\r\n"
        let events = single(raw)
        #expect(events.count == 4)
        #expect(events[1].body == bytes("abc"))
        #expect(events[2].head?.path == "/b")
    }

    @Test func chunkedBodyLimitIsCountedWhileDecoding() {
        let chunk = String(repeating: "y", count: 60)
        expectError("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3c\r\n\(chunk)\r\n3c\r\n\(chunk)\r\n0\r\n\r\n", 413, .bodyTooLarge)
    }

    @Test func chunkedErrors() {
        let head = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        expectError(head + "g\r\n", 400, .invalidChunkSize)
        expectError(head + "\r\n", 400, .invalidChunkSize)
        expectError(head + "-1\r\n", 400, .invalidChunkSize)
        expectError(head + "3x\r\nabc\r\n", 400, .invalidChunkSize)
        expectError(head + "3\r\nabcX\r\n", 400, .invalidChunkTerminator)
        expectError(head + "3\r\nabc\rX", 400, .bareCR)
        expectError(head + "3\nabc\r\n", 400, .bareLF)
        expectError(head + "3;" + String(repeating: "e", count: 20) + "\r\n", 400, .chunkSizeLineTooLong)
        var roomy = testLimits
        roomy.maxChunkSizeLineLength = 40
        expectError(head + "1234567890abcdef0\r\n", 400, .invalidChunkSize, limits: roomy)
        expectError(head + "0\r\nBad Trailer: x\r\n\r\n", 400, .whitespaceBeforeColon)
    }

    @Test func transferEncodingRules() {
        expectError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400, .contentLengthWithTransferEncoding)
        expectError("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", 400, .contentLengthWithTransferEncoding)
        expectError("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", 501, .unsupportedTransferCoding)
        expectError("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501, .unsupportedTransferCoding)
        expectError("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 400, .chunkedNotLast)
        expectError("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n", 400, .chunkedNotLast)
        expectError("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", 400, .chunkedNotLast)
        expectError("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding:\r\n\r\n", 400, .chunkedNotLast)
        expectError("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400, .transferEncodingInHTTP10)
    }

    @Test func expectContinue() throws {
        let head = try #require(single("POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\nok").first?.head)
        #expect(head.expectsContinue)
        let noBody = try #require(single("GET / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n\r\n").first?.head)
        #expect(!noBody.expectsContinue)
        // Too large: 413 straight from the head, so no 100 is ever sent.
        expectError("POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 1000\r\n\r\n", 413, .bodyTooLarge)
        expectError("POST / HTTP/1.1\r\nHost: h\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\nok", 417, .unsupportedExpectation)
    }

    // MARK: Header syntax

    @Test func headerSyntaxErrors() {
        expectError("GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400, .whitespaceBeforeColon)
        expectError("GET / HTTP/1.1\r\nHost\t: h\r\n\r\n", 400, .whitespaceBeforeColon)
        expectError("GET / HTTP/1.1\r\nHost: h\r\nX-Long: a\r\n  continued\r\n\r\n", 400, .obsFold)
        expectError("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\rb\r\n\r\n", 400, .bareCR)
        expectError("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\r\r\n\r\n", 400, .bareCR)
        expectError("GET / HTTP/1.1\r\nHost: h\nX: y\r\n\r\n", 400, .bareLF)
        expectError("GET / HTTP/1.1\r\nHost: h\r\n\n", 400, .bareLF)
        expectError("GET /\r HTTP/1.1\r\nHost: h\r\n\r\n", 400, .bareCR)
        expectError("GET / HTTP/1.1\r\nHo(st: h\r\n\r\n", 400, .invalidFieldName)
        expectError("GET / HTTP/1.1\r\n: h\r\n\r\n", 400, .invalidFieldName)
        expectError("GET / HTTP/1.1\r\nNoColon\r\n\r\n", 400, .invalidFieldName)
        expectError("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\u{0}b\r\n\r\n", 400, .invalidFieldValue)
        expectError("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\u{7F}\r\n\r\n", 400, .invalidFieldValue)
    }

    @Test func invalidTargetCharacters() {
        for bad in ["/a b", "/a\"b", "/<x>", "/a\\b", "/a^b", "/{x}", "/a|b", "/a#frag", "/caf\u{E9}", "/a\u{1}"] {
            expectError("GET \(bad) HTTP/1.1\r\nHost: h\r\n\r\n", 400)
        }
    }

    @Test func hostRules() {
        expectError("GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", 400, .missingHost)
        expectError("GET / HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n", 400, .duplicateHost)
        expectError("GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", 400, .duplicateHost)
        expectError("GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400, .invalidHost)
        expectError("GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", 400, .invalidHost)
        #expect(single("GET / HTTP/1.1\r\nHost:\r\n\r\n").first?.head != nil)  // empty Host is allowed
        #expect(single("GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n").first?.head != nil)
    }

    // MARK: Limits

    @Test func requestLineLimit() {
        let ok = "GET /" + String(repeating: "a", count: 64 - 14) + " HTTP/1.1"
        #expect(ok.utf8.count == 64)
        #expect(single(ok + "\r\nHost: h\r\n\r\n").first?.head != nil)
        let long = "GET /" + String(repeating: "a", count: 64 - 13) + " HTTP/1.1"
        expectError(long + "\r\nHost: h\r\n\r\n", 414, .requestLineTooLong)
        // Rejected before the line ends: no need to wait for the CRLF.
        let events = parseEvents(bytes("GET /" + String(repeating: "a", count: 100)))
        #expect(events.last?.error?.status == 414)
    }

    @Test func headerSectionLimits() {
        let field = "X-F: " + String(repeating: "v", count: 40) + "\r\n"  // 47 bytes
        // Host (9) + 2 fields (94) = 103 <= 128; + 3 fields = 150 > 128.
        #expect(single("GET / HTTP/1.1\r\nHost: h\r\n" + field + field + "\r\n").first?.head != nil)
        expectError("GET / HTTP/1.1\r\nHost: h\r\n" + field + field + field + "\r\n", 431, .headerSectionTooLarge)
        let events = parseEvents(bytes("GET / HTTP/1.1\r\nX: " + String(repeating: "v", count: 200)))
        #expect(events.last?.error?.status == 431)
        let many = (0..<6).map { "X-\($0): v\r\n" }.joined()
        expectError("GET / HTTP/1.1\r\nHost: h\r\n" + many + "\r\n", 431, .tooManyHeaderFields)
    }

    /// Found by the fuzzer: an over-long line ending in a bare LF gave 414 when fed in
    /// pieces but 400 when fed whole. Length limits must win, however the bytes arrive.
    @Test func overLongLineEndingInBareLF() {
        expectError("GET /" + String(repeating: "a", count: 80) + " HTTP/1.1\n\r\n", 414, .requestLineTooLong)
        expectError("GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "v", count: 200) + "\n\r\n", 431, .headerSectionTooLarge)
        expectError("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: " + String(repeating: "v", count: 200) + "\n\r\n", 431, .headerSectionTooLarge)
    }

    @Test func headerSectionExactlyAtTheLimit() {
        // Host line 9 bytes + one field of 119 bytes = 128.
        let value = String(repeating: "v", count: 119 - 5)  // "X: " + value + CRLF
        #expect(single("GET / HTTP/1.1\r\nHost: h\r\nX: \(value)\r\n\r\n").first?.head != nil)
        expectError("GET / HTTP/1.1\r\nHost: h\r\nX: \(value)v\r\n\r\n", 431)
    }

    @Test func failureIsFinal() {
        var parser = HTTPRequestParser(limits: testLimits)
        let events = parser.parse(bytes("GET / HTTP/9.9\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n"))
        #expect(events.count == 1)
        #expect(parser.phase == .failed)
        #expect(parser.parse(bytes("GET / HTTP/1.1\r\nHost: h\r\n\r\n")).isEmpty)
    }

    @Test func errorsCarryTheirOffset() {
        let events = parseEvents(bytes("GET / HTTP/1.1\r\nHost: h\r\nBad Name: x\r\n\r\n"))
        #expect(events.last?.error?.offset == 28)  // the space after "Bad"
    }

    @Test func phases() {
        var parser = HTTPRequestParser(limits: testLimits)
        #expect(parser.phase == .idle)
        parser.append(bytes("POST / HTTP/1.1\r\n"))
        #expect(parser.next() == nil)
        #expect(parser.phase == .head)
        parser.append(bytes("Host: h\r\nContent-Length: 2\r\n\r\na"))
        #expect(parser.next()?.head != nil)
        #expect(parser.next() == nil)
        #expect(parser.phase == .body)
        parser.append(bytes("b"))
        #expect(parser.next()?.body == bytes("ab"))
        #expect(parser.phase == .idle)
    }

    /// Found with a 330 MB chunked upload: reserving exactly "count + chunk" before every
    /// chunk reallocated and copied the whole body each time (quadratic). 2000 chunks of
    /// 16 KiB took many seconds; with geometric growth it is instant.
    @Test func manyChunksGrowTheBodyGeometrically() {
        var limits = testLimits
        limits.maxBodySize = 1 << 30
        var parser = HTTPRequestParser(limits: limits)
        parser.append(bytes("PUT / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"))
        #expect(parser.next()?.head != nil)
        var chunk = bytes("4000\r\n")
        chunk += [UInt8](repeating: 0x61, count: 0x4000)
        chunk += bytes("\r\n")
        for _ in 0..<2000 {
            parser.append(chunk)
            #expect(parser.next() == nil)
        }
        parser.append(bytes("0\r\n\r\n"))
        #expect(parser.next()?.body?.count == 2000 * 0x4000)
    }

    @Test func largeBodyAcrossManyAppends() {
        var limits = testLimits
        limits.maxBodySize = 1 << 22
        var parser = HTTPRequestParser(limits: limits)
        let size = 3_000_000
        parser.append(bytes("PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: \(size)\r\n\r\n"))
        #expect(parser.next()?.head != nil)
        let piece = [UInt8](repeating: 0x41, count: 65536)
        var sent = 0
        var body: [UInt8]? = nil
        while sent < size {
            let n = min(piece.count, size - sent)
            parser.append(Array(piece[0..<n]))
            sent += n
            if let event = parser.next() { body = event.body }
        }
        #expect(body?.count == size)
    }
}
