// tree-server: the tree sessions service over HTTP/1.1.
//
//   swift run -c release tree-server -- --host 0.0.0.0 --port 8080
//
// Every flag can also be given as an environment variable (TREE_PORT=8080 ...);
// a flag wins over its variable.
import Foundation
import HTTP1
import TreeProcess
import TreeService
import TreeStorage

// First of all, as it may execute this program again: large blocks on transparent huge pages.
let hugePages = ProcessMemory.useTransparentHugePages()

struct Option {
    let flag: String
    let variable: String
    let help: String
    let apply: (String, inout Settings) throws -> Void
}

struct Settings {
    var http = HTTPServerConfiguration(host: "127.0.0.1", port: 8080)
    var service = ServiceConfiguration()
    var accessLog = true
    /// nil: memory only.
    var dataDirectory: String? = "tree-sessions-data"
    var fsync = FsyncMode.batch
    /// nil: `--max-streams` and room for as many requests as there are workers' worth.
    var maxConnections: Int? = nil
    var heartbeat = 15
    /// Seconds a shutdown waits for the requests in progress.
    var shutdownTimeout = 10
    /// nil: the HTTP layer's default, or what a journal record holds with a data directory.
    var maxBody: Int? = nil
    /// `--token`, and the files of more admin tokens and of signing keys, read again on SIGHUP.
    var token: String? = nil
    var tokenFile: String? = nil
    var signingKeyFile: String? = nil

    /// The credentials the flags and files give now.
    func credentials() throws -> Credentials {
        func read<T>(_ path: String, _ flag: String, _ parse: (String) throws(CredentialsError) -> T) throws -> T {
            guard let data = FileManager.default.contents(atPath: path) else { throw UsageError(description: "\(flag): cannot read \(path)") }
            guard let text = String(data: data, encoding: .utf8) else { throw UsageError(description: "\(flag): \(path) is not UTF-8 text") }
            do { return try parse(text) } catch { throw UsageError(description: "\(flag) \(path): \(error.description)") }
        }
        var credentials = Credentials()
        if let token {
            do { credentials.adminTokens = [try Credentials.adminToken(token)] } catch { throw UsageError(description: "--token: \(error.description)") }
        }
        if let tokenFile { credentials.adminTokens += try read(tokenFile, "--token-file", Credentials.adminTokens(file:)) }
        if let signingKeyFile { credentials.signingKeys = try read(signingKeyFile, "--signing-key-file", Credentials.signingKeys(file:)) }
        return credentials
    }
}

struct UsageError: Error, CustomStringConvertible {
    let description: String
}

func integer(_ text: String, _ flag: String, minimum: Int = 0) throws -> Int {
    guard let n = Int(text), n >= minimum else { throw UsageError(description: "\(flag) needs an integer ≥ \(minimum), not \"\(text)\"") }
    return n
}

