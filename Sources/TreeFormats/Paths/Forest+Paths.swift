import TreeEngine

/// Path lists (`text/plain`): one path a line, names split at a separator.
///
/// Reading: every prefix of a line is a node (siblings in order of first appearance; a
/// prefix seen before reuses its node); its title is the last name, its id the prefix in
/// canonical form. Absolute paths (every line starts with the separator) keep it in their
/// ids (the forest's root prefix), and a line of the separator alone adds nothing. A line ending with the separator makes a node that declares children
/// (`docs/`). Blank lines are skipped, CRLF is read as LF, a UTF-8 BOM is skipped.
///
/// Escapes: a backslash escapes the next character: `\\` is a backslash, `\` + separator
/// the separator inside a name, `\n` LF, `\r` CR, `\"` a quote; a backslash before any
/// other character (or at the end of the line) is a literal backslash. A line that
/// starts and ends with `"` is git's C-quoted form (`git ls-files` with core.quotePath):
/// `\"`, `\\`, `\a \b \t \n \v \f \r` and `\ooo` octal bytes are decoded, then the
/// result is split at separators with no further escapes.
///
/// Canonical form (ids, and what `exportPaths` writes): names joined by the separator,
/// each with separator → `\`+separator, LF → `\n`, CR → `\r`, and `\` → `\\` only where a
/// lone backslash would read as an escape (before `\`, `n`, `r`, `"`, LF, CR or the
/// separator's first byte, and at the end of the name). For an ordinary path, literal backslashes and all,
/// that is the line itself.
///
/// A separator that overlaps itself (`::`, ` | `) leaves one ambiguity: a name that ends
/// with the separator's beginning (`a:` before `::`) reads back split differently, as no
/// escape names a lone `:`. Separators without such overlap (`/`, `>`, `→`, `	`) have none.
extension Forest {
    /// Builds a forest from a path list (see the extension's documentation).
    /// - Throws: `TreeInputError` with the line and column: `.syntax` for invalid UTF-8
    ///   or a bad escape in a quoted line, `.rule` for an empty name (two separators in a
    ///   row), a relative path in a list of absolute ones (or the other way round) or a
    ///   path deeper than `limits.maxDepth`, `.limit` for more than `limits.maxNodes` nodes,
    ///   or ids (whole paths) of more than 16 bytes per input byte plus 64 MiB, which only
    ///   paths nesting thousands of names deep reach.
    /// - Precondition: `separator` is 1 to 16 bytes without `\`, CR or LF.
    /// - Complexity: O(input size) expected; a name already on the previous line's path
    ///   costs a comparison, a new prefix one hash.
    public static func parsePaths(_ bytes: UnsafeRawBufferPointer, separator: String = "/",
                                  limits: ForestLimits = ForestLimits()) throws(TreeInputError) -> Forest {
        // A plain list in pre-order is built while it is read (`PathParts`); the others (and
        // errors) the general way.
        if let forest = PathParts(bytes: bytes, separator: Array(separator.utf8), limits: limits).readInParts() { return forest }
        var reader = PathListReader(bytes, separator: separator, limits: limits)
        try reader.read()
        // Paths are unique by construction, so their ids are indexed all at once at the end.
        // Only a separator that overlaps itself can make two paths spell one id: then a
        // second build, checking each id as it comes, reports it.
        let nameBytes = reader.titleLength.reduce(0) { $0 + Int($1) }
        let make = {
            // The nodes are counted, and each stores its name in the id pool too (with the
            // derived entry's tag and parent): a line repeats its folders' names, so the
            // input's size says little of either.
            var builder = ForestBuilder(limits: limits, expectedBytes: bytes.count, expectedNodes: reader.newCount)
            builder.deriveIDs(separator: reader.separator, rootPrefix: reader.rootPrefix)
            if reader.newCount > 0 { builder.reserveIDs(reader.newCount, bytes: nameBytes + 5 * reader.newCount) }
            return builder
        }
        return try ForestBuilder.buildCheckingIDsInBulk(make: make) { (builders) throws(TreeInputError) in
            try reader.build(into: &builders, group: { _ in 0 })
        }
    }

