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
/// send `If-Match` with the version held and, on 412, catch up and try once more.
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
    /// Every update, in the order applied, the calls' own included.
    public let updates: AsyncStream<ListUpdate>
    private let updatesContinuation: AsyncStream<ListUpdate>.Continuation

    /// The event stream's state, as `onStreamStatus` reports it.
    public enum StreamStatus: Sendable, Equatable {
        /// The stream is open (200).
        case connected
        /// The stream closed or failed; it reconnects after `retryIn`.
        case disconnected(retryIn: Duration)
        /// The session or view is gone (`end`): the stream stopped.
        case ended(EndEvent.Reason)
        /// The server refused the stream (401, 403, 404): it stopped.
        case refused(Problem)
    }

    var cache: RowCache<RemoteTreeItem>
    /// Changes that arrived before the ones between them and `version`.
    private var buffered: [Int: any ChangeResponding] = [:]
    /// Changes applied and not yet handed out, with the row count before the first.
    private var pending: [ListChange] = []
    private var pendingOldCount = 0
    /// Bumped when the rows named change (a filter): answers to older requests are dropped.
    private(set) var epoch = 0
    var streamConnected = false
    private var gapTimer: Task<Void, Never>?
    let follower = FollowerHandle()
    /// 412s answered by a refresh and a second try (tests read it).
    var preconditionRetries = 0

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
        (updates, updatesContinuation) = AsyncStream.makeStream(of: ListUpdate.self)
    }

    deinit {
        follower.cancel()
        updatesContinuation.finish()
    }

    /// The rows: `total` of them, each cached or nil.
    public var items: RemoteTreeItems { RemoteTreeItems(cache: cache) }

    /// The number of rows.
    public var total: Int { cache.total }

    /// Fetches the first block and starts following the view's events.
    @discardableResult
    public func open() async throws -> ListUpdate {
        let update = try await refresh()
        startFollowing()
        return update
    }

    /// Stops following events (the rows stay as they are).
    public func close() {
        follower.cancel()
        streamConnected = false
        gapTimer?.cancel()
        gapTimer = nil
    }

    // MARK: Loading rows

    /// Loads the rows of `range` that are not cached (a block at a time, aligned to
    /// `blockSize`), and marks the others as used. Answers the rows filled (as reloads).
    @discardableResult
    public func load(_ range: Range<Int>) async throws -> ListUpdate {
        cache.touch(range)
        for gap in cache.missing(in: range) {
            var start = gap.lowerBound / blockSize * blockSize
            while start < gap.upperBound {
                try await fetch(offset: start)
                start += blockSize
            }
        }
        return takeUpdate()
    }

    /// Fetches the block at `offset` and stores it by the version rules; a page older than the
    /// version held is fetched again.
    private func fetch(offset: Int) async throws {
        for _ in 0..<5 {
            let epoch = self.epoch
            let page = try await client.rows(session, view: view, filter: filter, offset: offset, limit: blockSize)
            guard epoch == self.epoch else { return }
            if accept(page, reset: false) {
                if !page.rows.isEmpty {
                    record(ListChange(reload: [ReloadRange(index: offset, count: page.rows.count)]))
                }
                return
            }
        }
        throw Problem(type: "about:blank", title: "Stale rows", status: 0,
                      detail: "GET rows kept answering versions older than \(version)")
    }

    /// Takes a page: at the version held, its rows are stored; at a later version the cache is
    /// stale (everything dropped, the page's version and rows adopted, a reset); at an earlier
    /// one it is refused (false). `reset`: drop everything even at the version held.
    private func accept(_ page: RowsPage, reset: Bool) -> Bool {
        if page.version < version { return false }
        if page.version > version || reset || page.total != cache.total {
            let old = cache.total
            cache.removeAll()
            cache.total = page.total
            version = page.version
            buffered = buffered.filter { $0.key > page.version }
            record(.reset(from: old, to: page.total))
        }
        cache.store(page.rows.map(RemoteTreeItem.init(row:)), at: page.offset)
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
        for _ in 0..<5 {
            let epoch = self.epoch
            let page = try await client.rows(session, view: view, filter: filter, offset: 0, limit: blockSize)
            guard epoch == self.epoch else { return }
            if accept(page, reset: true) { return }
        }
        throw Problem(type: "about:blank", title: "Stale rows", status: 0,
                      detail: "GET rows kept answering versions older than \(version)")
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

    /// Refreshes in a task of its own and hands its reset to `onChange`.
    private func refreshLater() {
        Task { [weak self] in
            guard let self else { return }
            try? await self.fetchFirstBlock()
            self.flushToListener()
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
        updatesContinuation.yield(update)
        return update
    }

    /// Hands what was applied outside a call to `onChange`.
    func flushToListener() {
        guard !pending.isEmpty else { return }
        let update = takeUpdate()
        onChange?(update)
    }

    // MARK: Filtering

    /// Names other rows: filtered rows for `filter` (or the unfiltered rows): everything is
    /// dropped, the first block fetched, the stream reopened from that block's version.
    @discardableResult
    public func setFilter(_ filter: RowFilter) async throws -> ListUpdate {
        follower.cancel()
        streamConnected = false
        epoch += 1
        self.filter = filter
        buffered.removeAll()
        gapTimer?.cancel()
        gapTimer = nil
        let epoch = self.epoch
        let page = try await client.rows(session, view: view, filter: filter, offset: 0, limit: blockSize)
        guard epoch == self.epoch else { return takeUpdate() }
        let old = cache.total
        cache.removeAll()
        cache.total = page.total
        version = page.version
        record(.reset(from: old, to: page.total))
        cache.store(page.rows.map(RemoteTreeItem.init(row:)), at: page.offset)
        startFollowing()
        return takeUpdate()
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
