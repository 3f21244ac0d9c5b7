import type { Answer, RawBody, RequestOptions } from "./transport.js";
import { Transport } from "./transport.js";
/** Any JSON value: what the spec leaves untyped (a node's `data`). */
export declare type JSONValue = string | number | boolean | null | JSONValue[] | {
    [key: string]: JSONValue;
};
/** The API description this file was generated from: TreeSessions 1.0.0 (OpenAPI 3.1.0). */
export declare const specVersion = "1.0.0";
export interface Health {
    status: "ok";
}
/** An item id; unique in a session by its string form (`42` and `"42"` cannot both exist). A string id an upload or insert gives is at most 4,096 UTF-8 bytes (422 beyond); composed ids (path lists, documents) may be longer. */
export declare type NodeId = string | number;
/** A node of the upload format. */
export interface Node {
    id?: NodeId;
    /** The text shown and filtered on. */
    title: string;
    children?: Node[];
    /** Initial state in the unfiltered view. */
    expanded?: boolean;
    /** The node has children that are not uploaded yet (lazy loading). */
    hasChildren?: boolean;
    /** Any JSON value, carried through untouched. */
    data?: JSONValue;
}
export declare type NodeList = Node[];
/** An item id, or `null` for the roots. */
export declare type ParentId = string | number | null;
/** How titles match the filter text (both folded by `caseSensitive` and `diacritics`). `contains`: the title contains the text; `prefix`: starts with it; `exact`: is it; `words`: contains every word of the text (split at white space), in any order; `fuzzy`: the text's characters occur in the title in order, not necessarily adjacent (rows then carry `score`). See docs/API.md, "Match modes". */
export declare type MatchMode = "contains" | "prefix" | "exact" | "words" | "fuzzy";
/** `none` keeps the nodes' own `expanded` flags; `all` expands every node with children. */
export declare type ExpandMode = "none" | "all";
/** `"none"` keeps the nodes' own `expanded` flags; `"all"` expands every node with children; N expands nodes at level < N and collapses all others. */
export declare type Expand = ExpandMode | number;
/** A tree to upload, with the initial expansion and the session's settings. */
export interface SessionUpload {
    nodes: NodeList;
    expand?: Expand;
    ttl?: TTL;
    name?: SessionName;
    labels?: SessionLabels | null;
    owner?: SessionOwner;
}
/** Seconds the session may stay idle before it expires, instead of the server's `--session-ttl`; `0`: never. At most `--max-session-ttl` when the server sets one (`0` is longer than any): `422` beyond. */
export declare type TTL = number;
/** A `SessionUpload`, or a bare array of nodes (expanded as with `"expand": "none"`). */
export declare type CreateSessionBody = SessionUpload | NodeList;
/** Expand every node that has children (or `hasChildren`) in the named view. */
export interface ExpandAll {
    expandAll: true;
}
/** Collapse every node in the named view. */
export interface CollapseAll {
    collapseAll: true;
}
/** Expand the nodes at level < `expandDepth` in the named view and collapse all others. */
export interface ExpandToDepth {
    expandDepth: number;
}
/** Select every node of the view (and the roots inserted later); in filtered rows, every match with its subtree. */
export interface SelectAll {
    selectAll: true;
}
/** Deselect every node of the view. */
export interface SelectNone {
    selectNone: true;
}
/** Flip every node of the view (and what roots inserted later take); in filtered rows, every node in a match's subtree, once. */
export interface InvertSelection {
    invertSelection: true;
}
/** The rows `offset … offset+count−1` of the named view, to select (`selected` true) or deselect; with `recursive` (default), a collapsed row with its subtree. */
export interface RowRange {
    offset: number;
    count: number;
    selected: boolean;
    recursive?: boolean;
}
/** Select or deselect the nodes on a range of rows (a shift-click). */
export interface SelectRows {
    selectRows: RowRange;
}
export declare type PatchSessionBody = ExpandAll | CollapseAll | ExpandToDepth | SelectAll | SelectNone | InvertSelection | SelectRows | SessionSettingsBody;
/** The view's order: keys as the `sort` query parameter takes them (each a field, `-` before it for descending, at most 16, each field once; anything else answers `422` with the position), or `null` for the tree's order. Every node keeps its expansion and selection. */
export interface SetSort {
    sort: string | null;
}
export declare type PatchViewBody = ExpandAll | CollapseAll | ExpandToDepth | SelectAll | SelectNone | InvertSelection | SelectRows | SetSort;
/** Expand or collapse the item in the named view (`recursive`, also its whole subtree). */
export interface SetExpanded {
    expanded: boolean;
    recursive?: boolean;
}
/** Expand every ancestor of the item in the named view. */
export interface Reveal {
    reveal: true;
}
/** Replace the item's `title`, its `data`, or both (`data` `null` stores `null`). */
export interface UpdateItem {
    title?: string;
    /** Any JSON value. */
    data?: JSONValue;
}
/** Move the item under `parentId` (`null`, among the roots) to position `index` (absent, at the end). */
export interface MoveItem {
    parentId: ParentId;
    index?: number;
}
/** Select or deselect the item in the view's selection, with its subtree (`recursive`, the default) or alone. */
export interface SetSelected {
    selected: boolean;
    recursive?: boolean;
}
export declare type PatchItemBody = SetExpanded | Reveal | SetSelected | UpdateItem | MoveItem;
/** Insert `nodes` as children of `parentId` (absent or `null`, among the roots) at position `index` (absent, at the end). */
export interface InsertAsChildren {
    nodes: NodeList;
    parentId?: ParentId;
    index?: number;
}
/** Insert `nodes` as siblings right before the item `before`. */
export interface InsertBefore {
    nodes: NodeList;
    before: NodeId;
}
/** Insert `nodes` as siblings right after the item `after`. */
export interface InsertAfter {
    nodes: NodeList;
    after: NodeId;
}
/** One of the three placements, or a bare array of nodes (inserted at the end of the roots). */
export declare type InsertItemsBody = InsertAsChildren | InsertBefore | InsertAfter | NodeList;
export interface BatchBody {
    /** The changes, applied in order, all or nothing; at most `--max-batch` (default 100000). */
    operations: BatchOperation[];
}
/** One change of a batch, named by `op`. */
export declare type BatchOperation = InsertAsChildrenOperation | InsertBeforeOperation | InsertAfterOperation | DeleteOperation | MoveOperation | UpdateOperation | ExpandOperation | RevealOperation | ExpandAllOperation | CollapseAllOperation | ExpandDepthOperation | SelectOperation | SelectAllOperation | SelectNoneOperation | InvertSelectionOperation | SelectRowsOperation | DeleteSelectedOperation | MoveSelectedOperation;
/** As `POST .../items` with `parentId` (absent or `null`, among the roots) and `index` (absent, at the end). */
export interface InsertAsChildrenOperation {
    op: "insert";
    nodes: NodeList;
    parentId?: ParentId;
    index?: number;
}
/** As `POST .../items` with `before`. */
export interface InsertBeforeOperation {
    op: "insert";
    nodes: NodeList;
    before: NodeId;
}
/** As `POST .../items` with `after`. */
export interface InsertAfterOperation {
    op: "insert";
    nodes: NodeList;
    after: NodeId;
}
/** As `DELETE .../items/{id}`. */
export interface DeleteOperation {
    op: "delete";
    id: NodeId;
}
/** As `PATCH .../items/{id}` with `parentId` and `index`. */
export interface MoveOperation {
    op: "move";
    id: NodeId;
    parentId: ParentId;
    index?: number;
}
/** As `PATCH .../items/{id}` with `title`, `data` or both. */
export interface UpdateOperation {
    op: "update";
    id: NodeId;
    title?: string;
    /** Any JSON value. */
    data?: JSONValue;
}
/** As `PATCH .../items/{id}` with `expanded` and `recursive`. */
export interface ExpandOperation {
    op: "expand";
    id: NodeId;
    expanded: boolean;
    recursive?: boolean;
}
/** As `PATCH .../items/{id}` with `reveal`. */
export interface RevealOperation {
    op: "reveal";
    id: NodeId;
    reveal?: true;
}
/** As `PATCH /sessions/{sid}` with `expandAll`. */
export interface ExpandAllOperation {
    op: "expandAll";
    expandAll?: true;
}
/** As `PATCH /sessions/{sid}` with `collapseAll`. */
export interface CollapseAllOperation {
    op: "collapseAll";
    collapseAll?: true;
}
/** As `PATCH /sessions/{sid}` with `expandDepth`. */
export interface ExpandDepthOperation {
    op: "expandDepth";
    expandDepth: number;
}
/** As `PATCH .../items/{id}` with `selected` and `recursive`. */
export interface SelectOperation {
    op: "select";
    id: NodeId;
    selected: boolean;
    recursive?: boolean;
}
/** As `PATCH /sessions/{sid}` with `selectAll`. */
export interface SelectAllOperation {
    op: "selectAll";
    selectAll?: true;
}
/** As `PATCH /sessions/{sid}` with `selectNone`. */
export interface SelectNoneOperation {
    op: "selectNone";
    selectNone?: true;
}
/** As `PATCH /sessions/{sid}` with `invertSelection`. */
export interface InvertSelectionOperation {
    op: "invertSelection";
    invertSelection?: true;
}
/** As `PATCH /sessions/{sid}` with `selectRows`. */
export interface SelectRowsOperation {
    op: "selectRows";
    selectRows: RowRange;
}
/** Deletes the view's selected nodes that have no selected ancestor, each with its whole subtree. */
export interface DeleteSelectedOperation {
    op: "deleteSelected";
}
/** Moves the view's selected nodes that have no selected ancestor, in tree order, to be children of `parentId` (`null`, roots) from `index` on, counted among the children that do not move (absent, after the last). */
export interface MoveSelectedOperation {
    op: "moveSelected";
    parentId: ParentId;
    index?: number;
}
/** One operation's result: `{}` for `expandAll`, `collapseAll`, `expandDepth`, `selectAll`, `selectNone`, `invertSelection`, `selectRows`, `deleteSelected`, `moveSelected`; `index` for `delete` (always `null`), `move`, `update`, `expand`, `reveal`, `select` (the item's row in the named view after the batch, or `null`); `index` and `ids` for `insert` (the row of the first inserted node after the batch, and the ids of the inserted top-level nodes). */
export interface BatchResult {
    index?: number | null;
    ids?: NodeId[];
}
export interface BatchResponse {
    version: Version;
    /** Visible rows of the named view after the batch. */
    total: number;
    changes: Changes;
    reload: Reload;
    /** One per operation, in order. */
    results: BatchResult[];
}
export interface SessionSummary {
    /** 22 characters of URL-safe base64, after `NAME.` on a server started with `--instance NAME`. */
    id: string;
    name: SessionName;
    labels: SessionLabels;
    owner: SessionOwner;
    version: number;
    nodeCount: number;
    /** Visible rows of the unfiltered view. */
    total: number;
    createdAt: string;
    /** The last request that reached the session (through any view). */
    lastUse: string;
    /** When the session expires unless it is used before (each request naming it restarts its idle period); `null` when it never expires. */
    expiresAt: string | null;
    /** Seconds it may stay idle: its own `ttl` (set at upload or by `PATCH /sessions/{sid}`), else the server's `--session-ttl`; `0`: never expires. */
    ttl: number;
    /** Session tokens minted before this time are refused (`401`); `null` when none is set. */
    tokensValidAfter: string | null;
}
/** A session's summary, with the `cursor` that asks for the sessions after it. */
export interface SessionListEntry {
    /** 22 characters of URL-safe base64, after `NAME.` on a server started with `--instance NAME`. */
    id: string;
    name: SessionName;
    labels: SessionLabels;
    owner: SessionOwner;
    version: number;
    nodeCount: number;
    /** Visible rows of the unfiltered view. */
    total: number;
    createdAt: string;
    /** The last request that reached the session (through any view). */
    lastUse: string;
    /** When the session expires unless it is used before (each request naming it restarts its idle period); `null` when it never expires. */
    expiresAt: string | null;
    /** Seconds it may stay idle: its own `ttl` (set at upload or by `PATCH /sessions/{sid}`), else the server's `--session-ttl`; `0`: never expires. */
    ttl: number;
    /** Session tokens minted before this time are refused (`401`); `null` when none is set. */
    tokensValidAfter: string | null;
    cursor: SessionCursor;
}
export interface SessionList {
    /** Newest first (by `createdAt`, then by id). */
    sessions: SessionListEntry[];
    /** The `after` of the next page (the last session's `cursor`); `null` on the last page. */
    next: SessionCursor | null;
}
/** Where a session stands in the list: its creation in milliseconds since 1970, a colon, its id. Treat it as opaque. */
export declare type SessionCursor = string;
/** A name to find the session by: 1 to 200 characters (Unicode code points), no control characters (U+0000–U+001F, U+007F–U+009F); `null`: none. */
export declare type SessionName = string | null;
/** Who owns the session, as free text (an e-mail address, a team): 1 to 200 characters, no control characters; `null`: none. Not an account: access is by tokens. */
export declare type SessionOwner = string | null;
/** At most 16 labels: keys of 1 to 64 letters, digits, `.`, `_`, `-` or `/`; values of at most 200 characters without control characters. `GET /sessions?label=key:value` finds the sessions that carry one. */
export interface SessionLabels {
    [key: string]: string;
}
/** The session's settings (`PATCH /sessions/{sid}`, the `owner` role): at least one member; each one given replaces its setting, `null` clears it. Not together with a view's operation (`422`). */
export interface SessionSettingsBody {
    name?: SessionName;
    /** All the labels, replacing the ones before (`null` or `{}`: none). */
    labels?: SessionLabels | null;
    owner?: SessionOwner;
    /** Seconds the session may stay idle (`0`: never; at most `--max-session-ttl` when the server sets one, `422` beyond); `null`: the server's `--session-ttl`. */
    ttl?: TTL | null;
    /** Refuse the session tokens minted before this time (`401`), and close the event streams opened with them: `"now"` (every token minted up to now), or an RFC 3339 time from 1970 that is not in the future (another answers `422`); `null`: refuse none for this reason (tokens refused so far are accepted again until they expire). Moving it back (`null`, an earlier time) needs an admin token (`403`). */
    tokensValidAfter?: "now" | string | null;
}
/** `reader`: reads, and changes of a view's state; `editor`: also edits of the tree; `owner`: also the session's deletion, settings and tokens. */
export declare type Role = "reader" | "editor" | "owner";
export interface CreateTokenBody {
    role: Role;
    /** Seconds the token is valid (capped at the caller's own token's expiry); at most the server's `--max-token-ttl` (default 2592000, 30 days), `422` beyond. */
    ttl?: number;
    /** A view of the session the token is bound to (a view the session does not have answers `422`); absent or `null`: not bound. A caller bound to a view mints tokens bound to it, and naming another view answers `403`. */
    view?: ViewId | null;
}
export interface SessionToken {
    /** Send as `Authorization: Bearer <token>`, or as `access_token` of an event stream. `ts1.{sid}.{role}.{vid or -}.{issued ms}.{expires ms}.{key id}.{signature}` (a session id's dot written `~`). */
    token: string;
    role: Role;
    /** The view it is bound to; `null`, none. */
    view: ViewId | null;
    /** When it stops being accepted. */
    expiresAt: string;
}
export declare type Version = number;
/** 16 lowercase hexadecimal digits, never given twice in a session. */
export declare type ViewId = string;
/** How a new view starts: `expand` (`"none"`, the default: the roots visible; `"all"`; N: the nodes at a level below N expanded), or `from`, a copy of another view's state (`"default"`: the session's default view). Not both. */
export interface CreateViewBody {
    expand?: Expand;
    /** A view's id, or `default`. */
    from?: string;
}
export interface ViewSummary {
    id: ViewId;
    /** The view's version (its `ETag`); steps with every tree edit and every change of the view's own state. */
    version: number;
    sort: ViewSort;
    /** Visible rows of the view's unfiltered rows. */
    total: number;
    createdAt: string;
    /** The last request through the view (or the end of its last event stream). */
    lastUse: string;
    /** When the view expires unless it is used before; `null` while an event stream follows it, or when it never expires. */
    expiresAt: string | null;
    /** Seconds it may stay idle: the server's `--view-ttl`, else its session's `ttl`; `0`: never expires. */
    ttl: number;
}
/** The view's order: its sort's keys as `sort` writes them, or `null` for the tree's order. */
export declare type ViewSort = string | null;
export interface ViewListEntry {
    id: ViewId;
    version: number;
    sort: ViewSort;
    createdAt: string;
    lastUse: string;
}
export interface ViewList {
    /** The session's views (the default view not counted). */
    total: number;
    offset: number;
    limit: number;
    views: ViewListEntry[];
}
/** `[start, length]` in UTF-16 code units of the row's `title`. */
export declare type MatchRange = [number, number];
/** A visible row. `match`, `matchRanges` and `matchesBelow` are present exactly in filtered views; `match` and `matchRanges` also in highlighted unfiltered rows. */
export interface Row {
    index: number;
    id: NodeId;
    title: string;
    level: number;
    expanded: boolean;
    hasChildren: boolean;
    parentId: ParentId;
    /** The node's data, when it has any. */
    data?: JSONValue;
    /** Filtered views only; whether the row's node matches the filter. */
    match?: boolean;
    /** Filtered views only; the matches in `title` (empty when `match` is false, or when the title did not match or is not among `fields`). */
    matchRanges?: MatchRange[];
    /** With `fields` other than `title` alone and a text; the listed fields whose value matched the text, in the order of `fields` (empty when `match` is false). */
    matchedFields?: string[];
    /** Filtered views only; the matching nodes among the node's descendants (itself not counted), for a "12 matches inside" badge on a collapsed row. */
    matchesBelow?: number;
    /** Fuzzy views only, on matching rows: higher is a better match. With m matched characters at positions p₀ < … < pₘ₋₁ of a folded title of n characters, 16·m + 8·(matches at a word start) + 8·(pᵢ = pᵢ₋₁ + 1) − 4·(pᵢ > pᵢ₋₁ + 1) − (n − m), for the positions that give the highest score (the first such). Rows stay in tree order. */
    score?: number;
    /** With `aggregate`; each asked for, by its name (`count`, `sum:data.size`). */
    aggregates?: {
        [key: string]: number | {
            /** The sum (0 of none), minimum, maximum or average (null of none). */
            value: number | null;
            /** The descendants whose value is a number. */
            count: number;
        };
    };
    /** With `positions=true`; the node's index among its parent's children (among the roots for a root), hidden ones of a filtered view included. */
    position?: number;
    /** With `positions=true`; the number of children of the node's parent (of roots for a root), the node included. */
    siblingCount?: number;
    /** While the view selects something (`selectedCount` present); whether the node is selected. */
    selected?: boolean;
    /** With `selected`, on a row with children; whether its subtree holds both selected and unselected nodes (an indeterminate checkbox). */
    partial?: boolean;
    /** With `selected`, on a row with children; its selected descendants. */
    selectedBelow?: number;
}
/** A page of the named view. `filter` is `null` and `matchCount` absent in the unfiltered view; in a filtered view `filter` is the filter text and `matchCount` is present. */
export interface RowsPage {
    version: Version;
    /** In a sorted view; its keys (the rows are in that order). */
    sort?: string;
    /** The filter text; empty when `where` conditions alone filter. */
    filter: string | null;
    /** With `highlight`; the text whose matches the rows flag. */
    highlight?: string;
    /** With `fields` other than `title` alone; the fields the text is searched in. */
    fields?: string[];
    /** With `where`; the conditions as the service read them (a string operand in JSON quotes). */
    where?: string;
    total: number;
    /** Filtered views only; the number of matching nodes (visible or not). */
    matchCount?: number;
    /** While the view selects something (absent, read 0); the selected nodes of the whole tree. Its rows then carry `selected`, and those with children `partial` and `selectedBelow`. */
    selectedCount?: number;
    offset: number;
    limit: number;
    rows: Row[];
}
/** A child on a children page. `match`, `matchRanges` and `matchesBelow` are present exactly in filtered views; `match` and `matchRanges` also in highlighted unfiltered rows. */
export interface Child {
    /** Its place among the node's children in the named rows. */
    position: number;
    /** Its row in the named rows; `null` while a collapsed ancestor hides it. */
    index: number | null;
    /** Its own children in the named rows. */
    childCount: number;
    id: NodeId;
    title: string;
    level: number;
    expanded: boolean;
    hasChildren: boolean;
    parentId: ParentId;
    /** The node's data, when it has any. */
    data?: JSONValue;
    /** Filtered views only; whether the row's node matches the filter. */
    match?: boolean;
    /** Filtered views only; the matches in `title` (empty when `match` is false, or when the title did not match or is not among `fields`). */
    matchRanges?: MatchRange[];
    /** With `fields` other than `title` alone and a text; the listed fields whose value matched the text, in the order of `fields` (empty when `match` is false). */
    matchedFields?: string[];
    /** Filtered views only; the matching nodes among the node's descendants (itself not counted), for a "12 matches inside" badge on a collapsed row. */
    matchesBelow?: number;
    /** Fuzzy views only, on matching rows: higher is a better match. With m matched characters at positions p₀ < … < pₘ₋₁ of a folded title of n characters, 16·m + 8·(matches at a word start) + 8·(pᵢ = pᵢ₋₁ + 1) − 4·(pᵢ > pᵢ₋₁ + 1) − (n − m), for the positions that give the highest score (the first such). Rows stay in tree order. */
    score?: number;
    /** With `aggregate`; each asked for, by its name (`count`, `sum:data.size`). */
    aggregates?: {
        [key: string]: number | {
            /** The sum (0 of none), minimum, maximum or average (null of none). */
            value: number | null;
            /** The descendants whose value is a number. */
            count: number;
        };
    };
    /** While the view selects something (`selectedCount` present); whether the node is selected. */
    selected?: boolean;
    /** With `selected`, on a row with children; whether its subtree holds both selected and unselected nodes (an indeterminate checkbox). */
    partial?: boolean;
    /** With `selected`, on a row with children; its selected descendants. */
    selectedBelow?: number;
}
/** A page of a node's children in the named view. `filter` is `null` and `matchCount` absent in the unfiltered view; in a filtered view `filter` is the filter text and `matchCount` is present. */
export interface ChildrenPage {
    version: Version;
    parentId: ParentId;
    /** With `sort`, or in a sorted view; the keys of the order of the children. */
    sort?: string;
    /** The filter text; empty when `where` conditions alone filter. */
    filter: string | null;
    /** With `fields` other than `title` alone; the fields the text is searched in. */
    fields?: string[];
    /** With `where`; the conditions as the service read them (a string operand in JSON quotes). */
    where?: string;
    /** The node's children in the named rows. */
    total: number;
    /** Filtered views only; the number of matching nodes (visible or not). */
    matchCount?: number;
    /** While the view selects something (absent, read 0); the selected nodes of the whole tree. Its rows then carry `selected`, and those with children `partial` and `selectedBelow`. */
    selectedCount?: number;
    offset: number;
    limit: number;
    children: Child[];
}
export interface Splice {
    index: number;
    removed: number;
    inserted: number;
}
/** Splices applied in order; at most 1000 (the last then reaches to the end of the list). */
export declare type Changes = Splice[];
/** A page of the view's selected nodes in tree order. */
export interface SelectionPage {
    version: Version;
    selectedCount: number;
    items: {
        id: NodeId;
        title: string;
        /** The node's row in the named rows, `null` while hidden there. */
        index: number | null;
    }[];
    /** The `after` of the next page; `null` on the last. */
    next: NodeId | null;
}
export interface MatchesPage {
    version: Version;
    matchCount: number;
    matches: {
        /** The matches before this one in tree order. */
        ordinal: number;
        id: NodeId;
        title: string;
        matchRanges: MatchRange[];
        /** With `fields` other than `title` alone; the listed fields whose value matched the text. */
        matchedFields?: string[];
        /** Its row in the view, or null while a collapsed ancestor hides it. */
        index: number | null;
    }[];
}
/**
 * Rows (numbered after the splices) that the change may have altered in place: a title,
 * `expanded`, `hasChildren`, a match, a selection member. Those of the nodes the change
 * touched and of their ancestors (with a subtree's visible rows when it changed whole,
 * the rows named by `selectRows`), or every row of the view a whole-view expansion or
 * selection changed, or whose selection started or ended. A client that applies
 * `changes` and fetches these rows again holds exactly what `GET rows` gives. Sorted,
 * disjoint.
 */
