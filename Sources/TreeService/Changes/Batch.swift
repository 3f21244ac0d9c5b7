import TreeEngine
import TreeFormats

/// The body of `POST /sessions/{sid}/batch`, `{"operations": [...]}`, read before the
/// session is locked: each operation is a change's own body plus `op`, decoded by that
/// change's decoder (`SessionOperation+Decoding`). An insert is kept as the byte range of
/// its object, and its nodes read on their own before the lock (`readInserts`): they are
/// checked against the session when their turn comes, as the operations before leave it.
struct Batch {
    enum Entry {
        case operation(SessionOperation)
        /// An insert: the bytes of its object in the body, and its nodes read before the
        /// lock (nil in a replay: read against the session in their turn).
        case insert(Range<Int>, Result<DetachedNodes, ServiceError>?)
        /// An operation that cannot be decoded: the error it answers when its turn comes
        /// (an operation before it may fail first).
        case invalid(ServiceError)
    }

    var entries: [Entry]
    /// The body the insert entries' ranges are in.
    var body: [UInt8]

    /// The names of `op`, in the order the API lists them.
    static let kinds = ["insert", "delete", "move", "update", "expand", "reveal", "expandAll", "collapseAll", "expandDepth",
                        "select", "selectAll", "selectNone", "invertSelection", "selectRows", "deleteSelected", "moveSelected"]

    /// Reads the body: malformed JSON 400, a body of another shape 422, more than
    /// `maxOperations` operations 413. Errors of single operations are kept for their turn.
    /// `maxDepth` is the upload depth limit, which an insert's nodes may reach.
    init(_ body: [UInt8], maxOperations: Int, maxDepth: Int) throws(ServiceError) {
        // A node nests two JSON levels (its object and its `children`), under five levels of batch.
        let jsonDepth = maxDepth > Int.max / 4 ? Int.max : 2 * maxDepth + 8
        let value: JSONValue
        do { value = try JSONValue.parse(body, maxDepth: jsonDepth) } catch { throw ServiceError(error) }
        guard case .object(let pairs) = value else { throw .unprocessable("the body must be a JSON object: {\"operations\": [...]}") }
        self.body = body
        let members = Members(pairs.map { ($0.key, $0.value) })
        try members.allowOnly(["operations"])
        guard case .array(let operations)? = members["operations"] else {
            throw .unprocessable("\"operations\" must be an array of operations", member: "operations")
        }
        guard operations.count <= maxOperations else {
            throw ServiceError(.tooManyOperations,
                               detail: "the batch has \(operations.count) operations, more than this server's limit of \(maxOperations) (--max-batch)",
                               pointer: "/operations")
        }
        let spans = operations.contains(where: { $0["op"] == .string("insert") }) ? body.withUnsafeBytes { Batch.elementSpans($0) } : []
        entries = operations.enumerated().map { k, operation in
            do throws(ServiceError) {
                if let decoded = try SessionOperation.batchOperation(operation) { return .operation(decoded) }
                return .insert(spans[k], nil)
            } catch {
                return .invalid(error)
            }
        }
    }

    /// Whether an operation of the batch edits the tree (an insert, or one whose
    /// `editsTree` says so), so that it needs the editor role.
    var editsTree: Bool {
        entries.contains { entry in
            switch entry {
            case .operation(let operation): operation.editsTree
            case .insert: true
            case .invalid: false
            }
        }
    }

    /// Reads each insert's nodes with `read` (before the session is locked); an error is
    /// kept for the insert's turn, as an undecodable operation's is.
    mutating func readInserts(_ read: (Range<Int>) throws(ServiceError) -> DetachedNodes) {
        for k in entries.indices {
            guard case .insert(let span, nil) = entries[k] else { continue }
            do throws(ServiceError) { entries[k] = .insert(span, .success(try read(span))) } catch { entries[k] = .insert(span, .failure(error)) }
        }
    }

    /// A batch's operations as its journal record keeps them (replay): the inserts' bytes
    /// laid one after another as the body.
    init(_ operations: [RecordedOperation]) {
        var body: [UInt8] = []
        entries = operations.map { operation in
            if let decoded = operation.operation { return .operation(decoded) }
            guard case .insertNodes(let bytes) = operation else {
                return .invalid(.unprocessable("a batch's record holds rows to insert, which no batch takes"))
            }
            body += bytes
            return .insert(body.count - bytes.count ..< body.count, nil)
        }
        self.body = body
    }

    /// The record of the batch's operations, once every one was applied (none is invalid).
    var records: [RecordedOperation] {
        entries.map { entry in
            switch entry {
            case .operation(let operation): RecordedOperation(operation)
            case .insert(let span, _): .insertNodes(Array(body[span]))
            case .invalid: preconditionFailure("a batch with an invalid operation is not applied")
            }
        }
    }

