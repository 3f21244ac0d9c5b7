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

import type {
  Answer,
} from "./transport.js";
import type {
  BatchOperation, BatchResponse, ChangeEvent, ChangeResponse, EndEvent, InsertResponse, ItemChangeResponse,
  GetItemQuery, GetRowsQuery, GetSelectionQuery, ItemInfo, JSONValue, MatchMode, Node, NodeId, ParentId, PatchSessionBody,
  PatchViewBody, Reload, ResetEvent, Row, RowsPage, SelectionPage, Splice,
} from "./api.js";
import { TreeSessionsApi } from "./api.js";
import { ProblemError } from "./problem.js";
import { RowStore } from "./row-store.js";
import type { EventStreamHandle, SSEEvent } from "./sse.js";
import { followEventStream } from "./sse.js";

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
  update(id: NodeId, changes: { title?: string; data?: JSONValue }): Promise<ItemChangeResponse>;
  batch(operations: BatchOperation[]): Promise<BatchResponse>;
  setFilter(text: string | null, options?: FilterOptions): Promise<void>;
}

/** The state of the event stream: open, waiting to reconnect (or connecting), or not followed. */
export type StreamState = "open" | "connecting" | "closed";

/** Where `insert` puts its nodes. */
export type InsertPlace =
  | { parentId?: ParentId; index?: number }
  | { before: NodeId }
  | { after: NodeId };

/** What a listener of `onChange` gets. */
export type RowsChange =
  /** A change applied: the sequential splices (rows between them unknown until fetched) and the rows to reload. */
  | { kind: "splices"; changes: Splice[]; reload: Reload; version: number; total: number }
  /** Every row may have changed (a refresh, a new filter, a page of a later version): read again what is shown. */
  | { kind: "reset"; version: number; total: number }
  /** The session or the view is gone (`deleted`, `expired`), or the stream cannot be followed (`error`). */
  | { kind: "end"; reason: "deleted" | "expired" | "error"; error?: unknown };

type AnyChange = ChangeResponse | ItemChangeResponse | InsertResponse | BatchResponse | ChangeEvent;

/** A change waiting for its turn, and whether it may move rows among their siblings (see `positions`). */
interface Received {
  change: AnyChange;
  moves: boolean;
}

/** What names the rows: the session, the view (null: the default view), the filter and its options. */
interface Named {
  session: string;
  view: string | null;
  filter: string | null;
  options: FilterOptions;
}

/** The query parameters that name rows: the filter and its options, when filtered. */
type NamedQuery = {
  filter?: string; match?: MatchMode; caseSensitive?: boolean; diacritics?: "sensitive" | "insensitive";
  leavesOnly?: boolean; fields?: string; where?: string;
};

const isFiltered = (named: Named): boolean => named.filter !== null || named.options.where !== undefined;

/** Errors after which asking again cannot help: the session or view is gone, or access is refused. */
const fatal = (e: unknown): e is ProblemError => e instanceof ProblemError && [401, 403, 404].includes(e.status);

/** A 409 `filter-superseded`: a newer filter request on the session cancelled the build this request needed; nothing changed. */
const superseded = (e: unknown): boolean => e instanceof ProblemError && e.status === 409 && e.slug === "filter-superseded";
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const TREE_EDITS = new Set(["insert", "delete", "move", "update", "deleteSelected", "moveSelected"]);

/** Events held while a change is out, at most; past this, they are dropped and the cache refreshes once the change is done. */
const HELD_EVENTS_LIMIT = 10000;

export class TreeRows {
  readonly api: TreeSessionsApi;
  readonly blockSize: number;
  readonly maxBlocks: number;
  private readonly gapTimeoutMs: number;
  private aggregateText: string | undefined;
  private readonly positions: boolean;
  private readonly retryConflicts: boolean;
  private readonly streamIdleTimeoutMs: number | undefined;
  private readonly onError: (error: unknown) => void;

  /** The rows held are these: changed only when a `setFilter` or `open` adopts its first page. */
  private named: Named = { session: "", view: null, filter: null, options: {} };
  private highlightText: string | null = null;
  private highlightOpts: FilterOptions = {};
  /** Counts `setHighlight` calls: a filter drops the highlight unless one was set after the filter was asked. */
  private highlightSets = 0;
  private _version = 0;
  private _total = 0;
  /** The rows held as the server has them at the held version. */
  private readonly store = new RowStore();
  /** Rows a change may have altered: shown until fetched again, never answered by `rows`. */
  private readonly stale = new RowStore();
  /** Changes of versions past held + 1, waiting for the ones between. */
  private readonly buffered = new Map<number, Received>();
  private gapTimer: ReturnType<typeof setTimeout> | null = null;
  /**
   * Two counters name what an answer was asked for. `generation`: the named rows (bumped when
   * a filter or `open` adopts its page, and by `close`); change answers and pages of an older
   * one do not apply. `readGeneration`: what pages are read with (highlight, aggregate); pages
   * of an older one are not stored.
   */
  private generation = 0;
  private readGeneration = 0;
  private _matchCount: number | null = null;
  private _selectedCount = 0;
  private _sort: string | null = null;
  /** The version the page metadata above was read at. */
  private metaVersion = -1;

  // The event stream.
  private stream: EventStreamHandle | null = null;
  /** Whether the stream is to be followed (`subscribe`), kept across the stream's restart by a filter. */
  private wantStream = false;
  private streamState: StreamState = "closed";
  private readonly streamListeners = new Set<(state: StreamState, error?: unknown) => void>();

  // The order of changes: one at a time, the stream's changes held while one is out.
  private changeQueue: Promise<unknown> = Promise.resolve();
  private changesOut = 0;
  private heldEvents: Array<{ change: ChangeEvent; gen: number }> = [];
  private heldLimit = HELD_EVENTS_LIMIT;
  /** Events were dropped while a change was out: refresh once it is done. */
  private heldOverflow = false;
  /** The changes, sent at once (what `serially` hands its work). */
  private readonly direct: RowChanges;

