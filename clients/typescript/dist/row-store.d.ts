/**
 * The sparse rows a `TreeRows` holds: sorted, disjoint runs of consecutive known rows.
 * Splices shift the runs' start offsets (a row's `index` is rewritten when it is read, so a
 * splice costs O(runs), not a copy of every shifted row), inserted rows are unknown until
 * fetched, and blocks of rows are dropped least recently used first.
 */
import type { Row } from "./api.js";
export declare class RowStore {
    private runs;
    private size;
    /** The number of rows held. - Complexity: O(1). */
    get count(): number;
    /** The run holding or following `i`: the first run whose end is past `i`. - Complexity: O(log runs). */
    private find;
    /** The row at `i`, or undefined. - Complexity: O(log runs). */
    get(i: number): Row | undefined;
    /** The rows `from ..< to` when every one is held, else null. - Complexity: O(log runs + to − from). */
    slice(from: number, to: number): Row[] | null;
    /** The ranges of `from ..< to` not held, in order. - Complexity: O(log runs + runs in the range). */
    missing(from: number, to: number): Array<[number, number]>;
    /** Stores `rows` from `start` on (their `index` must be their row), replacing what was there. - Complexity: O(runs + rows). */
    set(start: number, rows: readonly Row[]): void;
    /** Joins run `r` with the next one when they touch. */
    private merge;
    /** Forgets the rows `from ..< from + count`. - Complexity: O(log runs + runs touched + rows moved). */
    drop(from: number, count: number): void;
    /** Forgets every row at or past `total`. */
    truncate(total: number): void;
    /**
     * Applies one splice: forgets the `removed` rows at `index`, shifts the rows after them by
     * `inserted − removed` (their `index` is rewritten when read), and leaves `inserted` unknown rows.
     *
     * - Complexity: O(log runs + runs after `index`), and a split of the run holding `index`.
     */
    splice(index: number, removed: number, inserted: number): void;
    /** Forgets every row. */
    clear(): void;
    /** Every row held, in order. - Complexity: O(rows). */
    entries(): IterableIterator<Row>;
    /** The blocks (`floor(index / blockSize)`) that hold at least one row. - Complexity: O(runs + blocks). */
    blocks(blockSize: number): number[];
}
