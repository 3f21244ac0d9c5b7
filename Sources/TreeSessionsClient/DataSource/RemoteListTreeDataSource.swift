import Foundation

/// SwiftListTreeDataSource's vocabulary over a TreeSessions session and view: `items`,
/// `toggleExpand(_:)`, `expandAll()`, `collapseAll()`, `append`, `insert`, `delete`, `move`,
/// `filterItemsKeepingParents(by:)` and `resetFiltering()` — with the tree on the server, so
/// that millions of rows cost what their shown part does, and other clients' edits arrive live.
///
/// **The row cache.** `items` holds `total` rows, fetched in blocks of `blockSize` as the list
/// asks for them (`load(_:)`, from a collection view's prefetching), at most `maxBlocks` blocks
/// kept (the least recently used dropped). Each change (a response to one of this data
/// source's calls, or a `change` event of the view's stream) is applied by its version: one
/// already held is skipped, the next one applied (its splices shift the cached rows, its
/// inserted and `reload` rows become unknown), a later one waits for the ones between (from
/// the stream; without a stream, or after about 2 s, the rows are fetched anew). Tree edits
/// send `If-Match` with the version held and, on 412, catch up and try once more. A new filter
/// takes effect once its first rows are there (changes asked meanwhile wait for it), and not at
/// all when it fails. Errors of background work (a refresh after a gap) go to `onError`.
///
/// **Updates for the list.** Every change comes out once as a `ListUpdate` (deletions in the
/// old indices, insertions in the new, reloads) for `performBatchUpdates` or a diffable
/// snapshot: a call's own update is what it returns; the others (other clients' edits, resets)
/// go to `onChange` at the moment they are applied. Apply both, as they come, and the list stays
/// equal to `items`. `updates` carries every update, the calls' too, for code that prefers one
/// sequence (then ignore what calls return).
///
/// **Why `@MainActor`.** A table view asks for `items[i]` synchronously, on the main actor, in
/// `cellForRowAt`; an actor would make every read an `await`. Here the state lives on the main
/// actor: reads are plain, network calls suspend without blocking it, and an update is applied
/// to the cache and handed to the UI in one step, so the two never disagree.
@MainActor
public final class RemoteListTreeDataSource {
    public let client: TreeSessionsClient
    public let session: String
    /// The view whose rows these are; nil for the session's default view.
    public let view: ViewId?
    /// The rows named: unfiltered, or filtered (`filterItemsKeepingParents`).
    public private(set) var filter: RowFilter
    /// Rows per fetch.
    public let blockSize: Int
    /// At most this many blocks' worth of rows are kept.
    public let maxBlocks: Int
    /// Whether the data source follows the view's event stream (other clients' edits).
    public let followsEvents: Bool

    /// The view's version the cached rows are at.
    public private(set) var version = 0

    /// Other clients' changes and resets, as they are applied.
    public var onChange: ((ListUpdate) -> Void)?
    /// The event stream's state.
    public var onStreamStatus: ((StreamStatus) -> Void)?
    /// Errors of work done in the background, which no call of yours awaits: a refresh after a
    /// gap in the versions (tried again, waiting 1 s doubling to 30 s, while the rows are
    /// behind), the refresh of a 412 whose edit is thrown as the 412.
    public var onError: ((any Error) -> Void)?
    /// How long the event stream may stay silent (the server sends a comment every 15 s) before
    /// it is taken for a dead link and reconnected. Read when the stream (re)opens.
    public var eventIdleTimeout: Duration = .seconds(45)

    /// Every update, in the order applied, the calls' own included, from the moment it is first
    /// read (nothing is kept for a sequence nobody asked for).
    public var updates: AsyncStream<ListUpdate> { updatesSink.stream() }
    private let updatesSink = UpdatesSink()

    /// The event stream's state, as `onStreamStatus` reports it.
    public enum StreamStatus: Sendable, Equatable {
        /// The stream is open (200).
        case connected
        /// The stream closed or failed; it reconnects after `retryIn`.
        case disconnected(retryIn: Duration)
        /// The session or view is gone (`end`): the stream stopped. nil: a reason this client
        /// does not know.
        case ended(EndEvent.Reason?)
        /// The server refused the stream (400, 401, 403, 404): it stopped.
        case refused(Problem)
    }

    var cache: RowCache<RemoteTreeItem>
    /// Changes that arrived before the ones between them and `version`.
    private var buffered: [Int: any ChangeResponding] = [:]
    /// Changes applied and not yet handed out, with the row count before the first.
    private var pending: [ListChange] = []
    private var pendingOldCount = 0
    /// Bumped when the rows named change (a filter applied): answers to older requests are dropped.
    private(set) var epoch = 0
    var streamConnected = false
    private var gapTimer: Task<Void, Never>?
    let follower = FollowerHandle()
    /// Whether the stream is to be followed (from `open()` to `close()`).
    private var following = false
    /// 412s answered by a refresh and a second try (tests read it).
    var preconditionRetries = 0

