import Foundation
import Synchronization
import TreeEngine

/// A path list's forest built while the list is read, for the common list: plain lines
/// (no escapes, no quoted form) in pre-order (as `git ls-files`, `find` and our export
/// write them). Each line is compared with the open path (the last line that added names)
/// as bytes; the names past their common part are new nodes, children of the open path,
/// sent straight to the builder on a thread of its own (`PathBuildThread`) in batches. Ids
/// are then prefixes of their lines, and nothing is kept per node but what the forest keeps.
///
/// Anything else gives up (nil), and `PathListReader` reads the list the general way, which
/// reports errors where they are: an escape, a quoted line, a CR inside a line, invalid
/// UTF-8, an empty name, a limit reached, or a name that reaches back into a folder already
/// left (found as a duplicate id when the ids are indexed).
enum PathStream {
    /// The forest of `bytes`, or nil (see above).
    /// - Complexity: O(input size), the building on another thread.
    static func read(_ bytes: UnsafeRawBufferPointer, separator: [UInt8], limits: ForestLimits) -> Forest? {
        // (With a separator that overlaps itself, `::`, a name's end may split differently
        // by what follows it: such lists are left to the general reader.)
        guard let base = bytes.baseAddress,
              !(1 ..< separator.count).contains(where: { k in separator[..<k].elementsEqual(separator[(separator.count - k)...]) })
        else { return nil }
        let end = bytes.count
        let sepCount = separator.count, sepFirst = separator[0]
        let maxIDBytes = min(16 &* end &+ (64 << 20), 3 << 30)
        func byte(_ i: Int) -> UInt8 { base.load(fromByteOffset: i, as: UInt8.self) }
        func separatorAt(_ i: Int, _ stop: Int) -> Bool {
            PathLines.separator(separator, isAt: i, stop: stop, in: base)
        }

        let thread = PathBuildThread(base: base, limits: limits, expectedBytes: end, separator: separator)
        var batch = thread.emptyBatch()
        /// The open path: the line that spelled it, the end of each name in it (relative to
        /// the line), the slot of each node.
        var openStart = 0, openEnds: [Int] = [], openSlots: [Int32] = []
        var declared: [Int32] = []
        var nodes = 0, idBytes = 0
        func giveUp() -> Forest? {
            thread.cancel()
            _ = thread.join()
            return nil
        }
        var lines = PathLines(base: base, end: end)
        while let (lineStart, stop) = lines.next() {
            let n = stop - lineStart
            if n == 0 { continue }
            if byte(lineStart) == UInt8(ascii: "\"") { return giveUp() }  // maybe git's quoted form
            // The names this line shares with the open path: the same bytes up to a name's
            // end, where this line ends or has a separator too (as the separator cannot
            // overlap itself, the names split there alike).
            let openCount = openEnds.isEmpty ? 0 : openEnds[openEnds.count - 1]
            let common = commonPrefix(base + lineStart, base + openStart, min(n, openCount))
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
                    declared.append(openSlots[depth - 1])
                    continue
                }
            }
            // New names from here: each a new node, a child of the one before.
            if openEnds.count > depth {
                openEnds.removeLast(openEnds.count - depth)
                openSlots.removeLast(openSlots.count - depth)
            }
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
                    if c == UInt8(ascii: "\\") || c == 0x0D { return giveUp() }
                    if c >= 0x80 {
                        guard let next = utf8SequenceEnd(base, at: lineStart &+ i, end: stop) else { return giveUp() }
                        i = next &- lineStart
                    } else {
                        i &+= 1
                    }
                }
                guard i > nameStart, depth < limits.maxDepth, nodes < limits.maxNodes else { return giveUp() }
                idBytes &+= i &+ 3
                guard idBytes <= maxIDBytes else { return giveUp() }
                batch.append(depth: depth, idStart: lineStart, nameStart: lineStart &+ nameStart, end: lineStart &+ i)
                if batch.isFull {
                    thread.send(batch)
                    batch = thread.emptyBatch()
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
        thread.send(batch)
        thread.close()
        guard var builder = thread.join() else { return nil }
        for slot in declared { builder.setHasChildren(true, slot: Int(slot)) }
        guard builder.indexDeferredIDs() else { return nil }
        return builder.finish()
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

/// New names for the builder: each a node's depth, and its id and name as input ranges.
final class PathBatch {
    static let capacity = 8192
    struct Name {
        var idStart: Int
        var nameStart: Int
        var end: Int
        var depth: Int
    }
    private(set) var names: [Name] = []

    init() { names.reserveCapacity(Self.capacity) }

    var isFull: Bool { names.count >= Self.capacity }

    func append(depth: Int, idStart: Int, nameStart: Int, end: Int) {
        names.append(Name(idStart: idStart, nameStart: nameStart, end: end, depth: depth))
    }

    func removeAll() { names.removeAll(keepingCapacity: true) }
}

/// Builds a streamed path list's forest from batches of new names: on a thread of its own
/// for a large list while fewer than `threadLimit` such threads run (the reading and the
/// building then overlap), else on the reading thread as each batch is sent. The batches
/// and the builder pass between the threads under `condition`; the builder is the thread's
/// alone until `join` hands it back.
final class PathBuildThread: @unchecked Sendable {
    /// Lists of fewer bytes are built on the reading thread: a thread costs more than it saves.
    static let threadedBytes = 1 << 20
    /// At most this many build threads run at once, over all uploads: the one path-list
    /// upload per request thread that a burst of uploads could start is not a thread each.
    static var threadLimit: Int { max(1, ParallelWork.activeProcessors) }
    /// Build threads running now.
    static let running = Atomic<Int>(0)

    private let condition = NSCondition()
    /// Batches sent and not yet built, oldest first; at most `queueLimit` wait.
    private var queue: [PathBatch] = []
    private static let queueLimit = 4
    /// Built batches, to fill again.
    private var spare: [PathBatch] = []
    private var closed = false, cancelled = false, ended = false
    private var failed = false
    private var builder: PathBatchBuilder?
    /// Whether the batches are built on a thread of this one's (else by `send`).
    let threaded: Bool

    /// The input the batches' ranges are in (alive until `join`).
    private let base: UnsafeRawPointer

    /// Starts the thread, when the list is large and a thread is free.
    init(base: UnsafeRawPointer, limits: ForestLimits, expectedBytes: Int, separator: [UInt8]) {
        self.base = base
        var builder = ForestBuilder(limits: limits, expectedBytes: expectedBytes)
        builder.deriveIDs(separator: separator, rootPrefix: [])
        builder.defersIDChecks = true  // paths are unique unless a name reaches back
        // Room for the names (the ids store each name too): untouched room costs nothing.
        builder.reserveTitles(bytes: expectedBytes)
        builder.reserveIDs(0, bytes: expectedBytes)
        self.builder = PathBatchBuilder(builder: builder)
        threaded = expectedBytes >= Self.threadedBytes && Self.takeThread()
        guard threaded else { return }
        let thread = Thread { [self] in
            run()
            Self.running.subtract(1, ordering: .relaxed)
        }
        thread.name = "path-list build"
        thread.start()
    }

    /// Counts a build thread in, unless `threadLimit` run already.
    private static func takeThread() -> Bool {
        var now = running.load(ordering: .relaxed)
        while now < threadLimit {
            let (exchanged, original) = running.compareExchange(expected: now, desired: now + 1, ordering: .relaxed)
            if exchanged { return true }
            now = original
        }
        return false
    }

    /// A batch to fill: a built one, or a new one.
    func emptyBatch() -> PathBatch {
        condition.lock()
        defer { condition.unlock() }
        return spare.popLast() ?? PathBatch()
    }

    /// Queues `batch` for the builder, waiting while the queue is full; builds it here
    /// when there is no thread.
    func send(_ batch: PathBatch) {
        guard threaded else {
            builder!.build(batch, from: base)
            batch.removeAll()
            spare.append(batch)
            return
        }
        condition.lock()
        while queue.count >= Self.queueLimit && !ended { condition.wait() }
        queue.append(batch)
        condition.broadcast()
        condition.unlock()
    }

    /// No more batches: the builder ends every open node after the last.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// The builder stops as soon as it can; what is queued is dropped.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for the thread to end; the builder, or nil when cancelled or it failed.
    func join() -> ForestBuilder? {
        guard threaded else { return cancelled ? nil : builder!.finish() }
        condition.lock()
        defer { condition.unlock() }
        while !ended { condition.wait() }
        guard !failed && !cancelled, var builder else { return nil }
        self.builder = nil
        return builder.finish()
    }

    private func run() {
        condition.lock()
        var builder = self.builder!
        self.builder = nil  // this thread's alone until it ends
        condition.unlock()
        while true {
            condition.lock()
            while queue.isEmpty && !closed && !cancelled { condition.wait() }
            if cancelled || queue.isEmpty {
                condition.unlock()
                break
            }
            let batch = queue.removeFirst()
            condition.broadcast()  // room in the queue
            condition.unlock()
            builder.build(batch, from: base)
            batch.removeAll()
            condition.lock()
            spare.append(batch)
            condition.unlock()
        }
        condition.lock()
        self.builder = builder
        if builder.failed { self.failed = true }
        ended = true
        condition.broadcast()
        condition.unlock()
    }
}

/// The forest builder of a streamed path list and its open nodes, fed batch by batch.
struct PathBatchBuilder {
    var builder: ForestBuilder
    private var openCount = 0
    /// A limit was reached: the rest is skipped, and the reader gives up.
    private(set) var failed = false

    init(builder: ForestBuilder) { self.builder = builder }

    /// Adds the batch's names (their ranges in the input at `base`).
    mutating func build(_ batch: PathBatch, from base: UnsafeRawPointer) {
        guard !failed else { return }
        do throws(NodeSinkError) {
            for name in batch.names {
                while openCount > name.depth {
                    builder.endNode()
                    openCount -= 1
                }
                try builder.beginNode()
                openCount += 1
                try builder.setTitle(UnsafeRawBufferPointer(start: base + name.nameStart, count: name.end - name.nameStart))
                try builder.setDerivedID(UnsafeRawBufferPointer(start: base + name.idStart, count: name.end - name.idStart),
                                         segmentCount: name.end - name.nameStart)
            }
        } catch {
            failed = true
        }
    }

    /// Ends every open node; the builder, or nil when a limit was reached.
    mutating func finish() -> ForestBuilder? {
        while openCount > 0 {
            builder.endNode()
            openCount -= 1
        }
        return failed ? nil : builder
    }
}
