import Foundation
import HTTP1
import Synchronization
import TreeFormats

/// An event stream of the service held in process: every byte pushed to it, read back as
/// server-sent events.
final class EventCollector: Sendable {
    struct Event: CustomStringConvertible {
        var name: String
        var id: Int?
        var data: [UInt8]
        var json: JSONValue { (try? JSONValue.parse(data)) ?? .null }
        var description: String { "\(name) \(id.map(String.init) ?? "-") \(String(decoding: data, as: UTF8.self))" }
    }

    private struct State {
        var bytes: [UInt8] = []
        var finished = false
    }
    private final class Received: Sendable {
        let state = Mutex(State())
    }
    private let received = Received()
    let stream: HTTPPushStream

    init() {
        let received = self.received
        stream = HTTPPushStream { output in
            received.state.withLock { s in
                switch output {
                case .bytes(let b): s.bytes += b
                case .finish: s.finished = true
                }
            }
            return true
        }
    }

    /// Everything received, as text.
    var text: String { received.state.withLock { String(decoding: $0.bytes, as: UTF8.self) } }
    /// Whether the service ended the stream properly.
    var finished: Bool { received.state.withLock { $0.finished } }

    /// The complete events received so far (comments and `retry` alone are not events).
    var events: [Event] {
        let text = self.text
        var events: [Event] = []
        var blocks = text.components(separatedBy: "\n\n")
        blocks.removeLast()  // the incomplete rest
        for block in blocks {
            var event = Event(name: "message", id: nil, data: [])
            var hasData = false
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("event: ") { event.name = String(line.dropFirst(7)) }
                if line.hasPrefix("id: ") { event.id = Int(line.dropFirst(4)) }
                if line.hasPrefix("data: ") {
                    event.data = Array(line.dropFirst(6).utf8)
                    hasData = true
                }
            }
            if hasData { events.append(event) }
        }
        return events
    }

    /// Waits (polling) until `done` holds for the events received; false after `timeout`.
    @discardableResult
    func wait(timeout: Duration = .seconds(10), until done: ([Event]) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if done(events) { return true }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return done(events)
    }

    /// Waits until `count` events have arrived; all received.
    func wait(forCount count: Int) -> [Event] {
        wait { $0.count >= count }
        return events
    }
}

extension ServiceHarness {
    /// Opens an event stream: the reply, and the collector when the stream started.
    func openStream(_ target: String, headers: [(String, String)] = []) -> (Reply, EventCollector?) {
        let collector = EventCollector()
        let reply = reply(to: HTTPRequest(method: "GET", target: target, headers: HTTPHeaders(headers)), stream: collector.stream)
        return (reply, reply.status == 200 ? collector : nil)
    }
}
