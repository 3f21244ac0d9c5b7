/**
 * `TreeRows`: the row cache of one view's named rows (unfiltered or filtered), kept equal to
 * the server's by the row-cache protocol of docs/CLIENTS.md: sparse blocks of rows fetched on
 * demand, every change (this client's own answers and the event stream's) applied by its
 * splices in version order, a refresh when a version is missing, `If-Match` on tree edits
 * with one retry after a 412.
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
}

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

const TREE_EDITS = new Set(["insert", "delete", "move", "update", "deleteSelected", "moveSelected"]);

export class TreeRows {
  readonly api: TreeSessionsApi;
  readonly blockSize: number;
  readonly maxBlocks: number;
  private readonly gapTimeoutMs: number;
  private readonly aggregate: string | undefined;
  private readonly onError: (error: unknown) => void;

  private sessionId = "";
  private viewId: string | null = null;
  private filterText: string | null = null;
  private filterOpts: FilterOptions = {};
  private _version = 0;
  private _total = 0;
  private readonly store = new RowStore();
  /** Changes of versions past held + 1, waiting for the ones between. */
  private readonly buffered = new Map<number, AnyChange>();
  private gapTimer: ReturnType<typeof setTimeout> | null = null;
  /** Bumped whenever the named rows change identity (open, setFilter): older answers do not apply. */
  private generation = 0;
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
    this.aggregate = options.aggregate;
    this.onError = options.onError ?? ((error) => console.warn("TreeRows:", error));
    if (!(this.blockSize >= 1 && this.blockSize <= 1000)) {
      throw new RangeError("blockSize must be 1 to 1000");
    }
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
  /** True while the event stream is open. */
  get subscribed(): boolean { return this.stream !== null; }
  get connected(): boolean { return this.stream?.connected ?? false; }

  /**
   * Opens the cache on a session's view (null: the default view), unfiltered or with a
   * filter: fetches the first block. Reopening drops everything held (and reopens the stream).
   */
  async open(session: string, view: string | null = null, filter: string | null = null, options: FilterOptions = {}): Promise<void> {
    this.sessionId = session;
    this.viewId = view;
    await this.setFilter(filter, options);
  }

  /** The held row at `i`, or undefined (fetch it with `rows`). - Complexity: O(log runs). */
  row(i: number): Row | undefined {
    this.touch(i, i + 1);
    return this.store.get(i);
  }

  /** Every row held, in order (what the cache would show without a fetch). */
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
          return [];
        }
        this.touch(from, end);
        const held = this.store.slice(from, end);
        if (held !== null) {
          this.trim();
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
        await Promise.all(loads);
      }
    });
  }

  /** Fetches one page and keeps it by the version rules. */
  private async load(offset: number, limit: number, gen: number): Promise<void> {
    const page = await this.fetchPage(offset, limit);
    if (gen !== this.generation) {
      return; // the named rows changed meanwhile
    }
    if (page.version === this._version) {
      this.store.set(page.offset, page.rows);
    } else if (page.version > this._version) {
      this.adopt(page); // the held rows are stale: start again from this page
    }
    // an older page raced a change that is applied: dropped, `rows` fetches again
  }

  private fetchPage(offset: number, limit: number): Promise<RowsPage> {
    const query = { ...this.namedQuery(), offset, limit, aggregate: this.aggregate };
    const answer = this.viewId === null
      ? this.api.getRows(this.sessionId, query)
      : this.api.getViewRows(this.sessionId, this.viewId, query);
    return answer.then((a) => a.value);
  }

  /** Drops every row, takes the page's version, total and rows, and tells the listeners to read again. */
  private adopt(page: RowsPage): void {
    this.store.clear();
    this.lastUse.clear();
    this._version = page.version;
    this._total = page.total;
    this.store.set(page.offset, page.rows);
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
    if (this.store.count <= limit) {
      return;
    }
    const blocks = this.store.blocks(this.blockSize);
    blocks.sort((a, b) => (this.lastUse.get(a) ?? 0) - (this.lastUse.get(b) ?? 0) || a - b);
    for (const b of blocks) {
      if (this.store.count <= limit) {
        break;
      }
      this.store.drop(b * this.blockSize, this.blockSize);
      this.lastUse.delete(b);
    }
  }

  // ---- Listeners and versions ----

  /** Calls `listener` for every change of the held rows; answers a function that stops it. */
  onChange(listener: (change: RowsChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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
  private receive(change: AnyChange, gen: number): void {
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
      this.apply(change);
      this.drain();
    } else {
      this.buffered.set(change.version, change);
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
      this.buffered.delete(next.version);
      this.apply(next);
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

  private apply(change: AnyChange): void {
    for (const s of change.changes) {
      this.store.splice(s.index, s.removed, s.inserted);
    }
    for (const r of change.reload) {
      this.store.drop(r.index, r.count);
    }
    this._version = change.version;
    this._total = change.total;
    this.store.truncate(change.total);
    this.emit({ kind: "splices", changes: change.changes, reload: change.reload, version: change.version, total: change.total });
    this.settleWaiters();
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
          const page = await this.fetchPage(0, this.blockSize);
          if (gen !== this.generation) {
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
    if (error instanceof ProblemError && error.status === 404) {
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
      this.filterText = text === "" ? null : text;
      this.filterOpts = { ...options };
      this.buffered.clear();
      if (this.gapTimer !== null) {
        clearTimeout(this.gapTimer);
        this.gapTimer = null;
      }
      const follow = this.stream !== null;
      this.endStream();
      const page = await this.fetchPage(0, this.blockSize);
      if (gen !== this.generation) {
        return; // a later setFilter won
      }
      this.adopt(page);
      if (follow) {
        this.subscribe();
      }
    });
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
        if (live() && this.buffered.size > 0) {
          this.expect(Math.max(...this.buffered.keys()));
        }
      },
      onFatal: (error) => {
        if (live()) {
          this.stream = null;
          this.emit({ kind: "end", reason: "error", error });
        }
      },
    });
  }

  private onEvent(event: SSEEvent, gen: number): void {
    switch (event.type) {
      case "change":
        this.receive(JSON.parse(event.data) as ChangeEvent, gen);
        break;
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
    this.store.clear();
    this.listeners.clear();
  }

  // ---- Changes of the view's state (no If-Match: they name nodes by id) ----

  private async viewChange<T extends AnyChange>(send: (gen: number) => Promise<T>): Promise<T> {
    return this.busy(async () => {
      const gen = this.generation;
      const change = await send(gen);
      this.receive(change, gen);
      return change;
    });
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
    return this.viewChange(() => this.patchItem(id, recursive ? { expanded: true, recursive } : { expanded: true }));
  }

  /** Collapses the item (with `recursive`, every node of its subtree). */
  collapse(id: NodeId, recursive = false): Promise<ItemChangeResponse> {
    return this.viewChange(() => this.patchItem(id, recursive ? { expanded: false, recursive } : { expanded: false }));
  }

  /** Expands a collapsed item, collapses an expanded one (its state read from the held rows, else asked). */
  async toggle(id: NodeId): Promise<ItemChangeResponse> {
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
    return expanded ? this.collapse(id) : this.expand(id);
  }

  /** Expands every ancestor of the item so that it shows. */
  reveal(id: NodeId): Promise<ItemChangeResponse> {
    return this.viewChange(() => this.patchItem(id, { reveal: true }));
  }

  expandAll(): Promise<ChangeResponse> {
    return this.viewChange(() => this.patchView({ expandAll: true }));
  }

  collapseAll(): Promise<ChangeResponse> {
    return this.viewChange(() => this.patchView({ collapseAll: true }));
  }

  /** Expands the nodes with children at a level below `depth`, collapses the others. */
  expandDepth(depth: number): Promise<ChangeResponse> {
    return this.viewChange(() => this.patchView({ expandDepth: depth }));
  }

  /** Orders the view by `sort` (`-data.size,title`), or the tree's order with null. Views only. */
  setSort(sort: string | null): Promise<ChangeResponse> {
    return this.viewChange(() => this.patchView({ sort }));
  }

  // ---- Selection (changes of the view's state) ----

  /** Selects the item, with its subtree unless `recursive` is false. */
  select(id: NodeId, recursive = true): Promise<ItemChangeResponse> {
    return this.viewChange(() => this.patchItem(id, recursive ? { selected: true } : { selected: true, recursive }));
  }

  deselect(id: NodeId, recursive = true): Promise<ItemChangeResponse> {
    return this.viewChange(() => this.patchItem(id, recursive ? { selected: false } : { selected: false, recursive }));
  }

  selectAll(): Promise<ChangeResponse> {
    return this.viewChange(() => this.patchView({ selectAll: true }));
  }

  selectNone(): Promise<ChangeResponse> {
    return this.viewChange(() => this.patchView({ selectNone: true }));
  }

  invertSelection(): Promise<ChangeResponse> {
    return this.viewChange(() => this.patchView({ invertSelection: true }));
  }

  /** Selects (or deselects) the nodes on rows `offset ..< offset + count` (a shift-click). */
  selectRows(offset: number, count: number, selected = true, recursive = true): Promise<ChangeResponse> {
    return this.viewChange(() => this.patchView({ selectRows: { offset, count, selected, recursive } }));
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

  private async edit<T extends AnyChange>(send: (ifMatch: string) => Promise<T>): Promise<T> {
    return this.busy(async () => {
      let gen = this.generation;
      let change: T;
      try {
        change = await send(`"${this._version}"`);
      } catch (e) {
        if (!(e instanceof ProblemError && e.status === 412)) {
          throw e;
        }
        await this.refresh();
        gen = this.generation;
        change = await send(`"${this._version}"`);
      }
      this.receive(change, gen);
      return change;
    });
  }

  /** Inserts nodes (with their subtrees): as children (`parentId`, `index`), or `before`/`after` an item. */
  insert(nodes: Node[], place: InsertPlace = {}): Promise<InsertResponse> {
    return this.edit(async (ifMatch) => {
      const body = { nodes, ...place };
      const options = { ifMatch };
      const answer = this.viewId === null
        ? await this.api.insertItems(this.sessionId, body, this.namedQuery(), options)
        : await this.api.insertViewItems(this.sessionId, this.viewId, body, this.namedQuery(), options);
      return answer.value;
    });
  }

  /** Deletes the item and its subtree. */
  delete(id: NodeId): Promise<ItemChangeResponse> {
    return this.edit(async (ifMatch) => {
      const options = { ifMatch };
      const answer = this.viewId === null
        ? await this.api.deleteItem(this.sessionId, id, this.namedQuery(), options)
        : await this.api.deleteViewItem(this.sessionId, this.viewId, id, this.namedQuery(), options);
      return answer.value;
    });
  }

  /** Moves the item under `parentId` (null: the roots) at `index` among its new siblings (none: last). */
  move(id: NodeId, parentId: ParentId, index?: number): Promise<ItemChangeResponse> {
    return this.edit((ifMatch) => this.patchItem(id, index === undefined ? { parentId } : { parentId, index }, ifMatch));
  }

  /** Changes the item's title and/or data. */
  update(id: NodeId, changes: { title?: string; data?: JSONValue }): Promise<ItemChangeResponse> {
    return this.edit((ifMatch) => this.patchItem(id, changes, ifMatch));
  }

  /**
   * Several changes as one, all or nothing. Sent with `If-Match` when one of them edits the
   * tree; a batch of view changes alone is not.
   */
  batch(operations: BatchOperation[]): Promise<BatchResponse> {
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
