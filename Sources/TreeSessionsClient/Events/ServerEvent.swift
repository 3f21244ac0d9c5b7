import Foundation

/// An event of `GET …/events`, typed: `change` (a version step of the stream's rows, with the
/// change response those rows would have answered), `reset` (fetch the rows again) or `end`
/// (the session or view is gone; the stream ends after it).
public enum ServerEvent: Sendable, Equatable {
    case change(ChangeEvent)
    case reset(ResetEvent)
    case end(EndEvent)

    /// The typed form of a parsed event; nil for an event name the API does not send.
    public init?(_ event: ServerSentEvent) throws {
        let data = Data(event.data.utf8)
        let decoder = JSONDecoder()
        switch event.event {
        case "change": self = .change(try decoder.decode(ChangeEvent.self, from: data))
        case "reset": self = .reset(try decoder.decode(ResetEvent.self, from: data))
        case "end": self = .end(try decoder.decode(EndEvent.self, from: data))
        default: return nil
        }
    }
}

/// The members every change response has: what a row cache applies.
public protocol ChangeResponding: Sendable {
    /// The view's version after the change.
    var version: Version { get }
    /// The named rows after the change.
    var total: Int { get }
    /// The splices from the rows before to the rows after, in order.
    var changes: Changes { get }
    /// The rows (numbered after the splices) that may have changed in place.
    var reload: Reload { get }
}

extension ChangeResponse: ChangeResponding {}
extension ItemChangeResponse: ChangeResponding {}
extension InsertResponse: ChangeResponding {}
extension BatchResponse: ChangeResponding {}
extension ExpansionChangeResponse: ChangeResponding {}

extension ChangeEvent {
    /// The change response the event carries, whichever form it has.
    public var response: any ChangeResponding {
        switch self {
        case .change(let value): return value
        case .itemChange(let value): return value
        case .insert(let value): return value
        case .batch(let value): return value
        case .expansionChange(let value): return value
        }
    }
}
