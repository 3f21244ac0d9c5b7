import TreeEngine

/// Writing a tree read from a JSON document (`parseDocument`) back as that document: each
/// node's key is the last token of its id (a JSON Pointer), a node with data is that value as
/// written (an empty container's data is its `{}` or `[]`), and any other node a container:
/// an array when its children's tokens are `0`, `1`, … in order, else an object. Titles are
/// not read (they show the value; renaming a node changes nothing here).
extension Forest {
    /// Why this tree cannot be written as a JSON document, or nil when it can: its ids are not
    /// a document's pointers (`/a/0`), a node's id is not its parent's and one token, a node
    /// with data has children, or two siblings have one key.
    /// - Complexity: O(n + ids' bytes)
    public func documentConflict() -> String? {
        guard let scheme = derivedIDScheme, scheme.separator == [UInt8(ascii: "/")], scheme.rootPrefix == scheme.separator else {
            return "the tree was not read from a JSON document (format=document): its ids are not JSON Pointers"
        }
        var conflict: String?
        forEachNode { node, _ in
            guard conflict == nil else { return }
            guard token(of: node) != nil else {
                conflict = "node \(id(of: node)) has an id that is not its parent's JSON Pointer and one token"
                return
            }
            let children = self.children(of: node)
            if !children.isEmpty && withData(of: node, { $0 != nil }) {
                conflict = "node \(id(of: node)) has a value and children"
            } else if !children.isEmpty && !isArray(children) && Set(children.compactMap(token(of:))).count < children.count {
                conflict = "node \(id(of: node)) has two children with one key"
            }
        }
        let roots = children(of: nil)
        if conflict == nil && !isArray(roots) && Set(roots.compactMap(token(of:))).count < roots.count {
            conflict = "two top-level nodes have one key"
        }
        return conflict
    }

    /// Writes the tree as the JSON document it was read from (see the extension), without
    /// whitespace. Check `documentConflict()` first.
    /// - Complexity: O(n + bytes), iterative at any depth
    public func exportDocument(chunkSize: Int = 1 << 16, _ emit: ([UInt8]) throws -> Void) rethrows {
        var out = JSONWriter(reservingCapacity: chunkSize + 4096)
        // The open containers: whether each is an array, and whether it has a member yet.
        var open: [(isArray: Bool, hasMember: Bool)] = [(isArray(children(of: nil)), false)]
        out.byte(open[0].isArray ? UInt8(ascii: "[") : UInt8(ascii: "{"))
        func close(to depth: Int) {
            while open.count > depth + 1 {
                out.byte(open.removeLast().isArray ? UInt8(ascii: "]") : UInt8(ascii: "}"))
            }
        }
        try forEachNode { node, level in
            close(to: level)
            if open[level].hasMember { out.byte(UInt8(ascii: ",")) }
            open[level].hasMember = true
            if !open[level].isArray {
                out.string(token(of: node) ?? "")
                out.byte(UInt8(ascii: ":"))
            }
            let written = withData(of: node) { raw -> Bool in
                guard let raw else { return false }
                out.raw(raw)
                return true
            }
            if !written {
                let isArray = isArray(children(of: node))
                out.byte(isArray ? UInt8(ascii: "[") : UInt8(ascii: "{"))
                open.append((isArray, false))
            }
            if out.bytes.count >= chunkSize {
                try emit(out.bytes)
                out.bytes.removeAll(keepingCapacity: true)
            }
        }
        close(to: 0)
        out.byte(open[0].isArray ? UInt8(ascii: "]") : UInt8(ascii: "}"))
        try emit(out.bytes)
    }

    /// The node's key: the last token of its pointer, unescaped (`~1` `/`, `~0` `~`); nil when
    /// its id is not its parent's pointer (or `/` for a root) and one token.
    private func token(of node: NodeHandle) -> String? {
        let own = id(of: node).description
        let prefix = parent(of: node).map { id(of: $0).description } ?? ""
        guard own.hasPrefix(prefix + "/") else { return nil }
        let raw = own.dropFirst(prefix.count + 1)
        guard !raw.contains("/") else { return nil }
        var key = ""
        var tilde = false
        for c in raw {
            if tilde {
                key.append(c == "1" ? "/" : c == "0" ? "~" : c)
                tilde = false
            } else if c == "~" {
                tilde = true
            } else {
                key.append(c)
            }
        }
        return key
    }

    /// Whether siblings are an array's elements: their keys are `0`, `1`, … in order (none
    /// are an empty object's members, which are written as one).
    private func isArray(_ siblings: [NodeHandle]) -> Bool {
        !siblings.isEmpty && siblings.enumerated().allSatisfy { k, node in token(of: node) == String(k) }
    }
}
