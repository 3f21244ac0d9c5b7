import Dispatch
import TreeEngine

/// The snapshot image of a `TreeStore`: binary, little-endian, versioned and
/// checksummed (CRC-32C); docs/STORAGE.md describes it byte by byte.
///
/// An image holds the forest in pre-order without gaps (levels, flags, titles, ids,
/// `data`), the default view's unfiltered expansion (in the flags), every kept filtered
/// view with its query and expansion in the order the store keeps them, the other views
/// (their rule, the nodes whose expansion they changed, their filtered views), the views'
/// selections and their sorts, and an
/// opaque block of the caller's bytes. Loading builds the store straight from the columns
/// (no JSON); a filtered view's matches are computed again from the titles.
///
/// No I/O here: `write` hands the image to a sink in chunks, `load` reads it from
/// memory (a mapped or read file).
public enum StoreImage {
    /// The format version written. Version 1 (before views other than the default one,
    /// without the `VWS_` section), version 2 (a view's filtered rows as every node's
    /// expansion), version 3 (before selections, without the `SEL_` section) and version 4
    /// (before sorted views, without the `SRT_` section) are read too.
    public static let formatVersion: UInt16 = 5
    /// The versions read.
    static let readableVersions: ClosedRange<UInt16> = 1 ... 5
    /// The first six bytes of every image.
    public static let magic: [UInt8] = Array("TSSNAP".utf8)
    /// Bytes of the header, its checksum included.
    static let headerSize = 48
    /// Bytes of a section's tag and length, and of its checksum.
    static let sectionHeadSize = 12, sectionCRCSize = 4
    /// Bytes of the trailer.
    static let trailerSize = 16

    /// The sections, in the order they are written and required.
    enum Section: Int, CaseIterable {
        case caller, levels, flags, titles, ids, data, views, userViews, selections, sorts
        var tag: [UInt8] {
            switch self {
            case .caller: return Array("CALR".utf8)
            case .levels: return Array("LEVL".utf8)
            case .flags: return Array("FLAG".utf8)
            case .titles: return Array("TITL".utf8)
            case .ids: return Array("IDS_".utf8)
            case .data: return Array("DATA".utf8)
            case .views: return Array("VIEW".utf8)
            case .userViews: return Array("VWS_".utf8)
            case .selections: return Array("SEL_".utf8)
            case .sorts: return Array("SRT_".utf8)
            }
        }
        var name: String { String(decoding: tag, as: UTF8.self) }

        /// The sections of an image of format `version`, in order.
        static func of(version: UInt16) -> ArraySlice<Section> {
            switch version {
            case 1: allCases.dropLast(3)
            case 2, 3: allCases.dropLast(2)
            case 4: allCases.dropLast()
            default: allCases[...]
            }
        }
    }
    static let trailerTag: [UInt8] = Array("TEND".utf8)

    /// The bits of the header's flags field; an image with any other bit set is refused.
    enum HeaderFlags {
        /// Some ids are derived (path lists', documents' JSON Pointers): the `IDS_` section
        /// starts with their separator and root prefix, and keeps such an id as its last
        /// segment, the rest being its parent's id.
        static let derivedIDs: UInt32 = 1 << 0
    }

    // MARK: Writing

