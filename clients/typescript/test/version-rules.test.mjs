// The version rules against a scripted server (a fetch double), so that the order of events
// is the test's: a change past held + 1 waits for the gap to be filled, a gap that stays
// open is refreshed, old changes are skipped, resets and `end` are obeyed, a rows page older
// than the held version is fetched again.
import test from "node:test";
import assert from "node:assert/strict";
import { Scripted, make } from "./scripted.mjs";

const settle = () => new Promise((r) => setTimeout(r, 20));

async function opened(server, options = {}) {
  const rows = make(server, options);
  await rows.open("S", "0123456789abcdef");
  rows.subscribe();
  await settle();
  return rows;
}

function assertMatches(rows, server) {
  assert.equal(rows.version, server.version);
  assert.equal(rows.total, server.unfiltered.length);
  for (const row of rows.cachedRows()) assert.equal(row.id, server.unfiltered[row.index], `row ${row.index}`);
}

test("changes out of order wait for the gap, then apply in order", async () => {
  const server = new Scripted({ ids: Array.from({ length: 10 }, (_, i) => `r${i}`), version: 5 });
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
  assert.deepEqual(got.map((r) => r.id), server.unfiltered.slice(0, 10));
  rows.close();
});

test("a gap the stream does not fill is refreshed; resets and end are obeyed", async () => {
  const server = new Scripted({ ids: Array.from({ length: 30 }, (_, i) => `r${i}`), version: 1 });
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
  server.push("reset", { version: 3, total: server.unfiltered.length, reason: "subscribed" }, 3);
  await settle();
  assert.equal(server.requests.length, before, "a subscribed reset at the held version fetches nothing");
  server.push("reset", { version: 3, total: server.unfiltered.length, reason: "view" }, 3);
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
  const server = new Scripted({ ids: Array.from({ length: 30 }, (_, i) => `r${i}`), version: 1 });
  const rows = await opened(server, { blockSize: 10 });
  const v2 = server.change([{ index: 0, removed: 0, inserted: 3 }]);
  server.push("change", v2, 2);
  await settle();
  assert.equal(rows.version, 2);
  server.olderPages = 1; // the next page answers version 1
  const got = await rows.rows(10, 20);
  assert.deepEqual(got.map((r) => r.id), server.unfiltered.slice(10, 20));
  assert.equal(server.requests.filter((r) => r.startsWith("GET") && r.includes("/rows")).length, 3, "open, the stale page, the page again");

  const kinds = [];
  rows.onChange((c) => kinds.push(c.kind));
  server.change([{ index: 0, removed: 2, inserted: 0 }]); // v3, whose event has not come yet
  const again = await rows.rows(20, 25);
  assert.deepEqual(kinds, ["reset"], "a page of a later version: every held row was stale");
  assert.deepEqual(again.map((r) => r.id), server.unfiltered.slice(20, 25));
  assertMatches(rows, server);
  rows.close();
});

test("without a connected stream a gap is refreshed at once", async () => {
  const server = new Scripted({ ids: ["a", "b", "c"], version: 4 });
  const rows = make(server, { gapTimeoutMs: 60000 });
  await rows.open("S");
  server.change([{ index: 0, removed: 1, inserted: 0 }]);
  const v6 = server.change([{ index: 0, removed: 0, inserted: 1 }]);
  rows["receive"](v6, rows["generation"]); // as an answer of its own request would be
  await rows.whenVersion(6, 1000);
  assertMatches(rows, server);
  rows.close();
});