let options: [Option] = [
    Option(flag: "--host", variable: "TREE_HOST", help: "address to listen on: 127.0.0.1, 0.0.0.0, ::, ::1 (default 127.0.0.1)") { $1.http.host = $0 },
    Option(flag: "--port", variable: "TREE_PORT", help: "TCP port, 0 for any free one (default 8080)") { $1.http.port = try integer($0, "--port") },
    Option(flag: "--session-ttl", variable: "TREE_SESSION_TTL", help: "seconds a session may stay idle, unless its upload asks for its own ttl; 0: never expire (default 1800)") { $1.service.sessionTTL = .seconds(try integer($0, "--session-ttl")) },
    Option(flag: "--max-session-ttl", variable: "TREE_MAX_SESSION_TTL", help: "the longest ttl an upload may ask for, 422 beyond (0 never is longer than any); 0: any (default 0)") { $1.service.maxSessionTTL = .seconds(try integer($0, "--max-session-ttl")) },
    Option(flag: "--view-ttl", variable: "TREE_VIEW_TTL", help: "seconds a view (POST /sessions/{sid}/views) may stay idle while no event stream follows it; 0: never expire (default: its session's ttl)") { $1.service.viewTTL = .seconds(try integer($0, "--view-ttl")) },
    Option(flag: "--max-views", variable: "TREE_MAX_VIEWS", help: "most views in one session besides its default view, 429 beyond (default 10000)") { $1.service.maxViewsPerSession = try integer($0, "--max-views") },
    Option(flag: "--max-sessions", variable: "TREE_MAX_SESSIONS", help: "most sessions at once, 429 beyond (default 1000)") { $1.service.maxSessions = try integer($0, "--max-sessions", minimum: 1) },
    Option(flag: "--max-nodes", variable: "TREE_MAX_NODES", help: "most nodes in one session, 429 beyond (default 20000000)") { $1.service.maxNodesPerSession = try integer($0, "--max-nodes", minimum: 1) },
    Option(flag: "--max-total-nodes", variable: "TREE_MAX_TOTAL_NODES", help: "most nodes over all sessions, 503 beyond (default 60000000)") { $1.service.maxTotalNodes = try integer($0, "--max-total-nodes", minimum: 1) },
    Option(flag: "--max-depth", variable: "TREE_MAX_DEPTH", help: "deepest nesting of an upload (default 1000000)") { $1.service.maxDepth = try integer($0, "--max-depth", minimum: 1) },
    Option(flag: "--max-page", variable: "TREE_MAX_PAGE", help: "largest limit of a page of rows (default 1000)") { $1.service.maxPageLimit = try integer($0, "--max-page", minimum: 1) },
    Option(flag: "--max-batch", variable: "TREE_MAX_BATCH", help: "most operations in one batch, 413 beyond (default 100000)") { $1.service.maxBatchOperations = try integer($0, "--max-batch", minimum: 1) },
    Option(flag: "--max-body", variable: "TREE_MAX_BODY", help: "largest request body in bytes, 413 beyond (default 1073741824; with a data directory \(TreeService.maxBodyWithDataDirectory), the most a change's journal record holds, and at most that)") { $1.maxBody = try integer($0, "--max-body", minimum: 1) },
    Option(flag: "--max-buffered-bodies", variable: "TREE_MAX_BUFFERED_BODIES", help: "bytes of request bodies and their parses in memory at once, 503 beyond, 413 for one larger than all of it (default a quarter of memory: \(MemoryBudget.defaultCapacity))") { $1.http.bodyBudgetCapacity = try integer($0, "--max-buffered-bodies", minimum: 1) },
    Option(flag: "--worker-threads", variable: "TREE_WORKER_THREADS", help: "threads that serve requests other than GET, HEAD and OPTIONS, which may block on fsyncs and session locks; more at once wait in a queue, and reads go on meanwhile (default 64)") { $1.http.workerThreads = try integer($0, "--worker-threads", minimum: 1) },
    Option(flag: "--max-connections", variable: "TREE_MAX_CONNECTIONS", help: "most open connections, event streams included, 503 beyond (default --max-streams + 1024)") { $1.maxConnections = try integer($0, "--max-connections", minimum: 1) },
    Option(flag: "--max-streams", variable: "TREE_MAX_STREAMS", help: "most event streams open at once, 429 beyond (default 10000)") { $1.service.maxStreams = try integer($0, "--max-streams", minimum: 0) },
    Option(flag: "--max-session-streams", variable: "TREE_MAX_SESSION_STREAMS", help: "most event streams open on one session, 429 beyond (default 1000)") { $1.service.maxStreamsPerSession = try integer($0, "--max-session-streams", minimum: 0) },
    Option(flag: "--sse-heartbeat", variable: "TREE_SSE_HEARTBEAT", help: "seconds between heartbeat comments on event streams (default 15)") { $1.heartbeat = try integer($0, "--sse-heartbeat", minimum: 1) },
    Option(flag: "--header-timeout", variable: "TREE_HEADER_TIMEOUT", help: "seconds to receive a request head, 408 beyond (default 10)") { $1.http.headerReadTimeout = .seconds(try integer($0, "--header-timeout", minimum: 1)) },
    Option(flag: "--body-timeout", variable: "TREE_BODY_TIMEOUT", help: "seconds without body progress, 408 beyond (default 30)") { $1.http.bodyReadTimeout = .seconds(try integer($0, "--body-timeout", minimum: 1)) },
    Option(flag: "--idle-timeout", variable: "TREE_IDLE_TIMEOUT", help: "seconds a keep-alive connection may idle (default 60)") { $1.http.idleTimeout = .seconds(try integer($0, "--idle-timeout", minimum: 1)) },
    Option(flag: "--shutdown-timeout", variable: "TREE_SHUTDOWN_TIMEOUT", help: "seconds a shutdown (SIGTERM, SIGINT) waits for the requests in progress; then one whose response has not begun gets 503 and Connection: close (default 10)") { $1.shutdownTimeout = try integer($0, "--shutdown-timeout") },
    Option(flag: "--token", variable: "TREE_TOKEN", help: "admin token: Authorization: Bearer <token> may do everything; without any admin token the server is open to anyone (default none)") { $1.token = $0.isEmpty ? nil : $0 },
    Option(flag: "--token-file", variable: "TREE_TOKEN_FILE", help: "file of admin tokens, one per line (# comments), beside --token; read again on SIGHUP, so tokens rotate without a restart (default none)") { $1.tokenFile = $0.isEmpty ? nil : $0 },
    Option(flag: "--signing-key-file", variable: "TREE_SIGNING_KEY_FILE", help: "file of the keys that sign session tokens, one per line as ID SECRET (32+ bytes), the first signing; read again on SIGHUP; give every instance the same file (default: a key made at start, so tokens end with the process)") { $1.signingKeyFile = $0.isEmpty ? nil : $0 },
    Option(flag: "--max-token-ttl", variable: "TREE_MAX_TOKEN_TTL", help: "the longest ttl of a token minted by POST /sessions/{sid}/tokens, in seconds, at most \(TreeService.longestTTL) (default 2592000, 30 days)") {
        let seconds = try integer($0, "--max-token-ttl", minimum: 1)
        guard seconds <= TreeService.longestTTL else { throw UsageError(description: "--max-token-ttl can be at most \(TreeService.longestTTL), not \(seconds)") }
        $1.service.maxTokenTTL = .seconds(seconds)
    },
    Option(flag: "--cors-origins", variable: "TREE_CORS_ORIGINS", help: "comma-separated origins allowed by CORS, or * (default none)") { $1.service.corsOrigins = $0.split(separator: ",").map(String.init) },
    Option(flag: "--data-dir", variable: "TREE_DATA_DIR", help: "directory where sessions and every change are stored, created if missing; none: memory only (default tree-sessions-data)") {
        $1.dataDirectory = $0 == "none" ? nil : $0
        if $0.isEmpty { throw UsageError(description: "--data-dir needs a path or none") }
    },
    Option(flag: "--fsync", variable: "TREE_FSYNC", help: "when a change is made durable before its response: always (its own fsync), batch (fsyncs shared by the changes that arrive together), off (the OS writes it back) (default batch)") {
        guard let mode = FsyncMode(rawValue: $0) else { throw UsageError(description: "--fsync must be always, batch or off, not \"\($0)\"") }
        $1.fsync = mode
    },
    Option(flag: "--instance", variable: "TREE_INSTANCE", help: "this server's name behind a proxy routing by session id: 1 to 32 of a-z, 0-9, -; the ids of its sessions start with it and a dot, and it answers 404 for another instance's (default none)") {
        guard ServiceConfiguration.isValidInstanceName($0) else {
            throw UsageError(description: "--instance needs 1 to 32 lowercase letters, digits or -, not \"\($0)\"")
        }
        $1.service.instance = $0
    },
    Option(flag: "--access-log", variable: "TREE_ACCESS_LOG", help: "one log line per request: true or false (default true)") {
        guard $0 == "true" || $0 == "false" else { throw UsageError(description: "--access-log must be true or false, not \"\($0)\"") }
        $1.accessLog = $0 == "true"
    },
]

