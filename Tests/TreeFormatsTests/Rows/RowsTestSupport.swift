import Foundation
import Testing
import TreeEngine
@testable import TreeFormats
@testable import TreeReference

/// Helpers of the row format tests (CSV, NDJSON).
enum Rows {
    /// Seeds of the random round trips: `FORMAT_MODEL_SEEDS=N` (default 200).
    static let seedCount = Int(ProcessInfo.processInfo.environment["FORMAT_MODEL_SEEDS"] ?? "") ?? 200

    enum Format: CustomStringConvertible {
        case csv, ndjson
        var description: String { self == .csv ? "CSV" : "NDJSON" }
    }

    /// Parses `body` in `format`.
    static func parse(_ body: [UInt8], _ format: Format, limits: ForestLimits = ForestLimits()) -> Result<Forest, TreeInputError> {
        body.withUnsafeBytes { buffer in
            do throws(TreeInputError) {
                switch format {
                case .csv: return .success(try Forest.parseCSV(buffer, limits: limits))
                case .ndjson: return .success(try Forest.parseNDJSON(buffer, limits: limits))
                }
            } catch {
                return .failure(error)
            }
        }
    }

    static func parse(_ body: String, _ format: Format, limits: ForestLimits = ForestLimits()) -> Result<Forest, TreeInputError> {
        parse(Array(body.utf8), format, limits: limits)
    }

    /// The error of parsing `body`, or nil when it parses.
    static func error(_ body: String, _ format: Format, limits: ForestLimits = ForestLimits()) -> TreeInputError? {
        if case .failure(let error) = parse(body, format, limits: limits) { return error }
        return nil
    }

    /// Parses fragments of `body` for `store`.
    static func fragments(_ body: String, _ format: Format, store: TreeStore, limits: ForestLimits = ForestLimits())
        -> Result<[FragmentGroup], TreeInputError> {
        Array(body.utf8).withUnsafeBytes { buffer in
            do throws(TreeInputError) {
                switch format {
                case .csv: return .success(try store.parseCSVFragments(buffer, limits: limits))
                case .ndjson: return .success(try store.parseNDJSONFragments(buffer, limits: limits))
                }
            } catch {
                return .failure(error)
            }
        }
    }

    /// The offsets a part may be aimed at so that it starts at each row but the first (a
    /// part starts at the first row after its offset): each row's start, while another row
    /// follows.
    static func splits(_ body: [UInt8], _ format: Format) -> [Int] {
        func splits<R: RowReader>(_ reader: R) -> [Int] {
            var reader = reader, splits: [Int] = []
            _ = try? reader.readPrelude()
            var row = reader.rowStart(after: reader.position - 1)
            while true {
                let next = reader.rowStart(after: row)
                guard next < body.count else { return splits }
                splits.append(row)
                row = next
            }
        }
        return body.withUnsafeBytes { raw in
            format == .csv ? splits(CSVReader(raw, limits: ForestLimits())) : splits(NDJSONReader(raw, limits: ForestLimits()))
        }
    }

    /// What the fast path (`RowParts`) builds of `body` read in parts aimed at `cuts` (a
    /// part more than cuts), or nil when it leaves the body to the table.
    static func inParts(_ body: [UInt8], _ format: Format, cuts: [Int], dialect: CSVDialect = CSVDialect()) -> Forest? {
        func read<R: RowReader>(_: R.Type) -> Forest? {
            body.withUnsafeBytes { raw in
                var streamed = RowParts<R>(bytes: raw, limits: ForestLimits(), dialect: dialect, target: nil).readInParts()
                return streamed?.finish()
            }
        }
        return ReaderTuning.$current.withValue(ReaderTuning(parts: cuts.count + 1, cutsNear: cuts)) {
            format == .csv ? read(CSVReader.self) : read(NDJSONReader.self)
        }
    }

    /// What the fast path builds of `body` as fragments for `store`, read in parts aimed at
    /// `cuts`, or nil when it leaves the body to the table.
    static func fragmentsInParts(_ body: [UInt8], _ format: Format, store: TreeStore, cuts: [Int]) -> [FragmentGroup]? {
        func read<R: RowReader>(_: R.Type) -> [FragmentGroup]? {
            body.withUnsafeBytes { raw in
                var streamed = RowParts<R>(bytes: raw, limits: ForestLimits(), dialect: CSVDialect(), target: RowTarget(store: store)).readInParts()
                return streamed?.finishFragment()?.map { FragmentGroup(parent: $0.parent?.node, fragment: $0.fragment) }
            }
        }
        return ReaderTuning.$current.withValue(ReaderTuning(parts: cuts.count + 1, cutsNear: cuts)) {
            format == .csv ? read(CSVReader.self) : read(NDJSONReader.self)
        }
    }

