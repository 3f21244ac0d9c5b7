// The TreeSessions demo: the script of index.html, served inline in the page at GET / as an ES
// module. It talks to the API of docs/API.md only, through the repository's TypeScript client
// (clients/typescript, served at /client/*.js): `TreeRows` holds the rows shown, `TreeSessionsApi`
// makes every other call. This file keeps the page: the DOM, the keys, the dialogs.
// Each tab has a view of its own over the session's shared tree (`POST /sessions/{sid}/views`, its
// id kept in the tab's sessionStorage), and every request for rows, every change and the event
// stream go through it (`/sessions/{sid}/views/{vid}/…`): what one tab expands or collapses stays
// in that tab, while an edit of the tree made in any tab reaches every other one as that tab's
// own splices. State lives in `S`; `S.cache` is the `TreeRows` of this tab's view (its
// unfiltered rows, or its filtered rows for the search text): it fetches rows by blocks, applies
// the splices of every change (this page's own answers and the view's event stream), and keeps a
// row it must fetch again readable meanwhile. Edits (rename, insert, delete, move) carry
// `If-Match` with the view's version the page holds. Only the rows near the viewport are in the
// DOM. Opened with an access token (`?session=SID&token=…`, see "credentials") it sends the token
// with every request, the event stream's included, and offers what the token's role allows.
import { ProblemError, RawBody, Transport, TreeRows, TreeSessionsApi } from "./client/index.js";

const ROW_H = 26;              // px, must match --row
const MAX_SCROLL_H = 8000000;  // px: browsers cap element heights; beyond it the scroll is scaled
const OVERSCAN = 10;           // rows rendered above and below the viewport
const PREFETCH = 150;          // rows fetched ahead above and below the viewport
const BLOCK = 100;             // rows the cache fetches at once (its pages are whole blocks' missing rows)
const MAX_BLOCKS = 500;        // blocks the cache keeps; the least recently used go past it
const POLL_MS = 5000;          // without a live event stream: how often to look for others' changes
const RESUBSCRIBE_MS = 5000;   // after the event stream was refused: when to try again
const NEW_TITLE = "New item";  // the title of an inserted item, renamed inline at once
const INDENT = 18;             // px per level, must match --indent
const INDENT_START = 8;        // px before the first level's disclosure
const TITLE_START = 56;        // px from a row's indent to its title (disclosure, checkbox, icon), must match demo.css
const TYPEAHEAD_MS = 700;      // letters typed within this time make one type-ahead prefix
const NARROW = matchMedia("(max-width: 760px)");  // must match demo.css

const $ = (id) => document.getElementById(id);
const ui = {
  bar: $("bar"), menuToggle: $("menu-toggle"), openMenu: $("open-menu"), treeName: $("tree-name"), detailsToggle: $("details-toggle"),
  loader: $("loader"), sample: $("sample"), expand: $("expand"), file: $("file"), session: $("session"),
  columnsMenu: $("columns-menu"), columnsList: $("columns-list"), searchColumns: $("search-columns"), gridHead: $("grid-head"),
  search: $("search"), match: $("match"), caseSensitive: $("case"), diacritics: $("diacritics"), leavesOnly: $("leaves"), counts: $("counts"), matchPlace: $("match-place"), prevMatch: $("prev-match"), nextMatch: $("next-match"),
  expandAll: $("expand-all"), collapseAll: $("collapse-all"), expandDepth: $("expand-depth"), depth: $("depth"),
  tree: $("tree"), spacer: $("spacer"), layer: $("layer"),
  state: $("state"), stateIcon: $("state-icon"), stateTitle: $("state-title"), stateText: $("state-text"), stateActions: $("state-actions"),
  request: $("status-request"), view: $("status-view"), live: $("live"), access: $("status-access"), notice: $("notice"),
  loaderHint: $("loader-hint"), loaderLocked: $("loader-locked"),
  confirm: $("confirm"), confirmTitle: $("confirm-title"), confirmText: $("confirm-text"), editBar: $("edit-bar"),
  findMode: $("find-mode"), selectAll: $("select-all"), selectNone: $("select-none"), invertSelection: $("invert-selection"),
  selectionBar: $("selection-bar"), selectedCount: $("selected-count"), deleteSelected: $("delete-selected"), moveSelected: $("move-selected"),
  detailsTitle: $("details-title"), detailsId: $("details-id"), detailsPlace: $("details-place"), detailsData: $("details-data"),
};
// ---------------------------------------------------------------- icons
// 16×16 line drawings, used as CSS masks (`.i-NAME` sets `--icon`, `.i` paints it in the text colour).

const ICONS = {
  logo: "<rect x='1.5' y='1.5' width='5' height='4' rx='1'/><rect x='9.5' y='6' width='5' height='4' rx='1'/><rect x='9.5' y='11' width='5' height='4' rx='1'/><path d='M4 5.5V13h5.5M4 8h5.5'/>",
  search: "<circle cx='7' cy='7' r='4.5'/><path d='M10.5 10.5 14 14'/>",
  "chevron-up": "<path d='M4 10l4-4 4 4'/>",
  "chevron-down": "<path d='M4 6l4 4 4-4'/>",
  menu: "<path d='M2.5 4h11M2.5 8h11M2.5 12h11'/>",
  open: "<path d='M1.5 13V3.5h4.5l1.5 1.5h5.5v2.5'/><path d='M1.5 13l2.5-5.5h10.5L12 13z'/>",
  columns: "<rect x='1.5' y='2.5' width='13' height='11' rx='1.5'/><path d='M6 2.5v11M10.5 2.5v11'/>",
  sliders: "<path d='M2 4h7M12 4h2M2 12h2M7 12h7'/><circle cx='10.5' cy='4' r='1.5'/><circle cx='5.5' cy='12' r='1.5'/>",
  expand: "<path d='M8 1.5v13M5 4.5l3-3 3 3M5 11.5l3 3 3-3'/>",
  collapse: "<path d='M8 1.5V6M8 10v4.5M5 3.5l3 3 3-3M5 12.5l3-3 3 3'/>",
  depth: "<path d='M2.5 3h11M5 6.5h8.5M7.5 10h6M10 13.5h3.5'/>",
  keys: "<rect x='1.5' y='4' width='13' height='8' rx='1.5'/><path d='M4 7h1M7 7h1M10 7h2M5 9.5h6'/>",
  details: "<rect x='1.5' y='2.5' width='13' height='11' rx='1.5'/><path d='M10 2.5v11M11.8 5.5h1M11.8 8h1'/>",
  rename: "<path d='M10.5 2.5l3 3-8 8H2.5v-3z'/>",
  delete: "<path d='M2.5 4h11M6 4V2.5h4V4M4 4l.8 9.5h6.4L12 4M6.5 6.5v5M9.5 6.5v5'/>",
  add: "<path d='M8 3v10M3 8h10'/>",
  "add-child": "<path d='M3 2.5V8h5.5M6.5 6l2 2-2 2M12.5 9v5M10 11.5h5'/>",
  "move-up": "<path d='M8 13.5v-11M4 6.5l4-4 4 4'/>",
  "move-down": "<path d='M8 2.5v11M4 9.5l4 4 4-4'/>",
  outdent: "<path d='M2 3v10M14 8H5.5M8.5 5 5.5 8l3 3'/>",
  indent: "<path d='M14 3v10M2 8h8.5M7.5 5l3 3-3 3'/>",
  cut: "<circle cx='4.5' cy='12' r='2'/><circle cx='11.5' cy='12' r='2'/><path d='M6 10.5 12 2M10 10.5 4 2'/>",
  paste: "<rect x='3' y='3' width='10' height='11.5' rx='1.5'/><path d='M6 3V1.5h4V3M6 8h4M6 11h4'/>",
  folder: "<path d='M1.5 3h4.5l1.5 1.5h7v9h-13z' fill='black'/>",
  "folder-open": "<path d='M1.5 13V3h4.5l1.5 1.5h5v2.5'/><path d='M1.5 13l2.5-6h11l-2.5 6z' fill='black'/>",
  file: "<path d='M3.5 1.5h6l3 3v10h-9zM9.5 1.5v3h3M5.5 8h5M5.5 10.5h5'/>",
  expired: "<circle cx='8' cy='8' r='6.5'/><path d='M8 4.5V8l2.5 2'/>",
  empty: "<path d='M1.5 3h4.5l1.5 1.5h7v9h-13z'/>",
  "no-match": "<circle cx='7' cy='7' r='4.5'/><path d='M10.5 10.5 14 14M5.5 5.5l3 3M8.5 5.5l-3 3'/>",
  checks: "<rect x='1.5' y='1.5' width='13' height='13' rx='2'/><path d='M4.5 8.5l2.5 2.5 4.5-5.5'/>",
  unchecked: "<rect x='1.5' y='1.5' width='13' height='13' rx='2'/>",
  invert: "<rect x='1.5' y='1.5' width='13' height='13' rx='2'/><path d='M1.5 14.5l13-13' /><path d='M8 1.5h6.5V8z' fill='black'/>",
  highlight: "<path d='M9.5 2.5l4 4-6 6H3.5v-4z'/><path d='M2 14.5h12'/>",
};
{
  const svg = (body) => "data:image/svg+xml," + encodeURIComponent("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16' "
    + "fill='none' stroke='black' stroke-width='1.5' stroke-linecap='round' stroke-linejoin='round'>" + body + "</svg>");
  const style = document.createElement("style");
  style.textContent = Object.entries(ICONS).map(([name, body]) => `.i-${name} { --icon: url("${svg(body)}"); }`).join("\n");
  document.head.append(style);
}
/** An icon element: `<span class="i i-NAME">`, hidden from assistive technology. */
function icon(name) {
  const span = document.createElement("span");
  span.className = "i i-" + name;
  span.setAttribute("aria-hidden", "true");
  return span;
}

const fmt = (n) => Number(n).toLocaleString("en-US");
const clamp = (x, lo, hi) => Math.max(lo, Math.min(hi, x));
/** A row's left padding, in px, for a 0-based level: the same step at every depth. */
const indent = (level) => INDENT_START + INDENT * level;

const S = {
  sid: null, own: false, nodeCount: 0,
  vid: null,        // this tab's view of session `sid` (see `ensureView`)
  rule: null,       // how a new view of this session starts: its `expand` rule, or null: a copy of the default view
  remade: false,    // a view was made for one that was gone, and has not shown rows yet
  filter: "", match: "contains", caseSensitive: false, diacritics: false, leavesOnly: false, viewKey: "",
  highlight: "",    // the search text when it highlights matches instead of filtering (`filter` is then "")
  highlightCount: null, // the matches of `highlight` (GET matches), null until known
  anchor: null,     // the row whose checkbox was clicked last ({ index, selected }): where Shift-click ranges start
  cache: null,      // the `TreeRows` of this tab's view as shown (a new one for every view, filter or highlight)
  turn: 0,          // bumped by `openView`: an older opening stops
  ready: false, version: 0, total: 0,
  loading: false, loadAgain: false, mutating: 0,
  focus: -1, saved: null, els: new Map(), pool: [], renderQueued: false, retryAt: 0, retryTimer: 0, searchTimer: 0, note: null, // note: shown once the view (re)opened
  resubscribeTimer: 0,
  edit: null, cut: null, drag: null, dropEl: null, noticeTimer: 0,
  gone: null,       // why the session cannot be shown ({ kind, sid, detail }), shown over the tree
  shownState: "", shownDetails: undefined, typed: "", typedAt: -Infinity,
  columns: [],      // the data fields shown as columns: { field: "data.size", numeric }, in the order picked
  searchColumns: false, // the search looks in the shown columns too (`fields=title,…`)
  sort: [],         // the view's order (its rows pages' `sort`): [{ field, descending }], first key first
  token: null,      // the credential sent for session `sid` (see `useCredential`), null: none (an open server)
  access: null,     // what a session token says (`tokenFields`); null: the admin token, or none
};

// ---------------------------------------------------------------- HTTP
// Every request goes through the client's `Transport` with this page's `fetch`, which times it
// and shows it on the status line (`API`; `QUIET` shows nothing: lookups of the page's own).

/** The message of an error: a problem's detail, or what failed. */
const why = (e) => e instanceof ProblemError ? (e.detail || e.title) : (e && e.message) || String(e);
/** The HTTP status of an error (0: no answer). */
const statusOf = (e) => e instanceof ProblemError ? e.status : 0;

