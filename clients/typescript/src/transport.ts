import { ProblemError } from "./problem.js";

/** The shape of `fetch` the transport needs (the platform's, or a test double). */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface TransportOptions {
  /** The server's origin and any path prefix: `http://127.0.0.1:8080` (no trailing slash needed). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>` on every request, event streams included. */
  token?: string | null;
  /** Defaults to the global `fetch`. */
  fetch?: FetchLike;
}

/** A value of a query parameter; `undefined` and `null` leave the parameter out. */
export type QueryValue = string | number | boolean | null | undefined;
export type QueryParams = { readonly [name: string]: QueryValue };

/** A request body that is not JSON: CSV, NDJSON, a path list. */
export class RawBody {
  constructor(readonly contentType: string, readonly text: string) {}
}

/** A 2xx answer: its status, `ETag` and `Location` headers, and its decoded body. */
export interface Answer<T> {
  readonly status: number;
  readonly etag: string | null;
  readonly location: string | null;
  readonly value: T;
}

/** What every generated method takes besides its parameters. */
export interface RequestOptions {
  signal?: AbortSignal;
}

/**
 * A request as the generated methods describe it. `expect` says how to read a 2xx body:
 * `json`, `text`, `none` (204), or `auto` (by the answer's `Content-Type`).
 */
export interface RequestSpec {
  method: string;
  path: string;
  query?: QueryParams;
  headers?: { readonly [name: string]: string | undefined };
  body?: unknown;
  expect: "json" | "text" | "none" | "auto" | "stream";
  accept?: string;
  signal?: AbortSignal;
}

/** Base URL, bearer token and `fetch`: what every call goes through. */
export class Transport {
  readonly baseUrl: string;
  token: string | null;
  private readonly fetchImpl: FetchLike;

  constructor(options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.token = options.token ?? null;
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** The absolute URL of `path` with `query` (parameters in the order given, undefined/null left out). */
  url(path: string, query?: QueryParams): string {
    let url = this.baseUrl + path;
    if (query) {
      const pairs: string[] = [];
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

  private init(spec: RequestSpec): RequestInit {
    const headers: Record<string, string> = {};
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
    const init: RequestInit = { method: spec.method, headers };
    if (spec.body !== undefined) {
      if (spec.body instanceof RawBody) {
        headers["Content-Type"] = spec.body.contentType;
        init.body = spec.body.text;
      } else {
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
  async request(spec: RequestSpec): Promise<Answer<unknown>> {
    const response = await this.fetchImpl(this.url(spec.path, spec.query), this.init(spec));
    const etag = response.headers.get("ETag");
    const location = response.headers.get("Location");
    if (response.status === 304) {
      return { status: 304, etag, location, value: null };
    }
    if (!response.ok) {
      throw await ProblemError.from(response);
    }
    let value: unknown;
    const media = (response.headers.get("Content-Type") ?? "").split(";")[0]!.trim().toLowerCase();
    const json = media === "application/json" || (media.startsWith("application/") && media.endsWith("+json"));
    if (spec.expect === "none" || response.status === 204) {
      await response.body?.cancel();
      value = undefined;
    } else if (spec.expect === "json" || (spec.expect === "auto" && json)) {
      value = await response.json();
    } else {
      value = await response.text();
    }
    return { status: response.status, etag, location, value };
  }

  /** Sends the request and answers the open `Response` (an event stream); non-2xx throws. */
  async open(spec: RequestSpec): Promise<Response> {
    const response = await this.fetchImpl(this.url(spec.path, spec.query), this.init({ ...spec, expect: "stream" }));
    if (!response.ok) {
      throw await ProblemError.from(response);
    }
    return response;
  }
}
