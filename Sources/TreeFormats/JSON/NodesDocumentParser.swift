import TreeEngine

/// Limits for `NodesDocumentParser`.
struct NodesDocumentOptions: Sendable {
    /// How deep the document may nest, counting one level per node (a node object and
    /// its `children` array together) plus one per array or object inside `data`.
    /// Nodes nested exactly `maxDepth` deep are accepted.
    var maxDepth: Int = 1_000_000
    /// How many nodes the document may hold in all.
    var maxNodes: Int = .max
    /// How deep the other top-level members (`expand`, `parentId`, ...) may nest;
    /// they are built as `JSONValue`s.
    var maxValueDepth: Int = 512

    init(maxDepth: Int = 1_000_000, maxNodes: Int = .max, maxValueDepth: Int = 512) {
        self.maxDepth = maxDepth
        self.maxNodes = maxNodes
        self.maxValueDepth = maxValueDepth
    }
}

/// Reads an upload document (a bare array of nodes, or an object with a `nodes` member)
/// and drives a `NodeSink` in pre-order, without building anything itself.
///
/// The parser checks shapes and types (title present and a string, id a string or a
/// number whose value is an integer, flags booleans, no duplicate or unknown keys);
/// the sink checks what needs the whole forest (id uniqueness, limits), and its
/// `NodeSinkError` becomes a `TreeInputError` with the byte offset and JSON path.
///
/// Iterative: an explicit stack of open nodes, so nesting depth is bounded by
/// `maxDepth` and memory, never by the thread's stack. Strings without escapes reach
/// the sink as slices of the input; escaped ones are decoded into one reused buffer.
struct NodesDocumentParser {
    /// Parses `bytes` into `sink`.
    ///
    /// - Returns: the members of a top-level object other than `nodes`, in document
    ///   order, for the caller to validate (`expand`, `parentId`, ...); empty for a
    ///   bare array.
    /// - Throws: `TreeInputError`: `.syntax` when the body is not well-formed JSON
    ///   (this wins over any rule the body also breaks), `.rule` when it breaks the
    ///   upload format or the sink throws. The sink may have received some nodes.
    /// - Complexity: O(n) in the document size; O(depth) extra memory.
    static func parse<S: NodeSink>(
        _ bytes: UnsafeRawBufferPointer,
        into sink: inout S,
        options: NodesDocumentOptions = NodesDocumentOptions()
    ) throws(TreeInputError) -> JSONMembers {
        var parser = NodesDocumentParser(bytes, options: options)
        do {
            return try parser.parseDocument(into: &sink)
        } catch {
            throw parser.makeError(error)
        }
    }

    // MARK: State

    /// A node object that is open: the innermost one in `node`, its ancestors in `ancestors`.
    struct NodeFrame {
        /// Offset of the node's `{`.
        var start: Int
        /// Position in its parent's `children` (or in the top-level array).
        var index: Int
        /// Members seen so far (`Member` bits).
        var seen: UInt8
    }

    /// The members of a node, as bits for duplicate detection.
    enum Member: UInt8 {
        case title = 1
        case id = 2
        case children = 4
        case expanded = 8
        case hasChildren = 16
        case data = 32
        case unknown = 0
    }

    /// What the innermost node is reading, for error paths.
    enum MemberPath {
        case none
        /// A member whose key (opening quote) is at this offset.
        case key(Int)
        /// Between children (or reading one that failed before opening).
        case children
    }

    var scanner: JSONScanner
    let options: NodesDocumentOptions
    var ancestors = ContiguousArray<NodeFrame>()
    var node = NodeFrame(start: 0, index: 0, seen: 0)
    var inNode = false
    var memberPath = MemberPath.none
    /// Open containers inside `data` while it is being validated.
    var valueStack = ContiguousArray<JSONScanner.ValueFrame>()
    var inData = false
    /// An element of a nodes array is expected at index `nextIndex` but not open yet.
    var elementPending = false
    /// The position of the next node in the array being read.
    var nextIndex = 0
    var nodeCount = 0
    /// The top-level member being read (`nodes` or another), for error paths.
    var topKey: String?
    var scratch: [UInt8] = []

