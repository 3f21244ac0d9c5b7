import Foundation
import TreeFormats

/// What is set about a session besides its tree: the name, labels and owner note a team
/// finds it by, how long it may stay idle, and the time before which its tokens are refused.
/// Set at upload, changed by `PATCH /sessions/{sid}` (owner), kept in snapshots and journaled.
struct SessionSettings: Equatable, Sendable {
    /// 1 to 200 characters (Unicode code points, as everywhere here); nil: none.
    var name: String? = nil
    /// At most 16 pairs; keys of 1 to 64 letters, digits, `.`, `_`, `-` or `/`, values up to 200 characters.
    var labels: [String: String] = [:]
    /// Who owns it, as free text (an e-mail, a team): 1 to 200 characters; nil: none.
    var owner: String? = nil
    /// The idle time after which it expires (zero: never); nil: the server's `--session-ttl`.
    var ttl: Duration? = nil
    /// Session tokens minted before this time (milliseconds since 1970) are refused; 0: none.
    var tokensValidAfter: Int64 = 0

    static let maxLabels = 16
    static let maxTextLength = 200

    /// The members a body may set (an upload's beside `nodes`: all but `tokensValidAfter`).
    static let members: Set<String> = ["name", "labels", "owner", "ttl", "tokensValidAfter"]

    // MARK: Changes

    /// These settings with the members of `body` applied (each one given replaces its
    /// setting; `null` clears it, for `ttl` back to the server's); 422 naming the member for
    /// a value out of bounds. `ttlRefusal` says why a TTL may not be asked for; `now` is
    /// milliseconds since 1970 (`tokensValidAfter` may be `"now"` or a time up to now).
    func applying(_ body: Members, now: Int64, ttlRefusal: (Duration) -> String?) throws(ServiceError) -> SessionSettings {
        var settings = self
        for key in body.keys {
            let value = body[key]!
            switch (key, value) {
            case ("name", .null), ("owner", .null): key == "name" ? (settings.name = nil) : (settings.owner = nil)
            case ("name", .string(let text)), ("owner", .string(let text)):
                guard (1 ... Self.maxTextLength).contains(text.unicodeScalars.count), !Self.hasControls(text) else {
                    throw .unprocessable("\"\(key)\" must be 1 to \(Self.maxTextLength) characters without control characters, or null", member: key)
                }
                key == "name" ? (settings.name = text) : (settings.owner = text)
            case ("labels", .null): settings.labels = [:]
            case ("labels", .object(let pairs)):
                settings.labels = try Self.labels(pairs)
            case ("ttl", .null): settings.ttl = nil
            case ("ttl", _):
                guard let seconds = value.intValue, seconds >= 0, seconds <= TreeService.longestTTL else {
                    throw .unprocessable("\"ttl\" must be a whole number of seconds from 0 (never expire) to \(TreeService.longestTTL), or null (the server's --session-ttl)", member: "ttl")
                }
                if let refusal = ttlRefusal(.seconds(seconds)) { throw .unprocessable("\"ttl\": " + refusal, member: "ttl") }
                settings.ttl = .seconds(seconds)
            case ("tokensValidAfter", .null): settings.tokensValidAfter = 0
            // Every token minted up to now, in this very millisecond too.
            case ("tokensValidAfter", .string("now")): settings.tokensValidAfter = now + 1
            case ("tokensValidAfter", .string(let text)):
                guard let time = RFC3339.parse(text), time <= now else {
                    throw .unprocessable("\"tokensValidAfter\" must be \"now\", a time from 1970 up to now (RFC 3339, e.g. 2026-12-06T10:00:00Z), or null", member: key)
                }
                settings.tokensValidAfter = time
            case ("name", _), ("owner", _):
                throw .unprocessable("\"\(key)\" must be a string or null", member: key)
            case ("labels", _):
                throw .unprocessable("\"labels\" must be an object of string values ({\"team\": \"search\"}) or null", member: key)
            case ("tokensValidAfter", _):
                throw .unprocessable("\"tokensValidAfter\" must be \"now\", a time (RFC 3339) or null", member: key)
            default:
                throw .unprocessable("unknown member \"\(key)\"; allowed here: \(Self.members.sorted().joined(separator: ", "))", member: key)
            }
        }
        return settings
    }

    /// Labels: at most 16, each key 1 to 64 of `A-Z a-z 0-9 . _ - /`, each value a string of
    /// at most 200 characters.
    private static func labels(_ pairs: [(key: String, value: JSONValue)]) throws(ServiceError) -> [String: String] {
        guard pairs.count <= maxLabels else { throw .unprocessable("\"labels\" holds at most \(maxLabels) pairs", member: "labels") }
        var labels: [String: String] = [:]
        for (key, value) in pairs {
            guard isLabelKey(key) else {
                throw .unprocessable("\"labels\": the key \"\(key)\" must be 1 to 64 letters, digits, '.', '_', '-' or '/'", member: "labels")
            }
            guard case .string(let text) = value, text.unicodeScalars.count <= maxTextLength, !hasControls(text) else {
                throw .unprocessable("\"labels\": the value of \"\(key)\" must be a string of at most \(maxTextLength) characters without control characters", member: "labels")
            }
            labels[key] = text
        }
        return labels
    }

    private static func hasControls(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    static func isLabelKey(_ key: some StringProtocol) -> Bool { TokenSigner.isName(key, length: 1 ... 64, also: "./") }

    // MARK: Bytes

    /// Writes what a snapshot's block and a journal entry keep of the settings besides the
    /// TTL (which the block keeps in its own place): name and owner (a byte 0 for none, else
    /// 1 and the text), the labels (UInt32 count, then key and value of each in key order),
    /// and `tokensValidAfter` (Int64 milliseconds).
    func writeDescription(to out: inout ByteWriter) {
        out.optional(name) { $0.string($1) }
        out.optional(owner) { $0.string($1) }
        out.u32(UInt32(labels.count))
        for key in labels.keys.sorted() {
            out.string(key)
            out.string(labels[key]!)
        }
        out.i64(tokensValidAfter)
    }

    /// Reads what `writeDescription` wrote into these settings; false when it is malformed.
    mutating func readDescription(from input: inout ByteReader) -> Bool {
        guard let name = input.optional({ $0.string() }), let owner = input.optional({ $0.string() }),
              let count = input.u32(), count <= SessionSettings.maxLabels else { return false }
        var labels: [String: String] = [:]
        for _ in 0 ..< count {
            guard let key = input.string(), let value = input.string(), labels.updateValue(value, forKey: key) == nil else { return false }
        }
        guard let after = input.i64(), after >= 0 else { return false }
        (self.name, self.owner, self.labels, tokensValidAfter) = (name, owner, labels, after)
        return true
    }

    /// The TTL as a block or entry keeps it: seconds, 0 never, -1 the server's.
    var ttlSeconds: Int64 { ttl.map { $0.components.seconds } ?? -1 }

    static func ttl(seconds: Int64) -> Duration? { seconds < 0 ? nil : .seconds(seconds) }
}
