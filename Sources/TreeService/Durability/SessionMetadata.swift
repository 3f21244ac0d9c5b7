import Foundation
import TreeEngine

/// What a snapshot keeps of a session beside its store: the caller block of the image
/// (`StoreImage.write(_:caller:)`).
///
/// Layout (little-endian): format byte `1`, version (UInt64), `createdAt` and last use
/// (seconds since 1970, Float64), then the filtered views that may differ from a fresh
/// build of themselves (UInt32 count, each view as in a journal entry).
struct SessionMetadata: Equatable {
    var version: Int
    var createdAt: Date
    var lastUse: Date
    var changedFilters: Set<FilterQuery>

    static let format: UInt8 = 1

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
        return out.bytes
    }

    init(version: Int, createdAt: Date, lastUse: Date, changedFilters: Set<FilterQuery>) {
        self.version = version
        self.createdAt = createdAt
        self.lastUse = lastUse
        self.changedFilters = changedFilters
    }

    /// Decodes a caller block; nil when it is not one this version writes.
    init?(_ bytes: [UInt8]) {
        var input = ByteReader(bytes)
        guard input.u8() == SessionMetadata.format, let version = input.u64(), version >= 1, version < 1 << 62,
              let created = input.f64(), created.isFinite, let used = input.f64(), used.isFinite,
              let count = input.u32(), count <= 1 << 16 else { return nil }
        var changed = Set<FilterQuery>()
        for _ in 0 ..< count {
            guard let query = input.view(), let query else { return nil }
            changed.insert(query)
        }
        guard input.atEnd else { return nil }
        self.init(version: Int(version), createdAt: Date(timeIntervalSince1970: created),
                  lastUse: Date(timeIntervalSince1970: used), changedFilters: changed)
    }
}