function showRequest(method, path, status, ms) {
  let shown = path.replace(/^\/sessions\/[^/?]+/, "") || path;
  try { shown = decodeURIComponent(shown); } catch (e) { /* shown as sent */ }
  const time = ms < 10 ? ms.toFixed(1) : String(Math.round(ms));
  ui.request.className = status >= 400 || status === 0 ? "error" : "";
  ui.request.textContent = `${method} ${shown.length > 90 ? shown.slice(0, 89) + "…" : shown} → ${status || "failed"} in ${time} ms`;
}

function showMessage(text, isError) {
  ui.request.className = isError ? "error" : "";
  ui.request.textContent = text;
}

/**
 * The page's `fetch`: the platform's, timed and shown on the status line (`quiet`: not shown,
 * nor is an event stream); a 401 stops the page (`denied`).
 */
function pageFetch(quiet) {
  return async (url, init = {}) => {
    const method = init.method || "GET";
    const path = url.startsWith(location.origin) ? url.slice(location.origin.length) : url;
    const shown = !quiet && !(init.headers && init.headers.Accept === "text/event-stream");
    const t0 = performance.now();
    let res;
    try {
      res = await fetch(url, init);
    } catch (e) {
      if (shown) showRequest(method, path, 0, performance.now() - t0);
      throw e;
    }
    if (shown) showRequest(method, path, res.status, performance.now() - t0);
    if (res.status === 401) {
      res.clone().json().then((p) => p.detail || p.title, () => "HTTP 401").then((detail) => denied(detail));
    }
    return res;
  };
}

const API = new TreeSessionsApi(new Transport({ baseUrl: location.origin, fetch: pageFetch(false) }));
const QUIET = new TreeSessionsApi(new Transport({ baseUrl: location.origin, fetch: pageFetch(true) }));

// ---------------------------------------------------------------- credentials
// Opened as /?session=SID&token=TOKEN (or access_token=TOKEN), the page keeps the token in the
// tab's sessionStorage and takes it out of the address at once; every request then carries
// `Authorization: Bearer TOKEN`, the event stream's too (the client reads it with `fetch`, which
// can send a header, where EventSource could not). A session
// token's dotted fields are plain: the page reads its session, its role (a reader's page offers
// no edit) and the view it is bound to (the page then uses that one and makes none). Any other
// token is the server's admin token. Without one the page sends none, as an open server wants.

const TOKEN_KEY = "treesessions.token";  // and "." + sid: a session token; alone: an admin token
const heldTokens = new Map();            // the tokens of this tab, when sessionStorage keeps none

/**
 * What a session token says, `ts1.{sid}.{role}.{vid or -}.{issued}.{expires}.{key}.{signature}` (a dot of
 * the session id, after an instance name, written `~`)
 * (`expires` in ms since 1970); null for any other credential (an admin token).
 */
function tokenFields(text) {
  const f = String(text).split(".");
  if (f.length !== 8 || f[0] !== "ts1") return null;
  return { sid: f[1].replace(/~/g, "."), role: f[2], view: f[3] === "-" ? null : f[3], expires: Number(f[5]) };
}

function keepToken(key, text) {
  heldTokens.set(key, text);
  try { sessionStorage.setItem(key, text); } catch (e) { /* held for this page only */ }
}
function storedToken(key) {
  if (heldTokens.has(key)) return heldTokens.get(key);
  try { return sessionStorage.getItem(key); } catch (e) { return null; }
}

/**
 * Takes `token` (or `access_token`) out of the address, which keeps the rest, into the tab's
 * storage: a session token under its session (which it names when the address does not), any
 * other as the admin token (which then stands for the session named, in place of a token of it).
 */
function takeToken() {
  const url = new URL(location.href), q = url.searchParams;
  if (!q.has("token") && !q.has("access_token")) return;
  const text = q.get("token") || q.get("access_token");
  q.delete("token");
  q.delete("access_token");
  const fields = text ? tokenFields(text) : null;
  if (fields && !q.get("session")) q.set("session", fields.sid);
  const rest = q.toString();
  history.replaceState(history.state, "", url.pathname + (rest ? "?" + rest : "") + url.hash);
  if (!text) return;
  if (fields) { keepToken(TOKEN_KEY + "." + fields.sid, text); return; }
  keepToken(TOKEN_KEY, text);
  const sid = q.get("session");
  if (sid) {
    heldTokens.delete(TOKEN_KEY + "." + sid);
    try { sessionStorage.removeItem(TOKEN_KEY + "." + sid); } catch (e) { /* none kept */ }
  }
}

/** The credential for session `sid` (null: no session): its session token, else the admin token, else none. */
const credentialFor = (sid) => (sid != null && storedToken(TOKEN_KEY + "." + sid)) || storedToken(TOKEN_KEY) || null;
/** Whether the page may edit the tree: not with a reader's token. */
const canEdit = () => !S.access || S.access.role !== "reader";
/** Whether the page may load a tree (that makes a session): with the admin token, or none on an open server. */
const canUpload = () => !S.access;

/** True, with a notice, when the page may not edit the tree (`what`: the edit asked for). */
function readOnly(what) {
  if (canEdit()) return false;
  showNotice(`${what}: this page is read-only (its access token is a reader's).`);
  return true;
}

/** True, with a notice, when the page may not load a tree: its token is one session's. */
function uploadLocked() {
  if (canUpload()) return false;
  showNotice(`Loading a tree starts a new session: this page's access token is for session ${S.access.sid} only.`);
  return true;
}

/** Takes the credential of session `sid` and shows what it allows: a reader's page says it is read-only and offers no edit. */
function useCredential(sid) {
  const token = credentialFor(sid);
  S.token = token;
  API.transport.token = QUIET.transport.token = token;
  S.access = token ? tokenFields(token) : null;
  const reader = !canEdit();
  ui.access.hidden = !reader;
  ui.access.textContent = reader ? "read-only" : "";
  ui.access.title = reader ? "This page's access token is a reader's: browse, expand, filter, select and sort in this tab's view; no edit of the tree"
    + (S.access.view ? ` (the token is bound to view ${S.access.view})` : "") : "";
  ui.editBar.hidden = reader;
  const locked = !canUpload();
  for (const control of ui.loader.elements) control.disabled = locked;
  ui.loaderLocked.hidden = !locked;
  ui.loaderHint.hidden = locked;
  S.shownState = null;  // shown again: its actions depend on it
  updateSelection();
}

/** A 401 (`detail`: the server's word): no credential, or one that expired or was revoked. The page stops, and says so over the tree. */
function denied(detail) {
  if (S.gone && S.gone.kind === "denied") return;
  const reason = !S.token ? "none" : S.access && Date.now() >= S.access.expires ? "expired" : "refused";
  S.ready = false;
  S.gone = { kind: "denied", sid: S.sid, detail, why: reason };
  unsubscribe("offline", "Not authorized: " + detail);
  finishEdit(false);
  showMessage(`Not authorized: ${detail}`, true);
  scheduleRender();
}

/**
 * The query of this tab's rows as the server names them: the filter and its options (none
 * unfiltered). Changes and item lookups are sent with it, so their answers speak of these rows.
 */
const namedQuery = () => (S.filter ? { filter: S.filter, ...searchOptions() } : {});

/** How the search text matches (the client's `FilterOptions`): the defaults left out. */
function searchOptions() {
  return {
    match: S.match !== "contains" ? S.match : undefined,
    caseSensitive: S.caseSensitive || undefined,
    diacritics: S.diacritics ? "insensitive" : undefined,
    leavesOnly: S.leavesOnly || undefined,
    fields: S.searchColumns && S.columns.length ? ["title", ...S.columns.map((c) => listed(c.field))].join(",") : undefined,
  };
}

/** The query of `GET matches`: the filter's, or the highlighted text's (the unfiltered rows, their matches flagged). */
const matchQuery = () => ({ ...(S.filter ? { filter: S.filter } : { highlight: S.highlight }), ...searchOptions() });

/** A field as a comma-separated list names it: a `,` in a member name escaped (`GET …/fields` escapes `.` and `\\` only). */
const listed = (field) => field.replace(/,/g, "\\,");

/** The aggregates the columns show (`count,sum:data.size`), asked with every rows page; undefined without columns. */
function aggregateText() {
  if (!S.columns.length) return undefined;
  return ["count", ...S.columns.filter((c) => c.numeric).map((c) => "sum:" + listed(c.field))].join(",");
}

// ---------------------------------------------------------------- columns
// Data fields shown as columns (GET …/fields lists them): a leaf shows its value, a folder how
// many items it holds and the total of each number column over everything inside it.

/** The members of a field path, `data.a\.b.c` → ["a.b", "c"] (a backslash takes the next character). */
function fieldMembers(field) {
  const members = [];
  let name = "";
  for (let i = "data.".length; i < field.length; i++) {
    const c = field[i];
    if (c === "\\" && i + 1 < field.length) { name += field[++i]; continue; }
    if (c === ".") { members.push(name); name = ""; continue; }
    name += c;
  }
  members.push(name);
  return members;
}

/** The value of `field` in a row's data, undefined when it has none. */
function fieldValue(data, field) {
  let v = data;
  for (const m of fieldMembers(field)) {
    if (v == null || typeof v !== "object" || Array.isArray(v) || !(m in v)) return undefined;
    v = v[m];
  }
  return v;
}

const cellText = (v) => v === undefined ? "" : v === null ? "null" : typeof v === "object" ? (Array.isArray(v) ? `[${v.length}]` : "{…}")
  : typeof v === "number" ? v.toLocaleString("en-US", { maximumFractionDigits: 6 }) : String(v);

/** The cells of `row` for the shown columns. */
function cells(row) {
  return S.columns.map((c) => {
    const cell = document.createElement("span");
    cell.className = "cell";
    cell.dataset.field = c.field;
    const total = row.hasChildren && c.numeric && row.aggregates ? row.aggregates["sum:" + c.field] : null;
    if (total) {
      cell.classList.add("total");
      cell.textContent = total.count ? cellText(total.value) : "";
      cell.title = `${c.field}: the total of ${fmt(total.count)} ${total.count === 1 ? "item" : "items"} inside, of ${fmt(row.aggregates.count)}`;
    } else {
      cell.textContent = cellText(fieldValue(row.data, c.field));
      cell.title = `${c.field}: ${cell.textContent}`;
    }
    return cell;
  });
}

/** Lists the session's data fields in the Columns menu, each with a checkbox. */
async function loadFields() {
  if (!S.sid) return;
  let list;
  try {
    list = (await QUIET.getFields(S.sid)).value;
  } catch (e) {
    ui.columnsList.replaceChildren(muted("The fields could not be read: " + why(e)));
    return;
  }
  const fields = list.fields.filter((f) => f.field !== "title").slice(0, 40);
  if (!fields.length) { ui.columnsList.replaceChildren(muted("The nodes carry no data.")); return; }
  ui.columnsList.replaceChildren(...fields.map((f) => {
    const label = document.createElement("label");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.value = f.field;
    box.dataset.numeric = String((f.types.number || 0) > 0);
    box.checked = S.columns.some((c) => c.field === f.field);
    box.addEventListener("change", pickColumns);
    const kinds = Object.keys(f.types).join(", ");
    label.append(box, ` ${f.field} `, muted(`(${kinds}; ${fmt(f.count)})`));
    return label;
  }));
}

/** The columns picked changed: the head, the rows (with their aggregates) and, when the search looks in them, the view. */
function pickColumns() {
  const boxes = [...ui.columnsList.querySelectorAll("input:checked")];
  const kept = S.columns.filter((c) => boxes.some((b) => b.value === c.field));
  const added = boxes.filter((b) => !kept.some((c) => c.field === b.value)).map((b) => ({ field: b.value, numeric: b.dataset.numeric === "true" }));
  S.columns = [...kept, ...added];
  showColumnsHead();
  if (S.searchColumns && (S.filter || S.highlight)) { applySearch(); return; }
  if (S.cache) S.cache.setAggregate(aggregateText());  // the rows stay shown until fetched with their totals
}