    /// The byte ranges of the elements of the array that is the value of the only member
    /// of the top-level object: `bytes` is valid JSON of that shape (it was parsed first).
    /// - Complexity: O(bytes)
    static func elementSpans(_ bytes: UnsafeRawBufferPointer) -> [Range<Int>] {
        var i = 0
        func skipSpace() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
        }
        /// From an opening quote to just past the closing one.
        func skipString() {
            i += 1
            while bytes[i] != UInt8(ascii: "\"") { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
            i += 1
        }
        func skipValue() {
            switch bytes[i] {
            case UInt8(ascii: "\""): skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                repeat {
                    switch bytes[i] {
                    case UInt8(ascii: "\""): skipString(); continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                    default: break
                    }
                    i += 1
                } while depth > 0
            default:
                while i < bytes.count, !"\t\n\r ,]}".utf8.contains(bytes[i]) { i += 1 }
            }
        }
        skipSpace(); i += 1        // {
        skipSpace(); skipString()  // the member's name
        skipSpace(); i += 1        // :
        skipSpace(); i += 1        // [
        skipSpace()
        var spans: [Range<Int>] = []
        while bytes[i] != UInt8(ascii: "]") {
            let start = i
            skipValue()
            spans.append(start ..< i)
            skipSpace()
            if bytes[i] == UInt8(ascii: ",") { i += 1; skipSpace() }
        }
        return spans
    }
}

extension SessionOperation {
    /// One element of a batch's `operations`: `op` names the change, the other members are
    /// its body as the single request has it, decoded by the same decoder; an item the
    /// single request names in its URL is `id`. Flags that the single body must carry as
    /// `true` (`reveal`, `expandAll`, `collapseAll`) are implied by `op` and may be left out.
    /// - Returns: nil for an insert, whose nodes are read against the session.
    static func batchOperation(_ value: JSONValue) throws(ServiceError) -> SessionOperation? {
        guard case .object(let pairs) = value else { throw .unprocessable("an operation must be a JSON object with an \"op\" member") }
        let members = Members(pairs.map { ($0.key, $0.value) })
        guard let name = members["op"] else {
            throw .unprocessable("\"op\" is missing: one of \(Batch.kinds.joined(separator: ", "))", member: "op")
        }
        guard case .string(let op) = name, Batch.kinds.contains(op) else {
            throw .unprocessable("\"op\" must be one of \(Batch.kinds.joined(separator: ", "))", member: "op")
        }
        let body = members.removing("op")
        func item() throws(ServiceError) -> ItemID {
            guard body.has("id") else { throw .unprocessable("\"id\" is missing: the item of a \"\(op)\"", member: "id") }
            return try body.itemID("id")
        }
        switch op {
        case "insert": return nil
        case "delete":
            try body.allowOnly(["id"])
            return .delete(try item())
        case "move": return try move(try item(), body.removing("id"))
        case "update": return try update(try item(), body.removing("id"))
        case "expand": return try expansion(try item(), body.removing("id"))
        case "reveal": return try reveal(try item(), body.removing("id").implying("reveal"))
        case "expandAll": return try expandAll(body.implying("expandAll"))
        case "collapseAll": return try collapseAll(body.implying("collapseAll"))
        case "select": return try selection(try item(), body.removing("id"))
        case "selectAll", "selectNone", "invertSelection":
            return try flag(op, body.implying(op), op == "selectAll" ? .selectAll : op == "selectNone" ? .selectNone : .invertSelection)
        case "selectRows": return try selectRows(body)
        case "deleteSelected":
            try body.allowOnly([])
            return .deleteSelected
        case "moveSelected":
            try body.allowOnly(["parentId", "index"])
            guard body.has("parentId") else { throw .unprocessable("\"parentId\" is missing: an item id, or null for the roots", member: "parentId") }
            return .moveSelected(parent: try body.itemIDOrNull("parentId"), index: try body.nonNegativeInt("index"))
        default: return try expandDepth(body)
        }
    }
}

extension Members {
    /// These members without `key`.
    func removing(_ key: String) -> Members { Members(members.filter { $0.0 != key }) }

    /// These members with `key: true` when it is absent.
    func implying(_ key: String) -> Members { has(key) ? self : Members(members + [(key, .bool(true))]) }
}

extension ServiceError {
    /// This error as the answer to operation `k` of a batch: its pointer (the operation
    /// itself when it has none) and byte offset (`base`: where the operation's bytes start,
    /// when the offset counts from there) into the whole body.
    func inOperation(_ k: Int, offsetBase base: Int? = nil) -> ServiceError {
        var error = self
        var prefix = JSONPointer()
        prefix.append(key: "operations")
        prefix.append(key: String(k))
        error.pointer = prefix.text + (pointer ?? "")
        if let offset = byteOffset { error.byteOffset = base.map { $0 + offset } }
        // Lines and columns counted inside the operation's bytes would mislead.
        error.line = nil
        error.column = nil
        error.detail = "operation \(k): \(detail)"
        return error
    }
}
