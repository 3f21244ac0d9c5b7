// A scripted TreeSessions server for the version-rule and race tests: a fetch double whose
// answers the test steers (changes by splices, failures, delays, older pages, events pushed by
// hand), so that the order of what happens is the test's. Rows: the unfiltered ids given (40
// ids `u0…` by default), and `<filter>0…` for a filter; a rows page read with `highlight=h`
// carries `match` and a title ending in `[hl=h]`. PATCH answers a change of no splices at the
// next version (reloading row 0).
import { Transport, TreeRows, TreeSessionsApi } from "../dist/index.js";

const json = (value, status = 200, headers = {}) =>
  new Response(JSON.stringify(value), { status, headers: { "Content-Type": "application/json", ...headers } });

export const problem = (status, slug, headers = {}) =>
  new Response(JSON.stringify({ type: `urn:treesessions:problem:${slug}`, title: slug, status, detail: slug }),
    { status, headers: { "Content-Type": "application/problem+json", ...headers } });

export class Scripted {
  constructor({ ids = Array.from({ length: 40 }, (_, i) => `u${i}`), version = 5 } = {}) {
    this.version = version;
    this.unfiltered = ids;
    this.previous = null;    // the unfiltered ids and version before the last `change`
    this.requests = [];
    this.streams = [];
    this.failRows = 0;       // fail this many rows requests (a network error) …
    this.failWith = null;    // … or, when set, with this answer (a function answering a Response)
    this.delayRows = 0;      // ms before a rows page is answered
    this.olderPages = 0;     // answer this many rows pages from the version before (`previous`, or the same ids at version − 1)
    this.patch = null;       // when set: (url, init) => Response for PATCH requests
    this.cancelled = 0;      // event stream bodies cancelled by the client
  }
  /** Moves the unfiltered rows to the next version by splices, answering the change (not yet sent). */
  change(splices, reload = []) {
    this.previous = { ids: this.unfiltered.slice(), version: this.version };
    let fresh = 0;
    for (const { index, removed, inserted } of splices) {
      this.unfiltered.splice(index, removed, ...Array.from({ length: inserted }, () => `v${this.version + 1}-${fresh++}`));
    }
    this.version++;
    return { version: this.version, total: this.unfiltered.length, changes: splices, reload };
  }
  idsFor(u) {
    const f = u.searchParams.get("filter");
    return f ? Array.from({ length: 40 }, (_, i) => `${f}${i}`) : this.unfiltered;
  }
  push(type, data, id) {
    const text = `event: ${type}\n${id === undefined ? "" : `id: ${id}\n`}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
    this.send(text);
  }
  send(text) {
    for (const s of this.streams) { try { s.enqueue(new TextEncoder().encode(text)); } catch { /* closed */ } }
  }
  get rowsRequests() { return this.requests.filter((r) => r.includes("/rows")); }
  get eventRequests() { return this.requests.filter((r) => r.includes("/events")); }
  fetch = async (url, init) => {
    const u = new URL(url);
    this.requests.push(`${init.method} ${u.pathname}${u.search} ${init.headers["Last-Event-ID"] ?? init.headers["If-Match"] ?? ""}`.trim());
    if (u.pathname.endsWith("/events")) {
      let controller;
      const body = new ReadableStream({ start: (c) => { controller = c; }, cancel: () => { this.cancelled++; } });
      this.streams.push(controller);
      init.signal?.addEventListener("abort", () => { try { controller.error(new DOMException("aborted", "AbortError")); } catch { /* closed */ } });
      return new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream" } });
    }
    if (init.method === "PATCH") {
      if (this.patch) return this.patch(u, init);
      this.version++;
      return json({ version: this.version, total: this.unfiltered.length, changes: [], reload: [{ index: 0, count: 1 }] });
    }
    if (u.pathname.endsWith("/rows")) {
      if (this.delayRows) await new Promise((r) => setTimeout(r, this.delayRows));
      if (this.failRows > 0) {
        this.failRows--;
        if (this.failWith) return this.failWith();
        throw new TypeError("fetch failed (scripted)");
      }
      const offset = Number(u.searchParams.get("offset") ?? 0);
      const limit = Number(u.searchParams.get("limit") ?? 50);
      const h = u.searchParams.get("highlight");
      let ids = this.idsFor(u);
      let version = this.version;
      if (this.olderPages > 0) {
        this.olderPages--;
        if (this.previous && !u.searchParams.get("filter")) ({ ids, version } = this.previous);
        else version--;
      }
      const rows = ids.slice(offset, offset + limit).map((id, k) => ({
        index: offset + k, id, title: h === null ? id : `${id} [hl=${h}]`, level: 0, expanded: false, hasChildren: false, parentId: null,
        ...(h === null ? {} : { match: id.includes(h) }),
      }));
      const page = { version, filter: u.searchParams.get("filter"), total: ids.length, offset, limit, rows };
      return json(page, 200, { ETag: `"${version}"` });
    }
    return problem(404, "not-found");
  };
}

export const settle = (ms = 30) => new Promise((r) => setTimeout(r, ms));

export function make(server, options = {}) {
  const api = new TreeSessionsApi(new Transport({ baseUrl: "http://scripted", fetch: server.fetch }));
  return new TreeRows(api, { blockSize: 10, gapTimeoutMs: 100, onError: () => {}, ...options });
}

/** A cache opened on view v1 of session S, following its stream (open by the time it answers). */
export async function following(server, options = {}) {
  const rows = make(server, options);
  await rows.open("S", "v1");
  rows.subscribe();
  for (let i = 0; i < 100 && rows.streamStatus !== "open"; i++) await settle(5);
  return rows;
}
