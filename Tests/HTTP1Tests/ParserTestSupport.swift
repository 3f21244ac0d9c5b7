@testable import HTTP1

/// Parser limits small enough to cross in tests.
let testLimits = HTTPParserLimits(
    maxRequestLineLength: 64, maxHeaderSectionSize: 128, maxHeaderCount: 5,
    maxBodySize: 100, maxChunkSizeLineLength: 16)

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

/// Parses `input` fed in pieces cut at `cuts`.
func parseEvents(_ input: [UInt8], cuts: [Int] = [], limits: HTTPParserLimits = testLimits) -> [HTTPParserEvent] {
    var parser = HTTPRequestParser(limits: limits)
    var events: [HTTPParserEvent] = []
    var start = 0
    for cut in cuts + [input.count] where cut >= start {
        events += parser.parse(Array(input[start..<cut]))
        start = cut
    }
    return events
}

/// Parses whole, one byte at a time, and split at every position; fails (via the returned
/// description) if any of them differ from the whole parse.
func parseEverySplit(_ input: [UInt8], limits: HTTPParserLimits = testLimits) -> (events: [HTTPParserEvent], mismatch: String?) {
    let whole = parseEvents(input, limits: limits)
    let single = parseEvents(input, cuts: Array(0..<input.count), limits: limits)
    if single != whole { return (whole, "byte-at-a-time: \(single) vs whole: \(whole)") }
    for cut in 0...input.count {
        let split = parseEvents(input, cuts: [cut], limits: limits)
        if split != whole { return (whole, "split at \(cut): \(split) vs whole: \(whole)") }
    }
    return (whole, nil)
}

extension HTTPParserEvent {
    var head: HTTPRequestHead? {
        if case .head(let h) = self { return h }
        return nil
    }
    var body: [UInt8]? {
        if case .end(let b) = self { return b }
        return nil
    }
    var error: HTTPParserError? {
        if case .failure(let e) = self { return e }
        return nil
    }
}
