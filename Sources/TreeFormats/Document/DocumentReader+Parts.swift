import TreeEngine

/// A large document read as two parts at once (`Forest.parseDocumentInTwoParts`).
///
/// The cut is right after the first comma (outside strings) a little past the middle: the
/// first part is everything before it, read as usual until that comma; the second starts
/// with the next member or element. To read it, the second part needs what the first has
/// open there, its *context*: the containers (object or array, the index of the next
/// element, the key of the member being read), found by a quick scan of the first part that
/// only follows strings and brackets. The second part's nodes directly in a container of
/// the context are its top-level nodes; their ids are derived from the context's pointers
/// (`ForestBuilder.deriveIDs(under:)`), and the join hangs them under the first part's
/// open nodes (`ForestBuilder.appendPart`).
extension DocumentReader {
    /// Where a document is cut, and the containers open there.
    struct Cut: Equatable {
        struct Frame: Equatable {
            var isObject: Bool
            /// The index of the element or member after the cut (commas so far).
            var index: Int
            /// Where the key of the member being read starts (its opening quote), -1 before any.
            var keyStart: Int
        }

        /// The offset right after the comma.
        var offset: Int
        /// The open containers, the document's root value first.
        var frames: [Frame]

        /// The cut after the first comma at or past `near` outside strings, or nil when
        /// there is none (or the document is so malformed that the scan cannot follow it:
        /// the reader then reports what is wrong).
        /// - Complexity: O(offset of the cut)
        static func find(in bytes: UnsafeRawBufferPointer, near: Int) -> Cut? {
            guard let base = bytes.baseAddress else { return nil }
            let n = bytes.count
            var frames: [Frame] = []
            var i = 0
            var stringStart = -1
            while i < n {
                switch base.load(fromByteOffset: i, as: UInt8.self) {
                case UInt8(ascii: "\""):
                    stringStart = i
                    guard let close = closingQuote(base, n, after: i) else { return nil }
                    i = close
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    frames.append(Frame(isObject: base.load(fromByteOffset: i, as: UInt8.self) == UInt8(ascii: "{"), index: 0, keyStart: -1))
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    guard frames.popLast() != nil, !frames.isEmpty else { return nil }  // a stray bracket, or the root closed before the middle
                case UInt8(ascii: ":"):
                    guard let top = frames.indices.last, frames[top].isObject, stringStart >= 0 else { return nil }
                    frames[top].keyStart = stringStart
                case UInt8(ascii: ","):
                    guard let top = frames.indices.last else { return nil }
                    frames[top].index &+= 1
                    if i >= near { return Cut(offset: i &+ 1, frames: frames) }
                default:
                    break
                }
                i &+= 1
            }
            return nil
        }

        /// The offset of the quote that closes the string opened at `open`, nil when
        /// none does: eight bytes at a time up to the next `"` or `\`.
        @inline(__always)
        static func closingQuote(_ base: UnsafeRawPointer, _ n: Int, after open: Int) -> Int? {
            let ones: UInt64 = 0x0101_0101_0101_0101
            var i = open &+ 1
            while true {
                while i &+ 8 <= n {
                    let word = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
                    // The lowest flagged byte is always a true hit.
                    let hits = (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & (ones &* 0x80)
                    if hits != 0 {
                        i &+= hits.trailingZeroBitCount >> 3
                        break
                    }
                    i &+= 8
                }
                guard i < n else { return nil }
                let c = base.load(fromByteOffset: i, as: UInt8.self)
                if c == UInt8(ascii: "\"") { return i }
                i &+= c == UInt8(ascii: "\\") ? 2 : 1
            }
        }
    }

    /// A reader of what follows `cut`: its frames are the cut's (the root's not a node), its
    /// pointer that of the innermost. Also returns the context: the pointers of the cut's
    /// containers that are nodes (all but the root value), outermost first.
    /// - Throws: when a key of the context is not a valid string, or the context's pointers
    ///   would take more than `maxContextBytes` (a cut thousands of levels deep: the pointers
    ///   of the open containers grow as the square of the depth).
    static func secondPart(_ bytes: UnsafeRawBufferPointer, after cut: Cut, limits: ForestLimits,
                           maxContextBytes: Int = maxContextBytes) throws(JSONScanError) -> (DocumentReader, context: [[UInt8]]) {
        var reader = DocumentReader(bytes, limits: limits)
        var context: [[UInt8]] = []
        var contextBytes = 0
        for (depth, frame) in cut.frames.enumerated() {
            if depth > 0 {
                // This container's segment in its parent: the member's key or the element's index.
                let parent = cut.frames[depth - 1]
                reader.pointer.append(UInt8(ascii: "/"))
                if parent.isObject {
                    guard parent.keyStart >= 0 else { throw .syntax("expected a member name", at: cut.offset) }
                    reader.scanner.pos = parent.keyStart
                    let token = try reader.scanner.scanString()
                    if token.hasEscapes {
                        reader.scanner.decode(token, into: &reader.scratch)
                        let key = reader.scratch
                        key.withUnsafeBytes { reader.appendKey($0) }
                    } else {
                        reader.appendKey(reader.scanner.slice(token.start, token.end))
                    }
                } else {
                    reader.appendIndex(parent.index)
                }
                contextBytes += reader.pointer.count
                if contextBytes > maxContextBytes { throw .limit("the cut is too deep", at: cut.offset) }
                context.append(Array(reader.pointer.bytes))
            }
            reader.frames.append(Frame(isObject: frame.isObject, isNode: depth > 0, index: frame.index, pointerLength: reader.pointer.count))
        }
        reader.inherited = reader.frames.count
        reader.scanner.pos = cut.offset
        return (reader, context)
    }

