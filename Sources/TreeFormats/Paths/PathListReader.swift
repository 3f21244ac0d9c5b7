#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TreeEngine

/// Reads a path list (one path a line, names split at a separator) into nodes given as
/// parent indices in order of first appearance, then builds forests from them.
///
/// Every prefix of a line is a node: its title is the prefix's last name (escapes
/// resolved), its id the prefix in canonical form (see `appendCanonical`). A prefix seen
/// before reuses its node: first against the previous line's path (input in pre-order,
/// such as `git ls-files` or our export, never looks a reused name up), then among the
/// parent's children: along the sibling links while there are at most `smallGroup`,
/// else through a `ByteKeyTable` keyed by (parent, title), which holds only the nodes of
/// such large groups.
///
/// Titles and ids of ordinary lines (no escapes) are ranges of the input; the others are
/// decoded into one arena. Nothing is allocated per line.
///
/// In a fragment (paths inserted into a store), the names may reach nodes that already
/// exist: a prefix whose id (the parent's id, the separator, the path) names a child of the
/// expected existing parent is reused as an *existing* node, which gets no copy.
struct PathListReader {
    // MARK: Input

    let bytes: UnsafeRawBufferPointer
    let base: UnsafeRawPointer
    let end: Int
    /// The separator's bytes (1 to 16, none of them `\`, CR or LF).
    let separator: [UInt8]
    let separatorFirst: UInt8
    let limits: ForestLimits
    let doublesBackslashes: Bool

    // MARK: Nodes, by index in order of first appearance

    /// Parent index of each node, -1 for a top-level name.
    var parents: [Int32] = []
    /// Title start: >= 0 an offset in the input, < 0 `~offset` in `arena`.
    var titleStart: [Int] = []
    var titleLength: [UInt32] = []
    /// Id start, encoded like `titleStart` (without a fragment's prefix).
    var idStart: [Int] = []
    var idLength: [UInt32] = []
    /// Bit 0: declares children (a line ended with the separator after it). Bit 1: an
    /// existing node of the store (fragments only).
    var flags: [UInt8] = []
    /// Decoded titles and canonical ids that are not ranges of the input.
    var arena: [UInt8] = []

    // MARK: Lookup

    /// The last child of each node (-1 for none), and of the top level.
    var lastChild: [Int32] = []
    var lastRoot: Int32 = -1
    /// The previous sibling of each node, -1 for the first.
    var previousSibling: [Int32] = []
    /// How many children each node has, saturated at 255; the top level's.
    var childCount: [UInt8] = []
    var rootCount = 0
    /// Sibling groups up to this size are searched along `previousSibling` (no hashing,
    /// and their titles are near in the input); larger ones go through `table`.
    static let smallGroup = 8
    /// The nodes of large sibling groups, by parent and title.
    var table = ByteKeyTable(capacity: 512)
    /// The nodes of the previous line's path, by depth.
    var path: [Int32] = []
    /// Whether the paths are absolute (they start with the separator: `find /usr`), as the
    /// first one says; every other must agree. Their roots' ids then start with the
    /// separator (the forest's root prefix), so that each id is its line.
    private(set) var absolute: Bool?
    /// What the roots' ids start with: the separator for absolute paths.
    var rootPrefix: [UInt8] { absolute == true ? separator : [] }

    // MARK: Fragments

    /// Set for `parsePathFragments`: the store and where the names go.
    var fragment: FragmentContext?
    /// New nodes so far (existing ones not counted).
    var newCount = 0
    /// Bytes of all new ids so far, a guard against deep single lines (see `maxIDBytes`).
    var idBytes = 0
    let maxIDBytes: Int

    /// Where a fragment's names go.
    struct FragmentContext {
        let forest: Forest
        /// The existing node the top-level names go under; nil for the top level.
        let under: NodeHandle?
        /// `under`'s id and the separator, prefixed to every new id; empty at the top level.
        let prefix: [UInt8]
        /// The existing node of each node index (nil for new nodes).
        var existing: [NodeHandle?] = []
        /// The group of each existing node that got new children, by node index (-2 for
        /// `under` / the top level, which is group index `groupOfTop`).
        var groupOf: [Int32: Int] = [:]
        var groupOfTop: Int?
        var groupParents: [NodeHandle?] = []
    }