    init(_ bytes: UnsafeRawBufferPointer, options: NodesDocumentOptions) {
        self.scanner = JSONScanner(bytes)
        self.options = options
        scratch.reserveCapacity(256)
    }

    // MARK: Document

    mutating func parseDocument<S: NodeSink>(into sink: inout S) throws(JSONScanError) -> JSONMembers {
        scanner.skipWhitespace()
        if scanner.atEnd {
            throw .syntax("empty document", at: scanner.pos)
        }
        var members: JSONMembers = []
        switch scanner.current {
        case UInt8(ascii: "["):
            try parseNodes(into: &sink)
        case UInt8(ascii: "{"):
            members = try parseTopObject(into: &sink)
        case let c where JSONScanner.startsValue(c):
            throw .rule("the document must be an array of nodes or an object with a \"nodes\" member", at: scanner.pos)
        default:
            throw scanner.unexpected("expected '[' or '{' at the start of the document")
        }
        scanner.skipWhitespace()
        if !scanner.atEnd {
            throw scanner.unexpected("unexpected data after the document")
        }
        return members
    }

    mutating func parseTopObject<S: NodeSink>(into sink: inout S) throws(JSONScanError) -> JSONMembers {
        let open = scanner.pos
        scanner.pos += 1
        scanner.skipWhitespace()
        var members: JSONMembers = []
        var sawNodes = false
        if scanner.current == UInt8(ascii: "}") {
            scanner.pos += 1
        } else {
            while true {
                let token = try scanner.scanMemberName()
                let key = scanner.string(token, scratch: &scratch)
                topKey = key
                if (key == "nodes" && sawNodes) || members.contains(where: { $0.key == key }) {
                    throw .rule("duplicate key \"\(key)\"", at: token.start - 1)
                }
                try scanner.scanNameSeparator()
                if key == "nodes" {
                    guard scanner.current == UInt8(ascii: "[") else {
                        if JSONScanner.startsValue(scanner.current) {
                            throw .rule("\"nodes\" must be an array of nodes", at: scanner.pos)
                        }
                        throw scanner.unexpected("expected a value")
                    }
                    try parseNodes(into: &sink)
                    sawNodes = true
                } else {
                    let value = try JSONValue.parseValue(&scanner, maxDepth: options.maxValueDepth, scratch: &scratch)
                    members.append((key: key, value: value))
                }
                topKey = nil
                scanner.skipWhitespace()
                switch scanner.current {
                case UInt8(ascii: ","):
                    scanner.pos += 1
                    scanner.skipWhitespace()
                case UInt8(ascii: "}"):
                    scanner.pos += 1
                    guard sawNodes else {
                        throw .rule("missing \"nodes\" member", at: open)
                    }
                    return members
                default:
                    throw scanner.unexpected("expected ',' or '}' after object member")
                }
            }
        }
        throw .rule("missing \"nodes\" member", at: open)
    }

    // MARK: Nodes

    private enum State {
        /// Just after a `[` of nodes: a node or `]`.
        case arrayStart
        /// A node's `{` is expected at `pos`.
        case openNode
        /// A member name is expected at `pos`.
        case member
        /// After a member's value: `,` or `}`.
        case afterMember
        /// After a node: `,` or `]`.
        case afterNode
    }