    /// Writes the image of `store` (not inside a transaction) to `sink`, in chunks of
    /// at most `chunkSize` bytes; `caller` is stored as it is and given back by `load`.
    /// Errors thrown by `sink` end the writing and are rethrown.
    /// - Returns: the image's size in bytes.
    /// - Complexity: O(n + total bytes of titles, ids and data)
    @discardableResult
    public static func write(_ store: TreeStore, caller: [UInt8] = [], chunkSize: Int = 1 << 20,
                             to sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        let compact = store.compact
        let n = compact.count
        let flags = compact.flagsColumn()
        let titleBytes = compact.titleBytes()
        // Derived ids (header flag bit 0): the section starts with the separator and the
        // root prefix, and such an id is kept as its last segment.
        let scheme = compact.derivedIDScheme
        var idBytes = scheme.map { entrySize($0.separator.count) + entrySize($0.rootPrefix.count) } ?? 0
        var dataBytes = 0
        for i in 0 ..< n where flags[i] & (CompactNodeFlags.storedID.rawValue | CompactNodeFlags.hasData.rawValue) != 0 {
            if flags[i] & CompactNodeFlags.storedID.rawValue != 0 { compact.withStoredID(i) { _, bytes in idBytes += entrySize(bytes.count + 1) } }
            if flags[i] & CompactNodeFlags.hasData.rawValue != 0 { compact.withData(i) { dataBytes += entrySize($0.count) } }
        }
        let queries = compact.keptFilters
        let expansionBytes = (n + 7) >> 3
        let viewBytes = queries.reduce(0) { $0 + querySize($1) + expansionBytes }
        let userViews = compact.views.map { id in
            (id: id, rule: compact.depthRule(ofView: id), changes: compact.changes(ofView: id), filters: compact.keptFilters(ofView: id),
             filterChanges: compact.keptFilters(ofView: id).indices.map { compact.changes(ofView: id, keptFilter: $0) })
        }
        var userViewBytes = varintSize(userViews.count)
        for view in userViews {
            userViewBytes += 12 + changesSize(view.changes) + varintSize(view.filters.count)
            for (query, changes) in zip(view.filters, view.filterChanges) {
                userViewBytes += querySize(query) + 1 + min(changesSize(changes), expansionBytes)
            }
        }

        let selections = compact.selections
        let selectionBytes = varintSize(selections.count) + selections.reduce(0) { $0 + 10 + nodesSize($1.toggles) }
        let sorts = compact.viewSorts.map { ($0.view, FilterQueryBytes.bytes(of: $0.sort)) }
        let sortBytes = varintSize(sorts.count) + sorts.reduce(0) { $0 + 8 + $1.1.count }

        var header = [UInt8]()
        header.reserveCapacity(headerSize)
        header += magic
        header.appendLE(formatVersion)
        header.appendLE(UInt32(scheme == nil ? 0 : HeaderFlags.derivedIDs))
        header.appendLE(UInt32(Section.allCases.count))
        header.appendLE(UInt64(n))
        header.appendLE(UInt64(bitPattern: compact.nextGeneratedID))
        header.appendLE(UInt32(queries.count))
        header.appendLE(UInt32(clamping: compact.filteredViewCapacity))
        header.appendLE(UInt32(0))  // reserved
        header.appendLE(CRC32C.checksum(header))
        var trailerCRC = CRC32C()
        trailerCRC.update(header)

        return try withoutActuallyEscaping(sink) { sink in
            var out = Output(chunkSize: chunkSize, sink: sink)
            defer { out.release() }
            try header.withUnsafeBytes { try out.bytes($0) }
            _ = out.takeCRC()

            func section(_ s: Section, length: Int, _ body: (inout Output) throws -> Void) throws {
                try s.tag.withUnsafeBytes { try out.bytes($0) }
                try out.u64(UInt64(length))
                let start = out.total + out.used
                try body(&out)
                precondition(out.total + out.used - start == length, "section \(s.name): length")
                let crc = out.takeCRC()
                try out.u32(crc)
                _ = out.takeCRC()
                withUnsafeBytes(of: crc.littleEndian) { trailerCRC.update($0) }
            }

            try section(.caller, length: caller.count) { out in try caller.withUnsafeBytes { try out.bytes($0) } }
            try section(.levels, length: 4 * n) { out in
                var i = 0
                while i < n {
                    let k = min(n - i, out.buffer.count / 4)
                    try out.fill(4 * k) { compact.levels(from: i, into: $0) }
                    i += k
                }
            }
            try section(.flags, length: n) { out in try flags.withUnsafeBytes { try out.bytes($0) } }
            try section(.titles, length: titleBytes) { out in
                try compact.withTitlesInOrder { pool in
                    if let pool { try out.bytes(pool) } else { try compact.forEachTitle { try out.entry($0) } }
                }
            }
            try section(.ids, length: idBytes) { out in
                if let scheme {
                    try scheme.separator.withUnsafeBytes { try out.entry($0) }
                    try scheme.rootPrefix.withUnsafeBytes { try out.entry($0) }
                }
                for i in 0 ..< n where flags[i] & CompactNodeFlags.storedID.rawValue != 0 {
                    try compact.withStoredID(i) { tag, bytes in
                        try out.varint(bytes.count + 1)
                        try out.u8(tag)
                        try out.bytes(bytes)
                    }
                }
            }
            try section(.data, length: dataBytes) { out in
                for i in 0 ..< n where flags[i] & CompactNodeFlags.hasData.rawValue != 0 {
                    try compact.withData(i) { try out.entry($0) }
                }
            }
            try section(.views, length: viewBytes) { out in
                for (v, query) in queries.enumerated() {
                    try writeQuery(query, to: &out)
                    try compact.expansion(ofKeptView: v).withUnsafeBytes { try out.bytes($0) }
                }
            }
            try section(.userViews, length: userViewBytes) { out in
                try out.varint(userViews.count)
                for view in userViews {
                    try out.u64(view.id.rawValue)
                    try out.u32(UInt32(bitPattern: view.rule))
                    try writeChanges(view.changes, to: &out)
                    try out.varint(view.filters.count)
                    for (v, query) in view.filters.enumerated() {
                        try writeQuery(query, to: &out)
                        // The smaller of its changes from the fresh state and every node's bit.
                        let changes = view.filterChanges[v]
                        if changesSize(changes) <= expansionBytes {
                            try out.u8(0)
                            try writeChanges(changes, to: &out)
                        } else {
                            try out.u8(1)
                            try compact.expansion(ofView: view.id, keptFilter: v).withUnsafeBytes { try out.bytes($0) }
                        }
                    }
                }
            }
            try section(.selections, length: selectionBytes) { out in
                try out.varint(selections.count)
                for selection in selections {
                    try out.u8(selection.view == nil ? 0 : 1)
                    try out.u64(selection.view?.rawValue ?? 0)
                    try out.u8(selection.all ? 1 : 0)
                    try writeNodes(selection.toggles, to: &out)
                }
            }
            try section(.sorts, length: sortBytes) { out in
                try out.varint(sorts.count)
                for (view, bytes) in sorts {
                    try out.u64(view.rawValue)
                    try bytes.withUnsafeBytes { try out.bytes($0) }
                }
            }
            try trailerTag.withUnsafeBytes { try out.bytes($0) }
            try out.u32(trailerCRC.value)
            try out.u64(UInt64(out.total + out.used + 8))
            try out.flush()
            return out.total
        }
    }