    /// Reads nothing yet; `read()` does the work. `doublesBackslashes`: ids spell every
    /// backslash doubled (the canonical form of sessions made before it was minimal).
    init(_ bytes: UnsafeRawBufferPointer, separator: String, limits: ForestLimits, fragment: FragmentContext? = nil,
         doublesBackslashes: Bool = false) {
        precondition(!separator.isEmpty && separator.utf8.count <= 16
            && !separator.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == 0x0A || $0 == 0x0D }),
            "a path separator is 1 to 16 bytes without a backslash, CR or LF")
        self.bytes = bytes
        self.base = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        self.end = bytes.count
        self.separator = Array(separator.utf8)
        self.separatorFirst = self.separator[0]
        self.limits = limits
        self.fragment = fragment
        self.doublesBackslashes = doublesBackslashes
        // Ids are whole paths (in answers and exports, though the forest stores
        // only each node's name): a deep single line has a quadratic amount (a 2 MB line of
        // a million names, 10^12 bytes).
        self.maxIDBytes = min(16 &* bytes.count &+ (64 << 20), 3 << 30)
        let guess = max(16, min(limits.maxNodes, bytes.count / 16))
        parents.reserveCapacity(guess)
        titleStart.reserveCapacity(guess)
        titleLength.reserveCapacity(guess)
        idStart.reserveCapacity(guess)
        idLength.reserveCapacity(guess)
        flags.reserveCapacity(guess)
        lastChild.reserveCapacity(guess)
        previousSibling.reserveCapacity(guess)
        childCount.reserveCapacity(guess)
    }

    @inline(__always)
    func byte(_ index: Int) -> UInt8 { base.load(fromByteOffset: index, as: UInt8.self) }

    var count: Int { parents.count }

    // MARK: Reading

    /// Reads every line.
    /// - Complexity: O(input size + new ids' bytes) expected.
    mutating func read() throws(TreeInputError) {
        var scratch: [UInt8] = []
        var lines = PathLines(base: base, end: end)
        while let (lineStart, contentEnd) = lines.next() {
            if contentEnd == lineStart { continue }
            if contentEnd - lineStart >= 2, byte(lineStart) == UInt8(ascii: "\""), byte(contentEnd - 1) == UInt8(ascii: "\"") {
                try readQuotedLine(lineStart, contentEnd, scratch: &scratch)
            } else {
                try readLine(lineStart, contentEnd)
            }
        }
    }

    /// Reads an ordinary line `start..<stop` (CR and LF removed), escapes resolved.
    private mutating func readLine(_ start: Int, _ stop: Int) throws(TreeInputError) {
        var depth = 0
        var parent: Int32 = -1
        var nameStart = start
        if try startsAbsolute(matchesSeparator(at: start, stop: stop), at: start) {
            nameStart &+= separator.count
            if nameStart >= stop { return }  // the root itself (`find /`): nothing to add
        }
        /// The line up to here is written canonically, so ids are ranges of the input.
        var canonical = true
        var matching = true  // the names so far are the previous line's
        while true {
            // Scan one name.
            var i = nameStart
            var escaped = false
            var nameCanonical = true
            while i < stop {
                // Eight bytes at a time while none can end the name or needs a look.
                while i &+ 8 <= stop {
                    let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                    if Self.specialBytes(word, separatorFirst) != 0 { break }
                    i &+= 8
                }
                guard i < stop else { break }
                let c = byte(i)
                if c == separatorFirst, matchesSeparator(at: i, stop: stop) { break }
                switch c {
                case UInt8(ascii: "\\"):
                    // Whether the name is canonical is decided once it is read (below).
                    escaped = true
                    if i &+ 1 >= stop {
                        i &+= 1  // a lone backslash at the end: itself
                    } else if matchesSeparator(at: i &+ 1, stop: stop) {
                        i &+= 1 &+ separator.count
                    } else {
                        switch byte(i &+ 1) {
                        case UInt8(ascii: "\\"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "\""): i &+= 2
                        default: i &+= 1  // a literal backslash
                        }
                    }
                case 0x0D:
                    nameCanonical = false  // a CR inside a line: canonical `\r`
                    i &+= 1
                case 0x80...:
                    i = try validateUTF8(at: i)
                default:
                    i &+= 1
                }
            }
            let nameEnd = i
            if nameEnd == nameStart {
                throw error(.rule, "two separators in a row: a path's names must not be empty", at: nameStart)
            }
            if escaped && nameCanonical && canonical { nameCanonical = isCanonical(nameStart, nameEnd) }
            canonical = canonical && nameCanonical
            // The node of this name.
            var node: Int32 = -1
            if matching, depth < path.count, parents[Int(path[depth])] == parent {
                let candidate = path[depth]
                if !escaped, titleEquals(candidate, input: nameStart, nameEnd) { node = candidate }
            }
            if node < 0 {
                matching = false
                if escaped {
                    let titleOffset = arena.count
                    decodeName(nameStart, nameEnd)
                    let titleCount = arena.count - titleOffset
                    node = try findOrAdd(parent: parent, title: ~titleOffset, titleCount, depth: depth, at: nameStart,
                                         id: canonical ? (start, nameEnd - start) : nil)
                } else {
                    node = try findOrAdd(parent: parent, title: nameStart, nameEnd - nameStart, depth: depth, at: nameStart,
                                         id: canonical ? (start, nameEnd - start) : nil)
                }
                if depth < path.count { path[depth] = node } else { path.append(node) }
            }
            depth &+= 1
            parent = node
            if nameEnd >= stop { break }
            // A separator: another name, or the end (the node declares children).
            nameStart = nameEnd &+ separator.count
            if nameStart >= stop {
                flags[Int(node)] |= 1
                break
            }
        }
        if depth < path.count { path.removeLast(path.count - depth) }
    }

    /// Reads a line in git's C-quoted form, `"…"`: decoded (`\"`, `\\`, `\a` … `\r`,
    /// `\ooo`), then split at separators without further escapes.
    private mutating func readQuotedLine(_ start: Int, _ stop: Int, scratch: inout [UInt8]) throws(TreeInputError) {
        scratch.removeAll(keepingCapacity: true)
        var i = start &+ 1
        let close = stop &- 1
        while i < close {
            let c = byte(i)
            if c >= 0x80 {
                let next = try validateUTF8(at: i)
                while i < next { scratch.append(byte(i)); i &+= 1 }
                continue
            }
            guard c == UInt8(ascii: "\\") else { scratch.append(c); i &+= 1; continue }
            guard i &+ 1 < close else {
                throw error(.syntax, "a quoted path ends with a lone backslash", at: i)
            }
            let e = byte(i &+ 1)
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): scratch.append(e)
            case UInt8(ascii: "a"): scratch.append(0x07)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "v"): scratch.append(0x0B)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "0") ... UInt8(ascii: "3"):
                guard i &+ 3 < close, (UInt8(ascii: "0") ... UInt8(ascii: "7")).contains(byte(i &+ 2)),
                      (UInt8(ascii: "0") ... UInt8(ascii: "7")).contains(byte(i &+ 3)) else {
                    throw error(.syntax, "an octal escape in a quoted path needs three digits 000 to 377", at: i)
                }
                scratch.append((e &- 48) << 6 | (byte(i &+ 2) &- 48) << 3 | (byte(i &+ 3) &- 48))
                i &+= 2
            default:
                throw error(.syntax, "invalid escape '\\\(Character(Unicode.Scalar(e)))' in a quoted path", at: i)
            }
            i &+= 2
        }
        let valid = scratch.withUnsafeBytes { raw in
            var iterator = raw.makeIterator()
            var decoder = UTF8()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue: continue
                case .emptyInput: return true
                case .error: return false
                }
            }
        }
        guard valid else { throw error(.syntax, "the quoted path decodes to invalid UTF-8", at: start) }
        // Split the decoded bytes at separators.
        var depth = 0
        var parent: Int32 = -1
        var nameStart = 0
        let n = scratch.count
        if try startsAbsolute(n > 0 && scratch[0] == separatorFirst && scratchMatchesSeparator(scratch, at: 0), at: start) {
            nameStart = separator.count
            if nameStart >= n { return }
        }
        var matching = true
        while true {
            var j = nameStart
            while j < n {
                if scratch[j] == separatorFirst, scratchMatchesSeparator(scratch, at: j) { break }
                j &+= 1
            }
            if j == nameStart {
                throw error(.rule, "a quoted path has an empty name (two separators in a row)", at: start)
            }
            let titleOffset = arena.count
            scratch.withUnsafeBytes { arena.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[nameStart ..< j])) }
            let titleCount = j - nameStart
            var node: Int32 = -1
            if matching, depth < path.count, parents[Int(path[depth])] == parent {
                let candidate = path[depth]
                if arenaTitleEquals(candidate, titleOffset, titleCount) { node = candidate }
            }
            if node >= 0 {
                arena.removeLast(titleCount)
            } else {
                matching = false
                node = try findOrAdd(parent: parent, title: ~titleOffset, titleCount, depth: depth, at: start, id: nil)
                if depth < path.count { path[depth] = node } else { path.append(node) }
            }
            depth &+= 1
            parent = node
            if j >= n { break }
            nameStart = j &+ separator.count
            if nameStart >= n {
                flags[Int(node)] |= 1
                break
            }
        }
        if depth < path.count { path.removeLast(path.count - depth) }
    }

    /// Whether a line that starts with the separator (`leading`) is absolute: the first line
    /// decides for the list (422 for a line that disagrees); paths inserted into a session
    /// are relative (to the parent, or the top level).
    private mutating func startsAbsolute(_ leading: Bool, at offset: Int) throws(TreeInputError) -> Bool {
        if leading && fragment != nil {
            throw error(.rule, "line starts with the separator: paths inserted into a session are relative (to `parentId`, or the top level)", at: offset)
        }
        guard let absolute else {
            absolute = leading
            return leading
        }
        if absolute != leading {
            throw error(.rule, absolute ? "a relative path in a list of absolute paths (the first path starts with the separator)"
                                        : "an absolute path in a list of relative paths (the first path does not start with the separator)", at: offset)
        }
        return leading
    }

    // MARK: Nodes

    /// The node `title` under `parent`, added when new. `title` is an input offset, or
    /// `~offset` into the arena; `id` the id's input range when the line is canonical up
    /// to here (else the id is made in the arena from the parent's).
    private mutating func findOrAdd(parent: Int32, title: Int, _ titleCount: Int, depth: Int, at offset: Int,
                                    id: (start: Int, count: Int)?) throws(TreeInputError) -> Int32 {
        let groupSize = parent < 0 ? rootCount : Int(childCount[Int(parent)])
        let last = parent < 0 ? lastRoot : lastChild[Int(parent)]
        if groupSize > Self.smallGroup {
            let hash = withBytes(title, titleCount) { Self.hash($0, parent: parent) }
            let found = table.find(hash) { node in
                parents[Int(node)] == parent && Int(titleLength[Int(node)]) == titleCount
                    && withBytes(titleStart[Int(node)], titleCount, { a in withBytes(title, titleCount) { b in Self.equal(a, b) } })
            }
            if let found {
                if title < 0 { arena.removeLast(titleCount) }  // the decoded copy is not needed
                return found
            }
        } else {
            var sibling = last
            while sibling >= 0 {
                let node = Int(sibling)
                if Int(titleLength[node]) == titleCount,
                   withBytes(titleStart[node], titleCount, { a in withBytes(title, titleCount) { b in Self.equal(a, b) } }) {
                    if title < 0 { arena.removeLast(titleCount) }
                    return sibling
                }
                sibling = previousSibling[node]
            }
        }
        // A new node: in a fragment it may exist in the store already.
        if depth >= limits.maxDepth {
            throw error(.rule, "path is deeper than the maximum depth of \(limits.maxDepth)", at: offset)
        }
        let node = Int32(parents.count)
        parents.append(parent)
        titleStart.append(title)
        titleLength.append(UInt32(titleCount))
        flags.append(0)
        if let id {
            idStart.append(id.start)
            idLength.append(UInt32(id.count))
        } else {
            // The parent's id, the separator, the canonical name.
            let idOffset = arena.count
            if parent >= 0 {
                let p = Int(parent)
                let copy = withBytes(idStart[p], Int(idLength[p])) { Array($0) }
                arena.append(contentsOf: copy)
                arena.append(contentsOf: separator)
            } else if absolute == true {
                arena.append(contentsOf: separator)
            }
            let name = withBytes(title, titleCount) { Array($0) }
            name.withUnsafeBytes { appendCanonical($0, to: &arena) }
            idStart.append(~idOffset)
            idLength.append(UInt32(arena.count - idOffset))
        }
        previousSibling.append(last)
        lastChild.append(-1)
        childCount.append(0)
        if groupSize > Self.smallGroup {
            insertIntoTable(node)
        } else if groupSize == Self.smallGroup {
            // The group grows large: all of it into the table.
            var sibling = node
            while sibling >= 0 {
                insertIntoTable(sibling)
                sibling = previousSibling[Int(sibling)]
            }
        }
        if parent < 0 {
            lastRoot = node
            rootCount &+= 1
        } else {
            lastChild[Int(parent)] = node
            if childCount[Int(parent)] < 255 { childCount[Int(parent)] &+= 1 }
        }
        if fragment != nil {
            try resolveInStore(node, at: offset)
        } else {
            try countNew(node, at: offset)
        }
        return node
    }

    /// Puts `node`, of a large sibling group, into the table.
    private mutating func insertIntoTable(_ node: Int32) {
        let n = Int(node)
        let hash = withBytes(titleStart[n], Int(titleLength[n])) { Self.hash($0, parent: parents[n]) }
        _ = table.insert(node, hash: hash, unlessMatching: { _ in false })
    }

    /// Counts a new node against the limits.
    private mutating func countNew(_ node: Int32, at offset: Int) throws(TreeInputError) {
        newCount &+= 1
        if newCount &+ (fragment?.forest.count ?? 0) > limits.maxNodes {
            throw error(.limit, "more than \(limits.maxNodes) nodes", at: offset)
        }
        idBytes &+= Int(idLength[Int(node)]) &+ (fragment?.prefix.count ?? 0) &+ 3  // a pool entry's header
        if idBytes > maxIDBytes {
            throw error(.limit, "the paths' ids would take more than \(maxIDBytes) bytes (every node's id is its whole path: the paths nest too deep)", at: offset)
        }
    }

    /// In a fragment: a node whose parent is an existing node (or the top) may itself
    /// exist, as a child of that parent; an id found elsewhere is a duplicate.
    private mutating func resolveInStore(_ node: Int32, at offset: Int) throws(TreeInputError) {
        guard var context = fragment else { return }
        fragment = nil  // no copy while it is changed
        defer { fragment = context }
        let parent = parents[Int(node)]
        let parentIsExisting = parent < 0 || context.existing[Int(parent)] != nil
        var key = context.prefix
        withBytes(idStart[Int(node)], Int(idLength[Int(node)])) { key.append(contentsOf: $0) }
        let text = String(decoding: key, as: UTF8.self)
        if let found = context.forest.node(withID: text) {
            let expected: NodeHandle? = parent < 0 ? context.under : context.existing[Int(parent)]
            if parentIsExisting, context.forest.parent(of: found) == expected {
                context.existing.append(found)
                flags[Int(node)] |= 2
                return
            }
            throw error(.rule, "duplicate id \"\(text)\": the store has a node with this id elsewhere", at: offset)
        }
        context.existing.append(nil)
        if parentIsExisting {
            if parent < 0 {
                if context.groupOfTop == nil {
                    context.groupOfTop = context.groupParents.count
                    context.groupParents.append(context.under)
                }
            } else if context.groupOf[parent] == nil {
                context.groupOf[parent] = context.groupParents.count
                context.groupParents.append(context.existing[Int(parent)])
            }
        }
        fragment = context
        try countNew(node, at: offset)
    }

    // MARK: Bytes

    /// Calls `body` with the bytes at `start` (input offset, or `~offset` into the arena).
    @inline(__always)
    func withBytes<R>(_ start: Int, _ count: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if start >= 0 { return body(UnsafeRawBufferPointer(start: base + start, count: count)) }
        return arena.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[~start ..< ~start + count])) }
    }

    @inline(__always)
    private func titleEquals(_ node: Int32, input start: Int, _ stop: Int) -> Bool {
        let n = Int(node)
        guard Int(titleLength[n]) == stop - start else { return false }
        return withBytes(titleStart[n], stop - start) { Self.equal($0, UnsafeRawBufferPointer(start: base + start, count: stop - start)) }
    }

    private func arenaTitleEquals(_ node: Int32, _ offset: Int, _ count: Int) -> Bool {
        let n = Int(node)
        guard Int(titleLength[n]) == count else { return false }
        return withBytes(titleStart[n], count) { a in withBytes(~offset, count) { b in Self.equal(a, b) } }
    }

    @inline(__always)
    static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
    }

    /// The hash of a name under `parent` (`ByteKeyTable.hash`).
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer, parent: Int32) -> UInt64 {
        ByteKeyTable.hash(bytes, extra: UInt64(UInt32(bitPattern: parent)))
    }

    /// Nonzero when one of the eight bytes is the separator's first byte, `\`, CR or >= 0x80.
    @inline(__always)
    static func specialBytes(_ word: UInt64, _ separator: UInt8) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let s = word ^ (ones &* UInt64(separator))
        let b = word ^ (ones &* 0x5C)
        let r = word ^ (ones &* 0x0D)
        return (((s &- ones) & ~s) | ((b &- ones) & ~b) | ((r &- ones) & ~r) | word) & highs
    }

    @inline(__always)
    private func matchesSeparator(at i: Int, stop: Int) -> Bool {
        PathLines.separator(separator, isAt: i, stop: stop, in: base)
    }

    private func scratchMatchesSeparator(_ scratch: [UInt8], at i: Int) -> Bool {
        let n = separator.count
        guard i + n <= scratch.count else { return false }
        for k in 0 ..< n where scratch[i + k] != separator[k] { return false }
        return true
    }

    /// Whether the escaped name `start..<stop` is spelled as `appendCanonical` spells its
    /// title (then the line up to it is its id as it stands). Rare: only names with a
    /// backslash are checked, by decoding and spelling them again.
    private mutating func isCanonical(_ start: Int, _ stop: Int) -> Bool {
        let mark = arena.count
        decodeName(start, stop)
        var spelled: [UInt8] = []
        spelled.reserveCapacity(stop - start)
        arena.withUnsafeBytes { appendCanonical(UnsafeRawBufferPointer(rebasing: $0[mark...]), to: &spelled) }
        arena.removeLast(arena.count - mark)
        return spelled.count == stop - start && spelled.withUnsafeBytes { memcmp($0.baseAddress!, base + start, stop - start) == 0 }
    }

    /// Appends the title of the escaped name `start..<stop` to the arena.
    private mutating func decodeName(_ start: Int, _ stop: Int) {
        var i = start
        while i < stop {
            let c = byte(i)
            if c == UInt8(ascii: "\\"), i &+ 1 < stop {
                if matchesSeparator(at: i &+ 1, stop: stop) {
                    arena.append(contentsOf: separator)
                    i &+= 1 &+ separator.count
                    continue
                }
                switch byte(i &+ 1) {
                case UInt8(ascii: "\\"): arena.append(UInt8(ascii: "\\")); i &+= 2; continue
                case UInt8(ascii: "n"): arena.append(0x0A); i &+= 2; continue
                case UInt8(ascii: "r"): arena.append(0x0D); i &+= 2; continue
                case UInt8(ascii: "\""): arena.append(UInt8(ascii: "\"")); i &+= 2; continue
                default: break
                }
            }
            arena.append(c)
            i &+= 1
        }
    }

    /// Appends `name` in canonical form: the separator → `\` + separator, LF → `\n`, CR →
    /// `\r`, a backslash doubled only where it would read as an escape (see
    /// `escapesBackslash`), everything else as is: a line as `find` prints it, literal
    /// backslashes and all, is its own canonical form.
    func appendCanonical(_ name: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        PathListReader.appendCanonical(name, separator: separator, doublingBackslashes: doublesBackslashes, to: &out)
    }

    /// `doublingBackslashes`: every backslash written `\\` (the canonical form of sessions
    /// made before it was minimal; their ids keep it).
    static func appendCanonical(_ name: UnsafeRawBufferPointer, separator: [UInt8], doublingBackslashes: Bool = false,
                                to out: inout [UInt8]) {
        let n = name.count
        let first = separator[0]
        var i = 0
        var run = 0
        while i < n {
            let c = name[i]
            var escape: UInt8 = 0
            var isSeparator = false
            switch c {
            case UInt8(ascii: "\\"):
                if doublingBackslashes || escapesBackslash(followedBy: i + 1 < n ? name[i + 1] : nil, separatorFirst: first) { escape = c }
            case 0x0A: escape = UInt8(ascii: "n")
            case 0x0D: escape = UInt8(ascii: "r")
            case first:
                isSeparator = i + separator.count <= n
                    && separator.indices.allSatisfy { name[i + $0] == separator[$0] }
            default: break
            }
            if escape == 0 && !isSeparator { i &+= 1; continue }
            if run < i { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: name[run ..< i])) }
            out.append(UInt8(ascii: "\\"))
            if isSeparator {
                out.append(contentsOf: separator)
                i &+= separator.count
            } else {
                out.append(escape)
                i &+= 1
            }
            run = i
        }
        if run < n { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: name[run ..< n])) }
    }

    /// Whether a name's backslash is written `\\` in canonical form, given the name's next
    /// byte (nil at its end): when, written alone, it would start an escape with what is
    /// written next (`\\`, `\n`, `\r`, `\"`, the separator, or the separator or line end
    /// that follows the name), or could (the separator's first byte).
    @inline(__always)
    static func escapesBackslash(followedBy next: UInt8?, separatorFirst: UInt8) -> Bool {
        switch next {
        case nil, UInt8(ascii: "\\"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "\""), 0x0A, 0x0D, separatorFirst: true
        default: false
        }
    }

    /// Validates the UTF-8 sequence whose lead byte (>= 0x80) is at `index`; returns the
    /// index after it.
    @inline(__always)
    private func validateUTF8(at index: Int) throws(TreeInputError) -> Int {
        if let next = utf8SequenceEnd(base, at: index, end: end) { return next }
        throw error(.syntax, "invalid UTF-8 (byte 0x\(JSONScanner.hex2(byte(index))))", at: index)
    }

    /// An error at `offset` of the input, with its line and column.
    func error(_ kind: TreeInputError.Kind, _ message: String, at offset: Int) -> TreeInputError {
        let (line, column) = TreeInputError.lineAndColumn(of: offset, in: bytes)
        return TreeInputError(kind: kind, message: "line \(line): " + message, byteOffset: offset, line: line, column: column, path: "")
    }

    // MARK: Building

    /// Builds the nodes read into `builders` (one per group; `group(node)` for a node whose
    /// parent is existing or -1 tells which), in pre-order, siblings in first appearance.
    /// Existing nodes are skipped (their new descendants go to their own groups).
    /// - Complexity: O(nodes + ids' bytes)
    func build(into builders: inout [ForestBuilder], group: (Int32) -> Int) throws(TreeInputError) {
        let order = parents.withUnsafeBufferPointer { PreOrder(parents: $0) }
        let failure: NodeSinkError? = arena.withUnsafeBytes { arenaBytes in
            let arenaBase = arenaBytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
            func slice(_ start: Int, _ count: Int) -> UnsafeRawBufferPointer {
                start >= 0 ? UnsafeRawBufferPointer(start: base + start, count: count)
                           : UnsafeRawBufferPointer(start: arenaBase + ~start, count: count)
            }
            var current = 0
            var key: [UInt8] = fragment?.prefix ?? []
            let prefixCount = key.count
            /// A new forest's derived ids.
            var derived = PathKey(separator: separator, rootPrefix: rootPrefix)
            do throws(NodeSinkError) {
                _ = try order.forEach(begin: { (node: Int32, depth: Int) throws(NodeSinkError) in
                    let n = Int(node)
                    if flags[n] & 2 != 0 { return }
                    let parent = parents[n]
                    if parent < 0 || flags[Int(parent)] & 2 != 0 { current = group(node) }
                    try builders[current].beginNode()
                    let title = slice(titleStart[n], Int(titleLength[n]))
                    try builders[current].setTitle(title)
                    let id = slice(idStart[n], Int(idLength[n]))
                    if fragment == nil {
                        // Composed here (a line may spell a name another way when the
                        // separator overlaps itself); only the name is stored.
                        try derived.setDerivedID(of: &builders[current], depth: depth, name: title)
                    } else if prefixCount == 0 {
                        try builders[current].setStringID(id)
                    } else {
                        key.removeLast(key.count - prefixCount)
                        key.append(contentsOf: id)
                        let result: NodeSinkError? = key.withUnsafeBytes { raw in
                            do throws(NodeSinkError) { try builders[current].setStringID(raw) } catch { return error }
                            return nil
                        }
                        if let result { throw result }
                    }
                    if flags[n] & 1 != 0 { builders[current].setHasChildren(true) }
                }, end: { (node: Int32) throws(NodeSinkError) in
                    if flags[Int(node)] & 2 != 0 { return }
                    builders[current].endNode()
                })
            } catch {
                return error
            }
            return nil
        }
        // The reader checked ids and the node limit already; kept for safety.
        if let failure {
            switch failure.kind {
            case .duplicateID(let id):
                throw TreeInputError(kind: .rule, message: "duplicate id \"\(id)\"", byteOffset: 0, line: 1, column: 1, path: "")
            case .limitExceeded(let message):
                throw TreeInputError(kind: .limit, message: message, byteOffset: 0, line: 1, column: 1, path: "")
            case .idTooLong(let bytes, let limit):
                throw TreeInputError(kind: .rule, message: "an inserted path's id (the parent's id, if any, and the path) is too long: " + NodeSinkError.idTooLongMessage(bytes: bytes, limit: limit),
                                     byteOffset: 0, line: 1, column: 1, path: "")
            }
        }
    }
}

