import Foundation
import TreeEngine

/// What a snapshot keeps of a session beside its store: the caller block of the image
/// (`StoreImage.write(_:caller:)`). The image keeps each view's expansion and kept filtered
/// rows; this block keeps what the service knows of them besides.
///
/// Layout (little-endian): format byte `4`, version (UInt64), `createdAt` and last use
/// (seconds since 1970, Float64), then the default view's filtered rows that may differ
/// from a fresh build of themselves (UInt32 count, each view as in a journal entry), then
/// the TTL its upload asked for (Int64 seconds, 0 never, -1 none: the server's), then
/// (format `3`) a byte of flags: 1, its path-list ids double every backslash, then (format
/// `4`) the views: the key that makes their ids (UInt64), the number of views made so far
/// (UInt64), and the views in the order they were made (UInt32 count), each its id, serial
/// and version (UInt64 each), `createdAt` and last use (Float64 seconds) and its changed
/// filtered rows (as the default view's), then (format `5`) the session's name, owner note,
/// labels and token cut-off (`SessionSettings.writeDescription`). Format `1`, written before uploads could ask for a
/// TTL, ends after the views; formats 1 and 2, written before path-list ids doubled a
/// backslash only where needed, read as doubling; format 3 ends after the flags, and has no
/// views (the store's are dropped on load). All still read.
struct SessionMetadata: Equatable {
    var version: Int
    var createdAt: Date
    var lastUse: Date
    var changedFilters: Set<FilterQuery>
    /// Its name, labels, TTL (nil: the server's `--session-ttl`) and token cut-off.
    var settings = SessionSettings()
    var ttl: Duration? { settings.ttl }
    var doublesPathBackslashes = false
    /// The views (format 4); nil for a block of an earlier format, which has none.
    var views: Views? = nil

    /// The session's views as the block keeps them.
    struct Views: Equatable {
        /// The key that scatters serials into view ids (`SessionCore.viewKey`).
        var key: UInt64
        /// Views made so far (`SessionCore.viewSerial`).
        var serial: UInt64
        /// In the order they were made.
        var views: [View] = []
    }

    /// One view: what `SessionCore.ViewEntry` holds, its version, its last use and its
    /// changed filtered rows.
    struct View: Equatable {
        var id: ViewID
        var serial: UInt64
        var version: Int
        var createdAt: Date
        var lastUse: Date
        var changedFilters: Set<FilterQuery>
    }

    static let format: UInt8 = 5

    /// Each view's last use.
    var viewUses: [ViewID: Date] {
        Dictionary(uniqueKeysWithValues: (views?.views ?? []).map { ($0.id, $0.lastUse) })
    }

    var encoded: [UInt8] {
        var out = ByteWriter()
        out.u8(SessionMetadata.format)
        out.u64(UInt64(version))
        out.f64(createdAt.timeIntervalSince1970)
        out.f64(lastUse.timeIntervalSince1970)
        Self.write(changedFilters, to: &out)
        out.i64(settings.ttlSeconds)
        out.u8(doublesPathBackslashes ? 1 : 0)
        let views = views ?? Views(key: 0, serial: 0)
        out.u64(views.key)
        out.u64(views.serial)
        out.u32(UInt32(views.views.count))
        for view in views.views {
            out.u64(view.id.rawValue)
            out.u64(view.serial)
            out.u64(UInt64(view.version))
            out.f64(view.createdAt.timeIntervalSince1970)
            out.f64(view.lastUse.timeIntervalSince1970)
            Self.write(view.changedFilters, to: &out)
        }
        settings.writeDescription(to: &out)
        return out.bytes
    }

    /// Changed filtered rows in a stable order, so that the same session gives the same bytes.
    private static func write(_ filters: Set<FilterQuery>, to out: inout ByteWriter) {
        func key(_ q: FilterQuery) -> (String, String, Int, String) {
            (q.text, q.mode.rawValue, (q.caseSensitive ? 1 : 0) | (q.diacriticInsensitive ? 2 : 0) | (q.leavesOnly ? 4 : 0), q.description)
        }
        let sorted = filters.sorted { key($0) < key($1) }
        out.u32(UInt32(sorted.count))
        for query in sorted { out.view(query) }
    }

    private static func readFilters(_ input: inout ByteReader) -> Set<FilterQuery>? {
        guard let count = input.u32(), count <= 1 << 16 else { return nil }
        var filters = Set<FilterQuery>()
        for _ in 0 ..< count {
            guard let query = input.view(), let query else { return nil }
            filters.insert(query)
        }
        return filters
    }

    init(version: Int, createdAt: Date, lastUse: Date, changedFilters: Set<FilterQuery>, ttl: Duration? = nil,
         settings: SessionSettings = SessionSettings(), doublesPathBackslashes: Bool = false, views: Views? = nil) {
        self.version = version
        self.createdAt = createdAt
        self.lastUse = lastUse
        self.changedFilters = changedFilters
        self.settings = settings
        if let ttl { self.settings.ttl = ttl }
        self.doublesPathBackslashes = doublesPathBackslashes
        self.views = views
    }

    /// Decodes a caller block; nil when it is not one this version writes.
    init?(_ bytes: [UInt8]) {
        var input = ByteReader(bytes)
        guard let format = input.u8(), (1 ... SessionMetadata.format).contains(format), let version = input.u64(), version >= 1, version < 1 << 62,
              let created = input.f64(), created.isFinite, let used = input.f64(), used.isFinite,
              let changed = Self.readFilters(&input) else { return nil }
        var settings = SessionSettings()
        if format >= 2 {
            guard let seconds = input.i64(), seconds >= -1 else { return nil }
            settings.ttl = SessionSettings.ttl(seconds: seconds)
        }
        var doubles = true
        if format >= 3 {
            guard let flags = input.u8(), flags <= 1 else { return nil }
            doubles = flags == 1
        }
        var views: Views?
        if format >= 4 {
            guard let key = input.u64(), let serial = input.u64(), let count = input.u32() else { return nil }
            var all = Views(key: key, serial: serial)
            var ids = Set<ViewID>(), serials = Set<UInt64>()
            for _ in 0 ..< count {
                guard let id = input.u64().map(ViewID.init), let viewSerial = input.u64(), let viewVersion = input.u64(),
                      viewVersion >= 1, viewVersion < 1 << 62, let viewCreated = input.f64(), viewCreated.isFinite,
                      let viewUsed = input.f64(), viewUsed.isFinite, let viewChanged = Self.readFilters(&input),
                      // Made in order, each once, among the views made so far.
                      viewSerial >= 1, viewSerial <= serial, viewSerial > (all.views.last?.serial ?? 0),
                      ids.insert(id).inserted, serials.insert(viewSerial).inserted else { return nil }
                all.views.append(View(id: id, serial: viewSerial, version: Int(viewVersion), createdAt: Date(timeIntervalSince1970: viewCreated),
                                      lastUse: Date(timeIntervalSince1970: viewUsed), changedFilters: viewChanged))
            }
            views = all
        }
        if format >= 5, !settings.readDescription(from: &input) { return nil }
        guard input.atEnd else { return nil }
        self.init(version: Int(version), createdAt: Date(timeIntervalSince1970: created),
                  lastUse: Date(timeIntervalSince1970: used), changedFilters: changed, settings: settings, doublesPathBackslashes: doubles,
                  views: views)
    }
}