    /// The image of `store` in memory.
    public static func image(of store: TreeStore, caller: [UInt8] = []) -> [UInt8] {
        var bytes: [UInt8] = []
        try! write(store, caller: caller) { bytes.append(contentsOf: $0) }
        return bytes
    }

    static func modeCode(_ mode: FilterQuery.Mode) -> UInt8 {
        switch mode {
        case .contains: return 0
        case .prefix: return 1
        case .exact: return 2
        case .words: return 3
        case .fuzzy: return 4
        }
    }

    /// The options byte of a view: bit 0 case-sensitive, bit 1 diacritic-insensitive,
    /// bit 2 leaves only, bit 3 fields and conditions follow (`FilterQueryBytes`; a byte
    /// of 0 or 1 is what images before these options held).
    static func optionBits(_ query: FilterQuery) -> UInt8 {
        (query.caseSensitive ? 1 : 0) | (query.diacriticInsensitive ? 2 : 0) | (query.leavesOnly ? 4 : 0)
            | (FilterQueryBytes.isNeeded(query) ? FilterQueryBytes.flag : 0)
    }

    /// The bytes of a filtered view's query: its text as an entry, the mode, the options
    /// and, when bit 3 says so, its fields and conditions.
    static func querySize(_ query: FilterQuery) -> Int {
        entrySize(query.text.utf8.count) + 2 + (FilterQueryBytes.isNeeded(query) ? FilterQueryBytes.bytes(of: query).count : 0)
    }

    static func writeQuery(_ query: FilterQuery, to out: inout Output) throws {
        var text = query.text
        try text.withUTF8 { try out.entry(UnsafeRawBufferPointer($0)) }
        try out.u8(modeCode(query.mode))
        try out.u8(optionBits(query))
        if FilterQueryBytes.isNeeded(query) { try FilterQueryBytes.bytes(of: query).withUnsafeBytes { try out.bytes($0) } }
    }

    static func mode(_ code: UInt8) -> FilterQuery.Mode? {
        switch code {
        case 0: return .contains
        case 1: return .prefix
        case 2: return .exact
        case 3: return .words
        case 4: return .fuzzy
        default: return nil
        }
    }

    /// The bytes of changed nodes (ascending): a LEB128 count, the indices as LEB128 gaps,
    /// then a bit each of their values.
    static func changesSize(_ changes: [(index: Int, expanded: Bool)]) -> Int {
        nodesSize(changes.map(\.index)) + (changes.count + 7) / 8
    }

    /// The bytes of ascending node numbers as `writeNodes` writes them.
    static func nodesSize(_ nodes: [Int]) -> Int {
        var size = varintSize(nodes.count)
        var previous = -1
        for node in nodes {
            size += varintSize(node - previous - 1)
            previous = node
        }
        return size
    }

    /// Ascending node numbers: a LEB128 count, then each as a LEB128 gap from the one before.
    static func writeNodes(_ nodes: [Int], to out: inout Output) throws {
        try out.varint(nodes.count)
        var previous = -1
        for node in nodes {
            try out.varint(node - previous - 1)
            previous = node
        }
    }

