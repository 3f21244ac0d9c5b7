import TreeEngine

/// A document read in parts at once: the document's fast path (`PartedReader`).
///
/// A part after the first starts right after the first comma (outside strings) at or past
/// its offset. To read it, it needs what the parts before have open there, its *context*:
/// the containers (object or array, the index of the next element, the key of the member
/// being read), found by a quick scan from the document's start that only follows strings
/// and brackets (`DocumentReader.Cut`). Its nodes directly in a container of the context are
/// its top-level nodes; their ids are derived from the context's pointers
/// (`ForestBuilder.deriveIDs(under:)`), and the join hangs them under the open nodes of the
/// parts before (`ForestBuilder.appendPart`). A part stops after the first comma past the
/// next one's offset, where the next one's scan finds its cut: the join checks that they
/// meet there with the same containers open. A part aimed past the last comma reads
/// nothing (the one before reads to the end). Nil when anything is not as expected (an
/// error in a part, a duplicate pointer, a limit).
struct DocumentParts: PartedReader {
    let bytes: UnsafeRawBufferPointer
    let limits: ForestLimits

    /// A part read: its reader, as it stopped, its builder, and its cut (nil: the first part,
    /// or a part aimed past the last comma, which reads nothing).
    struct Part {
        var reader: DocumentReader
        var builder: ForestBuilder
        var cut: DocumentReader.Cut?
    }

    var byteCount: Int { bytes.count }

    /// How many times faster the scan for a cut goes than the reading of the same bytes
    /// (about six, on the benchmark's document of records).
    static let scanSpeedup = 6.0

    /// Offsets for parts that end together: a part's thread first scans the bytes before its
    /// cut, `scanSpeedup` times faster than it reads, so each part is shorter than the one
    /// before by the time its scan takes. With T the time of each (in bytes read), the part
    /// starting at c_k ends at c_{k+1} = T + c_k (1 - 1/s); for two parts, 6/11 of the body
    /// is the first's.
    func targets(parts: Int) -> [Int] {
        let q = 1 - 1 / Self.scanSpeedup
        var sum = 0.0, power = 1.0
        for _ in 0 ..< parts {
            sum += power
            power *= q
        }
        let share = Double(bytes.count) / sum
        var c = 0.0
        return (1 ..< parts).map { _ in
            c = share + c * q
            return Int(c)
        }
    }

    func readPart(_ index: Int, of count: Int, from: Int?, to: Int?) -> Part? {
        // The nodes to expect, counted in the part's own bytes; the first part's builder,
        // which takes the others' nodes when they join, is sized for all at that rate.
        let start = from ?? 0, stop = to ?? bytes.count
        let own = DocumentReader.estimatedNodes(UnsafeRawBufferPointer(rebasing: bytes[start ..< stop]))
        let nodes = index > 0 ? own : Int(Double(own) * Double(bytes.count) / Double(max(1, stop - start)))
        var builder = Self.builder(for: bytes, limits: limits, nodes: nodes, isPart: index > 0)
        builder.defersIDChecks = true
        var reader = DocumentReader(bytes, limits: limits)
        var cut: DocumentReader.Cut?
        if let from {
            guard let found = DocumentReader.Cut.find(in: bytes, near: from) else { return Part(reader: reader, builder: builder, cut: nil) }
            guard case (let rest, let context)? = try? DocumentReader.rest(bytes, after: found, limits: limits) else { return nil }
            (reader, cut) = (rest, found)
            builder.deriveIDs(under: context)
        }
        reader.stopAfter = to ?? .max
        do throws(JSONScanError) {
            if cut == nil { try reader.readDocument(into: &builder) } else { try reader.readRest(into: &builder) }
        } catch {
            return nil
        }
        return Part(reader: reader, builder: builder, cut: cut)
    }

    func join(_ parts: inout [Part]) -> Forest? {
        var idBytes = parts[0].reader.idBytes, count = 1
        while count < parts.count, let cut = parts[count].cut {
            guard parts[count - 1].reader.stopped(at: cut) else { return nil }
            idBytes += parts[count].reader.idBytes
            count += 1
        }
        // The parts past the last comma read nothing: the one before them read to the end.
        guard count == parts.count || parts[count - 1].reader.frames.isEmpty else { return nil }
        parts.removeLast(parts.count - count)
        guard idBytes <= parts[0].reader.maxIDBytes else { return nil }
        var builders = parts.indices.map { k in
            defer { parts[k].builder = ForestBuilder() }  // the columns held once
            return parts[k].builder
        }
        return ForestBuilder.joinParts(&builders)
    }

    /// A builder of a document's forest: ids derived as JSON Pointers, room for `nodes` nodes
    /// of `bytes`.
    static func builder(for bytes: UnsafeRawBufferPointer, limits: ForestLimits, nodes: Int, isPart: Bool) -> ForestBuilder {
        var builder = ForestBuilder(limits: limits, expectedBytes: bytes.count, expectedNodes: nodes)
        builder.deriveIDs(separator: Array("/".utf8), rootPrefix: Array("/".utf8))
        // Room for the pointers' tokens (a derived entry is the token and 6 bytes), the
        // scalars' values and the titles (a key or index, and the value): each at most
        // about the document's bytes. (A part's nodes are indexed by the builder it
        // joins: it needs no table.)
        if nodes > 0 { builder.reserveIDs(isPart ? 0 : nodes, bytes: 8 * nodes) }
        builder.reserveData(bytes: bytes.count)
        builder.reserveTitles(bytes: bytes.count + 2 * nodes)
        return builder
    }
}

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
    static func rest(_ bytes: UnsafeRawBufferPointer, after cut: Cut, limits: ForestLimits,
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

    /// Reads a part after the first, from its cut to the end of the document, or to the
    /// first comma past `stopAfter`.
    mutating func readRest(into sink: inout ForestBuilder) throws(JSONScanError) {
        if scanner.pos > stopAfter { return }  // the next part's cut is this one's: nothing to read
        scanner.skipWhitespace()
        try readMembers(into: &sink)
        if !frames.isEmpty { return }  // stopped at the next part's cut
        scanner.skipWhitespace()
        if !scanner.atEnd { throw scanner.unexpected("unexpected data after the document") }
    }

    /// Whether this reader (of a part) stopped at `cut` with the same containers open.
    func stopped(at cut: Cut) -> Bool {
        scanner.pos == cut.offset && frames.count == cut.frames.count
            && zip(frames, cut.frames).allSatisfy { $0.isObject == $1.isObject && $0.index == $1.index }
    }
}