function showColumnsHead() {
  const head = S.columns.map((c) => {
    const cell = sortHeader(c.field, c.field.slice("data.".length), "cell");
    cell.title = c.field + (c.numeric ? ": folders show the total inside" : "") + ". " + cell.title;
    return cell;
  });
  ui.gridHead.replaceChildren(sortHeader("title", "Name", "head-name"), ...head);
  ui.gridHead.hidden = !S.columns.length;
  ui.gridHead.parentElement.classList.toggle("grid", S.columns.length > 0);
}

// ---------------------------------------------------------------- sorting
// A click on a column's head sorts this tab's view by it (again: descending, then the tree's
// order); Shift-click adds it as a further key. The view keeps every folder's expansion and the
// selection; only the order of siblings changes (PATCH …/views/{vid} {"sort": …}).

/** A head cell that sorts by `field`, with its direction and place among the keys. */
function sortHeader(field, label, className) {
  const cell = document.createElement("button");
  cell.type = "button";
  cell.className = className + " sort-head";
  cell.dataset.sortField = field;
  const k = S.sort.findIndex((key) => key.field === field);
  const key = S.sort[k];
  cell.textContent = label + (key ? (key.descending ? " ▼" : " ▲") + (S.sort.length > 1 ? k + 1 : "") : "");
  cell.setAttribute("aria-pressed", key ? "true" : "false");
  cell.title = key ? `Sorted by ${label} ${key.descending ? "descending" : "ascending"}: click to ${key.descending ? "go back to the tree's order" : "sort descending"}`
                   : `Sort by ${label} (Shift-click: as a further key)`;
  return cell;
}

/** The keys as `sort` writes them: `-data.size,title`. */
const sortText = (keys) => keys.map((k) => (k.descending ? "-" : "") + listed(k.field)).join(",");

/** The keys of a page's `sort` (absent: the tree's order); a `\,` inside a field stays in it. */
function parseSort(text) {
  if (!text) return [];
  return text.split(/(?<!\\),/).map((key) => key.startsWith("-") ? { field: key.slice(1).replace(/\\,/g, ","), descending: true }
                                                                 : { field: key.replace(/\\,/g, ","), descending: false });
}

/** The order the rows pages say the view has: the head follows it (another tab of the view may change it). */
function noteSort() {
  if (!S.cache) return;
  const keys = parseSort(S.cache.sort);
  if (sortText(keys) === sortText(S.sort)) return;
  S.sort = keys;
  showColumnsHead();
}

/** Sorts the view by `field` (ascending, descending, then none), alone or (`add`) as a further key. */
function sortBy(field, add) {
  if (!S.ready) return;
  const keys = add ? S.sort.slice() : S.sort.filter((k) => k.field === field);
  const k = keys.findIndex((key) => key.field === field);
  if (k < 0) keys.push({ field, descending: false });
  else if (!keys[k].descending) keys[k] = { field, descending: true };
  else keys.splice(k, 1);
  S.sort = keys;
  showColumnsHead();
  change("Sort", (rows) => rows.setSort(keys.length ? sortText(keys) : null));
}

ui.gridHead.addEventListener("click", (e) => {
  const cell = e.target.closest("[data-sort-field]");
  if (cell) sortBy(cell.dataset.sortField, e.shiftKey);
});

// ---------------------------------------------------------------- scroll geometry
// The scroll height is min(total · ROW_H, MAX_SCROLL_H); past the cap, scrollTop maps linearly
// onto the "virtual" offset total · ROW_H so that the first and last rows stay reachable.

function geometry() {
  const vh = ui.tree.clientHeight;
  const content = S.total * ROW_H;
  const height = Math.min(content, MAX_SCROLL_H);
  const scaled = content > height && height > vh;
  return { vh, content, height, scaled };
}

function virtualTop(g = geometry()) {
  const st = ui.tree.scrollTop;
  return g.scaled ? st * (g.content - g.vh) / (g.height - g.vh) : st;
}

function setVirtualTop(v) {
  const g = geometry();
  sizeSpacer(g);
  v = clamp(v, 0, Math.max(0, g.content - g.vh));
  ui.tree.scrollTop = g.scaled ? v * (g.height - g.vh) / (g.content - g.vh) : v;
}

function sizeSpacer(g) {
  if (ui.spacer._h === g.height) return;
  ui.spacer._h = g.height;
  ui.spacer.style.height = g.height + "px";
  ui.layer.style.height = g.height + "px";
}

function visibleRange() {
  const g = geometry(), vt = virtualTop(g);
  return [Math.floor(vt / ROW_H), Math.min(S.total, Math.ceil((vt + g.vh) / ROW_H))];
}

/** Scrolls as little as needed to show row i whole. */
function scrollToRow(i) {
  const g = geometry(), vt = virtualTop(g), top = i * ROW_H;
  if (top < vt) setVirtualTop(top);
  else if (top + ROW_H > vt + g.vh) setVirtualTop(top + ROW_H - g.vh);
}

// ---------------------------------------------------------------- rendering

function scheduleRender() {
  if (S.renderQueued) return;
  S.renderQueued = true;
  requestAnimationFrame(render);
}

function makeRow() {
  const el = document.createElement("div");
  el.className = "row";
  return el;
}

function titleElement(row) {
  const span = document.createElement("span");
  span.className = "title";
  const t = String(row.title);
  const ranges = Array.isArray(row.matchRanges) ? row.matchRanges.slice().sort((a, b) => a[0] - b[0]) : [];
  let pos = 0;
  for (const [start, length] of ranges) {
    if (start < pos || length <= 0) continue;
    if (start > pos) span.append(t.slice(pos, start));
    const mark = document.createElement("mark");
    mark.textContent = t.slice(start, start + length);
    span.append(mark);
    pos = start + length;
  }
  if (pos < t.length) span.append(t.slice(pos));
  span.title = t;
  return span;
}

function paint(el, row, i) {
  el._row = row;
  el._i = i;
  el._focused = undefined;  // className is rewritten below
  el.id = "row-" + i;
  el.dataset.index = i;
  if (!row) {
    el.className = "row loading";
    el.setAttribute("role", "none");
    el.removeAttribute("aria-level");
    el.removeAttribute("aria-expanded");
    el.removeAttribute("aria-posinset");
    el.removeAttribute("aria-setsize");
    el.removeAttribute("aria-checked");
    delete el.dataset.id;
    el.draggable = false;
    el.style.paddingLeft = "";
    el.style.backgroundSize = "";
    el.replaceChildren();
    return;
  }
  el.className = S.filter && !row.match ? "row context" : "row";
  if (S.cut && String(S.cut.id) === String(row.id)) el.classList.add("cut");
  if (row.selected) el.classList.add("selected");
  // The tri-state checkbox: selected, not, or (a folder) partly selected inside.
  el.setAttribute("aria-checked", row.partial ? "mixed" : row.selected ? "true" : "false");
  el.setAttribute("role", "treeitem");
  el.setAttribute("aria-level", String(row.level + 1));
  el.dataset.id = String(row.id);
  // The row's place among its parent's children (hidden siblings of a filtered view count).
  if (row.position != null) {
    el.setAttribute("aria-posinset", String(row.position + 1));
    el.setAttribute("aria-setsize", String(row.siblingCount));
  } else {
    el.removeAttribute("aria-posinset");
    el.removeAttribute("aria-setsize");
  }
  el.draggable = canEdit();
  if (row.hasChildren) el.setAttribute("aria-expanded", row.expanded ? "true" : "false");
  else el.removeAttribute("aria-expanded");
  el.style.paddingLeft = indent(row.level) + "px";
  el.style.backgroundSize = INDENT * row.level + "px 100%";  // one indent guide per ancestor
  let lead;
  if (row.hasChildren) {
    lead = document.createElement("button");
    lead.type = "button";
    lead.className = "disc";
    lead.tabIndex = -1;
    lead.setAttribute("aria-hidden", "true");
    lead.title = row.expanded ? "Collapse (shift: with descendants)" : "Expand (shift: with descendants)";
  } else {
    lead = document.createElement("span");
    lead.className = "no-disc";
  }
  const check = document.createElement("input");
  check.type = "checkbox";
  check.className = "check";
  check.tabIndex = -1;
  check.setAttribute("aria-hidden", "true");
  check.checked = row.selected === true;
  check.indeterminate = row.partial === true;
  check.title = row.hasChildren ? "Select with everything inside (shift: the rows from the last one checked)" : "Select (shift: the rows from the last one checked)";
  el.replaceChildren(lead, check, icon(row.hasChildren ? (row.expanded ? "folder-open" : "folder") : "file"), titleElement(row));
  // A collapsed folder of a filtered view says how many matches it hides.
  if (S.filter && row.hasChildren && !row.expanded && row.matchesBelow > 0) {
    const badge = document.createElement("span");
    badge.className = "badge";
    badge.textContent = `${fmt(row.matchesBelow)} ${row.matchesBelow === 1 ? "match" : "matches"}`;
    badge.title = badge.textContent + " inside (collapsed)";
    el.append(badge);
  }
  if (S.columns.length && row.hasChildren && row.aggregates) {
    const inside = document.createElement("span");
    inside.className = "inside";
    inside.textContent = `${fmt(row.aggregates.count)} ${row.aggregates.count === 1 ? "item" : "items"}`;
    inside.title = "Items inside, at every depth";
    el.append(inside);
  }
  if (S.columns.length) el.append(...cells(row));
}

function render() {
  S.renderQueued = false;
  const g = geometry();
  sizeSpacer(g);
  const st = ui.tree.scrollTop, vt = virtualTop(g), shift = st - vt;
  const first = Math.max(0, Math.floor(vt / ROW_H) - OVERSCAN);
  const last = Math.min(S.total, Math.ceil((vt + g.vh) / ROW_H) + OVERSCAN);
  let lowest = Infinity;
  for (const [i, el] of S.els) {
    if (i < first || i >= last) { el.remove(); S.els.delete(i); S.pool.push(el); }
    else if (i < lowest) lowest = i;
  }
  const anchor = S.els.get(lowest) || null;
  for (let i = first; i < last; i++) {
    let el = S.els.get(i);
    if (!el) {
      el = S.pool.pop() || makeRow();
      el._row = undefined; el._top = undefined; el._focused = undefined;
      S.els.set(i, el);
      if (anchor && i < lowest) ui.layer.insertBefore(el, anchor); else ui.layer.appendChild(el);
    }
    const row = cached(i) || null;
    if (el._row !== row || el._i !== i) paint(el, row, i);
    const top = Math.round(i * ROW_H + shift);
    if (el._top !== top) { el._top = top; el.style.transform = "translateY(" + top + "px)"; }
    const focused = i === S.focus;
    if (el._focused !== focused) { el._focused = focused; el.classList.toggle("focused", focused); }
  }
  if (S.edit) {
    const row = cached(S.edit.index);
    const level = row ? row.level : S.edit.level;
    editor.style.transform = "translateY(" + Math.round(S.edit.index * ROW_H + shift) + "px)";
    editor.style.left = indent(level) + TITLE_START + "px";  // over the title: after the disclosure, the checkbox and the icon
  }
  const active = S.els.get(S.focus);
  if (active && active._row && !S.edit) ui.tree.setAttribute("aria-activedescendant", active.id);
  else ui.tree.removeAttribute("aria-activedescendant");
  showState(S.gone || (!S.sid ? { kind: "start" } : S.ready && S.total === 0 ? { kind: S.filter ? "no-match" : "empty" } : null));
  showDetails(focusedRow());
  updateBusy();
}

function updateBusy() {
  const busy = (!S.ready && S.sid != null && !S.gone) || S.mutating > 0 || S.loading;
  ui.tree.setAttribute("aria-busy", busy ? "true" : "false");
}

const matches = (n) => `${fmt(n)} ${n === 1 ? "match" : "matches"}`;

function updateCounts() {
  ui.prevMatch.disabled = ui.nextMatch.disabled = !S.ready || !(S.filter || S.highlight);
  updateSelection();
  noteSort();
  if (!S.ready) { ui.counts.textContent = ""; return; }
  const rows = `${fmt(S.total)} ${S.total === 1 ? "row" : "rows"}`;
  ui.counts.textContent = S.filter ? `${matches(S.cache.matchCount ?? 0)} · ${rows}`
    : (S.highlight && S.highlightCount != null ? `${matches(S.highlightCount)} · ` : "") + `${rows} of ${fmt(S.nodeCount)} nodes`;
  ui.view.textContent = S.sid ? `v${S.version}` : "";
  ui.view.title = S.vid ? `The version of this tab's view (${S.vid}): it steps with every edit of the tree and every change of this view` : "";
}

