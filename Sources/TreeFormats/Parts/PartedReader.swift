import TreeEngine

/// How the readers go about a body: the one value tests set (`ReaderTuning.$current`) to
/// take a way a body would not take by itself. Every way gives the same forest, or leaves
/// the body to the general reader, which names its error.
struct ReaderTuning: Sendable {
    /// Whether a format's fast path is tried before its general reader.
    var fastPaths = true
    /// How many parts a fast path reads a body in (nil: `PartedReader.partCount`).
    var parts: Int?
    /// Where the parts after the first are aimed, an offset each, in order (nil:
    /// `PartedReader.targets`).
    var cutsNear: [Int]?

    @TaskLocal static var current = ReaderTuning()
}

/// A format's fast path: a body of the shape it expects is read in parts at once, each on
/// a thread of its own into a builder of its own, and the parts are joined in order
/// (`ForestBuilder.appendPart`); a small body is one part, read on the calling thread. A
/// part starts at the first place to cut (a row, a line, a member) after the offset it is
/// aimed at, which its own thread finds, and stops at the place the next one starts: the
/// parts meet without a pass over the whole body first.
///
/// Any other body, and any rule broken, gives nil: the format's general reader, which takes
/// every body, then reads it and names the error where it is.
protocol PartedReader {
    associatedtype Part
    associatedtype Output
    /// The body's size in bytes.
    var byteCount: Int { get }
    /// The offsets the parts after the first are aimed at, for `parts` parts that take about
    /// as long each (by default the body in equal shares).
    func targets(parts: Int) -> [Int]
    /// Reads the part `index` of `count`, from the first place to cut after `from` (nil: the
    /// body's start) to the first after `to` (nil: its end); nil when it cannot. Runs on a
    /// thread of its own, at the same time as the other parts.
    func readPart(_ index: Int, of count: Int, from: Int?, to: Int?) -> Part?
    /// The parts joined in order, or nil when they do not fit together.
    func join(_ parts: inout [Part]) -> Output?
}

extension PartedReader {
    func targets(parts: Int) -> [Int] {
        (1 ..< parts).map { byteCount / parts * $0 }
    }

    /// How many parts a body of `bytes` bytes is read in: as many as `ParallelWork` gives
    /// threads for its bytes counted as items of 64 (a row or a node is rarely shorter), so
    /// a part has 2 MiB at least.
    static func partCount(bytes: Int) -> Int {
        ParallelWork.workerCount(items: bytes / 64)
    }

    /// The body read by the fast path, or nil (see the protocol).
    /// - Complexity: that of the parts, each on a thread of its own, then of the join
    func readInParts() -> Output? {
        let tuning = ReaderTuning.current
        guard tuning.fastPaths else { return nil }
        let count = max(1, tuning.parts ?? Self.partCount(bytes: byteCount))
        let targets = tuning.cutsNear ?? self.targets(parts: count)
        precondition(targets.count == count - 1 && zip(targets, targets.dropFirst()).allSatisfy { $0 <= $1 },
                     "an offset for each part after the first, in order")
        var parts = [Part?](repeating: nil, count: count)
        parts.withUnsafeMutableBufferPointer { parts in
            // Each job writes its own part; what they share is the body, read only.
            ParallelWork.run(count) { k in
                parts[k] = readPart(k, of: count, from: k == 0 ? nil : targets[k - 1], to: k == count - 1 ? nil : targets[k])
            }
        }
        var read: [Part] = []
        read.reserveCapacity(count)
        for k in 0 ..< count {
            guard let part = parts[k].take() else { return nil }
            read.append(part)  // moved: the parts' builders stay uniquely referenced
        }
        return join(&read)
    }
}

extension ForestBuilder {
    /// The parts' builders joined into the first: each part after it under the open nodes
    /// its `partParents` name (`appendPart`), once `prepare(k, &joined)` has readied the
    /// joined builder for part `k` (false: no join); then the ids checked all at once and
    /// every node ended. The forest, or nil when a part does not fit or an id is taken twice.
    /// - Complexity: O(the parts' nodes and bytes after the first's, then the ids)
    static func joinParts(_ builders: inout [ForestBuilder],
                          prepare: (Int, inout ForestBuilder) -> Bool = { _, _ in true }) -> Forest? {
        var joined = builders[0]
        builders[0] = ForestBuilder()  // `joined` holds the columns alone: appended to in place
        for k in 1 ..< builders.count {
            let under = builders[k].partParents
            guard prepare(k, &joined), joined.appendPart(&builders[k], under: under) else { return nil }
            builders[k] = ForestBuilder()  // its columns are copied: freed before the ids are indexed
        }
        guard joined.indexDeferredIDs() else { return nil }
        while joined.openNodeCount > 0 { joined.endNode() }
        return joined.finish()
    }
}