    /// Why this forest cannot be written as a path list, or nil when it can: a node with an
    /// empty title, two siblings with the same title, or paths so deep that the list would
    /// exceed 4 GiB (each line repeats every ancestor's name).
    ///
    /// Siblings are compared within their group while it is small (pre-order keeps one open
    /// group per level); a group past 16 nodes goes into one `ByteKeyTable` keyed by (parent,
    /// title), so wide levels stay linear.
    /// - Complexity: O(n + titles' bytes) expected
    public func pathListConflict() -> String? {
        var table = ByteKeyTable()
        var hashed: [NodeHandle] = []  // the table's entries point here
        /// The open sibling group of each level: its nodes while small, else hashed.
        var groups: [[NodeHandle]] = []
        var groupIsHashed: [Bool] = []
        var levelBytes: [Int] = []  // canonical path length of the open ancestors
        var ancestors: [NodeHandle] = []
        var total = 0
        var conflict: String?

        func sameTitle(_ a: NodeHandle, _ b: NodeHandle) -> Bool {
            withTitle(of: a) { x in withTitle(of: b) { y in PathListReader.equal(x, y) } }
        }
        /// Adds `node` (child of `parent`) to the hash table; returns a sibling with its title, if any.
        func hashInsert(_ node: NodeHandle, parent: NodeHandle?) -> NodeHandle? {
            let hash = withTitle(of: node) { PathListReader.hash($0, parent: parent.map { $0.slot.rawValue } ?? -1) }
            let twin = table.insert(Int32(hashed.count), hash: hash) { other in
                self.parent(of: hashed[Int(other)]) == parent && sameTitle(hashed[Int(other)], node)
            }
            if let twin { return hashed[Int(twin)] }
            hashed.append(node)
            return nil
        }

        forEachNode { node, level in
            guard conflict == nil else { return }
            ancestors.removeLast(ancestors.count - level)
            levelBytes.removeLast(levelBytes.count - level)
            // Entering a level opens a new group there; deeper groups are closed.
            if groups.count > level + 1 {
                for l in level + 1 ..< groups.count {
                    groups[l].removeAll(keepingCapacity: true)
                    groupIsHashed[l] = false
                }
            }
            while groups.count <= level {
                groups.append([])
                groupIsHashed.append(false)
            }
            let parent = ancestors.last
            let (titleCount, escapes) = withTitle(of: node) { title -> (Int, Int) in
                (title.count, title.reduce(0) { $0 + ($1 == 0x5C || $1 == 0x0A || $1 == 0x0D || $1 == 0x2F ? 1 : 0) })
            }
            if titleCount == 0 {
                conflict = "node \(id(of: node)) has an empty title, which a path list cannot hold"
                return
            }
            // Siblings with one title would be one path.
            var twin: NodeHandle?
            if groupIsHashed[level] {
                twin = hashInsert(node, parent: parent)
            } else {
                twin = groups[level].first { sameTitle($0, node) }
                groups[level].append(node)
                if twin == nil, groups[level].count > 16 {
                    for sibling in groups[level] where twin == nil { twin = hashInsert(sibling, parent: parent) }
                    groups[level].removeAll(keepingCapacity: true)
                    groupIsHashed[level] = true
                }
            }
            if let twin {
                conflict = "nodes \(id(of: twin)) and \(id(of: node)) are siblings with the same title \(title(of: node).debugDescription), which a path list cannot tell apart"
                return
            }
            let length = (level == 0 ? 0 : levelBytes[level - 1] + 1) + titleCount + escapes
            total += length + 2
            if total > 1 << 32 {
                conflict = "the path list would take more than 4 GiB: its paths nest too deep (each line repeats every ancestor's name)"
                return
            }
            levelBytes.append(length)
            ancestors.append(node)
        }
        return conflict
    }