    /// Reads an array of nodes whose `[` is at `pos`, with every descendant, feeding the sink.
    mutating func parseNodes<S: NodeSink>(into sink: inout S) throws(JSONScanError) {
        scanner.pos &+= 1
        nextIndex = 0
        var state = State.arrayStart
        while true {
            switch state {
            case .arrayStart:
                scanner.skipWhitespace()
                if scanner.current == UInt8(ascii: "]") {
                    scanner.pos &+= 1
                    guard inNode else { return }
                    memberPath = .none
                    state = .afterMember
                } else {
                    state = .openNode
                }

            case .openNode:
                elementPending = true
                guard scanner.current == UInt8(ascii: "{") else {
                    if JSONScanner.startsValue(scanner.current) {
                        throw .rule("a node must be a JSON object", at: scanner.pos)
                    }
                    throw scanner.unexpected("expected a node object")
                }
                let start = scanner.pos
                if inNode {
                    guard ancestors.count &+ 1 < options.maxDepth else {
                        throw .rule("nodes nest deeper than the maximum depth of \(options.maxDepth)", at: start)
                    }
                    ancestors.append(node)
                }
                nodeCount &+= 1
                node = NodeFrame(start: start, index: nextIndex, seen: 0)
                inNode = true
                memberPath = .none
                elementPending = false
                guard nodeCount <= options.maxNodes else {
                    throw .limit("the document holds more than the maximum of \(options.maxNodes) nodes", at: start)
                }
                do throws(NodeSinkError) {
                    try sink.beginNode()
                } catch {
                    throw Self.sinkError(error, at: start)
                }
                scanner.pos &+= 1
                scanner.skipWhitespace()
                if scanner.current == UInt8(ascii: "}") {
                    try closeNode(into: &sink)
                    state = .afterNode
                } else {
                    state = .member
                }

            case .member:
                if try readMember(into: &sink) {
                    // `children`: its `[` consumed.
                    memberPath = .children
                    nextIndex = 0
                    state = .arrayStart
                } else {
                    memberPath = .none
                    state = .afterMember
                }

            case .afterMember:
                scanner.skipWhitespace()
                switch scanner.current {
                case UInt8(ascii: ","):
                    scanner.pos &+= 1
                    scanner.skipWhitespace()
                    state = .member
                case UInt8(ascii: "}"):
                    try closeNode(into: &sink)
                    state = .afterNode
                default:
                    throw scanner.unexpected("expected ',' or '}' after object member")
                }

            case .afterNode:
                scanner.skipWhitespace()
                switch scanner.current {
                case UInt8(ascii: ","):
                    scanner.pos &+= 1
                    scanner.skipWhitespace()
                    nextIndex &+= 1
                    state = .openNode
                case UInt8(ascii: "]"):
                    scanner.pos &+= 1
                    guard inNode else { return }
                    memberPath = .none
                    state = .afterMember
                default:
                    throw scanner.unexpected("expected ',' or ']' after array element")
                }
            }
        }
    }

    /// The node's `}` is at `pos`: checks it, tells the sink, and returns to the parent.
    @inline(__always)
    private mutating func closeNode<S: NodeSink>(into sink: inout S) throws(JSONScanError) {
        guard node.seen & Member.title.rawValue != 0 else {
            throw .rule("node is missing \"title\"", at: node.start)
        }
        scanner.pos &+= 1
        sink.endNode()
        nextIndex = node.index
        if let parent = ancestors.popLast() {
            node = parent
            memberPath = .children
        } else {
            inNode = false
            memberPath = .none
        }
    }

