/**
 * Server-sent events over `fetch` streaming: a parser of the HTML standard's event stream
 * format (pure, fed any chunks) and a reader that follows a stream across reconnects with
 * `Last-Event-ID` and backoff. `fetch` can send headers (`Authorization`, `Last-Event-ID`),
 * which `EventSource` cannot.
 */
/** One dispatched event: its type (`message` when the stream named none), data and last id. */
export interface SSEEvent {
    readonly type: string;
    /** The `data:` lines joined by "\n". */
    readonly data: string;
    /** The last event id the stream set (`id:` persists across events, as in `EventSource`). */
    readonly lastEventId: string;
}
/**
 * The event stream format (https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream):
 * lines end at CR, LF or CRLF (also split across chunks); `field: value` with one optional
 * space after the colon; a line starting with `:` is a comment; a blank line dispatches the
 * event, unless it has no data. Bytes are decoded as UTF-8 (a character split across chunks
 * too) and a leading byte order mark is skipped.
 *
 * - Complexity: O(length of the chunk) per `push`.
 */
export declare class SSEParser {
    private decoder;
    private buffer;
    private pendingCR;
    private started;
    private eventType;
    private data;
    private hasData;
    private lastId;
    /** The last `retry:` value in milliseconds, or null while the stream gave none. */
    retry: number | null;
    /** Feeds a chunk (text, or bytes of UTF-8) and answers the events it completes. */
    push(chunk: string | Uint8Array): SSEEvent[];
    private line;
    private dispatch;
}
/** How `followEventStream` reaches the stream and reports what it reads. */
export interface EventStreamOptions {
    /**
     * Opens the stream: a fetch with `Last-Event-ID` (when not null) that answers the open
     * `Response`, or throws (`ProblemError` for a non-2xx answer). `signal` aborts this one
     * connection (on `close()`, or when the idle watchdog fires).
     */
    open(lastEventId: string | null, signal: AbortSignal): Promise<Response>;
    /** The `Last-Event-ID` to send on each (re)connect; null sends none. */
    lastEventId(): string | null;
    /** An event; when it throws, the connection is dropped (its body cancelled) and opened again. */
    onEvent(event: SSEEvent): void;
    /** The stream is open (its answer was 2xx). */
    onOpen?(): void;
    /** The stream closed or failed and will be opened again after `delayMs`. */
    onDisconnect?(error: unknown, delayMs: number): void;
    /** The stream cannot be followed (400, 401, 403, 404 on connect): nothing more is tried. */
    onFatal?(error: unknown): void;
    /** The first delay before a reconnect when the stream gave no `retry:` (default 1000 ms). */
    initialDelayMs?: number;
    /** The longest delay between reconnects (default 30000 ms). */
    maxDelayMs?: number;
    /**
     * A connection on which nothing (not even a heartbeat comment; TreeSessions sends one every
     * 15 s) was read for this long, connecting included, is aborted and opened again (default
     * 45000 ms; 0: never).
     */
    idleTimeoutMs?: number;
}
/** A followed stream: `connected` while a stream is open, `close()` to stop for good. */
export interface EventStreamHandle {
    readonly connected: boolean;
    close(): void;
    /** Settles once the loop has stopped (after `close()`, a fatal error, or never otherwise). */
    readonly done: Promise<void>;
}
/**
 * Follows an event stream: opens it, parses it, and on an error or a close opens it again
 * after a delay that starts at the stream's `retry:` (at least 250 ms) or `initialDelayMs`,
 * and doubles up to `maxDelayMs`, starting over only after an event arrived (not on a
 * connect). A 429 or 503 waits at least its `Retry-After`. A connection silent for
 * `idleTimeoutMs` is aborted and opened again. `close()` aborts the open request and every wait.
 */
export declare function followEventStream(options: EventStreamOptions): EventStreamHandle;