/** "N selected" and what acts on the selection, shown while the view selects something. */
function updateSelection() {
  const n = S.ready && S.cache ? S.cache.selectedCount : 0;
  ui.selectionBar.hidden = n === 0;
  ui.deleteSelected.hidden = ui.moveSelected.hidden = !canEdit();
  ui.selectedCount.textContent = `${fmt(n)} selected`;
  ui.selectAll.lastChild.textContent = S.filter ? "Select all matches" : "Select all";
  ui.invertSelection.lastChild.textContent = S.filter ? "Invert among matches" : "Invert selection";
}

// ---------------------------------------------------------------- states and details

/** What the tree area shows instead of rows (`S.gone`, or derived in `render`), with what to do next. */
function stateView(st) {
  // A token of one session loads no tree; a reader's adds no item.
  const startOver = canUpload() ? [["Start a new session", () => loadSample("outline"), true], ["Open a file or another sample…", openLoader]] : [];
  switch (st.kind) {
    case "start": return { icon: "logo", title: "No tree open yet",
      text: "Load the outline sample (38 nodes), a generated tree of 88,572 or 797,160 nodes, or a file of your own (JSON, CSV, NDJSON, a path list): drop it on this page.",
      actions: [["Load the outline sample", () => loadSample("outline"), true], ["Open…", openLoader]] };
    case "denied": return { icon: "expired", error: true,
      title: st.why === "none" ? "This server needs an access token" : st.why === "expired" ? "The access token has expired" : "The access token was refused",
      text: (st.why === "none" ? "Open the link you were given, with its token (/?session=…&token=…): the page keeps the token in this tab only. "
        : st.why === "expired" ? `The token this page was opened with expired at ${new Date(S.access.expires).toLocaleTimeString("en-US")}. `
        : `The server says: ${st.detail}. `) + "Ask for a new link and open it.",
      actions: st.sid ? [["Try again", () => attach(st.sid), true]] : [] };
    case "gone": return { icon: "expired", error: true, title: "This session has expired — start a new one",
      text: `Session “${st.sid}” is not on the server any more: a session ends after a time without use, or when it is deleted.`, actions: startOver };
    case "deleted": return { icon: "expired", error: true, title: "This session was deleted — start a new one",
      text: `Session “${st.sid}” was deleted by another client.`, actions: startOver };
    case "error": return { icon: "expired", error: true, title: "The session could not be opened",
      text: `Session “${st.sid}”: ${st.detail}`, actions: [["Try again", () => attach(st.sid), true], ...startOver] };
    case "empty": return { icon: "empty", title: "The tree is empty",
      text: "Every item was deleted, or the tree had none.", actions: canEdit() ? [["Add an item", newSibling, true]] : [] };
    default: return { icon: "no-match", title: `No title matches “${S.filter}”`,
      text: "Try fewer letters, another match mode, or leave the filter empty to see the whole tree.", actions: [["Clear the filter", clearFilter, true]] };
  }
}

/** Shows the state `st` over the tree area (null: the rows). */
function showState(st) {
  const key = st ? JSON.stringify([st.kind, st.sid, st.detail, st.kind === "no-match" ? S.filter : ""]) : "";
  if (key === S.shownState) return;
  S.shownState = key;
  ui.state.hidden = !st;
  if (!st) return;
  const view = stateView(st);
  ui.state.dataset.kind = view.error ? "error" : "info";
  ui.stateIcon.className = "i i-" + view.icon;
  ui.stateTitle.textContent = view.title;
  ui.stateText.textContent = view.text;
  ui.stateActions.replaceChildren(...view.actions.map(([label, run, primary]) => {
    const button = document.createElement("button");
    button.type = "button";
    if (primary) button.className = "primary";
    button.textContent = label;
    button.addEventListener("click", () => run());
    return button;
  }));
}

/** A node's `data`: a table when it is an object of plain values, else its JSON. */
function dataView(data) {
  const plain = (v) => v === null || typeof v !== "object";
  if (data && typeof data === "object" && !Array.isArray(data) && Object.values(data).every(plain)) {
    const table = document.createElement("table");
    for (const [key, value] of Object.entries(data)) {
      const tr = table.insertRow(), th = document.createElement("th");
      th.textContent = key;
      tr.append(th);
      tr.insertCell().textContent = typeof value === "string" ? value : JSON.stringify(value);
    }
    return table;
  }
  const pre = document.createElement("pre");
  const text = JSON.stringify(data, null, 2);
  pre.textContent = text.length > 20000 ? text.slice(0, 20000) + "\n…" : text;
  return pre;
}

const muted = (text) => { const span = document.createElement("span"); span.className = "none"; span.textContent = text; return span; };

/** The details pane: the focused row's title, id, place and `data`; the edit buttons it enables. */
function showDetails(row) {
  for (const button of ui.editBar.querySelectorAll("button")) {
    button.disabled = !S.ready || (!row && !(button.dataset.action === "new-sibling" && S.total === 0));
  }
  if (row === S.shownDetails) return;
  S.shownDetails = row;
  if (!row) {
    ui.detailsTitle.replaceChildren(muted(S.ready ? "No row is focused" : "No tree open"));
    for (const dd of [ui.detailsId, ui.detailsPlace, ui.detailsData]) dd.replaceChildren();
    return;
  }
  ui.detailsTitle.textContent = String(row.title);
  const code = document.createElement("code");
  code.textContent = idText(row.id);
  ui.detailsId.replaceChildren(code);
  const place = [`level ${row.level + 1}`];
  if (row.position != null) place.push(`${fmt(row.position + 1)} of ${fmt(row.siblingCount)} siblings`);
  place.push(row.hasChildren ? (row.expanded ? "expanded" : "collapsed") : "no children");
  ui.detailsPlace.textContent = place.join(" · ");
  ui.detailsData.replaceChildren("data" in row ? dataView(row.data) : muted("none"));
}

/** A notice that stays in view for a while (conflicts, refused edits): `role="alert"`. */
function showNotice(text) {
  clearTimeout(S.noticeTimer);
  ui.notice.textContent = text;
  ui.notice.hidden = false;
  S.noticeTimer = setTimeout(() => { ui.notice.hidden = true; ui.notice.textContent = ""; }, 8000);
}

/** The live indicator: "live" while the event stream is open, else "connecting" or "offline". */
function setLive(state, detail) {
  ui.live.dataset.state = state;
  ui.live.textContent = state === "live" ? "● live" : state === "connecting" ? "○ connecting…" : "○ offline";
  ui.live.title = detail || (state === "live"
    ? "Changes made in other tabs or by other clients show up at once (server-sent events)"
    : "Not receiving changes as they happen: the page looks for them every few seconds");
}

// ---------------------------------------------------------------- the rows (the client's TreeRows)

/** Row i as the cache holds it (maybe stale: shown until fetched again), or undefined. */
const cached = (i) => (S.cache && i >= 0 ? S.cache.row(i) : undefined);

/** Where row i of the old list is after the splices; `fallback` when it was removed. */
function mapIndex(i, changes, fallback) {
  if (i < 0) return i;
  for (const c of changes) {
    if (i < c.index) continue;
    if (i >= c.index + c.removed) i += c.inserted - c.removed;
    else return fallback ?? Math.max(0, c.index - 1);
  }
  return i;
}

/**
 * What the cache tells (`TreeRows.onChange`): splices (of this page's change, or of another
 * client's through the event stream) move the focus, the Shift-click anchor and the rename
 * input with their rows; a reset keeps the place scrolled to; `end`: the session or the view
 * is gone, or the stream was refused.
 */
function cacheChanged(change) {
  const top = virtualTop();
  if (change.kind === "end") {
    const e = change.error || new Error(change.reason);
    if (statusOf(e) === 401) return;  // `denied` says so
    if (change.reason === "deleted" || change.reason === "expired" || statusOf(e) === 404) {
      viewGone(e, change.reason === "deleted" ? "deleted" : "gone");
      return;
    }
    setLive("offline", "The event stream was refused: " + why(e));
    const cache = S.cache;
    clearTimeout(S.resubscribeTimer);
    S.resubscribeTimer = setTimeout(() => { if (S.cache === cache && S.ready) cache.subscribe(); }, RESUBSCRIBE_MS);
    return;
  }
  S.total = change.total;
  S.version = change.version;
  if (change.kind === "splices") {
    const changes = change.changes;
    S.focus = mapIndex(S.focus, changes);
    if (S.anchor) S.anchor.index = mapIndex(S.anchor.index, changes, -1);
    if (S.anchor && S.anchor.index < 0) S.anchor = null;
    if (S.edit) {
      const moved = mapIndex(S.edit.index, changes, -1);
      if (moved < 0) { finishEdit(false); showNotice("The item being renamed was removed elsewhere."); } else S.edit.index = moved;
    }
    if (S.highlight && (changes.length || change.reload.length)) countHighlights();  // an edit may add or remove matches
  } else {
    S.anchor = null;
  }
  S.focus = S.total === 0 ? -1 : clamp(S.focus, 0, S.total - 1);
  setVirtualTop(top);  // past the height cap the same scrollTop would mean another row
  updateCounts();
  scheduleRender();
  ensureRows();
}

/**
 * Has the cache fetch the rows near the viewport that it does not hold (or holds stale): the
 * visible ones first, then PREFETCH more above and below. One fetch at a time; a scroll
 * meanwhile asks again once it is done.
 */
function ensureRows() {
  const cache = S.cache;
  if (!S.ready || !cache) return;
  if (S.loading) { S.loadAgain = true; return; }
  if (performance.now() < S.retryAt) {
    if (!S.retryTimer) S.retryTimer = setTimeout(() => { S.retryTimer = 0; ensureRows(); }, S.retryAt - performance.now() + 5);
    return;
  }
  const [vf, vl] = visibleRange();
  const from = Math.max(0, vf - 1), to = Math.min(S.total, vl + 1);
  S.loading = true;
  updateBusy();
  (async () => {
    try {
      await cache.rows(from, Math.max(to, from + 1));
      if (S.cache !== cache) return;
      scheduleRender();
      await cache.rows(Math.max(0, vf - PREFETCH), Math.min(S.total, vl + PREFETCH));
    } catch (e) {
      if (S.cache !== cache || !S.ready) return;
      if (statusOf(e) === 404) { viewGone(e); return; }
      if (statusOf(e) !== 401) showMessage(`Could not load rows ${fmt(from)}–${fmt(Math.max(from, to - 1))}: ${why(e)}`, true);
      S.retryAt = performance.now() + 2000;
      S.loadAgain = true;
    } finally {
      if (S.cache === cache) {
        S.loading = false;
        updateCounts();  // the pages' counts, sort and selection
        scheduleRender();
        if (S.loadAgain) { S.loadAgain = false; ensureRows(); }
        updateBusy();
      }
    }
  })();
}

/** The session is gone (404, or the event stream's `end`): `kind` "gone" or "deleted" says why, over the tree. */
function lost(e, kind = "gone") {
  S.ready = false;
  S.gone = { kind, sid: S.sid };
  unsubscribe("offline", "The session is gone");
  finishEdit(false);
  showMessage(`Session ${S.sid} is gone (${why(e)}). Load a sample to start a new one.`, true);
  scheduleRender();
}

// ---------------------------------------------------------------- changes

/**
 * One change of this tab's view or of the tree: `send(rows)` sends it through the cache (which
 * sends its changes one at a time, in the order asked, and applies each one's splices; see
 * `cacheChanged`). The answer is then taken: with `opts.focusItem`, the item's row after it
 * (`opts.target(res)`, default `res.index`) is focused. A 412 (the view changed first: only
 * edits computed from the rows shown are sent with `If-Match`) has the cache fetch the rows
 * again, and a notice says so; a 404 may mean that the view or the session is gone.
 */
