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
/**
 * Converts sequential splices (and a change response's `reload` ranges) to deletions,
 * insertions and reloads. Applying the deletions (from the highest index down) and then
 * the insertions (from the lowest up) to the old list gives the list the splices give.
 *
 * - Complexity: O(k² + output) for k splices (k ≤ 1000 in a change response); the lists
 *   themselves are not needed.
 */
export declare function indexChanges(changes: readonly Splice[], reload?: Reload): IndexChanges;
/**
 * Applies sequential splices to an array, `make(i)` making the i-th inserted element (a
 * reference implementation: what a change does to the rows it names).
 *
 * - Complexity: O(k · n).
 */
export declare function applySplices<T>(list: readonly T[], changes: readonly Splice[], make: (n: number) => T): T[];
