// THE row-cache test: two TreeRows caches on one session of a random tree, each in its own
// view and following its events, take seeded random steps (expansions in their own views,
// edits from both, filters, sorts, selections, scrolls that evict blocks). After every step
// each cache must have caught up with the server's version, and every row it holds must be
// exactly the row GET rows answers at that index. Cache B reads rows with `positions=true`
// (every held row goes stale after an edit, and must be fetched again with its new place);
// either may highlight a text instead of filtering; page metadata (matchCount, selectedCount,
// sort) must be the server's once `rows` answered.
import test from "node:test";
import assert from "node:assert/strict";
import { ProblemError, TreeRows, TreeSessionsApi } from "../dist/index.js";
import { seeded, startServer } from "./server.mjs";

const SEEDS = (process.env.TREE_ROWS_SEEDS ?? "1,2,3,4,5,6").split(",").map(Number);
const STEPS = Number(process.env.TREE_ROWS_STEPS ?? 150);
const WORDS = ["alpha", "beta", "gamma", "delta", "item 2", "item 10", "Zürich", "notes", "plan", "archive"];
const FILTERS = ["a", "item", "ta"]; // at most 3 texts: a view keeps 4 filtered rows
const SORTS = ["title", "-data.size,title", null];

let server;
let api;
test.before(async () => {
  server = await startServer();
  api = TreeSessionsApi.at(server.url);
});
test.after(async () => { await server?.stop(); });

/** A random forest of about `count` nodes; ids are integers or strings. */
function randomTree(rng, count, next) {
  const roots = [];
  const all = [];
  for (let i = 0; i < count; i++) {
    const node = { id: next(), title: `${rng.pick(WORDS)} ${i}` };
    if (rng() < 0.6) node.data = { size: rng.int(1000) };
    const parent = all.length > 0 && rng() < 0.85 ? rng.pick(all) : null;
    if (parent) (parent.children ??= []).push(node);
    else roots.push(node);
    all.push(node);
  }
  return roots;
}

/** The tree as the server has it now: parents, children and subtree membership by id. */
async function snapshot(sid) {
  const tree = (await api.getTree(sid)).value;
  const nodes = new Map(); // key → { id, parent, children }
  const roots = [];
  const walk = (list, parent) => {
    for (const n of list) {
      const entry = { id: n.id, parent, children: (n.children ?? []).map((c) => String(c.id)) };
      nodes.set(String(n.id), entry);
      walk(n.children ?? [], String(n.id));
    }
  };
  walk(tree.nodes, null);
  for (const n of tree.nodes) roots.push(String(n.id));
  const within = (key, ancestor) => {
    for (let k = key; k !== null; k = nodes.get(k).parent) if (k === ancestor) return true;
    return false;
  };
  return { nodes, roots, keys: [...nodes.keys()], within };
}

function namedQuery(cache) {
  return cache.filter === null ? {} : { filter: cache.filter };
}

/** What the cache's pages are read with: its named rows, its highlight, positions for cache B. */
function readQuery(cache) {
  const q = namedQuery(cache);
  if (cache.filter === null && cache.highlight !== null) q.highlight = cache.highlight;
  if (cache.withPositions) q.positions = true;
  return q;
}

/** Waits until `cache` is at the server's version of its rows, then checks every held row. */
async function check(sid, cache, label) {
  const probe = (await api.getViewRows(sid, cache.view, { ...namedQuery(cache), limit: 0 })).value;
  await cache.whenVersion(probe.version, 5000);
  await cache.settled();
  await cache.rows(0, 1); // the page metadata of the held version
  const rows = [];
  let page;
  do {
    page = (await api.getViewRows(sid, cache.view, { ...readQuery(cache), offset: rows.length, limit: 1000 })).value;
    rows.push(...page.rows);
  } while (rows.length < page.total && page.rows.length > 0);
  assert.equal(page.version, probe.version, `${label}: the server moved during the check`);
  assert.equal(cache.version, page.version, `${label}: version`);
  assert.equal(cache.total, page.total, `${label}: total`);
  assert.equal(cache.matchCount, page.matchCount ?? null, `${label}: matchCount`);
  assert.equal(cache.selectedCount, page.selectedCount ?? 0, `${label}: selectedCount`);
  assert.equal(cache.sort, page.sort ?? null, `${label}: sort`);
  for (const row of cache.cachedRows()) {
    assert.deepEqual(row, rows[row.index], `${label}: row ${row.index}`);
  }
}