async function change(what, send, opts = {}) {
  const cache = S.cache;
  if (!S.ready || !cache) return null;
  S.mutating++;
  updateBusy();
  try {
    const res = await send(cache);
    if (res && S.cache === cache && opts.focusItem) {
      const target = opts.target ? opts.target(res) : res.index;
      if (target != null && S.total > 0) {
        S.focus = clamp(target, 0, S.total - 1);
        if (opts.keepFocusVisible) scrollToRow(S.focus);
      }
    }
    return res;
  } catch (e) {
    if (S.cache !== cache) return null;
    const status = statusOf(e);
    if (status === 412) { showNotice("Changed elsewhere; reloaded, try again."); return null; }
    if (status === 401) return null;  // `denied` says so
    if (opts.edit) showNotice(`${what} failed: ${why(e)}`);
    else if (status !== 404 || opts.item) showMessage(`${what} failed: ${why(e)}`, true);
    if (status === 404) viewGone(e);  // the item (gone elsewhere), this tab's view, or the session
    return null;
  } finally {
    S.mutating--;
    updateBusy();
    scheduleRender();
    ensureRows();
  }
}

// ---------------------------------------------------------------- the event stream
// The cache follows the view's event stream (`TreeRows.subscribe`): SSE over `fetch`, with the
// page's token as a header, resumed with `Last-Event-ID`; its state is the live indicator.

/** Stops following the view's event stream, if any. */
function unsubscribe(state, detail) {
  clearTimeout(S.resubscribeTimer);
  S.resubscribeTimer = 0;
  if (S.cache) S.cache.unsubscribe();
  setLive(state || "offline", detail);
}

/** The live indicator follows the stream: open, reconnecting, or stopped. */
function streamChanged(state, error) {
  if (state === "open") setLive("live");
  else if (state === "connecting") setLive("connecting", error ? "Reconnecting: " + why(error) : undefined);
  else setLive("offline");
}

function toggle(i, expanded, recursive) {
  const row = cached(i);
  if (!row || !row.hasChildren) return;
  const want = expanded ?? !row.expanded;
  change(want ? "Expand" : "Collapse", (rows) => want ? rows.expand(row.id, !!recursive) : rows.collapse(row.id, !!recursive),
    { item: !recursive, focusItem: i === S.focus, keepFocusVisible: true });
}

/** A change of the whole view (expand all, collapse all, to a depth, the selection): `send(rows)`. */
function viewWide(what, send) {
  change(what, send);
}

// ---------------------------------------------------------------- selection
// This tab's view has a selection of its own on the server: a checkbox selects an item with
// everything inside it (children loaded later too); rows come back with `selected`, `partial`
// and `selectedBelow`, and pages with `selectedCount`.

/** Flips row i's checkbox: a partly selected folder becomes selected; the row is the anchor of Shift ranges. */
function checkRow(i) {
  const row = cached(i);
  if (!row || !S.ready) return;
  const want = row.partial === true || row.selected !== true;
  S.anchor = { index: i, selected: want };
  change("Select", (rows) => want ? rows.select(row.id) : rows.deselect(row.id));
}

/**
 * Shift-click: gives the rows from the anchor to row i the anchor's state (with what collapsed
 * rows hold). Row numbers name the rows the page holds: `If-Match` refuses them once the view changed.
 */
function checkRange(i) {
  if (!S.anchor || S.anchor.index >= S.total) { checkRow(i); return; }
  const from = Math.min(S.anchor.index, i), count = Math.abs(S.anchor.index - i) + 1, selected = S.anchor.selected;
  change("Select the rows", (rows) => rows.selectRows(from, count, selected), { edit: true });
}

function selectWhole(what, send) {
  closeMenus();
  S.anchor = null;
  viewWide(what, send);
}

/** Deletes the selected items (each with everything inside it) after asking. */
function deleteSelected() {
  const n = S.cache ? S.cache.selectedCount : 0;
  if (!n || readOnly("Delete selected")) return;
  confirmDelete("Delete the selection?", `${fmt(n)} selected ${n === 1 ? "item" : "items"} will be deleted, each with everything inside it.`,
    () => edit("Delete selected", (rows) => rows.batch([{ op: "deleteSelected" }]), { focusItem: false }));
}

/** Moves the selected items into the focused row, after its children, and expands it. */
function moveSelectedHere() {
  if (!S.cache || !S.cache.selectedCount) return;
  editDue("Move selected", async (now) => {
    const row = await dueRow("Move selected");
    if (!row) return null;
    if (row.selected) { showNotice("Move selected: the focused row is selected; focus the row to move them into."); return null; }
    return now.batch([{ op: "moveSelected", parentId: row.id }, { op: "expand", id: row.id, expanded: true }]);
  }, { target: (res) => res.results[1].index });
}

// ---------------------------------------------------------------- focus and keys

function setFocus(i) {
  if (S.total === 0) return;
  S.focus = clamp(i, 0, S.total - 1);
  scrollToRow(S.focus);
  scheduleRender();
  ensureRows();
}

async function focusParent(i) {
  const row = cached(i);
  if (!row || row.parentId == null) return;
  for (let j = i - 1; j >= 0 && i - j <= 2000; j--) {
    const r = cached(j);
    if (!r) break;
    if (r.level < row.level) { setFocus(j); return; }
  }
  const cache = S.cache;
  try {
    const info = await itemInfo(row.parentId);
    if (cache === S.cache && info.index != null) setFocus(info.index);
  } catch (e) {
    showMessage("Could not find the parent: " + why(e), true);
  }
}

/** The item's place in this tab's rows (`GET …/items/{id}`: its `index`, null when hidden, and its `path` of ids). */
async function itemInfo(id) {
  return (await API.getViewItem(S.sid, S.vid, id, namedQuery())).value;
}

function pageRows() { return Math.max(1, Math.floor(ui.tree.clientHeight / ROW_H) - 1); }

// ---------------------------------------------------------------- editing
// Every edit goes through the cache, with If-Match (see `change`); the item's row after it is
// focused. Moves name the new parent and the index among its children, counted once the item
// has left its old place (rows carry `position` and `siblingCount`: the cache asks with
// positions=true, and fetches its rows again after every edit, since places may have moved).

const idText = (id) => String(id);
const sameId = (a, b) => a != null && b != null && idText(a) === idText(b);
const focusedRow = () => cached(S.focus) || null;

function needRow(what) {
  const row = focusedRow();
  if (!S.ready) return null;
  if (!row) { showNotice(S.total ? `${what}: the focused row is still loading.` : `${what}: no row is focused.`); return null; }
  return row;
}

/** One edit, `send(rows)`; the item's row focused after it (none on a read-only page). */
function edit(what, send, opts = {}) {
  if (readOnly(what)) return Promise.resolve(null);
  return change(what, send, Object.assign({ edit: true, focusItem: true, keepFocusVisible: true }, opts));
}

/**
 * An edit computed from the rows (positions, the focused row): `make(now)` runs when its turn
 * among the cache's changes comes, after the changes before it are applied (`TreeRows.serially`),
 * and sends the edit through `now`, or answers null to send nothing. So Alt+Up pressed twice
 * moves twice.
 */
function editDue(what, make, opts = {}) {
  return edit(what, (rows) => rows.serially(make), Object.assign({ target: (res) => res.index ?? (res.results && res.results[0].index) }, opts));
}

/** Moves item `id` under `parentId` at `index` (undefined: at the end) through `now`; `expand`: that parent is expanded too. */
function moveNow(now, id, parentId, index, expand) {
  if (expand) {
    const op = { op: "move", id, parentId };
    if (index !== undefined) op.index = index;
    return now.batch([op, { op: "expand", id: parentId, expanded: true }]);
  }
  return now.move(id, parentId, index);
}

/** The focused row when an edit's turn comes (fetched when it is not held, or stale). */
async function dueRow(what) {
  const row = S.focus >= 0 ? await rowAt(S.focus) : null;
  if (!row) showNotice(`${what}: no row is focused.`);
  return row;
}

// ---- rename, inline

const editor = document.createElement("input");
editor.id = "editor";
editor.type = "text";
editor.hidden = true;
editor.spellcheck = false;
editor.autocomplete = "off";
editor.setAttribute("aria-label", "Title");
ui.layer.appendChild(editor);

/** Shows the inline title input over row i (`id`, `title`, `level`: the row's, when it is not loaded yet). */
function startRename(i, known) {
  const row = cached(i);
  const item = known || (row && { id: row.id, title: row.title, level: row.level });
  if (!item || !S.ready || readOnly("Rename")) return;
  finishEdit(false);
  S.focus = i;
  S.edit = { index: i, id: item.id, original: String(item.title), level: item.level, isNew: !!(known && known.isNew) };
  editor.value = String(item.title);
  editor.hidden = false;
  scrollToRow(i);
  render();
  editor.focus({ preventScroll: true });
  editor.select();
}

/** Hides the inline input; `commit`: sends the new title when it changed. */
function finishEdit(commit) {
  const ed = S.edit;
  if (!ed) return;
  S.edit = null;
  const title = editor.value;
  const hadFocus = document.activeElement === editor;
  editor.hidden = true;
  if (hadFocus) ui.tree.focus({ preventScroll: true });
  scheduleRender();
  if (commit && title !== ed.original) {
    if (!title.trim()) { showNotice("A title cannot be empty: the rename was not sent."); return; }
    edit("Rename", (rows) => rows.update(ed.id, { title }));
  }
}

editor.addEventListener("keydown", (e) => {
  e.stopPropagation();  // the tree's keys do not apply while typing
  if (e.key === "Enter") { e.preventDefault(); finishEdit(true); }
  else if (e.key === "Escape") { e.preventDefault(); finishEdit(false); }
});
editor.addEventListener("blur", () => finishEdit(true));
for (const type of ["mousedown", "click", "dblclick"]) editor.addEventListener(type, (e) => e.stopPropagation());

function renameFocused() {
  const row = needRow("Rename");
  if (row) startRename(S.focus, null);
}

// ---- insert

/** After an insert: the new item's title is edited in place (when the view shows it). */
function renameInserted(res, index, level) {
  if (!res) return;
  if (index == null) { showNotice("The new item is not shown in this view (the filter hides it)."); return; }
  startRename(index, { id: res.ids ? res.ids[0] : res.results[0].ids[0], title: NEW_TITLE, level, isNew: true });
}

async function newSibling() {
  let level = 0;
  const res = await editDue("New sibling", async (now) => {
    if (S.total === 0) return now.insert([{ title: NEW_TITLE }]);
    const row = await dueRow("New sibling");
    if (!row) return null;
    level = row.level;
    return now.insert([{ title: NEW_TITLE }], { after: row.id });
  });
  if (res) renameInserted(res, res.index, level);
}

async function newChild() {
  let level = 0;
  const res = await editDue("New child", async (now) => {
    const row = await dueRow("New child");
    if (!row) return null;
    level = row.level + 1;
    return now.batch([
      { op: "insert", nodes: [{ title: NEW_TITLE }], parentId: row.id, index: 0 },
      { op: "expand", id: row.id, expanded: true },
    ]);
  });
  if (res) renameInserted(res, res.results[0].index, level);
}

// ---- delete, with a confirmation for a subtree

function deleteFocused() {
  if (readOnly("Delete")) return;
  const row = needRow("Delete");
  if (!row) return;
  const remove = () => edit("Delete", (rows) => rows.delete(row.id), { focusItem: false });
  if (!row.hasChildren) { remove(); return; }
  confirmDelete("Delete a subtree?", `“${row.title}” has children. Delete it with everything inside it?`, remove);
}

/** Asks before a delete of more than one item; `remove` runs when the answer is Delete. */
function confirmDelete(title, text, remove) {
  ui.confirmTitle.textContent = title;
  ui.confirmText.textContent = text;
  ui.confirm.returnValue = "";
  ui.confirm.onclose = () => {
    ui.confirm.onclose = null;
    ui.tree.focus({ preventScroll: true });
    if (ui.confirm.returnValue === "delete") remove();
  };
  ui.confirm.showModal();  // Cancel has `autofocus`: Enter never deletes a subtree
}

// ---- move

/** The row at index j as the server has it now (fetched when it is not held, or stale). */
async function rowAt(j) {
  const [row] = await S.cache.rows(j, j + 1);
  return row || null;
}

/** The row of item `id` in the view, with its position (fetched when it is not held), or null. */
async function rowOf(id) {
  const info = await itemInfo(id);
  if (info.index == null) return null;
  const row = await rowAt(info.index);
  return row && sameId(row.id, id) ? row : null;
}

/** The previous sibling of the row at i that the view shows, or null. */
async function previousSibling(i, row) {
  if (i <= 0) return null;
  const above = await rowAt(i - 1);
  if (!above || above.level < row.level) return null;
  if (above.level === row.level) return sameId(above.parentId, row.parentId) ? above : null;
  // The row above is inside the previous sibling's subtree: its ancestor at this row's level.
  const info = await itemInfo(above.id);
  const id = info.path[row.level];
  if (id == null) return null;
  const sibling = await rowOf(id);
  return sibling && sameId(sibling.parentId, row.parentId) ? sibling : null;
}

