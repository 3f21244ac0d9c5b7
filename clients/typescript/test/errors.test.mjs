// Errors: ProblemError for problem+json answers (404, 422 with its pointer) and for other
// non-2xx answers; a tree edit with a stale held version is retried once after a refresh,
// and a second 412 is thrown.
import test from "node:test";
import assert from "node:assert/strict";
import { ProblemError, Transport, TreeRows, TreeSessionsApi } from "../dist/index.js";
import { startServer } from "./server.mjs";

let server;
test.before(async () => { server = await startServer(); });
test.after(async () => { await server?.stop(); });

const tree = { nodes: [
  { id: "a", title: "A", expanded: true, children: [{ id: 1, title: "one" }, { id: "two", title: "two" }] },
  { id: "b", title: "B" },
] };

/** An API whose fetch records every request (method, path, If-Match, status), and may run `before` first. */
function recordingApi(log, before = null) {
  const transport = new Transport({
    baseUrl: server.url,
    fetch: async (url, init) => {
      if (before) await before(init);
      const response = await fetch(url, init);
      const path = new URL(url).pathname;
      log.push({ method: init.method, path, ifMatch: init.headers["If-Match"] ?? null, status: response.status });
      return response;
    },
  });
  return new TreeSessionsApi(transport);
}

test("a 412 is caught up with a refresh and the edit retried once with the new version", async () => {
  const api = TreeSessionsApi.at(server.url);
  const sid = (await api.createSession(tree)).value.id;
  const log = [];
  const rows = new TreeRows(recordingApi(log));
  await rows.open(sid); // not subscribed: it cannot learn of the next edit
  assert.equal(rows.version, 1);
  await api.patchItem(sid, "b", { title: "B, renamed behind its back" }); // version 2
  const seen = [];
  rows.onChange((c) => seen.push(c.kind));
  log.length = 0;
  const change = await rows.update("two", { title: "two, renamed" });
  assert.equal(change.version, 3);
  assert.deepEqual(log.map((r) => `${r.method} ${r.status} ${r.ifMatch ?? "-"}`),
    ['PATCH 412 "1"', "GET 200 -", 'PATCH 200 "2"']);
  assert.deepEqual(seen, ["reset", "splices"]);
  assert.equal(rows.version, 3);
  const page = (await api.getRows(sid)).value;
  for (const row of rows.cachedRows()) assert.deepEqual(row, page.rows[row.index]);
  rows.close();
});

test("a second 412 is thrown as a ProblemError", async () => {
  const api = TreeSessionsApi.at(server.url);
  const sid = (await api.createSession(tree)).value.id;
  const log = [];
  let n = 0;
  // Before every PATCH, another client edits: the held version is always stale.
  const rows = new TreeRows(recordingApi(log, async (init) => {
    if (init.method === "PATCH") await api.patchItem(sid, "b", { title: `B ${n++}` });
  }));
  await rows.open(sid);
  await assert.rejects(rows.move("two", null, 0), (e) => {
    assert.ok(e instanceof ProblemError);
    assert.equal(e.status, 412);
    assert.equal(e.slug, "version-mismatch");
    assert.match(e.etag, /^"[0-9]+"$/);
    return true;
  });
  assert.equal(log.filter((r) => r.method === "PATCH").length, 2);
  rows.close();
});

test("404 and 422 are ProblemErrors with their members", async () => {
  const api = TreeSessionsApi.at(server.url);
  const sid = (await api.createSession(tree)).value.id;
  const rows = new TreeRows(api);
  await rows.open(sid);
  await assert.rejects(rows.delete("nope"), (e) => {
    assert.ok(e instanceof ProblemError);
    assert.equal(e.status, 404);
    assert.equal(e.type, "urn:treesessions:problem:not-found");
    assert.equal(e.title, "Not Found");
    assert.equal(typeof e.detail, "string");
    return true;
  });
  await assert.rejects(rows.insert([{ id: "new", title: "x" }, { id: 1, title: "taken" }], { parentId: "a" }), (e) => {
    assert.ok(e instanceof ProblemError);
    assert.equal(e.status, 422);
    assert.equal(e.slug, "invalid-node");
    assert.equal(e.pointer, "/nodes/1/id");
    assert.equal(e.problem.pointer, "/nodes/1/id");
    return true;
  });
  await assert.rejects(rows.batch([{ op: "update", id: "a", title: "ok" }, { op: "move", id: "two", parentId: "a", index: 99 }]), (e) => {
    assert.equal(e.status, 422);
    assert.match(e.pointer, /^\/operations\/1/);
    assert.match(e.detail, /^operation 1: /);
    return true;
  });
  await assert.rejects(api.getRows(sid, { limit: 5000 }), (e) => e instanceof ProblemError && e.status === 400 && e.slug === "bad-query-parameter");
  // Nothing of the failed requests was applied.
  assert.equal(rows.version, 1);
  assert.equal((await api.getSession(sid)).value.version, 1);
  rows.close();
});

test("a non-problem answer becomes a ProblemError with its text", async () => {
  const api = new TreeSessionsApi(new Transport({
    baseUrl: "http://example.invalid",
    fetch: async () => new Response("upstream down", { status: 502, statusText: "Bad Gateway", headers: { "Content-Type": "text/plain" } }),
  }));
  await assert.rejects(api.getHealth(), (e) => {
    assert.ok(e instanceof ProblemError);
    assert.deepEqual([e.status, e.type, e.title, e.detail], [502, "about:blank", "Bad Gateway", "upstream down"]);
    return true;
  });
});

test("non-JSON answers come as text, 304 as a null value with the ETag", async () => {
  const api = TreeSessionsApi.at(server.url);
  const sid = (await api.createSession(tree)).value.id;
  const csv = await api.getTree(sid, { format: "csv" });
  assert.equal(typeof csv.value, "string");
  assert.match(csv.value, /^id,parentId,title/);
  assert.equal(csv.etag, '"1-csv"');
  const yaml = await api.getOpenAPI();
  assert.match(yaml.value, /^openapi: 3\.1/);
  const first = await api.getRows(sid, { limit: 1 });
  assert.equal(first.etag, '"1"');
  const again = await api.getRows(sid, { limit: 1 }, { ifNoneMatch: first.etag });
  assert.equal(again.status, 304);
  assert.equal(again.value, null);
  const deleted = await api.deleteSession(sid);
  assert.equal(deleted.status, 204);
  assert.equal(deleted.value, undefined);
});
