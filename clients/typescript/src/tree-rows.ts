/**
 * `TreeRows`: the row cache of one view's named rows (unfiltered or filtered), kept equal to
 * the server's by the row-cache protocol of docs/CLIENTS.md: sparse blocks of rows fetched on
 * demand, every change (this client's own answers and the event stream's) applied by its
 * splices in version order, a refresh when a version is missing, `If-Match` on tree edits
 * with one retry after a 412 (or none: `retryConflicts`). Changes are sent one at a time, in the
 * order asked (`serially` runs work that computes a change at its turn). Rows a change may have
 * altered stay readable (`row(i)`, `isStale(i)`) until `rows` fetches them again.
 */

import type {
  BatchOperation, BatchResponse, ChangeEvent, ChangeResponse, EndEvent, InsertResponse, ItemChangeResponse,
  JSONValue, MatchMode, Node, NodeId, ParentId, Reload, ResetEvent, Row, RowsPage, SelectionPage, Splice,
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
  /** Errors of work the cache does on its own (a refresh after an event); default `console.warn`. */
  onError?: (error: unknown) => void;
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

/** A 409 `filter-superseded`: a newer filter request on the session cancelled the build this request needed; nothing changed. */
const superseded = (e: unknown): boolean => e instanceof ProblemError && e.status === 409 && e.slug === "filter-superseded";
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const TREE_EDITS = new Set(["insert", "delete", "move", "update", "deleteSelected", "moveSelected"]);

export class TreeRows {
  readonly api: TreeSessionsApi;
  readonly blockSize: number;
  readonly maxBlocks: number;
  private readonly gapTimeoutMs: number;
  private aggregateText: string | undefined;
  private readonly positions: boolean;
  private readonly retryConflicts: boolean;
  private readonly onError: (error: unknown) => void;

  private sessionId = "";
  private viewId: string | null = null;
  private filterText: string | null = null;
  private filterOpts: FilterOptions = {};
  private highlightText: string | null = null;
  private highlightOpts: FilterOptions = {};
  private _version = 0;
  private _total = 0;
  /** The rows held as the server has them at the held version. */
  private readonly store = new RowStore();
  /** Rows a change may have altered: shown until fetched again, never answered by `rows`. */
  private readonly stale = new RowStore();
  /** Changes of versions past held + 1, waiting for the ones between. */
  private readonly buffered = new Map<number, Received>();
  private gapTimer: ReturnType<typeof setTimeout> | null = null;
  /** Bumped whenever the named rows change identity (open, setFilter): older answers do not apply. */
  private generation = 0;
  /** Bumped whenever what pages are read with changes (open, filter, highlight, aggregate): older pages do not apply. */
  private readGeneration = 0;
  private _matchCount: number | null = null;
  private _selectedCount = 0;
  private _sort: string | null = null;
  /** The version the page metadata above was read at. */
  private metaVersion = -1;
  private streamState: StreamState = "closed";
  private readonly streamListeners = new Set<(state: StreamState, error?: unknown) => void>();
  private changeQueue: Promise<unknown> = Promise.resolve();
  /** Change requests of this cache that are out; the stream's changes wait for their answers meanwhile. */
  private changesOut = 0;
  private readonly heldEvents: Array<{ change: ChangeEvent; gen: number }> = [];
  /** The changes, sent at once (what `serially` hands its work). */
  private readonly direct: RowChanges;
  private refreshing: Promise<void> | null = null;
  private stream: EventStreamHandle | null = null;
  private streamToken = 0;
  private readonly listeners = new Set<(change: RowsChange) => void>();
  private waiters: Array<{ version: number; resolve: () => void }> = [];
  private lastUse = new Map<number, number>();
  private tick = 0;
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
    this.onError = options.onError ?? ((error) => console.warn("TreeRows:", error));
    if (!(this.blockSize >= 1 && this.blockSize <= 1000)) {
      throw new RangeError("blockSize must be 1 to 1000");
    }
    this.direct = {
      expand: (id, recursive = false) => this.viewChange(() => this.patchItem(id, recursive ? { expanded: true, recursive } : { expanded: true }), !recursive),
      collapse: (id, recursive = false) => this.viewChange(() => this.patchItem(id, recursive ? { expanded: false, recursive } : { expanded: false }), !recursive),
      toggle: (id) => this.toggleNow(id),
      reveal: (id) => this.viewChange(() => this.patchItem(id, { reveal: true })),
      expandAll: () => this.viewChange(() => this.patchView({ expandAll: true })),
      collapseAll: () => this.viewChange(() => this.patchView({ collapseAll: true })),
      expandDepth: (depth) => this.viewChange(() => this.patchView({ expandDepth: depth })),
      setSort: (sort) => this.viewChange(() => this.patchView({ sort }), false, true),
      select: (id, recursive = true) => this.viewChange(() => this.patchItem(id, recursive ? { selected: true } : { selected: true, recursive })),
      deselect: (id, recursive = true) => this.viewChange(() => this.patchItem(id, recursive ? { selected: false } : { selected: false, recursive })),
      selectAll: () => this.viewChange(() => this.patchView({ selectAll: true })),
      selectNone: () => this.viewChange(() => this.patchView({ selectNone: true })),
      invertSelection: () => this.viewChange(() => this.patchView({ invertSelection: true })),
      // Row numbers name the held rows: sent with If-Match, and never retried on other rows.
      selectRows: (offset, count, selected = true, recursive = true) =>
        this.edit((ifMatch) => this.patchViewChecked({ selectRows: { offset, count, selected, recursive } }, ifMatch), false, false),
      insert: (nodes, place = {}) => this.edit(async (ifMatch) => {
        const body = { nodes, ...place };
        const options = { ifMatch };
        const answer = this.viewId === null
          ? await this.api.insertItems(this.sessionId, body, this.namedQuery(), options)
          : await this.api.insertViewItems(this.sessionId, this.viewId, body, this.namedQuery(), options);
        return answer.value;
      }),
      delete: (id) => this.edit(async (ifMatch) => {
        const options = { ifMatch };
        const answer = this.viewId === null
          ? await this.api.deleteItem(this.sessionId, id, this.namedQuery(), options)
          : await this.api.deleteViewItem(this.sessionId, this.viewId, id, this.namedQuery(), options);
        return answer.value;
      }),
      move: (id, parentId, index) => this.edit((ifMatch) => this.patchItem(id, index === undefined ? { parentId } : { parentId, index }, ifMatch)),
      update: (id, changes) => this.edit((ifMatch) => this.patchItem(id, changes, ifMatch)),
      batch: (operations) => this.batchNow(operations),
    };
  }

  // ---- State ----

  get session(): string { return this.sessionId; }
  /** The view (`POST /sessions/{sid}/views`), or null for the session's default view. */
  get view(): string | null { return this.viewId; }
  /** The filter text, or null for the unfiltered rows. */
  get filter(): string | null { return this.filterText; }
  get filterOptions(): FilterOptions { return { ...this.filterOpts }; }
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
   */
  async open(session: string, view: string | null = null, filter: string | null = null, options: FilterOptions = {}): Promise<void> {
    this.sessionId = session;
    this.viewId = view;
    await this.setFilter(filter, options);
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
   * missing rows of them). At most `maxBlocks` blocks stay held afterwards.
   */
  async rows(from: number, to: number): Promise<Row[]> {
    return this.busy(async () => {
      for (let attempt = 0; ; attempt++) {
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
        const loads: Array<Promise<void>> = [];
        for (const [a, b] of this.store.missing(lo, hi)) {
          for (let at = a; at < b; at += 1000) {
            loads.push(this.load(at, Math.min(b - at, 1000), gen));
          }
        }
        // Every load settles before a failure is told, so none is left behind.
        const failed = (await Promise.allSettled(loads)).find((r): r is PromiseRejectedResult => r.status === "rejected");
        if (failed !== undefined) {
          throw failed.reason;
        }
      }
    });
  }

  /** Reads the page metadata (`matchCount`, `selectedCount`, `sort`) of the held version: a page of no rows. */
  private async readMeta(gen: number): Promise<void> {
    const read = this.readGeneration;
    const page = await this.fetchPage(0, 0, gen);
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
    let page: RowsPage;
    try {
      page = await this.fetchPage(offset, limit, gen);
    } catch (e) {
      if (gen !== this.generation || read !== this.readGeneration) {
        return; // asked for rows that are not shown any more
      }
      throw e;
    }
    if (gen !== this.generation || read !== this.readGeneration) {
      return; // the named rows, or what they are read with, changed meanwhile
    }
    if (page.version === this._version) {
      this.keep(page.offset, page.rows);
      this.noteMeta(page);
    } else if (page.version > this._version) {
      this.adopt(page); // the held rows are stale: start again from this page
    }
    // an older page raced a change that is applied: dropped, `rows` fetches again
  }

  /** Stores fresh rows (their stale copies go). */
  private keep(offset: number, rows: readonly Row[]): void {
    this.store.set(offset, rows);
    this.stale.drop(offset, rows.length);
  }

  /**
   * One rows page, read as the held rows are (filter or highlight, positions, aggregates). A
   * 409 `filter-superseded` is asked again while the named rows are still `gen`'s.
   */
  private async fetchPage(offset: number, limit: number, gen: number): Promise<RowsPage> {
    const query = {
      ...this.readQuery(), offset, limit, positions: this.positions ? true : undefined, aggregate: this.aggregateText,
    };
    return this.whileCurrent(gen, async () => {
      const answer = this.viewId === null
        ? await this.api.getRows(this.sessionId, query)
        : await this.api.getViewRows(this.sessionId, this.viewId, query);
      return answer.value;
    });
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

  /** Resolves once no request of this cache is in flight and no change waits for a missing version. */
  settled(): Promise<void> {
    if (this.pending === 0 && this.buffered.size === 0 && this.refreshing === null) {
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => this.idle.push(resolve)).then(() => this.settled());
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
      if (this.pending === 0) {
        const idle = this.idle;
        this.idle = [];
        for (const resolve of idle) {
          resolve();
        }
      }
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
    this.notifyIdle();
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

  private notifyIdle(): void {
    if (this.pending === 0 && this.buffered.size === 0 && this.refreshing === null) {
      const idle = this.idle;
      this.idle = [];
      for (const resolve of idle) {
        resolve();
      }
    }
  }

  /**
   * Catches up: fetches the first block, drops every held row, takes the page's version and
   * total (a page older than the held version is asked again) and tells the listeners to
   * read again. Concurrent calls share one request.
   */
  refresh(): Promise<void> {
    if (this.refreshing === null) {
      this.refreshing = this.busy(async () => {
        for (let attempt = 0; ; attempt++) {
          const gen = this.generation;
          const read = this.readGeneration;
          const page = await this.fetchPage(0, this.blockSize, gen);
          if (gen !== this.generation || read !== this.readGeneration) {
            continue; // the named rows changed while it was asked: ask for the new ones
          }
          if (page.version < this._version && attempt < 3) {
            continue;
          }
          this.adopt(page);
          return;
        }
      }).finally(() => {
        this.refreshing = null;
        this.notifyIdle();
      });
    }
    return this.refreshing;
  }

  private backgroundRefresh(): void {
    this.refresh().catch((e: unknown) => this.report(e));
  }

  private report(error: unknown): void {
    if (error instanceof ProblemError && (error.status === 404 || error.status === 401)) {
      this.endStream();
      this.emit({ kind: "end", reason: "error", error });
      return;
    }
    this.onError(error);
  }

  // ---- Filter ----

  /**
   * Names other rows of the view: the filtered rows for `text` (null or "" with no `where`:
   * the unfiltered rows). Drops everything, fetches the first block, reopens the event
   * stream from that page's version and tells the listeners to read again.
   */
  async setFilter(text: string | null, options: FilterOptions = {}): Promise<void> {
    await this.busy(async () => {
      const gen = ++this.generation;
      this.readGeneration++;
      this.filterText = text === "" ? null : text;
      this.filterOpts = { ...options };
      if (this.filterText !== null || options.where !== undefined) {
        this.highlightText = null; // a filtered view has no highlight
      }
      this.buffered.clear();
      if (this.gapTimer !== null) {
        clearTimeout(this.gapTimer);
        this.gapTimer = null;
      }
      const follow = this.stream !== null;
      this.endStream();
      const page = await this.fetchPage(0, this.blockSize, gen);
      if (gen !== this.generation) {
        return; // a later setFilter won
      }
      this.adopt(page);
      if (follow) {
        this.subscribe();
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

  /** The query parameters of a rows page: the named rows', or the highlight's on unfiltered rows. */
  private readQuery(): ReturnType<TreeRows["namedQuery"]> & { highlight?: string } {
    const named = this.namedQuery();
    if (this.highlightText === null || named.filter !== undefined || named.where !== undefined) {
      return named;
    }
    const o = this.highlightOpts;
    return {
      highlight: this.highlightText, match: o.match, caseSensitive: o.caseSensitive,
      diacritics: o.diacritics, leavesOnly: o.leavesOnly, fields: o.fields,
    };
  }

  /** The query parameters that name the rows: the filter and its options, when filtered. */
  private namedQuery(): {
    filter?: string; match?: MatchMode; caseSensitive?: boolean; diacritics?: "sensitive" | "insensitive";
    leavesOnly?: boolean; fields?: string; where?: string;
  } {
    const o = this.filterOpts;
    if (this.filterText === null && o.where === undefined) {
      return {};
    }
    return {
      filter: this.filterText ?? undefined, match: o.match, caseSensitive: o.caseSensitive,
      diacritics: o.diacritics, leavesOnly: o.leavesOnly, fields: o.fields, where: o.where,
    };
  }

  // ---- Event stream ----

  /**
   * Follows the view's event stream (with the filter's parameters and `Last-Event-ID` of the
   * held version on every connect), applying other clients' changes. Idempotent.
   */
  subscribe(): void {
    if (this.stream !== null) {
      return;
    }
    const token = ++this.streamToken;
    const gen = this.generation;
    const live = (): boolean => token === this.streamToken;
    this.stream = followEventStream({
      open: (lastEventId, signal) => {
        const query = this.namedQuery();
        const options = { lastEventId: lastEventId ?? undefined, signal };
        return this.viewId === null
          ? this.api.getEvents(this.sessionId, query, options)
          : this.api.getViewEvents(this.sessionId, this.viewId, query, options);
      },
      lastEventId: () => (this._version > 0 ? String(this._version) : null),
      onEvent: (event) => {
        if (live()) {
          this.onEvent(event, gen);
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
          this.setStreamState("closed", error);
          this.emit({ kind: "end", reason: "error", error });
        }
      },
    });
    this.setStreamState("connecting");
  }

  private onEvent(event: SSEEvent, gen: number): void {
    switch (event.type) {
      case "change": {
        // Another client's edit (or this view's change by another of its clients): places may
        // move. While a change of this cache is out, its answer decides first: the stream
        // brings that change too, and would apply it without knowing what it was.
        const change = JSON.parse(event.data) as ChangeEvent;
        if (this.changesOut > 0) {
          this.heldEvents.push({ change, gen });
        } else {
          this.receive(change, gen, true);
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
        this.endStream();
        this.emit({ kind: "end", reason: end.reason });
        break;
      }
      default:
        break;
    }
  }

  /** Stops following the event stream (the held rows stay, and stop following others' changes). */
  unsubscribe(): void {
    this.endStream();
  }

  private endStream(): void {
    if (this.stream !== null) {
      this.streamToken++;
      this.stream.close();
      this.stream = null;
      this.setStreamState("closed");
    }
  }

  /** Stops the stream and every timer, drops the rows and the listeners. */
  close(): void {
    this.endStream();
    if (this.gapTimer !== null) {
      clearTimeout(this.gapTimer);
      this.gapTimer = null;
    }
    this.generation++;
    this.buffered.clear();
    this.heldEvents.length = 0;
    this.store.clear();
    this.stale.clear();
    this.listeners.clear();
    this.streamListeners.clear();
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
        for (const { change, gen } of this.heldEvents.splice(0)) {
          if (gen === this.generation) {
            this.receive(change, gen, true);
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
  private async viewChange<T extends AnyChange>(send: (gen: number) => Promise<T>, itemOnly = false, moves = false): Promise<T> {
    return this.changing(async () => {
      const gen = this.generation;
      const change = await this.whileCurrent(gen, () => send(gen));
      const index = (change as Partial<ItemChangeResponse>).index;
      const applied = itemOnly && typeof index === "number" ? { ...change, reload: [{ index, count: 1 }] } : change;
      this.receive(applied, gen, moves);
      return change;
    });
  }

  /** `PATCH` the view with `If-Match` (views only: row numbers name a view's rows). */
  private async patchViewChecked(body: Parameters<TreeSessionsApi["patchView"]>[2], ifMatch: string): Promise<ChangeResponse> {
    if (this.viewId === null) {
      const sessionBody = body as Parameters<TreeSessionsApi["patchSession"]>[1];
      const value = (await this.api.patchSession(this.sessionId, sessionBody, this.namedQuery(), { ifMatch })).value;
      if (!("changes" in value)) {
        throw new Error("PATCH /sessions/{sid} answered a session summary, not a change");
      }
      return value;
    }
    return (await this.api.patchView(this.sessionId, this.viewId, body, this.namedQuery(), { ifMatch })).value;
  }

  private patchItem(id: NodeId, body: Parameters<TreeSessionsApi["patchItem"]>[2], ifMatch?: string): Promise<ItemChangeResponse> {
    const options = { ifMatch };
    const answer = this.viewId === null
      ? this.api.patchItem(this.sessionId, id, body, this.namedQuery(), options)
      : this.api.patchViewItem(this.sessionId, this.viewId, id, body, this.namedQuery(), options);
    return answer.then((a) => a.value);
  }

  private async patchView(body: Parameters<TreeSessionsApi["patchView"]>[2]): Promise<ChangeResponse> {
    if (this.viewId !== null) {
      return (await this.api.patchView(this.sessionId, this.viewId, body, this.namedQuery())).value;
    }
    if ("sort" in body) {
      throw new ProblemError({ type: "about:blank", title: "Unprocessable Content", status: 422, detail: "the default view keeps the tree's order: sort a view" });
    }
    const value = (await this.api.patchSession(this.sessionId, body, this.namedQuery())).value;
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
      const item = this.viewId === null
        ? await this.api.getItem(this.sessionId, id, this.namedQuery())
        : await this.api.getViewItem(this.sessionId, this.viewId, id, this.namedQuery());
      expanded = item.value.expanded;
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
   * meant are not known any more).
   */
  selectRows(offset: number, count: number, selected = true, recursive = true): Promise<ChangeResponse> {
    return this.enqueue(() => this.direct.selectRows(offset, count, selected, recursive));
  }

  /** A page of the view's selected nodes in tree order, each with its row in the named rows. */
  async selection(query: { after?: string; limit?: number; top?: boolean } = {}): Promise<SelectionPage> {
    const q = { ...this.namedQuery(), ...query };
    const answer = this.viewId === null
      ? await this.api.getSelection(this.sessionId, q)
      : await this.api.getViewSelection(this.sessionId, this.viewId, q);
    return answer.value;
  }

  // ---- Edits of the tree (If-Match: the held version; one retry after a refresh on 412) ----

  /**
   * An edit with `If-Match` of the held version; after a 412, a refresh and (`retry`, and the
   * cache's `retryConflicts`) one more try with the new version, else the 412 is thrown.
   * `moves`: it may move rows among their siblings (every edit of the tree does).
   */
  private async edit<T extends AnyChange>(send: (ifMatch: string) => Promise<T>, retry = true, moves = true): Promise<T> {
    return this.changing(async () => {
      let gen = this.generation;
      let change: T;
      try {
        change = await this.whileCurrent(gen, () => send(`"${this._version}"`));
      } catch (e) {
        if (!(e instanceof ProblemError && e.status === 412)) {
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
    const send = async (ifMatch: string | undefined): Promise<BatchResponse> => {
      const body = { operations };
      const options = { ifMatch };
      const answer = this.viewId === null
        ? await this.api.applyBatch(this.sessionId, body, this.namedQuery(), options)
        : await this.api.applyViewBatch(this.sessionId, this.viewId, body, this.namedQuery(), options);
      return answer.value;
    };
    if (operations.some((op) => TREE_EDITS.has(op.op))) {
      return this.edit(send);
    }
    return this.viewChange(() => send(undefined));
  }
}
