#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TreeEngine

/// A path list read in parts at once, the path lists' fast path (`PartedReader`), for the
/// common list: plain lines (no escapes, no quoted form) in pre-order (as `git ls-files`,
/// `find` and our export write them). Each line is compared with the open path (the last
/// line that added names) as bytes; the names past their common part are new nodes,
/// children of the open path, built at once: ids are prefixes of their lines, and nothing
/// is kept per node but what the forest keeps.
///
/// A part after the first starts at the first line after its offset. Its *context* is the
/// open path there, as the lines before spell it: the last one, or the one before that it
/// is a prefix of (and so on). Its names under the context are its top-level nodes, their
/// ids derived under the context's (`ForestBuilder.deriveIDs(under:)`), and the join hangs
/// them under the open nodes of the parts before, which must have those ids (`appendPart`
/// checks): a context read wrong gives a duplicate id, never another forest.
///
/// Anything else gives up (nil), and `PathListReader` reads the list the general way, which
/// reports errors where they are: an escape, a quoted line, a CR inside a line, invalid
/// UTF-8, an empty name (an absolute path's first one too), a limit reached, a separator
/// that overlaps itself (`::`: a name's end may split differently by what follows it), or a
/// name that reaches back into a folder already left (a duplicate id when the ids are indexed).
struct PathParts: PartedReader {
    let bytes: UnsafeRawBufferPointer
    let separator: [UInt8]
    let limits: ForestLimits

    /// A part read: its builder, the nodes of its context that its lines declare children
    /// of (indices of the open path it starts under), and its ids' bytes.
    struct Part {
        var builder: ForestBuilder
        var declaredContext: [Int] = []
        var idBytes = 0
    }

    var byteCount: Int { bytes.count }

    /// The most bytes the ids may take (see `PathListReader.maxIDBytes`).
    var maxIDBytes: Int { min(16 &* bytes.count &+ (64 << 20), 3 << 30) }

