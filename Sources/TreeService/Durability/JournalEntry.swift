import Foundation
import TreeEngine
import TreeFormats
import TreeStorage

/// What one journal record says: the payload the service hands to the storage layer
/// (which frames it with its length, CRC-32C and the session's version before it).
///
/// A change is recorded after every check and before it is applied, as the operations
/// it applies and the view they were made through (`ChangeRecord`, record format 3);
/// replay applies them again through the same functions, so it gives the same tree, views,
/// generated ids and versions. Releases before record format 2 recorded the request instead
/// (`RecordedChange`): such records are still read, and replayed by decoding the request
/// again. Everything else that changes what a session is gets a record of its own: a view
/// made or dropped, the order of the filtered rows a view keeps (built, used or dropped:
/// naming dropped rows again may reset them, a version step of that view), and the
/// wall-clock time of the last use of the session and of its views (their expiry clocks).
///
/// Layout (little-endian): a kind byte, the wall-clock time in milliseconds since 1970
/// (Int64), then the kind's fields; docs/STORAGE.md shows it byte by byte.
enum JournalEntry: Equatable {
    /// A change, applied again on replay.
    case operations(ChangeRecord)
    /// A change request of record format 1 (read only: written by releases before format 2).
    case change(RecordedChange)
    /// The filtered rows the default view keeps after some were built or used, least
    /// recently used first.
    case views([FilterQuery])
    /// The session was used (read) at the entry's time.
    case touch
    /// A view made at the entry's time, with the id it was given and how it started.
    case viewCreated(ViewID, ViewStart)
    /// A view dropped: deleted, or (`expired`) idle past its TTL.
    case viewDeleted(ViewID, expired: Bool)
    /// The filtered rows a view keeps after some were built or used, least recently used first.
    case viewFilters(ViewID, [FilterQuery])
    /// The session was used at the entry's time, and each of these views at its time
    /// (reads, batched: at most one entry a minute names a view).
    case viewUses([ViewUse])
    /// The session's settings after a `PATCH` changed them (name, labels, owner, TTL, token
    /// cut-off): a step of the session's version.
    case settings(SessionSettings)

    /// A view's last use in a `viewUses` entry.
    struct ViewUse: Equatable, Sendable {
        var view: ViewID
        /// On the wall clock, to the millisecond.
        var time: Date
    }

    enum Kind: UInt8 {
        case change = 1, views = 2, touch = 3, operations = 4, viewCreated = 5, viewDeleted = 6, viewFilters = 7, viewUses = 8, settings = 9
    }

    /// The view the entry is about (nil: the default view, or none).
    var view: ViewID? {
        switch self {
        case .operations(let record): record.view
        case .viewCreated(let id, _), .viewDeleted(let id, _), .viewFilters(let id, _): id
        case .change, .views, .touch, .viewUses, .settings: nil
        }
    }

    /// What a change's record holds besides its request's body, at most: the kind, time and
    /// format, and the view, item and parent named in a request line (at most
    /// `HTTPServerConfiguration.maxRequestLineLength`, 8 KiB), with their lengths. (A batch's
    /// operations take fewer bytes in the record than in the body, but for the data of
    /// its updates, kept as serialized: `journal` refuses a record that would not fit.)
    static let maxChangeOverhead = 64 << 10

    /// The largest request body whose change fits one journal record: the most `--max-body`
    /// may be with a data directory.
    static let maxJournaledBody = DataDirectory.maxRecordPayload - maxChangeOverhead