    /// The whole export of `forest` in `format`, in chunks of `chunkSize`.
    static func export(_ forest: Forest, _ format: Format, chunkSize: Int = 1 << 16) -> [UInt8] {
        var out: [UInt8] = []
        switch format {
        case .csv: forest.exportCSV(chunkSize: chunkSize) { out += $0 }
        case .ndjson: forest.exportNDJSON(chunkSize: chunkSize) { out += $0 }
        }
        return out
    }

    /// A forest from nested JSON.
    static func forest(json: String) throws -> Forest {
        try Forest.parse(Array(json.utf8)).forest
    }

    /// One line per node in pre-order: level, id (with its type when `types`), title,
    /// flags, data bytes. Two forests with the same description hold the same nodes.
    static func describe(_ forest: Forest, types: Bool) -> [String] {
        var lines: [String] = []
        forest.forEachNode { node, level in
            let id = forest.withID(of: node) { key, isInteger in
                (types && isInteger ? "int:" : "str:") + String(decoding: key, as: UTF8.self).debugDescription
            }
            let title = forest.title(of: node).debugDescription
            let data = forest.data(of: node).map { String(decoding: $0, as: UTF8.self) } ?? "-"
            lines.append("\(level) \(id) \(title) e=\(forest.isExpandedUnfiltered(node)) h=\(forest.declaresChildren(node)) d=\(data)")
        }
        return lines
    }

    /// The nodes of `forest` as rows in pre-order: (id text, parent id text or nil) and
    /// the row's text in `format` (one CSV record or NDJSON line, with its line end).
    static func rows(_ forest: Forest, _ format: Format) -> [(id: String, parent: String?, text: [UInt8])] {
        var result: [(id: String, parent: String?, text: [UInt8])] = []
        forest.forEachNode { node, _ in
            let id = forest.id(of: node).description
            let parent = forest.parent(of: node).map { forest.id(of: $0).description }
            var text: [UInt8] = []
            switch format {
            case .csv:
                forest.withID(of: node) { key, _ in Forest.csvField(key, emptyQuoted: true, to: &text) }
                text.append(UInt8(ascii: ","))
                if let p = forest.parent(of: node) { forest.withID(of: p) { key, _ in Forest.csvField(key, emptyQuoted: true, to: &text) } }
                text.append(UInt8(ascii: ","))
                forest.withTitle(of: node) { Forest.csvField($0, emptyQuoted: false, to: &text) }
                text += Array(",\(forest.isExpandedUnfiltered(node) ? "true" : "false"),\(forest.declaresChildren(node) ? "true" : ""),".utf8)
                forest.withData(of: node) { raw in if let raw { Forest.csvField(raw, emptyQuoted: false, to: &text) } }
                text += [0x0A]
            case .ndjson:
                var out = JSONWriter()
                out.raw("{\"title\":")
                forest.writeTitle(of: node, to: &out)
                out.raw(",\"id\":")
                forest.writeID(of: node, to: &out)
                if let p = forest.parent(of: node) {
                    out.raw(", \"parentId\" : ")
                    forest.writeID(of: p, to: &out)
                }
                if forest.hasData(node) {
                    out.raw(",\"data\":")
                    forest.writeData(of: node, to: &out)
                }
                if forest.isExpandedUnfiltered(node) { out.raw(",\"expanded\":true") }
                out.raw(Array(",\"hasChildren\":\(forest.declaresChildren(node))}\r\n".utf8))
                text = out.bytes
            }
            result.append((id, parent, text))
        }
        return result
    }

    /// A random order of `rows` in which siblings keep their order (parents may come after
    /// their children).
    static func shuffledKeepingSiblings(_ rows: [(id: String, parent: String?, text: [UInt8])], _ rng: inout SeededRandom) -> [[UInt8]] {
        var positions = Array(rows.indices)
        positions.shuffle(using: &rng)
        // Group by parent: the slots a group got, filled with its members in input order.
        var groups: [String: [Int]] = [:]
        for (i, row) in rows.enumerated() { groups[row.parent ?? "\u{0}root", default: []].append(i) }
        var result = [[UInt8]](repeating: [], count: rows.count)
        for (_, members) in groups {
            let slots = members.map { positions[$0] }.sorted()
            for (member, slot) in zip(members, slots) { result[slot] = rows[member].text }
        }
        return result
    }
}

extension Result where Failure == TreeInputError {
    /// The error, or nil on success.
    var failure: TreeInputError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
