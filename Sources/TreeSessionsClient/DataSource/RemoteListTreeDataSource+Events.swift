import Foundation

/// Following the view's event stream: `Last-Event-ID` with the version held on every
/// (re)connect; a wait before each reconnect that starts at the stream's `retry:` (at least
/// 250 ms) or 1 s and doubles to 30 s, started over only once an event arrived, and at least a
/// 429's or 503's `Retry-After`; a stream silent for `eventIdleTimeout` is reconnected. 400, 401,
/// 403 and 404 stop it, and so does `end`.
extension RemoteListTreeDataSource {
    /// The shortest wait before a reconnect, whatever `retry:` says.
    static let shortestRetry = Duration.milliseconds(250)
    static let longestRetry = Duration.seconds(30)

    func startFollowing() {
        guard followsEvents else { return }
        let client = self.client, session = self.session, view = self.view, filter = self.filter, epoch = self.epoch
        let idleTimeout = eventIdleTimeout
        follower.replace(with: Task { [weak self] in
            var base = Duration.seconds(1)
            var failures = 0  // reconnects since the last event
            while !Task.isCancelled {
                guard let lastEventId = self?.version else { return }
                let stream = client.eventItems(session, view: view, filter: filter, lastEventId: lastEventId, idleTimeout: idleTimeout)
                var retryAfter = Duration.zero
                do {
                    for try await item in stream {
                        guard let self, self.epoch == epoch else { return }
                        switch item {
                        case .opened:
                            self.streamConnected = true
                            self.onStreamStatus?(.connected)
                        case .retry(let milliseconds):
                            base = max(.milliseconds(milliseconds), Self.shortestRetry)
                        case .event(let event):
                            switch try await self.handle(event) {
                            case .ignored: break
                            case .applied: failures = 0
                            case .ended: return
                            }
                        }
                    }
                } catch let problem as Problem where [400, 401, 403, 404].contains(problem.status) {
                    guard let self, self.epoch == epoch else { return }
                    self.streamConnected = false
                    self.onStreamStatus?(.refused(problem))
                    return
                } catch let problem as Problem where [429, 503].contains(problem.status) {
                    retryAfter = .seconds(problem.retryAfter ?? 0)
                } catch {
                    // A transport error, a silent stream or an undecodable event: reconnect below.
                }
                var doubled = base
                for _ in 0..<min(failures, 16) { doubled = min(doubled * 2, Self.longestRetry) }
                let delay = max(min(doubled, Self.longestRetry), retryAfter)
                failures += 1
                guard !Task.isCancelled, self?.reportDisconnected(retryIn: delay, epoch: epoch) == true else { return }
                try? await Task.sleep(for: delay)
            }
        })
    }

    /// Notes that the stream of `epoch` closed; false when it is not followed any more.
    private func reportDisconnected(retryIn delay: Duration, epoch: Int) -> Bool {
        guard self.epoch == epoch else { return false }
        streamConnected = false
        onStreamStatus?(.disconnected(retryIn: delay))
        return true
    }

    /// What an event did.
    private enum Handled { case ignored, applied, ended }

    /// Handles one event. A `reset` or `end` whose reason this client does not know is a reset or
    /// an end all the same (a newer server may name more reasons).
    private func handle(_ event: ServerSentEvent) async throws -> Handled {
        switch event.event {
        case "change":
            let change = try JSONDecoder().decode(ChangeEvent.self, from: Data(event.data.utf8))
            apply(change.response)
            flushToListener()
        case "reset":
            let reset = try JSONDecoder().decode(AnyReset.self, from: Data(event.data.utf8))
            if reset.version <= version && reset.reason == ResetEvent.Reason.subscribed.rawValue { return .applied }
            try await fetchFirstBlock()
            flushToListener()
        case "end":
            let end = try JSONDecoder().decode(AnyEnd.self, from: Data(event.data.utf8))
            streamConnected = false
            onStreamStatus?(.ended(EndEvent.Reason(rawValue: end.reason)))
            return .ended
        default:
            return .ignored
        }
        return .applied
    }

    /// A `reset` event's data with its reason as it was sent.
    private struct AnyReset: Decodable {
        var version: Int
        var reason: String
    }

    /// An `end` event's data with its reason as it was sent.
    private struct AnyEnd: Decodable {
        var reason: String
    }
}