/** Alt+Up / Alt+Down: one place among the siblings. */
function moveAmongSiblings(delta) {
  const what = delta < 0 ? "Move up" : "Move down";
  editDue(what, async (now) => {
    const row = await dueRow(what);
    if (!row) return null;
    const to = row.position + delta;
    if (to < 0 || to >= row.siblingCount) {
      showNotice(delta < 0 ? "Already the first of its siblings." : "Already the last of its siblings.");
      return null;
    }
    return moveNow(now, row.id, row.parentId, to);
  });
}

/** Alt+Left: out of its parent, right after it. */
function outdent() {
  editDue("Outdent", async (now) => {
    const row = await dueRow("Outdent");
    if (!row) return null;
    if (row.parentId == null) { showNotice("A root cannot move further out."); return null; }
    const parent = await rowOf(row.parentId);
    if (!parent) { showNotice("Outdent: the parent is not shown in this view."); return null; }
    return moveNow(now, row.id, parent.parentId, parent.position + 1);
  });
}

/** Alt+Right: into its previous sibling, as the last child (the new parent is expanded). */
function indentItem() {
  editDue("Indent", async (now) => {
    const row = await dueRow("Indent");
    if (!row) return null;
    if (row.position === 0) { showNotice("Indent: there is no previous sibling to move into."); return null; }
    const sibling = await previousSibling(S.focus, row);
    if (!sibling) { showNotice("Indent: the previous sibling is not shown in this view."); return null; }
    return moveNow(now, row.id, sibling.id, undefined, true);
  });
}

/** Ctrl+X marks the focused row; Ctrl+V moves it into the focused row, as its last child. */
function cutFocused() {
  if (readOnly("Cut")) return;
  const row = needRow("Cut");
  if (!row) return;
  S.cut = { id: row.id, title: row.title };
  for (const el of S.els.values()) el._row = undefined;  // repaint the marks
  scheduleRender();
  showMessage(`Cut “${row.title}”: focus the new parent and press Ctrl+V (Escape cancels).`);
}

function clearCut() {
  if (!S.cut) return false;
  S.cut = null;
  for (const el of S.els.values()) el._row = undefined;
  scheduleRender();
  return true;
}

function pasteInto() {
  if (readOnly("Paste")) return;
  if (!S.cut) { showNotice("Paste: cut a row first (Ctrl+X)."); return; }
  const cut = S.cut;
  clearCut();
  editDue("Paste", async (now) => {
    const row = await dueRow("Paste");
    if (!row || sameId(cut.id, row.id)) return null;
    return moveNow(now, cut.id, row.id, undefined, true);
  });
}

/** Drag and drop: `zone` is "before", "after" or "into" the target row. */
function dropOn(draggedId, targetId, zone) {
  if (sameId(draggedId, targetId)) return;
  editDue("Move", async (now) => {
    if (zone === "into") return moveNow(now, draggedId, targetId, undefined, true);
    const target = await rowOf(targetId), dragged = await rowOf(draggedId);
    if (!target) return null;
    const sameParent = dragged && (sameId(dragged.parentId, target.parentId) || (dragged.parentId == null && target.parentId == null));
    const shift = sameParent && dragged.position < target.position ? 1 : 0;
    return moveNow(now, draggedId, target.parentId, target.position + (zone === "after" ? 1 : 0) - shift);
  });
}

// ---------------------------------------------------------------- keys and pointer

ui.prevMatch.addEventListener("click", () => goToMatch(false));
ui.nextMatch.addEventListener("click", () => goToMatch(true));
document.addEventListener("keydown", (e) => {
  if (e.key !== "F3") return;
  e.preventDefault();
  goToMatch(!e.shiftKey);
});

ui.tree.addEventListener("keydown", (e) => {
  if (!S.ready || e.metaKey) return;
  const f = S.focus < 0 ? 0 : S.focus;
  const row = cached(f);
  if (e.altKey && !e.ctrlKey) {
    switch (e.key) {
      case "ArrowUp": moveAmongSiblings(-1); break;
      case "ArrowDown": moveAmongSiblings(1); break;
      case "ArrowLeft": outdent(); break;
      case "ArrowRight": indentItem(); break;
      default: return;
    }
    e.preventDefault();
    return;
  }
  if (e.ctrlKey && !e.altKey) {
    switch (e.key.toLowerCase()) {
      case "x": cutFocused(); break;
      case "v": pasteInto(); break;
      case "enter": if (e.shiftKey) newChild(); else newSibling(); break;
      default: return;
    }
    e.preventDefault();
    return;
  }
  if (e.altKey || e.ctrlKey) return;
  switch (e.key) {
    case "F2": renameFocused(); break;
    case "Insert": if (e.shiftKey) newChild(); else newSibling(); break;
    case "Delete": deleteFocused(); break;
    case "Escape": if (!clearCut()) return; showMessage("Cut cancelled."); break;
    default:
      if (S.total === 0) return;
      switch (e.key) {
        case "ArrowDown": setFocus(S.focus < 0 ? 0 : f + 1); break;
        case "ArrowUp": setFocus(f - 1); break;
        case "PageDown": setFocus(f + pageRows()); break;
        case "PageUp": setFocus(f - pageRows()); break;
        case "Home": setFocus(0); break;
        case "End": setFocus(S.total - 1); break;
        case "ArrowRight":
          if (row && row.hasChildren) {
            if (!row.expanded) toggle(f, true, e.shiftKey);
            else setFocus(f + 1);
          }
          break;
        case "ArrowLeft":
          if (row && row.hasChildren && row.expanded) toggle(f, false, e.shiftKey);
          else focusParent(f);
          break;
        case "Enter":
          if (row && row.hasChildren) toggle(f, undefined, e.shiftKey);
          break;
        case " ":
          // A space after other letters is type-ahead; else it checks the row (Shift: a range).
          if (typingAhead()) typeAhead(e.key);
          else if (e.shiftKey) checkRange(f);
          else checkRow(f);
          break;
        default:
          // A printable character is type-ahead.
          if (e.key.length !== 1) return;
          typeAhead(e.key);
      }
  }
  e.preventDefault();
});

const typingAhead = () => performance.now() - S.typedAt < TYPEAHEAD_MS;

/**
 * Type-ahead, as the ARIA tree pattern has it: the focus moves to the next row whose title starts
 * with the letters typed in quick succession (the same letter again: the next row starting with
 * it), around the end. Only the rows loaded (those near the viewport) are looked at.
 */
function typeAhead(ch) {
  S.typed = typingAhead() ? S.typed + ch.toLocaleLowerCase() : ch.toLocaleLowerCase();
  S.typedAt = performance.now();
  const again = [...S.typed].every((c) => c === S.typed[0]);
  const prefix = again ? S.typed[0] : S.typed;
  // A longer prefix may still fit the focused row; a first or repeated letter looks past it.
  const start = Math.max(0, again ? S.focus + 1 : S.focus);
  const held = S.cache ? S.cache.cachedRows() : [];
  const fits = (r) => String(r.title).toLocaleLowerCase().startsWith(prefix);
  const next = held.find((r) => r.index >= start && fits(r)) || held.find((r) => r.index < start && fits(r));
  if (next) setFocus(next.index);
}

ui.tree.addEventListener("click", (e) => {
  const el = e.target.closest(".row");
  if (!el) return;
  const i = Number(el.dataset.index);
  S.focus = i;
  scheduleRender();
  if (e.target.closest(".disc")) toggle(i, undefined, e.shiftKey);
  if (e.target.closest(".check")) {
    e.preventDefault();  // the row is painted from the server's answer
    if (e.shiftKey) checkRange(i); else checkRow(i);
  }
});

ui.tree.addEventListener("dblclick", (e) => {
  const el = e.target.closest(".row");
  if (el && el._row && !e.target.closest(".disc, .check")) startRename(Number(el.dataset.index), null);
});

ui.tree.addEventListener("mousedown", (e) => {
  // Keep the keyboard focus on the tree (the disclosure buttons are not tab stops). Rows are
  // not focusable, so a click on one focuses the tree; its default is kept for dragging.
  if (e.target.closest(".disc, .check")) e.preventDefault();
  if (e.target.closest(".row")) ui.tree.focus({ preventScroll: true });
});

function clearDrop() {
  if (S.dropEl) S.dropEl.classList.remove("drop-before", "drop-after", "drop-into");
  S.dropEl = null;
}

ui.tree.addEventListener("dragstart", (e) => {
  const el = e.target.closest && e.target.closest(".row");
  if (!el || !el._row || S.edit || !canEdit()) { e.preventDefault(); return; }
  const row = el._row;
  S.drag = { id: row.id };
  S.focus = Number(el.dataset.index);
  scheduleRender();
  e.dataTransfer.effectAllowed = "move";
  e.dataTransfer.setData("text/plain", String(row.title));
});

/** Where a drop at this pointer position would go: before, after or into the row under it. */
function dropZone(e) {
  const el = e.target.closest && e.target.closest(".row");
  if (!el || !el._row) return null;
  const box = el.getBoundingClientRect(), y = (e.clientY - box.top) / box.height;
  return { el, zone: y < 0.25 ? "before" : y > 0.75 ? "after" : "into" };
}

ui.tree.addEventListener("dragover", (e) => {
  if (!S.drag) return;
  const at = dropZone(e);
  if (!at) { clearDrop(); return; }
  e.preventDefault();
  e.dataTransfer.dropEffect = "move";
  if (S.dropEl !== at.el) clearDrop();
  S.dropEl = at.el;
  at.el.classList.remove("drop-before", "drop-after", "drop-into");
  at.el.classList.add("drop-" + at.zone);
});

ui.tree.addEventListener("drop", (e) => {
  const at = dropZone(e);
  clearDrop();
  if (!S.drag || !at) return;
  e.preventDefault();
  dropOn(S.drag.id, at.el._row.id, at.zone);
  S.drag = null;
});

ui.tree.addEventListener("dragend", () => { clearDrop(); S.drag = null; });
ui.tree.addEventListener("dragleave", (e) => { if (!ui.tree.contains(e.relatedTarget)) clearDrop(); });

// The toolbar acts on the focused row, then gives the keyboard focus back to the tree.
const actions = {
  rename: renameFocused, "new-sibling": newSibling, "new-child": newChild, delete: deleteFocused,
  "move-up": () => moveAmongSiblings(-1), "move-down": () => moveAmongSiblings(1), outdent, indent: indentItem,
  cut: cutFocused, paste: pasteInto,
};
ui.editBar.addEventListener("click", (e) => {
  const button = e.target.closest("button[data-action]");
  if (!button) return;
  const action = actions[button.dataset.action];
  if (button.dataset.action !== "delete" && button.dataset.action !== "rename") ui.tree.focus({ preventScroll: true });
  action();
});

// ---- the toolbar's menus (<details>): one open at a time; a click elsewhere or Escape closes
// it, so does an action in it. On narrow screens the toolbar's secondary controls are a menu too.

const menus = [...document.querySelectorAll("details.menu")];

function setBarMenu(open) {
  ui.bar.classList.toggle("menu-open", open);
  ui.menuToggle.setAttribute("aria-expanded", String(open));
}

function closeMenus() {
  for (const m of menus) m.open = false;
  setBarMenu(false);
}

/** Opens the Open menu: what to load. */
function openLoader() {
  ui.openMenu.open = true;
  ui.sample.focus();
}

for (const m of menus) m.addEventListener("toggle", () => { if (m.open) for (const other of menus) if (other !== m && !other.contains(m)) other.open = false; });
document.addEventListener("pointerdown", (e) => {
  for (const m of menus) if (m.open && !m.contains(e.target)) m.open = false;
  if (!ui.bar.contains(e.target)) setBarMenu(false);
});
document.addEventListener("keydown", (e) => {
  if (e.key !== "Escape") return;
  const open = menus.find((m) => m.open);
  if (open) { open.open = false; open.querySelector("summary").focus(); } else if (ui.bar.classList.contains("menu-open")) { setBarMenu(false); ui.menuToggle.focus(); }
});
ui.menuToggle.addEventListener("click", () => setBarMenu(!ui.bar.classList.contains("menu-open")));

