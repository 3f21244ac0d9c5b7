/// The bytes of server-sent events (the `text/event-stream` format of the HTML standard).
/// The service's data is compact JSON, one line, so every event has one `data:` line.
enum ServerSentEvent {
    /// `event: NAME`, `id: ID` when given, `data: DATA`, and the blank line that ends the event.
    static func bytes(_ name: String, id: Int?, data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + name.utf8.count + 32)
        out += "event: ".utf8
        out += name.utf8
        if let id {
            out += "\nid: ".utf8
            out += String(id).utf8
        }
        out += "\ndata: ".utf8
        out += data
        out += "\n\n".utf8
        return out
    }

    /// How long a client waits before reconnecting, in milliseconds: the first bytes of a stream.
    static let retryMilliseconds = 2000
    static let retry = Array("retry: \(retryMilliseconds)\n\n".utf8)

    /// A comment: clients ignore it; it keeps proxies and the client's idle timers from
    /// closing a quiet stream.
    static let heartbeat = Array(": heartbeat\n\n".utf8)
}