export declare type Reload = {
    index: number;
    count: number;
}[];
/** The `data` of a `change` event; the change response in the stream's view (one of these). */
export declare type ChangeEvent = ChangeResponse | ItemChangeResponse | InsertResponse | BatchResponse | ExpansionChangeResponse;
/** The `data` of a `reset` event. */
export interface ResetEvent {
    version: Version;
    /** The view's rows; absent when the session no longer keeps the view. */
    total?: number;
    reason: "subscribed" | "backlog" | "view" | "large";
}
/** The `data` of an `end` event, the last of a stream. */
export interface EndEvent {
    reason: "deleted" | "expired";
}
/** A version in decimal digits (leading zeros allowed) that fits in a signed 64-bit integer; empty, as if absent. Others answer `400`. */
export declare type LastEventId = string;
/**
 * The body of `GET /sessions/{sid}/events`. OpenAPI 3.1 gives a media type one schema,
 * which tools read in two ways: a client that reads the body whole gets the stream as
 * text (once it has ended), a reader of events (Schemathesis) checks each event against
 * `StreamEvent` (what OpenAPI 3.2 names the media type's `itemSchema`).
 */
export declare type EventStream = StreamEvent | string;
/**
 * One event of `GET /sessions/{sid}/events`, as a parser of the HTML standard's
 * `text/event-stream` (`EventSource`, Schemathesis) reads it: its `event` name, its `id`
 * (the last one seen: `end` has none of its own) and its `data`, one line of JSON that
 * its `contentSchema` describes. Comments (`: heartbeat`) and the opening `retry: 2000`
 * carry no data and are not events.
 */