  // Catching up.
  private refreshing: Promise<void> | null = null;
  /** A version past the held one exists (a gap, a reset): background refreshes go on until a page is adopted. */
  private behind = false;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private retryDelay = 0;

  /** Block loads in flight, shared by the reads that need them. */
  private readonly inflight: Array<{ from: number; to: number; gen: number; read: number; done: Promise<void> }> = [];
  private closed = false;
  /** Bumped by `close`: reads begun before it stop. */
  private closings = 0;
  private readonly listeners = new Set<(change: RowsChange) => void>();
  private waiters: Array<{ version: number; resolve: () => void }> = [];
  private lastUse = new Map<number, number>();
  private tick = 0;
  /** Requests of this cache in flight (`busy`), and what `settled` waits on. */
  private pending = 0;
  private idle: Array<() => void> = [];

  constructor(api: TreeSessionsApi, options: TreeRowsOptions = {}) {
    this.api = api;
    this.blockSize = options.blockSize ?? 100;
    this.maxBlocks = options.maxBlocks ?? 50;
    this.gapTimeoutMs = options.gapTimeoutMs ?? 2000;
    this.aggregateText = options.aggregate;
    this.positions = options.positions ?? false;
    this.retryConflicts = options.retryConflicts ?? true;
    this.streamIdleTimeoutMs = options.streamIdleTimeoutMs;
    this.onError = options.onError ?? ((error) => console.warn("TreeRows:", error));
    if (!(this.blockSize >= 1 && this.blockSize <= 1000)) {
      throw new RangeError("blockSize must be 1 to 1000");
    }
    const item = (id: NodeId, body: Parameters<TreeSessionsApi["patchItem"]>[2], ifMatch?: string): Promise<ItemChangeResponse> =>
      this.value(this.route(this.named, this.api.patchItem, this.api.patchViewItem, id, body, this.namedQuery(), { ifMatch }));
    this.direct = {
      expand: (id, recursive = false) => this.viewChange(() => item(id, recursive ? { expanded: true, recursive } : { expanded: true }), !recursive),
      collapse: (id, recursive = false) => this.viewChange(() => item(id, recursive ? { expanded: false, recursive } : { expanded: false }), !recursive),
      toggle: (id) => this.toggleNow(id),
      reveal: (id) => this.viewChange(() => item(id, { reveal: true })),
      expandAll: () => this.viewChange(() => this.patchView({ expandAll: true })),
      collapseAll: () => this.viewChange(() => this.patchView({ collapseAll: true })),
      expandDepth: (depth) => this.viewChange(() => this.patchView({ expandDepth: depth })),
      setSort: (sort) => this.viewChange(() => this.patchView({ sort }), false, true),
      select: (id, recursive = true) => this.viewChange(() => item(id, recursive ? { selected: true } : { selected: true, recursive })),
      deselect: (id, recursive = true) => this.viewChange(() => item(id, recursive ? { selected: false } : { selected: false, recursive })),
      selectAll: () => this.viewChange(() => this.patchView({ selectAll: true })),
      selectNone: () => this.viewChange(() => this.patchView({ selectNone: true })),
      invertSelection: () => this.viewChange(() => this.patchView({ invertSelection: true })),
      // Row numbers name the held rows: sent with If-Match, and never retried on other rows.
      selectRows: (offset, count, selected = true, recursive = true) =>
        this.edit((ifMatch) => this.patchView({ selectRows: { offset, count, selected, recursive } }, ifMatch), false, false),
      insert: (nodes, place = {}) => this.edit((ifMatch) =>
        this.value(this.route(this.named, this.api.insertItems, this.api.insertViewItems, { nodes, ...place }, this.namedQuery(), { ifMatch }))),
      delete: (id) => this.edit((ifMatch) =>
        this.value(this.route(this.named, this.api.deleteItem, this.api.deleteViewItem, id, this.namedQuery(), { ifMatch }))),
      move: (id, parentId, index) => this.edit((ifMatch) => item(id, index === undefined ? { parentId } : { parentId, index }, ifMatch)),
      update: (id, changes) => this.edit((ifMatch) => item(id, changes, ifMatch)),
      batch: (operations) => this.batchNow(operations),
      setFilter: (text, options = {}) => this.switchTo(this.naming(text, options), this.highlightSets),
    };
  }

  // ---- State ----

  get session(): string { return this.named.session; }
  /** The view (`POST /sessions/{sid}/views`), or null for the session's default view. */
  get view(): string | null { return this.named.view; }
  /** The filter text, or null for the unfiltered rows. */
  get filter(): string | null { return this.named.filter; }
  get filterOptions(): FilterOptions { return { ...this.named.options }; }
  /** The view's version the held rows are at. */
  get version(): number { return this._version; }
  /** The number of named rows. */
  get total(): number { return this._total; }
  /** The highlighted text (the unfiltered rows with their matches flagged), or null. */
  get highlight(): string | null { return this.highlightText; }
  /** `aggregate=` of every rows page, or undefined. */
  get aggregate(): string | undefined { return this.aggregateText; }
  /** From the rows pages: a filtered view's matching nodes (null unfiltered or not read yet). */
  get matchCount(): number | null { return this._matchCount; }
  /** From the rows pages: the view's selected nodes. */
  get selectedCount(): number { return this._selectedCount; }
  /** From the rows pages: the view's sort keys (`-data.size,title`), or null for the tree's order. */
  get sort(): string | null { return this._sort; }
  /** True while the event stream is followed (open or reconnecting). */
  get subscribed(): boolean { return this.stream !== null; }
  get connected(): boolean { return this.stream?.connected ?? false; }
  /** The event stream's state; `onStreamState` tells when it changes. */
  get streamStatus(): StreamState { return this.streamState; }

