import TreeEngine

/// Reads any JSON document as a tree (`?format=document`): every object member and array
/// element becomes a node, the root value's members or elements being the roots.
///
/// - Ids are JSON Pointers (RFC 6901: `~` → `~0`, `/` → `~1`), e.g. `/store/book/0/title`;
///   two members with one name have one pointer, so the builder rejects the later one.
/// - Titles: a container is `key` (a member) or `[index]` (an element); a scalar is
///   `key: value` or `[index]: value`, the value being the decoded string (no quotes) or the
///   number or literal as written, cut to at most 80 bytes at a UTF-8 boundary with `…`
///   appended when longer.
/// - Data: a scalar carries its value exactly as written (`"abc"`, `12.50`), an empty
///   container its `{}` or `[]`; other containers none.
///
/// Iterative (an explicit stack of open containers), so depth is bounded by
/// `ForestLimits.maxDepth` and memory only. It reuses `JSONScanner` for strings, numbers
/// and literals; keys without escapes are read in place.
struct DocumentReader {
    /// One open array or object.
    struct Frame {
        var isObject: Bool
        /// Whether the container is a node (every container but the root value).
        var isNode: Bool
        /// The index of the current element (arrays) or member (objects).
        var index: Int
        /// The length of the container's own pointer in `pointer`.
        var pointerLength: Int
    }

    var scanner: JSONScanner
    let limits: ForestLimits
    var frames = ContiguousArray<Frame>()
    /// The pointer of the node being read (its id).
    let pointer = ScratchBytes()
    let title = ScratchBytes()
    var scratch: [UInt8] = []
    /// Where the current member's key starts (for errors about it).
    var keyStart = 0
    var idBytes = 0
    let maxIDBytes: Int
    /// Reading a part of a document cut in parts (`DocumentParts`): stop after the first
    /// comma past this offset (where the next part's cut is).
    var stopAfter = Int.max
    /// Reading a part after the first: the frames at the bottom of `frames` that the parts
    /// before opened (their nodes are theirs); a node directly in one of them is a top-level
    /// node of the part, under the context node `frames.count - 2` (-1: the top level).
    var inherited = 0

    /// The longest value shown in a title, in bytes (before the `…`).
    static let maxValueBytes = 80

    init(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits) {
        scanner = JSONScanner(bytes)
        self.limits = limits
        // Every node's id spells its whole pointer (in answers and exports, though
        // the forest stores only its token): a deeply nested document has a quadratic
        // amount; ordinary ones stay well under this.
        maxIDBytes = min(16 &* bytes.count &+ (64 << 20), 3 << 30)
        scratch.reserveCapacity(256)
    }

    /// Reads the document into `sink`.
    /// - Throws: `TreeInputError`: `.syntax` for malformed JSON (it wins over any rule the
    ///   document also breaks), `.rule` for a scalar root, a duplicate member name or
    ///   nesting deeper than `maxDepth`, `.limit` for too many nodes (or ids).
    /// - Complexity: O(document size + ids' bytes)
    static func read(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits, into sink: inout ForestBuilder) throws(TreeInputError) {
        var reader = DocumentReader(bytes, limits: limits)
        do {
            try reader.readDocument(into: &sink)
        } catch {
            throw reader.makeError(error)
        }
    }

    mutating func readDocument(into sink: inout ForestBuilder) throws(JSONScanError) {
        scanner.skipWhitespace()
        if scanner.atEnd { throw .syntax("empty document", at: scanner.pos) }
        let c = scanner.current
        guard c == UInt8(ascii: "{") || c == UInt8(ascii: "[") else {
            if JSONScanner.startsValue(c) {
                throw .rule("a document to open must be a JSON object or array", at: scanner.pos)
            }
            throw scanner.unexpected("expected a value")
        }
        if try open(isObject: c == UInt8(ascii: "{"), isNode: false, into: &sink) {
            try readMembers(into: &sink)
            if !frames.isEmpty { return }  // stopped at the next part's cut
        }
        scanner.skipWhitespace()
        if !scanner.atEnd { throw scanner.unexpected("unexpected data after the document") }
    }

