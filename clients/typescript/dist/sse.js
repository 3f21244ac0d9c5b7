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
/**
 * Follows an event stream: opens it, parses it, and on an error or a close opens it again
 * after a delay that starts at the stream's `retry:` (or `initialDelayMs`) and doubles up to
 * `maxDelayMs`, starting over after an event arrives. `Retry-After` of a 429 or 503 lengthens
 * the wait. `close()` aborts the open request and every wait.
 */
export function followEventStream(options) {
    const controller = new AbortController();
    const signal = controller.signal;
    const maxDelay = options.maxDelayMs ?? 30000;
    let connected = false;
    let retry = null;
    const run = async () => {
        let delay = null;
        while (!signal.aborted) {
            let error = null;
            try {
                const response = await options.open(options.lastEventId(), signal);
                if (signal.aborted) {
                    await response.body?.cancel().catch(() => undefined);
                    break;
                }
                connected = true;
                options.onOpen?.();
                const parser = new SSEParser();
                parser.retry = retry;
                const body = response.body;
                if (body === null) {
                    throw new Error("the event stream answered no body");
                }
                const reader = body.getReader();
                const cancel = () => void reader.cancel().catch(() => undefined);
                signal.addEventListener("abort", cancel);
                try {
                    for (;;) {
                        const { done, value } = await reader.read();
                        if (done || signal.aborted) {
                            break;
                        }
                        for (const event of parser.push(value)) {
                            if (signal.aborted) {
                                break;
                            }
                            delay = null; // an event arrived: the backoff starts over
                            options.onEvent(event);
                        }
                        retry = parser.retry;
                    }
                }
                finally {
                    signal.removeEventListener("abort", cancel);
                    retry = parser.retry;
                }
            }
            catch (e) {
                error = e;
            }
            connected = false;
            if (signal.aborted) {
                break;
            }
            if (error instanceof ProblemError && FATAL.has(error.status)) {
                options.onFatal?.(error);
                break;
            }
            const base = retry ?? options.initialDelayMs ?? 1000;
            delay = delay === null ? base : Math.min(delay * 2, maxDelay);
            let wait = delay;
            if (error instanceof ProblemError && error.retryAfter !== null) {
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
