#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A strict incremental HTTP/1.1 request parser (RFC 9112, RFC 9110): a plain value,
/// fed bytes with ``append(_:)`` and drained with ``next()``.
///
/// It knows nothing of sockets or time. Bytes may arrive split anywhere; the event sequence
/// is the same however the stream is cut. Pull-based: the parser only works when asked, so
/// a caller that stops calling `next()` (to keep responses in order) leaves later pipelined
/// requests buffered and untouched.
///
/// Cost: each byte of a head is looked at about twice (a `memchr` for LF, then one
/// validation pass per line); body bytes are copied once from the input buffer into the
/// body. A head is kept as byte ranges until it is complete, then turned into `String`s once.
struct HTTPRequestParser {
    enum Phase: Equatable {
        /// Between messages with nothing buffered.
        case idle
        /// Some bytes of a head have arrived.
        case head
        /// The head was delivered; the body (or its end) is pending.
        case body
        /// An error was delivered; the parser takes nothing more.
        case failed
    }

    enum State {
        case head
        case contentBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case complete
        case failed
    }

    let limits: HTTPParserLimits

    var buffer: [UInt8] = []
    var readIndex = 0
    /// Stream offset of `buffer[0]`, for error locations.
    var bufferStreamOffset = 0
    var state: State = .head

    // Internal (not private) only for HTTPRequestParser+Invariants.swift.
    // Head in progress. Offsets are relative to `readIndex` so compaction can move bytes.
    var scanOffset = 0
    var lineStart = 0
    var requestLineEnd = 0
    /// How far the start of the request line has been checked as a method (relative to
    /// `readIndex`); nil once its SP was seen.
    var methodScan: Int? = 0
    var method: Range<Int>? = nil
    var target: Range<Int> = 0..<0
    var version: HTTPVersion = .http1_1
    var fields: [(name: Range<Int>, value: Range<Int>)] = []
    var trailerBytes = 0
    var trailerCount = 0

    var body: [UInt8] = []

    init(limits: HTTPParserLimits = HTTPParserLimits()) {
        self.limits = limits
    }

    var phase: Phase {
        switch state {
        case .head: buffer.count > readIndex ? .head : .idle
        case .failed: .failed
        default: .body
        }
    }

    /// Bytes received but not yet consumed.
    var bufferedByteCount: Int { buffer.count - readIndex }

    /// Adds received bytes. - Complexity: O(bytes.count), amortized.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if case .failed = state { return }
        compact()
        buffer.append(contentsOf: bytes)
        checkInvariants()
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next event, or `nil` when more bytes are needed (or after a failure).
    /// - Complexity: O(bytes consumed).
    mutating func next() -> HTTPParserEvent? {
        let bytes = buffer  // a second reference: `buffer` is not mutated while parsing
        let event = bytes.withUnsafeBufferPointer { p in step(p) }
        checkInvariants()
        return event
    }

    /// Appends and drains: every event the bytes complete. For tests and the fuzzer.
    mutating func parse(_ bytes: [UInt8]) -> [HTTPParserEvent] {
        append(bytes)
        var events: [HTTPParserEvent] = []
        while let event = next() { events.append(event) }
        return events
    }

    /// Bytes of memory the body under construction holds (its capacity).
    var bodyCapacity: Int { body.capacity }

    /// Stops parsing and frees the body and the buffered bytes (the connection is closing
    /// without reading further, e.g. a body refused by the memory budget).
    mutating func abandon() {
        state = .failed
        body = []
        buffer = []
        bufferStreamOffset += readIndex
        readIndex = 0
        resetHead()
    }