    static func writeChanges(_ changes: [(index: Int, expanded: Bool)], to out: inout Output) throws {
        try writeNodes(changes.map(\.index), to: &out)
        var bits = [UInt8](repeating: 0, count: (changes.count + 7) / 8)
        for (k, change) in changes.enumerated() where change.expanded { bits[k >> 3] |= 1 << UInt8(k & 7) }
        try bits.withUnsafeBytes { try out.bytes($0) }
    }

    /// Changed nodes as `writeChanges` writes them, from offset `o` of `section` on.
    static func readChanges(in section: UnsafeRawBufferPointer, at o: inout Int, count n: Int,
                            of owner: String) throws(StoreImageError) -> [(index: Int, expanded: Bool)] {
        var changes = try readNodes(in: section, at: &o, count: n, of: owner).map { (index: $0, expanded: false) }
        let count = changes.count
        let bitBytes = (count + 7) / 8
        guard section.count - o >= bitBytes else { throw .inconsistent("\(owner): its changes' bits do not fit") }
        for i in changes.indices { changes[i].expanded = section[o + (i >> 3)] & (1 << UInt8(i & 7)) != 0 }
        o += bitBytes
        return changes
    }

    /// Node numbers as `writeNodes` writes them, from offset `o` of `section` on.
    static func readNodes(in section: UnsafeRawBufferPointer, at o: inout Int, count n: Int,
                          of owner: String) throws(StoreImageError) -> [Int] {
        guard let (count, next) = varint(in: section, at: o), count <= n else { throw .inconsistent("\(owner) has a bad count of nodes") }
        o = next
        var nodes: [Int] = []
        nodes.reserveCapacity(count)
        var previous = -1
        for _ in 0 ..< count {
            // A gap past the nodes is wrong anyway; bounded, the sum cannot overflow.
            guard let (gap, next) = varint(in: section, at: o), gap < n else { throw .inconsistent("\(owner): its nodes do not fit") }
            previous += gap + 1
            nodes.append(previous)
            o = next
        }
        return nodes
    }

    /// The bytes of a LEB128 length followed by `length` bytes.
    static func entrySize(_ length: Int) -> Int { varintSize(length) + length }

    /// The bytes of `value` in LEB128.
    static func varintSize(_ value: Int) -> Int {
        var size = 1
        var n = value
        while n >= 0x80 { size += 1; n >>= 7 }
        return size
    }

    // MARK: Loading

