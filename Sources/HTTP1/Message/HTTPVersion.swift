/// The protocol versions this server speaks. Requests declaring `HTTP/1.x` with x ≥ 2 are
/// treated as 1.1 (RFC 9112 §2.3); any other major version is answered 505.
public enum HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    case http1_0
    case http1_1

    public var description: String {
        switch self {
        case .http1_0: "HTTP/1.0"
        case .http1_1: "HTTP/1.1"
        }
    }
}
