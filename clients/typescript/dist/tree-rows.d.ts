/**
 * `TreeRows`: the row cache of one view's named rows (unfiltered or filtered), kept equal to
 * the server's by the row-cache protocol of docs/CLIENTS.md: sparse blocks of rows fetched on
 * demand, every change (this client's own answers and the event stream's) applied by its
 * splices in version order, a refresh when a version is missing, `If-Match` on tree edits
 * with one retry after a 412.
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
    /** Errors of work the cache does on its own (a refresh after an event); default `console.warn`. */
    onError?: (error: unknown) => void;
}
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
    private readonly aggregate;
    private readonly onError;
    private sessionId;
    private viewId;
    private filterText;
    private filterOpts;
    private _version;
    private _total;
    private readonly store;
    /** Changes of versions past held + 1, waiting for the ones between. */
    private readonly buffered;
    private gapTimer;
    /** Bumped whenever the named rows change identity (open, setFilter): older answers do not apply. */
    private generation;
    private refreshing;
    private stream;
    private streamToken;
    private readonly listeners;
    private waiters;
    private lastUse;
    private tick;
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
    /** True while the event stream is open. */
    get subscribed(): boolean;
    get connected(): boolean;
    /**
     * Opens the cache on a session's view (null: the default view), unfiltered or with a
     * filter: fetches the first block. Reopening drops everything held (and reopens the stream).
     */
    open(session: string, view?: string | null, filter?: string | null, options?: FilterOptions): Promise<void>;
    /** The held row at `i`, or undefined (fetch it with `rows`). - Complexity: O(log runs). */
    row(i: number): Row | undefined;
    /** Every row held, in order (what the cache would show without a fetch). */
    cachedRows(): Row[];
    /**
     * The rows `from ..< min(to, total)`, fetching the blocks that hold missing ones (only the
     * missing rows of them). At most `maxBlocks` blocks stay held afterwards.
     */
    rows(from: number, to: number): Promise<Row[]>;
    /** Fetches one page and keeps it by the version rules. */
    private load;
    private fetchPage;
    /** Drops every row, takes the page's version, total and rows, and tells the listeners to read again. */
    private adopt;
    /** Marks the blocks of `from ..< to` as just used. */
    private touch;
    /** Drops least recently used blocks until at most `maxBlocks` blocks' worth of rows are held. */
    private trim;
    /** Calls `listener` for every change of the held rows; answers a function that stops it. */
    onChange(listener: (change: RowsChange) => void): () => void;
    private emit;
    /** Resolves once the held version is at least `version` (rejects after `timeoutMs`). */
    whenVersion(version: number, timeoutMs?: number): Promise<void>;
    /** Resolves once no request of this cache is in flight and no change waits for a missing version. */
    settled(): Promise<void>;
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
    private apply;
    private notifyIdle;
    /**
     * Catches up: fetches the first block, drops every held row, takes the page's version and
     * total (a page older than the held version is asked again) and tells the listeners to
     * read again. Concurrent calls share one request.
     */
    refresh(): Promise<void>;
    private backgroundRefresh;
    private report;
    /**
     * Names other rows of the view: the filtered rows for `text` (null or "" with no `where`:
     * the unfiltered rows). Drops everything, fetches the first block, reopens the event
     * stream from that page's version and tells the listeners to read again.
     */
    setFilter(text: string | null, options?: FilterOptions): Promise<void>;
    /** The query parameters that name the rows: the filter and its options, when filtered. */
    private namedQuery;
    /**
     * Follows the view's event stream (with the filter's parameters and `Last-Event-ID` of the
     * held version on every connect), applying other clients' changes. Idempotent.
     */
    subscribe(): void;
    private onEvent;
    /** Stops following the event stream (the held rows stay, and stop following others' changes). */
    unsubscribe(): void;
    private endStream;
    /** Stops the stream and every timer, drops the rows and the listeners. */
    close(): void;
    private viewChange;
    private patchItem;
    private patchView;
    /** Expands the item (with `recursive`, every descendant with children too). */
    expand(id: NodeId, recursive?: boolean): Promise<ItemChangeResponse>;
    /** Collapses the item (with `recursive`, every node of its subtree). */
    collapse(id: NodeId, recursive?: boolean): Promise<ItemChangeResponse>;
    /** Expands a collapsed item, collapses an expanded one (its state read from the held rows, else asked). */
    toggle(id: NodeId): Promise<ItemChangeResponse>;
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
    /** Selects (or deselects) the nodes on rows `offset ..< offset + count` (a shift-click). */
    selectRows(offset: number, count: number, selected?: boolean, recursive?: boolean): Promise<ChangeResponse>;
    /** A page of the view's selected nodes in tree order, each with its row in the named rows. */
    selection(query?: {
        after?: string;
        limit?: number;
        top?: boolean;
    }): Promise<SelectionPage>;
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
}
