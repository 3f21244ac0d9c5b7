import { ProblemError } from "./problem.js";
/** A request body that is not JSON: CSV, NDJSON, a path list. */
export class RawBody {
    contentType;
    text;
    constructor(contentType, text) {
        this.contentType = contentType;
        this.text = text;
    }
}
/** Base URL, bearer token and `fetch`: what every call goes through. */
export class Transport {
    baseUrl;
    token;
    fetchImpl;
    constructor(options) {
        this.baseUrl = options.baseUrl.replace(/\/+$/, "");
        this.token = options.token ?? null;
        this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    }
    /** The absolute URL of `path` with `query` (parameters in the order given, undefined/null left out). */
    url(path, query) {
        let url = this.baseUrl + path;
        if (query) {
            const pairs = [];
            for (const [name, value] of Object.entries(query)) {
                if (value === undefined || value === null) {
                    continue;
                }
                pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
            }
            if (pairs.length > 0) {
                url += "?" + pairs.join("&");
            }
        }
        return url;
    }
    init(spec) {
        const headers = {};
        if (this.token !== null) {
            headers["Authorization"] = `Bearer ${this.token}`;
        }
        for (const [name, value] of Object.entries(spec.headers ?? {})) {
            if (value !== undefined) {
                headers[name] = value;
            }
        }
        const accept = spec.accept ?? (spec.expect === "stream" ? "text/event-stream" : spec.expect === "json" ? "application/json" : undefined);
        if (accept !== undefined) {
            headers["Accept"] = accept;
        }
        const init = { method: spec.method, headers };
        if (spec.body !== undefined) {
            if (spec.body instanceof RawBody) {
                headers["Content-Type"] = spec.body.contentType;
                init.body = spec.body.text;
            }
            else {
                headers["Content-Type"] = "application/json";
                init.body = JSON.stringify(spec.body);
            }
        }
        if (spec.signal !== undefined) {
            init.signal = spec.signal;
        }
        return init;
    }
    /** Sends the request; a non-2xx (other than 304) throws a `ProblemError`. */
    async request(spec) {
        const response = await this.fetchImpl(this.url(spec.path, spec.query), this.init(spec));
        const etag = response.headers.get("ETag");
        const location = response.headers.get("Location");
        if (response.status === 304) {
            return { status: 304, etag, location, value: null };
        }
        if (!response.ok) {
            throw await ProblemError.from(response);
        }
        let value;
        const media = (response.headers.get("Content-Type") ?? "").split(";")[0].trim().toLowerCase();
        const json = media === "application/json" || (media.startsWith("application/") && media.endsWith("+json"));
        if (spec.expect === "none" || response.status === 204) {
            await response.body?.cancel();
            value = undefined;
        }
        else if (spec.expect === "json" || (spec.expect === "auto" && json)) {
            value = await response.json();
        }
        else {
            value = await response.text();
        }
        return { status: response.status, etag, location, value };
    }
    /** Sends the request and answers the open `Response` (an event stream); non-2xx throws. */
    async open(spec) {
        const response = await this.fetchImpl(this.url(spec.path, spec.query), this.init({ ...spec, expect: "stream" }));
        if (!response.ok) {
            throw await ProblemError.from(response);
        }
        return response;
    }
}