    /// The store and caller bytes of an image. Checks everything before building:
    /// magic, version, every checksum, every count; a bad image throws, never traps.
    /// `dataReader` becomes the store's (`TreeStore.dataReader`); filtered views that read
    /// data fields need it.
    /// - Complexity: O(image size + n), plus matching the titles once per filtered view
    public static func load(_ image: UnsafeRawBufferPointer,
                            dataReader: (any NodeDataReader)? = nil) throws(StoreImageError) -> (store: TreeStore, caller: [UInt8]) {
        let reader = Reader(bytes: image)
        // Header.
        let magicPart = UnsafeRawBufferPointer(rebasing: image.prefix(magic.count))
        guard magicPart.elementsEqual(magic.prefix(magicPart.count)) else { throw .badMagic }
        guard image.count >= headerSize else { throw .truncated(at: image.count) }
        let version = reader.u16(at: 6)
        guard readableVersions.contains(version) else { throw .unsupportedVersion(version) }
        let layout = Section.of(version: version)
        guard CRC32C.checksum(UnsafeRawBufferPointer(rebasing: image[0 ..< headerSize - 4])) == reader.u32(at: headerSize - 4) else {
            throw .checksumMismatch(section: "header")
        }
        let headerFlags = reader.u32(at: 8)
        guard headerFlags & ~HeaderFlags.derivedIDs == 0 else { throw .inconsistent("unknown header flags \(headerFlags)") }
        guard Int(reader.u32(at: 12)) == layout.count else {
            throw .inconsistent("\(reader.u32(at: 12)) sections, format version \(version) has \(layout.count)")
        }
        let nodeCount = reader.u64(at: 16)
        guard nodeCount < UInt64(Int32.max) else { throw .inconsistent("\(nodeCount) nodes") }
        let n = Int(nodeCount)
        let nextGeneratedID = Int64(bitPattern: reader.u64(at: 24))
        let viewCount = Int(reader.u32(at: 32))
        let capacity = Int(reader.u32(at: 36))
        var trailerCRC = CRC32C()
        trailerCRC.update(UnsafeRawBufferPointer(rebasing: image[0 ..< headerSize]))

        // Sections: each length checked against the bytes left, then the trailer.
        var sections: [UnsafeRawBufferPointer] = []
        var checks: [(range: Range<Int>, stored: UInt32)] = []
        var o = headerSize
        for _ in layout {
            guard image.count - o >= sectionHeadSize else { throw .truncated(at: image.count) }
            let length = reader.u64(at: o + 4)
            guard length <= UInt64(image.count - o - sectionHeadSize), image.count - o - sectionHeadSize - Int(length) >= sectionCRCSize else {
                throw .truncated(at: image.count)
            }
            let end = o + sectionHeadSize + Int(length)
            let stored = reader.u32(at: end)
            checks.append((o ..< end, stored))
            withUnsafeBytes(of: stored.littleEndian) { trailerCRC.update($0) }
            sections.append(UnsafeRawBufferPointer(rebasing: image[o + sectionHeadSize ..< end]))
            o = end + sectionCRCSize
        }
        guard image.count - o >= trailerSize else { throw .truncated(at: image.count) }
        guard image[o ..< o + 4].elementsEqual(trailerTag) else { throw .inconsistent("no trailer after the last section") }
        guard reader.u32(at: o + 4) == trailerCRC.value else { throw .checksumMismatch(section: "trailer") }
        guard reader.u64(at: o + 8) == UInt64(o + trailerSize) else { throw .inconsistent("the trailer gives another image size") }
        guard image.count == o + trailerSize else { throw .inconsistent("\(image.count - o - trailerSize) bytes after the trailer") }

        // The sections' checksums, and the store built. On a large image both run at
        // once, on two threads: the build checks everything it reads, so a damaged
        // section makes it fail or build nonsense, never trap, and a mismatch wins.
        // (A small image is checked first, and built only when every checksum matches.)
        let bytes = SharedBytes(image)
        let sectionChecks = checks
        let mismatchedSection = { () -> String? in
            for (k, check) in sectionChecks.enumerated()
            where CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes.buffer[check.range])) != check.stored {
                return layout[k].name
            }
            return nil
        }
        let buildStore = { () -> Result<TreeStore, StoreImageError> in
            Result { () throws(StoreImageError) in
                try build(sectionChecks.map { UnsafeRawBufferPointer(rebasing: bytes.buffer[$0.range.dropFirst(sectionHeadSize)]) },
                          count: n, derivedIDs: headerFlags & HeaderFlags.derivedIDs != 0,
                          nextGeneratedID: nextGeneratedID, viewCount: viewCount, capacity: capacity, version: version,
                          dataReader: dataReader)
            }
        }
        let built: Result<TreeStore, StoreImageError>
        if image.count >= parallelThreshold && ParallelWork.activeProcessors > 1 {
            let (mismatch, store) = ParallelWork.both(mismatchedSection, buildStore)
            if let mismatch { throw .checksumMismatch(section: mismatch) }
            built = store
        } else {
            if let mismatch = mismatchedSection() { throw .checksumMismatch(section: mismatch) }
            built = buildStore()
        }
        for (k, s) in layout.enumerated() where !image[checks[k].range.prefix(4)].elementsEqual(s.tag) {
            throw .inconsistent("section \(k) is \(String(decoding: image[checks[k].range.prefix(4)], as: UTF8.self)), expected \(s.name)")
        }
        switch built {
        case .success(let store): return (store, Array(sections[Section.caller.rawValue]))
        case .failure(let error): throw error
        }
    }

    /// Images from this size on have their checksums computed on a second thread.
    static let parallelThreshold = 1 << 20

    /// The store of an image's sections, whatever their bytes.
    static func build(_ sections: [UnsafeRawBufferPointer], count n: Int, derivedIDs: Bool, nextGeneratedID: Int64,
                      viewCount: Int, capacity: Int, version: UInt16,
                      dataReader: (any NodeDataReader)?) throws(StoreImageError) -> TreeStore {
        // Derived ids: the separator and the root prefix come first.
        var ids = sections[Section.ids.rawValue]
        var scheme: (separator: UnsafeRawBufferPointer, rootPrefix: UnsafeRawBufferPointer)? = nil
        if derivedIDs {
            guard let (s, sLength) = entry(in: ids, at: 0), let (r, rLength) = entry(in: ids, at: s + sLength) else {
                throw .inconsistent("the ids section does not start with a separator and a root prefix")
            }
            scheme = (UnsafeRawBufferPointer(rebasing: ids[s ..< s + sLength]), UnsafeRawBufferPointer(rebasing: ids[r ..< r + rLength]))
            ids = UnsafeRawBufferPointer(rebasing: ids[(r + rLength)...])
        }

        // Filtered views: query, options, expansion.
        let viewSection = sections[Section.views.rawValue]
        var v = 0
        let views = try filteredViews(viewCount, in: viewSection, at: &v, count: n, of: "the default view")
        guard v == viewSection.count else { throw .inconsistent("\(viewSection.count - v) bytes after the filtered views") }

        var columns = CompactColumns(
            count: n, levels: sections[Section.levels.rawValue], flags: sections[Section.flags.rawValue],
            titles: sections[Section.titles.rawValue], ids: ids, derivedIDScheme: scheme,
            data: sections[Section.data.rawValue], nextGeneratedID: nextGeneratedID,
            filteredViewCapacity: capacity, views: views)
        if sections.count > Section.userViews.rawValue {
            columns.userViews = try userViews(sections[Section.userViews.rawValue], count: n, version: version)
        }
        if sections.count > Section.selections.rawValue {
            columns.selections = try selections(sections[Section.selections.rawValue], count: n)
        }
        if sections.count > Section.sorts.rawValue {
            columns.sorts = try sorts(sections[Section.sorts.rawValue])
        }
        do {
            return try TreeStore(compact: columns, dataReader: dataReader)
        } catch {
            throw .inconsistent(error.message)
        }
    }

    /// `count` filtered views (query, options, expansion) from offset `o` of `section` on.
    static func filteredViews(_ count: Int, in section: UnsafeRawBufferPointer, at o: inout Int, count n: Int,
                              of owner: String) throws(StoreImageError) -> [(query: FilterQuery, expansion: UnsafeRawBufferPointer)] {
        var views: [(query: FilterQuery, expansion: UnsafeRawBufferPointer)] = []
        let expansionBytes = (n + 7) >> 3
        for k in 0 ..< count {
            let query = try filterQuery(in: section, at: &o, of: "filtered view \(k) of \(owner)")
            guard section.count - o >= expansionBytes else { throw .inconsistent("filtered view \(k) of \(owner) does not fit its section") }
            views.append((query, UnsafeRawBufferPointer(rebasing: section[o ..< o + expansionBytes])))
            o += expansionBytes
        }
        return views
    }

    /// A filtered view's text, mode and options from offset `o` of `section` on.
    static func filterQuery(in section: UnsafeRawBufferPointer, at o: inout Int, of owner: String) throws(StoreImageError) -> FilterQuery {
        guard let (start, length) = entry(in: section, at: o), section.count - start - length >= 2 else {
            throw .inconsistent("\(owner) does not fit its section")
        }
        let textBytes = UnsafeRawBufferPointer(rebasing: section[start ..< start + length])
        let text = String(decoding: textBytes, as: UTF8.self)
        guard text.utf8.elementsEqual(textBytes) else { throw .inconsistent("\(owner) has a bad text") }
        let p = start + length
        let options = section[p + 1]
        guard let mode = mode(section[p]), options & ~15 == 0 else { throw .inconsistent("\(owner) has bad options") }
        o = p + 2
        var fields: [NodeField] = [.title], conditions: [FieldCondition] = []
        if options & FilterQueryBytes.flag != 0 {
            guard let extra = FilterQueryBytes.read(section, at: &o) else { throw .inconsistent("\(owner) has bad fields or conditions") }
            (fields, conditions) = extra
        }
        guard !text.isEmpty || !conditions.isEmpty else { throw .inconsistent("\(owner) has a bad text") }
        return FilterQuery(text, mode: mode, caseSensitive: options & 1 != 0, diacriticInsensitive: options & 2 != 0,
                           leavesOnly: options & 4 != 0, fields: fields, conditions: conditions)
    }

    /// The views of the `VWS_` section: for each its id, rule, changed nodes and filtered views.
    static func userViews(_ section: UnsafeRawBufferPointer, count n: Int, version: UInt16) throws(StoreImageError) -> [CompactView] {
        guard let (viewCount, first) = varint(in: section, at: 0) else { throw .inconsistent("the views section has no count") }
        var o = first
        var views: [CompactView] = []
        for k in 0 ..< viewCount {
            guard section.count - o >= 12 else { throw .inconsistent("view \(k) does not fit its section") }
            let id = ViewID(Reader(bytes: section).u64(at: o))
            let rule = Int32(bitPattern: Reader(bytes: section).u32(at: o + 8))
            o += 12
            let changes = try readChanges(in: section, at: &o, count: n, of: "view \(id)")
            guard let (filterCount, afterCount) = varint(in: section, at: o) else { throw .inconsistent("view \(id) has no filter count") }
            o = afterCount
            let filtered: [(query: FilterQuery, expansion: CompactView.FilteredExpansion)]
            if version < 3 {
                filtered = try filteredViews(filterCount, in: section, at: &o, count: n, of: "view \(id)").map { ($0.query, .bits($0.expansion)) }
            } else {
                filtered = try (0 ..< filterCount).map { (k) throws(StoreImageError) in
                    let query = try filterQuery(in: section, at: &o, of: "filtered view \(k) of view \(id)")
                    guard o < section.count else { throw .inconsistent("filtered view \(k) of view \(id) does not fit its section") }
                    let kind = section[o]
                    o += 1
                    switch kind {
                    case 0: return (query, .changes(try readChanges(in: section, at: &o, count: n, of: "filtered view \(k) of view \(id)")))
                    case 1:
                        let bytes = (n + 7) >> 3
                        guard section.count - o >= bytes else { throw .inconsistent("filtered view \(k) of view \(id) does not fit its section") }
                        defer { o += bytes }
                        return (query, .bits(UnsafeRawBufferPointer(rebasing: section[o ..< o + bytes])))
                    default: throw .inconsistent("filtered view \(k) of view \(id) has an unknown kind \(kind)")
                    }
                }
            }
            views.append(CompactView(id: id, depthRule: rule, changes: changes, filtered: filtered))
        }
        guard o == section.count else { throw .inconsistent("\(section.count - o) bytes after the views") }
        return views
    }

    /// The sorts of the `SRT_` section: for each sorted view its id and its sort.
    static func sorts(_ section: UnsafeRawBufferPointer) throws(StoreImageError) -> [(view: ViewID, sort: SortKeys)] {
        guard let (count, first) = varint(in: section, at: 0) else { throw .inconsistent("the sorts section has no count") }
        var o = first
        var sorts: [(view: ViewID, sort: SortKeys)] = []
        for k in 0 ..< count {
            guard section.count - o >= 8 else { throw .inconsistent("sort \(k) does not fit its section") }
            let view = ViewID(Reader(bytes: section).u64(at: o))
            o += 8
            guard let sort = FilterQueryBytes.readSort(section, at: &o) else { throw .inconsistent("the sort of view \(view) is malformed") }
            sorts.append((view, sort))
        }
        guard o == section.count else { throw .inconsistent("\(section.count - o) bytes after the sorts") }
        return sorts
    }

    /// The selections of the `SEL_` section: for each its view, what a root takes, and its toggles.
    static func selections(_ section: UnsafeRawBufferPointer, count n: Int) throws(StoreImageError) -> [CompactSelection] {
        guard let (count, first) = varint(in: section, at: 0) else { throw .inconsistent("the selections section has no count") }
        var o = first
        var selections: [CompactSelection] = []
        for k in 0 ..< count {
            guard section.count - o >= 10, section[o] <= 1, section[o + 9] <= 1 else { throw .inconsistent("selection \(k) does not fit its section") }
            let view = section[o] == 0 ? nil : ViewID(Reader(bytes: section).u64(at: o + 1))
            let all = section[o + 9] == 1
            o += 10
            selections.append(CompactSelection(view: view, all: all, toggles: try readNodes(in: section, at: &o, count: n, of: "selection \(k)")))
        }
        guard o == section.count else { throw .inconsistent("\(section.count - o) bytes after the selections") }
        return selections
    }

    /// The start and length of the entry (a LEB128 length, then the bytes) at offset
    /// `o` of `bytes`, or nil when it does not fit.
    static func entry(in bytes: UnsafeRawBufferPointer, at o: Int) -> (start: Int, length: Int)? {
        guard let (length, i) = varint(in: bytes, at: o) else { return nil }
        return length <= bytes.count - i ? (i, length) : nil
    }

    /// The LEB128 value (at most 5 bytes) at offset `o` of `bytes` and the offset after it,
    /// or nil when it does not fit.
    static func varint(in bytes: UnsafeRawBufferPointer, at o: Int) -> (value: Int, next: Int)? {
        var i = o
        var value = 0
        var shift = 0
        while true {
            guard i < bytes.count, shift <= 28 else { return nil }
            let b = bytes[i]
            i += 1
            value |= Int(b & 0x7F) << shift
            if b < 0x80 { return (value, i) }
            shift += 7
        }
    }
}