  /**
   * Opens the cache on a session's view (null: the default view), unfiltered or with a
   * filter: fetches the first block. Reopening drops everything held (and reopens the stream).
   * Queued after the changes asked before it; when its page fails, nothing changes.
   */
  open(session: string, view: string | null = null, filter: string | null = null, options: FilterOptions = {}): Promise<void> {
    const asked = this.highlightSets;
    return this.enqueue(() => this.switchTo({ ...this.naming(filter, options), session, view }, asked));
  }

  /**
   * The held row at `i`, or undefined (fetch it with `rows`). It may be stale (`isStale`): a
   * change may have altered it, and `rows` fetches it again. - Complexity: O(log runs).
   */
  row(i: number): Row | undefined {
    this.touch(i, i + 1);
    return this.store.get(i) ?? this.stale.get(i);
  }

  /** Whether the row held at `i` is stale (shown until `rows` fetches it again). - Complexity: O(log runs). */
  isStale(i: number): boolean {
    return this.store.get(i) === undefined && this.stale.get(i) !== undefined;
  }

  /** Every row held and current, in order (what `rows` answers without a fetch); stale rows are left out. */
  cachedRows(): Row[] {
    return [...this.store.entries()];
  }

  /**
   * The rows `from ..< min(to, total)`, fetching the blocks that hold missing ones (only the
   * missing rows of them; a block another read is fetching is waited for, not asked again). At
   * most `maxBlocks` blocks stay held afterwards. Rejects once the cache is closed.
   */
  async rows(from: number, to: number): Promise<Row[]> {
    const closings = this.closings;
    const open = (): void => {
      if (this.closed || closings !== this.closings) {
        throw new Error("TreeRows: closed");
      }
    };
    open();
    return this.busy(async () => {
      for (let attempt = 0; ; attempt++) {
        open();
        const gen = this.generation;
        const end = Math.min(to, this._total);
        if (from >= end) {
          if (this.metaVersion !== this._version) {
            await this.readMeta(gen);
          }
          return [];
        }
        this.touch(from, end);
        const held = this.store.slice(from, end);
        if (held !== null) {
          this.trim();
          if (this.metaVersion !== this._version) {
            await this.readMeta(gen);
          }
          return held;
        }
        if (attempt >= 20) {
          throw new Error(`TreeRows: rows ${from}..<${end} kept changing while they were fetched`);
        }
        const lo = Math.floor(from / this.blockSize) * this.blockSize;
        const hi = Math.min(Math.ceil(end / this.blockSize) * this.blockSize, this._total);
        // Every load settles before a failure is told, so none is left behind.
        const failed = (await Promise.allSettled(this.loads(lo, hi, gen))).find((r): r is PromiseRejectedResult => r.status === "rejected");
        open();
        if (failed !== undefined) {
          throw failed.reason;
        }
      }
    });
  }

  /** The loads that bring the missing rows of `lo ..< hi`: those in flight, and new ones (at most 1000 rows each) for the rest. */
  private loads(lo: number, hi: number, gen: number): Array<Promise<void>> {
    const read = this.readGeneration;
    const out: Array<Promise<void>> = [];
    const start = (a: number, b: number): void => {
      for (let at = a; at < b; at += 1000) {
        const flight = { from: at, to: Math.min(b, at + 1000), gen, read, done: this.load(at, Math.min(b - at, 1000), gen) };
        const landed = (): void => {
          this.inflight.splice(this.inflight.indexOf(flight), 1);
        };
        flight.done.then(landed, landed);
        this.inflight.push(flight);
        out.push(flight.done);
      }
    };
    for (const [a, b] of this.store.missing(lo, hi)) {
      let at = a;
      const flying = this.inflight
        .filter((f) => f.gen === gen && f.read === read && f.from < b && f.to > a)
        .sort((x, y) => x.from - y.from);
      for (const f of flying) {
        if (f.from > at) {
          start(at, f.from);
        }
        out.push(f.done);
        at = Math.max(at, f.to);
      }
      if (at < b) {
        start(at, b);
      }
    }
    return out;
  }

  /** Reads the page metadata (`matchCount`, `selectedCount`, `sort`) of the held version: a page of no rows. */
  private async readMeta(gen: number): Promise<void> {
    const read = this.readGeneration;
    const page = await this.fetchPage(this.named, 0, 0, gen);
    if (gen === this.generation && read === this.readGeneration) {
      this.noteMeta(page);
    }
  }

  private noteMeta(page: RowsPage): void {
    if (page.version === this._version) {
      this._matchCount = page.matchCount ?? null;
      this._selectedCount = page.selectedCount ?? 0;
      this._sort = page.sort ?? null;
      this.metaVersion = page.version;
    }
  }

  /** Fetches one page and keeps it by the version rules. */
  private async load(offset: number, limit: number, gen: number): Promise<void> {
    const read = this.readGeneration;
    const current = (): boolean => gen === this.generation && read === this.readGeneration;
    let page: RowsPage;
    try {
      page = await this.fetchPage(this.named, offset, limit, gen);
    } catch (e) {
      if (!current()) {
        return; // asked for rows that are not shown any more
      }
      throw e;
    }
    if (!current()) {
      return; // the named rows, or what they are read with, changed meanwhile
    }
    if (page.version === this._version) {
      this.store.set(page.offset, page.rows);
      this.stale.drop(page.offset, page.rows.length);
      this.noteMeta(page);
    } else if (page.version > this._version) {
      this.adopt(page); // the held rows are stale: start again from this page
    }
    // an older page raced a change that is applied: dropped, `rows` fetches again
  }

