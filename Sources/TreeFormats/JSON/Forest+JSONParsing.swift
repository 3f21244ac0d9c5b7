import TreeEngine

extension Forest {
    /// Builds a forest from an upload document: a bare array of nodes, or an object
    /// whose `nodes` member is that array.
    /// - Returns: the forest and the document's other top-level members, for the caller to check.
    /// - Complexity: O(document size)
    public static func parse(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits = ForestLimits())
        throws(TreeInputError) -> (forest: Forest, members: JSONMembers) {
        var builder = ForestBuilder(limits: limits, expectedBytes: bytes.count)
        let members = try NodesDocumentParser.parse(bytes, into: &builder, options: NodesDocumentOptions(maxDepth: limits.maxDepth))
        return (builder.finish(), members)
    }

    /// Builds a forest from an upload document given as an array of bytes.
    public static func parse(_ bytes: [UInt8], limits: ForestLimits = ForestLimits()) throws(TreeInputError)
        -> (forest: Forest, members: JSONMembers) {
        let result: Result<(forest: Forest, members: JSONMembers), TreeInputError> =
            bytes.withUnsafeBytes { raw in
                do throws(TreeInputError) { return .success(try parse(raw, limits: limits)) } catch { return .failure(error) }
            }
        return try result.get()
    }
}

extension TreeStore {
    /// Parses an insert document (`{"nodes": [...], ...}` or a bare array) into a
    /// fragment whose ids are checked against this forest.
    /// - Returns: the fragment and the document's other top-level members.
    /// - Complexity: O(document size)
    public func parseFragment(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits) throws(TreeInputError)
        -> (fragment: Forest, members: JSONMembers) {
        try Self.parseFragment(bytes, into: fragmentBuilder(limits: limits, expectedBytes: bytes.count), limits: limits)
    }

    /// Parses an insert document as `parseFragment` does, before it is known which store
    /// it goes into: its ids are checked among themselves, and `admits` checks the fragment
    /// against the store it then goes into.
    public static func parseDetachedFragment(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits) throws(TreeInputError)
        -> (fragment: Forest, members: JSONMembers) {
        try parseFragment(bytes, into: detachedFragmentBuilder(limits: limits, expectedBytes: bytes.count), limits: limits)
    }

    private static func parseFragment(_ bytes: UnsafeRawBufferPointer, into builder: ForestBuilder, limits: ForestLimits) throws(TreeInputError)
        -> (fragment: Forest, members: JSONMembers) {
        var builder = builder
        let members = try NodesDocumentParser.parse(bytes, into: &builder, options: NodesDocumentOptions(maxDepth: limits.maxDepth))
        return (builder.finish(), members)
    }
}