    private mutating func compact() {
        guard readIndex > 0 else { return }
        if readIndex == buffer.count {
            bufferStreamOffset += readIndex
            buffer.removeAll(keepingCapacity: buffer.capacity <= 16 * 1024)  // idle connections stay small
            readIndex = 0
        } else if readIndex >= 16 * 1024 && readIndex * 2 >= buffer.count {
            bufferStreamOffset += readIndex
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
    }

    private mutating func fail(_ kind: HTTPParserError.Kind, at index: Int) -> HTTPParserEvent {
        state = .failed
        body = []
        return .failure(HTTPParserError(kind, offset: bufferStreamOffset + index))
    }

    private mutating func step(_ p: UnsafeBufferPointer<UInt8>) -> HTTPParserEvent? {
        while true {
            switch state {
            case .head:
                return parseHead(p)
            case .contentBody(let remaining):
                let n = min(remaining, p.count - readIndex)
                if body.count + n > body.capacity {
                    // Past the first 16 MiB reserved at the head, the client has shown it
                    // sends: reserve the exact total once instead of doubling.
                    body.reserveCapacity(body.count + remaining)
                }
                if n > 0 {
                    body.append(contentsOf: UnsafeBufferPointer(rebasing: p[readIndex..<readIndex + n]))
                    readIndex += n
                }
                if n == remaining { return finishMessage() }
                state = .contentBody(remaining: remaining - n)
                return nil
            case .chunkSize:
                let before = readIndex
                if let event = parseChunkSize(p) { return event }
                if readIndex == before { return nil }
            case .chunkData(let remaining):
                let n = min(remaining, p.count - readIndex)
                if n > 0 {
                    body.append(contentsOf: UnsafeBufferPointer(rebasing: p[readIndex..<readIndex + n]))
                    readIndex += n
                }
                if n < remaining {
                    state = .chunkData(remaining: remaining - n)
                    return nil
                }
                state = .chunkDataEnd
            case .chunkDataEnd:
                guard p.count - readIndex >= 1 else { return nil }
                guard p[readIndex] == ByteClass.cr else { return fail(.invalidChunkTerminator, at: readIndex) }
                guard p.count - readIndex >= 2 else { return nil }
                guard p[readIndex + 1] == ByteClass.lf else { return fail(.bareCR, at: readIndex) }
                readIndex += 2
                state = .chunkSize
            case .trailers:
                let before = readIndex
                if let event = parseTrailerLine(p) { return event }
                if readIndex == before { return nil }
            case .complete:
                return finishMessage()
            case .failed:
                return nil
            }
        }
    }

    private mutating func finishMessage() -> HTTPParserEvent {
        let complete = body
        body = []
        state = .head
        return .end(body: complete)
    }

    /// Index of the first LF in `p[from..<to]`, or nil.
    @inline(__always)
    private static func findLF(_ p: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int? {
        guard from < to, let base = p.baseAddress else { return nil }
        guard let hit = memchr(base + from, Int32(ByteClass.lf), to - from) else { return nil }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    // MARK: Head

    private mutating func parseHead(_ p: UnsafeBufferPointer<UInt8>) -> HTTPParserEvent? {
        while true {
            let base = readIndex
            let available = p.count - base
            guard let lf = Self.findLF(p, from: base + scanOffset, to: p.count) else {
                scanOffset = available
                if method == nil {
                    if let error = checkMethodPrefix(p, upTo: p.count) { return fail(error.0, at: error.1) }
                    // +1: the CR of a line that is exactly at the limit may already be here.
                    if available - lineStart > limits.maxRequestLineLength + 1 {
                        return fail(.requestLineTooLong, at: base + lineStart + limits.maxRequestLineLength)
                    }
                } else {
                    // A partial line of k ≥ 2 bytes will be at least k + 1 bytes long (k < 2
                    // may still be the empty line that ends the head).
                    let k = available - lineStart
                    if k >= 2 && lineStart - requestLineEnd + k + 1 > limits.maxHeaderSectionSize {
                        return fail(.headerSectionTooLarge, at: base + requestLineEnd + limits.maxHeaderSectionSize)
                    }
                }
                return nil
            }
            let lineBegin = base + lineStart
            // Length limits first, with the same test as on a partial line above, so the
            // outcome does not depend on where the bytes were cut.
            let m = lf - lineBegin
            if method == nil {
                if let error = checkMethodPrefix(p, upTo: lf) { return fail(error.0, at: error.1) }
                if m > limits.maxRequestLineLength + 1 {
                    return fail(.requestLineTooLong, at: lineBegin + limits.maxRequestLineLength)
                }
            } else if m >= 2 && lineStart - requestLineEnd + m + 1 > limits.maxHeaderSectionSize {
                return fail(.headerSectionTooLarge, at: base + requestLineEnd + limits.maxHeaderSectionSize)
            }
            guard lf > lineBegin, p[lf - 1] == ByteClass.cr else { return fail(.bareLF, at: lf) }
            let content = lineBegin..<(lf - 1)
            scanOffset = lf + 1 - base
            lineStart = scanOffset
            if method == nil {
                if content.isEmpty {
                    // RFC 9112 §2.2: ignore empty lines before the request line.
                    readIndex = lf + 1
                    scanOffset = 0
                    lineStart = 0
                    methodScan = 0
                    continue
                }
                if content.count > limits.maxRequestLineLength {
                    return fail(.requestLineTooLong, at: content.lowerBound + limits.maxRequestLineLength)
                }
                if let error = parseRequestLine(p, content) { return fail(error.0, at: error.1) }
                requestLineEnd = lineStart
            } else if content.isEmpty {
                return finishHead(p, headEnd: lf + 1)
            } else {
                if lineStart - requestLineEnd > limits.maxHeaderSectionSize {
                    return fail(.headerSectionTooLarge, at: base + requestLineEnd + limits.maxHeaderSectionSize)
                }
                if fields.count >= limits.maxHeaderCount {
                    return fail(.tooManyHeaderFields, at: content.lowerBound)
                }
                switch Self.parseFieldLine(p, content) {
                case .success(let field):
                    fields.append((field.name.shifted(by: -base), field.value.shifted(by: -base)))
                case .failure(let error):
                    return fail(error.kind, at: error.index)
                }
            }
        }
    }

    /// Checks the start of a request line as its bytes arrive, so that input that can never
    /// be a request (a TLS ClientHello, binary) is refused at once rather than after a line
    /// end or the header timeout: up to the first SP only token characters (the method), a
    /// CR only before LF, and no SP first. Looks at most at the first
    /// `maxRequestLineLength + 2` bytes, as far as the length check on a partial line, so
    /// the outcome does not depend on where the bytes were cut. Empty lines (CRLF) pass.
    /// - Complexity: O(new bytes of the method); each byte is looked at once.
    private mutating func checkMethodPrefix(_ p: UnsafeBufferPointer<UInt8>, upTo end: Int) -> (HTTPParserError.Kind, Int)? {
        guard let scanned = methodScan else { return nil }
        let base = readIndex
        let stop = min(end, base + limits.maxRequestLineLength + 2)
        var i = base + scanned
        while i < stop {
            let c = p[i]
            if c == ByteClass.sp {
                if i == base { return (.invalidRequestLine, i) }
                methodScan = nil
                return nil
            }
            if c == ByteClass.cr {
                guard i + 1 < end else { break }  // its LF may follow
                if p[i + 1] != ByteClass.lf { return (.bareCR, i) }
                break  // the line ends here
            }
            if c == ByteClass.lf { break }
            guard ByteClass.isTokenChar(c) else { return (.invalidMethod, i) }
            i += 1
        }
        methodScan = i - base
        return nil
    }

    private struct LineError: Error {
        var kind: HTTPParserError.Kind
        var index: Int
    }

    /// Kind for an invalid byte: a CR gets its own diagnosis.
    @inline(__always)
    private static func invalid(_ c: UInt8, _ otherwise: HTTPParserError.Kind) -> HTTPParserError.Kind {
        c == ByteClass.cr ? .bareCR : otherwise
    }

    private mutating func parseRequestLine(
        _ p: UnsafeBufferPointer<UInt8>, _ line: Range<Int>
    ) -> (HTTPParserError.Kind, Int)? {
        var sp1 = line.lowerBound
        while sp1 < line.upperBound && p[sp1] != ByteClass.sp {
            guard ByteClass.isTokenChar(p[sp1]) else { return (Self.invalid(p[sp1], .invalidMethod), sp1) }
            sp1 += 1
        }
        guard sp1 < line.upperBound, sp1 > line.lowerBound else { return (.invalidRequestLine, sp1) }
        var sp2 = line.upperBound - 1
        while sp2 > sp1 && p[sp2] != ByteClass.sp { sp2 -= 1 }
        guard sp2 > sp1 + 1 else { return (.invalidRequestLine, sp2) }
        for i in (sp1 + 1)..<sp2 where !ByteClass.isTargetChar(p[i]) {
            return (Self.invalid(p[i], .invalidTarget), i)
        }
        // HTTP-version = "HTTP/" DIGIT "." DIGIT
        let v = sp2 + 1
        guard line.upperBound - v == 8, p[v] == UInt8(ascii: "H"), p[v + 1] == UInt8(ascii: "T"),
            p[v + 2] == UInt8(ascii: "T"), p[v + 3] == UInt8(ascii: "P"), p[v + 4] == UInt8(ascii: "/"),
            p[v + 6] == UInt8(ascii: "."),
            let major = Self.digit(p[v + 5]), let minor = Self.digit(p[v + 7])
        else {
            for i in v..<line.upperBound where p[i] == ByteClass.cr { return (.bareCR, i) }
            return (.invalidVersion, v)
        }
        guard major == 1 else { return (.unsupportedVersion, v) }
        version = minor == 0 ? .http1_0 : .http1_1
        guard Self.knownMethod(p, line.lowerBound..<sp1) != nil else { return (.unknownMethod, line.lowerBound) }
        method = (line.lowerBound - readIndex)..<(sp1 - readIndex)
        target = (sp1 + 1 - readIndex)..<(sp2 - readIndex)
        return nil
    }

    @inline(__always)
    private static func digit(_ c: UInt8) -> Int? {
        c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") ? Int(c &- UInt8(ascii: "0")) : nil
    }

    /// The methods this server implements (RFC 9110 §9 and PATCH), as shared `String`s.
    static func knownMethod(_ p: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> String? {
        @inline(__always) func eq(_ s: StaticString) -> Bool {
            guard r.count == s.utf8CodeUnitCount else { return false }
            return memcmp(p.baseAddress! + r.lowerBound, s.utf8Start, r.count) == 0
        }
        switch r.count {
        case 3: return eq("GET") ? "GET" : eq("PUT") ? "PUT" : nil
        case 4: return eq("HEAD") ? "HEAD" : eq("POST") ? "POST" : nil
        case 5: return eq("PATCH") ? "PATCH" : eq("TRACE") ? "TRACE" : nil
        case 6: return eq("DELETE") ? "DELETE" : nil
        case 7: return eq("OPTIONS") ? "OPTIONS" : eq("CONNECT") ? "CONNECT" : nil
        default: return nil
        }
    }

    /// Validates `field-name ":" OWS field-value OWS` (RFC 9112 §5); returns absolute ranges.
    private static func parseFieldLine(
        _ p: UnsafeBufferPointer<UInt8>, _ line: Range<Int>
    ) -> Result<(name: Range<Int>, value: Range<Int>), LineError> {
        let first = p[line.lowerBound]
        if first == ByteClass.sp || first == ByteClass.htab {
            return .failure(LineError(kind: .obsFold, index: line.lowerBound))
        }
        var colon = line.lowerBound
        while colon < line.upperBound && ByteClass.isTokenChar(p[colon]) { colon += 1 }
        guard colon < line.upperBound else { return .failure(LineError(kind: .invalidFieldName, index: colon)) }
        let c = p[colon]
        guard c == UInt8(ascii: ":") else {
            let kind: HTTPParserError.Kind =
                c == ByteClass.sp || c == ByteClass.htab ? .whitespaceBeforeColon : invalid(c, .invalidFieldName)
            return .failure(LineError(kind: kind, index: colon))
        }
        guard colon > line.lowerBound else { return .failure(LineError(kind: .invalidFieldName, index: colon)) }
        let value = p.trimmingOWS((colon + 1)..<line.upperBound)
        for i in value where !ByteClass.isFieldValueChar(p[i]) {
            return .failure(LineError(kind: invalid(p[i], .invalidFieldValue), index: i))
        }
        return .success((line.lowerBound..<colon, value))
    }

    private mutating func resetHead() {
        scanOffset = 0
        lineStart = 0
        requestLineEnd = 0
        methodScan = 0
        method = nil
        fields.removeAll(keepingCapacity: true)
    }

    private mutating func finishHead(_ p: UnsafeBufferPointer<UInt8>, headEnd: Int) -> HTTPParserEvent {
        let base = readIndex
        var headers = HTTPHeaders()
        headers.reserveCapacity(fields.count)
        var hostCount = 0
        var contentLength: Int? = nil
        var codings: [Range<Int>] = []
        var sawTransferEncoding = false
        var connectionClose = false
        var connectionKeepAlive = false
        var expectContinue = false
        var badExpectation = false

        for field in fields {
            let name = field.name.shifted(by: base)
            let value = field.value.shifted(by: base)
            headers.appendUnchecked(HTTPField(name: p.string(name), value: p.string(value)))
            switch name.count {
            case 4 where p.equalsLowercase(name, "host"):
                hostCount += 1
                for i in value where !ByteClass.isHostChar(p[i]) { return fail(.invalidHost, at: i) }
            case 14 where p.equalsLowercase(name, "content-length"):
                let elements = p.listElements(value)
                guard !elements.isEmpty else { return fail(.invalidContentLength, at: value.lowerBound) }
                for element in elements {
                    guard let length = Self.decimal(p, element) else {
                        return fail(.invalidContentLength, at: element.lowerBound)
                    }
                    if let contentLength, contentLength != length {
                        return fail(.conflictingContentLength, at: element.lowerBound)
                    }
                    contentLength = length
                }
            case 17 where p.equalsLowercase(name, "transfer-encoding"):
                sawTransferEncoding = true
                codings.append(contentsOf: p.listElements(value))
            case 10 where p.equalsLowercase(name, "connection"):
                for element in p.listElements(value) {
                    if p.equalsLowercase(element, "close") { connectionClose = true }
                    if p.equalsLowercase(element, "keep-alive") { connectionKeepAlive = true }
                }
            case 6 where p.equalsLowercase(name, "expect"):
                if p.equalsLowercase(value, "100-continue") { expectContinue = true } else { badExpectation = true }
            default:
                break
            }
        }

        let headStart = base
        if version == .http1_1 && hostCount == 0 { return fail(.missingHost, at: headEnd - 2) }
        if hostCount > 1 { return fail(.duplicateHost, at: headStart) }

        var framing = BodyFraming.none
        if sawTransferEncoding {
            if version == .http1_0 { return fail(.transferEncodingInHTTP10, at: headStart) }
            if contentLength != nil { return fail(.contentLengthWithTransferEncoding, at: headStart) }
            guard let last = codings.last else { return fail(.chunkedNotLast, at: headStart) }
            let chunkedBeforeLast = codings.dropLast().contains { p.equalsLowercase($0, "chunked") }
            if chunkedBeforeLast { return fail(.chunkedNotLast, at: headStart) }
            if !p.equalsLowercase(last, "chunked") || codings.count > 1 {
                return fail(.unsupportedTransferCoding, at: headStart)
            }
            framing = .chunked
        } else if let contentLength {
            if contentLength > limits.maxBodySize { return fail(.bodyTooLarge, at: headStart) }
            framing = contentLength == 0 ? .none : .length(contentLength)
        }
        if version == .http1_0 {
            expectContinue = false
        } else if badExpectation {
            return fail(.unsupportedExpectation, at: headStart)
        }

        let targetRange = target.shifted(by: base)
        let methodString = Self.knownMethod(p, method!.shifted(by: base))!
        let parts: RequestTarget.Parts
        switch RequestTarget.split(UnsafeBufferPointer(rebasing: p[targetRange]), method: methodString, lenient: false) {
        case .success(let value): parts = value
        case .failure(.badForm): return fail(.invalidTarget, at: targetRange.lowerBound)
        case .failure(.badEncoding): return fail(.invalidPercentEncoding, at: targetRange.lowerBound)
        }

        let head = HTTPRequestHead(
            method: methodString,
            target: p.string(targetRange),
            path: parts.path,
            pathSegments: parts.segments,
            query: parts.query,
            headers: headers,
            version: version,
            keepAlive: version == .http1_1 ? !connectionClose : (connectionKeepAlive && !connectionClose),
            expectsContinue: expectContinue && framing != .none,
            framing: framing)

        readIndex = headEnd
        resetHead()
        switch framing {
        case .none:
            state = .complete
        case .length(let n):
            body.reserveCapacity(min(n, 16 << 20))
            state = .contentBody(remaining: n)
        case .chunked:
            state = .chunkSize
        }
        return .head(head)
    }

    /// `1*DIGIT` without overflow.
    private static func decimal(_ p: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> Int? {
        guard !r.isEmpty, r.count <= 18 else { return nil }
        var value = 0
        for i in r {
            guard let d = digit(p[i]) else { return nil }
            value = value * 10 + d
        }
        return value
    }

    // MARK: Chunked body

    /// `chunk-size [ chunk-ext ] CRLF`; extensions are checked for legal bytes and ignored.
    private mutating func parseChunkSize(_ p: UnsafeBufferPointer<UInt8>) -> HTTPParserEvent? {
        let from = readIndex
        let limit = min(p.count, from + limits.maxChunkSizeLineLength + 2)
        guard let lf = Self.findLF(p, from: from, to: limit) else {
            if p.count - from > limits.maxChunkSizeLineLength + 1 {
                return fail(.chunkSizeLineTooLong, at: from + limits.maxChunkSizeLineLength)
            }
            return nil
        }
        guard lf > from, p[lf - 1] == ByteClass.cr else { return fail(.bareLF, at: lf) }
        let end = lf - 1
        if end - from > limits.maxChunkSizeLineLength {
            return fail(.chunkSizeLineTooLong, at: from + limits.maxChunkSizeLineLength)
        }
        var i = from
        var size = 0
        while i < end, let h = ByteClass.hexValue(p[i]) {
            guard i - from < 15 else { return fail(.invalidChunkSize, at: i) }
            size = size << 4 | Int(h)
            i += 1
        }
        guard i > from else { return fail(.invalidChunkSize, at: i) }
        if i < end, let error = Self.checkChunkExtensions(p, from: i, end: end) {
            return fail(error.kind, at: error.index)
        }
        if size > limits.maxBodySize - body.count { return fail(.bodyTooLarge, at: from) }
        readIndex = lf + 1
        if size == 0 {
            trailerBytes = 0
            trailerCount = 0
            scanOffset = 0
            state = .trailers
        } else {
            // No reserveCapacity here: reserving "count + size" per chunk would copy the whole
            // body for every chunk; `append` grows geometrically.
            state = .chunkData(remaining: size)
        }
        return nil
    }

    /// `*( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )` in `p[from..<end]`
    /// (RFC 9112 §7.1.1), where `chunk-ext-val` is a token or a quoted string. Extensions are
    /// checked, then ignored. `from < end` is the first byte after the chunk size.
    private static func checkChunkExtensions(_ p: UnsafeBufferPointer<UInt8>, from: Int, end: Int) -> LineError? {
        var i = from
        @inline(__always) func skipBWS() {
            while i < end && (p[i] == ByteClass.sp || p[i] == ByteClass.htab) { i += 1 }
        }
        @inline(__always) func error(_ kind: HTTPParserError.Kind = .invalidChunkExtension) -> LineError {
            LineError(kind: i < end ? invalid(p[i], kind) : kind, index: i)
        }
        var first = true
        while true {
            if !first && i == end { return nil }
            let gap = i
            skipBWS()
            guard i < end, p[i] == UInt8(ascii: ";") else {
                // After the size only an extension may follow: "3x" is a bad size.
                if first { return LineError(kind: invalid(p[i == end ? gap : i], .invalidChunkSize), index: i) }
                return error()
            }
            first = false
            i += 1
            skipBWS()
            let name = i
            while i < end && ByteClass.isTokenChar(p[i]) { i += 1 }
            guard i > name else { return error() }
            let afterName = i
            skipBWS()
            guard i < end, p[i] == UInt8(ascii: "=") else {
                i = afterName
                continue
            }
            i += 1
            skipBWS()
            if i < end && p[i] == UInt8(ascii: "\"") {
                // quoted-string: qdtext or a backslash and one byte of HTAB / SP / VCHAR / obs-text.
                i += 1
                while i < end && p[i] != UInt8(ascii: "\"") {
                    if p[i] == UInt8(ascii: "\\") { i += 1 }
                    guard i < end, ByteClass.isFieldValueChar(p[i]) else { return error() }
                    i += 1
                }
                guard i < end else { return error() }
                i += 1
            } else {
                let value = i
                while i < end && ByteClass.isTokenChar(p[i]) { i += 1 }
                guard i > value else { return error() }
            }
        }
    }

    /// One line of the trailer section; fields are validated and discarded.
    private mutating func parseTrailerLine(_ p: UnsafeBufferPointer<UInt8>) -> HTTPParserEvent? {
        let from = readIndex
        guard let lf = Self.findLF(p, from: from + scanOffset, to: p.count) else {
            scanOffset = p.count - from
            if scanOffset >= 2 && trailerBytes + scanOffset + 1 > limits.maxHeaderSectionSize {
                return fail(.headerSectionTooLarge, at: from)
            }
            return nil
        }
        scanOffset = 0
        if lf - from >= 2 && trailerBytes + lf - from + 1 > limits.maxHeaderSectionSize {
            return fail(.headerSectionTooLarge, at: from)
        }
        guard lf > from, p[lf - 1] == ByteClass.cr else { return fail(.bareLF, at: lf) }
        let content = from..<(lf - 1)
        readIndex = lf + 1
        if content.isEmpty { return finishMessage() }
        trailerBytes += content.count + 2
        trailerCount += 1
        if trailerBytes > limits.maxHeaderSectionSize { return fail(.headerSectionTooLarge, at: from) }
        if trailerCount > limits.maxHeaderCount { return fail(.tooManyHeaderFields, at: from) }
        if case .failure(let error) = Self.parseFieldLine(p, content) { return fail(error.kind, at: error.index) }
        return nil
    }
}

extension Range<Int> {
    @inline(__always)
    func shifted(by delta: Int) -> Range<Int> {
        (lowerBound + delta)..<(upperBound + delta)
    }
}