    /// Bumped by every `setFilter`: only the last one asked applies its rows.
    private var filterRequest = 0
    /// `setFilter` calls not finished, and the changes waiting for them.
    private(set) var filtersInFlight = 0
    private var filterWaiters: [CheckedContinuation<Void, Never>] = []

    /// The block loads under way (by epoch and offset): a load of a block already asked joins it.
    private var blockLoads: [BlockKey: Task<Void, any Error>] = [:]
    private struct BlockKey: Hashable { var epoch: Int, offset: Int }

    /// The one background refresh, and whether the rows are behind (a refresh is wanted).
    private var backgroundRefresh: Task<Void, Never>?
    private var behind = false

    /// A data source over `session` (and `view`); `open()` fetches the first rows and starts
    /// following the view's events.
    public init(client: TreeSessionsClient, session: String, view: ViewId? = nil, filter: RowFilter = .unfiltered,
                blockSize: Int = 100, maxBlocks: Int = 50, followsEvents: Bool = true) {
        self.client = client
        self.session = session
        self.view = view
        self.filter = filter
        self.blockSize = max(1, min(blockSize, 1000))
        self.maxBlocks = max(1, maxBlocks)
        self.followsEvents = followsEvents
        cache = RowCache(capacity: self.blockSize * self.maxBlocks)
    }

    deinit {
        follower.cancel()
        updatesSink.finish()
    }

    /// The rows: `total` of them, each cached or nil.
    public var items: RemoteTreeItems { RemoteTreeItems(cache: cache) }

    /// The number of rows.
    public var total: Int { cache.total }

    /// Fetches the first block and starts following the view's events.
    @discardableResult
    public func open() async throws -> ListUpdate {
        let update = try await refresh()
        following = true
        startFollowing()
        return update
    }

    /// Stops following events and any background refresh (the rows stay as they are).
    public func close() {
        following = false
        follower.cancel()
        streamConnected = false
        gapTimer?.cancel()
        gapTimer = nil
        backgroundRefresh?.cancel()
        backgroundRefresh = nil
        behind = false
    }

    // MARK: Loading rows

    /// Loads the rows of `range` that are not cached (a block at a time, aligned to
    /// `blockSize`), and marks the others as used. Answers the rows filled (as reloads). A block
    /// another call is loading already is not asked twice: this call waits for it.
    @discardableResult
    public func load(_ range: Range<Int>) async throws -> ListUpdate {
        cache.touch(range)
        var blocks: [Int] = []
        for gap in cache.missing(in: range) {
            var start = gap.lowerBound / blockSize * blockSize
            while start < gap.upperBound {
                if blocks.last != start { blocks.append(start) }
                start += blockSize
            }
        }
        for offset in blocks { try await loadBlock(at: offset) }
        return takeUpdate()
    }

    /// Fetches the block at `offset`, or waits for the fetch of it under way.
    private func loadBlock(at offset: Int) async throws {
        let key = BlockKey(epoch: epoch, offset: offset)
        if let running = blockLoads[key] {
            try await running.value
            return
        }
        let task = Task { try await self.fetch(offset: offset, reset: false) }
        blockLoads[key] = task
        defer { if blockLoads[key] == task { blockLoads[key] = nil } }
        try await task.value
    }

    /// Fetches the block at `offset` and takes it by the version rules (`accept`); a page older
    /// than the version held is fetched again, at most 5 times. `reset`: a refresh.
    private func fetch(offset: Int, reset: Bool) async throws {
        for _ in 0..<5 {
            let epoch = self.epoch
            let page = try await whileWanted({ $0.epoch == epoch && $0.filtersInFlight == 0 }) {
                try await $0.client.rows($0.session, view: $0.view, filter: $0.filter, offset: offset, limit: $0.blockSize)
            }
            guard epoch == self.epoch else { return }
            if accept(page, reset ? .refresh : .store) { return }
        }
        throw Problem(type: "about:blank", title: "Stale rows", status: 0,
                      detail: "GET rows kept answering versions older than \(version)")
    }

    /// How `accept` takes a page.
    private enum PageUse {
        /// Rows the list asked for: stored at the version held.
        case store
        /// A refresh: everything dropped even at the version held.
        case refresh
        /// The first page of other rows (a new filter): taken whatever its version.
        case adopt
    }