    /// Reads one member of the innermost node, `pos` on its key. Returns true for
    /// `children` (the `[` consumed, the children still to read), false otherwise
    /// (the value consumed and given to the sink).
    @inline(__always)
    private mutating func readMember<S: NodeSink>(into sink: inout S) throws(JSONScanError) -> Bool {
        guard scanner.current == UInt8(ascii: "\"") else {
            if scanner.current == UInt8(ascii: "}") {
                throw .syntax("trailing comma before '}'", at: scanner.pos)
            }
            throw scanner.unexpected("expected a member name in double quotes")
        }
        let keyStart = scanner.pos
        let member = try readNodeKey()
        memberPath = .key(keyStart)
        if member == .unknown {
            let name = scanner.key(at: keyStart, scratch: &scratch)
            throw .rule("unknown key \"\(name)\" in node", at: keyStart)
        }
        if node.seen & member.rawValue != 0 {
            throw .rule("duplicate key \"\(Self.name(of: member))\" in node", at: keyStart)
        }
        node.seen |= member.rawValue
        try scanner.scanNameSeparator()
        let valueStart = scanner.pos
        switch member {
        case .title:
            guard scanner.current == UInt8(ascii: "\"") else {
                throw try wrongType("\"title\" must be a string")
            }
            let token = try scanner.scanString()
            do throws(NodeSinkError) {
                if token.hasEscapes {
                    scanner.decode(token, into: &scratch)
                    let failure = scratch.withUnsafeBytes { (buffer) -> NodeSinkError? in
                            do throws(NodeSinkError) { try sink.setTitle(buffer) } catch { return error }
                            return nil
                        }
                        if let failure { throw failure }
                } else {
                    try sink.setTitle(scanner.slice(token.start, token.end))
                }
            } catch {
                throw Self.sinkError(error, at: valueStart)
            }

        case .id:
            switch scanner.current {
            case UInt8(ascii: "\""):
                let token = try scanner.scanString()
                do throws(NodeSinkError) {
                    if token.hasEscapes {
                        scanner.decode(token, into: &scratch)
                        let failure = scratch.withUnsafeBytes { (buffer) -> NodeSinkError? in
                            do throws(NodeSinkError) { try sink.setStringID(buffer) } catch { return error }
                            return nil
                        }
                        if let failure { throw failure }
                    } else {
                        try sink.setStringID(scanner.slice(token.start, token.end))
                    }
                } catch {
                    throw Self.sinkError(error, at: valueStart)
                }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let token = try scanner.scanNumber()
                // `7.0` and `7e0` are the id 7: a number counts by its value.
                let value: Int64
                switch scanner.integralValue(token) {
                case .integer(let integer):
                    value = integer
                case .fractional:
                    throw .rule("\"id\" must be a string or an integer", at: valueStart)
                case .outOfRange:
                    throw .rule("\"id\" integer is out of the 64-bit range", at: valueStart)
                }
                do throws(NodeSinkError) {
                    try sink.setIntegerID(value)
                } catch {
                    throw Self.sinkError(error, at: valueStart)
                }
            default:
                throw try wrongType("\"id\" must be a string or an integer")
            }

        case .expanded:
            guard let flag = scanner.scanBool() else {
                throw try wrongType("\"expanded\" must be a boolean")
            }
            sink.setExpanded(flag)

        case .hasChildren:
            guard let flag = scanner.scanBool() else {
                throw try wrongType("\"hasChildren\" must be a boolean")
            }
            sink.setHasChildren(flag)

        case .data:
            inData = true
            valueStack.removeAll(keepingCapacity: true)
            try scanner.skipValue(stack: &valueStack, maxDepth: options.maxDepth &- ancestors.count &- 1)
            inData = false
            do throws(NodeSinkError) {
                try sink.setData(scanner.slice(valueStart, scanner.pos))
            } catch {
                throw Self.sinkError(error, at: valueStart)
            }

        case .children:
            guard scanner.current == UInt8(ascii: "[") else {
                throw try wrongType("\"children\" must be an array of nodes")
            }
            scanner.pos &+= 1
            return true

        case .unknown:
            break
        }
        return false
    }

    /// A rule error for a member value of the wrong type at `pos`, or a syntax error
    /// when no value starts there at all.
    private func wrongType(_ message: String) throws(JSONScanError) -> JSONScanError {
        guard JSONScanner.startsValue(scanner.current) else {
            throw scanner.unexpected("expected a value")
        }
        return .rule(message, at: scanner.pos)
    }

