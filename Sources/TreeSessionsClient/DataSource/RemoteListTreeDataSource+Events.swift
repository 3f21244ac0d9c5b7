/// Following the view's event stream: `Last-Event-ID` with the version held on every
/// (re)connect, backoff from the stream's `retry:` (or 1 s) doubling to 30 s, reset after an
/// event; 401, 403 and 404 stop it, and so does `end`.
extension RemoteListTreeDataSource {
    func startFollowing() {
        guard followsEvents else { return }
        let client = self.client, session = self.session, view = self.view, filter = self.filter, epoch = self.epoch
        follower.replace(with: Task { [weak self] in
            var base = Duration.seconds(1)
            var delay = base
            while !Task.isCancelled {
                guard let lastEventId = self?.version else { return }
                let stream = client.eventItems(session, view: view, filter: filter, lastEventId: lastEventId)
                do {
                    for try await item in stream {
                        guard let self, self.epoch == epoch else { return }
                        switch item {
                        case .opened:
                            self.streamConnected = true
                            self.onStreamStatus?(.connected)
                        case .retry(let milliseconds):
                            base = .milliseconds(milliseconds)
                            delay = base
                        case .event(let event):
                            delay = base
                            if try await !self.handle(event) { return }
                        }
                    }
                } catch let problem as Problem where [401, 403, 404].contains(problem.status) {
                    guard let self, self.epoch == epoch else { return }
                    self.streamConnected = false
                    self.onStreamStatus?(.refused(problem))
                    return
                } catch {
                    // A transport error or an undecodable event: reconnect below.
                }
                guard !Task.isCancelled, let self, self.epoch == epoch else { return }
                self.streamConnected = false
                self.onStreamStatus?(.disconnected(retryIn: delay))
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(30))
            }
        })
    }

    /// Handles one event; false when the stream is over (`end`).
    private func handle(_ event: ServerSentEvent) async throws -> Bool {
        guard let typed = try ServerEvent(event) else { return true }
        switch typed {
        case .change(let change):
            apply(change.response)
            flushToListener()
        case .reset(let reset):
            if reset.version <= version && reset.reason == .subscribed { return true }
            try await fetchFirstBlock()
            flushToListener()
        case .end(let end):
            streamConnected = false
            onStreamStatus?(.ended(end.reason))
            return false
        }
        return true
    }
}