    /// Writes the forest as a path list: every node's canonical path (see the extension's
    /// documentation) on its own line, in pre-order, with a trailing separator for a node
    /// that declares children; a line that would start with `"` starts with `\"` instead
    /// (else it could read as git's quoted form). LF line ends. Bytes go out in chunks of
    /// about `chunkSize`. Check `pathListConflict()` first: empty titles and siblings with
    /// one title do not come back.
    /// - Precondition: `separator` is 1 to 16 bytes without `\`, CR or LF.
    /// - Complexity: O(output size), iterative at any depth
    /// `doublesBackslashes`: every backslash doubled, as sessions made before the minimal
    /// form spell their ids.
    public func exportPaths(separator: String = "/", chunkSize: Int = 1 << 16, doublesBackslashes: Bool = false,
                            _ emit: ([UInt8]) throws -> Void) rethrows {
        let separator = Array(separator.utf8)
        precondition(!separator.isEmpty && separator.count <= 16
            && !separator.contains(where: { $0 == UInt8(ascii: "\\") || $0 == 0x0A || $0 == 0x0D }),
            "a path separator is 1 to 16 bytes without a backslash, CR or LF")
        // Absolute paths (read from `find /usr`, say) come back absolute: each line its id.
        let rootPrefix = derivedIDScheme.map { $0.rootPrefix == $0.separator ? separator : [] } ?? []
        var out: [UInt8] = []
        out.reserveCapacity(chunkSize + 4096)
        var path: [UInt8] = []
        var ends: [Int] = []  // the path length of each open level
        try forEachNode { node, level in
            ends.removeLast(ends.count - level)
            path.removeLast(path.count - (level == 0 ? 0 : ends[level - 1]))
            path.append(contentsOf: level > 0 ? separator : rootPrefix)
            withTitle(of: node) { PathListReader.appendCanonical($0, separator: separator, doublingBackslashes: doublesBackslashes, to: &path) }
            ends.append(path.count)
            if path.first == UInt8(ascii: "\"") { out.append(UInt8(ascii: "\\")) }
            out.append(contentsOf: path)
            if declaresChildren(node) { out.append(contentsOf: separator) }
            out.append(0x0A)
            if out.count >= chunkSize {
                try emit(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        if !out.isEmpty { try emit(out) }
    }
}

extension TreeStore {
    /// Reads a path list (see `Forest.parsePaths`) as nodes to insert under `parent` (the
    /// top level when nil).
    ///
    /// A new node's id is `<parent's id><separator><path>` (just the path at the top
    /// level), so paths inserted under a folder read from a list extend its ids. A prefix
    /// whose id names an existing child of the expected parent is reused: its new names go
    /// under it (inserting `src/new.txt` where `src` exists adds one node); a trailing
    /// separator on such a node changes nothing. An id that exists elsewhere → `.rule`
    /// duplicate id. Depth counts from `parent`'s children (0), like a nested fragment;
    /// `limits.maxNodes` counts the store's nodes too.
    /// - Returns: one group per existing node (or the top level) that gets new children, in
    ///   order of first appearance; empty when every path exists already.
    /// - Complexity: O(input size) expected, plus one store lookup per new prefix
    public func parsePathFragments(_ bytes: UnsafeRawBufferPointer, separator: String, under parent: NodeHandle?,
                                   limits: ForestLimits, doublesBackslashes: Bool = false) throws(TreeInputError) -> [FragmentGroup] {
        var prefix: [UInt8] = []
        if let parent {
            forest.withID(of: parent) { key, _ in prefix.append(contentsOf: key) }
            prefix.append(contentsOf: separator.utf8)
        }
        let context = PathListReader.FragmentContext(forest: forest, under: parent, prefix: prefix)
        var reader = PathListReader(bytes, separator: separator, limits: limits, fragment: context, doublesBackslashes: doublesBackslashes)
        try reader.read()
        guard let done = reader.fragment else { return [] }
        var builders = done.groupParents.map { _ in fragmentBuilder(limits: limits, expectedBytes: bytes.count / max(1, done.groupParents.count)) }
        try reader.build(into: &builders, group: { node in
            let p = reader.parents[Int(node)]
            return p < 0 ? done.groupOfTop! : done.groupOf[p]!
        })
        return zip(done.groupParents, builders).map { parent, builder in
            var builder = builder
            return FragmentGroup(parent: parent, fragment: builder.finish())
        }
    }
}