    /// Takes a page: at the version held, its rows are stored (a reload of them for the list);
    /// at a later version the cache is stale (everything dropped, the page's version and rows
    /// adopted, a reset), then the buffered changes that follow it are applied; at an earlier one
    /// it is refused (false).
    private func accept(_ page: RowsPage, _ use: PageUse) -> Bool {
        if page.version < version && use != .adopt { return false }
        if page.version != version || use != .store || page.total != cache.total {
            let old = cache.total
            cache.removeAll()
            cache.total = page.total
            version = page.version
            buffered = use == .adopt ? [:] : buffered.filter { $0.key > page.version }
            cache.store(page.rows.map(RemoteTreeItem.init(row:)), at: page.offset)
            record(.reset(from: old, to: page.total))
        } else {
            cache.store(page.rows.map(RemoteTreeItem.init(row:)), at: page.offset)
            if !page.rows.isEmpty { record(ListChange(reload: [ReloadRange(index: page.offset, count: page.rows.count)])) }
        }
        // The page's rows are recorded where they are now; the changes after them move them.
        applyBuffered()
        return true
    }

    /// Fetches the first block anew: every cached row dropped, the version and total adopted, a
    /// reset for the list.
    @discardableResult
    public func refresh() async throws -> ListUpdate {
        try await fetchFirstBlock()
        return takeUpdate()
    }

    /// `refresh()` without handing out its update (the caller does).
    func fetchFirstBlock() async throws {
        try await fetch(offset: 0, reset: true)
        behind = false
    }

    /// Sends `send` again after a 409 `filter-superseded` (a newer filter request through the
    /// view cancelled the build it needed; nothing changed) while `wanted` holds, at most 50
    /// times, 100 ms apart.
    func whileWanted<T>(_ wanted: (RemoteListTreeDataSource) -> Bool,
                        _ send: (RemoteListTreeDataSource) async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await send(self)
            } catch let problem as Problem where problem.status == 409 && problem.slug == "filter-superseded" && attempt < 50 && wanted(self) {
                attempt += 1
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    // MARK: Applying changes

    /// Applies a change by the version rules: skipped when held, applied when next (then the
    /// buffered ones that follow), else buffered until the gap is filled.
    func apply(_ change: any ChangeResponding) {
        if change.version <= version { return }
        if change.version > version + 1 {
            buffered[change.version] = change
            waitForGap()
            return
        }
        applyNow(change)
        applyBuffered()
    }

    private func applyNow(_ change: any ChangeResponding) {
        for splice in change.changes {
            cache.splice(at: splice.index, removed: splice.removed, inserted: splice.inserted)
        }
        for range in change.reload {
            cache.forget(range.index..<(range.index + range.count))
        }
        cache.total = change.total
        cache.trim()
        version = change.version
        record(ListChange(splices: change.changes, reload: change.reload))
    }

    private func applyBuffered() {
        buffered = buffered.filter { $0.key > version }
        while let next = buffered.removeValue(forKey: version + 1) {
            applyNow(next)
        }
        if buffered.isEmpty {
            gapTimer?.cancel()
            gapTimer = nil
        }
    }

    /// A change is missing: without a stream, fetch the rows now; with one, give it about 2 s.
    private func waitForGap() {
        guard followsEvents, streamConnected else {
            refreshLater()
            return
        }
        guard gapTimer == nil else { return }
        gapTimer = Task { [weak self] in
            try? await Task.sleep(for: .seconds(2))
            guard let self, !Task.isCancelled else { return }
            self.gapTimer = nil
            if !self.buffered.isEmpty { self.refreshLater() }
        }
    }

    /// Refreshes in the background and hands its reset to `onChange`: one refresh at a time for
    /// every caller; one that fails goes to `onError` and is tried again (1 s, doubling to 30 s)
    /// while the rows are still behind.
    func refreshLater() {
        behind = true
        guard backgroundRefresh == nil else { return }
        backgroundRefresh = Task { [weak self] in
            var delay = Duration.seconds(1)
            while let failed = await self?.backgroundRefreshStep() {
                guard failed else { continue }
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(30))
            }
        }
    }

    /// One try of the background refresh: nil when the rows are not behind (it is over), else
    /// whether it failed.
    private func backgroundRefreshStep() async -> Bool? {
        if Task.isCancelled { return nil }  // closed: `close()` has let it go
        guard behind else {
            backgroundRefresh = nil
            return nil
        }
        do {
            try await fetchFirstBlock()
            flushToListener()
            return false
        } catch {
            flushToListener()
            guard behind else { return true }
            onError?(error)
            if let problem = error as? Problem, [400, 401, 403, 404].contains(problem.status) {
                backgroundRefresh = nil  // asking again will not help (a refresh asked later tries anew)
                return nil
            }
            return true
        }
    }

