extension Forest {
    /// Builds a forest from an upload document: a bare array of nodes, or an object
    /// whose `nodes` member is that array.
    /// - Returns: the forest and the document's other top-level members, for the caller to check.
    /// - Complexity: O(document size)
    public static func parse(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits = ForestLimits())
        throws(TreeInputError) -> (forest: Forest, members: [(key: String, value: JSONValue)]) {
        try parse(bytes, limits: limits, asFragment: false, existingCount: 0, isTakenOutside: { _ in false })
    }

    /// Builds a forest or, `asFragment`, nodes to insert into a forest of
    /// `existingCount` nodes whose ids `isTakenOutside` knows.
    static func parse(_ bytes: UnsafeRawBufferPointer, limits: ForestLimits, asFragment: Bool, existingCount: Int,
                      isTakenOutside: @escaping (UnsafeRawBufferPointer) -> Bool)
        throws(TreeInputError) -> (forest: Forest, members: [(key: String, value: JSONValue)]) {
        var builder = ForestBuilder(limits: limits, expectedBytes: bytes.count, existingCount: existingCount,
                                    isTakenOutside: isTakenOutside)
        let members = try NodesDocumentParser.parse(bytes, into: &builder, options: NodesDocumentOptions(maxDepth: limits.maxDepth))
        return (builder.finish(asFragment: asFragment), members)
    }

    /// Builds a forest from an upload document given as an array of bytes.
    public static func parse(_ bytes: [UInt8], limits: ForestLimits = ForestLimits()) throws(TreeInputError)
        -> (forest: Forest, members: [(key: String, value: JSONValue)]) {
        let result: Result<(forest: Forest, members: [(key: String, value: JSONValue)]), TreeInputError> =
            bytes.withUnsafeBytes { raw in
                do throws(TreeInputError) { return .success(try parse(raw, limits: limits)) } catch { return .failure(error) }
            }
        return try result.get()
    }
}
