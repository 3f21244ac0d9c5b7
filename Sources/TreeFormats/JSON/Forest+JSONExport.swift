import TreeEngine

extension Forest {
    /// Writes the forest in the upload format, `{"nodes":[...]}`, handing out the
    /// bytes in chunks of about `chunkSize` so a large tree never sits in one buffer.
    /// Every node carries its id (generated ones as strings), so posting the output
    /// back recreates the same forest; `expanded` is the unfiltered view's state.
    /// - Complexity: O(n + total bytes), iterative at any depth
    public func export(chunkSize: Int = 1 << 16, _ emit: ([UInt8]) throws -> Void) rethrows {
        var out = JSONWriter(reservingCapacity: chunkSize + 4096)
        out.raw("{\"nodes\":[")
        var openLevels = 0  // the nodes whose children are being written
        var first = true  // nothing written yet in the current array
        try forEachNode { node, level in
            while openLevels > level {
                openLevels -= 1
                out.raw("]}")
                first = false
            }
            if !first { out.byte(UInt8(ascii: ",")) }
            out.raw("{\"id\":")
            writeID(of: node, to: &out)
            out.raw(",\"title\":")
            writeTitle(of: node, to: &out)
            writeOptionalMembers(of: node, to: &out)
            if hasChildNodes(node) {
                out.raw(",\"children\":[")
                openLevels += 1
                first = true
            } else {
                out.byte(UInt8(ascii: "}"))
                first = false
            }
            if out.bytes.count >= chunkSize {
                try emit(out.bytes)
                out.bytes.removeAll(keepingCapacity: true)
            }
        }
        for _ in 0 ..< openLevels { out.raw("]}") }
        out.raw("]}")
        try emit(out.bytes)
    }
}
