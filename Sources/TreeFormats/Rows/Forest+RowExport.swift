import TreeEngine

extension Forest {
    /// Writes the forest as CSV (RFC 4180, CRLF line ends): the header
    /// `id,parentId,title,expanded,hasChildren,data`, then one row per node in pre-order
    /// (parents first). Fields are quoted only when they hold a comma, a quote, CR or LF;
    /// flags are `true` or empty; `data` is the node's raw JSON or empty. When every node's
    /// data is an object of strings with the same members in the same order (as a CSV's other
    /// columns make it), those members are the columns instead of `data`, as they came. Generated ids are
    /// written as their `~N` text, integer ids as their decimal text (they come back as
    /// strings: CSV has no integer type). A root's `parentId` is empty; the empty id is
    /// written `""` (quoted), so that it is told apart from no id.
    /// Bytes are handed out in chunks of about `chunkSize`.
    /// - Complexity: O(n + total bytes), iterative at any depth
    public func exportCSV(chunkSize: Int = 1 << 16, _ emit: ([UInt8]) throws -> Void) rethrows {
        var out: [UInt8] = []
        out.reserveCapacity(chunkSize + 4096)
        let columns = csvDataColumns()
        out.append(contentsOf: "id,parentId,title,expanded,hasChildren".utf8)
        for name in columns ?? ["data"] {
            out.append(UInt8(ascii: ","))
            Array(name.utf8).withUnsafeBytes { Self.csvField($0, emptyQuoted: false, to: &out) }
        }
        out.append(contentsOf: [0x0D, 0x0A])
        try forEachNode { node, _ in
            withID(of: node) { key, _ in Self.csvField(key, emptyQuoted: true, to: &out) }
            out.append(UInt8(ascii: ","))
            if let parent = parent(of: node) {
                withID(of: parent) { key, _ in Self.csvField(key, emptyQuoted: true, to: &out) }
            }
            out.append(UInt8(ascii: ","))
            withTitle(of: node) { Self.csvField($0, emptyQuoted: false, to: &out) }
            out.append(UInt8(ascii: ","))
            if isExpandedUnfiltered(node) { out.append(contentsOf: "true".utf8) }
            out.append(UInt8(ascii: ","))
            if declaresChildren(node) { out.append(contentsOf: "true".utf8) }
            withData(of: node) { raw in
                guard let raw else { return out.append(UInt8(ascii: ",")) }
                guard columns != nil, case .object(let members)? = try? JSONValue.parse(raw) else {
                    out.append(UInt8(ascii: ","))
                    return Self.csvField(raw, emptyQuoted: false, to: &out)
                }
                for (_, value) in members {
                    out.append(UInt8(ascii: ","))
                    if case .string(let text) = value { Array(text.utf8).withUnsafeBytes { Self.csvField($0, emptyQuoted: false, to: &out) } }
                }
            }
            out.append(0x0D)
            out.append(0x0A)
            if out.count >= chunkSize {
                try emit(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        if !out.isEmpty { try emit(out) }
    }

    /// The members of every node's data when each is an object of strings with the same
    /// members in the same order, none named as a CSV column role in any letter case (a CSV
    /// upload's other columns): the columns a CSV export writes them in. Else nil.
    /// - Complexity: O(n + data bytes), the data parsed only while it fits
    func csvDataColumns() -> [String]? {
        var columns: [String]?
        var fits = true
        forEachNode { node, _ in
            guard fits else { return }
            let names: [String]? = withData(of: node) { raw in
                guard let raw, case .object(let members)? = try? JSONValue.parse(raw),
                      members.allSatisfy({ if case .string = $0.value { true } else { false } }) else { return nil }
                return members.map(\.key)
            }
            guard let names else { fits = false; return }
            if columns == nil {
                let roles = Set(CSVDialect.roles.map { $0.lowercased() })
                guard !names.isEmpty, Set(names).count == names.count,
                      !names.contains(where: { $0.isEmpty || roles.contains($0.lowercased()) }) else { fits = false; return }
                columns = names
            } else if names != columns {
                fits = false
            }
        }
        return fits ? columns : nil
    }

    /// Writes the forest as NDJSON (LF line ends): one object per node in pre-order,
    /// `{"id":…,"parentId":…|null,"title":…}` with `"expanded":true`,
    /// `"hasChildren":true` and `"data":…` only when set. Ids keep their JSON type
    /// (generated ones as `~N` strings). Bytes are handed out in chunks of about `chunkSize`.
    /// - Complexity: O(n + total bytes), iterative at any depth
    public func exportNDJSON(chunkSize: Int = 1 << 16, _ emit: ([UInt8]) throws -> Void) rethrows {
        var out = JSONWriter(reservingCapacity: chunkSize + 4096)
        try forEachNode { node, _ in
            out.raw("{\"id\":")
            writeID(of: node, to: &out)
            out.raw(",\"parentId\":")
            if let parent = parent(of: node) {
                writeID(of: parent, to: &out)
            } else {
                out.raw("null")
            }
            out.raw(",\"title\":")
            writeTitle(of: node, to: &out)
            writeOptionalMembers(of: node, to: &out)
            out.raw("}\n")
            if out.bytes.count >= chunkSize {
                try emit(out.bytes)
                out.bytes.removeAll(keepingCapacity: true)
            }
        }
        if !out.bytes.isEmpty { try emit(out.bytes) }
    }

    /// Appends one CSV field: as is, or quoted with quotes doubled when it holds a comma,
    /// a quote, CR or LF (or is empty and `emptyQuoted`).
    /// - Complexity: O(length of the field)
    @inline(__always)
    static func csvField(_ bytes: UnsafeRawBufferPointer, emptyQuoted: Bool, to out: inout [UInt8]) {
        if bytes.isEmpty {
            if emptyQuoted { out.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: "\"")]) }
            return
        }
        var needsQuotes = false
        var quotes = false
        for b in bytes {
            switch b {
            case UInt8(ascii: "\""): quotes = true; needsQuotes = true
            case UInt8(ascii: ","), 0x0A, 0x0D: needsQuotes = true
            default: continue
            }
        }
        guard needsQuotes else {
            out.append(contentsOf: bytes)
            return
        }
        out.append(UInt8(ascii: "\""))
        if quotes {
            for b in bytes {
                out.append(b)
                if b == UInt8(ascii: "\"") { out.append(b) }
            }
        } else {
            out.append(contentsOf: bytes)
        }
        out.append(UInt8(ascii: "\""))
    }
}
