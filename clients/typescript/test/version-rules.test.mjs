// The version rules against a scripted server (a fetch double), so that the order of events
// is the test's: a change past held + 1 waits for the gap to be filled, a gap that stays
// open is refreshed, old changes are skipped, resets and `end` are obeyed, a rows page older
// than the held version is fetched again.
import test from "node:test";
import assert from "node:assert/strict";
import { Transport, TreeRows, TreeSessionsApi } from "../dist/index.js";

/** A list of row ids at a version, served as rows pages; events pushed by the test. */
class ScriptedServer {
  constructor(ids, version) {
    this.ids = ids;
    this.version = version;
    this.requests = [];
    this.streams = [];
    this.stalePages = 0; // answer this many rows pages from the version before
    this.previous = null;
  }
  row(id, index) {
    return { index, id, title: `t-${id}`, level: 0, expanded: false, hasChildren: false, parentId: null };
  }
  /** Moves the model to the next version by splices, answering the change (not yet sent). */
  change(splices, reload = []) {
    this.previous = { ids: this.ids.slice(), version: this.version };
    let fresh = 0;
    for (const { index, removed, inserted } of splices) {
      this.ids.splice(index, removed, ...Array.from({ length: inserted }, () => `v${this.version + 1}-${fresh++}`));
    }
    this.version++;
    return { version: this.version, total: this.ids.length, changes: splices, reload };
  }
  push(type, data, id) {
    const text = `event: ${type}\n${id === undefined ? "" : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;
    for (const s of this.streams) s.enqueue(new TextEncoder().encode(text));
  }
  fetch = async (url, init) => {
    const u = new URL(url);
    this.requests.push(`${init.method} ${u.pathname}${u.search} ${init.headers["Last-Event-ID"] ?? ""}`.trim());
    if (u.pathname.endsWith("/events")) {
      let controller;
      const body = new ReadableStream({ start: (c) => { controller = c; } });
      this.streams.push(controller);
      init.signal?.addEventListener("abort", () => { try { controller.close(); } catch { /* closed */ } });
      return new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream" } });
    }
    if (u.pathname.endsWith("/rows")) {
      const offset = Number(u.searchParams.get("offset") ?? 0);
      const limit = Number(u.searchParams.get("limit") ?? 50);
      let { ids, version } = this;
      if (this.stalePages > 0 && this.previous) {
        this.stalePages--;
        ({ ids, version } = this.previous);
      }
      const rows = ids.slice(offset, offset + limit).map((id, k) => this.row(id, offset + k));
      const page = { version, filter: null, total: ids.length, offset, limit, rows };
      return new Response(JSON.stringify(page), { status: 200, headers: { "Content-Type": "application/json", ETag: `"${version}"` } });
    }
    return new Response(JSON.stringify({ type: "urn:treesessions:problem:not-found", title: "Not Found", status: 404, detail: "no" }),
      { status: 404, headers: { "Content-Type": "application/problem+json" } });
  };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

async function opened(server, options = {}) {
  const api = new TreeSessionsApi(new Transport({ baseUrl: "http://scripted", fetch: server.fetch }));
  const rows = new TreeRows(api, { blockSize: 10, gapTimeoutMs: 100, ...options });
  await rows.open("S", "0123456789abcdef");
  rows.subscribe();
  await settle();
  return rows;
}

function assertMatches(rows, server) {
  assert.equal(rows.version, server.version);
  assert.equal(rows.total, server.ids.length);
  for (const row of rows.cachedRows()) assert.equal(row.id, server.ids[row.index], `row ${row.index}`);
}

test("changes out of order wait for the gap, then apply in order", async () => {
  const server = new ScriptedServer(Array.from({ length: 10 }, (_, i) => `r${i}`), 5);
  const rows = await opened(server);
  assert.match(server.requests.at(-1), /^GET \/sessions\/S\/views\/0123456789abcdef\/events 5$/);
  const kinds = [];
  rows.onChange((c) => kinds.push(c.kind));
  const v6 = server.change([{ index: 2, removed: 1, inserted: 0 }], [{ index: 1, count: 1 }]);
  const v7 = server.change([{ index: 0, removed: 0, inserted: 2 }]);
  server.push("change", v7, 7);
  await settle();
  assert.equal(rows.version, 5, "v7 waits for v6");
  assert.equal(rows.row(3).id, "r3");
  server.push("change", v6, 6);
  await settle();
  assert.deepEqual(kinds, ["splices", "splices"]);
  assertMatches(rows, server);
  assert.equal(rows.row(0), undefined, "inserted rows are unknown");
  assert.equal(rows.row(1), undefined);
  // The reloaded row (r1, now at 3) stays readable, stale, until `rows` fetches it again.
  assert.equal(rows.row(3).id, "r1");
  assert.ok(rows.isStale(3) && !rows.isStale(4));
  assert.ok(!rows.cachedRows().some((r) => r.index === 3), "cachedRows leaves stale rows out");
  assert.equal(rows.row(4).id, "r3");
  server.push("change", v6, 6); // an old one again: skipped
  await settle();
  assert.deepEqual(kinds, ["splices", "splices"]);
  const got = await rows.rows(0, 10);
  assert.deepEqual(got.map((r) => r.id), server.ids.slice(0, 10));
  rows.close();
});

test("a gap the stream does not fill is refreshed; resets and end are obeyed", async () => {
  const server = new ScriptedServer(Array.from({ length: 30 }, (_, i) => `r${i}`), 1);
  const rows = await opened(server);
  const kinds = [];
  rows.onChange((c) => kinds.push(c.kind));
  server.change([{ index: 0, removed: 1, inserted: 0 }]); // v2 never sent
  const v3 = server.change([{ index: 5, removed: 0, inserted: 1 }]);
  server.push("change", v3, 3);
  await settle();
  assert.equal(rows.version, 1);
  await rows.whenVersion(3, 1000); // after gapTimeoutMs: a refresh
  assert.deepEqual(kinds, ["reset"]);
  assertMatches(rows, server);

  const before = server.requests.length;
  server.push("reset", { version: 3, total: server.ids.length, reason: "subscribed" }, 3);
  await settle();
  assert.equal(server.requests.length, before, "a subscribed reset at the held version fetches nothing");
  server.push("reset", { version: 3, total: server.ids.length, reason: "view" }, 3);
  await settle();
  assert.equal(server.requests.length, before + 1, "any other reset refreshes");
  assert.deepEqual(kinds, ["reset", "reset"]);

  const ended = new Promise((resolve) => rows.onChange((c) => { if (c.kind === "end") resolve(c); }));
  server.push("end", { reason: "deleted" });
  assert.deepEqual(await ended, { kind: "end", reason: "deleted" });
  assert.equal(rows.subscribed, false);
  rows.close();
});

test("a rows page older than the held version is fetched again; a newer one resets", async () => {
  const server = new ScriptedServer(Array.from({ length: 30 }, (_, i) => `r${i}`), 1);
  const rows = await opened(server, { blockSize: 10 });
  const v2 = server.change([{ index: 0, removed: 0, inserted: 3 }]);
  server.push("change", v2, 2);
  await settle();
  assert.equal(rows.version, 2);
  server.stalePages = 1; // the next page answers version 1
  const got = await rows.rows(10, 20);
  assert.deepEqual(got.map((r) => r.id), server.ids.slice(10, 20));
  assert.equal(server.requests.filter((r) => r.startsWith("GET") && r.includes("/rows")).length, 3, "open, the stale page, the page again");

  const kinds = [];
  rows.onChange((c) => kinds.push(c.kind));
  server.change([{ index: 0, removed: 2, inserted: 0 }]); // v3, whose event has not come yet
  const again = await rows.rows(20, 25);
  assert.deepEqual(kinds, ["reset"], "a page of a later version: every held row was stale");
  assert.deepEqual(again.map((r) => r.id), server.ids.slice(20, 25));
  assertMatches(rows, server);
  rows.close();
});

test("without a connected stream a gap is refreshed at once", async () => {
  const server = new ScriptedServer(["a", "b", "c"], 4);
  const api = new TreeSessionsApi(new Transport({ baseUrl: "http://scripted", fetch: server.fetch }));
  const rows = new TreeRows(api, { gapTimeoutMs: 60000 });
  await rows.open("S");
  server.change([{ index: 0, removed: 1, inserted: 0 }]);
  const v6 = server.change([{ index: 0, removed: 0, inserted: 1 }]);
  rows["receive"](v6, rows["generation"]); // as an answer of its own request would be
  await rows.whenVersion(6, 1000);
  assertMatches(rows, server);
  rows.close();
});
