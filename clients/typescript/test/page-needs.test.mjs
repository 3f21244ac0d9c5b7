// What a page built on TreeRows needs besides the rows (the demo is one): changes sent one at
// a time (`serially` computes one at its turn), a 412 not retried when the edit was computed
// from the rows shown (`retryConflicts: false`, and always for `selectRows`), a plain expand or
// collapse that refetches the item's own row only, rows kept readable while stale, positions
// fetched again after an edit, the page metadata, the stream's state, and a 409
// filter-superseded asked again.
import test from "node:test";
import assert from "node:assert/strict";
import { ProblemError, Transport, TreeRows, TreeSessionsApi } from "../dist/index.js";
import { startServer } from "./server.mjs";

let server;
test.before(async () => { server = await startServer(); });
test.after(async () => { await server?.stop(); });

const tree = { nodes: [
  { id: "a", title: "Alpha", expanded: true, children: [{ id: "a1", title: "Apple" }, { id: "a2", title: "Avocado" }] },
  { id: "b", title: "Bravo", expanded: true, children: [{ id: "b1", title: "Banana" }] },
  { id: "c", title: "Charlie" },
] };

/** An API whose requests are logged as "METHOD path?query". */
function loggingApi(log, base = server.url) {
  return new TreeSessionsApi(new Transport({
    baseUrl: base,
    fetch: (url, init) => {
      const u = new URL(url);
      log.push(`${init.method} ${u.pathname}${u.search}`);
      return fetch(url, init);
    },
  }));
}

async function session(api) {
  const sid = (await api.createSession(tree)).value.id;
  const vid = (await api.createView(sid, { from: "default" })).value.id;
  return { sid, vid };
}

test("changes wait for each other; serially computes one at its turn", async () => {
  const log = [];
  const api = loggingApi(log);
  const { sid, vid } = await session(api);
  const rows = new TreeRows(api, { positions: true });
  await rows.open(sid, vid);
  const order = [];
  // Two moves down of the first row, each computed from the rows the one before left.
  const down = () => rows.serially(async (now) => {
    const [first] = await rows.rows(1, 2); // Apple, then Avocado
    order.push(first.title);
    return now.move(first.id, first.parentId, first.position + 1);
  });
  await Promise.all([down(), down()]);
  assert.deepEqual(order, ["Apple", "Avocado"]);
  const page = (await api.getViewRows(sid, vid, { limit: 10 })).value;
  assert.deepEqual(page.rows.map((r) => r.title), ["Alpha", "Apple", "Avocado", "Bravo", "Banana", "Charlie"]);
  // The public methods queue too: a collapse asked while a serial work runs waits for it.
  const seen = [];
  const work = rows.serially(async () => { await new Promise((r) => setTimeout(r, 50)); seen.push("work"); });
  const collapse = rows.collapse("b").then(() => seen.push("collapse"));
  await Promise.all([work, collapse]);
  assert.deepEqual(seen, ["work", "collapse"]);
  rows.close();
});

test("positions: an edit makes every held row stale (still readable), rows() fetches their new places", async () => {
  const api = TreeSessionsApi.at(server.url);
  const { sid, vid } = await session(api);
  const rows = new TreeRows(api, { positions: true });
  await rows.open(sid, vid);
  assert.equal(rows.row(5).siblingCount, 3);
  await rows.insert([{ title: "Delta" }], { parentId: null });
  assert.equal(rows.total, 7);
  assert.ok(rows.isStale(5) && rows.row(5).title === "Charlie", "Charlie is stale, and shown");
  assert.equal(rows.cachedRows().length, 0);
  const fresh = await rows.rows(0, 7);
  assert.deepEqual(fresh, (await api.getViewRows(sid, vid, { limit: 10, positions: true })).value.rows);
  assert.equal(rows.row(5).siblingCount, 4);
  // A collapse moves no row among its siblings: nothing goes stale but the item's own row.
  await rows.collapse("a");
  assert.deepEqual(rows.cachedRows().map((r) => r.title), ["Bravo", "Banana", "Charlie", "Delta"]);
  assert.ok(rows.isStale(0));
  rows.close();
});

