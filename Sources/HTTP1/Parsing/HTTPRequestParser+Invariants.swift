extension HTTPRequestParser {
    /// Checks the parser's bookkeeping after every `append` and `next`, in debug and test
    /// builds (`TREE_INVARIANTS`) and in the fuzzer; compiled out of release builds.
    @inline(__always)
    func checkInvariants() {
        #if TREE_INVARIANTS
        precondition(readIndex >= 0 && readIndex <= buffer.count, "read index outside the buffer")
        precondition(bufferStreamOffset >= 0)
        switch state {
        case .head:
            let buffered = buffer.count - readIndex
            precondition(scanOffset >= 0 && scanOffset <= buffered, "scan offset outside the buffered bytes")
            precondition(lineStart >= 0 && lineStart <= scanOffset, "line starts after the scan position")
            precondition(method != nil || fields.isEmpty, "fields before a request line")
            if let methodScan {
                precondition(method == nil, "the method checked again after the request line")
                precondition(methodScan >= 0 && methodScan <= buffered, "method check outside the buffered bytes")
            }
            if let method {
                precondition(requestLineEnd > method.upperBound && requestLineEnd <= lineStart)
                precondition(target.lowerBound > method.upperBound && target.upperBound < requestLineEnd)
                for field in fields {
                    precondition(field.name.lowerBound >= requestLineEnd && field.value.upperBound < lineStart)
                }
            }
            precondition(body.isEmpty, "body bytes while reading a head")
        case .contentBody(let remaining), .chunkData(let remaining):
            precondition(remaining > 0)
            precondition(body.count + remaining <= limits.maxBodySize, "body would exceed its limit")
        case .chunkSize, .chunkDataEnd, .trailers, .complete:
            precondition(body.count <= limits.maxBodySize, "body exceeds its limit")
        case .failed:
            precondition(body.isEmpty)
        }
        #endif
    }
}