@MainActor func usage() -> String {
    var text = "usage: tree-server [options]\n\nOptions (each also as an environment variable):\n"
    let flagWidth = options.map(\.flag.count).max()!, variableWidth = options.map(\.variable.count).max()!
    for o in options { text += "  \(o.flag.padding(toLength: flagWidth, withPad: " ", startingAt: 0)) \(o.variable.padding(toLength: variableWidth, withPad: " ", startingAt: 0)) \(o.help)\n" }
    text += "  \("--help".padding(toLength: flagWidth + 1 + variableWidth, withPad: " ", startingAt: 0)) this text\n"
    text += "  \("--version".padding(toLength: flagWidth + 1 + variableWidth, withPad: " ", startingAt: 0)) the version of tree-server\n"
    return text
}

@MainActor func settings() throws -> Settings {
    var s = Settings()
    let environment = ProcessInfo.processInfo.environment
    for o in options { if let value = environment[o.variable] { try o.apply(value, &s) } }
    var args = CommandLine.arguments.dropFirst()
    while let arg = args.popFirst() {
        if arg == "--help" || arg == "-h" { print(usage(), terminator: ""); exit(0) }
        if arg == "--version" { print("tree-server \(TreeService.version)"); exit(0) }
        let (flag, inline) = arg.contains("=") ? (String(arg.prefix { $0 != "=" }), String(arg.drop { $0 != "=" }.dropFirst())) : (arg, nil)
        guard let o = options.first(where: { $0.flag == flag }) else { throw UsageError(description: "unknown option \(arg)") }
        guard let value = inline ?? args.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
        try o.apply(value, &s)
    }
    if s.dataDirectory != nil {
        // A change is journaled as one record, its request's body in it.
        let most = TreeService.maxBodyWithDataDirectory
        if let maxBody = s.maxBody, maxBody > most {
            throw UsageError(description: "--max-body can be at most \(most) with a data directory (a change and its body are one journal record), not \(maxBody)")
        }
        s.http.maxBodySize = min(s.maxBody ?? s.http.maxBodySize, most)
    } else if let maxBody = s.maxBody {
        s.http.maxBodySize = maxBody
    }
    s.service.credentials = try s.credentials()
    return s
}

