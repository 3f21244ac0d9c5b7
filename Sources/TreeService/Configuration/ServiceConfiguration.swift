/// The service's settings; `tree-server` fills them from flags and environment variables.
public struct ServiceConfiguration: Sendable {
    /// Idle time after which a session is dropped, unless its upload asked for another
    /// (`ttl`); zero: never.
    public var sessionTTL: Duration = .seconds(30 * 60)
    /// The longest `ttl` an upload may ask for; zero: any, "never" (0) included.
    public var maxSessionTTL: Duration = .zero
    /// Most sessions at once (429 beyond).
    public var maxSessions: Int = 1000
    /// Most nodes in one session (429 beyond).
    public var maxNodesPerSession: Int = 20_000_000
    /// Most nodes over all sessions (503 beyond, with Retry-After).
    public var maxTotalNodes: Int = 60_000_000
    /// Deepest nesting of an upload.
    public var maxDepth: Int = 1_000_000
    /// The default and the largest `limit` of a page of rows.
    public var defaultPageLimit: Int = 50
    public var maxPageLimit: Int = 1000
    /// Admin tokens and the keys of session tokens (see `Credentials`). Without admin tokens
    /// the server is open: a request without a credential may do anything.
    public var credentials = Credentials()
    /// The one admin token, when there is one (`--token`).
    public var token: String? {
        get { credentials.adminTokens.first }
        set { credentials.adminTokens = newValue.map { [$0] } ?? [] }
    }
    /// Origins allowed by CORS; `*` allows any. Empty: no CORS headers.
    public var corsOrigins: [String] = []
    /// Filtered rows kept per view (the most recently used filters).
    public var filteredViewsPerSession: Int = 4
    /// Idle time after which a view (`POST /sessions/{sid}/views`) is dropped, while no event
    /// stream follows it; zero: never; nil: the session's TTL (`ttl` of its upload, else
    /// `sessionTTL`).
    public var viewTTL: Duration? = nil
    /// Most views in one session besides its default view (429 beyond).
    public var maxViewsPerSession: Int = 10_000
    /// Most operations in one batch (413 beyond).
    public var maxBatchOperations: Int = 100_000
    /// A session's journal is compacted into a fresh snapshot once it grows past the larger
    /// of this and the snapshot's size (with a data directory).
    public var journalCompactionBytes: Int = 64 << 20
    /// This server's name among several behind a proxy (`--instance`): the ids of the
    /// sessions it creates start with it and a dot, and an id that names another instance
    /// answers 404 (see ServiceConfiguration+Instance.swift). nil: ids have no prefix.
    public var instance: String? = nil
    /// Most event streams open at once on this server, and on one session (429 beyond).
    public var maxStreams: Int = 10_000
    public var maxStreamsPerSession: Int = 1000
    /// How long a view whose last event stream left keeps its backlog for a reconnect.
    public var eventBacklogLinger: Duration = .seconds(300)
    /// The longest `ttl` of a token minted by `POST /sessions/{sid}/tokens`.
    public var maxTokenTTL: Duration = .seconds(30 * 86400)
    /// How long a token from `POST /sessions/{sid}/events/token` lasts.
    public var accessTokenTTL: Duration = .seconds(60)
    /// Gives the memory of dropped sessions back to the system; called off the request's
    /// thread, at most one call pending, after a drop of at least 100K nodes (a removal, a
    /// sweep, a large upload's reader). The service does not know how: tree-server passes
    /// `ProcessMemory.returnFreedMemory` (`malloc_trim`). Default: nothing.
    public var returnFreedMemory: @Sendable () -> Void = {}

    public init() {}
}
