/// Nodes read as a list of `(node, parent)` pairs, in input order, visited depth-first:
/// each parent before its children, siblings in input order. The row formats (CSV,
/// NDJSON) and path lists read their nodes this way and build the forest through
/// `forEach`; no recursion, so any depth works.
struct PreOrder {
    /// The first child of each node, -1 for none.
    private var firstChild: [Int32]
    /// The next sibling of each node, -1 for the last.
    private var nextSibling: [Int32]
    /// The roots, in input order.
    private var roots: [Int32] = []

    /// Links `parents` (parent index of each node, -1 for a root) into child lists.
    /// Every parent index must be -1 or a valid index.
    /// - Complexity: O(n)
    init(parents: UnsafeBufferPointer<Int32>) {
        let n = parents.count
        firstChild = Array(repeating: -1, count: n)
        nextSibling = Array(repeating: -1, count: n)
        // Appending after the last child of each parent keeps input order.
        var lastChild = Array(repeating: Int32(-1), count: n)
        for i in 0 ..< n {
            let p = Int(parents[i])
            let node = Int32(i)
            if p < 0 {
                roots.append(node)
            } else if lastChild[p] < 0 {
                firstChild[p] = node
                lastChild[p] = node
            } else {
                nextSibling[Int(lastChild[p])] = node
                lastChild[p] = node
            }
        }
    }

    /// Calls `begin(node, depth)` for each node reachable from a root, in pre-order, and
    /// `end(node)` once its subtree is done. Nodes on a parent cycle are never reached.
    /// - Returns: how many nodes were visited (fewer than all: some are on a cycle).
    /// - Complexity: O(n)
    func forEach<E: Error>(begin: (_ node: Int32, _ depth: Int) throws(E) -> Void,
                           end: (_ node: Int32) throws(E) -> Void) throws(E) -> Int {
        var visited = 0
        var stack: [Int32] = []
        for root in roots {
            var node = root
            while true {
                try begin(node, stack.count)
                visited += 1
                let child = firstChild[Int(node)]
                if child >= 0 {
                    stack.append(node)
                    node = child
                    continue
                }
                try end(node)
                // Climb until a node with a next sibling.
                var next = nextSibling[Int(node)]
                while next < 0, let parent = stack.popLast() {
                    try end(parent)
                    next = nextSibling[Int(parent)]
                }
                if next < 0 { break }
                node = next
            }
        }
        return visited
    }

    /// A node on a parent cycle, when `forEach` visited fewer than all nodes: the first
    /// node in input order that lies on the cycle above the first unvisited node.
    /// `visited(i)` says whether `forEach` reached node `i`.
    /// - Complexity: O(n)
    static func cycleMember(parents: UnsafeBufferPointer<Int32>, visited: (Int32) -> Bool) -> Int32? {
        guard let start = (0 ..< Int32(parents.count)).first(where: { !visited($0) }) else { return nil }
        // Walk up with Floyd's two pointers until they meet on the cycle.
        var slow = start, fast = start
        repeat {
            slow = parents[Int(slow)]
            fast = parents[Int(parents[Int(fast)])]
        } while slow != fast
        var member = slow
        var node = parents[Int(slow)]
        while node != slow {
            member = min(member, node)
            node = parents[Int(node)]
        }
        return member
    }
}