func log(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

do {
    var s = try settings()
    s.http.maxConnections = s.maxConnections ?? s.service.maxStreams + 1024
    // Each connection is a file descriptor: the soft limit (often 1024) goes up to what the
    // connection limit needs, as far as the hard limit allows.
    let wantedFiles = s.http.maxConnections + 256
    if let files = OpenFileLimit.raise(to: wantedFiles), files < wantedFiles {
        log("tree-server: open files are limited to \(files) (ulimit -n), fewer than --max-connections needs (\(wantedFiles)); connections beyond fail")
    }
    // Large blocks (session columns, request bodies) in their own mappings, so that freeing
    // them gives the memory back, which the service asks for after dropping large sessions;
    // see ProcessMemory.
    ProcessMemory.fixAllocatorThresholds()
    s.service.returnFreedMemory = { ProcessMemory.returnFreedMemory() }
    log("tree-server: " + hugePages)
    var directory: DataDirectory? = nil
    if let path = s.dataDirectory {
        directory = try DataDirectory(path: path, fsync: s.fsync)
        log("tree-server: data directory \(path), fsync \(s.fsync.rawValue)")
        // Its sessions' ids name the instance that the proxy routes them to.
        let others = try s.service.otherInstances(in: directory!)
        if let instance = s.service.instance, !others.isEmpty {
            throw UsageError(description: "the data directory \(path) holds sessions of instance \(others.joined(separator: ", ")), and this is instance \(instance): a data directory belongs to the instance its session ids name")
        }
    } else {
        log("tree-server: memory only (--data-dir none): sessions are lost when the server stops")
    }
    let service = TreeService(configuration: s.service, dataDirectory: directory, log: { log("tree-server: " + $0) })
    if service.isOpen {
        log("tree-server: open: no admin token (--token, --token-file), so any request may read, change and delete every session; give one before the server is reachable by others")
    } else {
        log("tree-server: \(s.service.credentials.adminTokens.count) admin token(s); session tokens signed with " + (s.signingKeyFile == nil ? "a key made at start (they end with this process; give --signing-key-file to keep them)" : "the keys of \(s.signingKeyFile!)"))
    }
    // SIGHUP reads the token and key files again; a file that cannot be read keeps what was there.
    signal(SIGHUP, SIG_IGN)
    let reload = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global(qos: .utility))
    reload.setEventHandler {
        do {
            try service.replaceCredentials(try s.credentials())
            log("tree-server: SIGHUP: credentials read again")
        } catch {
            log("tree-server: SIGHUP: credentials kept as they were: \(error)")
        }
    }
    reload.resume()
    s.http.errorRenderer = TreeService.httpErrorRenderer
    if s.accessLog {
        s.http.accessLog = { entry in
            let ms = Double(entry.duration.components.seconds) * 1000 + Double(entry.duration.components.attoseconds) / 1e15
            log("\(entry.method) \(entry.logTag ?? entry.target) \(entry.status) \(String(format: "%.2f", ms))ms \(entry.bodyBytes)B \(entry.remoteAddress)")
        }
    }
    // The stored sessions are announced before the server listens (each answers 503 with
    // Retry-After until it is loaded, never 404) and load in the background.
    service.loadStoredSessions()
    let server = HTTPServer(configuration: s.http, responder: service)
    try server.start()
    log("tree-server: listening on \(s.http.host):\(server.boundPort)")
    let upkeep = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
    upkeep.schedule(deadline: .now() + 10, repeating: 10)
    upkeep.setEventHandler { service.recordUse() }
    upkeep.resume()
    let heartbeat = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
    heartbeat.schedule(deadline: .now() + .seconds(s.heartbeat), repeating: .seconds(s.heartbeat))
    heartbeat.setEventHandler { service.sendHeartbeats() }
    heartbeat.resume()
    try server.runUntilTerminated(shutdownDeadline: .seconds(s.shutdownTimeout))
    heartbeat.cancel()
    upkeep.cancel()
    reload.cancel()
    guard service.shutDownStorage() else {
        log("tree-server: stopped, but changes acknowledged before may not be on disk (see above); exit 1")
        exit(1)
    }
    log("tree-server: stopped")
} catch let error as UsageError {
    log("tree-server: \(error.description); see tree-server --help")
    exit(2)
} catch {
    log("tree-server: \(error)")
    exit(1)
}
