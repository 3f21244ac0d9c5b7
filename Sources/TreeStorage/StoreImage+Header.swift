extension StoreImage {
    /// The number of nodes an image holds, read from its header alone (its first 48 bytes,
    /// bytes 16 ..< 24): for accounting before a load. Nil unless the bytes start with the
    /// magic, a format version this build reads and a header whose CRC matches.
    /// - Complexity: O(1)
    public static func nodeCount(header: UnsafeRawBufferPointer) -> Int? {
        guard header.count >= headerSize, header.prefix(magic.count).elementsEqual(magic) else { return nil }
        let reader = Reader(bytes: header)
        guard readableVersions.contains(reader.u16(at: 6)),
              CRC32C.checksum(UnsafeRawBufferPointer(rebasing: header[0 ..< headerSize - 4])) == reader.u32(at: headerSize - 4)
        else { return nil }
        let count = reader.u64(at: 16)
        return count < UInt64(Int32.max) ? Int(count) : nil
    }
}