export declare type StreamEvent = ChangeStreamEvent | ResetStreamEvent | EndStreamEvent;
/** A version step in the stream's view. */
export interface ChangeStreamEvent {
    event: "change";
    /** The new version. */
    id: string;
    /** JSON text of `ChangeEvent` (application/json). */
    data: string;
}
/** Fetch the view's rows again. */
export interface ResetStreamEvent {
    event: "reset";
    /** The session's version. */
    id: string;
    /** JSON text of `ResetEvent` (application/json). */
    data: string;
}
/** The session is gone; the stream closes after this event. */
export interface EndStreamEvent {
    event: "end";
    /** The last event's id, when there was one (this event sets none). */
    id?: string;
    /** JSON text of `EndEvent` (application/json). */
    data: string;
}
export interface EventToken {
    /** A session token of the `reader` role (bound to the caller's view when the caller's token is), for `access_token` or `Authorization`. */
    token: string;
    /** Seconds until it expires (60, fewer when the caller's own token expires sooner). */
    expiresIn: number;
    expiresAt: string;
}
export interface ChangeResponse {
    version: Version;
    /** Visible rows of the named view after the change. */
    total: number;
    changes: Changes;
    reload: Reload;
}
export interface FieldList {
    version: Version;
    /** The nodes of the tree. */
    nodes: number;
    /** `title` first, then the data fields in the byte order of their paths. */
    fields: Field[];
    /** More than 1,000 distinct data fields were seen; the others are not listed. */
    truncated: boolean;
}
export interface Field {
    /** `title`, `data`, or `data.` and member names joined by `.`; a `.` or `\` in a member name is escaped with `\`. */
    field: string;
    /** The nodes that have the field (of any type; the others lack it). */
    count: number;
    /** How many of those nodes have a value of each type (only the types seen). */
    types: {
        string?: number;
        number?: number;
        boolean?: number;
        null?: number;
        array?: number;
        object?: number;
    };
}
export interface ExpansionList {
    version: Version;
    expanded: NodeId[];
}
export interface ExpansionBody {
    /** The items to expand (ids of no item are passed over). */
    expanded: NodeId[];
}
export interface ExpansionChangeResponse {
    version: Version;
    total: number;
    changes: Changes;
    reload: Reload;
    /** The ids of the list that named no item. */
    unknown: number;
}
export interface ItemChangeResponse {
    version: Version;
    total: number;
    changes: Changes;
    reload: Reload;
    /** The item's row in the named view after the change, or null. */
    index: number | null;
}
export interface InsertResponse {
    version: Version;
    total: number;
    changes: Changes;
    reload: Reload;
    /** The row of the first inserted node in the named view, or null. */
    index: number | null;
    /** The ids of the inserted top-level nodes, in order. */
    ids: NodeId[];
}
export interface ItemInfo {
    id: NodeId;
    title: string;
    level: number;
    parentId: ParentId;
    /** Ancestor ids, root first (empty for a root). */
    path: NodeId[];
    hasChildren: boolean;
    childCount: number;
    /** The item's state in the named view. */
    expanded: boolean;
    /** The item's row in the named view, or null when not visible. */
    index: number | null;
    /** Filtered views only; whether the item matches the filter. */
    match?: boolean;
    /** The node's data, when it has any. */
    data?: JSONValue;
}
export interface ExportNode {
    id: NodeId;
    title: string;
    /** Present, and `true`, only when the node is expanded in the unfiltered view. */
    expanded?: boolean;
    /** Present, and `true`, only when the node was uploaded or inserted with `hasChildren`. */
    hasChildren?: boolean;
    /** The node's data, when it has any. */
    data?: JSONValue;
    children?: ExportNode[];
}
export interface TreeExport {
    nodes: ExportNode[];
}
/** RFC 9457 problem details. */
export interface Problem {
    type: string;
    /** The reason phrase of the status. */
    title: string;
    status: number;
    detail: string;
    /** A JSON Pointer into the request body ("" is the whole body). */
    pointer?: string;
    /** A byte offset into the request body. */
    byteOffset?: number;
    /** The 1-based line of `byteOffset` (lines end at LF). */
    line?: number;
    /** The 1-based column of `byteOffset` in its line, in bytes. */
    column?: number;
}
/** Query parameters of `listSessions` (GET /sessions). */
export declare type ListSessionsQuery = {
    /** Only the sessions whose `name` starts with this text (compared as it is, case-sensitively). */
    name?: string;
    /** Only the sessions with this label, written `key:value` (the key up to the first colon); anything else answers `400`. */
    label?: string;
    /** Sessions per page (decimal digits only); at most 1000 (the server's `--max-page`). */
    limit?: number;
    /** The `cursor` of the last session of the page before (also its `next`); a text that is not a cursor answers `400`. A cursor stays valid when its session is gone. */
    after?: SessionCursor;
};
/** Query parameters of `createSession` (POST /sessions). */
export declare type CreateSessionQuery = {
    /** The form of the body, instead of its `Content-Type`: `nodes` (nested JSON), `document` (any JSON document; `POST /sessions` only), `csv`, `ndjson`, `paths`. */
    format?: "nodes" | "document" | "csv" | "ndjson" | "paths";
    /** The separator of a path list (default `/`): 1 to 4 characters without a backslash, CR, LF or U+0000, not starting with `n`, `r` or `"` (which escapes use; 400 otherwise). For CSV rows, the delimiter: `,` `;` `|` or a tab (default: the header row's first `,` `;` or tab). */
    separator?: string;
    /** CSV rows only: the header's names of the columns, as role:name pairs separated by commas (`id:ID,parentId:Parent,title:Name`; roles `id`, `parentId`, `title`, `expanded`, `hasChildren`, `data`, each once). Roles not named match their own name in any letter case. `400` for a malformed value or another format; `422` when the header lacks a named column. */
    columns?: string;
    /** How the new session starts expanded, for an upload in any format (as the nested JSON body's `expand` member, which may not be given too): `none` (the default) keeps each node's own `expanded`; `all` expands every node that has children or `hasChildren: true`; N expands such nodes at level < N and collapses all others. */
    expand?: string;
    /** Seconds the new session may stay idle before it expires (`0`: never), for an upload in any format (as the nested JSON body's `ttl` member, which may not be given too); at most `--max-session-ttl` when the server sets one: `400` beyond. */
    ttl?: string;
    /** The session's `name` (1 to 200 characters, no control characters; anything else answers `400`), for an upload in any format; not together with a `name` member of the body (`400`). */
    name?: string;
};
/** Query parameters of `patchSession` (PATCH /sessions/{sid}). */
export declare type PatchSessionQuery = {
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
};
/** Query parameters of `getRows` (GET /sessions/{sid}/rows). */
export declare type GetRowsQuery = {
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
    /** Unfiltered rows with their matches of this text flagged (`match`, `matchRanges`, with the options `match`, `caseSensitive`, `diacritics`, `leavesOnly`), nothing hidden; not with `filter` (`400`). It cannot contain U+0000 (`%00` answers `400`). */
    highlight?: string;
    /** The first row of the page (decimal digits only). Past the end gives an empty page. */
    offset?: number;
    /** Rows per page (decimal digits only); at most 1000 (the server's `--max-page`); 0 gives the counts only. */
    limit?: number;
    /**
     * `true`: every row has `position` and `siblingCount` (its place among its parent's
     * children in the tree, as `aria-posinset`/`aria-setsize` and moves need it). O(log n) a
     * row once the levels of the page's rows are counted (O(n) for a level's first count).
     */
    positions?: boolean;
    /** Aggregates of each row's descendants (the node itself not counted; over the whole tree below it, whatever the filter or expansion), comma-separated: `count` (the descendants), or `sum`, `min`, `max`, `avg` and `:` and a data field (`sum:data.size`), over the descendants whose value is a number or a string written as one. Each row then has `aggregates`. At most 16; an unknown aggregate, the title as its field, or one asked twice answers `400` with the position. The first page that asks for a field builds its index (O(n)); the 8 most recently built are kept, each O(log n) per row. */
    aggregate?: string;
};
/** Query parameters of `getRootChildren` (GET /sessions/{sid}/children). */
export declare type GetRootChildrenQuery = {
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
    /** The first row of the page (decimal digits only). Past the end gives an empty page. */
    offset?: number;
    /** Rows per page (decimal digits only); at most 1000 (the server's `--max-page`); 0 gives the counts only. */
    limit?: number;
    /** The order of the children: comma-separated keys, each a field (`title`, `data.size`) with `-` before it for descending; the first key that differs decides, ties keep the order of the tree. Numbers by value (a string written as a JSON number too), then strings in natural order ("item 2" before "item 10") after lowercasing, then `false`, `true`, then arrays and objects; `null` and a missing field come last in both directions. At most 16 keys, each field once; anything else answers `400` with the position. The first page of a sort builds its order of the whole tree (O(n log n)); 4 are kept (the one built longest ago dropped first), and edits keep them. A sorted view's children are in its order: leave `sort` out or give the same (another answers `400`). */
    sort?: string;
    /** Aggregates of each row's descendants (the node itself not counted; over the whole tree below it, whatever the filter or expansion), comma-separated: `count` (the descendants), or `sum`, `min`, `max`, `avg` and `:` and a data field (`sum:data.size`), over the descendants whose value is a number or a string written as one. Each row then has `aggregates`. At most 16; an unknown aggregate, the title as its field, or one asked twice answers `400` with the position. The first page that asks for a field builds its index (O(n)); the 8 most recently built are kept, each O(log n) per row. */
    aggregate?: string;
};
/** Query parameters of `getItemChildren` (GET /sessions/{sid}/items/{itemId}/children). */
export declare type GetItemChildrenQuery = {
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
    /** The first row of the page (decimal digits only). Past the end gives an empty page. */
    offset?: number;
    /** Rows per page (decimal digits only); at most 1000 (the server's `--max-page`); 0 gives the counts only. */
    limit?: number;
    /** The order of the children: comma-separated keys, each a field (`title`, `data.size`) with `-` before it for descending; the first key that differs decides, ties keep the order of the tree. Numbers by value (a string written as a JSON number too), then strings in natural order ("item 2" before "item 10") after lowercasing, then `false`, `true`, then arrays and objects; `null` and a missing field come last in both directions. At most 16 keys, each field once; anything else answers `400` with the position. The first page of a sort builds its order of the whole tree (O(n log n)); 4 are kept (the one built longest ago dropped first), and edits keep them. A sorted view's children are in its order: leave `sort` out or give the same (another answers `400`). */
    sort?: string;
    /** Aggregates of each row's descendants (the node itself not counted; over the whole tree below it, whatever the filter or expansion), comma-separated: `count` (the descendants), or `sum`, `min`, `max`, `avg` and `:` and a data field (`sum:data.size`), over the descendants whose value is a number or a string written as one. Each row then has `aggregates`. At most 16; an unknown aggregate, the title as its field, or one asked twice answers `400` with the position. The first page that asks for a field builds its index (O(n)); the 8 most recently built are kept, each O(log n) per row. */
    aggregate?: string;
};
/** Query parameters of `getTree` (GET /sessions/{sid}/tree). */
export declare type GetTreeQuery = {
    /** The form of the export, instead of `Accept`: `document` writes a session uploaded with `format=document` as that JSON document (`406` for another tree). */
    format?: "nodes" | "document" | "csv" | "ndjson" | "paths";
    /** The separator of a path list (default `/`): 1 to 4 characters without a backslash, CR, LF or U+0000, not starting with `n`, `r` or `"` (which escapes use; 400 otherwise). For CSV rows, the delimiter: `,` `;` `|` or a tab (default: the header row's first `,` `;` or tab). */
    separator?: string;
    /** `true`: the view's selected nodes alone, each under its nearest selected ancestor (a root when it has none). */
    selection?: boolean;
};
/** Query parameters of `getMatches` (GET /sessions/{sid}/matches). */
export declare type GetMatchesQuery = {
    /** The filtered view's text (this or `highlight` is required here; see the `filter` of the other operations). */
    filter?: string;
    /** Unfiltered rows with their matches of this text flagged (`match`, `matchRanges`, with the options `match`, `caseSensitive`, `diacritics`, `leavesOnly`), nothing hidden; not with `filter` (`400`). It cannot contain U+0000 (`%00` answers `400`). */
    highlight?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
    /** An item id; the matches after it in tree order. Not with `before`. It cannot contain U+0000 (`%00` answers `400`). */
    after?: string;
    /** An item id; the matches before it, nearest first. Not with `after`. It cannot contain U+0000 (`%00` answers `400`). */
    before?: string;
    limit?: number;
    wrap?: boolean;
};
/** Query parameters of `getSelection` (GET /sessions/{sid}/selection). */
export declare type GetSelectionQuery = {
    /** An item id; the selected nodes after it in tree order. It cannot contain U+0000 (`%00` answers `400`). */
    after?: string;
    limit?: number;
    /** Only the nodes whose parent is not selected (the top-most ones). */
    top?: boolean;
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
};
/** Query parameters of `getEvents` (GET /sessions/{sid}/events). */
export declare type GetEventsQuery = {
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
    /** The same as `Last-Event-ID`, for a client that cannot set headers (the header wins; both are checked). */
    lastEventId?: LastEventId;
    /** A session token of this session (such as the one of `POST /sessions/{sid}/events/token`), instead of `Authorization`, which wins when both are given. Only event streams take it; an admin token is never accepted here (`401`), nor is any text that is not a valid token, also on an open server. The HTTP layer leaves it out of what it logs. */
    access_token?: string;
};
/** Query parameters of `insertItems` (POST /sessions/{sid}/items). */
export declare type InsertItemsQuery = {
    /** The form of the body, instead of its `Content-Type`: `nodes` (nested JSON), `document` (any JSON document; `POST /sessions` only), `csv`, `ndjson`, `paths`. */
    format?: "nodes" | "document" | "csv" | "ndjson" | "paths";
    /** The separator of a path list (default `/`): 1 to 4 characters without a backslash, CR, LF or U+0000, not starting with `n`, `r` or `"` (which escapes use; 400 otherwise). For CSV rows, the delimiter: `,` `;` `|` or a tab (default: the header row's first `,` `;` or tab). */
    separator?: string;
    /** CSV rows only: the header's names of the columns, as role:name pairs separated by commas (`id:ID,parentId:Parent,title:Name`; roles `id`, `parentId`, `title`, `expanded`, `hasChildren`, `data`, each once). Roles not named match their own name in any letter case. `400` for a malformed value or another format; `422` when the header lacks a named column. */
    columns?: string;
    /** For a path list only (`400` with rows): the existing node the paths go under. */
    parentId?: string;
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
};
/** Query parameters of `getItem` (GET /sessions/{sid}/items/{itemId}). */
export declare type GetItemQuery = {
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
};
/** Query parameters of `patchItem` (PATCH /sessions/{sid}/items/{itemId}). */
export declare type PatchItemQuery = {
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
};
/** Query parameters of `deleteItem` (DELETE /sessions/{sid}/items/{itemId}). */
export declare type DeleteItemQuery = {
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
};
/** Query parameters of `applyBatch` (POST /sessions/{sid}/batch). */
export declare type ApplyBatchQuery = {
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
};
/** Query parameters of `listViews` (GET /sessions/{sid}/views). */
export declare type ListViewsQuery = {
    /** The first row of the page (decimal digits only). Past the end gives an empty page. */
    offset?: number;
    /** Rows per page (decimal digits only); at most 1000 (the server's `--max-page`); 0 gives the counts only. */
    limit?: number;
};
/** Query parameters of `patchView` (PATCH /sessions/{sid}/views/{vid}). */
export declare type PatchViewQuery = {
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
};
/** Query parameters of `getViewRows` (GET /sessions/{sid}/views/{vid}/rows). */
export declare type GetViewRowsQuery = {
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
    /** Unfiltered rows with their matches of this text flagged (`match`, `matchRanges`, with the options `match`, `caseSensitive`, `diacritics`, `leavesOnly`), nothing hidden; not with `filter` (`400`). It cannot contain U+0000 (`%00` answers `400`). */
    highlight?: string;
    /** The first row of the page (decimal digits only). Past the end gives an empty page. */
    offset?: number;
    /** Rows per page (decimal digits only); at most 1000 (the server's `--max-page`); 0 gives the counts only. */
    limit?: number;
    /**
     * `true`: every row has `position` and `siblingCount` (its place among its parent's
     * children in the tree, as `aria-posinset`/`aria-setsize` and moves need it). O(log n) a
     * row once the levels of the page's rows are counted (O(n) for a level's first count).
     */
    positions?: boolean;
    /** Aggregates of each row's descendants (the node itself not counted; over the whole tree below it, whatever the filter or expansion), comma-separated: `count` (the descendants), or `sum`, `min`, `max`, `avg` and `:` and a data field (`sum:data.size`), over the descendants whose value is a number or a string written as one. Each row then has `aggregates`. At most 16; an unknown aggregate, the title as its field, or one asked twice answers `400` with the position. The first page that asks for a field builds its index (O(n)); the 8 most recently built are kept, each O(log n) per row. */
    aggregate?: string;
};
/** Query parameters of `getViewMatches` (GET /sessions/{sid}/views/{vid}/matches). */
export declare type GetViewMatchesQuery = {
    /** The filtered view's text (this or `highlight` is required here; see the `filter` of the other operations). */
    filter?: string;
    /** Unfiltered rows with their matches of this text flagged (`match`, `matchRanges`, with the options `match`, `caseSensitive`, `diacritics`, `leavesOnly`), nothing hidden; not with `filter` (`400`). It cannot contain U+0000 (`%00` answers `400`). */
    highlight?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
    /** An item id; the matches after it in tree order. Not with `before`. It cannot contain U+0000 (`%00` answers `400`). */
    after?: string;
    /** An item id; the matches before it, nearest first. Not with `after`. It cannot contain U+0000 (`%00` answers `400`). */
    before?: string;
    limit?: number;
    wrap?: boolean;
};
/** Query parameters of `getViewSelection` (GET /sessions/{sid}/views/{vid}/selection). */
export declare type GetViewSelectionQuery = {
    /** An item id; the selected nodes after it in tree order. It cannot contain U+0000 (`%00` answers `400`). */
    after?: string;
    limit?: number;
    /** Only the nodes whose parent is not selected (the top-most ones). */
    top?: boolean;
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
};
/** Query parameters of `getViewTree` (GET /sessions/{sid}/views/{vid}/tree). */
export declare type GetViewTreeQuery = {
    /** The form of the export, instead of `Accept`: `document` writes a session uploaded with `format=document` as that JSON document (`406` for another tree). */
    format?: "nodes" | "document" | "csv" | "ndjson" | "paths";
    /** The separator of a path list (default `/`): 1 to 4 characters without a backslash, CR, LF or U+0000, not starting with `n`, `r` or `"` (which escapes use; 400 otherwise). For CSV rows, the delimiter: `,` `;` `|` or a tab (default: the header row's first `,` `;` or tab). */
    separator?: string;
    /** `true`: the view's selected nodes alone, each under its nearest selected ancestor (a root when it has none). */
    selection?: boolean;
};
/** Query parameters of `getViewEvents` (GET /sessions/{sid}/views/{vid}/events). */
export declare type GetViewEventsQuery = {
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
    /** The same as `Last-Event-ID`, for a client that cannot set headers (the header wins; both are checked). */
    lastEventId?: LastEventId;
    /** A session token of this session (such as the one of `POST /sessions/{sid}/events/token`), instead of `Authorization`, which wins when both are given. Only event streams take it; an admin token is never accepted here (`401`), nor is any text that is not a valid token, also on an open server. The HTTP layer leaves it out of what it logs. */
    access_token?: string;
};
/** Query parameters of `insertViewItems` (POST /sessions/{sid}/views/{vid}/items). */
export declare type InsertViewItemsQuery = {
    /** The form of the body, instead of its `Content-Type`: `nodes` (nested JSON), `document` (any JSON document; `POST /sessions` only), `csv`, `ndjson`, `paths`. */
    format?: "nodes" | "document" | "csv" | "ndjson" | "paths";
    /** The separator of a path list (default `/`): 1 to 4 characters without a backslash, CR, LF or U+0000, not starting with `n`, `r` or `"` (which escapes use; 400 otherwise). For CSV rows, the delimiter: `,` `;` `|` or a tab (default: the header row's first `,` `;` or tab). */
    separator?: string;
    /** CSV rows only: the header's names of the columns, as role:name pairs separated by commas (`id:ID,parentId:Parent,title:Name`; roles `id`, `parentId`, `title`, `expanded`, `hasChildren`, `data`, each once). Roles not named match their own name in any letter case. `400` for a malformed value or another format; `422` when the header lacks a named column. */
    columns?: string;
    /** For a path list only (`400` with rows): the existing node the paths go under. */
    parentId?: string;
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
};
/** Query parameters of `getViewItem` (GET /sessions/{sid}/views/{vid}/items/{itemId}). */
export declare type GetViewItemQuery = {
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
};
/** Query parameters of `patchViewItem` (PATCH /sessions/{sid}/views/{vid}/items/{itemId}). */
export declare type PatchViewItemQuery = {
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
};
/** Query parameters of `deleteViewItem` (DELETE /sessions/{sid}/views/{vid}/items/{itemId}). */
export declare type DeleteViewItemQuery = {
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
};
/** Query parameters of `getViewRootChildren` (GET /sessions/{sid}/views/{vid}/children). */
export declare type GetViewRootChildrenQuery = {
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
    /** The first row of the page (decimal digits only). Past the end gives an empty page. */
    offset?: number;
    /** Rows per page (decimal digits only); at most 1000 (the server's `--max-page`); 0 gives the counts only. */
    limit?: number;
    /** The order of the children: comma-separated keys, each a field (`title`, `data.size`) with `-` before it for descending; the first key that differs decides, ties keep the order of the tree. Numbers by value (a string written as a JSON number too), then strings in natural order ("item 2" before "item 10") after lowercasing, then `false`, `true`, then arrays and objects; `null` and a missing field come last in both directions. At most 16 keys, each field once; anything else answers `400` with the position. The first page of a sort builds its order of the whole tree (O(n log n)); 4 are kept (the one built longest ago dropped first), and edits keep them. A sorted view's children are in its order: leave `sort` out or give the same (another answers `400`). */
    sort?: string;
    /** Aggregates of each row's descendants (the node itself not counted; over the whole tree below it, whatever the filter or expansion), comma-separated: `count` (the descendants), or `sum`, `min`, `max`, `avg` and `:` and a data field (`sum:data.size`), over the descendants whose value is a number or a string written as one. Each row then has `aggregates`. At most 16; an unknown aggregate, the title as its field, or one asked twice answers `400` with the position. The first page that asks for a field builds its index (O(n)); the 8 most recently built are kept, each O(log n) per row. */
    aggregate?: string;
};
/** Query parameters of `getViewItemChildren` (GET /sessions/{sid}/views/{vid}/items/{itemId}/children). */
export declare type GetViewItemChildrenQuery = {
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
    /** The first row of the page (decimal digits only). Past the end gives an empty page. */
    offset?: number;
    /** Rows per page (decimal digits only); at most 1000 (the server's `--max-page`); 0 gives the counts only. */
    limit?: number;
    /** The order of the children: comma-separated keys, each a field (`title`, `data.size`) with `-` before it for descending; the first key that differs decides, ties keep the order of the tree. Numbers by value (a string written as a JSON number too), then strings in natural order ("item 2" before "item 10") after lowercasing, then `false`, `true`, then arrays and objects; `null` and a missing field come last in both directions. At most 16 keys, each field once; anything else answers `400` with the position. The first page of a sort builds its order of the whole tree (O(n log n)); 4 are kept (the one built longest ago dropped first), and edits keep them. A sorted view's children are in its order: leave `sort` out or give the same (another answers `400`). */
    sort?: string;
    /** Aggregates of each row's descendants (the node itself not counted; over the whole tree below it, whatever the filter or expansion), comma-separated: `count` (the descendants), or `sum`, `min`, `max`, `avg` and `:` and a data field (`sum:data.size`), over the descendants whose value is a number or a string written as one. Each row then has `aggregates`. At most 16; an unknown aggregate, the title as its field, or one asked twice answers `400` with the position. The first page that asks for a field builds its index (O(n)); the 8 most recently built are kept, each O(log n) per row. */
    aggregate?: string;
};
/** Query parameters of `applyViewBatch` (POST /sessions/{sid}/views/{vid}/batch). */
export declare type ApplyViewBatchQuery = {
    /** The view's rows. Absent or empty, its unfiltered rows; otherwise its filtered rows for this text. In a query string `+` is a space. It cannot contain U+0000 (`%00` answers `400`). */
    filter?: string;
    /** How titles match `filter`. Checked even when `filter` is absent. */
    match?: MatchMode;
    /** Exactly `true` or `false`. Case-insensitive matching compares Unicode-aware lowercase forms, scalar by scalar (no normalization). */
    caseSensitive?: boolean;
    /** `sensitive` (the default) compares scalars as they are; `insensitive` ignores combining marks: title and text are folded scalar by scalar to their canonical decomposition (NFD) without the scalars of canonical combining class other than 0 (after lowercasing, unless `caseSensitive`), so `cafe` finds `Café` and `café`, and `zurich` finds `Zürich`. Match ranges still point into the original title. Checked even when `filter` is absent. */
    diacritics?: "sensitive" | "insensitive";
    /** Exactly `true` or `false`. With `true`, only nodes whose row has `hasChildren` false (no children, and not uploaded with `hasChildren` true) can match; their ancestors are shown as usual. A node that gains its first child stops matching; one that loses its last child may start. Checked even when `filter` is absent. */
    leavesOnly?: boolean;
    /** Where the filter's (or highlight's) text is searched, comma-separated: `title` or `data.MEMBER.MEMBER…` (a `\` takes the next character as it is: `data.a\.b` is the member `a.b`). A node matches when the text matches any of them: strings as their text, numbers and booleans as their JSON text. Default `title`; at most 16; a field listed twice, a bad field, or `fields` without a text answers `400`. Rows then carry `matchedFields`. See docs/API.md, "Search in data fields". */
    fields?: string;
    /** Conditions every match satisfies besides the text (with an empty or no `filter`, the conditions alone filter), comma-separated, each a field, a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) and a value: a JSON string, number, `true`, `false`, `null`, or bare text up to the next comma (a string). Numbers compare by value (also with strings written as JSON numbers, as CSV columns are), strings in natural order after the filter's folding, `false` before `true`; other pairings make every comparison false but `!=`. At most 16; a bad condition answers `400` naming the position of the error (in Unicode scalars from 1). */
    where?: string;
};
/**
 * One typed method per operation of openapi.yaml, on a `Transport` (base URL, bearer token,
 * `fetch`). Each answers `{ status, etag, location, value }` with the typed JSON of the 2xx
 * answer (text for CSV, NDJSON, path lists, YAML, metrics; the open `Response` for event
 * streams); a non-2xx answer throws a `ProblemError`.
 *
 * Left out: the HEAD operations, which answer what their GET does without a body:
 *   headDemoPage (HEAD /)
 *   headHealth (HEAD /healthz)
 *   headMetrics (HEAD /metrics)
 *   headOpenAPI (HEAD /openapi.yaml)
 *   headClientModule (HEAD /client/{file})
 *   headSessions (HEAD /sessions)
 *   headSession (HEAD /sessions/{sid})
 *   headRows (HEAD /sessions/{sid}/rows)
 *   headRootChildren (HEAD /sessions/{sid}/children)
 *   headItemChildren (HEAD /sessions/{sid}/items/{itemId}/children)
 *   headTree (HEAD /sessions/{sid}/tree)
 *   headMatches (HEAD /sessions/{sid}/matches)
 *   headSelection (HEAD /sessions/{sid}/selection)
 *   headFields (HEAD /sessions/{sid}/fields)
 *   headExpansion (HEAD /sessions/{sid}/expansion)
 *   headEvents (HEAD /sessions/{sid}/events)
 *   headItem (HEAD /sessions/{sid}/items/{itemId})
 *   headViews (HEAD /sessions/{sid}/views)
 *   headView (HEAD /sessions/{sid}/views/{vid})
 *   headViewRows (HEAD /sessions/{sid}/views/{vid}/rows)
 *   headViewMatches (HEAD /sessions/{sid}/views/{vid}/matches)
 *   headViewSelection (HEAD /sessions/{sid}/views/{vid}/selection)
 *   headViewExpansion (HEAD /sessions/{sid}/views/{vid}/expansion)
 *   headViewTree (HEAD /sessions/{sid}/views/{vid}/tree)
 *   headViewEvents (HEAD /sessions/{sid}/views/{vid}/events)
 *   headViewItem (HEAD /sessions/{sid}/views/{vid}/items/{itemId})
 *   headViewRootChildren (HEAD /sessions/{sid}/views/{vid}/children)
 *   headViewItemChildren (HEAD /sessions/{sid}/views/{vid}/items/{itemId}/children)
 * Every operationId is unique in the spec.
 */