/// Why an image was not loaded.
public enum StoreImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes do not start with "TSSNAP": not an image.
    case badMagic
    /// An image of a format version this build does not read.
    case unsupportedVersion(UInt16)
    /// The image ends early: it has only `at` bytes.
    case truncated(at: Int)
    /// A checksum does not match: of the header, of a section (by its tag), or the trailer's.
    case checksumMismatch(section: String)
    /// Checksums match but the contents do not describe a store.
    case inconsistent(String)

    public var description: String {
        switch self {
        case .badMagic: return "not a snapshot image (bad magic)"
        case .unsupportedVersion(let v): return "snapshot format version \(v) is not supported (this build reads versions \(StoreImage.readableVersions.lowerBound) to \(StoreImage.readableVersions.upperBound))"
        case .truncated(let n): return "snapshot image truncated at \(n) bytes"
        case .checksumMismatch(let s): return "snapshot checksum mismatch in \(s)"
        case .inconsistent(let m): return "inconsistent snapshot image: \(m)"
        }
    }
}

// MARK: Bytes

extension Array where Element == UInt8 {
    mutating func appendLE<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

/// Little-endian reads at offsets the caller has checked.
struct Reader {
    let bytes: UnsafeRawBufferPointer
    func u16(at o: Int) -> UInt16 { UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: o, as: UInt16.self)) }
    func u32(at o: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: o, as: UInt32.self)) }
    func u64(at o: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: o, as: UInt64.self)) }
}