    /// Encodes the entry made at `time`.
    func encoded(at time: Date) -> [UInt8] {
        var out = ByteWriter()
        switch self {
        case .operations: out.u8(Kind.operations.rawValue)
        case .change: out.u8(Kind.change.rawValue)
        case .views: out.u8(Kind.views.rawValue)
        case .touch: out.u8(Kind.touch.rawValue)
        case .viewCreated: out.u8(Kind.viewCreated.rawValue)
        case .viewDeleted: out.u8(Kind.viewDeleted.rawValue)
        case .viewFilters: out.u8(Kind.viewFilters.rawValue)
        case .viewUses: out.u8(Kind.viewUses.rawValue)
        case .settings: out.u8(Kind.settings.rawValue)
        }
        out.i64(JournalEntry.milliseconds(time))
        switch self {
        case .operations(let record):
            record.encode(to: &out)
        case .change(let change):
            out.u8(change.route.rawValue)
            out.view(change.view)
            out.string(change.item?.text ?? "")
            if let rows = change.rows {
                out.u8(rows.code)
                out.string(rows.separator)
                // A parent may have the empty id: its presence is a byte of its own.
                out.u8(rows.parent == nil ? 0 : 1)
                out.string(rows.parent?.text ?? "")
            }
            out.bytes(change.body)
        case .views(let queries):
            out.u32(UInt32(queries.count))
            for query in queries { out.view(query) }
        case .touch:
            break
        case .viewCreated(let id, let start):
            out.u64(id.rawValue)
            switch start {
            case .collapsed: out.u8(0)
            case .expanded: out.u8(1)
            case .depth(let depth):
                out.u8(2)
                out.i64(Int64(depth))
            case .copy(of: nil): out.u8(3)
            case .copy(of: let source?):
                out.u8(4)
                out.u64(source.rawValue)
            }
        case .viewDeleted(let id, let expired):
            out.u64(id.rawValue)
            out.u8(expired ? 1 : 0)
        case .viewFilters(let id, let queries):
            out.u64(id.rawValue)
            out.u32(UInt32(queries.count))
            for query in queries { out.view(query) }
        case .viewUses(let uses):
            out.u32(UInt32(uses.count))
            for use in uses {
                out.u64(use.view.rawValue)
                out.i64(JournalEntry.milliseconds(use.time))
            }
        case .settings(let settings):
            out.i64(settings.ttlSeconds)
            settings.writeDescription(to: &out)
        }
        return out.bytes
    }

    /// A wall-clock time as an entry keeps it: whole milliseconds since 1970.
    static func milliseconds(_ time: Date) -> Int64 { Int64((time.timeIntervalSince1970 * 1000).rounded()) }

    /// The time of `milliseconds(_:)`.
    static func date(milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    /// `time` to the millisecond, as an entry gives it back.
    static func wholeMilliseconds(_ time: Date) -> Date { date(milliseconds: milliseconds(time)) }

    /// Reads a list of kept filtered rows, least recently used first.
    private static func filters(_ input: inout ByteReader) -> [FilterQuery]? {
        guard let count = input.u32(), count <= 1 << 16 else { return nil }
        var queries: [FilterQuery] = []
        for _ in 0 ..< count {
            guard let query = input.view(), let query else { return nil }
            queries.append(query)
        }
        return queries
    }

    /// Decodes a payload; nil when it is not one this version writes.
    static func decode(_ bytes: [UInt8]) -> (entry: JournalEntry, time: Date)? {
        var input = ByteReader(bytes)
        guard let kind = input.u8().flatMap(Kind.init(rawValue:)), let millis = input.i64() else { return nil }
        let time = date(milliseconds: millis)
        switch kind {
        case .operations:
            return ChangeRecord(&input).map { (.operations($0), time) }
        case .change:
            guard let route = input.u8().flatMap(RecordedChange.Route.init(rawValue:)),
                  let view = input.view(), let item = input.string() else { return nil }
            // An item's id may be empty: an item route always has one, the others none.
            guard route.namesItem || item.isEmpty else { return nil }
            var rows: RowsUpload?
            if route == .insertRows {
                guard let code = input.u8(), let separator = input.string(), let hasParent = input.u8(), hasParent <= 1,
                      let parent = input.string(), hasParent == 1 || parent.isEmpty,
                      let upload = RowsUpload(code: code, separator: separator, parent: hasParent == 1 ? ItemID(parent) : nil)
                else { return nil }
                rows = upload
            }
            let change = RecordedChange(route: route, view: view, item: route.namesItem ? ItemID(item) : nil, body: input.rest(), rows: rows)
            return (.change(change), time)
        case .views:
            guard let queries = filters(&input) else { return nil }
            return input.atEnd ? (.views(queries), time) : nil
        case .touch:
            return input.atEnd ? (.touch, time) : nil
        case .viewCreated:
            guard let id = input.u64().map(ViewID.init), let code = input.u8() else { return nil }
            let start: ViewStart
            switch code {
            case 0: start = .collapsed
            case 1: start = .expanded
            case 2:
                // A depth of 0 is `collapsed`: one start, one spelling.
                guard let depth = input.i64(), depth > 0 else { return nil }
                start = .depth(Int(depth))
            case 3: start = .copy(of: nil)
            case 4:
                guard let source = input.u64().map(ViewID.init), source != id else { return nil }
                start = .copy(of: source)
            default: return nil
            }
            return input.atEnd ? (.viewCreated(id, start), time) : nil
        case .viewDeleted:
            guard let id = input.u64().map(ViewID.init), let expired = input.u8(), expired <= 1, input.atEnd else { return nil }
            return (.viewDeleted(id, expired: expired == 1), time)
        case .viewFilters:
            guard let id = input.u64().map(ViewID.init), let queries = filters(&input), input.atEnd else { return nil }
            return (.viewFilters(id, queries), time)
        case .viewUses:
            guard let count = input.u32() else { return nil }
            var uses: [ViewUse] = []
            for _ in 0 ..< count {
                guard let id = input.u64().map(ViewID.init), let millis = input.i64() else { return nil }
                uses.append(ViewUse(view: id, time: date(milliseconds: millis)))
            }
            return input.atEnd ? (.viewUses(uses), time) : nil
        case .settings:
            var settings = SessionSettings()
            guard let seconds = input.i64(), seconds >= -1, settings.readDescription(from: &input), input.atEnd else { return nil }
            settings.ttl = SessionSettings.ttl(seconds: seconds)
            return (.settings(settings), time)
        }
    }
}

/// A change as its request made it (record format 1): enough to make it again, through the
/// request's decoders.
struct RecordedChange: Equatable, Sendable {
    /// The route that asked for it.
    enum Route: UInt8, Sendable {
        /// `PATCH /sessions/{sid}`
        case sessionPatch = 1
        /// `PATCH /sessions/{sid}/items/{itemId}`
        case itemPatch = 2
        /// `POST /sessions/{sid}/items`
        case insert = 3
        /// `DELETE /sessions/{sid}/items/{itemId}`
        case deleteItem = 4
        /// `POST /sessions/{sid}/batch`
        case batch = 5
        /// `POST /sessions/{sid}/items` with CSV or NDJSON rows or a path list
        case insertRows = 6

