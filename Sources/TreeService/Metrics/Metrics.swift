import Foundation
import Synchronization

/// Request counters and a latency histogram, rendered in the Prometheus text format.
/// Lock-free: every request bumps a few atomics, so metrics never serialize requests.
final class Metrics: Sendable {
    static let buckets: [Duration] = [.microseconds(500), .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10),
                                      .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
                                      .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10)]
    /// The router's templates, then the label of requests that matched none.
    static let routes = Route.Template.allCases.map(\.rawValue) + [Route.unmatchedLabel]
    static let methods = ["GET", "HEAD", "POST", "PATCH", "DELETE", "OPTIONS", "other"]
    static let statuses = [200, 201, 204, 304, 400, 401, 404, 405, 408, 409, 412, 413, 414, 415, 422, 429, 431, 500, 501, 503, 505, 507, 0]

    /// Counters by route, method and status; `0` collects any other status.
    private let requests: [Counter]
    private let bucketCounts: [Counter]
    private let count = Counter()
    private let microseconds = Counter()

    /// An atomic counter with a stable address (atomics cannot live in an array).
    final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func add(_ n: Int) { value.add(n, ordering: .relaxed) }
        func load() -> Int { value.load(ordering: .relaxed) }
    }

    init() {
        requests = (0 ..< Metrics.routes.count * Metrics.methods.count * Metrics.statuses.count).map { _ in Counter() }
        bucketCounts = Metrics.buckets.map { _ in Counter() }
    }

    /// Counts a request; `route` nil: it matched none.
    func record(route: Route.Template?, method: String, status: Int, duration: Duration) {
        let r = route.flatMap { Route.Template.allCases.firstIndex(of: $0) } ?? Metrics.routes.count - 1
        let m = Metrics.methods.firstIndex(of: method) ?? Metrics.methods.count - 1
        let s = Metrics.statuses.firstIndex(of: status) ?? Metrics.statuses.count - 1
        requests[(r * Metrics.methods.count + m) * Metrics.statuses.count + s].add(1)
        if let b = Metrics.buckets.firstIndex(where: { duration <= $0 }) { bucketCounts[b].add(1) }
        count.add(1)
        microseconds.add(duration.wholeMicroseconds)
    }

    func render(sessions: Int, nodes: Int) -> [UInt8] {
        var text = "# HELP tree_http_requests_total Requests answered, by route template, method and status (other: any status not listed).\n"
        text += "# TYPE tree_http_requests_total counter\n"
        for (r, route) in Metrics.routes.enumerated() {
            for (m, method) in Metrics.methods.enumerated() {
                for (s, status) in Metrics.statuses.enumerated() {
                    let n = requests[(r * Metrics.methods.count + m) * Metrics.statuses.count + s].load()
                    if n > 0 {
                        text += "tree_http_requests_total{route=\"\(route)\",method=\"\(method)\",status=\"\(status == 0 ? "other" : String(status))\"} \(n)\n"
                    }
                }
            }
        }
        var cumulative = 0
        let buckets = Metrics.buckets.enumerated().map { i, bound in
            cumulative += bucketCounts[i].load()
            return (bound.seconds, cumulative)
        }
        text += Metrics.histogram("tree_http_request_duration_seconds", help: "Time to produce a response.", buckets: buckets,
                                  sum: Duration.microseconds(microseconds.load()).seconds, count: count.load())
        text += "# HELP tree_sessions Live sessions.\n# TYPE tree_sessions gauge\ntree_sessions \(sessions)\n"
        text += "# HELP tree_nodes Nodes over all sessions.\n# TYPE tree_nodes gauge\ntree_nodes \(nodes)\n"
        text += "# HELP process_resident_memory_bytes Resident memory.\n# TYPE process_resident_memory_bytes gauge\n"
        text += "process_resident_memory_bytes \(Metrics.residentBytes())\n"
        return Array(text.utf8)
    }

    /// A histogram in the Prometheus text format: `buckets` are upper bounds with cumulative
    /// counts; `count` is the `+Inf` bucket.
    static func histogram(_ name: String, help: String, buckets: [(upperBound: Double, cumulative: Int)], sum: Double, count: Int) -> String {
        var text = "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        for bucket in buckets { text += "\(name)_bucket{le=\"\(bucket.upperBound)\"} \(bucket.cumulative)\n" }
        text += "\(name)_bucket{le=\"+Inf\"} \(count)\n\(name)_sum \(sum)\n\(name)_count \(count)\n"
        return text
    }

    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }
}
