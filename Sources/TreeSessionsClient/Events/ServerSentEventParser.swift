/// One event of a `text/event-stream`, as the HTML standard's parser dispatches it.
public struct ServerSentEvent: Sendable, Equatable {
    /// `event:`; `message` when the event named none.
    public var event: String
    /// The `data:` lines joined by "\n".
    public var data: String
    /// The last `id:` seen on the stream so far (the HTML standard's last event id), nil before any.
    public var id: String?

    public init(event: String, data: String, id: String?) {
        self.event = event
        self.data = data
        self.id = id
    }
}

/// The `text/event-stream` parser of the HTML standard as a value: feed it bytes as they
/// arrive, split anywhere (inside a line, a CRLF or a UTF-8 sequence), and it answers the events
/// and `retry:` values completed by them. Lines end at CR, LF or CRLF; lines starting with `:`
/// are comments; a blank line dispatches the event (none when it has no data).
///
/// - Complexity: O(bytes fed).
public struct ServerSentEventParser: Sendable {
    /// What the bytes completed.
    public enum Output: Sendable, Equatable {
        case event(ServerSentEvent)
        /// `retry:` milliseconds: how long to wait before reconnecting.
        case retry(Int)
    }

    private var line: [UInt8] = []
    private var afterCR = false
    private var atStart = true
    private var eventType = ""
    private var data = ""
    private var hasData = false
    private var lastEventId: String?

    public init() {}

    /// The outputs `bytes` complete.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Output] {
        var outputs: [Output] = []
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            switch byte {
            case UInt8(ascii: "\r"):
                afterCR = true
                endLine(&outputs)
            case UInt8(ascii: "\n"):
                endLine(&outputs)
            default:
                line.append(byte)
            }
        }
        return outputs
    }

    private mutating func endLine(_ outputs: inout [Output]) {
        var bytes = line[...]
        line.removeAll(keepingCapacity: true)
        if atStart {
            atStart = false
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }  // a byte order mark
        }
        if bytes.isEmpty {
            dispatch(&outputs)
            return
        }
        if bytes.first == UInt8(ascii: ":") { return }
        let field: String
        let value: Substring
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            field = String(decoding: bytes[..<colon], as: UTF8.self)
            var rest = bytes[(colon + 1)...]
            if rest.first == UInt8(ascii: " ") { rest = rest.dropFirst() }
            value = Substring(String(decoding: rest, as: UTF8.self))
        } else {
            field = String(decoding: bytes, as: UTF8.self)
            value = ""
        }
        switch field {
        case "event":
            eventType = String(value)
        case "data":
            if hasData { data += "\n" }
            data += value
            hasData = true
        case "id":
            if !value.contains("\u{0}") { lastEventId = String(value) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }), let milliseconds = Int(value) {
                outputs.append(.retry(milliseconds))
            }
        default:
            break  // an unknown field is ignored
        }
    }

    private mutating func dispatch(_ outputs: inout [Output]) {
        defer {
            eventType = ""
            data = ""
            hasData = false
        }
        guard hasData else { return }
        outputs.append(.event(ServerSentEvent(event: eventType.isEmpty ? "message" : eventType, data: data, id: lastEventId)))
    }
}