    /// Reads a node member's key at `pos` (an opening quote) and leaves `pos` after
    /// its closing quote. Plain keys are matched in place; escaped ones are decoded.
    @inline(__always)
    private mutating func readNodeKey() throws(JSONScanError) -> Member {
        let at = scanner.pos &+ 1
        let member: Member
        let length: Int
        switch scanner.current == UInt8(ascii: "\"") && at < scanner.end ? scanner.byte(at) : 0 {
        case UInt8(ascii: "t"): (member, length) = (.title, 5)
        case UInt8(ascii: "c"): (member, length) = (.children, 8)
        case UInt8(ascii: "i"): (member, length) = (.id, 2)
        case UInt8(ascii: "e"): (member, length) = (.expanded, 8)
        case UInt8(ascii: "h"): (member, length) = (.hasChildren, 11)
        case UInt8(ascii: "d"): (member, length) = (.data, 4)
        default: (member, length) = (.unknown, 0)
        }
        if member != .unknown, scanner.matches(Self.quotedName(of: member), at: at) {
            scanner.pos = at &+ length &+ 1
            return member
        }
        let token = try scanner.scanString()
        if token.hasEscapes {
            scanner.decode(token, into: &scratch)
            return scratch.withUnsafeBytes { Self.member(named: $0) }
        }
        return Self.member(named: scanner.slice(token.start, token.end))
    }

    private static func member(named bytes: UnsafeRawBufferPointer) -> Member {
        for candidate in [Member.title, .id, .children, .expanded, .hasChildren, .data] {
            let name = Self.name(of: candidate)
            if name.utf8CodeUnitCount == bytes.count,
               bytes.elementsEqual(UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)) {
                return candidate
            }
        }
        return .unknown
    }

    private static func quotedName(of member: Member) -> StaticString {
        switch member {
        case .title: "title\""
        case .id: "id\""
        case .children: "children\""
        case .expanded: "expanded\""
        case .hasChildren: "hasChildren\""
        case .data: "data\""
        case .unknown: "\""
        }
    }

    static func name(of member: Member) -> StaticString {
        switch member {
        case .title: "title"
        case .id: "id"
        case .children: "children"
        case .expanded: "expanded"
        case .hasChildren: "hasChildren"
        case .data: "data"
        case .unknown: ""
        }
    }

    // MARK: Errors

    static func sinkError(_ error: NodeSinkError, at offset: Int) -> JSONScanError {
        switch error.kind {
        case .duplicateID(let id):
            return .rule("duplicate id \"\(id)\"", at: offset)
        case .limitExceeded(let message):
            return .limit(message, at: offset)
        case .idTooLong(let bytes, let limit):
            return .rule(NodeSinkError.idTooLongMessage(bytes: bytes, limit: limit), at: offset)
        }
    }

    /// The JSON Pointer to where the parser stands now.
    func currentPath() -> JSONPointer {
        var path = JSONPointer()
        if let topKey {
            path.append(key: topKey)
            if topKey != "nodes" { return path }
        }
        guard inNode else {
            return elementPending ? path.appending(index: nextIndex) : path
        }
        for ancestor in ancestors {
            path.append(index: ancestor.index)
            path.append(key: "children")
        }
        path.append(index: node.index)
        var scratch: [UInt8] = []
        switch memberPath {
        case .none:
            break
        case .children:
            path.append(key: "children")
            if elementPending { path.append(index: nextIndex) }
        case .key(let offset):
            path.append(key: scanner.key(at: offset, scratch: &scratch))
            if inData {
                path.append(contentsOf: scanner.path(of: valueStack, from: 0))
            }
        }
        return path
    }

    /// Turns an internal error into the public one: path, line and column; and, for a
    /// rule error, a syntax error instead when the document is malformed anywhere.
    func makeError(_ error: JSONScanError) -> TreeInputError {
        // Node levels nest two JSON containers each; a little slack so that a document
        // just past the limit is still checked to its end.
        let validationDepth = options.maxDepth > Int.max / 4 ? Int.max / 2 : 2 * (options.maxDepth + 8)
        if error.kind != .syntax,
           let syntax = JSONScanner.firstSyntaxError(in: scanner.bytes, maxDepth: validationDepth) {
            return syntax
        }
        var path = currentPath()
        if let inner = error.path {
            path.append(contentsOf: inner)
        }
        return TreeInputError(kind: error.kind, message: error.message, byteOffset: error.offset,
                              path: path, in: scanner.bytes)
    }
}