/// The lines of a path list: a UTF-8 BOM at the start skipped, each line ended by LF (or
/// the end), a CR before an LF not part of it.
struct PathLines {
    private let base: UnsafeRawPointer
    private let end: Int
    private var position: Int

    /// The lines from `start` (a line's start) to `end`.
    init(base: UnsafeRawPointer, start: Int = 0, end: Int) {
        self.base = base
        self.end = end
        position = start == 0 && end >= 3 && base.load(as: UInt8.self) == 0xEF && base.load(fromByteOffset: 1, as: UInt8.self) == 0xBB
            && base.load(fromByteOffset: 2, as: UInt8.self) == 0xBF ? 3 : start
    }

    /// Whether `separator` is at offset `i` of `base`, ending at or before `stop`.
    @inline(__always)
    static func separator(_ separator: [UInt8], isAt i: Int, stop: Int, in base: UnsafeRawPointer) -> Bool {
        let n = separator.count
        guard i &+ n <= stop else { return false }
        var k = 0
        while k < n {
            if base.load(fromByteOffset: i &+ k, as: UInt8.self) != separator[k] { return false }
            k &+= 1
        }
        return true
    }

    /// The next line's start and end (before its CR LF or LF), nil after the last.
    @inline(__always)
    mutating func next() -> (start: Int, stop: Int)? {
        guard position < end else { return nil }
        let start = position
        var lineEnd = end
        if let found = memchr(base + start, 0x0A, end - start) {
            lineEnd = UnsafeRawPointer(found) - base
            position = lineEnd + 1
        } else {
            position = end
        }
        var stop = lineEnd
        if stop > start, base.load(fromByteOffset: stop - 1, as: UInt8.self) == 0x0D, lineEnd < end { stop -= 1 }
        return (start, stop)
    }
}

/// The canonical id of a node composed from its parent's (kept by depth along the open
/// path): the parent's id, the separator, the node's name in canonical form.
struct PathKey {
    private var bytes: [UInt8] = []
    /// The id's length at each depth of the open path.
    private var ends: [Int] = []
    private let separator: [UInt8]
    private let rootPrefix: [UInt8]

    init(separator: [UInt8], rootPrefix: [UInt8]) {
        self.separator = separator
        self.rootPrefix = rootPrefix
    }

    /// Gives the open node at `depth`, named `name`, its derived id.
    mutating func setDerivedID(of builder: inout ForestBuilder, depth: Int, name: UnsafeRawBufferPointer) throws(NodeSinkError) {
        bytes.removeLast(bytes.count - (depth == 0 ? 0 : ends[depth - 1]))
        bytes.append(contentsOf: depth > 0 ? separator : rootPrefix)
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