async function runSeed(seed) {
  const rng = seeded(seed);
  let counter = 0;
  const nextId = () => (rng() < 0.5 ? 100000 + counter++ : `n${seed}-${counter++}`);
  const upload = await api.createSession({ nodes: randomTree(rng, 150 + rng.int(150), nextId) });
  const sid = upload.value.id;
  const viewA = (await api.createView(sid, { expand: "none" })).value.id;
  const viewB = (await api.createView(sid, { expand: 2 })).value.id;
  const errors = [];
  const options = { blockSize: 16, maxBlocks: 4, onError: (e) => errors.push(e) };
  const caches = [new TreeRows(api, options), new TreeRows(api, { ...options, positions: true })];
  caches[1].withPositions = true;
  await caches[0].open(sid, viewA);
  await caches[1].open(sid, viewB);
  const changes = [0, 0];
  const kinds = {};
  caches.forEach((c, k) => c.onChange((ch) => { changes[k]++; kinds[ch.kind] = (kinds[ch.kind] ?? 0) + 1; }));
  for (const c of caches) c.subscribe();

  const stats = {};
  try {
  for (let step = 0; step < STEPS; step++) {
    const snap = await snapshot(sid);
    const together = rng() < 0.15;
    const makeAction = (k) => {
      const cache = caches[k];
      const someKey = () => rng.pick(snap.keys);
      const idOf = (key) => snap.nodes.get(key).id;
      const withChildren = snap.keys.filter((key) => snap.nodes.get(key).children.length > 0);
      const folder = () => idOf(withChildren.length > 0 ? rng.pick(withChildren) : someKey());
      const childCount = (key) => (key === null ? snap.roots.length : snap.nodes.get(key).children.length);
      const newNodes = () => Array.from({ length: 1 + rng.int(3) }, () => {
        const node = { id: nextId(), title: `${rng.pick(WORDS)} new` };
        if (rng() < 0.3) node.children = [{ id: nextId(), title: rng.pick(WORDS), data: { size: rng.int(1000) } }];
        return node;
      });
      const moveTarget = (key) => {
        const candidates = [null, ...snap.keys.filter((p) => !snap.within(p, key))];
        const parent = rng.pick(candidates);
        const siblings = childCount(parent) - (snap.nodes.get(key).parent === parent ? 1 : 0);
        return { parentId: parent === null ? null : idOf(parent), index: rng.int(siblings + 1) };
      };
      const r = rng();
      let what;
      let act;
      if (r < 0.2) {
        const id = folder();
        const kind = rng.pick(["expand", "collapse", "toggle", "expand-recursive"]);
        what = `${kind} ${JSON.stringify(id)}`;
        act = () => (kind === "toggle" ? cache.toggle(id) : kind === "collapse" ? cache.collapse(id) : cache.expand(id, kind === "expand-recursive"));
      } else if (r < 0.27) {
        const kind = rng.pick(["expandAll", "collapseAll", "expandDepth"]);
        const depth = rng.int(4);
        what = kind === "expandDepth" ? `expandDepth ${depth}` : kind;
        act = () => (kind === "expandDepth" ? cache.expandDepth(depth) : cache[kind]());
      } else if (r < 0.39) {
        const parentKey = rng() < 0.2 ? null : someKey();
        const nodes = newNodes();
        const index = rng.int(childCount(parentKey) + 1);
        const parentId = parentKey === null ? null : idOf(parentKey);
        what = `insert ${nodes.length} under ${JSON.stringify(parentId)} at ${index}`;
        act = () => cache.insert(nodes, { parentId, index });
      } else if (r < 0.46 && snap.keys.length > 60) {
        const id = idOf(someKey());
        what = `delete ${JSON.stringify(id)}`;
        act = () => cache.delete(id);
      } else if (r < 0.56) {
        const key = someKey();
        const { parentId, index } = moveTarget(key);
        what = `move ${JSON.stringify(idOf(key))} under ${JSON.stringify(parentId)} at ${index}`;
        act = () => cache.move(idOf(key), parentId, index);
      } else if (r < 0.64) {
        const id = idOf(someKey());
        const changesTo = rng() < 0.5 ? { title: `${rng.pick(WORDS)} ${step}` } : { title: rng.pick(WORDS), data: { size: rng.int(1000) } };
        what = `update ${JSON.stringify(id)} ${JSON.stringify(changesTo)}`;
        act = () => cache.update(id, changesTo);
      } else if (r < 0.71) {
        // A small batch: an insert, an update, an expansion, and a move of the inserted node.
        const parentKey = someKey();
        const nodes = newNodes();
        const ops = [
          { op: "insert", nodes, parentId: idOf(parentKey), index: 0 },
          { op: "update", id: idOf(someKey()), title: `${rng.pick(WORDS)} batch ${step}` },
          { op: "expand", id: idOf(parentKey), expanded: true },
          { op: "move", id: nodes[0].id, parentId: null },
        ];
        what = `batch ${JSON.stringify(ops.map((o) => o.op))}`;
        act = () => cache.batch(ops);
      } else if (r < 0.77) {
        const text = rng() < 0.35 ? null : rng.pick(FILTERS);
        if (text !== null && rng() < 0.3) {
          what = `setHighlight ${JSON.stringify(text)}`;
          act = async () => { cache.setHighlight(text); await cache.setFilter(null); };
        } else {
          what = `setFilter ${JSON.stringify(text)}`;
          act = () => cache.setFilter(text);
        }
      } else if (r < 0.8) {
        const sort = rng.pick(SORTS);
        what = `setSort ${JSON.stringify(sort)}`;
        act = () => cache.setSort(sort);
      } else if (r < 0.84) {
        const id = idOf(someKey());
        const kind = rng.pick(["select", "deselect", "selectNone"]);
        what = `${kind} ${JSON.stringify(id)}`;
        act = () => (kind === "selectNone" ? cache.selectNone() : cache[kind](id, rng() < 0.7));
      } else {
        const total = cache.total;
        const from = rng.int(Math.max(1, total));
        const to = from + 1 + rng.int(40);
        what = `rows ${from}..<${to}`;
        act = async () => {
          // The other cache's edits may change the total while the rows are read: the answer
          // ends at one of the totals the cache held meanwhile.
          const totals = new Set([cache.total]);
          const stop = cache.onChange((c) => { if (c.kind !== "end") totals.add(c.total); });
          let got;
          try {
            got = await cache.rows(from, to);
          } finally {
            stop();
          }
          assert.ok(got.length <= to - from && got.every((row, i) => row.index === from + i), "rows answers the rows asked for");
          const lengths = [...totals].map((t) => Math.max(0, Math.min(to, t) - from));
          assert.ok(lengths.includes(got.length), `rows ${from}..<${to} answered ${got.length} rows; totals held meanwhile ${[...totals]}`);
          if (!together) assert.equal(got.length, Math.max(0, Math.min(to, cache.total) - from));
        };
      }
      return { what, act };
    };
    // Mostly one cache acts; sometimes both at once (their edits then race: one may meet a
    // 412 and retry, or find its node gone).
    const k = rng.int(2);
    const actions = together ? [makeAction(0), makeAction(1)] : [makeAction(k)];
    const what = actions.map((a) => a.what).join(" || ");
    for (const a of actions) stats[a.what.split(" ")[0]] = (stats[a.what.split(" ")[0]] ?? 0) + 1;
    const label = `seed ${seed} step ${step} ${together ? "both" : `cache ${"AB"[k]}`} ${what}`;
    try {
      if (together) {
        const results = await Promise.allSettled(actions.map((a) => a.act()));
        for (const r of results) {
          // A race may leave the other's node gone (404), make a cycle (409) or an index past the end (422).
          if (r.status === "rejected" && !(r.reason instanceof ProblemError && [404, 409, 422].includes(r.reason.status))) throw r.reason;
          if (r.status === "rejected") stats.raced = (stats.raced ?? 0) + 1;
        }
      } else {
        await actions[0].act();
      }
      // Each cache also scrolls a little, so that both hold rows across the list.
      for (const c of caches) {
        const at = rng.int(Math.max(1, c.total));
        await c.rows(at, at + 8);
      }
      for (const [j, c] of caches.entries()) await check(sid, c, `${label} (checking ${"AB"[j]})`);
      assert.deepEqual(errors, [], `${label}: background errors`);
    } catch (e) {
      if (!String(e.message).includes(label)) e.message = `${label}: ${e.message}`;
      throw e;
    }
  }
  } finally {
    for (const c of caches) c.close();
  }
  await api.deleteSession(sid);
  if (process.env.TREE_ROWS_VERBOSE) console.log(seed, JSON.stringify(stats), JSON.stringify(kinds));
  return { stats, changes };
}

// The seeds run at once, each on a session of its own (the server keeps sessions apart).
test("two caches, random steps", { concurrency: true, timeout: 300000 }, async (t) => {
  await Promise.all(SEEDS.map((seed) => t.test(`seed ${seed}`, async () => {
    const { changes } = await runSeed(seed);
    assert.ok(changes[0] > 0 && changes[1] > 0, "both caches saw changes");
  })));
});