/// A chunk buffer in front of the sink that keeps a running CRC-32C of what passed.
struct Output {
    let sink: (UnsafeRawBufferPointer) throws -> Void
    let buffer: UnsafeMutableRawBufferPointer
    /// Bytes in `buffer`.
    var used = 0
    /// Bytes handed to the sink.
    var total = 0
    /// `buffer[crcFrom ..< used]` is not in `crc` yet.
    private var crcFrom = 0
    private var crc = CRC32C()

    init(chunkSize: Int, sink: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.sink = sink
        buffer = .allocate(byteCount: max(64, chunkSize), alignment: 8)
    }

    func release() { buffer.deallocate() }

    mutating func flush() throws {
        crc.update(UnsafeRawBufferPointer(rebasing: buffer[crcFrom ..< used]))
        if used > 0 { try sink(UnsafeRawBufferPointer(rebasing: buffer[0 ..< used])) }
        total += used
        used = 0
        crcFrom = 0
    }

    /// The checksum of the bytes since the last call; starts the next one.
    mutating func takeCRC() -> UInt32 {
        crc.update(UnsafeRawBufferPointer(rebasing: buffer[crcFrom ..< used]))
        crcFrom = used
        defer { crc = CRC32C() }
        return crc.value
    }

    @inline(__always) mutating func room(_ k: Int) throws { if buffer.count - used < k { try flush() } }