    /// The most bytes the pointers of a cut's open containers may take.
    static let maxContextBytes = 1 << 26

    /// Reads the second part, from the cut to the end of the document.
    mutating func readSecondPart(into sink: inout ForestBuilder) throws(JSONScanError) {
        scanner.skipWhitespace()
        try readMembers(into: &sink)
        scanner.skipWhitespace()
        if !scanner.atEnd { throw scanner.unexpected("unexpected data after the document") }
    }

    /// Whether this reader (of the first part) stopped at `cut` with the same containers open.
    func stopped(at cut: Cut) -> Bool {
        scanner.pos == cut.offset && frames.count == cut.frames.count
            && zip(frames, cut.frames).allSatisfy { $0.isObject == $1.isObject && $0.index == $1.index }
    }
}

extension Forest {
    /// Documents from this size on are read in two parts at once when the machine has two
    /// processors or more.
    static let documentTwoPartThreshold = 1 << 22

    /// A large document read as two parts at once, each on its own thread into its own
    /// builder, then joined (see `DocumentReader.Cut`). Nil when the document is small or
    /// anything is not as expected (an error in either part, a duplicate pointer, a limit):
    /// the caller then reads it the usual way, which reports the error where it is.
    /// - Complexity: O(n) expected, about half on each of two threads, plus a scan of
    ///   the first half for the cut.
    /// (`threshold` and `splitNear`, the offset past which the cut is, are for tests.)
    static func parseDocumentInTwoParts(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits,
                                        make: (_ isPart: Bool, _ expectedNodes: Int) -> sending ForestBuilder,
                                        threshold: Int = documentTwoPartThreshold, splitNear: Int? = nil) -> Forest? {
        guard bytes.count >= threshold, ParallelWork.activeProcessors > 1 else { return nil }
        // Each part's reader and builder are its thread's own; what they share is the
        // document, read only.
        let document = SharedBytes(bytes)
        // The nodes to expect, counted in two halves at once: the first builder is sized for
        // all, the second for those from the middle on (its part starts a little later).
        let middle = bytes.count / 2
        let (firstHalf, secondHalf) = ParallelWork.both(
            { DocumentReader.estimatedNodes(UnsafeRawBufferPointer(rebasing: document.buffer[..<middle])) },
            { DocumentReader.estimatedNodes(UnsafeRawBufferPointer(rebasing: document.buffer[middle...])) })
        // The second thread first scans the first part for the cut (about a sixth of the
        // time reading it takes): the first part is larger, so that both end together
        // (measured with the benchmark's document: the second part ended 0.1-0.3 s after the
        // first with the cut 1% or 3% past the middle, both alike with 4-5%).
        let near = splitNear ?? bytes.count / 2 + bytes.count / 25
        var firstReader = DocumentReader(document.buffer, limits: limits)
        firstReader.stopAfter = near
        // The first builder takes the second's nodes when they join: sized for all.
        var firstBuilder = make(false, firstHalf + secondHalf)
        firstBuilder.defersIDChecks = true
        var secondBuilder = make(true, secondHalf)
        secondBuilder.defersIDChecks = true
        // Each job reads into a reader and a builder on its own stack, and hands them back:
        // the captured ones may share a cache line, and a builder's fields change with every
        // node (the line would go back and forth between the cores).
        let (first, second) = ParallelWork.both({ () -> (reader: DocumentReader, builder: ForestBuilder)? in
            var reader = firstReader, builder = firstBuilder
            firstBuilder = ForestBuilder()  // the builder's columns are the job's alone
            guard (try? reader.readDocument(into: &builder)) != nil else { return nil }
            return (reader, builder)
        }, { () -> (cut: DocumentReader.Cut, idBytes: Int, builder: ForestBuilder)? in
            guard let cut = DocumentReader.Cut.find(in: document.buffer, near: near),
                  case (var reader, let context)? = try? DocumentReader.secondPart(document.buffer, after: cut, limits: limits) else { return nil }
            var builder = secondBuilder
            secondBuilder = ForestBuilder()
            builder.deriveIDs(under: context)
            guard (try? reader.readSecondPart(into: &builder)) != nil else { return nil }
            return (cut, reader.idBytes, builder)
        })
        guard var first, var second, first.reader.stopped(at: second.cut),
              first.reader.idBytes + second.idBytes <= first.reader.maxIDBytes,
              first.builder.appendPart(&second.builder, under: second.builder.partParents) else { return nil }
        second.builder = ForestBuilder()  // its columns are copied: freed before the ids are indexed
        guard first.builder.indexDeferredIDs() else { return nil }
        while first.builder.openNodeCount > 0 { first.builder.endNode() }
        return first.builder.finish()
    }
}