  /**
   * One rows page of `named`, read as the held rows are (highlight when unfiltered, positions,
   * aggregates). A 409 `filter-superseded` is asked again while the named rows are still `gen`'s.
   */
  private fetchPage(named: Named, offset: number, limit: number, gen: number): Promise<RowsPage> {
    const query = {
      ...this.readQuery(named), offset, limit, positions: this.positions ? true : undefined, aggregate: this.aggregateText,
    };
    return this.whileCurrent(gen, () => this.value(this.route<[GetRowsQuery], Promise<Answer<RowsPage>>>(named, this.api.getRows, this.api.getViewRows, query)));
  }

  /** Sends again after a 409 `filter-superseded` (nothing was changed) while `gen` names the rows, at most 50 times. */
  private async whileCurrent<T>(gen: number, send: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await send();
      } catch (e) {
        if (!superseded(e) || attempt >= 50 || gen !== this.generation) {
          throw e;
        }
      }
      await pause(100);
    }
  }

  /** Calls the session's operation (for the default view) or the view's on the rows `named`, with `args` after the session (and view). */
  private route<A extends unknown[], R>(
    named: Named,
    session: (sid: string, ...args: A) => R,
    view: (sid: string, vid: string, ...args: A) => R,
    ...args: A
  ): R {
    return named.view === null ? session.call(this.api, named.session, ...args) : view.call(this.api, named.session, named.view, ...args);
  }

  private async value<T>(answer: Promise<Answer<T>>): Promise<T> {
    return (await answer).value;
  }

  /** Drops every row, takes the page's version, total and rows, and tells the listeners to read again. */
  private adopt(page: RowsPage): void {
    this.store.clear();
    this.stale.clear();
    this.lastUse.clear();
    this._version = page.version;
    this._total = page.total;
    this.store.set(page.offset, page.rows);
    this.noteMeta(page);
    for (const v of [...this.buffered.keys()]) {
      if (v <= page.version) {
        this.buffered.delete(v);
      }
    }
    this.caughtUp();
    this.emit({ kind: "reset", version: this._version, total: this._total });
    this.drain();
    this.settleWaiters();
  }

  /** Marks the blocks of `from ..< to` as just used. */
  private touch(from: number, to: number): void {
    const t = ++this.tick;
    for (let b = Math.floor(from / this.blockSize); b * this.blockSize < to; b++) {
      this.lastUse.set(b, t);
    }
  }

  /** Drops least recently used blocks until at most `maxBlocks` blocks' worth of rows are held. */
  private trim(): void {
    const limit = this.maxBlocks * this.blockSize;
    if (this.store.count + this.stale.count <= limit) {
      return;
    }
    const blocks = [...new Set([...this.store.blocks(this.blockSize), ...this.stale.blocks(this.blockSize)])];
    blocks.sort((a, b) => (this.lastUse.get(a) ?? 0) - (this.lastUse.get(b) ?? 0) || a - b);
    for (const b of blocks) {
      if (this.store.count + this.stale.count <= limit) {
        break;
      }
      this.store.drop(b * this.blockSize, this.blockSize);
      this.stale.drop(b * this.blockSize, this.blockSize);
      this.lastUse.delete(b);
    }
  }

  // ---- Listeners and versions ----

  /** Calls `listener` for every change of the held rows; answers a function that stops it. */
  onChange(listener: (change: RowsChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls `listener` whenever the event stream opens, waits to reconnect, or stops; answers a function that stops it. */
  onStreamState(listener: (state: StreamState, error?: unknown) => void): () => void {
    this.streamListeners.add(listener);
    return () => this.streamListeners.delete(listener);
  }

  private setStreamState(state: StreamState, error?: unknown): void {
    if (state === this.streamState && error === undefined) {
      return;
    }
    this.streamState = state;
    for (const listener of [...this.streamListeners]) {
      try {
        listener(state, error);
      } catch (e) {
        this.onError(e);
      }
    }
  }

  private emit(change: RowsChange): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch (e) {
        this.onError(e);
      }
    }
  }

  /** Resolves once the held version is at least `version` (rejects after `timeoutMs`). */
  whenVersion(version: number, timeoutMs = 10000): Promise<void> {
    if (this._version >= version) {
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`TreeRows: version ${version} did not arrive within ${timeoutMs} ms (held ${this._version})`));
      }, timeoutMs);
      const waiter = { version, resolve: () => { clearTimeout(timer); resolve(); } };
      this.waiters.push(waiter);
    });
  }

  /**
   * Resolves once no request of this cache is in flight, no change waits for a missing
   * version, and the cache is not behind (a failed refresh is retried until it caught up).
   */
  settled(): Promise<void> {
    if (this.isIdle()) {
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => this.idle.push(resolve)).then(() => this.settled());
  }

  private isIdle(): boolean {
    return this.pending === 0 && this.buffered.size === 0 && this.refreshing === null && !this.behind;
  }

  private checkIdle(): void {
    if (this.isIdle()) {
      const idle = this.idle;
      this.idle = [];
      for (const resolve of idle) {
        resolve();
      }
    }
  }

  private settleWaiters(): void {
    const ready = this.waiters.filter((w) => w.version <= this._version);
    if (ready.length > 0) {
      this.waiters = this.waiters.filter((w) => w.version > this._version);
      for (const w of ready) {
        w.resolve();
      }
    }
  }

  private async busy<T>(work: () => Promise<T>): Promise<T> {
    this.pending++;
    try {
      return await work();
    } finally {
      this.pending--;
      this.checkIdle();
    }
  }

  /**
   * A change by the version rules: an old one is skipped, the next one applied (with the
   * buffered ones that follow it), a later one buffered until the gap is filled.
   */
  private receive(change: AnyChange, gen: number, moves: boolean): void {
    if (change.version <= this._version) {
      return;
    }
    if (gen !== this.generation) {
      // An answer about the named rows before a setFilter: its splices are not ours, but its
      // version is the view's; the stream's event of that version is.
      this.expect(change.version);
      return;
    }
    if (change.version === this._version + 1) {
      this.apply(change, moves);
      this.drain();
    } else {
      this.buffered.set(change.version, { change, moves });
      this.expect(change.version);
    }
  }

  /** Applies the buffered changes that follow the held version. */
  private drain(): void {
    for (;;) {
      const next = this.buffered.get(this._version + 1);
      if (next === undefined) {
        break;
      }
      this.buffered.delete(next.change.version);
      this.apply(next.change, next.moves);
    }
    for (const v of [...this.buffered.keys()]) {
      if (v <= this._version) {
        this.buffered.delete(v);
      }
    }
    if (this.buffered.size === 0 && this.gapTimer !== null) {
      clearTimeout(this.gapTimer);
      this.gapTimer = null;
    }
    this.checkIdle();
  }

  /** A version past the held one exists: wait for the stream to bring it, else refresh. */
  private expect(version: number): void {
    if (!this.connected) {
      this.backgroundRefresh();
      return;
    }
    if (this.gapTimer === null) {
      this.gapTimer = setTimeout(() => {
        this.gapTimer = null;
        if (this._version < version || this.buffered.size > 0) {
          this.backgroundRefresh();
        }
      }, this.gapTimeoutMs);
    }
  }

  /**
   * Applies a change one past the held version: its splices shift the held rows, the rows it
   * may have altered in place (`reload`; every one when `moves` and `positions`) become stale.
   */
  private apply(change: AnyChange, moves: boolean): void {
    for (const s of change.changes) {
      this.store.splice(s.index, s.removed, s.inserted);
      this.stale.splice(s.index, s.removed, s.inserted);
    }
    if (this.positions && moves) {
      this.markStale(0, Infinity);
    } else {
      for (const r of change.reload) {
        this.markStale(r.index, r.index + r.count);
      }
    }
    this._version = change.version;
    this._total = change.total;
    this.store.truncate(change.total);
    this.stale.truncate(change.total);
    this.emit({ kind: "splices", changes: change.changes, reload: change.reload, version: change.version, total: change.total });
    this.settleWaiters();
  }

  /** Makes the held rows of `from ..< to` stale: shown, and fetched again by `rows`. */
  private markStale(from: number, to: number): void {
    let run: Row[] = [];
    const flush = (): void => {
      if (run.length > 0) {
        this.stale.set(run[0]!.index, run);
        run = [];
      }
    };
    for (const row of this.store.entries()) {
      if (row.index < from) {
        continue;
      }
      if (row.index >= to) {
        break;
      }
      if (run.length > 0 && run[run.length - 1]!.index + 1 !== row.index) {
        flush();
      }
      run.push(row);
    }
    flush();
    this.store.drop(from, (to === Infinity ? Number.MAX_SAFE_INTEGER : to) - from);
  }

  /**
   * Catches up: fetches the first block, drops every held row, takes the page's version and
   * total and tells the listeners to read again. A page older than the held version is never
   * taken: asked again a few times, then this rejects. Concurrent calls share one request.
   */
  refresh(): Promise<void> {
    if (this.refreshing === null) {
      this.refreshing = this.busy(async () => {
        for (let attempt = 1; ; attempt++) {
          const gen = this.generation;
          const read = this.readGeneration;
          const page = await this.fetchPage(this.named, 0, this.blockSize, gen);
          if (this.closed) {
            return;
          }
          if (gen !== this.generation || read !== this.readGeneration) {
            continue; // the named rows, or what they are read with, changed while it was asked
          }
          if (page.version < this._version) {
            if (attempt >= 5) {
              throw new Error(`TreeRows: refresh answered version ${page.version}, older than the held ${this._version}`);
            }
            await pause(100 * attempt);
            continue;
          }
          this.adopt(page);
          return;
        }
      }).finally(() => {
        this.refreshing = null;
        this.checkIdle();
      });
    }
    return this.refreshing;
  }

  /**
   * Refreshes on its own (a gap, a reset): each failure is reported and the refresh tried
   * again after 1 s, doubling to 30 s, until a page is adopted (or the session is gone).
   */
  private backgroundRefresh(): void {
    if (this.closed) {
      return;
    }
    this.behind = true;
    if (this.retryTimer !== null) {
      return; // a retry is due: it refreshes
    }
    this.refresh().catch((e: unknown) => {
      this.report(e);
      if (!this.behind || this.closed || this.retryTimer !== null) {
        return;
      }
      if (fatal(e)) {
        this.buffered.clear();
        this.caughtUp(); // nothing more to try: the end was told
        this.drain();
        return;
      }
      this.retryDelay = Math.min(this.retryDelay === 0 ? 1000 : this.retryDelay * 2, 30000);
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        if (this.behind) {
          this.backgroundRefresh();
        }
      }, this.retryDelay);
    });
  }

  /** Not behind any more: no retry is due. */
  private caughtUp(): void {
    this.behind = false;
    this.retryDelay = 0;
    if (this.retryTimer !== null) {
      clearTimeout(this.retryTimer);
      this.retryTimer = null;
    }
  }

  /** An error of the cache's own work: 401, 403 and 404 end the stream (and are told as its end), others go to `onError`. */
  private report(error: unknown): void {
    if (fatal(error)) {
      this.wantStream = false;
      this.closeStream();
      this.emit({ kind: "end", reason: "error", error });
      return;
    }
    this.onError(error);
  }

  // ---- Filter ----

  /**
   * Names other rows of the view: the filtered rows for `text` (null or "" with no `where`:
   * the unfiltered rows). Queued after the changes asked before it (the changes asked after it
   * are sent for its rows). Fetches the first block of the new rows; once it came, drops
   * everything, takes that page, reopens the event stream from its version (when followed) and
   * tells the listeners to read again. When the page fails, nothing changes: the old rows,
   * version and stream stay. A filter drops the highlight (unless one was set after it was asked).
   */
  setFilter(text: string | null, options: FilterOptions = {}): Promise<void> {
    const asked = this.highlightSets;
    return this.enqueue(() => this.switchTo(this.naming(text, options), asked));
  }

  private naming(text: string | null, options: FilterOptions): Named {
    return { ...this.named, filter: text === "" ? null : text, options: { ...options } };
  }

  /** Fetches the first page of `named` (again when the highlight or aggregate changes meanwhile) and takes it. */
  private async switchTo(named: Named, highlightSets: number): Promise<void> {
    await this.busy(async () => {
      const gen = this.generation;
      for (;;) {
        const read = this.readGeneration;
        const page = await this.fetchPage(named, 0, this.blockSize, gen);
        if (gen !== this.generation) {
          return; // closed meanwhile
        }
        if (read !== this.readGeneration) {
          continue; // read with an old highlight or aggregate
        }
        this.named = named;
        this.closed = false;
        if (isFiltered(named) && highlightSets === this.highlightSets) {
          this.highlightText = null; // a filtered view has no highlight
        }
        this.generation++;
        this.buffered.clear();
        if (this.gapTimer !== null) {
          clearTimeout(this.gapTimer);
          this.gapTimer = null;
        }
        this.heldEvents = [];
        this.heldOverflow = false;
        this.adopt(page);
        if (this.wantStream) {
          this.closeStream();
          this.openStream();
        }
        return;
      }
    });
  }

  /**
   * Flags the matches of `text` in the unfiltered rows (`highlight=` on the rows pages: each row
   * then has `match` and `matchRanges`), or stops with null or "". Only what pages are read
   * with changes: the held rows become stale (shown until fetched again) and the listeners are
   * told to read again. A filtered view has no highlight: it shows once the filter is cleared.
   */
  setHighlight(text: string | null, options: FilterOptions = {}): void {
    this.highlightText = text === "" ? null : text;
    this.highlightOpts = { ...options };
    this.highlightSets++;
    this.readAgain();
  }

  /** Asks every rows page with `aggregate=` (`count,sum:data.size`), or none; the held rows become stale. */
  setAggregate(aggregate: string | undefined): void {
    this.aggregateText = aggregate === "" ? undefined : aggregate;
    this.readAgain();
  }

  /** What pages are read with changed: every held row is stale, pages asked before do not apply. */
  private readAgain(): void {
    this.readGeneration++;
    this.metaVersion = -1;
    this.markStale(0, Infinity);
    this.emit({ kind: "reset", version: this._version, total: this._total });
  }

  /** The query parameters of a rows page of `named`: its filter's, or the highlight's on unfiltered rows. */
  private readQuery(named: Named): NamedQuery & { highlight?: string } {
    if (this.highlightText === null || isFiltered(named)) {
      return this.namedQuery(named);
    }
    const o = this.highlightOpts;
    return {
      highlight: this.highlightText, match: o.match, caseSensitive: o.caseSensitive,
      diacritics: o.diacritics, leavesOnly: o.leavesOnly, fields: o.fields, where: o.where,
    };
  }

  /** The query parameters that name the rows: the filter and its options, when filtered. */
  private namedQuery(named: Named = this.named): NamedQuery {
    if (!isFiltered(named)) {
      return {};
    }
    const o = named.options;
    return {
      filter: named.filter ?? undefined, match: o.match, caseSensitive: o.caseSensitive,
      diacritics: o.diacritics, leavesOnly: o.leavesOnly, fields: o.fields, where: o.where,
    };
  }

  // ---- Event stream ----

  /**
   * Follows the view's event stream (with the filter's parameters and `Last-Event-ID` of the
   * held version on every connect), applying other clients' changes; a filter reopens it for
   * its rows; before `open` has named a session, it opens once `open` has its page. Idempotent.
   */
  subscribe(): void {
    this.wantStream = true;
    if (this.named.session !== "") {
      this.openStream();
    }
  }

  private openStream(): void {
    if (this.stream !== null) {
      return;
    }
    const gen = this.generation;
    let handle: EventStreamHandle | null = null;
    const live = (): boolean => handle !== null && handle === this.stream;
    handle = followEventStream({
      open: (lastEventId, signal) =>
        this.route(this.named, this.api.getEvents, this.api.getViewEvents, this.namedQuery(), { lastEventId: lastEventId ?? undefined, signal }),
      lastEventId: () => (this._version > 0 ? String(this._version) : null),
      idleTimeoutMs: this.streamIdleTimeoutMs,
      onEvent: (event) => {
        if (!live()) {
          return;
        }
        try {
          this.onEvent(event, gen);
        } catch (e) {
          // An event it cannot read (not JSON): told, and caught up with a refresh.
          this.onError(e);
          if (event.type === "change" || event.type === "reset") {
            this.backgroundRefresh();
          }
        }
      },
      onOpen: () => {
        if (live()) {
          this.setStreamState("open");
          if (this.buffered.size > 0) {
            this.expect(Math.max(...this.buffered.keys()));
          }
        }
      },
      onDisconnect: (error) => {
        if (live()) {
          this.setStreamState("connecting", error ?? undefined);
        }
      },
      onFatal: (error) => {
        if (live()) {
          this.stream = null;
          this.wantStream = false;
          this.setStreamState("closed", error);
          this.emit({ kind: "end", reason: "error", error });
        }
      },
    });
    this.stream = handle;
    this.setStreamState("connecting");
  }

  private onEvent(event: SSEEvent, gen: number): void {
    switch (event.type) {
      case "change": {
        // Another client's edit (or this view's change by another of its clients): places may
        // move. While a change of this cache is out, its answer decides first: the stream
        // brings that change too, and would apply it without knowing what it was. Past
        // `heldLimit` held events, they are dropped and the cache refreshes after the change.
        const change = JSON.parse(event.data) as ChangeEvent;
        if (this.changesOut === 0) {
          this.receive(change, gen, true);
        } else if (this.heldOverflow || this.heldEvents.length >= this.heldLimit) {
          this.heldEvents = [];
          this.heldOverflow = true;
        } else {
          this.heldEvents.push({ change, gen });
        }
        break;
      }
      case "reset": {
        const reset = JSON.parse(event.data) as ResetEvent;
        if (!(reset.reason === "subscribed" && reset.version <= this._version)) {
          this.backgroundRefresh();
        }
        break;
      }
      case "end": {
        const end = JSON.parse(event.data) as EndEvent;
        this.unsubscribe();
        this.emit({ kind: "end", reason: end.reason });
        break;
      }
      default:
        break;
    }
  }

  /** Stops following the event stream (the held rows stay, and stop following others' changes). */
  unsubscribe(): void {
    this.wantStream = false;
    this.closeStream();
  }

  private closeStream(): void {
    if (this.stream !== null) {
      this.stream.close();
      this.stream = null;
      this.setStreamState("closed");
    }
  }

  /**
   * Stops the stream and every timer, drops the rows and the listeners; reads in flight reject
   * and store nothing. `open` opens it again.
   */
  close(): void {
    this.closed = true;
    this.closings++;
    this.unsubscribe();
    if (this.gapTimer !== null) {
      clearTimeout(this.gapTimer);
      this.gapTimer = null;
    }
    this.caughtUp();
    this.generation++;
    this.buffered.clear();
    this.heldEvents = [];
    this.heldOverflow = false;
    this.store.clear();
    this.stale.clear();
    this.listeners.clear();
    this.streamListeners.clear();
    this.checkIdle();
  }

  // ---- The order of changes ----

  /** Sends a change; the stream's changes that arrive meanwhile are applied after its answer. */
  private async changing<T>(work: () => Promise<T>): Promise<T> {
    this.changesOut++;
    try {
      return await this.busy(work);
    } finally {
      this.changesOut--;
      if (this.changesOut === 0) {
        const held = this.heldEvents;
        this.heldEvents = [];
        if (this.heldOverflow) {
          this.heldOverflow = false;
          this.backgroundRefresh();
        } else {
          for (const { change, gen } of held) {
            if (gen === this.generation) {
              this.receive(change, gen, true);
            }
          }
        }
      }
    }
  }

  /** Runs `work` once the changes asked before it are done; the changes asked after it wait for it. */
  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const run = this.changeQueue.then(work, work);
    this.changeQueue = run.catch(() => undefined);
    return run;
  }

  /**
   * Runs `work` at its turn among the changes: after those asked before it are applied, and
   * before those asked after it are sent. `work` sends its changes through `now` (the change
   * methods, not queued again: they would wait for `work` itself), so a change computed from
   * the rows (a row's place, the row below another) is computed from the rows the changes
   * before it left. Answers what `work` answers.
   */
  serially<T>(work: (now: RowChanges) => Promise<T>): Promise<T> {
    return this.enqueue(() => work(this.direct));
  }

  // ---- Changes of the view's state (no If-Match: they name nodes by id) ----

  /**
   * A change of the view's state. `itemOnly`: a plain expand or collapse, which alters the
   * item's own row only (the ancestors its `reload` lists stay as they are). `moves`: it may
   * move rows among their siblings (a sort).
   */
  private async viewChange<T extends AnyChange>(send: () => Promise<T>, itemOnly = false, moves = false): Promise<T> {
    return this.changing(async () => {
      const gen = this.generation;
      const change = await this.whileCurrent(gen, send);
      const index = (change as Partial<ItemChangeResponse>).index;
      const applied = itemOnly && typeof index === "number" ? { ...change, reload: [{ index, count: 1 }] } : change;
      this.receive(applied, gen, moves);
      return change;
    });
  }

  /** `PATCH` the view (the session for the default view, which has no sort); `ifMatch` for row numbers. */
  private async patchView(body: PatchViewBody, ifMatch?: string): Promise<ChangeResponse> {
    const { session, view } = this.named;
    if (view !== null) {
      return (await this.api.patchView(session, view, body, this.namedQuery(), { ifMatch })).value;
    }
    if ("sort" in body) {
      throw new ProblemError({ type: "about:blank", title: "Unprocessable Content", status: 422, detail: "the default view keeps the tree's order: sort a view" });
    }
    const value = (await this.api.patchSession(session, body as PatchSessionBody, this.namedQuery(), { ifMatch })).value;
    if (!("changes" in value)) {
      throw new Error("PATCH /sessions/{sid} answered a session summary, not a change");
    }
    return value;
  }

  /** Expands the item (with `recursive`, every descendant with children too). */
  expand(id: NodeId, recursive = false): Promise<ItemChangeResponse> {
    return this.enqueue(() => this.direct.expand(id, recursive));
  }

  /** Collapses the item (with `recursive`, every node of its subtree). */
  collapse(id: NodeId, recursive = false): Promise<ItemChangeResponse> {
    return this.enqueue(() => this.direct.collapse(id, recursive));
  }

  /** Expands a collapsed item, collapses an expanded one (its state read from the held rows, else asked). */
  toggle(id: NodeId): Promise<ItemChangeResponse> {
    return this.enqueue(() => this.direct.toggle(id));
  }

  private async toggleNow(id: NodeId): Promise<ItemChangeResponse> {
    let expanded: boolean | undefined;
    for (const row of this.store.entries()) {
      if (String(row.id) === String(id)) {
        expanded = row.expanded;
        break;
      }
    }
    if (expanded === undefined) {
      expanded = (await this.value(this.route<[NodeId, GetItemQuery], Promise<Answer<ItemInfo>>>(this.named, this.api.getItem, this.api.getViewItem, id, this.namedQuery()))).expanded;
    }
    return expanded ? this.direct.collapse(id) : this.direct.expand(id);
  }

  /** Expands every ancestor of the item so that it shows. */
  reveal(id: NodeId): Promise<ItemChangeResponse> {
    return this.enqueue(() => this.direct.reveal(id));
  }

  expandAll(): Promise<ChangeResponse> {
    return this.enqueue(() => this.direct.expandAll());
  }

  collapseAll(): Promise<ChangeResponse> {
    return this.enqueue(() => this.direct.collapseAll());
  }

  /** Expands the nodes with children at a level below `depth`, collapses the others. */
  expandDepth(depth: number): Promise<ChangeResponse> {
    return this.enqueue(() => this.direct.expandDepth(depth));
  }

  /** Orders the view by `sort` (`-data.size,title`), or the tree's order with null. Views only. */
  setSort(sort: string | null): Promise<ChangeResponse> {
    return this.enqueue(() => this.direct.setSort(sort));
  }

  // ---- Selection (changes of the view's state) ----

  /** Selects the item, with its subtree unless `recursive` is false. */
  select(id: NodeId, recursive = true): Promise<ItemChangeResponse> {
    return this.enqueue(() => this.direct.select(id, recursive));
  }

  deselect(id: NodeId, recursive = true): Promise<ItemChangeResponse> {
    return this.enqueue(() => this.direct.deselect(id, recursive));
  }

  selectAll(): Promise<ChangeResponse> {
    return this.enqueue(() => this.direct.selectAll());
  }

  selectNone(): Promise<ChangeResponse> {
    return this.enqueue(() => this.direct.selectNone());
  }

  invertSelection(): Promise<ChangeResponse> {
    return this.enqueue(() => this.direct.invertSelection());
  }

  /**
   * Selects (or deselects) the nodes on rows `offset ..< offset + count` (a shift-click). Row
   * numbers name the held rows: sent with `If-Match`; a 412 refreshes and is thrown (the rows
   * meant are not known any more). When a filter (or `open`) replaced the rows before its
   * turn, it is not sent: it rejects.
   */
  selectRows(offset: number, count: number, selected = true, recursive = true): Promise<ChangeResponse> {
    const gen = this.generation;
    return this.enqueue(() => {
      if (gen !== this.generation) {
        throw new Error(`TreeRows: selectRows(${offset}, ${count}) was asked for rows that a filter replaced before its turn: not sent`);
      }
      return this.direct.selectRows(offset, count, selected, recursive);
    });
  }

  /** A page of the view's selected nodes in tree order, each with its row in the named rows. */
  selection(query: { after?: string; limit?: number; top?: boolean } = {}): Promise<SelectionPage> {
    return this.value(this.route<[GetSelectionQuery], Promise<Answer<SelectionPage>>>(this.named, this.api.getSelection, this.api.getViewSelection, { ...this.namedQuery(), ...query }));
  }

  // ---- Edits of the tree (If-Match: the held version; one retry after a refresh on 412) ----

  /**
   * An edit with `If-Match` of the held version; after a 412 `version-mismatch`, a refresh and
   * (`retry`, and the cache's `retryConflicts`) one more try with the new version, else the 412
   * is thrown. `moves`: it may move rows among their siblings (every edit of the tree does).
   */
  private async edit<T extends AnyChange>(send: (ifMatch: string) => Promise<T>, retry = true, moves = true): Promise<T> {
    return this.changing(async () => {
      let gen = this.generation;
      let change: T;
      try {
        change = await this.whileCurrent(gen, () => send(`"${this._version}"`));
      } catch (e) {
        if (!(e instanceof ProblemError && e.status === 412 && e.slug === "version-mismatch")) {
          throw e;
        }
        await this.refresh();
        if (!(retry && this.retryConflicts)) {
          throw e;
        }
        gen = this.generation;
        change = await this.whileCurrent(gen, () => send(`"${this._version}"`));
      }
      this.receive(change, gen, moves);
      return change;
    });
  }

  /** Inserts nodes (with their subtrees): as children (`parentId`, `index`), or `before`/`after` an item. */
  insert(nodes: Node[], place: InsertPlace = {}): Promise<InsertResponse> {
    return this.enqueue(() => this.direct.insert(nodes, place));
  }

  /** Deletes the item and its subtree. */
  delete(id: NodeId): Promise<ItemChangeResponse> {
    return this.enqueue(() => this.direct.delete(id));
  }

  /** Moves the item under `parentId` (null: the roots) at `index` among its new siblings (none: last). */
  move(id: NodeId, parentId: ParentId, index?: number): Promise<ItemChangeResponse> {
    return this.enqueue(() => this.direct.move(id, parentId, index));
  }

  /** Changes the item's title and/or data. */
  update(id: NodeId, changes: { title?: string; data?: JSONValue }): Promise<ItemChangeResponse> {
    return this.enqueue(() => this.direct.update(id, changes));
  }

  /**
   * Several changes as one, all or nothing. Sent with `If-Match` when one of them edits the
   * tree; a batch of view changes alone is not.
   */
  batch(operations: BatchOperation[]): Promise<BatchResponse> {
    return this.enqueue(() => this.direct.batch(operations));
  }

  private batchNow(operations: BatchOperation[]): Promise<BatchResponse> {
    const send = (ifMatch: string | undefined): Promise<BatchResponse> =>
      this.value(this.route(this.named, this.api.applyBatch, this.api.applyViewBatch, { operations }, this.namedQuery(), { ifMatch }));
    if (operations.some((op) => TREE_EDITS.has(op.op))) {
      return this.edit(send);
    }
    return this.viewChange(() => send(undefined));
  }
}