/** The details pane: beside the tree on wide screens (shown at first), a sheet on narrow ones. */
function showDetailsPane(shown) {
  document.body.classList.toggle("details-shown", shown);
  ui.detailsToggle.setAttribute("aria-expanded", String(shown));
}
showDetailsPane(!NARROW.matches);
ui.detailsToggle.addEventListener("click", () => { showDetailsPane(!document.body.classList.contains("details-shown")); setBarMenu(false); });

ui.tree.addEventListener("scroll", () => { scheduleRender(); ensureRows(); }, { passive: true });
new ResizeObserver(() => { scheduleRender(); ensureRows(); }).observe(ui.tree);

// ---------------------------------------------------------------- views

/**
 * Shows this tab's view (its unfiltered rows, or its filtered rows for the search text, the
 * highlighted text's matches flagged) from scratch in a new cache, at `restore` (saved scroll
 * offset and focus) if given; makes or finds the tab's view first when it has none
 * (`ensureView`). The cache follows the view's event stream from there.
 */
async function openView(restore) {
  const turn = ++S.turn;
  unsubscribe("connecting");
  finishEdit(false);
  if (S.cache) S.cache.close();
  S.cache = null;
  S.ready = false;
  S.loading = S.loadAgain = false;
  S.total = 0;
  S.focus = -1;
  S.anchor = null;
  scheduleRender();
  updateCounts();
  if (!S.vid) {
    try {
      await ensureView();
    } catch (e) {
      if (turn !== S.turn) return;
      if (statusOf(e) === 404) lost(e); else if (statusOf(e) !== 401) showMessage("Could not make this tab's view: " + why(e), true);
      return;
    }
    if (turn !== S.turn) return;
  }
  const cache = new TreeRows(API, {
    blockSize: BLOCK, maxBlocks: MAX_BLOCKS, positions: true, aggregate: aggregateText(),
    retryConflicts: false,  // an edit computed from the rows shown is not sent again on other rows: the page says so
    onError: (e) => { if (S.cache === cache && statusOf(e) !== 401) showMessage("Could not follow the view: " + why(e), true); },
  });
  cache.onChange((c) => { if (S.cache === cache) cacheChanged(c); });
  cache.onStreamState((state, error) => { if (S.cache === cache) streamChanged(state, error); });
  if (S.highlight) cache.setHighlight(S.highlight, searchOptions());
  S.cache = cache;
  try {
    await cache.open(S.sid, S.vid, S.filter || null, searchOptions());
    if (turn === S.turn && restore) await cache.rows(Math.max(0, Math.floor(restore.top / ROW_H) - OVERSCAN), Math.floor(restore.top / ROW_H) + 200);
  } catch (e) {
    if (turn !== S.turn) return;
    if (statusOf(e) === 404) viewGone(e); else if (statusOf(e) !== 401) showMessage("Could not load rows: " + why(e), true);
    return;
  }
  if (turn !== S.turn) { cache.close(); return; }
  S.total = cache.total;
  S.version = cache.version;
  S.ready = true;
  S.remade = false;
  cache.subscribe();
  if (S.note) { showMessage(S.note.text, S.note.isError); S.note = null; }
  S.focus = S.total ? clamp(restore ? restore.focus : 0, 0, S.total - 1) : -1;
  setVirtualTop(restore ? restore.top : 0);
  updateCounts();
  scheduleRender();
  ensureRows();
}

const highlighting = () => ui.findMode.getAttribute("aria-pressed") === "true";

function applySearch() {
  clearTimeout(S.searchTimer);
  const text = ui.search.value, highlight = highlighting();
  const fields = ui.searchColumns.checked ? S.columns.map((c) => c.field).join(",") : "";
  const key = text ? [text, highlight, ui.match.value, ui.caseSensitive.checked, ui.diacritics.checked, ui.leavesOnly.checked, fields].join("\u0000") : "";
  if (key === S.viewKey || !S.sid) return;
  if (!S.filter && S.ready) S.saved = { top: virtualTop(), focus: S.focus };
  S.viewKey = key;
  S.filter = highlight ? "" : text;
  S.highlight = highlight ? text : "";
  S.highlightCount = null;
  ui.matchPlace.textContent = "";
  S.match = ui.match.value;
  S.caseSensitive = ui.caseSensitive.checked;
  S.diacritics = ui.diacritics.checked;
  S.leavesOnly = ui.leavesOnly.checked;
  S.searchColumns = ui.searchColumns.checked;
  // The unfiltered view comes back where it was left (highlighted or not); its expansion state is the server's.
  openView(S.filter ? null : S.saved).then(() => { if (S.highlight) countHighlights(); });
}

/** The number of matches of the highlighted text (GET matches answers it with the first one). */
async function countHighlights() {
  const cache = S.cache, text = S.highlight;
  if (!cache || !text) return;
  try {
    const page = (await QUIET.getViewMatches(S.sid, S.vid, { ...matchQuery(), limit: 1 })).value;
    if (cache === S.cache && text === S.highlight) { S.highlightCount = page.matchCount; updateCounts(); }
  } catch (e) {
    // The count stays unknown; the rows show the matches all the same.
  }
}

/** Switches the search between filtering and highlighting (the same text and options). */
function setFindMode(highlight) {
  ui.findMode.setAttribute("aria-pressed", String(highlight));
  ui.findMode.title = highlight ? "Filter: show only matches and their ancestors (highlight: on)"
    : "Highlight matches without hiding the other rows (filter: off)";
  ui.search.placeholder = highlight ? "Find titles…" : "Filter titles…";
  ui.search.setAttribute("aria-label", highlight ? "Find titles" : "Filter titles");
  applySearch();
}
ui.findMode.addEventListener("click", () => setFindMode(!highlighting()));

function clearFilter() {
  ui.search.value = "";
  applySearch();
  ui.search.focus();
}

ui.search.addEventListener("input", () => {
  clearTimeout(S.searchTimer);
  S.searchTimer = setTimeout(applySearch, ui.search.value ? 250 : 0);
});
/**
 * Goes to the next (or previous) match of the filtered view after (before) the focused row,
 * around the end: `GET matches`, then `reveal` when a collapsed ancestor hides it.
 */
async function goToMatch(forward) {
  if (!(S.filter || S.highlight) || !S.ready) return;
  const here = focusedRow();
  const place = here ? { [forward ? "after" : "before"]: String(here.id) } : {};
  const cache = S.cache;
  let page;
  try {
    page = (await API.getViewMatches(S.sid, S.vid, { ...matchQuery(), wrap: true, ...place })).value;
  } catch (e) {
    showNotice(`Next match failed: ${why(e)}`);
    return;
  }
  const m = page.matches[0];
  if (cache !== S.cache) return;
  if (S.highlight) { S.highlightCount = page.matchCount; updateCounts(); }
  if (!m) { ui.matchPlace.textContent = "no match"; return; }
  ui.matchPlace.textContent = `match ${fmt(m.ordinal + 1)} of ${fmt(page.matchCount)}`;
  if (m.index != null) { setFocus(m.index); return; }
  await change("Reveal", (rows) => rows.reveal(m.id), { focusItem: true, keepFocusVisible: true });
}

ui.search.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && ui.search.value && (S.filter || S.highlight) === ui.search.value) {
    e.preventDefault();
    goToMatch(!e.shiftKey);
    return;
  }
  if (e.key === "Enter") applySearch();
  if (e.key === "ArrowDown") { e.preventDefault(); applySearch(); ui.tree.focus(); }
});
// Option changes in quick succession make one view, not one per change.
const soon = () => { clearTimeout(S.searchTimer); S.searchTimer = setTimeout(applySearch, 120); };
ui.match.addEventListener("change", soon);
ui.caseSensitive.addEventListener("change", soon);
ui.diacritics.addEventListener("change", soon);
ui.leavesOnly.addEventListener("change", soon);
ui.searchColumns.addEventListener("change", soon);
ui.columnsMenu.addEventListener("toggle", () => { if (ui.columnsMenu.open) loadFields(); });

ui.selectAll.addEventListener("click", () => selectWhole("Select all", (rows) => rows.selectAll()));
ui.selectNone.addEventListener("click", () => selectWhole("Select none", (rows) => rows.selectNone()));
ui.invertSelection.addEventListener("click", () => selectWhole("Invert the selection", (rows) => rows.invertSelection()));
ui.deleteSelected.addEventListener("click", deleteSelected);
ui.moveSelected.addEventListener("click", () => { ui.tree.focus({ preventScroll: true }); moveSelectedHere(); });
ui.expandAll.addEventListener("click", () => { closeMenus(); viewWide("Expand all", (rows) => rows.expandAll()); });
ui.collapseAll.addEventListener("click", () => { closeMenus(); viewWide("Collapse all", (rows) => rows.collapseAll()); });
ui.expandDepth.addEventListener("click", () => {
  const n = Math.floor(Number(ui.depth.value));
  if (!Number.isFinite(n) || n < 0) return;
  closeMenus();
  viewWide("Expand to depth", (rows) => rows.expandDepth(n));
});

// ---------------------------------------------------------------- this tab's view of the session
// A view of its own per tab: its id is kept in the tab's sessionStorage (per session), so a
// reload finds it again, and another tab, which has a sessionStorage of its own, makes its own.

const viewKey = (sid) => "treesessions.view." + sid;
function storedView(sid) {
  try { return sessionStorage.getItem(viewKey(sid)); } catch (e) { return null; }
}
function keepView(sid, vid) {
  try { sessionStorage.setItem(viewKey(sid), vid); } catch (e) { /* not kept: a reload makes another */ }
}
function forgetView(sid) {
  try { sessionStorage.removeItem(viewKey(sid)); } catch (e) { /* nothing kept */ }
}

/**
 * Sets `S.vid`: the view kept for this session in the tab's sessionStorage, else a new one.
 * A new view starts fresh by the session's `expand` rule when the page knows it (this tab loaded
 * the tree, or the URL names the rule): such a state is shared by every view over that rule on
 * the server, so the view costs almost nothing whatever the tree's size. Otherwise it starts as
 * a copy of the session's default view, the layout its upload gave the tree (its nodes' own
 * `expanded` flags), which costs a pass over the tree and its expanded nodes.
 */
async function ensureView() {
  const sid = S.sid, kept = storedView(sid);
  if (S.access && S.access.view) {  // a token bound to a view: that one, and it may make no other
    useNewView(S.access.view);
    return;
  }
  if (kept) {
    S.vid = kept;
    claimView(kept);
    return;
  }
  const view = (await API.createView(sid, S.rule != null ? { expand: S.rule } : { from: "default" })).value;
  if (S.sid !== sid) return;
  useNewView(view.id);
}

function useNewView(vid) {
  S.vid = vid;
  keepView(S.sid, vid);
}

/**
 * A 404 (or the stream's `end`) through this tab's view: the session is gone (`lost`); or only
 * the view is (it expired while no stream kept it alive, or was deleted): a new one is made and
 * its rows shown; or neither (an item gone elsewhere): nothing to do.
 */
async function viewGone(e, kind = "gone") {
  const sid = S.sid, vid = S.vid;
  if (!sid || !vid) { lost(e, kind); return; }
  const current = () => S.sid === sid && S.vid === vid;  // not replaced meanwhile
  const status = (ask) => ask().then(() => 200, (err) => statusOf(err));
  const session = await status(() => QUIET.getSession(sid));
  if (!current() || session === 401) return;  // `denied` says so
  if (session === 404) { lost(e, kind); return; }
  const view = session === 200 ? await status(() => QUIET.getView(sid, vid)) : session;
  if (!current() || view === 200 || view === 401) return;  // both are there: the 404 named an item
  if (view !== 404) { showMessage(`Could not look for this tab's view: ${view ? "HTTP " + view : "network error"}`, true); return; }
  forgetView(sid);
  if (S.access && S.access.view) {  // the view of the page's token: no other may be made
    S.ready = false;
    S.gone = { kind: "error", sid, detail: `the view this page's access token is bound to (${vid}) is gone (${why(e)}): ask for a new link` };
    unsubscribe("offline", "This tab's view is gone");
    scheduleRender();
    return;
  }
  S.vid = null;
  if (S.remade) {  // the view made for the last one is gone before it showed a row: do not loop
    S.ready = false;
    unsubscribe("offline", "This tab's view is gone");
    showMessage(`This tab's view of session ${sid} is gone (${why(e)}); reload the page for a new one.`, true);
    return;
  }
  S.remade = true;
  S.note = { text: "This tab's view was gone from the server (expired, or deleted): a new one was made.", isError: false };
  openView();
}