        var namesItem: Bool { self == .itemPatch || self == .deleteItem }
    }

    var route: Route
    var view: FilterQuery?
    /// The item the URL names (item routes only).
    var item: ItemID?
    /// The request's body as it came.
    var body: [UInt8]
    /// The format of an `insertRows` body, and the parent its query names.
    var rows: RowsUpload? = nil
}

/// How rows to insert came: their format (CSV, NDJSON or a path list with its separator)
/// and, for a path list, the node its `parentId` query parameter names.
struct RowsUpload: Equatable, Sendable {
    var format: TreeFormat
    var parent: ItemID?
    /// A path list whose ids double every backslash (its session's, `Session.doublesPathBackslashes`).
    var doublesBackslashes = false

    /// The format's code in a journal entry: 1 CSV, 2 NDJSON, 3 path list with backslashes
    /// doubled in ids (every record made before the minimal form), 4 path list.
    var code: UInt8 {
        switch format {
        case .csv: 1
        case .ndjson: 2
        default: doublesBackslashes ? 3 : 4
        }
    }

    /// The separator of a path list; a CSV's dialect (`text(of:)`); else empty.
    var separator: String {
        switch format {
        case .paths(let separator): return separator
        case .csv(let dialect): return RowsUpload.text(of: dialect)
        default: return ""
        }
    }

    /// A CSV dialect in the journal: empty for the default; else its delimiter (`-`: the
    /// header's) and each mapped role and its name, each after a U+0000.
    static func text(of dialect: CSVDialect) -> String {
        guard dialect != CSVDialect() else { return "" }
        var text = dialect.delimiter.map { String(UnicodeScalar($0)) } ?? "-"
        for (role, name) in dialect.columns.sorted(by: { $0.key < $1.key }) { text += "\u{0}\(role)\u{0}\(name)" }
        return text
    }

    /// The dialect `text(of:)` wrote; nil when malformed.
    static func dialect(_ text: String) -> CSVDialect? {
        guard !text.isEmpty else { return CSVDialect() }
        let parts = text.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
        guard parts.count % 2 == 1, parts[0].utf8.count == 1 else { return nil }
        let delimiter: UInt8? = parts[0] == "-" ? nil : parts[0].utf8.first
        var columns: [String: String] = [:]
        for k in stride(from: 1, to: parts.count, by: 2) { columns[parts[k]] = parts[k + 1] }
        guard CSVDialect.problem(delimiter: delimiter, columns: columns) == nil, columns.count == parts.count / 2 else { return nil }
        return CSVDialect(delimiter: delimiter, columns: columns)
    }

    init(format: TreeFormat, parent: ItemID?, doublesBackslashes: Bool = false) {
        self.format = format
        self.parent = parent
        self.doublesBackslashes = doublesBackslashes
    }