    func readPart(_ index: Int, of count: Int, from: Int?, to: Int?) -> Part? {
        guard let base = bytes.baseAddress,
              !(1 ..< separator.count).contains(where: { k in separator[..<k].elementsEqual(separator[(separator.count - k)...]) })
        else { return nil }
        let sepCount = separator.count, sepFirst = separator[0]
        func byte(_ i: Int) -> UInt8 { base.load(fromByteOffset: i, as: UInt8.self) }
        func separatorAt(_ i: Int, _ stop: Int) -> Bool { PathLines.separator(separator, isAt: i, stop: stop, in: base) }

        var part = Part(builder: ForestBuilder(limits: limits, expectedBytes: bytes.count))
        part.builder.deriveIDs(separator: separator, rootPrefix: [])
        part.builder.defersIDChecks = true  // paths are unique unless a name reaches back
        // Room for the names (the ids store each name too): untouched room costs nothing.
        part.builder.reserveTitles(bytes: bytes.count)
        part.builder.reserveIDs(0, bytes: bytes.count)
        /// The open path: the line that spelled it, the end of each name in it (relative to
        /// the line), the slot of each node or, for a node of the context, `~` its index.
        var openStart = 0, openEnds: [Int] = [], openSlots: [Int32] = []
        /// The open path's first nodes that are the context's.
        var contextCount = 0
        let start = from.map(lineStart(after:)) ?? 0
        if from != nil, start < bytes.count, let line = previousLine(before: start) {
            guard let context = contextLine(line) else { return nil }
            (openStart, openEnds) = (context.start, context.ends)
            openSlots = openEnds.indices.map { ~Int32($0) }
            contextCount = openEnds.count
            part.builder.deriveIDs(under: openEnds.map { Array(UnsafeRawBufferPointer(start: base + openStart, count: $0)) })
        }
        var declared: [Int32] = []
        var nodes = 0
        var lines = PathLines(base: base, start: start, end: to.map(lineStart(after:)) ?? bytes.count)
        while let (lineStart, stop) = lines.next() {
            let n = stop - lineStart
            if n == 0 { continue }
            if byte(lineStart) == UInt8(ascii: "\"") { return nil }  // maybe git's quoted form
            // The names this line shares with the open path: the same bytes up to a name's
            // end, where this line ends or has a separator too (as the separator cannot
            // overlap itself, the names split there alike).
            let openCount = openEnds.last ?? 0
            let common = Self.commonPrefix(base + lineStart, base + openStart, min(n, openCount))
            var depth = 0
            while depth < openEnds.count {
                let e = openEnds[depth]
                guard common >= e, e == n || separatorAt(lineStart &+ e, stop) else { break }
                depth &+= 1
            }
            var nameStart = depth == 0 ? 0 : openEnds[depth - 1]
            if depth > 0 {
                if nameStart == n { continue }  // a prefix of the open path
                nameStart &+= sepCount  // after the separator
                if nameStart == n {  // a trailing separator: the node declares children
                    let slot = openSlots[depth - 1]
                    if slot < 0 { part.declaredContext.append(Int(~slot)) } else { declared.append(slot) }
                    continue
                }
            }
            // New names from here: each a new node, a child of the one before.
            if openEnds.count > depth {
                openEnds.removeLast(openEnds.count - depth)
                openSlots.removeLast(openSlots.count - depth)
            }
            contextCount = min(contextCount, depth)
            var i = nameStart
            while true {
                // Scan one name, eight bytes at a time while none needs a look.
                while i < n {
                    while i &+ 8 <= n {
                        let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: lineStart &+ i, as: UInt64.self))
                        if PathListReader.specialBytes(word, sepFirst) != 0 { break }
                        i &+= 8
                    }
                    guard i < n else { break }
                    let c = byte(lineStart &+ i)
                    if c == sepFirst, separatorAt(lineStart &+ i, stop) { break }
                    if c == UInt8(ascii: "\\") || c == 0x0D { return nil }
                    if c >= 0x80 {
                        guard let next = utf8SequenceEnd(base, at: lineStart &+ i, end: stop) else { return nil }
                        i = next &- lineStart
                    } else {
                        i &+= 1
                    }
                }
                guard i > nameStart, depth < limits.maxDepth, nodes < limits.maxNodes else { return nil }
                part.idBytes &+= i &+ 3
                guard part.idBytes <= maxIDBytes else { return nil }
                // Its parent: the open node before it; a node of the context makes it one of
                // the part's top-level nodes.
                let level = depth - contextCount
                while part.builder.openNodeCount > level { part.builder.endNode() }
                if level == 0 && from != nil { part.builder.setPartParent(contextCount - 1) }
                do throws(NodeSinkError) {
                    try part.builder.beginNode()
                    try part.builder.setTitle(UnsafeRawBufferPointer(start: base + lineStart + nameStart, count: i - nameStart))
                    try part.builder.setDerivedID(UnsafeRawBufferPointer(start: base + lineStart, count: i), segmentCount: i - nameStart)
                } catch {
                    return nil
                }
                openEnds.append(i)
                openSlots.append(Int32(nodes))
                nodes &+= 1
                depth &+= 1
                if i >= n { break }
                nameStart = i &+ sepCount
                if nameStart >= n {
                    declared.append(Int32(nodes &- 1))
                    break
                }
                i = nameStart
            }
            openStart = lineStart
        }
        for slot in declared { part.builder.setHasChildren(true, slot: Int(slot)) }
        return part
    }

    func join(_ parts: inout [Part]) -> Forest? {
        guard parts.reduce(0, { $0 + $1.idBytes }) <= maxIDBytes else { return nil }
        var builders = parts.indices.map { k in
            defer { parts[k].builder = ForestBuilder() }  // the columns held once
            return parts[k].builder
        }
        return ForestBuilder.joinParts(&builders) { k, joined in
            // Declared in this part, open in the builder since the parts before: the context.
            for i in parts[k].declaredContext {
                guard i < joined.openNodeCount else { return false }
                joined.setHasChildren(true, slot: joined.slotOfOpenNode(at: i))
            }
            return true
        }
    }

    /// The start of the first line after `offset`: past the first line feed from `offset` on.
    func lineStart(after offset: Int) -> Int {
        guard offset < bytes.count, let found = memchr(bytes.baseAddress! + offset, 0x0A, bytes.count - offset) else { return bytes.count }
        return UnsafeRawPointer(found) - bytes.baseAddress! + 1
    }

    /// The last line before `start` (a line's start, after a line feed) that is not empty,
    /// as `PathLines` reads it; nil when there is none.
    func previousLine(before start: Int) -> (start: Int, stop: Int)? {
        var stop = start - 1  // the line feed that ends the line
        while stop >= 0 {
            var lineStart = stop
            while lineStart > 0, bytes[lineStart - 1] != 0x0A { lineStart -= 1 }
            if lineStart == 0, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { lineStart = min(3, stop) }
            let lineStop = stop > lineStart && bytes[stop - 1] == 0x0D ? stop - 1 : stop
            if lineStop > lineStart { return (lineStart, lineStop) }
            stop = lineStart - 1
        }
        return nil
    }

    /// The open path that the lines up to `line` leave: `line`, or the line before it when
    /// `line` spells a prefix of it (and so on), as the line's start and its names' ends;
    /// nil when a name is empty.
    func contextLine(_ line: (start: Int, stop: Int)) -> (start: Int, ends: [Int])? {
        let base = bytes.baseAddress!
        /// The line's length without a trailing separator.
        func names(_ line: (start: Int, stop: Int)) -> Int {
            let n = line.stop - line.start
            return n > separator.count && PathLines.separator(separator, isAt: line.stop - separator.count, stop: line.stop, in: base)
                ? n - separator.count : n
        }
        var line = line
        while let before = previousLine(before: line.start) {
            let n = names(line), m = names(before)
            guard m >= n, memcmp(base + before.start, base + line.start, n) == 0,
                  m == n || PathLines.separator(separator, isAt: before.start + n, stop: before.stop, in: base) else { break }
            line = before
        }
        var ends: [Int] = []
        var nameStart = line.start, i = line.start
        while i <= line.stop {
            guard i == line.stop || PathLines.separator(separator, isAt: i, stop: line.stop, in: bytes.baseAddress!) else {
                i += 1
                continue
            }
            if i == line.stop, i == nameStart, !ends.isEmpty { break }  // a trailing separator
            guard i > nameStart else { return nil }
            ends.append(i - line.start)
            nameStart = i + separator.count
            i = nameStart
        }
        return (line.start, ends)
    }

    /// How many bytes `a` and `b` share from their start, up to `count`.
    private static func commonPrefix(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Int {
        var i = 0
        while i &+ 8 <= count {
            let x = a.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ b.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if x != 0 { return i &+ UInt64(littleEndian: x).trailingZeroBitCount / 8 }
            i &+= 8
        }
        while i < count, a.load(fromByteOffset: i, as: UInt8.self) == b.load(fromByteOffset: i, as: UInt8.self) { i &+= 1 }
        return i
    }
}
