import Foundation
import TreeEngine

/// What a snapshot keeps of a session beside its store: the caller block of the image
/// (`StoreImage.write(_:caller:)`).
///
/// Layout (little-endian): format byte `2`, version (UInt64), `createdAt` and last use
/// (seconds since 1970, Float64), then the filtered views that may differ from a fresh
/// build of themselves (UInt32 count, each view as in a journal entry), then the TTL its
/// upload asked for (Int64 seconds, 0 never, -1 none: the server's), then (format `3`) a
/// byte of flags: 1, its path-list ids double every backslash. Format `1`, written before
/// uploads could ask for a TTL, ends after the views; formats 1 and 2, written before
/// path-list ids doubled a backslash only where needed, read as doubling; both still read.
struct SessionMetadata: Equatable {
    var version: Int
    var createdAt: Date
    var lastUse: Date
    var changedFilters: Set<FilterQuery>
    /// nil: the server's `--session-ttl`.
    var ttl: Duration? = nil
    var doublesPathBackslashes = false

    static let format: UInt8 = 3

    var encoded: [UInt8] {
        var out = ByteWriter()
        out.u8(SessionMetadata.format)
        out.u64(UInt64(version))
        out.f64(createdAt.timeIntervalSince1970)
        out.f64(lastUse.timeIntervalSince1970)
        // In a stable order, so that the same session gives the same bytes.
        func key(_ q: FilterQuery) -> (String, String, Int) {
            (q.text, q.mode.rawValue, (q.caseSensitive ? 1 : 0) | (q.diacriticInsensitive ? 2 : 0) | (q.leavesOnly ? 4 : 0))
        }
        let changed = changedFilters.sorted { key($0) < key($1) }
        out.u32(UInt32(changed.count))
        for query in changed { out.view(query) }
        out.i64(ttl.map { $0.components.seconds } ?? -1)
        out.u8(doublesPathBackslashes ? 1 : 0)
        return out.bytes
    }

    init(version: Int, createdAt: Date, lastUse: Date, changedFilters: Set<FilterQuery>, ttl: Duration? = nil,
         doublesPathBackslashes: Bool = false) {
        self.version = version
        self.createdAt = createdAt
        self.lastUse = lastUse
        self.changedFilters = changedFilters
        self.ttl = ttl
        self.doublesPathBackslashes = doublesPathBackslashes
    }

    /// Decodes a caller block; nil when it is not one this version writes.
    init?(_ bytes: [UInt8]) {
        var input = ByteReader(bytes)
        guard let format = input.u8(), (1 ... SessionMetadata.format).contains(format), let version = input.u64(), version >= 1, version < 1 << 62,
              let created = input.f64(), created.isFinite, let used = input.f64(), used.isFinite,
              let count = input.u32(), count <= 1 << 16 else { return nil }
        var changed = Set<FilterQuery>()
        for _ in 0 ..< count {
            guard let query = input.view(), let query else { return nil }
            changed.insert(query)
        }
        var ttl: Duration? = nil
        if format >= 2 {
            guard let seconds = input.i64(), seconds >= -1 else { return nil }
            ttl = seconds < 0 ? nil : .seconds(seconds)
        }
        var doubles = true
        if format >= 3 {
            guard let flags = input.u8(), flags <= 1 else { return nil }
            doubles = flags == 1
        }
        guard input.atEnd else { return nil }
        self.init(version: Int(version), createdAt: Date(timeIntervalSince1970: created),
                  lastUse: Date(timeIntervalSince1970: used), changedFilters: changed, ttl: ttl, doublesPathBackslashes: doubles)
    }
}
