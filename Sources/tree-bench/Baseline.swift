import TreeEngine

/// The seed library's algorithm, for a side-by-side comparison in the same run: an
/// object per node with a children array, and the visible rows re-flattened depth
/// first after every change (what SwiftListTreeDataSource does).
final class BaselineNode {
    let title: [UInt8]
    var children: [BaselineNode] = []
    unowned(unsafe) var parent: BaselineNode?
    var isExpanded = false

    init(title: [UInt8], parent: BaselineNode?) {
        self.title = title
        self.parent = parent
    }
}

struct Baseline {
    var roots: [BaselineNode] = []
    var all: [BaselineNode] = []
    var shown: [BaselineNode] = []

    /// Builds the object tree from a forest (children lists, as the seed's items hold them),
    /// walking it by handle, depth first.
    init(_ forest: Forest) {
        all.reserveCapacity(forest.count)
        var stack: [(handle: NodeHandle, parent: BaselineNode?)] = forest.children(of: nil).reversed().map { ($0, nil) }
        while let (handle, parent) = stack.popLast() {
            let node = BaselineNode(title: forest.withTitle(of: handle) { Array($0) }, parent: parent)
            if let parent { parent.children.append(node) } else { roots.append(node) }
            all.append(node)
            stack.append(contentsOf: forest.children(of: handle).reversed().map { ($0, node) })
        }
    }

    /// Depth first over expanded nodes, skipping excluded ones: the seed's reload.
    mutating func reflatten(isIncluded: (BaselineNode) -> Bool = { _ in true }) {
        shown.removeAll(keepingCapacity: true)
        var stack: [BaselineNode] = roots.reversed()
        while let node = stack.popLast() {
            guard isIncluded(node) else { continue }
            shown.append(node)
            if node.isExpanded { stack.append(contentsOf: node.children.reversed()) }
        }
    }

    mutating func expandAll() {
        for node in all { node.isExpanded = !node.children.isEmpty }
        reflatten()
    }

    mutating func collapseAll() {
        for node in all { node.isExpanded = false }
        reflatten()
    }

    mutating func toggle(_ node: BaselineNode) {
        node.isExpanded.toggle()
        reflatten()
    }

    /// filterItemsKeepingParents: collapse all, find matches, expand their ancestors, reflatten.
    mutating func filter(_ needle: [UInt8]) -> Int {
        for node in all { node.isExpanded = false }
        let lowered = needle.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 }
        func matches(_ node: BaselineNode) -> Bool {
            let title = node.title.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 }
            guard title.count >= lowered.count else { return false }
            for i in 0 ... title.count - lowered.count where title[i] == lowered[0] && Array(title[i ..< i + lowered.count]) == lowered {
                return true
            }
            return false
        }
        let targets = all.filter(matches)
        var ancestors = Set<ObjectIdentifier>()
        for node in targets {
            var p = node.parent
            while let q = p, ancestors.insert(ObjectIdentifier(q)).inserted { q.isExpanded = true; p = q.parent }
        }
        let matched = Set(targets.map(ObjectIdentifier.init))
        reflatten { node in
            guard let parent = node.parent else { return matched.contains(ObjectIdentifier(node)) || ancestors.contains(ObjectIdentifier(node)) }
            if ancestors.contains(ObjectIdentifier(node)) { return true }
            return ancestors.contains(ObjectIdentifier(parent)) ? matched.contains(ObjectIdentifier(node)) : true
        }
        return shown.count
    }
}
