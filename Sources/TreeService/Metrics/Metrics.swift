import Foundation
import Synchronization

/// Request counters and a latency histogram, rendered in the Prometheus text format.
final class Metrics: Sendable {
    static let buckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private struct State {
        var requests: [String: Int] = [:]  // "route\u{0}method\u{0}status"
        var bucketCounts = [Int](repeating: 0, count: Metrics.buckets.count)
        var count = 0
        var sum = 0.0
    }
    private let state = Mutex(State())

    func record(route: String, method: String, status: Int, seconds: Double) {
        state.withLock { s in
            s.requests["\(route)\u{0}\(method)\u{0}\(status)", default: 0] += 1
            for (i, bound) in Metrics.buckets.enumerated() where seconds <= bound { s.bucketCounts[i] += 1 }
            s.count += 1
            s.sum += seconds
        }
    }

    func render(sessions: Int, nodes: Int) -> [UInt8] {
        let s = state.withLock { $0 }
        var text = "# HELP tree_http_requests_total Requests answered, by route template, method and status.\n"
        text += "# TYPE tree_http_requests_total counter\n"
        for (key, n) in s.requests.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false)
            text += "tree_http_requests_total{route=\"\(parts[0])\",method=\"\(parts[1])\",status=\"\(parts[2])\"} \(n)\n"
        }
        text += "# HELP tree_http_request_duration_seconds Time to produce a response.\n"
        text += "# TYPE tree_http_request_duration_seconds histogram\n"
        for (i, bound) in Metrics.buckets.enumerated() {
            text += "tree_http_request_duration_seconds_bucket{le=\"\(bound)\"} \(s.bucketCounts[i])\n"
        }
        text += "tree_http_request_duration_seconds_bucket{le=\"+Inf\"} \(s.count)\n"
        text += "tree_http_request_duration_seconds_sum \(s.sum)\n"
        text += "tree_http_request_duration_seconds_count \(s.count)\n"
        text += "# HELP tree_sessions Live sessions.\n# TYPE tree_sessions gauge\ntree_sessions \(sessions)\n"
        text += "# HELP tree_nodes Nodes over all sessions.\n# TYPE tree_nodes gauge\ntree_nodes \(nodes)\n"
        text += "# HELP process_resident_memory_bytes Resident memory.\n# TYPE process_resident_memory_bytes gauge\n"
        text += "process_resident_memory_bytes \(Metrics.residentBytes())\n"
        return Array(text.utf8)
    }

    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }
}
