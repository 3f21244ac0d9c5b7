/**
 * `TreeRows`: the row cache of one view's named rows (unfiltered or filtered), kept equal to
 * the server's by the row-cache protocol of docs/CLIENTS.md: sparse blocks of rows fetched on
 * demand, every change (this client's own answers and the event stream's) applied by its
 * splices in version order, a refresh when a version is missing, `If-Match` on tree edits
 * with one retry after a 412 `version-mismatch` (or none: `retryConflicts`). Changes and filters
 * are sent one at a time, in the order asked (`serially` runs work that computes a change at its
 * turn). Rows a change may have altered stay readable (`row(i)`, `isStale(i)`) until `rows`
 * fetches them again.
 */
import type { BatchOperation, BatchResponse, ChangeResponse, InsertResponse, ItemChangeResponse, JSONValue, MatchMode, Node, NodeId, ParentId, Reload, Row, SelectionPage, Splice } from "./api.js";
import { TreeSessionsApi } from "./api.js";
/** How a filter matches (the query parameters of the named rows besides `filter`). */
export interface FilterOptions {
    match?: MatchMode;
    caseSensitive?: boolean;
    diacritics?: "sensitive" | "insensitive";
    leavesOnly?: boolean;
    /** The fields searched: `title,data.owner`. */
    fields?: string;
    /** Conditions on fields: `data.size>1000` (they filter also without a text). */
    where?: string;
}
export interface TreeRowsOptions {
    /** Rows fetched at once (default 100). */
    blockSize?: number;
    /** At most this many blocks' worth of rows are kept, least recently used dropped (default 50). */
    maxBlocks?: number;
    /** How long a missing version may wait for the event stream before a refresh (default 2000 ms). */
    gapTimeoutMs?: number;
    /** `aggregate=` of every rows page (`count,sum:data.size`); ancestors are reloaded by changes. */
    aggregate?: string;
    /**
     * Errors of work the cache does on its own (a refresh after an event, each failed retry of
     * it, an event it could not read); default `console.warn`.
     */
    onError?: (error: unknown) => void;
    /**
     * The event stream is opened again when nothing (heartbeats included: the server sends one
     * every 15 s) was read from it for this long (default 45000 ms; 0: never).
     */
    streamIdleTimeoutMs?: number;
    /**
     * Rows pages with `positions=true` (each row's `position` and `siblingCount`). A row's place
     * among its siblings changes when a sibling is inserted, removed or moved, or the view is
     * sorted, and such rows are not in `reload` (their own row did not change): after every edit
     * of the tree, sort and event, every held row becomes stale, and `rows` fetches again those
     * it is asked for. Expansions and selections leave places as they are.
     */
    positions?: boolean;
    /**
     * After a 412 (the view changed since the held version), refresh and send the edit once more
     * with the new version (default true). False: refresh, then throw the 412 — for edits
     * computed from the rows shown (a row number, a place among siblings), which the new rows
     * may contradict.
     */
    retryConflicts?: boolean;
}
/** The changes a `TreeRows` sends; `serially` hands its work these, unqueued. */
export interface RowChanges {
    expand(id: NodeId, recursive?: boolean): Promise<ItemChangeResponse>;
    collapse(id: NodeId, recursive?: boolean): Promise<ItemChangeResponse>;
    toggle(id: NodeId): Promise<ItemChangeResponse>;
    reveal(id: NodeId): Promise<ItemChangeResponse>;
    expandAll(): Promise<ChangeResponse>;
    collapseAll(): Promise<ChangeResponse>;
    expandDepth(depth: number): Promise<ChangeResponse>;
    setSort(sort: string | null): Promise<ChangeResponse>;
    select(id: NodeId, recursive?: boolean): Promise<ItemChangeResponse>;
    deselect(id: NodeId, recursive?: boolean): Promise<ItemChangeResponse>;
    selectAll(): Promise<ChangeResponse>;
    selectNone(): Promise<ChangeResponse>;
    invertSelection(): Promise<ChangeResponse>;
    selectRows(offset: number, count: number, selected?: boolean, recursive?: boolean): Promise<ChangeResponse>;
    insert(nodes: Node[], place?: InsertPlace): Promise<InsertResponse>;
    delete(id: NodeId): Promise<ItemChangeResponse>;
    move(id: NodeId, parentId: ParentId, index?: number): Promise<ItemChangeResponse>;
    update(id: NodeId, changes: {
        title?: string;
        data?: JSONValue;
    }): Promise<ItemChangeResponse>;
    batch(operations: BatchOperation[]): Promise<BatchResponse>;
    setFilter(text: string | null, options?: FilterOptions): Promise<void>;
}
/** The state of the event stream: open, waiting to reconnect (or connecting), or not followed. */
export declare type StreamState = "open" | "connecting" | "closed";
/** Where `insert` puts its nodes. */
export declare type InsertPlace = {
    parentId?: ParentId;
    index?: number;
} | {
    before: NodeId;
} | {
    after: NodeId;
};
/** What a listener of `onChange` gets. */
export declare type RowsChange = 
/** A change applied: the sequential splices (rows between them unknown until fetched) and the rows to reload. */
{
    kind: "splices";
    changes: Splice[];
    reload: Reload;
    version: number;
    total: number;
}
/** Every row may have changed (a refresh, a new filter, a page of a later version): read again what is shown. */
 | {
    kind: "reset";
    version: number;
    total: number;
}
/** The session or the view is gone (`deleted`, `expired`), or the stream cannot be followed (`error`). */
 | {
    kind: "end";
    reason: "deleted" | "expired" | "error";
    error?: unknown;
};
export declare class TreeRows {
    readonly api: TreeSessionsApi;
    readonly blockSize: number;
    readonly maxBlocks: number;
    private readonly gapTimeoutMs;
    private aggregateText;
    private readonly positions;
    private readonly retryConflicts;
    private readonly streamIdleTimeoutMs;
    private readonly onError;
    /** The rows held are these: changed only when a `setFilter` or `open` adopts its first page. */
    private named;
    private highlightText;
    private highlightOpts;
    /** Counts `setHighlight` calls: a filter drops the highlight unless one was set after the filter was asked. */
    private highlightSets;
    private _version;
    private _total;
    /** The rows held as the server has them at the held version. */
    private readonly store;
    /** Rows a change may have altered: shown until fetched again, never answered by `rows`. */
    private readonly stale;
    /** Changes of versions past held + 1, waiting for the ones between. */
    private readonly buffered;
    private gapTimer;
    /**
     * Two counters name what an answer was asked for. `generation`: the named rows (bumped when
     * a filter or `open` adopts its page, and by `close`); change answers and pages of an older
     * one do not apply. `readGeneration`: what pages are read with (highlight, aggregate); pages
     * of an older one are not stored.
     */
    private generation;
    private readGeneration;
    private _matchCount;
    private _selectedCount;
    private _sort;
    /** The version the page metadata above was read at. */
    private metaVersion;
    private stream;
    /** Whether the stream is to be followed (`subscribe`), kept across the stream's restart by a filter. */
    private wantStream;
    private streamState;
    private readonly streamListeners;
    private changeQueue;
    private changesOut;
    private heldEvents;
    private heldLimit;
    /** Events were dropped while a change was out: refresh once it is done. */
    private heldOverflow;
    /** The changes, sent at once (what `serially` hands its work). */
    private readonly direct;
    private refreshing;
    /** A version past the held one exists (a gap, a reset): background refreshes go on until a page is adopted. */
    private behind;
    private retryTimer;
    private retryDelay;
    /** Block loads in flight, shared by the reads that need them. */
    private readonly inflight;
    private closed;
    /** Bumped by `close`: reads begun before it stop. */
    private closings;
    private readonly listeners;
    private waiters;
    private lastUse;
    private tick;
    /** Requests of this cache in flight (`busy`), and what `settled` waits on. */
    private pending;
    private idle;
    constructor(api: TreeSessionsApi, options?: TreeRowsOptions);
    get session(): string;
    /** The view (`POST /sessions/{sid}/views`), or null for the session's default view. */
    get view(): string | null;
    /** The filter text, or null for the unfiltered rows. */
    get filter(): string | null;
    get filterOptions(): FilterOptions;
    /** The view's version the held rows are at. */
    get version(): number;
    /** The number of named rows. */
    get total(): number;
    /** The highlighted text (the unfiltered rows with their matches flagged), or null. */
    get highlight(): string | null;
    /** `aggregate=` of every rows page, or undefined. */
    get aggregate(): string | undefined;
    /** From the rows pages: a filtered view's matching nodes (null unfiltered or not read yet). */
    get matchCount(): number | null;
    /** From the rows pages: the view's selected nodes. */
    get selectedCount(): number;
    /** From the rows pages: the view's sort keys (`-data.size,title`), or null for the tree's order. */
    get sort(): string | null;
    /** True while the event stream is followed (open or reconnecting). */
    get subscribed(): boolean;
    get connected(): boolean;
    /** The event stream's state; `onStreamState` tells when it changes. */
    get streamStatus(): StreamState;
    /**
     * Opens the cache on a session's view (null: the default view), unfiltered or with a
     * filter: fetches the first block. Reopening drops everything held (and reopens the stream).
     * Queued after the changes asked before it; when its page fails, nothing changes.
     */
    open(session: string, view?: string | null, filter?: string | null, options?: FilterOptions): Promise<void>;
    /**
     * The held row at `i`, or undefined (fetch it with `rows`). It may be stale (`isStale`): a
     * change may have altered it, and `rows` fetches it again. - Complexity: O(log runs).
     */
    row(i: number): Row | undefined;
    /** Whether the row held at `i` is stale (shown until `rows` fetches it again). - Complexity: O(log runs). */
    isStale(i: number): boolean;
    /** Every row held and current, in order (what `rows` answers without a fetch); stale rows are left out. */
    cachedRows(): Row[];
    /**
     * The rows `from ..< min(to, total)`, fetching the blocks that hold missing ones (only the
     * missing rows of them; a block another read is fetching is waited for, not asked again). At
     * most `maxBlocks` blocks stay held afterwards. Rejects once the cache is closed.
     */
    rows(from: number, to: number): Promise<Row[]>;
    /** The loads that bring the missing rows of `lo ..< hi`: those in flight, and new ones (at most 1000 rows each) for the rest. */
    private loads;
    /** Reads the page metadata (`matchCount`, `selectedCount`, `sort`) of the held version: a page of no rows. */
    private readMeta;
    private noteMeta;
    /** Fetches one page and keeps it by the version rules. */
    private load;
    /**
     * One rows page of `named`, read as the held rows are (highlight when unfiltered, positions,
     * aggregates). A 409 `filter-superseded` is asked again while the named rows are still `gen`'s.
     */
    private fetchPage;
    /** Sends again after a 409 `filter-superseded` (nothing was changed) while `gen` names the rows, at most 50 times. */
    private whileCurrent;
    /** Calls the session's operation (for the default view) or the view's on the rows `named`, with `args` after the session (and view). */
    private route;
    private value;
    /** Drops every row, takes the page's version, total and rows, and tells the listeners to read again. */
    private adopt;
    /** Marks the blocks of `from ..< to` as just used. */
    private touch;
    /** Drops least recently used blocks until at most `maxBlocks` blocks' worth of rows are held. */
    private trim;
    /** Calls `listener` for every change of the held rows; answers a function that stops it. */
    onChange(listener: (change: RowsChange) => void): () => void;
    /** Calls `listener` whenever the event stream opens, waits to reconnect, or stops; answers a function that stops it. */
    onStreamState(listener: (state: StreamState, error?: unknown) => void): () => void;
    private setStreamState;
    private emit;
    /** Resolves once the held version is at least `version` (rejects after `timeoutMs`). */
    whenVersion(version: number, timeoutMs?: number): Promise<void>;
    /**
     * Resolves once no request of this cache is in flight, no change waits for a missing
     * version, and the cache is not behind (a failed refresh is retried until it caught up).
     */
    settled(): Promise<void>;
    private isIdle;
    private checkIdle;
    private settleWaiters;
    private busy;
    /**
     * A change by the version rules: an old one is skipped, the next one applied (with the
     * buffered ones that follow it), a later one buffered until the gap is filled.
     */
    private receive;
    /** Applies the buffered changes that follow the held version. */
    private drain;
    /** A version past the held one exists: wait for the stream to bring it, else refresh. */
    private expect;
    /**
     * Applies a change one past the held version: its splices shift the held rows, the rows it
     * may have altered in place (`reload`; every one when `moves` and `positions`) become stale.
     */
    private apply;
    /** Makes the held rows of `from ..< to` stale: shown, and fetched again by `rows`. */
    private markStale;
    /**
     * Catches up: fetches the first block, drops every held row, takes the page's version and
     * total and tells the listeners to read again. A page older than the held version is never
     * taken: asked again a few times, then this rejects. Concurrent calls share one request.
     */
    refresh(): Promise<void>;
    /**
     * Refreshes on its own (a gap, a reset): each failure is reported and the refresh tried
     * again after 1 s, doubling to 30 s, until a page is adopted (or the session is gone).
     */
    private backgroundRefresh;
    /** Not behind any more: no retry is due. */
    private caughtUp;
    /** An error of the cache's own work: 401, 403 and 404 end the stream (and are told as its end), others go to `onError`. */
    private report;
    /**
     * Names other rows of the view: the filtered rows for `text` (null or "" with no `where`:
     * the unfiltered rows). Queued after the changes asked before it (the changes asked after it
     * are sent for its rows). Fetches the first block of the new rows; once it came, drops
     * everything, takes that page, reopens the event stream from its version (when followed) and
     * tells the listeners to read again. When the page fails, nothing changes: the old rows,
     * version and stream stay. A filter drops the highlight (unless one was set after it was asked).
     */
    setFilter(text: string | null, options?: FilterOptions): Promise<void>;
    private naming;
    /** Fetches the first page of `named` (again when the highlight or aggregate changes meanwhile) and takes it. */
    private switchTo;
    /**
     * Flags the matches of `text` in the unfiltered rows (`highlight=` on the rows pages: each row
     * then has `match` and `matchRanges`), or stops with null or "". Only what pages are read
     * with changes: the held rows become stale (shown until fetched again) and the listeners are
     * told to read again. A filtered view has no highlight: it shows once the filter is cleared.
     */
    setHighlight(text: string | null, options?: FilterOptions): void;
    /** Asks every rows page with `aggregate=` (`count,sum:data.size`), or none; the held rows become stale. */
    setAggregate(aggregate: string | undefined): void;
    /** What pages are read with changed: every held row is stale, pages asked before do not apply. */
    private readAgain;
    /** The query parameters of a rows page of `named`: its filter's, or the highlight's on unfiltered rows. */
    private readQuery;
    /** The query parameters that name the rows: the filter and its options, when filtered. */
    private namedQuery;
    /**
     * Follows the view's event stream (with the filter's parameters and `Last-Event-ID` of the
     * held version on every connect), applying other clients' changes; a filter reopens it for
     * its rows; before `open` has named a session, it opens once `open` has its page. Idempotent.
     */
    subscribe(): void;
    private openStream;
    private onEvent;
    /** Stops following the event stream (the held rows stay, and stop following others' changes). */
    unsubscribe(): void;
    private closeStream;
    /**
     * Stops the stream and every timer, drops the rows and the listeners; reads in flight reject
     * and store nothing. `open` opens it again.
     */
    close(): void;
    /** Sends a change; the stream's changes that arrive meanwhile are applied after its answer. */
    private changing;
    /** Runs `work` once the changes asked before it are done; the changes asked after it wait for it. */
    private enqueue;
    /**
     * Runs `work` at its turn among the changes: after those asked before it are applied, and
     * before those asked after it are sent. `work` sends its changes through `now` (the change
     * methods, not queued again: they would wait for `work` itself), so a change computed from
     * the rows (a row's place, the row below another) is computed from the rows the changes
     * before it left. Answers what `work` answers.
     */
    serially<T>(work: (now: RowChanges) => Promise<T>): Promise<T>;
    /**
     * A change of the view's state. `itemOnly`: a plain expand or collapse, which alters the
     * item's own row only (the ancestors its `reload` lists stay as they are). `moves`: it may
     * move rows among their siblings (a sort).
     */
    private viewChange;
    /** `PATCH` the view (the session for the default view, which has no sort); `ifMatch` for row numbers. */
    private patchView;
    /** Expands the item (with `recursive`, every descendant with children too). */
    expand(id: NodeId, recursive?: boolean): Promise<ItemChangeResponse>;
    /** Collapses the item (with `recursive`, every node of its subtree). */
    collapse(id: NodeId, recursive?: boolean): Promise<ItemChangeResponse>;
    /** Expands a collapsed item, collapses an expanded one (its state read from the held rows, else asked). */
    toggle(id: NodeId): Promise<ItemChangeResponse>;
    private toggleNow;
    /** Expands every ancestor of the item so that it shows. */
    reveal(id: NodeId): Promise<ItemChangeResponse>;
    expandAll(): Promise<ChangeResponse>;
    collapseAll(): Promise<ChangeResponse>;
    /** Expands the nodes with children at a level below `depth`, collapses the others. */
    expandDepth(depth: number): Promise<ChangeResponse>;
    /** Orders the view by `sort` (`-data.size,title`), or the tree's order with null. Views only. */
    setSort(sort: string | null): Promise<ChangeResponse>;
    /** Selects the item, with its subtree unless `recursive` is false. */
    select(id: NodeId, recursive?: boolean): Promise<ItemChangeResponse>;
    deselect(id: NodeId, recursive?: boolean): Promise<ItemChangeResponse>;
    selectAll(): Promise<ChangeResponse>;
    selectNone(): Promise<ChangeResponse>;
    invertSelection(): Promise<ChangeResponse>;
    /**
     * Selects (or deselects) the nodes on rows `offset ..< offset + count` (a shift-click). Row
     * numbers name the held rows: sent with `If-Match`; a 412 refreshes and is thrown (the rows
     * meant are not known any more). When a filter (or `open`) replaced the rows before its
     * turn, it is not sent: it rejects.
     */
    selectRows(offset: number, count: number, selected?: boolean, recursive?: boolean): Promise<ChangeResponse>;
    /** A page of the view's selected nodes in tree order, each with its row in the named rows. */
    selection(query?: {
        after?: string;
        limit?: number;
        top?: boolean;
    }): Promise<SelectionPage>;
    /**
     * An edit with `If-Match` of the held version; after a 412 `version-mismatch`, a refresh and
     * (`retry`, and the cache's `retryConflicts`) one more try with the new version, else the 412
     * is thrown. `moves`: it may move rows among their siblings (every edit of the tree does).
     */
    private edit;
    /** Inserts nodes (with their subtrees): as children (`parentId`, `index`), or `before`/`after` an item. */
    insert(nodes: Node[], place?: InsertPlace): Promise<InsertResponse>;
    /** Deletes the item and its subtree. */
    delete(id: NodeId): Promise<ItemChangeResponse>;
    /** Moves the item under `parentId` (null: the roots) at `index` among its new siblings (none: last). */
    move(id: NodeId, parentId: ParentId, index?: number): Promise<ItemChangeResponse>;
    /** Changes the item's title and/or data. */
    update(id: NodeId, changes: {
        title?: string;
        data?: JSONValue;
    }): Promise<ItemChangeResponse>;
    /**
     * Several changes as one, all or nothing. Sent with `If-Match` when one of them edits the
     * tree; a batch of view changes alone is not.
     */
    batch(operations: BatchOperation[]): Promise<BatchResponse>;
    private batchNow;
}