    // MARK: Handing out updates

    /// Notes a change of the list, to be handed out.
    func record(_ change: ListChange) {
        if pending.isEmpty { pendingOldCount = currentCountBefore(change) }
        pending.append(change)
    }

    /// The row count before `change` (which was just applied to the cache).
    private func currentCountBefore(_ change: ListChange) -> Int {
        var count = cache.total
        for splice in change.splices.reversed() { count += splice.removed - splice.inserted }
        return count
    }

    /// The update of everything applied and not yet handed out, for a call to return.
    func takeUpdate() -> ListUpdate {
        guard !pending.isEmpty else { return .none(count: cache.total) }
        let update = ListUpdate(oldCount: pendingOldCount, changes: pending)
        pending.removeAll()
        updatesSink.yield(update)
        return update
    }

    /// Hands what was applied outside a call to `onChange`.
    func flushToListener() {
        guard !pending.isEmpty else { return }
        let update = takeUpdate()
        onChange?(update)
    }

    // MARK: Filtering

    /// Names other rows: filtered rows for `filter` (or the unfiltered rows). Once the first
    /// block of the new rows is there, everything is dropped, that block adopted and the stream
    /// reopened from its version. Until then the rows, the version and the stream stay those of
    /// the filter held, and changes asked meanwhile wait to go out for the new rows. When it
    /// fails nothing has changed. Of several at once the last one asked wins (the others answer
    /// an empty update).
    @discardableResult
    public func setFilter(_ filter: RowFilter) async throws -> ListUpdate {
        filterRequest += 1
        let request = filterRequest
        filtersInFlight += 1
        defer { filterFinished() }
        let page: RowsPage
        do {
            page = try await whileWanted({ $0.filterRequest == request }) {
                try await $0.client.rows($0.session, view: $0.view, filter: filter, offset: 0, limit: $0.blockSize)
            }
        } catch where request != filterRequest {
            return takeUpdate()  // a later filter is wanted: its outcome is what counts
        }
        guard request == filterRequest else { return takeUpdate() }
        follower.cancel()
        streamConnected = false
        gapTimer?.cancel()
        gapTimer = nil
        epoch += 1
        self.filter = filter
        behind = false
        _ = accept(page, .adopt)
        if following { startFollowing() }
        return takeUpdate()
    }

    private func filterFinished() {
        filtersInFlight -= 1
        guard filtersInFlight == 0 else { return }
        let waiters = filterWaiters
        filterWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once no `setFilter` is under way (a change then goes out for the rows named).
    func filtersSettled() async {
        while filtersInFlight > 0 {
            await withCheckedContinuation { filterWaiters.append($0) }
        }
    }

    /// SwiftListTreeDataSource's filter: the rows whose title matches `text` (with `options`'
    /// matching rules), with their ancestors. An empty text shows the unfiltered rows.
    @discardableResult
    public func filterItemsKeepingParents(by text: String, options: RowFilter = RowFilter()) async throws -> ListUpdate {
        var filter = options
        filter.text = text
        return try await setFilter(filter)
    }

    /// Back to the unfiltered rows, expanded as they were left.
    @discardableResult
    public func resetFiltering() async throws -> ListUpdate {
        try await setFilter(.unfiltered)
    }
}

/// The continuation of `updates`, made when `updates` is first read; reachable from `deinit`.
final class UpdatesSink: @unchecked Sendable {  // `stream` and `continuation` are guarded by `lock`
    private let lock = NSLock()
    private var made: AsyncStream<ListUpdate>?
    private var continuation: AsyncStream<ListUpdate>.Continuation?

    func stream() -> AsyncStream<ListUpdate> {
        lock.withLock {
            if let made { return made }
            let (stream, continuation) = AsyncStream.makeStream(of: ListUpdate.self)
            made = stream
            self.continuation = continuation
            return stream
        }
    }

    func yield(_ update: ListUpdate) {
        _ = lock.withLock { continuation }?.yield(update)
    }

    func finish() {
        lock.withLock { continuation }?.finish()
    }
}

/// The follower task, cancellable from `deinit` (which is not on the main actor).
final class FollowerHandle: @unchecked Sendable {  // `task` is guarded by `lock`
    private let lock = NSLock()
    private var task: Task<Void, Never>?

    func replace(with task: Task<Void, Never>?) {
        lock.lock()
        let old = self.task
        self.task = task
        lock.unlock()
        old?.cancel()
    }

    func cancel() { replace(with: nil) }
}
