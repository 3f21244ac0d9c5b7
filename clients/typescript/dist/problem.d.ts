import type { JSONValue } from "./api.js";
/** The members of an `application/problem+json` answer (RFC 9457) as tree-server writes them. */
export interface ProblemDetails {
    /** `urn:treesessions:problem:<slug>`, or `about:blank` for an answer that was not problem+json. */
    type: string;
    title: string;
    status: number;
    detail: string;
    /** A JSON Pointer into the request body (`/operations/3/parentId`), when the server names one. */
    pointer?: string;
    byteOffset?: number;
    line?: number;
    column?: number;
    [member: string]: JSONValue | undefined;
}
/**
 * A non-2xx answer. For `application/problem+json` it carries the problem's members; for any
 * other answer `type` is `about:blank`, `title` the status text and `detail` the body's text.
 */
export declare class ProblemError extends Error {
    readonly type: string;
    readonly title: string;
    readonly status: number;
    readonly detail: string;
    readonly pointer: string | undefined;
    /** Every member of the problem document, the ones above included. */
    readonly problem: ProblemDetails;
    /** The answer's `ETag` (a 412 names the current version there), or null. */
    readonly etag: string | null;
    /** `Retry-After` in seconds, when the answer has one. */
    readonly retryAfter: number | null;
    constructor(problem: ProblemDetails, etag?: string | null, retryAfter?: number | null);
    /** The slug of `type`: `version-mismatch` for `urn:treesessions:problem:version-mismatch`. */
    get slug(): string;
    /** Reads a non-2xx `Response` (consuming its body) into a `ProblemError`. */
    static from(response: Response): Promise<ProblemError>;
}
