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
        var openEnds: [Int] = []  // subtree ends of the nodes whose children are being written
        var first = true  // nothing written yet in the current array
        for p in 0 ..< count {
            while let end = openEnds.last, end <= p {
                openEnds.removeLast()
                out.raw("]}")
                first = false
            }
            if !first { out.byte(UInt8(ascii: ",")) }
            let node = node(atPosition: p)
            let size = subtreeCount(atPosition: p)
            out.raw("{\"id\":")
            writeID(of: node, to: &out)
            out.raw(",\"title\":")
            writeTitle(of: node, to: &out)
            if isExpandedUnfiltered(node) { out.raw(",\"expanded\":true") }
            if declaresChildren(node) { out.raw(",\"hasChildren\":true") }
            if hasData(node) {
                out.raw(",\"data\":")
                writeData(of: node, to: &out)
            }
            if size > 1 {
                out.raw(",\"children\":[")
                openEnds.append(p + size)
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
        for _ in openEnds { out.raw("]}") }
        out.raw("]}")
        try emit(out.bytes)
    }
}