test("a plain expand or collapse reloads the item's own row only, also when its event comes first", async () => {
  const log = [];
  const api = loggingApi(log);
  const { sid, vid } = await session(api);
  const rows = new TreeRows(api, { positions: true });
  await rows.open(sid, vid);
  rows.subscribe(); // the collapse arrives as an event too, often before its answer: that waits
  for (let i = 0; i < 100 && rows.streamStatus !== "open"; i++) await new Promise((r) => setTimeout(r, 20));
  await rows.collapse("b");
  await new Promise((r) => setTimeout(r, 100));
  log.length = 0;
  const got = await rows.rows(0, rows.total);
  assert.deepEqual(log.filter((l) => l.includes("/rows")), [`GET /sessions/${sid}/views/${vid}/rows?offset=3&limit=1&positions=true`]);
  assert.deepEqual(got, (await api.getViewRows(sid, vid, { limit: 10, positions: true })).value.rows);
  rows.close();
});

test("retryConflicts false: a 412 refreshes and is thrown; selectRows is never retried", async () => {
  const log = [];
  const api = loggingApi(log);
  const { sid, vid } = await session(api);
  const rows = new TreeRows(api, { retryConflicts: false });
  await rows.open(sid, vid);
  await api.patchItem(sid, "c", { title: "Charlie elsewhere" }); // the view's version steps
  await assert.rejects(rows.update("c", { title: "Charlie here" }), (e) => e instanceof ProblemError && e.status === 412);
  assert.equal((await api.getItem(sid, "c")).value.title, "Charlie elsewhere");
  assert.equal((await rows.rows(5, 6))[0].title, "Charlie elsewhere", "refreshed");
  // Retried caches do not retry row numbers either.
  const retrying = new TreeRows(api);
  await retrying.open(sid, vid);
  await api.patchItem(sid, "c", { title: "Charlie" });
  log.length = 0;
  await assert.rejects(retrying.selectRows(0, 2), (e) => e instanceof ProblemError && e.status === 412);
  assert.equal(log.filter((l) => l.startsWith("PATCH")).length, 1);
  await retrying.selectRows(0, 2);
  await retrying.rows(0, 1);
  const selected = (await api.getViewRows(sid, vid, { limit: 0 })).value.selectedCount;
  assert.ok(selected >= 2);
  assert.equal(retrying.selectedCount, selected);
  rows.close();
  retrying.close();
});

test("page metadata, highlight and aggregates are read with the rows", async () => {
  const api = TreeSessionsApi.at(server.url);
  const { sid, vid } = await session(api);
  const rows = new TreeRows(api);
  await rows.open(sid, vid, "an");
  const matchCount = (await api.getViewRows(sid, vid, { filter: "an", limit: 0 })).value.matchCount;
  assert.equal(rows.matchCount, matchCount);
  await rows.setSort("-title");
  await rows.select("c");
  await rows.rows(0, 1);
  assert.equal(rows.sort, "-title");
  assert.equal(rows.selectedCount, 1);
  await rows.setFilter(null);
  rows.setHighlight("an");
  assert.equal(rows.cachedRows().length, 0, "every row is stale once the highlight changes");
  const shown = await rows.rows(0, rows.total);
  assert.deepEqual(shown, (await api.getViewRows(sid, vid, { highlight: "an", limit: 10 })).value.rows);
  assert.ok(shown.some((r) => r.match === true));
  rows.setAggregate("count");
  const counted = await rows.rows(0, 1);
  assert.equal(typeof counted[0].aggregates.count, "number");
  rows.close();
});

test("the stream's state: connecting, open, closed", async () => {
  const api = TreeSessionsApi.at(server.url);
  const { sid, vid } = await session(api);
  const rows = new TreeRows(api);
  await rows.open(sid, vid);
  const states = [];
  rows.onStreamState((s) => states.push(s));
  rows.subscribe();
  for (let i = 0; i < 100 && rows.streamStatus !== "open"; i++) await new Promise((r) => setTimeout(r, 20));
  rows.unsubscribe();
  assert.deepEqual(states, ["connecting", "open", "closed"]);
  rows.close();
});

test("a 409 filter-superseded is asked again", async () => {
  let refusals = 2;
  const api = new TreeSessionsApi(new Transport({
    baseUrl: server.url,
    fetch: async (url, init) => {
      if (url.includes("/rows?") && url.includes("filter=") && refusals > 0) {
        refusals--;
        return new Response(JSON.stringify({ type: "urn:treesessions:problem:filter-superseded", title: "Conflict", status: 409, detail: "a newer filter" }),
          { status: 409, headers: { "Content-Type": "application/problem+json" } });
      }
      return fetch(url, init);
    },
  }));
  const { sid, vid } = await session(api);
  const rows = new TreeRows(api);
  await rows.open(sid, vid, "an");
  assert.equal(refusals, 0);
  assert.ok(rows.total > 0);
  rows.close();
});
