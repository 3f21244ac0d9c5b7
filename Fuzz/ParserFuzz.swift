// libFuzzer entry for the HTTP/1.1 request parser. Built by Fuzz/run.sh together with the
// parser sources (Sources/HTTP1/Parsing and the message types it produces).
//
// Each input is parsed three ways: whole, one byte at a time, and cut at two points chosen
// from the input. The event sequences must be identical (the parser's central promise), and
// well-formed: `.head` then `.end`, repeated, with at most one `.failure`, last.
// The same bytes then go through the connection state machine (HTTPConnection), which must
// hand out exactly the parser's requests, in order, and end with the parser's error.

private let limits = HTTPParserLimits(
    maxRequestLineLength: 256, maxHeaderSectionSize: 512, maxHeaderCount: 12,
    maxBodySize: 2048, maxChunkSizeLineLength: 40)

private func events(_ bytes: [UInt8], cuts: [Int]) -> [HTTPParserEvent] {
    var parser = HTTPRequestParser(limits: limits)
    var result: [HTTPParserEvent] = []
    var start = 0
    for cut in cuts + [bytes.count] where cut >= start {
        parser.append(Array(bytes[start..<cut]))
        while let event = parser.next() { result.append(event) }
        start = cut
    }
    return result
}

private func checkWellFormed(_ events: [HTTPParserEvent]) {
    var expectHead = true
    for (index, event) in events.enumerated() {
        switch event {
        case .head:
            precondition(expectHead, "two heads in a row")
            expectHead = false
        case .end:
            precondition(!expectHead, "end without head")
            expectHead = true
        case .failure(let error):
            precondition(index == events.count - 1, "events after a failure")
            precondition([400, 408, 413, 414, 417, 431, 501, 505].contains(error.status))
        }
    }
}

/// Drives the connection state machine with the input cut at `cuts`, completing every
/// response at once with keep-alive; returns the requests handed out and the final error.
private func connectionRun(_ bytes: [UInt8], cuts: [Int]) -> (bodies: [[UInt8]], error: HTTPParserError?) {
    var settings = HTTPConnection.Settings()
    settings.limits = limits
    settings.maxRequestsPerConnection = Int.max
    settings.maxBufferedBytes = Int.max
    var machine = HTTPConnection(settings: settings, remoteAddress: "fuzz", now: MonotonicInstant(nanoseconds: 0))
    var bodies: [[UInt8]] = []
    var start = 0
    for cut in cuts + [bytes.count] where cut >= start {
        Array(bytes[start..<cut]).withUnsafeBytes { machine.bytesReceived($0, now: MonotonicInstant(nanoseconds: 0)) }
        start = cut
        var action = machine.nextAction(now: MonotonicInstant(nanoseconds: 0))
        while true {
            switch action {
            case .respond(let request, let keepAlive):
                precondition(keepAlive || request.version == .http1_0 || request.headers.contains(name: "connection"))
                bodies.append(request.body)
                action = machine.responseCompleted(keepAlive: true, now: MonotonicInstant(nanoseconds: 0))
                continue
            case .sendContinue:
                action = machine.nextAction(now: MonotonicInstant(nanoseconds: 0))
                continue
            case .sendError(let error):
                return (bodies, error)
            case .waitForBytes, .finish, .close:
                break
            }
            break
        }
    }
    return (bodies, nil)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let whole = events(bytes, cuts: [])
    checkWellFormed(whole)
    let single = events(bytes, cuts: Array(0..<size))
    precondition(single == whole, "byte-at-a-time parse differs from whole parse")
    if size > 2 {
        let a = Int(bytes[0]) % size, b = Int(bytes[size - 1]) % size
        let split = events(bytes, cuts: [min(a, b), max(a, b)])
        precondition(split == whole, "split parse differs from whole parse")
    }
    let parsedBodies = whole.compactMap { event -> [UInt8]? in
        if case .end(let body) = event { return body }
        return nil
    }
    let parsedError = whole.last.flatMap { event -> HTTPParserError? in
        if case .failure(let error) = event { return error }
        return nil
    }
    for cuts in [[], [size / 2]] {
        let run = connectionRun(bytes, cuts: cuts)
        precondition(run.bodies == parsedBodies, "connection handed out other requests than the parser")
        precondition(run.error == parsedError, "connection ended with another error than the parser")
    }
    return 0
}
