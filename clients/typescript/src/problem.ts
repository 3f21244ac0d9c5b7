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
export class ProblemError extends Error {
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

  constructor(problem: ProblemDetails, etag: string | null = null, retryAfter: number | null = null) {
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
  get slug(): string {
    const prefix = "urn:treesessions:problem:";
    return this.type.startsWith(prefix) ? this.type.slice(prefix.length) : this.type;
  }

  /** Reads a non-2xx `Response` (consuming its body) into a `ProblemError`. */
  static async from(response: Response): Promise<ProblemError> {
    const text = await response.text().catch(() => "");
    const etag = response.headers.get("ETag");
    const retry = response.headers.get("Retry-After");
    const retryAfter = retry !== null && /^[0-9]+$/.test(retry) ? Number(retry) : null;
    const media = (response.headers.get("Content-Type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (media === "application/problem+json" || media === "application/json") {
      try {
        const parsed: unknown = JSON.parse(text);
        if (isProblem(parsed)) {
          return new ProblemError(parsed, etag, retryAfter);
        }
      } catch {
        // not JSON after all: fall through to the plain form
      }
    }
    const problem: ProblemDetails = {
      type: "about:blank",
      title: response.statusText || `HTTP ${response.status}`,
      status: response.status,
      detail: text,
    };
    return new ProblemError(problem, etag, retryAfter);
  }
}

function isProblem(value: unknown): value is ProblemDetails {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return false;
  }
  const v = value as { [key: string]: unknown };
  return typeof v["type"] === "string" && typeof v["title"] === "string" &&
    typeof v["status"] === "number" && typeof v["detail"] === "string";
}
