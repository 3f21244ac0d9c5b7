// TreeRows against a scripted server (test/scripted.mjs), for what a real server rarely shows:
// a filter whose first page fails, filters and changes that overlap, a refresh that fails,
// concurrent reads of one block, a bad event, a 412 of another kind, an unbounded hold of
// events, a cache closed while it reads.
import test from "node:test";
import assert from "node:assert/strict";
import { ProblemError } from "../dist/index.js";
import { Scripted, following, make, problem, settle } from "./scripted.mjs";

const ids = (list) => list.map((r) => r.id).join(",");

for (const [what, fail] of [
  ["a network error", (server) => { server.failRows = 1; }],
  ["a 409", (server) => { server.failRows = 1; server.failWith = () => problem(409, "conflict"); }],
  ["a 400", (server) => { server.failRows = 1; server.failWith = () => problem(400, "bad-query-parameter"); }],
]) {
  test(`a setFilter whose first page fails (${what}) changes nothing`, async () => {
    const server = new Scripted();
    const rows = await following(server);
    const kinds = [];
    rows.onChange((c) => kinds.push(c.kind));
    fail(server);
    await assert.rejects(rows.setFilter("F"));
    assert.equal(rows.filter, null);
    assert.equal(rows.version, 5);
    assert.equal(rows.total, 40);
    assert.deepEqual(kinds, []);
    assert.equal(rows.subscribed, true);
    assert.equal(rows.streamStatus, "open");
    assert.equal(ids(await rows.rows(0, 20)), server.unfiltered.slice(0, 20).join(","));
    // The stream still brings the old rows' changes.
    server.version = 6;
    server.push("change", { version: 6, total: 40, changes: [], reload: [] }, 6);
    await rows.whenVersion(6, 1000);
    assert.equal(server.eventRequests.length, 1, "the stream was never closed");
    rows.close();
  });
}

test("two setFilter calls at once: the last wins, and the stream follows its rows", async () => {
  const server = new Scripted();
  const rows = await following(server);
  server.delayRows = 20;
  await Promise.all([rows.setFilter("F"), rows.setFilter("FF")]);
  for (let i = 0; i < 100 && rows.streamStatus !== "open"; i++) await settle(5);
  assert.equal(rows.filter, "FF");
  assert.equal(rows.subscribed, true);
  assert.equal(rows.streamStatus, "open");
  assert.match(server.eventRequests.at(-1), /events\?filter=FF 5$/);
  assert.equal(ids(await rows.rows(0, 3)), "FF0,FF1,FF2");
  rows.close();
});

test("a change asked after a setFilter is sent after it, for its rows", async () => {
  const server = new Scripted();
  const rows = await following(server);
  server.delayRows = 20;
  const filtered = rows.setFilter("F");
  const expanded = rows.expand("F3");
  await Promise.all([filtered, expanded]);
  const patch = server.requests.findIndex((r) => r.startsWith("PATCH"));
  const page = server.requests.findIndex((r) => r.includes("/rows?filter=F"));
  assert.ok(page >= 0 && patch > page, `the PATCH after the filter's page: ${server.requests.join(" | ")}`);
  assert.match(server.requests[patch], /items\/F3\?filter=F$/);
  assert.equal(rows.version, 6, "its answer applied to the filtered rows");
  assert.equal(rows.row(0).id, "F0");
  assert.ok(rows.isStale(0));
  rows.close();
});

test("a queued selectRows never lands on another filter's rows", async () => {
  const server = new Scripted();
  const rows = await following(server);
  server.delayRows = 20;
  const filtered = rows.setFilter("F");
  const selected = rows.selectRows(0, 3); // row numbers of the unfiltered rows shown
  await filtered;
  await assert.rejects(selected, /selectRows/);
  assert.equal(server.requests.filter((r) => r.startsWith("PATCH")).length, 0);
  // Asked after the filter is on: sent.
  await rows.selectRows(0, 3);
  assert.equal(server.requests.filter((r) => r.startsWith("PATCH")).length, 1);
  rows.close();
});

test("a page read with an old highlight is never stored as current", async () => {
  const server = new Scripted();
  const rows = make(server);
  await rows.open("S", "v1");
  server.delayRows = 30;
  const filtered = rows.setFilter(null); // clearing the filter box …
  await settle(5);
  rows.setHighlight("u1"); // … and the find box, while its page is out
  await filtered;
  const got = await rows.rows(0, 3);
  assert.equal(rows.highlight, "u1");
  assert.deepEqual(got.map((r) => r.title), ["u0 [hl=u1]", "u1 [hl=u1]", "u2 [hl=u1]"]);
  rows.setAggregate("count");
  const again = rows.setFilter(null);
  await settle(5);
  rows.setAggregate(undefined);
  await again;
  assert.ok(!server.rowsRequests.at(-1).includes("aggregate"), server.rowsRequests.at(-1));
  rows.close();
});

test("a failed background refresh is retried until the cache catches up; settled() waits for it", async () => {
  const server = new Scripted();
  const errors = [];
  const rows = await following(server, { onError: (e) => errors.push(e.message) });
  server.version = 7;
  server.failRows = 2;
  server.push("change", { version: 7, total: 40, changes: [], reload: [] }, 7); // v6 never comes
  await settle();
  const started = Date.now();
  await rows.settled();
  assert.ok(Date.now() - started >= 2000, "two retries: 1 s, then 2 s");
  assert.equal(rows.version, 7);
  assert.deepEqual(errors, ["fetch failed (scripted)", "fetch failed (scripted)"]);
  rows.close();
});

