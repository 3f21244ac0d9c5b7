// RowStore against a plain array model (random sets, splices, drops, truncations), and a
// splice that costs O(runs), not a copy of every shifted row.
import test from "node:test";
import assert from "node:assert/strict";
import { RowStore } from "../dist/index.js";
import { seeded } from "./server.mjs";

test("RowStore answers what an array of the same rows answers", () => {
  const rng = seeded(1);
  for (let trial = 0; trial < 2000; trial++) {
    const model = Array(rng.int(40)).fill(undefined);
    const s = new RowStore();
    for (let step = 0; step < 30; step++) {
      const op = rng.int(4);
      if (op === 0 && model.length > 0) {
        const a = rng.int(model.length);
        const n = 1 + rng.int(Math.min(8, model.length - a));
        const rows = Array.from({ length: n }, (_, k) => ({ index: a + k, id: `x${trial}-${step}-${k}` }));
        s.set(a, rows);
        for (let k = 0; k < n; k++) model[a + k] = rows[k].id;
      } else if (op === 1) {
        const i = rng.int(model.length + 1);
        const r = rng.int(model.length - i + 1);
        const ins = rng.int(5);
        s.splice(i, r, ins);
        model.splice(i, r, ...Array(ins).fill(undefined));
      } else if (op === 2 && model.length > 0) {
        const a = rng.int(model.length);
        const n = rng.int(10);
        s.drop(a, n);
        for (let k = a; k < Math.min(model.length, a + n); k++) model[k] = undefined;
      } else {
        const t = rng.int(model.length + 1);
        s.truncate(t);
        model.length = t;
      }
      const at = `trial ${trial} step ${step}`;
      for (let i = 0; i < model.length + 3; i++) {
        const g = s.get(i);
        assert.equal(g?.id, model[i], `${at}: row ${i}`);
        if (g) assert.equal(g.index, i, `${at}: index of row ${i}`);
      }
      const held = [...s.entries()];
      assert.deepEqual(held.map((r) => r.id), model.filter((x) => x !== undefined), at);
      assert.ok(held.every((r) => model[r.index] === r.id), `${at}: entries' indices`);
      assert.equal(s.count, held.length, at);
      const missing = [];
      for (let i = 0; i < model.length; i++) {
        if (model[i] !== undefined) continue;
        if (missing.length > 0 && missing.at(-1)[1] === i) missing.at(-1)[1]++;
        else missing.push([i, i + 1]);
      }
      assert.deepEqual(s.missing(0, model.length), missing, at);
      const from = rng.int(model.length + 1);
      const to = from + rng.int(model.length - from + 1);
      const slice = s.slice(from, to);
      const whole = model.slice(from, to).every((x) => x !== undefined);
      assert.equal(slice === null, !whole, `${at}: slice ${from}..<${to}`);
      if (slice) assert.deepEqual(slice.map((r) => [r.id, r.index]), model.slice(from, to).map((x, k) => [x, from + k]), at);
    }
  }
});

test("a splice shifts rows without copying them", () => {
  const s = new RowStore();
  const rows = Array.from({ length: 5000 }, (_, i) => ({ index: i, id: `n${i}` }));
  s.set(0, rows);
  for (let k = 0; k < 1000; k++) s.splice(k * 5 + 1, 0, 1);
  // The rows held are the objects given: none was copied to rewrite its index …
  const given = new Set(rows);
  let same = 0;
  for (const run of s["runs"]) for (const row of run.rows) if (given.has(row)) same++;
  assert.equal(same, 5000);
  // … which reads answer right: n0, (new), n1 … n4, (new), n5 …
  assert.deepEqual([s.get(0).id, s.get(1), s.get(2).id, s.get(7).id], ["n0", undefined, "n1", "n5"]);
  assert.equal(s.get(7).index, 7);
  assert.equal([...s.entries()].at(-1).index, 5999);
});