    /// Opens the container at `pos` (pushes its frame); false when it is empty (then closed:
    /// its node's data is `{}` or `[]`, so that the document can be written back).
    @inline(__always)
    private mutating func open(isObject: Bool, isNode: Bool, into sink: inout ForestBuilder) throws(JSONScanError) -> Bool {
        scanner.pos &+= 1
        scanner.skipWhitespace()
        if scanner.current == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
            scanner.pos &+= 1
            if isNode {
                let empty: StaticString = isObject ? "{}" : "[]"
                do throws(NodeSinkError) {
                    try sink.setData(UnsafeRawBufferPointer(start: empty.utf8Start, count: 2))
                } catch {
                    throw Self.sinkError(error, at: scanner.pos)
                }
                sink.endNode()
            }
            return false
        }
        frames.append(Frame(isObject: isObject, isNode: isNode, index: 0, pointerLength: pointer.count))
        return true
    }

    /// Reads members and elements until the root container closes; `pos` is on the first
    /// member's key or element of the innermost frame.
    mutating func readMembers(into sink: inout ForestBuilder) throws(JSONScanError) {
        while true {
            let top = frames.count &- 1
            let frame = frames[top]
            pointer.truncate(to: frame.pointerLength)
            pointer.append(UInt8(ascii: "/"))
            title.truncate(to: 0)
            if frame.isObject {
                guard scanner.current == UInt8(ascii: "\"") else {
                    throw scanner.unexpected("expected a member name in double quotes")
                }
                keyStart = scanner.pos
                let token = try scanner.scanString()
                if token.hasEscapes {
                    scanner.decode(token, into: &scratch)
                    scratch.withUnsafeBytes { appendKey($0) }
                } else {
                    appendKey(scanner.slice(token.start, token.end))
                }
                scanner.skipWhitespace()
                guard scanner.current == UInt8(ascii: ":") else {
                    throw scanner.unexpected("expected ':' after member name")
                }
                scanner.pos &+= 1
                scanner.skipWhitespace()
            } else {
                keyStart = scanner.pos
                appendIndex(frame.index)
            }
            // The node of this member or element.
            let depth = frames.count &- 1
            if depth >= limits.maxDepth {
                throw .rule("the document nests deeper than the maximum depth of \(limits.maxDepth)", at: scanner.pos)
            }
            let valueStart = scanner.pos
            switch scanner.current {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                try begin(&sink, at: keyStart)
                if try open(isObject: scanner.current == UInt8(ascii: "{"), isNode: true, into: &sink) { continue }
            case UInt8(ascii: "\""):
                let token = try scanner.scanString()
                title.append(": ")
                if token.hasEscapes {
                    scanner.decode(token, into: &scratch)
                    scratch.withUnsafeBytes { appendShortened($0) }
                } else {
                    appendShortened(scanner.slice(token.start, token.end))
                }
                try scalar(&sink, valueStart)
            case UInt8(ascii: "-"), UInt8(ascii: "0") ... UInt8(ascii: "9"):
                _ = try scanner.scanNumber()
                title.append(": ")
                appendShortened(scanner.slice(valueStart, scanner.pos))
                try scalar(&sink, valueStart)
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                let literal: StaticString = scanner.current == UInt8(ascii: "t") ? "true" : scanner.current == UInt8(ascii: "f") ? "false" : "null"
                try scanner.scanLiteral(literal)
                title.append(": ")
                appendShortened(scanner.slice(valueStart, scanner.pos))
                try scalar(&sink, valueStart)
            default:
                throw scanner.unexpected("expected a value")
            }
            // After a value: the next member, or close containers.
            while true {
                scanner.skipWhitespace()
                let top = frames.count &- 1
                let isObject = frames[top].isObject
                switch scanner.current {
                case UInt8(ascii: ","):
                    scanner.pos &+= 1
                    frames[top].index &+= 1
                    if scanner.pos > stopAfter { return }  // the part ends here
                    scanner.skipWhitespace()
                case UInt8(ascii: "}") where isObject, UInt8(ascii: "]") where !isObject:
                    scanner.pos &+= 1
                    let closed = frames.removeLast()
                    pointer.truncate(to: closed.pointerLength)
                    if !closed.isNode { return }
                    if frames.count < inherited {
                        inherited = frames.count  // a node of the parts before: it ends there
                        continue
                    }
                    sink.endNode()
                    continue
                default:
                    throw scanner.unexpected(isObject ? "expected ',' or '}' after object member" : "expected ',' or ']' after array element")
                }
                break
            }
        }
    }

    // MARK: Nodes

    /// A scalar node: begun, titled, its raw value as data, ended.
    @inline(__always)
    private mutating func scalar(_ sink: inout ForestBuilder, _ valueStart: Int) throws(JSONScanError) {
        try begin(&sink, at: keyStart)
        do throws(NodeSinkError) {
            try sink.setData(scanner.slice(valueStart, scanner.pos))
            sink.endNode()
        } catch {
            throw Self.sinkError(error, at: keyStart)
        }
    }

    /// Begins a node with the current pointer as id and `title` (the key or index part).
    @inline(__always)
    private mutating func begin(_ sink: inout ForestBuilder, at offset: Int) throws(JSONScanError) {
        idBytes &+= pointer.count &+ 3  // with a pool entry's header
        if idBytes > maxIDBytes {
            throw .limit("the document's ids (JSON Pointers) would take more than \(maxIDBytes) bytes: it nests too deep", at: offset)
        }
        do throws(NodeSinkError) {
            if frames.count <= inherited { sink.setPartParent(frames.count &- 2) }
            try sink.beginNode()
            // The container's pointer, `/`, the reference token: only the token is stored.
            let segment = pointer.count - frames[frames.count - 1].pointerLength - 1
            try sink.setDerivedID(pointer.bytes, segmentCount: segment)
            try sink.setTitle(title.bytes)
        } catch {
            throw Self.sinkError(error, at: offset)
        }
    }

    static func sinkError(_ error: NodeSinkError, at offset: Int) -> JSONScanError {
        switch error.kind {
        case .duplicateID(let id): .rule("duplicate member name: a second member has the pointer \"\(id)\"", at: offset)
        case .limitExceeded(let message): .limit(message, at: offset)
        case .idTooLong(let bytes, let limit): .rule(NodeSinkError.idTooLongMessage(bytes: bytes, limit: limit), at: offset)
        }
    }

    // MARK: Text

    /// Appends a member's key to the pointer (escaped) and to the title (as is).
    @inline(__always)
    mutating func appendKey(_ key: UnsafeRawBufferPointer) {
        title.append(key)
        var run = 0
        for i in 0 ..< key.count {
            let c = key[i]
            guard c == UInt8(ascii: "~") || c == UInt8(ascii: "/") else { continue }
            pointer.append(UnsafeRawBufferPointer(rebasing: key[run ..< i]))
            pointer.append(UInt8(ascii: "~"))
            pointer.append(c == UInt8(ascii: "~") ? UInt8(ascii: "0") : UInt8(ascii: "1"))
            run = i &+ 1
        }
        pointer.append(UnsafeRawBufferPointer(rebasing: key[run...]))
    }

    /// Appends an element's index to the pointer (`3`) and to the title (`[3]`).
    @inline(__always)
    mutating func appendIndex(_ index: Int) {
        let start = pointer.count
        pointer.appendDecimal(index)
        title.append(UInt8(ascii: "["))
        title.append(UnsafeRawBufferPointer(rebasing: pointer.bytes[start...]))
        title.append(UInt8(ascii: "]"))
    }

    /// Appends a value to the title, cut to `maxValueBytes` at a UTF-8 boundary with `…`.
    @inline(__always)
    private mutating func appendShortened(_ value: UnsafeRawBufferPointer) {
        if value.count <= Self.maxValueBytes {
            title.append(value)
            return
        }
        var cut = Self.maxValueBytes
        while cut > 0 && value[cut] & 0xC0 == 0x80 { cut -= 1 }  // not inside a sequence
        title.append(UnsafeRawBufferPointer(rebasing: value[..<cut]))
        title.append("…")
    }

    /// About how many nodes `bytes` holds, to size the id table once: every node but a
    /// container's first element follows a comma, and every non-empty container has a first
    /// element (commas inside strings count too: an estimate from above, mostly exact).
    /// - Complexity: O(n), eight bytes at a time
    static func estimatedNodes(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        let n = bytes.count
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func zeroBytes(_ x: UInt64) -> UInt64 {
            // Exact: a high bit for each zero byte of `x`.
            ~(((x & ~highs) &+ ~highs) | x | ~highs)
        }
        var count = 0
        var i = 0
        while i &+ 8 <= n {
            let w = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let hits = zeroBytes(w ^ (ones &* 0x2C)) | zeroBytes(w ^ (ones &* 0x5B)) | zeroBytes(w ^ (ones &* 0x7B))
            count &+= hits.nonzeroBitCount
            i &+= 8
        }
        while i < n {
            let c = base.load(fromByteOffset: i, as: UInt8.self)
            if c == 0x2C || c == 0x5B || c == 0x7B { count &+= 1 }
            i &+= 1
        }
        return count
    }

    // MARK: Errors

    /// The public error: a syntax error anywhere wins over a rule; path = the pointer.
    func makeError(_ error: JSONScanError) -> TreeInputError {
        if error.kind != .syntax, let syntax = JSONScanner.firstSyntaxError(in: scanner.bytes, maxDepth: Int.max / 2) {
            return syntax
        }
        let (line, column) = TreeInputError.lineAndColumn(of: error.offset, in: scanner.bytes)
        let path = frames.isEmpty ? "" : String(decoding: pointer.bytes, as: UTF8.self)
        return TreeInputError(kind: error.kind, message: error.message, byteOffset: error.offset, line: line, column: column, path: path)
    }
}

