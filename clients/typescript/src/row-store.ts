/**
 * The sparse rows a `TreeRows` holds: sorted, disjoint runs of consecutive known rows.
 * Splices shift the runs' start offsets (a row's `index` is rewritten when it is read, so a
 * splice costs O(runs), not a copy of every shifted row), inserted rows are unknown until
 * fetched, and blocks of rows are dropped least recently used first.
 */

import type { Row } from "./api.js";

/** Rows `start ..< start + rows.length`; a row's `index` may be stale until it is read (`at`). */
interface Run {
  start: number;
  rows: Row[];
}

/** The row `k` of a run, its `index` rewritten (once, in place) when a splice moved it. */
function at(run: Run, k: number): Row {
  const row = run.rows[k]!;
  const index = run.start + k;
  if (row.index === index) {
    return row;
  }
  const moved = { ...row, index };
  run.rows[k] = moved;
  return moved;
}

export class RowStore {
  private runs: Run[] = [];
  private size = 0;

  /** The number of rows held. - Complexity: O(1). */
  get count(): number {
    return this.size;
  }

  /** The run holding or following `i`: the first run whose end is past `i`. - Complexity: O(log runs). */
  private find(i: number): number {
    let lo = 0;
    let hi = this.runs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const run = this.runs[mid]!;
      if (run.start + run.rows.length <= i) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** The row at `i`, or undefined. - Complexity: O(log runs). */
  get(i: number): Row | undefined {
    const run = this.runs[this.find(i)];
    return run !== undefined && run.start <= i && i < run.start + run.rows.length ? at(run, i - run.start) : undefined;
  }

  /** The rows `from ..< to` when every one is held, else null. - Complexity: O(log runs + to − from). */
  slice(from: number, to: number): Row[] | null {
    if (from >= to) {
      return [];
    }
    const run = this.runs[this.find(from)];
    if (run === undefined || run.start > from || run.start + run.rows.length < to) {
      return null;
    }
    const out: Row[] = [];
    for (let k = from - run.start; k < to - run.start; k++) {
      out.push(at(run, k));
    }
    return out;
  }

  /** The ranges of `from ..< to` not held, in order. - Complexity: O(log runs + runs in the range). */
  missing(from: number, to: number): Array<[number, number]> {
    const gaps: Array<[number, number]> = [];
    let at = from;
    for (let r = this.find(from); r < this.runs.length && at < to; r++) {
      const run = this.runs[r]!;
      if (run.start >= to) {
        break;
      }
      if (run.start > at) {
        gaps.push([at, run.start]);
      }
      at = Math.max(at, run.start + run.rows.length);
    }
    if (at < to) {
      gaps.push([at, to]);
    }
    return gaps;
  }

  /** Stores `rows` from `start` on (their `index` must be their row), replacing what was there. - Complexity: O(runs + rows). */
  set(start: number, rows: readonly Row[]): void {
    if (rows.length === 0) {
      return;
    }
    this.drop(start, rows.length);
    const r = this.find(start);
    this.runs.splice(r, 0, { start, rows: rows.slice() });
    this.size += rows.length;
    this.merge(r);
    if (r > 0) {
      this.merge(r - 1);
    }
  }

  /** Joins run `r` with the next one when they touch. */
  private merge(r: number): void {
    const a = this.runs[r];
    const b = this.runs[r + 1];
    if (a !== undefined && b !== undefined && a.start + a.rows.length === b.start) {
      a.rows = a.rows.concat(b.rows);
      this.runs.splice(r + 1, 1);
    }
  }

  /** Forgets the rows `from ..< from + count`. - Complexity: O(log runs + runs touched + rows moved). */
  drop(from: number, count: number): void {
    if (count <= 0) {
      return;
    }
    const to = from + count;
    const out: Run[] = [];
    let r = this.find(from);
    const first = r;
    for (; r < this.runs.length; r++) {
      const run = this.runs[r]!;
      const end = run.start + run.rows.length;
      if (run.start >= to) {
        break;
      }
      if (run.start < from) {
        out.push({ start: run.start, rows: run.rows.slice(0, from - run.start) });
      }
      if (end > to) {
        out.push({ start: to, rows: run.rows.slice(to - run.start) });
      }
      this.size -= Math.min(end, to) - Math.max(run.start, from);
    }
    this.runs.splice(first, r - first, ...out);
  }

  /** Forgets every row at or past `total`. */
  truncate(total: number): void {
    const last = this.runs[this.runs.length - 1];
    if (last !== undefined && last.start + last.rows.length > total) {
      this.drop(total, last.start + last.rows.length - total);
    }
  }

  /**
   * Applies one splice: forgets the `removed` rows at `index`, shifts the rows after them by
   * `inserted − removed` (their `index` is rewritten when read), and leaves `inserted` unknown rows.
   *
   * - Complexity: O(log runs + runs after `index`), and a split of the run holding `index`.
   */
  splice(index: number, removed: number, inserted: number): void {
    this.drop(index, removed);
    const delta = inserted - removed;
    if (delta === 0) {
      return;
    }
    const r = this.find(index);
    const run = this.runs[r];
    const tail: Run[] = [];
    let from = r;
    if (run !== undefined && run.start < index) {
      // The run straddles `index` (nothing of it was removed there): split it.
      tail.push({ start: index, rows: run.rows.splice(index - run.start) });
      from = r + 1;
    }
    for (let k = from; k < this.runs.length; k++) {
      tail.push(this.runs[k]!);
    }
    this.runs.length = from;
    for (const t of tail) {
      t.start += delta;
      this.runs.push(t);
    }
    if (inserted === 0 && from > 0) {
      this.merge(from - 1);
    }
  }

  /** Forgets every row. */
  clear(): void {
    this.runs = [];
    this.size = 0;
  }

  /** Every row held, in order. - Complexity: O(rows). */
  *entries(): IterableIterator<Row> {
    for (const run of this.runs) {
      for (let k = 0; k < run.rows.length; k++) {
        yield at(run, k);
      }
    }
  }

  /** The blocks (`floor(index / blockSize)`) that hold at least one row. - Complexity: O(runs + blocks). */
  blocks(blockSize: number): number[] {
    const out: number[] = [];
    for (const run of this.runs) {
      const first = Math.floor(run.start / blockSize);
      const last = Math.floor((run.start + run.rows.length - 1) / blockSize);
      for (let b = Math.max(first, out.length > 0 ? out[out.length - 1]! + 1 : first); b <= last; b++) {
        out.push(b);
      }
    }
    return out;
  }
}
