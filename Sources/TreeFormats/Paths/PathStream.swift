import TreeEngine

/// A path list's forest built while the list is read, for lists in pre-order (as
/// `git ls-files`, `find` and our export write them): every new name is then a child of
/// the open path, so its node goes straight into the builder, and nothing is read twice.
/// A name that reaches back into a folder already left ends the stream (the reader then
/// builds from its nodes as usual).
///
/// Node indices of the reader are slots of this builder: both count new nodes in order.
struct PathStream {
    var builder: ForestBuilder
    /// The reader's node at each depth of the open path.
    private var open: [Int32] = []
    private var key: PathKey

    init(limits: ForestLimits, expectedBytes: Int, separator: [UInt8]) {
        builder = ForestBuilder(limits: limits, expectedBytes: expectedBytes)
        builder.deriveIDs(separator: separator, rootPrefix: [])
        builder.defersIDChecks = true  // paths are unique unless a name reaches back
        // Room for the names (the ids store each name too): untouched room costs nothing.
        builder.reserveTitles(bytes: expectedBytes)
        builder.reserveIDs(0, bytes: expectedBytes)
        key = PathKey(separator: separator)
    }

    /// Whether `node`, an existing node found at `depth`, is the open one there (else the
    /// list reaches back into a folder already left: not in pre-order).
    func isOpen(_ node: Int32, depth: Int) -> Bool {
        depth < open.count && open[depth] == node
    }

    /// Builds the new node `node` named `title` at `depth` (its parent the open node at
    /// `depth - 1`). Returns false when the builder refuses it.
    mutating func add(_ node: Int32, depth: Int, title: UnsafeRawBufferPointer) -> Bool {
        do throws(NodeSinkError) {
            while open.count > depth {
                try builder.endNode()
                open.removeLast()
            }
            try builder.beginNode()
            open.append(node)
            try builder.setTitle(title)
            try key.setDerivedID(of: &builder, depth: depth, name: title)
            return true
        } catch {
            return false
        }
    }

    /// The forest, every node ended and `flags` (the reader's, bit 0: declares children)
    /// applied; nil when two paths spell one id (a separator that overlaps itself).
    mutating func finish(flags: [UInt8]) -> Forest? {
        while !open.isEmpty {
            try? builder.endNode()
            open.removeLast()
        }
        for n in flags.indices where flags[n] & 1 != 0 { builder.setHasChildren(true, slot: n) }
        guard builder.indexDeferredIDs() else { return nil }
        return builder.finish()
    }
}

/// The canonical id of a node composed from its parent's (kept by depth along the open
/// path): the parent's id, the separator, the node's name in canonical form.
struct PathKey {
    private var bytes: [UInt8] = []
    /// The id's length at each depth of the open path.
    private var ends: [Int] = []
    private let separator: [UInt8]

    init(separator: [UInt8]) {
        self.separator = separator
    }

    /// Gives the open node at `depth`, named `name`, its derived id.
    mutating func setDerivedID(of builder: inout ForestBuilder, depth: Int, name: UnsafeRawBufferPointer) throws(NodeSinkError) {
        bytes.removeLast(bytes.count - (depth == 0 ? 0 : ends[depth - 1]))
        if depth > 0 { bytes.append(contentsOf: separator) }
        let segmentStart = bytes.count
        PathListReader.appendCanonical(name, separator: separator, to: &bytes)
        if ends.count > depth { ends[depth] = bytes.count } else { ends.append(bytes.count) }
        let failure: NodeSinkError? = bytes.withUnsafeBytes { raw in
            do throws(NodeSinkError) {
                try builder.setDerivedID(raw, segmentCount: raw.count - segmentStart)
            } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }
}