export declare class TreeSessionsApi {
    readonly transport: Transport;
    constructor(transport: Transport);
    /** A client of the server at `baseUrl`, with an optional bearer token. */
    static at(baseUrl: string, token?: string | null): TreeSessionsApi;
    /** `GET /`: The browser demo */
    getDemoPage(options?: RequestOptions): Promise<Answer<string>>;
    /** `GET /healthz`: Liveness */
    getHealth(options?: RequestOptions): Promise<Answer<Health>>;
    /** `GET /metrics`: Prometheus text metrics */
    getMetrics(options?: RequestOptions): Promise<Answer<string>>;
    /** `GET /openapi.yaml`: This document */
    getOpenAPI(options?: RequestOptions): Promise<Answer<string>>;
    /** `GET /client/{file}`: A module of the TypeScript client */
    getClientModule(file: "adapters.js" | "api.js" | "index.js" | "problem.js" | "row-store.js" | "splices.js" | "sse.js" | "transport.js" | "tree-rows.js", options?: RequestOptions): Promise<Answer<string>>;
    /** `GET /sessions`: The sessions, newest first, a page at a time */
    listSessions(query?: ListSessionsQuery, options?: RequestOptions): Promise<Answer<SessionList>>;
    /** `POST /sessions`: Create a session */
    createSession(body: CreateSessionBody | RawBody, query?: CreateSessionQuery, options?: RequestOptions): Promise<Answer<SessionSummary>>;
    /**
     * `GET /sessions/{sid}`: Session summary
     *
     * With `ifNoneMatch` naming the current version the answer is `304` with `value: null`.
     */
    getSession(sid: string, options?: RequestOptions & {
        ifNoneMatch?: string;
    } & {
        ifNoneMatch?: undefined;
    }): Promise<Answer<SessionSummary>>;
    getSession(sid: string, options: RequestOptions & {
        ifNoneMatch?: string;
    }): Promise<Answer<SessionSummary> | Answer<null>>;
    /** `PATCH /sessions/{sid}`: Expand all, collapse all, or expand to a depth, in the named view; or change the session's settings */
    patchSession(sid: string, body: PatchSessionBody, query?: PatchSessionQuery, options?: RequestOptions & {
        ifMatch?: string;
    }): Promise<Answer<ChangeResponse | SessionSummary>>;
    /** `DELETE /sessions/{sid}`: Drop the session */
    deleteSession(sid: string, options?: RequestOptions & {
        ifMatch?: string;
    }): Promise<Answer<undefined>>;
    /**
     * `GET /sessions/{sid}/rows`: A page of visible rows of the named view
     *
     * With `ifNoneMatch` naming the current version the answer is `304` with `value: null`.
     */
    getRows(sid: string, query?: GetRowsQuery, options?: RequestOptions & {
        ifNoneMatch?: string;
    } & {
        ifNoneMatch?: undefined;
    }): Promise<Answer<RowsPage>>;
    getRows(sid: string, query: GetRowsQuery | undefined, options: RequestOptions & {
        ifNoneMatch?: string;
    }): Promise<Answer<RowsPage> | Answer<null>>;
    /**
     * `GET /sessions/{sid}/children`: A page of the roots's children
     *
     * With `ifNoneMatch` naming the current version the answer is `304` with `value: null`.
     */
    getRootChildren(sid: string, query?: GetRootChildrenQuery, options?: RequestOptions & {
        ifNoneMatch?: string;
    } & {
        ifNoneMatch?: undefined;
    }): Promise<Answer<ChildrenPage>>;
    getRootChildren(sid: string, query: GetRootChildrenQuery | undefined, options: RequestOptions & {
        ifNoneMatch?: string;
    }): Promise<Answer<ChildrenPage> | Answer<null>>;
    /**
     * `GET /sessions/{sid}/items/{itemId}/children`: A page of an item's children
     *
     * With `ifNoneMatch` naming the current version the answer is `304` with `value: null`.
     */
    getItemChildren(sid: string, itemId: NodeId, query?: GetItemChildrenQuery, options?: RequestOptions & {
        ifNoneMatch?: string;
    } & {
        ifNoneMatch?: undefined;
    }): Promise<Answer<ChildrenPage>>;
    getItemChildren(sid: string, itemId: NodeId, query: GetItemChildrenQuery | undefined, options: RequestOptions & {
        ifNoneMatch?: string;
    }): Promise<Answer<ChildrenPage> | Answer<null>>;
    /**
     * `GET /sessions/{sid}/tree`: The current tree in the upload format
     *
     * With `ifNoneMatch` naming the current version the answer is `304` with `value: null`.
     */
    getTree(sid: string, query?: GetTreeQuery, options?: RequestOptions & {
        ifNoneMatch?: string;
        accept?: string;
    } & {
        ifNoneMatch?: undefined;
    }): Promise<Answer<TreeExport | string>>;
    getTree(sid: string, query: GetTreeQuery | undefined, options: RequestOptions & {
        ifNoneMatch?: string;
        accept?: string;
    }): Promise<Answer<TreeExport | string> | Answer<null>>;
    /**
     * `GET /sessions/{sid}/matches`: A filtered view's matches in tree order, for next/previous match
     *
     * With `ifNoneMatch` naming the current version the answer is `304` with `value: null`.
     */
    getMatches(sid: string, query?: GetMatchesQuery, options?: RequestOptions & {
        ifNoneMatch?: string;
    } & {
        ifNoneMatch?: undefined;
    }): Promise<Answer<MatchesPage>>;
    getMatches(sid: string, query: GetMatchesQuery | undefined, options: RequestOptions & {
        ifNoneMatch?: string;
    }): Promise<Answer<MatchesPage> | Answer<null>>;
    /**
     * `GET /sessions/{sid}/selection`: The view's selected nodes in tree order
     *
     * With `ifNoneMatch` naming the current version the answer is `304` with `value: null`.
     */
    getSelection(sid: string, query?: GetSelectionQuery, options?: RequestOptions & {
        ifNoneMatch?: string;
    } & {
        ifNoneMatch?: undefined;
    }): Promise<Answer<SelectionPage>>;
    getSelection(sid: string, query: GetSelectionQuery | undefined, options: RequestOptions & {
        ifNoneMatch?: string;
    }): Promise<Answer<SelectionPage> | Answer<null>>;
    /**
     * `GET /sessions/{sid}/fields`: The fields the tree's nodes carry
     *
     * With `ifNoneMatch` naming the current version the answer is `304` with `value: null`.
     */
    getFields(sid: string, options?: RequestOptions & {
        ifNoneMatch?: string;
    } & {
        ifNoneMatch?: undefined;
    }): Promise<Answer<FieldList>>;
    getFields(sid: string, options: RequestOptions & {
        ifNoneMatch?: string;
    }): Promise<Answer<FieldList> | Answer<null>>;
    /**
     * `GET /sessions/{sid}/expansion`: The expanded nodes of the view's unfiltered rows
     *
     * With `ifNoneMatch` naming the current version the answer is `304` with `value: null`.
     */
    getExpansion(sid: string, options?: RequestOptions & {
        ifNoneMatch?: string;
    } & {
        ifNoneMatch?: undefined;
    }): Promise<Answer<ExpansionList>>;
    getExpansion(sid: string, options: RequestOptions & {
        ifNoneMatch?: string;
    }): Promise<Answer<ExpansionList> | Answer<null>>;
    /** `PUT /sessions/{sid}/expansion`: Set the expansion of the unfiltered rows from a list */
    putExpansion(sid: string, body: ExpansionBody, options?: RequestOptions & {
        ifMatch?: string;
    }): Promise<Answer<ExpansionChangeResponse>>;
    /**
     * `GET /sessions/{sid}/events`: The session's changes as server-sent events, in the named view
     *
     * Answers the open `Response` (its body is the event stream; follow it with `followEventStream`).
     */
    getEvents(sid: string, query?: GetEventsQuery, options?: RequestOptions & {
        lastEventId?: LastEventId;
    }): Promise<Response>;
    /** `POST /sessions/{sid}/events/token`: A short-lived reader token that opens this session's event streams as `access_token` */
    createEventToken(sid: string, options?: RequestOptions): Promise<Answer<EventToken>>;
    /** `POST /sessions/{sid}/tokens`: Mint a session token */
    createToken(sid: string, body: CreateTokenBody, options?: RequestOptions): Promise<Answer<SessionToken>>;
    /** `POST /sessions/{sid}/items`: Insert nodes */
    insertItems(sid: string, body: InsertItemsBody | RawBody, query?: InsertItemsQuery, options?: RequestOptions & {
        ifMatch?: string;
    }): Promise<Answer<InsertResponse>>;
    /**
     * `GET /sessions/{sid}/items/{itemId}`: One item
     *
     * With `ifNoneMatch` naming the current version the answer is `304` with `value: null`.
     */
    getItem(sid: string, itemId: NodeId, query?: GetItemQuery, options?: RequestOptions & {
        ifNoneMatch?: string;
    } & {
        ifNoneMatch?: undefined;
    }): Promise<Answer<ItemInfo>>;
    getItem(sid: string, itemId: NodeId, query: GetItemQuery | undefined, options: RequestOptions & {
        ifNoneMatch?: string;
    }): Promise<Answer<ItemInfo> | Answer<null>>;
    /** `PATCH /sessions/{sid}/items/{itemId}`: Expand/collapse, reveal, update or move an item */
    patchItem(sid: string, itemId: NodeId, body: PatchItemBody, query?: PatchItemQuery, options?: RequestOptions & {
        ifMatch?: string;
    }): Promise<Answer<ItemChangeResponse>>;
    /** `DELETE /sessions/{sid}/items/{itemId}`: Delete an item and its subtree */
    deleteItem(sid: string, itemId: NodeId, query?: DeleteItemQuery, options?: RequestOptions & {
        ifMatch?: string;
    }): Promise<Answer<ItemChangeResponse>>;
    /** `POST /sessions/{sid}/batch`: Apply several changes at once, all or nothing */
    applyBatch(sid: string, body: BatchBody, query?: ApplyBatchQuery, options?: RequestOptions & {
        ifMatch?: string;
    }): Promise<Answer<BatchResponse>>;
    /** `GET /sessions/{sid}/views`: The session's views, a page at a time */
    listViews(sid: string, query?: ListViewsQuery, options?: RequestOptions): Promise<Answer<ViewList>>;
    /** `POST /sessions/{sid}/views`: Make a view of the session's tree for one user */
    createView(sid: string, body?: CreateViewBody, options?: RequestOptions & {
        ifMatch?: string;
    }): Promise<Answer<ViewSummary>>;
    /**
     * `GET /sessions/{sid}/views/{vid}`: A view's summary
     *
     * With `ifNoneMatch` naming the current version the answer is `304` with `value: null`.
     */
    getView(sid: string, vid: string, options?: RequestOptions & {
        ifNoneMatch?: string;
    } & {
        ifNoneMatch?: undefined;
    }): Promise<Answer<ViewSummary>>;
    getView(sid: string, vid: string, options: RequestOptions & {
        ifNoneMatch?: string;
    }): Promise<Answer<ViewSummary> | Answer<null>>;
    /** `PATCH /sessions/{sid}/views/{vid}`: Expand all, collapse all, expand to a depth, select, or sort, in a view */
    patchView(sid: string, vid: string, body: PatchViewBody, query?: PatchViewQuery, options?: RequestOptions & {
        ifMatch?: string;
    }): Promise<Answer<ChangeResponse>>;
    /** `DELETE /sessions/{sid}/views/{vid}`: Drop a view */
    deleteView(sid: string, vid: string, options?: RequestOptions & {
        ifMatch?: string;
    }): Promise<Answer<undefined>>;
    /**
     * `GET /sessions/{sid}/views/{vid}/rows`: A page of visible rows of a view
     *
     * With `ifNoneMatch` naming the current version the answer is `304` with `value: null`.
     */
    getViewRows(sid: string, vid: string, query?: GetViewRowsQuery, options?: RequestOptions & {
        ifNoneMatch?: string;
    } & {
        ifNoneMatch?: undefined;
    }): Promise<Answer<RowsPage>>;
    getViewRows(sid: string, vid: string, query: GetViewRowsQuery | undefined, options: RequestOptions & {
        ifNoneMatch?: string;
    }): Promise<Answer<RowsPage> | Answer<null>>;
    /**
     * `GET /sessions/{sid}/views/{vid}/matches`: The matches of a view's filtered rows in tree order
     *
     * With `ifNoneMatch` naming the current version the answer is `304` with `value: null`.
     */
    getViewMatches(sid: string, vid: string, query?: GetViewMatchesQuery, options?: RequestOptions & {
        ifNoneMatch?: string;
    } & {
        ifNoneMatch?: undefined;
    }): Promise<Answer<MatchesPage>>;
    getViewMatches(sid: string, vid: string, query: GetViewMatchesQuery | undefined, options: RequestOptions & {
        ifNoneMatch?: string;
    }): Promise<Answer<MatchesPage> | Answer<null>>;
    /**
     * `GET /sessions/{sid}/views/{vid}/selection`: A view's selected nodes in tree order
     *
     * With `ifNoneMatch` naming the current version the answer is `304` with `value: null`.
     */
    getViewSelection(sid: string, vid: string, query?: GetViewSelectionQuery, options?: RequestOptions & {
        ifNoneMatch?: string;
    } & {
        ifNoneMatch?: undefined;
    }): Promise<Answer<SelectionPage>>;
    getViewSelection(sid: string, vid: string, query: GetViewSelectionQuery | undefined, options: RequestOptions & {
        ifNoneMatch?: string;
    }): Promise<Answer<SelectionPage> | Answer<null>>;
    /**
     * `GET /sessions/{sid}/views/{vid}/expansion`: A view's expanded nodes
     *
     * With `ifNoneMatch` naming the current version the answer is `304` with `value: null`.
     */
    getViewExpansion(sid: string, vid: string, options?: RequestOptions & {
        ifNoneMatch?: string;
    } & {
        ifNoneMatch?: undefined;
    }): Promise<Answer<ExpansionList>>;
    getViewExpansion(sid: string, vid: string, options: RequestOptions & {
        ifNoneMatch?: string;
    }): Promise<Answer<ExpansionList> | Answer<null>>;
    /** `PUT /sessions/{sid}/views/{vid}/expansion`: Set the expansion of the unfiltered rows from a list */
    putViewExpansion(sid: string, vid: string, body: ExpansionBody, options?: RequestOptions & {
        ifMatch?: string;
    }): Promise<Answer<ExpansionChangeResponse>>;
    /**
     * `GET /sessions/{sid}/views/{vid}/tree`: The current tree in the upload format
     *
     * With `ifNoneMatch` naming the current version the answer is `304` with `value: null`.
     */
    getViewTree(sid: string, vid: string, query?: GetViewTreeQuery, options?: RequestOptions & {
        ifNoneMatch?: string;
        accept?: string;
    } & {
        ifNoneMatch?: undefined;
    }): Promise<Answer<TreeExport | string>>;
    getViewTree(sid: string, vid: string, query: GetViewTreeQuery | undefined, options: RequestOptions & {
        ifNoneMatch?: string;
        accept?: string;
    }): Promise<Answer<TreeExport | string> | Answer<null>>;
    /**
     * `GET /sessions/{sid}/views/{vid}/events`: A view's changes as server-sent events
     *
     * Answers the open `Response` (its body is the event stream; follow it with `followEventStream`).
     */
    getViewEvents(sid: string, vid: string, query?: GetViewEventsQuery, options?: RequestOptions & {
        lastEventId?: LastEventId;
    }): Promise<Response>;
    /** `POST /sessions/{sid}/views/{vid}/items`: Insert nodes, through a view */
    insertViewItems(sid: string, vid: string, body: InsertItemsBody | RawBody, query?: InsertViewItemsQuery, options?: RequestOptions & {
        ifMatch?: string;
    }): Promise<Answer<InsertResponse>>;
    /**
     * `GET /sessions/{sid}/views/{vid}/items/{itemId}`: One item, in a view
     *
     * With `ifNoneMatch` naming the current version the answer is `304` with `value: null`.
     */
    getViewItem(sid: string, vid: string, itemId: NodeId, query?: GetViewItemQuery, options?: RequestOptions & {
        ifNoneMatch?: string;
    } & {
        ifNoneMatch?: undefined;
    }): Promise<Answer<ItemInfo>>;
    getViewItem(sid: string, vid: string, itemId: NodeId, query: GetViewItemQuery | undefined, options: RequestOptions & {
        ifNoneMatch?: string;
    }): Promise<Answer<ItemInfo> | Answer<null>>;
    /** `PATCH /sessions/{sid}/views/{vid}/items/{itemId}`: Expand/collapse, reveal, update or move an item, through a view */
    patchViewItem(sid: string, vid: string, itemId: NodeId, body: PatchItemBody, query?: PatchViewItemQuery, options?: RequestOptions & {
        ifMatch?: string;
    }): Promise<Answer<ItemChangeResponse>>;
    /** `DELETE /sessions/{sid}/views/{vid}/items/{itemId}`: Delete an item and its subtree, through a view */
    deleteViewItem(sid: string, vid: string, itemId: NodeId, query?: DeleteViewItemQuery, options?: RequestOptions & {
        ifMatch?: string;
    }): Promise<Answer<ItemChangeResponse>>;
    /**
     * `GET /sessions/{sid}/views/{vid}/children`: A page of the roots's children in a view
     *
     * With `ifNoneMatch` naming the current version the answer is `304` with `value: null`.
     */
    getViewRootChildren(sid: string, vid: string, query?: GetViewRootChildrenQuery, options?: RequestOptions & {
        ifNoneMatch?: string;
    } & {
        ifNoneMatch?: undefined;
    }): Promise<Answer<ChildrenPage>>;
    getViewRootChildren(sid: string, vid: string, query: GetViewRootChildrenQuery | undefined, options: RequestOptions & {
        ifNoneMatch?: string;
    }): Promise<Answer<ChildrenPage> | Answer<null>>;
    /**
     * `GET /sessions/{sid}/views/{vid}/items/{itemId}/children`: A page of an item's children in a view
     *
     * With `ifNoneMatch` naming the current version the answer is `304` with `value: null`.
     */
    getViewItemChildren(sid: string, vid: string, itemId: NodeId, query?: GetViewItemChildrenQuery, options?: RequestOptions & {
        ifNoneMatch?: string;
    } & {
        ifNoneMatch?: undefined;
    }): Promise<Answer<ChildrenPage>>;
    getViewItemChildren(sid: string, vid: string, itemId: NodeId, query: GetViewItemChildrenQuery | undefined, options: RequestOptions & {
        ifNoneMatch?: string;
    }): Promise<Answer<ChildrenPage> | Answer<null>>;
    /** `POST /sessions/{sid}/views/{vid}/batch`: Apply several changes at once through a view, all or nothing */
    applyViewBatch(sid: string, vid: string, body: BatchBody, query?: ApplyViewBatchQuery, options?: RequestOptions & {
        ifMatch?: string;
    }): Promise<Answer<BatchResponse>>;
}
/** The operations `TreeSessionsApi` has, in the spec's order. */
export declare const operationIds: readonly ["getDemoPage", "getHealth", "getMetrics", "getOpenAPI", "getClientModule", "listSessions", "createSession", "getSession", "patchSession", "deleteSession", "getRows", "getRootChildren", "getItemChildren", "getTree", "getMatches", "getSelection", "getFields", "getExpansion", "putExpansion", "getEvents", "createEventToken", "createToken", "insertItems", "getItem", "patchItem", "deleteItem", "applyBatch", "listViews", "createView", "getView", "patchView", "deleteView", "getViewRows", "getViewMatches", "getViewSelection", "getViewExpansion", "putViewExpansion", "getViewTree", "getViewEvents", "insertViewItems", "getViewItem", "patchViewItem", "deleteViewItem", "getViewRootChildren", "getViewItemChildren", "applyViewBatch"];
