import TreeEngine
@testable import TreeFormats

/// One call the parser made on a sink.
enum SinkEvent: Equatable, CustomStringConvertible {
    case begin
    case title(String)
    case stringID(String)
    case integerID(Int64)
    case expanded(Bool)
    case hasChildren(Bool)
    case data(String)
    case end

    var description: String {
        switch self {
        case .begin: "begin"
        case .title(let text): "title(\(text.debugDescription))"
        case .stringID(let text): "stringID(\(text.debugDescription))"
        case .integerID(let value): "integerID(\(value))"
        case .expanded(let flag): "expanded(\(flag))"
        case .hasChildren(let flag): "hasChildren(\(flag))"
        case .data(let raw): "data(\(raw))"
        case .end: "end"
        }
    }
}

/// Records every call, keeping the exact bytes given.
struct RecordingSink: NodeSink {
    var events: [SinkEvent] = []
    /// Exact bytes of titles, ids and data, in call order.
    var payloads: [[UInt8]] = []
    /// The input buffer, to tell whether a title was passed in place (not copied).
    var input: UnsafeRawBufferPointer?
    var titlesInPlace: [Bool] = []

    mutating func beginNode() throws(NodeSinkError) { events.append(.begin) }
    mutating func setTitle(_ utf8: UnsafeRawBufferPointer) throws(NodeSinkError) {
        events.append(.title(String(decoding: utf8, as: UTF8.self)))
        payloads.append(Array(utf8))
        if let input, let start = utf8.baseAddress, let inputStart = input.baseAddress {
            titlesInPlace.append(start >= inputStart && start + utf8.count <= inputStart + input.count)
        }
    }
    mutating func setStringID(_ utf8: UnsafeRawBufferPointer) throws(NodeSinkError) {
        events.append(.stringID(String(decoding: utf8, as: UTF8.self)))
        payloads.append(Array(utf8))
    }
    mutating func setIntegerID(_ value: Int64) throws(NodeSinkError) { events.append(.integerID(value)) }
    mutating func setExpanded(_ flag: Bool) { events.append(.expanded(flag)) }
    mutating func setHasChildren(_ flag: Bool) { events.append(.hasChildren(flag)) }
    mutating func setData(_ rawJSON: UnsafeRawBufferPointer) throws(NodeSinkError) {
        events.append(.data(String(decoding: rawJSON, as: UTF8.self)))
        payloads.append(Array(rawJSON))
    }
    mutating func endNode() { events.append(.end) }
}

/// Counts nodes and nesting; cheap enough for million-node documents.
struct CountingSink: NodeSink {
    var nodes = 0
    var depth = 0
    var maxDepth = 0
    var dataBytes: [UInt8] = []

    mutating func beginNode() throws(NodeSinkError) {
        nodes += 1
        depth += 1
        maxDepth = max(maxDepth, depth)
    }
    mutating func setTitle(_ utf8: UnsafeRawBufferPointer) throws(NodeSinkError) {}
    mutating func setStringID(_ utf8: UnsafeRawBufferPointer) throws(NodeSinkError) {}
    mutating func setIntegerID(_ value: Int64) throws(NodeSinkError) {}
    mutating func setExpanded(_ flag: Bool) {}
    mutating func setHasChildren(_ flag: Bool) {}
    mutating func setData(_ rawJSON: UnsafeRawBufferPointer) throws(NodeSinkError) { dataBytes = Array(rawJSON) }
    mutating func endNode() { depth -= 1 }
}

/// Rejects an id whose string form was seen before (`42` and `"42"` collide), and
/// more than `maxNodes` nodes, like the engine's sink.
struct UniqueIDSink: NodeSink {
    var seen: Set<String> = []
    var maxNodes = Int.max
    var nodes = 0

    mutating func beginNode() throws(NodeSinkError) {
        nodes += 1
        if nodes > maxNodes {
            throw NodeSinkError(kind: .limitExceeded("too many nodes: the limit is \(maxNodes)"))
        }
    }
    mutating func setTitle(_ utf8: UnsafeRawBufferPointer) throws(NodeSinkError) {}
    mutating func setStringID(_ utf8: UnsafeRawBufferPointer) throws(NodeSinkError) {
        try insert(String(decoding: utf8, as: UTF8.self))
    }
    mutating func setIntegerID(_ value: Int64) throws(NodeSinkError) { try insert(String(value)) }
    mutating func setExpanded(_ flag: Bool) {}
    mutating func setHasChildren(_ flag: Bool) {}
    mutating func setData(_ rawJSON: UnsafeRawBufferPointer) throws(NodeSinkError) {}
    mutating func endNode() {}

    private mutating func insert(_ id: String) throws(NodeSinkError) {
        guard seen.insert(id).inserted else { throw NodeSinkError(kind: .duplicateID(id)) }
    }
}

/// Parses `document` into a fresh sink of type `S`.
func parseNodes<S: NodeSink>(
    _ document: [UInt8], into sink: S, options: NodesDocumentOptions = NodesDocumentOptions()
) -> (sink: S, members: [(key: String, value: JSONValue)]?, error: TreeInputError?) {
    var sink = sink
    do {
        let members = try document.withUnsafeBytes { buffer in
            try NodesDocumentParser.parse(buffer, into: &sink, options: options)
        }
        return (sink, members, nil)
    } catch let error as TreeInputError {
        return (sink, nil, error)
    } catch {
        fatalError("unexpected error type \(error)")
    }
}

func parseNodes<S: NodeSink>(
    _ document: String, into sink: S, options: NodesDocumentOptions = NodesDocumentOptions()
) -> (sink: S, members: [(key: String, value: JSONValue)]?, error: TreeInputError?) {
    parseNodes(Array(document.utf8), into: sink, options: options)
}

/// Records the events of `document`, with the input registered to check in-place titles.
func record(_ document: [UInt8], options: NodesDocumentOptions = NodesDocumentOptions())
    -> (sink: RecordingSink, members: [(key: String, value: JSONValue)]?, error: TreeInputError?)
{
    var sink = RecordingSink()
    do {
        let members = try document.withUnsafeBytes { buffer in
            sink.input = buffer
            defer { sink.input = nil }
            return try NodesDocumentParser.parse(buffer, into: &sink, options: options)
        }
        return (sink, members, nil)
    } catch let error as TreeInputError {
        return (sink, nil, error)
    } catch {
        fatalError("unexpected error type \(error)")
    }
}

func record(_ document: String, options: NodesDocumentOptions = NodesDocumentOptions())
    -> (sink: RecordingSink, members: [(key: String, value: JSONValue)]?, error: TreeInputError?)
{
    record(Array(document.utf8), options: options)
}
