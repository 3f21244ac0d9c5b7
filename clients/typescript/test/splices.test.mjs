// indexChanges: sequential splices → deletions (old indices), insertions (new indices),
// reloads (new indices of rows still there). Hand-checked cases and a seeded random check.
import test from "node:test";
import assert from "node:assert/strict";
import { indexChanges, applySplices, RowStore } from "../dist/index.js";
import { seeded } from "./server.mjs";

const s = (index, removed, inserted) => ({ index, removed, inserted });

test("hand-checked conversions", () => {
  assert.deepEqual(indexChanges([]), { deletions: [], insertions: [], reloads: [] });
  // expand a row at 1: three children appear after it
  assert.deepEqual(indexChanges([s(2, 0, 3)], [{ index: 1, count: 1 }]),
    { deletions: [], insertions: [2, 3, 4], reloads: [1] });
  // collapse: rows 2..4 go
  assert.deepEqual(indexChanges([s(2, 3, 0)], [{ index: 1, count: 1 }]),
    { deletions: [2, 3, 4], insertions: [], reloads: [1] });
  // a move down: row 1 leaves, shows again at 3 (indices counted after the first splice)
  assert.deepEqual(indexChanges([s(1, 1, 0), s(3, 0, 1)]),
    { deletions: [1], insertions: [3], reloads: [] });
  // a splice that removes rows inserted by an earlier one deletes nothing of the old list
  assert.deepEqual(indexChanges([s(0, 0, 5), s(1, 2, 0)]),
    { deletions: [], insertions: [0, 1, 2], reloads: [] });
  // overlapping removal of old and new rows; the reload skips the inserted row
  assert.deepEqual(indexChanges([s(1, 0, 1), s(0, 3, 1)], [{ index: 0, count: 3 }]),
    { deletions: [0, 1], insertions: [0], reloads: [1, 2] });
  // the batch example of docs/API.md (5 roots, 18 rows after)
  const batch = [s(2, 0, 5), s(8, 1, 0), s(0, 0, 1), s(9, 1, 0), s(1, 0, 2), s(4, 0, 3), s(14, 0, 4)];
  const r = indexChanges(batch, [{ index: 0, count: 18 }]);
  assert.deepEqual(r.deletions, [3, 4]);
  assert.equal(r.insertions.length, 15);
  assert.equal(r.reloads.length + r.insertions.length, 18);
  assert.throws(() => indexChanges([s(-1, 0, 1)]), RangeError);
});

test("deletions then insertions reproduce the sequential splices (seeded)", () => {
  for (let seed = 1; seed <= 300; seed++) {
    const rng = seeded(seed);
    const n = rng.int(30);
    const old = Array.from({ length: n }, (_, i) => `o${i}`);
    let list = old.slice();
    const changes = [];
    for (let k = rng.int(6); k > 0; k--) {
      const index = rng.int(list.length + 1);
      const removed = rng.int(list.length - index + 1);
      const inserted = rng.int(4);
      changes.push(s(index, removed, inserted));
      list = applySplices(list, [s(index, removed, inserted)], () => "new");
    }
    const reload = [];
    for (let at = 0; at < list.length; at += 1 + rng.int(4)) {
      const count = 1 + rng.int(3);
      if (at + count <= list.length && rng() < 0.5) { reload.push({ index: at, count }); at += count; }
    }
    const { deletions, insertions, reloads } = indexChanges(changes, reload);
    const after = old.slice();
    for (const i of [...deletions].reverse()) after.splice(i, 1);
    for (const i of insertions) after.splice(i, 0, "new");
    assert.deepEqual(after, list, `seed ${seed}: ${JSON.stringify(changes)}`);
    const expected = [];
    for (const { index, count } of reload) for (let i = index; i < index + count; i++) if (list[i] !== "new") expected.push(i);
    assert.deepEqual(reloads, expected, `seed ${seed} reloads`);
    assert.deepEqual(deletions, [...new Set(deletions)].sort((a, b) => a - b));
  }
});

test("RowStore follows splices like an array of known and unknown rows (seeded)", () => {
  const row = (index, tag) => ({ index, id: tag, title: tag, level: 0, expanded: false, hasChildren: false, parentId: null });
  for (let seed = 1; seed <= 300; seed++) {
    const rng = seeded(seed * 7919);
    let model = Array.from({ length: 40 }, () => undefined);
    const store = new RowStore();
    for (let step = 0; step < 40; step++) {
      const what = rng.int(4);
      if (what === 0) {
        const from = rng.int(model.length + 1), count = rng.int(8);
        const rows = [];
        for (let i = from; i < Math.min(from + count, model.length); i++) rows.push(row(i, `r${seed}-${step}-${i}`));
        store.set(from, rows);
        rows.forEach((r) => { model[r.index] = r.id; });
      } else if (what === 1) {
        const index = rng.int(model.length + 1), removed = rng.int(Math.min(6, model.length - index + 1)), inserted = rng.int(6);
        store.splice(index, removed, inserted);
        model.splice(index, removed, ...Array.from({ length: inserted }, () => undefined));
      } else if (what === 2) {
        const from = rng.int(model.length + 1), count = rng.int(6);
        store.drop(from, count);
        for (let i = from; i < Math.min(from + count, model.length); i++) model[i] = undefined;
      } else {
        const total = rng.int(model.length + 1);
        store.truncate(total);
        model = model.slice(0, total);
      }
      const held = [...store.entries()].map((r) => [r.index, r.id]);
      const want = model.flatMap((id, i) => (id === undefined ? [] : [[i, id]]));
      assert.deepEqual(held, want, `seed ${seed} step ${step}`);
      assert.equal(store.count, want.length);
      for (let i = 0; i < model.length; i++) assert.equal(store.get(i)?.id, model[i]);
      const gaps = store.missing(0, model.length).flatMap(([a, b]) => Array.from({ length: b - a }, (_, k) => a + k));
      assert.deepEqual(gaps, model.flatMap((id, i) => (id === undefined ? [i] : [])));
    }
  }
});