extension Forest {
    /// Builds a forest from any JSON document: every member and element a node (see
    /// `DocumentReader` for titles, ids and data).
    /// - Throws: `TreeInputError`: `.syntax` for malformed JSON, `.rule` for a scalar root,
    ///   a duplicate member name (`duplicate member name`, at the later key) or nesting
    ///   deeper than `limits.maxDepth` (roots are depth 0), `.limit` for more than
    ///   `limits.maxNodes` nodes, or when the ids (pointers) would take more than 16 bytes
    ///   per input byte plus 64 MiB, which only documents nesting thousands deep reach.
    /// - Complexity: O(document size + ids' bytes), iterative at any depth
    public static func parseDocument(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits = ForestLimits()) throws(TreeInputError) -> Forest {
        // The ids (pointers) are checked all at once at the end (`DocumentParts`); when two
        // are the same (a member name repeated in an object), or the document breaks any
        // rule, it is read again, checking each id as it comes, to report the first error
        // where it is.
        if let forest = DocumentParts(bytes: bytes, limits: limits).readInParts() { return forest }
        var builder = DocumentParts.builder(for: bytes, limits: limits, nodes: DocumentReader.estimatedNodes(bytes), isPart: false)
        try DocumentReader.read(bytes, limits: limits, into: &builder)
        return builder.finish()
    }
}
