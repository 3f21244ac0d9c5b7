/**
 * A non-2xx answer. For `application/problem+json` it carries the problem's members; for any
 * other answer `type` is `about:blank`, `title` the status text and `detail` the body's text.
 */
export class ProblemError extends Error {
    type;
    title;
    status;
    detail;
    pointer;
    /** Every member of the problem document, the ones above included. */
    problem;
    /** The answer's `ETag` (a 412 names the current version there), or null. */
    etag;
    /** `Retry-After` in seconds, when the answer has one. */
    retryAfter;
    constructor(problem, etag = null, retryAfter = null) {
        super(`${problem.status} ${problem.title}: ${problem.detail}`);
        this.name = "ProblemError";
        this.type = problem.type;
        this.title = problem.title;
        this.status = problem.status;
        this.detail = problem.detail;
        this.pointer = problem.pointer;
        this.problem = problem;
        this.etag = etag;
        this.retryAfter = retryAfter;
    }
    /** The slug of `type`: `version-mismatch` for `urn:treesessions:problem:version-mismatch`. */
    get slug() {
        const prefix = "urn:treesessions:problem:";
        return this.type.startsWith(prefix) ? this.type.slice(prefix.length) : this.type;
    }
    /** Reads a non-2xx `Response` (consuming its body) into a `ProblemError`. */
    static async from(response) {
        const text = await response.text().catch(() => "");
        const etag = response.headers.get("ETag");
        const retry = response.headers.get("Retry-After");
        const retryAfter = retry !== null && /^[0-9]+$/.test(retry) ? Number(retry) : null;
        const media = (response.headers.get("Content-Type") ?? "").split(";")[0].trim().toLowerCase();
        if (media === "application/problem+json" || media === "application/json") {
            try {
                const parsed = JSON.parse(text);
                if (isProblem(parsed)) {
                    return new ProblemError(parsed, etag, retryAfter);
                }
            }
            catch {
                // not JSON after all: fall through to the plain form
            }
        }
        const problem = {
            type: "about:blank",
            title: response.statusText || `HTTP ${response.status}`,
            status: response.status,
            detail: text,
        };
        return new ProblemError(problem, etag, retryAfter);
    }
}
function isProblem(value) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
        return false;
    }
    const v = value;
    return typeof v["type"] === "string" && typeof v["title"] === "string" &&
        typeof v["status"] === "number" && typeof v["detail"] === "string";
}
