/** The shape of `fetch` the transport needs (the platform's, or a test double). */
export declare type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;
export interface TransportOptions {
    /** The server's origin and any path prefix: `http://127.0.0.1:8080` (no trailing slash needed). */
    baseUrl: string;
    /** Sent as `Authorization: Bearer <token>` on every request, event streams included. */
    token?: string | null;
    /** Defaults to the global `fetch`. */
    fetch?: FetchLike;
}
/** A value of a query parameter; `undefined` and `null` leave the parameter out. */
export declare type QueryValue = string | number | boolean | null | undefined;
export declare type QueryParams = {
    readonly [name: string]: QueryValue;
};
/** A request body that is not JSON: CSV, NDJSON, a path list. */
export declare class RawBody {
    readonly contentType: string;
    readonly text: string;
    constructor(contentType: string, text: string);
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
    headers?: {
        readonly [name: string]: string | undefined;
    };
    body?: unknown;
    expect: "json" | "text" | "none" | "auto" | "stream";
    accept?: string;
    signal?: AbortSignal;
}
/** Base URL, bearer token and `fetch`: what every call goes through. */
export declare class Transport {
    readonly baseUrl: string;
    token: string | null;
    private readonly fetchImpl;
    constructor(options: TransportOptions);
    /** The absolute URL of `path` with `query` (parameters in the order given, undefined/null left out). */
    url(path: string, query?: QueryParams): string;
    private init;
    /** Sends the request; a non-2xx (other than 304) throws a `ProblemError`. */
    request(spec: RequestSpec): Promise<Answer<unknown>>;
    /** Sends the request and answers the open `Response` (an event stream); non-2xx throws. */
    open(spec: RequestSpec): Promise<Response>;
}