// A duplicated tab starts with a copy of the original's sessionStorage, so with its view. The
// tabs of this origin say which view they take (BroadcastChannel): a tab that finds its view
// taken by another one makes its own, a copy of that one's state (`from`), so it still looks as
// the tab it was duplicated from.
const TAB = Math.random().toString(36).slice(2) + Date.now().toString(36);
const tabChannel = typeof BroadcastChannel === "function" ? new BroadcastChannel("treesessions-views") : null;
function claimView(vid) {
  if (tabChannel) tabChannel.postMessage({ sid: S.sid, claim: vid, tab: TAB });
}
if (tabChannel) {
  tabChannel.onmessage = ({ data }) => {
    // A page whose token is bound to its view shares it with the tabs of that token: no fork.
    if (!data || !S.vid || data.sid !== S.sid || (S.access && S.access.view)) return;
    if (data.claim === S.vid && data.tab !== TAB) tabChannel.postMessage({ sid: S.sid, taken: S.vid, to: data.tab });
    else if (data.taken === S.vid && data.to === TAB) forkView(S.vid);
  };
}

async function forkView(from) {
  const sid = S.sid;
  let view;
  try {
    view = (await API.createView(sid, { from })).value;
  } catch (e) {
    showMessage(`Another tab uses this tab's view, and a view of its own could not be made: ${why(e)}`, true);
    return;
  }
  if (S.sid !== sid || S.vid !== from) return;
  useNewView(view.id);
  openView(S.filter ? null : { top: virtualTop(), focus: S.focus });
}

// ---------------------------------------------------------------- sessions

/** The seed's `menuItems(targetNestLevel:itemsInSection:)` as upload JSON: "Level L, item: I", depth first. */
function generate(nestLevels, perSection) {
  const parts = [];
  let count = 0;
  (function level(l) {
    for (let i = 1; i <= perSection; i++) {
      if (i > 1) parts.push(",");
      parts.push('{"title":"Level ' + l + ", item: " + i + '"');
      count++;
      if (l + 1 < nestLevels) { parts.push(',"children":['); level(l + 1); parts.push("]"); }
      parts.push("}");
    }
  })(0);
  return { json: "[" + parts.join("") + "]", count };
}

function expandChoice() {
  const v = ui.expand.value;
  return v === "all" || v === "none" ? v : Number(v);
}

function resetSearch() {
  clearTimeout(S.searchTimer);
  ui.search.value = "";
  S.filter = "";
  S.highlight = "";
  S.highlightCount = null;
  S.viewKey = "";
  S.saved = null;
}

/**
 * Opens a session on `body` (text, or a file); `upload` says how it is sent: the Content-Type of
 * another format, and its `format` query (a JSON document). `label` names it in the status line, `name` in the toolbar; `rule` is the `expand`
 * rule that gives every node its state (null: the nodes' own `expanded` flags may count).
 */
async function createSession(body, label, name, upload, rule) {
  if (uploadLocked()) return;
  const size = typeof body === "string" ? body.length : body.size;
  const mb = size / 1048576;
  showMessage(`Uploading ${label} (${mb >= 1 ? mb.toFixed(1) + " MB" : fmt(size) + " bytes"})…`);
  S.ready = false;
  updateBusy();
  let summary;
  try {
    const text = typeof body === "string" ? body : await body.text();
    const raw = new RawBody(upload ? upload.type : "application/json", text);
    summary = (await API.createSession(raw, upload && upload.format ? { format: upload.format } : undefined)).value;
    // Other formats carry their own `expanded` (or none): the Expanded choice follows.
    const expand = expandChoice();
    // (The session's default view: a tab that attaches without knowing the rule copies it.)
    if (upload && expand !== "none") {
      const patch = expand === "all" ? { expandAll: true } : { expandDepth: expand };
      await API.patchSession(summary.id, patch);
    }
  } catch (e) {
    // The reopened view's requests would hide the error: it is shown again once the view is back.
    S.note = { text: `Could not create the session: ${why(e)}`, isError: true };
    showMessage(S.note.text, true);
    if (S.sid) openView();
    return;
  }
  if (S.own && S.sid && S.sid !== summary.id) {
    QUIET.deleteSession(S.sid).catch(() => {});
    forgetView(S.sid);
  }
  S.note = { text: ui.request.textContent + ` · ${label}`, isError: false };
  attached(summary, true, name, rule);
}

/** Makes `id` the session shown; this tab's view of it is found or made by `openView`. */
function setSession(id) {
  useCredential(id);
  if (S.sid !== id) {
    S.vid = null;
    S.columns = [];  // another tree: other fields
    showColumnsHead();
    ui.columnsList.replaceChildren(muted("Loading the fields…"));
  }
  S.sid = id;
}

/** The page's address for session `id`: with the `expand` rule a new tab's view starts by, when known. */
function sessionHref(id) {
  return "/?session=" + encodeURIComponent(id) + (S.rule != null ? "&expand=" + encodeURIComponent(S.rule) : "");
}

/**
 * Shows session `summary` (`own`: this page made it); `name` says what it holds; `rule`: the
 * `expand` rule a new view of it starts by (null: a copy of the default view).
 */
function attached(summary, own, name, rule) {
  setSession(summary.id);
  S.rule = rule ?? null;
  S.own = own;
  S.gone = null;
  S.nodeCount = summary.nodeCount;
  history.replaceState(null, "", sessionHref(summary.id));
  ui.treeName.textContent = `${name || summary.name || "Session " + summary.id} · ${fmt(summary.nodeCount)} ${summary.nodeCount === 1 ? "node" : "nodes"}`;
  ui.treeName.parentElement.title = ui.treeName.textContent + ": open another tree";
  const link = document.createElement("a");
  link.href = sessionHref(summary.id);
  link.textContent = summary.id;
  link.title = "Open this session in another tab: it gets a view of its own (what it expands stays there), and edits show in both"
    + (S.token ? ". The access token stays in this tab: another one is opened with the link that carries it" : "");
  ui.session.replaceChildren(link);
  resetSearch();
  openView();
}

/** Attaches to session `id`; `rule`: the `expand` rule the URL names for a new view of it. */
async function attach(id, rule) {
  setSession(id);
  S.gone = null;
  scheduleRender();
  try {
    const summary = (await API.getSession(id)).value;
    attached(summary, false, undefined, rule);
  } catch (e) {
    if (statusOf(e) === 401) return;  // `denied` says so
    S.gone = { kind: statusOf(e) === 404 ? "gone" : "error", sid: id, detail: why(e) };
    showMessage(`Cannot attach to session “${id}”: ${why(e)}. Load a sample instead.`, true);
    scheduleRender();
  }
}

/** The outline sample (outline-small.json), which the server puts into the page as a JSON block. */
const outlineSample = () => JSON.parse($("outline-sample").textContent);

/** Loads a sample (`kind`: a value of the Tree choice) expanded as chosen; "file" asks for a file. */
async function loadSample(kind = ui.sample.value) {
  if (uploadLocked()) return;
  const expand = expandChoice();
  if (kind === "file") { ui.file.value = ""; ui.file.click(); return; }
  if (kind === "outline") {
    await createSession(JSON.stringify({ nodes: outlineSample().nodes, expand }), "the outline sample", "Outline sample", undefined, expand);
    return;
  }
  const [levels, per] = kind === "gen797k" ? [12, 3] : [10, 3];
  showMessage("Generating…");
  await new Promise((r) => setTimeout(r, 0));
  const t0 = performance.now();
  const tree = generate(levels, per);
  const ms = Math.round(performance.now() - t0);
  await createSession('{"expand":' + JSON.stringify(expand) + ',"nodes":' + tree.json + "}",
    `${fmt(tree.count)} generated nodes (made in ${ms} ms)`, "Generated tree", undefined, expand);
}

/** How a file is sent, by its name (or type): CSV and NDJSON rows and path lists as they are. */
function uploadOf(file) {
  const name = file.name.toLowerCase();
  if (name.endsWith(".csv") || file.type === "text/csv") return { type: "text/csv", what: "CSV rows" };
  if (/\.(ndjson|jsonl)$/.test(name)) return { type: "application/x-ndjson", what: "NDJSON rows" };
  if (!name.endsWith(".json") && file.type !== "application/json") {
    return { type: "text/plain", what: "a path list" };
  }
  return null;
}

/** Whether a parsed JSON file is in the upload format (nodes with titles), not any document. */
function isNodesDocument(doc) {
  const nodes = Array.isArray(doc) ? doc : doc && typeof doc === "object" && Array.isArray(doc.nodes) ? doc.nodes : null;
  return nodes !== null && nodes.every((n) => n && typeof n === "object" && typeof n.title === "string");
}

/** The `expand` rule that gives every node of a file its state: not "none", which keeps the nodes' own flags. */
const fileRule = (expand) => (expand === "none" ? null : expand);

/** Opens a file of any format: nested JSON nodes, any JSON document, CSV, NDJSON, a path list. */
async function loadFile(file) {
  if (uploadLocked()) return;
  const upload = uploadOf(file);
  if (upload) {
    await createSession(file, `${file.name} (${upload.what})`, file.name, upload, fileRule(expandChoice()));
    return;
  }
  let doc;
  try {
    doc = JSON.parse(await file.text());
  } catch (e) {
    showMessage(`${file.name} is not JSON: ${e.message}`, true);
    return;
  }
  if (!isNodesDocument(doc)) {
    await createSession(file, `${file.name} (a JSON document)`, file.name, { format: "document", type: "application/json" },
      fileRule(expandChoice()));
    return;
  }
  const expand = expandChoice();
  if (Array.isArray(doc)) doc = { nodes: doc, expand };
  else if (!("expand" in doc)) doc.expand = expand;
  await createSession(JSON.stringify(doc), file.name, file.name, undefined, fileRule(doc.expand));
}

// A file dropped anywhere on the page opens it (rows dragged inside the tree are moves).
const dragsFiles = (e) => e.dataTransfer && Array.from(e.dataTransfer.types || []).includes("Files");
document.addEventListener("dragover", (e) => {
  if (!dragsFiles(e)) return;
  e.preventDefault();
  e.dataTransfer.dropEffect = "copy";
  document.body.classList.add("file-over");
});
document.addEventListener("dragleave", (e) => { if (!e.relatedTarget) document.body.classList.remove("file-over"); });
document.addEventListener("drop", (e) => {
  document.body.classList.remove("file-over");
  if (!dragsFiles(e)) return;
  e.preventDefault();
  if (e.dataTransfer.files.length) loadFile(e.dataTransfer.files[0]);
});

ui.loader.addEventListener("submit", (e) => { e.preventDefault(); closeMenus(); loadSample(); });
ui.file.addEventListener("change", () => { if (ui.file.files.length) loadFile(ui.file.files[0]); });

// Changes made by another client (another tab on ?session=ID) arrive as events; while the
// event stream is not open, they show up within POLL_MS.
setInterval(async () => {
  const cache = S.cache;
  if (!S.ready || !cache || S.mutating > 0 || document.hidden || ui.live.dataset.state === "live") return;
  try {
    const page = (await QUIET.getViewRows(S.sid, S.vid, { ...namedQuery(), limit: 0 })).value;
    if (cache === S.cache && page.version > cache.version) await cache.refresh();
  } catch (e) {
    if (statusOf(e) === 404 && cache === S.cache) viewGone(e);
  }
}, POLL_MS);

// A visit creates no session: `?session=ID` attaches to one, Load (or a dropped file) makes one.
// `token` (or `access_token`) is taken out of the address first (see "credentials").
setLive("offline");
takeToken();
const query = new URLSearchParams(location.search), wanted = query.get("session");
useCredential(wanted);
// `expand` (all, none or a depth): how this tab's view starts when it has none yet.
const ruleText = query.get("expand") || "";
const wantedRule = ruleText === "all" || ruleText === "none" ? ruleText : /^\d{1,3}$/.test(ruleText) ? Number(ruleText) : null;
if (wanted) attach(wanted, wantedRule);
else { showMessage("No tree open: load one."); scheduleRender(); }
