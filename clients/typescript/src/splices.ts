/**
 * Splices as list UIs take them. A change response lists sequential splices (each `index`
 * counts rows as the splices before it left them); a batch update of a list view takes
 * instead the deleted rows' indices in the OLD list and the inserted rows' indices in the NEW
 * list, all at once, plus the rows to reload (indices in the NEW list of rows that were there
 * before and are still there).
 */

import type { Reload, Splice } from "./api.js";

export interface IndexChanges {
  /** Indices in the list before the change of the rows it removed, ascending. */
  readonly deletions: number[];
  /** Indices in the list after the change of the rows it inserted, ascending. */
  readonly insertions: number[];
  /** Indices in the list after the change of rows that stayed but may have changed in place, ascending. */
  readonly reloads: number[];
}

/** A run of the new list: rows of the old list from `old` on, or `count` inserted rows. */
interface Segment {
  old: number | null;
  count: number;
}

/**
 * Converts sequential splices (and a change response's `reload` ranges) to deletions,
 * insertions and reloads. Applying the deletions (from the highest index down) and then
 * the insertions (from the lowest up) to the old list gives the list the splices give.
 *
 * - Complexity: O(k² + output) for k splices (k ≤ 1000 in a change response); the lists
 *   themselves are not needed.
 */
export function indexChanges(changes: readonly Splice[], reload: Reload = []): IndexChanges {
  // The new list as segments; the last one is the old list's unchanged (unbounded) tail.
  const segments: Segment[] = [{ old: 0, count: Infinity }];
  const removedOld: Array<[number, number]> = [];

  // Splits the segments so that one starts at new position `at`; answers its index.
  const split = (at: number): number => {
    let pos = 0;
    for (let s = 0; s < segments.length; s++) {
      const seg = segments[s]!;
      if (at === pos) {
        return s;
      }
      if (at < pos + seg.count) {
        const head = at - pos;
        const tail: Segment = { old: seg.old === null ? null : seg.old + head, count: seg.count - head };
        seg.count = head;
        segments.splice(s + 1, 0, tail);
        return s + 1;
      }
      pos += seg.count;
    }
    return segments.length; // past the end (only reachable through an inserted tail)
  };

  for (const { index, removed, inserted } of changes) {
    if (removed < 0 || inserted < 0 || index < 0) {
      throw new RangeError(`bad splice ${JSON.stringify({ index, removed, inserted })}`);
    }
    const from = split(index);
    const to = removed > 0 ? split(index + removed) : from;
    const gone = segments.splice(from, to - from, ...(inserted > 0 ? [{ old: null, count: inserted }] : []));
    for (const seg of gone) {
      if (seg.old !== null && seg.count > 0) {
        removedOld.push([seg.old, seg.count]);
      }
    }
  }

  const deletions: number[] = [];
  removedOld.sort((a, b) => a[0] - b[0]);
  for (const [start, count] of removedOld) {
    for (let i = 0; i < count; i++) {
      deletions.push(start + i);
    }
  }

  const insertions: number[] = [];
  let pos = 0;
  for (const seg of segments) {
    if (seg.old === null) {
      for (let i = 0; i < seg.count; i++) {
        insertions.push(pos + i);
      }
    }
    pos += seg.count;
  }

  const reloads: number[] = [];
  const reloadRanges = [...reload].sort((a, b) => a.index - b.index);
  let last = -1;
  for (const range of reloadRanges) {
    let segStart = 0;
    for (const seg of segments) {
      const segEnd = segStart + seg.count;
      const lo = Math.max(range.index, segStart, last + 1);
      const hi = Math.min(range.index + range.count, segEnd);
      if (seg.old !== null) {
        for (let i = lo; i < hi; i++) {
          reloads.push(i);
          last = i;
        }
      }
      if (segEnd >= range.index + range.count) {
        break;
      }
      segStart = segEnd;
    }
  }
  return { deletions, insertions, reloads };
}

/**
 * Applies sequential splices to an array, `make(i)` making the i-th inserted element (a
 * reference implementation: what a change does to the rows it names).
 *
 * - Complexity: O(k · n).
 */
export function applySplices<T>(list: readonly T[], changes: readonly Splice[], make: (n: number) => T): T[] {
  const out = list.slice();
  let made = 0;
  for (const { index, removed, inserted } of changes) {
    const items: T[] = [];
    for (let i = 0; i < inserted; i++) {
      items.push(make(made++));
    }
    out.splice(index, removed, ...items);
  }
  return out;
}
