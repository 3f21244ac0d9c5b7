/**
 * Server-sent events over `fetch` streaming: a parser of the HTML standard's event stream
 * format (pure, fed any chunks) and a reader that follows a stream across reconnects with
 * `Last-Event-ID` and backoff. `fetch` can send headers (`Authorization`, `Last-Event-ID`),
 * which `EventSource` cannot.
 */
import { ProblemError } from "./problem.js";
/**
 * The event stream format (https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream):
 * lines end at CR, LF or CRLF (also split across chunks); `field: value` with one optional
 * space after the colon; a line starting with `:` is a comment; a blank line dispatches the
 * event, unless it has no data. Bytes are decoded as UTF-8 (a character split across chunks
 * too) and a leading byte order mark is skipped.
 *
 * - Complexity: O(length of the chunk) per `push`.
 */
export class SSEParser {
    decoder = new TextDecoder("utf-8");
    buffer = "";
    pendingCR = false;
    started = false;
    eventType = "";
    data = [];
    hasData = false;
    lastId = "";
    /** The last `retry:` value in milliseconds, or null while the stream gave none. */
    retry = null;
    /** Feeds a chunk (text, or bytes of UTF-8) and answers the events it completes. */
    push(chunk) {
        let text = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
        if (!this.started && text.length > 0) {
            this.started = true;
            if (text.charCodeAt(0) === 0xfeff) {
                text = text.slice(1);
            }
        }
        const events = [];
        let start = 0;
        let i = 0;
        if (this.pendingCR && text.length > 0) {
            // A CR ended the last chunk's line; an LF right after it belongs to that line end.
            this.pendingCR = false;
            if (text.charCodeAt(0) === 10) {
                start = i = 1;
            }
        }
        for (; i < text.length; i++) {
            const c = text.charCodeAt(i);
            if (c !== 10 && c !== 13) {
                continue;
            }
            const line = this.buffer + text.slice(start, i);
            this.buffer = "";
            if (c === 13) {
                if (i + 1 < text.length) {
                    if (text.charCodeAt(i + 1) === 10) {
                        i++;
                    }
                }
                else {
                    this.pendingCR = true;
                }
            }
            start = i + 1;
            const event = this.line(line);
            if (event !== null) {
                events.push(event);
            }
        }
        this.buffer += text.slice(start);
        return events;
    }
    line(line) {
        if (line === "") {
            return this.dispatch();
        }
        if (line.charCodeAt(0) === 58 /* : */) {
            return null;
        }
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.charCodeAt(0) === 32) {
            value = value.slice(1);
        }
        switch (field) {
            case "event":
                this.eventType = value;
                break;
            case "data":
                this.data.push(value);
                this.hasData = true;
                break;
            case "id":
                if (!value.includes("\u0000")) {
                    this.lastId = value;
                }
                break;
            case "retry":
                if (/^[0-9]+$/.test(value)) {
                    this.retry = Number(value);
                }
                break;
            default:
                break; // unknown fields are ignored
        }
        return null;
    }
    dispatch() {
        const type = this.eventType;
        const data = this.data.join("\n");
        const hasData = this.hasData;
        this.eventType = "";
        this.data = [];
        this.hasData = false;
        if (!hasData) {
            return null;
        }
        return { type: type === "" ? "message" : type, data, lastEventId: this.lastId };
    }
}
/** Statuses on connect after which reconnecting cannot help. */
const FATAL = new Set([400, 401, 403, 404]);
/** The shortest wait before a reconnect that a stream's `retry:` can ask for. */
const MIN_RETRY_MS = 250;
/**
 * Follows an event stream: opens it, parses it, and on an error or a close opens it again
 * after a delay that starts at the stream's `retry:` (at least 250 ms) or `initialDelayMs`,
 * and doubles up to `maxDelayMs`, starting over only after an event arrived (not on a
 * connect). A 429 or 503 waits at least its `Retry-After`. A connection silent for
 * `idleTimeoutMs` is aborted and opened again. `close()` aborts the open request and every wait.
 */
export function followEventStream(options) {
    const controller = new AbortController();
    const signal = controller.signal;
    const maxDelay = options.maxDelayMs ?? 30000;
    const idleMs = options.idleTimeoutMs ?? 45000;
    let connected = false;
    let retry = null;
    /** One connection: answers why it ended (null: the server closed it). */
    const connect = async () => {
        const attempt = new AbortController();
        const abort = () => attempt.abort();
        signal.addEventListener("abort", abort);
        let idle = null;
        let silent = false;
        const arm = () => {
            if (idleMs > 0) {
                if (idle !== null) {
                    clearTimeout(idle);
                }
                idle = setTimeout(() => {
                    silent = true;
                    attempt.abort();
                }, idleMs);
            }
        };
        arm();
        let error = null;
        try {
            const response = await options.open(options.lastEventId(), attempt.signal);
            const body = response.body;
            if (attempt.signal.aborted) {
                await body?.cancel().catch(() => undefined);
            }
            else if (body === null) {
                error = new Error("the event stream answered no body");
            }
            else {
                connected = true;
                options.onOpen?.();
                error = await read(body.getReader(), attempt.signal, arm);
            }
        }
        catch (e) {
            error = e;
        }
        finally {
            if (idle !== null) {
                clearTimeout(idle);
            }
            signal.removeEventListener("abort", abort);
            connected = false;
        }
        return silent && !signal.aborted ? new Error(`the event stream was silent for ${idleMs} ms`) : error;
    };
    /** Reads a connection's events until it ends; the reader is cancelled unless it was read to its end. */
    const read = async (reader, aborted, arm) => {
        const parser = new SSEParser();
        parser.retry = retry;
        const cancel = () => void reader.cancel().catch(() => undefined);
        aborted.addEventListener("abort", cancel);
        let finished = false;
        try {
            for (;;) {
                const { done, value } = await reader.read();
                if (done) {
                    finished = true;
                    return null;
                }
                if (aborted.aborted) {
                    return null;
                }
                arm();
                for (const event of parser.push(value)) {
                    if (aborted.aborted) {
                        return null;
                    }
                    delay = null; // an event arrived: the backoff starts over
                    options.onEvent(event);
                }
                retry = parser.retry;
            }
        }
        finally {
            aborted.removeEventListener("abort", cancel);
            retry = parser.retry;
            if (!finished) {
                cancel();
            }
        }
    };
    /** The last wait before a reconnect; null: the next one starts from the stream's `retry:`. */
    let delay = null;
    const run = async () => {
        while (!signal.aborted) {
            const error = await connect();
            if (signal.aborted) {
                break;
            }
            if (error instanceof ProblemError && FATAL.has(error.status)) {
                options.onFatal?.(error);
                break;
            }
            const base = retry !== null ? Math.max(retry, MIN_RETRY_MS) : options.initialDelayMs ?? 1000;
            delay = delay === null ? base : Math.min(delay * 2, maxDelay);
            let wait = delay;
            if (error instanceof ProblemError && (error.status === 429 || error.status === 503) && error.retryAfter !== null) {
                wait = Math.max(wait, error.retryAfter * 1000);
            }
            options.onDisconnect?.(error, wait);
            await sleep(wait, signal);
        }
    };
    const done = run();
    return {
        get connected() {
            return connected;
        },
        close() {
            controller.abort();
        },
        done,
    };
}
function sleep(ms, signal) {
    return new Promise((resolve) => {
        if (signal.aborted) {
            resolve();
            return;
        }
        const timer = setTimeout(done, ms);
        function done() {
            clearTimeout(timer);
            signal.removeEventListener("abort", done);
            resolve();
        }
        signal.addEventListener("abort", done);
    });
}