    /// The upload a journal entry's code, separator and parent describe; nil when malformed.
    init?(code: UInt8, separator: String, parent: ItemID?) {
        switch code {
        case 1:
            guard let dialect = RowsUpload.dialect(separator) else { return nil }
            format = .csv(dialect)
        case 2 where separator.isEmpty: format = .ndjson
        case 3, 4:
            guard !separator.isEmpty else { return nil }
            format = .paths(separator: separator)
            doublesBackslashes = code == 3
        default: return nil
        }
        self.parent = parent
    }
}

// MARK: Bytes

/// Appends little-endian integers and length-prefixed strings.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    mutating func f64(_ v: Double) { u64(v.bitPattern) }
    mutating func bytes(_ b: [UInt8]) { bytes.append(contentsOf: b) }
    mutating func string(_ s: String) {
        u32(UInt32(s.utf8.count))
        bytes.append(contentsOf: s.utf8)
    }
    /// Bytes with their length (UInt32) before them.
    mutating func counted(_ b: [UInt8]) {
        u32(UInt32(b.count))
        bytes.append(contentsOf: b)
    }
    /// A byte 0 for nil, else 1 and the value as `write` writes it.
    mutating func optional<T>(_ value: T?, _ write: (inout ByteWriter, T) -> Void) {
        guard let value else { return u8(0) }
        u8(1)
        write(&self, value)
    }
    /// The codes of the match modes (as in the snapshot image): their index here.
    static let modeCodes: [FilterQuery.Mode] = [.contains, .prefix, .exact, .words, .fuzzy]

    /// A view: 0 for the unfiltered one, else 1, the query text, the mode and the options
    /// (bit 0 case-sensitive, bit 1 diacritic-insensitive, bit 2 leaves only, bit 3 the
    /// fields and conditions follow, as `FilterQueryBytes` writes them).
    mutating func view(_ query: FilterQuery?) {
        guard let query else { return u8(0) }
        u8(1)
        string(query.text)
        u8(ByteWriter.modeCodes.firstIndex(of: query.mode).map(UInt8.init)!)
        let extra = FilterQueryBytes.isNeeded(query)
        u8((query.caseSensitive ? 1 : 0) | (query.diacriticInsensitive ? 2 : 0) | (query.leavesOnly ? 4 : 0)
            | (extra ? FilterQueryBytes.flag : 0))
        if extra { bytes.append(contentsOf: FilterQueryBytes.bytes(of: query)) }
    }
}

/// Reads what `ByteWriter` writes; every read is nil past the end.
struct ByteReader {
    private let bytes: [UInt8]
    private var at = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { at == bytes.count }

    private mutating func take(_ n: Int) -> ArraySlice<UInt8>? {
        guard n >= 0, bytes.count - at >= n else { return nil }
        defer { at += n }
        return bytes[at ..< at + n]
    }
    private mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
        guard let slice = take(MemoryLayout<T>.size) else { return nil }
        return slice.reversed().reduce(T(0)) { $0 << 8 | T($1) }
    }

    mutating func u8() -> UInt8? { take(1)?.first }
    mutating func u32() -> UInt32? { integer(UInt32.self) }
    mutating func u64() -> UInt64? { integer(UInt64.self) }
    mutating func i64() -> Int64? { u64().map { Int64(bitPattern: $0) } }
    mutating func f64() -> Double? { u64().map(Double.init(bitPattern:)) }
    mutating func rest() -> [UInt8] { Array(take(bytes.count - at)!) }
    mutating func string() -> String? {
        guard let n = u32(), let slice = take(Int(n)) else { return nil }
        return String(validating: slice, as: UTF8.self)
    }
    mutating func counted() -> [UInt8]? {
        guard let n = u32(), let slice = take(Int(n)) else { return nil }
        return Array(slice)
    }
    /// What `ByteWriter.optional` wrote: `.some(nil)` for nil, nil when malformed.
    mutating func optional<T>(_ read: (inout ByteReader) -> T?) -> T?? {
        switch u8() {
        case 0?: return .some(nil)
        case 1?: return read(&self).map { .some($0) }
        default: return nil
        }
    }
    /// A view: `.some(nil)` for the unfiltered one, nil when malformed.
    mutating func view() -> FilterQuery?? {
        switch u8() {
        case 0?: return .some(nil)
        case 1?:
            guard let text = string(), let m = u8(), Int(m) < ByteWriter.modeCodes.count,
                  let c = u8(), c & ~15 == 0 else { return nil }
            var fields: [NodeField] = [.title], conditions: [FieldCondition] = []
            if c & FilterQueryBytes.flag != 0 {
                guard let extra = bytes.withUnsafeBytes({ FilterQueryBytes.read($0, at: &at) }) else { return nil }
                (fields, conditions) = extra
            }
            guard !text.isEmpty || !conditions.isEmpty else { return nil }
            return .some(FilterQuery(text, mode: ByteWriter.modeCodes[Int(m)], caseSensitive: c & 1 != 0,
                                     diacriticInsensitive: c & 2 != 0, leavesOnly: c & 4 != 0, fields: fields, conditions: conditions))
        default: return nil
        }
    }
}