    /// Lets `body` write exactly `k` bytes (at most the buffer's size) in place.
    mutating func fill(_ k: Int, _ body: (UnsafeMutableRawBufferPointer) -> Void) throws {
        try room(k)
        body(UnsafeMutableRawBufferPointer(rebasing: buffer[used ..< used + k]))
        used += k
    }

    mutating func u8(_ v: UInt8) throws {
        try room(1)
        buffer[used] = v
        used += 1
    }

    mutating func u32(_ v: UInt32) throws {
        try room(4)
        buffer.storeBytes(of: v.littleEndian, toByteOffset: used, as: UInt32.self)
        used += 4
    }

    mutating func u64(_ v: UInt64) throws {
        try room(8)
        buffer.storeBytes(of: v.littleEndian, toByteOffset: used, as: UInt64.self)
        used += 8
    }

    mutating func varint(_ value: Int) throws {
        try room(10)
        var n = UInt(value)
        while n >= 0x80 {
            buffer[used] = UInt8(truncatingIfNeeded: n) | 0x80
            used += 1
            n >>= 7
        }
        buffer[used] = UInt8(n)
        used += 1
    }

    mutating func bytes(_ b: UnsafeRawBufferPointer) throws {
        var rest = b
        while !rest.isEmpty {
            if used == buffer.count { try flush() }
            let k = min(rest.count, buffer.count - used)
            UnsafeMutableRawBufferPointer(rebasing: buffer[used ..< used + k]).copyMemory(from: UnsafeRawBufferPointer(rebasing: rest[0 ..< k]))
            used += k
            rest = UnsafeRawBufferPointer(rebasing: rest[k...])
        }
    }

    /// A LEB128 length and the bytes.
    mutating func entry(_ b: UnsafeRawBufferPointer) throws {
        try varint(b.count)
        try bytes(b)
    }
}