test("refresh() never adopts a page older than the held version", async () => {
  const server = new Scripted();
  const rows = make(server);
  await rows.open("S", "v1");
  server.olderPages = 100;
  await assert.rejects(rows.refresh(), /older/);
  assert.equal(rows.version, 5);
  server.olderPages = 0;
  rows.close();
});

test("concurrent reads of one missing block make one request", async () => {
  const server = new Scripted();
  const rows = make(server);
  await rows.open("S", "v1");
  const before = server.requests.length;
  const got = await Promise.all(Array.from({ length: 10 }, (_, i) => rows.rows(20 + i, 21 + i)));
  assert.deepEqual(got.map((g) => g[0].id), server.unfiltered.slice(20, 30));
  await Promise.all([rows.rows(30, 45), rows.rows(35, 40), rows.rows(38, 50)]);
  assert.deepEqual(server.requests.slice(before), [
    "GET /sessions/S/views/v1/rows?offset=20&limit=10",
    "GET /sessions/S/views/v1/rows?offset=30&limit=10",
  ]);
  rows.close();
});

test("a bad event is reported, and the stream stays open", async () => {
  const server = new Scripted();
  const errors = [];
  const rows = await following(server, { onError: (e) => errors.push(e) });
  const states = [];
  rows.onStreamState((s) => states.push(s));
  server.push("change", "{not json", 6);
  await settle(100);
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof SyntaxError);
  assert.deepEqual(states, []);
  assert.equal(server.eventRequests.length, 1);
  assert.equal(server.cancelled, 0);
  rows.close();
});

test("a 412 other than version-mismatch is thrown at once", async () => {
  const server = new Scripted();
  const rows = make(server);
  await rows.open("S", "v1");
  server.patch = () => problem(412, "precondition-failed");
  const before = server.requests.length;
  await assert.rejects(rows.update("u1", { title: "x" }), (e) => e instanceof ProblemError && e.status === 412);
  assert.deepEqual(server.requests.slice(before).map((r) => r.split(" ")[0]), ["PATCH"]);
  // version-mismatch: refreshed and sent again.
  let n = 0;
  server.patch = () => (n++ === 0 ? problem(412, "version-mismatch")
    : new Response(JSON.stringify({ version: ++server.version, total: 40, changes: [], reload: [] }), { status: 200, headers: { "Content-Type": "application/json" } }));
  await rows.update("u1", { title: "x" });
  assert.equal(n, 2);
  rows.close();
});

test("a refresh answering 403 ends the stream", async () => {
  const server = new Scripted();
  const rows = await following(server);
  const ends = [];
  rows.onChange((c) => { if (c.kind === "end") ends.push(c); });
  server.failRows = 1;
  server.failWith = () => problem(403, "forbidden");
  server.push("reset", { version: 9, total: 40, reason: "view" }, 9);
  await settle(100);
  assert.equal(ends.length, 1);
  assert.equal(ends[0].error.status, 403);
  assert.equal(rows.subscribed, false);
  await rows.settled();
  rows.close();
});

test("events held while a change is out are bounded: past the bound, a refresh", async () => {
  const server = new Scripted();
  const rows = await following(server);
  rows["heldLimit"] = 5;
  let answer;
  server.patch = () => new Promise((resolve) => { answer = resolve; });
  const change = rows.expand("u1");
  await settle();
  for (let v = 6; v <= 15; v++) server.push("change", { version: v, total: 40, changes: [], reload: [] }, v);
  await settle();
  assert.ok(rows["heldEvents"].length <= 5);
  server.version = 16;
  answer(new Response(JSON.stringify({ version: 16, total: 40, changes: [], reload: [] }), { status: 200, headers: { "Content-Type": "application/json" } }));
  await change;
  await rows.settled();
  assert.equal(rows.version, 16);
  rows.close();
});

test("close() stops reads in flight from filling the store", async () => {
  const server = new Scripted();
  const rows = make(server);
  await rows.open("S", "v1");
  server.delayRows = 20;
  const reading = rows.rows(20, 30);
  await settle(5);
  rows.close();
  await assert.rejects(reading, /closed/);
  await settle(50);
  assert.equal(rows.cachedRows().length, 0);
  assert.equal(server.rowsRequests.length, 2);
});

test("the highlight's where is sent with it", async () => {
  const server = new Scripted();
  const rows = make(server);
  rows.setHighlight("u", { where: "data.size>3", match: "words" });
  await rows.open("S", "v1");
  assert.match(server.rowsRequests.at(-1), /highlight=u/);
  assert.match(server.rowsRequests.at(-1), /where=data.size%3E3/);
  rows.close();
});

test("subscribe() right after open(), before its page came, follows the opened rows", async () => {
  const server = new Scripted();
  const rows = make(server);
  const opened = rows.open("S", "v1", "F");
  rows.subscribe();
  await opened;
  for (let i = 0; i < 100 && rows.streamStatus !== "open"; i++) await settle(5);
  assert.equal(rows.streamStatus, "open");
  assert.deepEqual(server.eventRequests, ["GET /sessions/S/views/v1/events?filter=F 5"]);
  rows.close();
});
