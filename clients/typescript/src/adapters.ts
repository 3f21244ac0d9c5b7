/**
 * Data sources for the grids teams already use, on the children pages
 * (`GET /sessions/{sid}/children` for the roots, `GET /sessions/{sid}/items/{id}/children`
 * below, and their `/views/{vid}/` forms): the grid asks for a group's children a page at a
 * time, the key of a row is its item id.
 *
 * The shapes followed (the grids cannot be installed here; the tests call these exactly as
 * the documented interfaces say):
 *
 * - AG Grid, Server-Side Row Model: `IServerSideDatasource.getRows(params:
 *   IServerSideGetRowsParams)`, where `params.request` is an `IServerSideGetRowsRequest`
 *   (`startRow`, `endRow`, `groupKeys`, `sortModel: SortModelItem[]` of `{colId, sort: 'asc' |
 *   'desc'}`, `filterModel`, `rowGroupCols`, …) and the answer is `params.success({rowData,
 *   rowCount})` (`LoadSuccessParams`) or `params.fail()`: ag-grid-community 33.1
 *   `dist/types/src/interfaces/iServerSideDatasource.d.ts`; tree data by the grid options
 *   `isServerSideGroup(dataItem)` and `getServerSideGroupKey(dataItem)`.
 * - MUI X Data Grid, server-side tree data: a `GridDataSource` with `getRows(params:
 *   GridGetRowsParams)` (`groupKeys`, `paginationModel: {page, pageSize}`, `sortModel:
 *   GridSortItem[]` of `{field, sort}`, `filterModel`, `start`, `end`) answering a Promise of
 *   `GridGetRowsResponse` `{rows, rowCount}`, plus `getGroupKey(row)` and
 *   `getChildrenCount(row)` (`-1` when there are children whose number is not known):
 *   @mui/x-data-grid 7.29 `models/gridDataSource.d.ts`, @mui/x-data-grid-pro 8
 *   `hooks/features/dataSource/models.d.ts`, and https://mui.com/x/react-data-grid/server-side-data/tree-data/.
 *   The grid pages the top level (`paginationModel`); a group's children come whole.
 */

import type { Child, ChildrenPage, MatchMode } from "./api.js";
import { TreeSessionsApi } from "./api.js";

/** The rows the adapters serve: which session, which view, which named rows. */
export interface ChildrenSourceOptions {
  api: TreeSessionsApi;
  session: string;
  /** A view (`POST /sessions/{sid}/views`), or null/absent for the default view. */
  view?: string | null;
  /** The named rows' query parameters (a filter shows matches with their ancestors). */
  filter?: {
    filter?: string; match?: MatchMode; caseSensitive?: boolean; diacritics?: "sensitive" | "insensitive";
    leavesOnly?: boolean; fields?: string; where?: string;
  };
  /** `aggregate=` of every page (`count,sum:data.size`): each child then has `aggregates`. */
  aggregate?: string;
  /**
   * The sort key of a grid column (`title`, `data.size`), or null when the server cannot sort
   * by it (the column is then left out of the order). Default: `title` and `data.…` as they
   * are, any other column `data.<column>`.
   */
  sortKey?: (column: string) => string | null;
}

/** A column of a sort and its direction. */
export interface SortKey {
  column: string;
  direction: "asc" | "desc" | null | undefined;
}

function defaultSortKey(column: string): string {
  return column === "title" || column.startsWith("data.") ? column : `data.${column}`;
}

/** The `sort` query parameter of a grid's sort model: `[{size, desc}, {title, asc}]` → `-data.size,title`. */
export function sortParameter(keys: readonly SortKey[], sortKey: (column: string) => string | null = defaultSortKey): string | undefined {
  const parts: string[] = [];
  for (const { column, direction } of keys) {
    if (direction !== "asc" && direction !== "desc") {
      continue;
    }
    const key = sortKey(column);
    if (key !== null) {
      parts.push(direction === "desc" ? `-${key}` : key);
    }
  }
  return parts.length > 0 ? parts.join(",") : undefined;
}

/** The children of `parent` (null: the roots) `offset ..< offset + count`, paged by 1000; and their total. */
async function children(options: ChildrenSourceOptions, parent: string | null, offset: number, count: number, sort: string | undefined): Promise<{ rows: Child[]; total: number }> {
  const rows: Child[] = [];
  let total = 0;
  for (;;) {
    const limit = Math.min(1000, count - rows.length);
    const query = { ...options.filter, offset: offset + rows.length, limit, sort, aggregate: options.aggregate };
    const view = options.view ?? null;
    let page: ChildrenPage;
    if (parent === null) {
      page = (view === null
        ? await options.api.getRootChildren(options.session, query)
        : await options.api.getViewRootChildren(options.session, view, query)).value;
    } else {
      page = (view === null
        ? await options.api.getItemChildren(options.session, parent, query)
        : await options.api.getViewItemChildren(options.session, view, parent, query)).value;
    }
    rows.push(...page.children);
    total = page.total;
    if (page.children.length < limit || rows.length >= count || limit === 0) {
      return { rows, total };
    }
  }
}

/** The item a grid's group keys name: the last key (ids are unique in a session), or null for the top level. */
function parentOf(groupKeys: readonly string[] | undefined): string | null {
  return groupKeys !== undefined && groupKeys.length > 0 ? groupKeys[groupKeys.length - 1]! : null;
}

// ---- AG Grid: Server-Side Row Model ----

/** `SortModelItem` of AG Grid. */
export interface AgSortModelItem {
  colId: string;
  sort: "asc" | "desc";
}

/** The members of AG Grid's `IServerSideGetRowsRequest` this datasource reads (the others are passed along untouched). */
export interface AgServerSideGetRowsRequest {
  startRow: number | undefined;
  endRow: number | undefined;
  groupKeys: string[];
  sortModel: AgSortModelItem[];
  filterModel?: unknown;
  rowGroupCols?: unknown[];
  valueCols?: unknown[];
  pivotCols?: unknown[];
  pivotMode?: boolean;
}

/** AG Grid's `LoadSuccessParams`. */
export interface AgLoadSuccessParams<TData> {
  rowData: TData[];
  rowCount?: number;
}

/** The members of AG Grid's `IServerSideGetRowsParams` this datasource uses. */
export interface AgServerSideGetRowsParams<TData> {
  request: AgServerSideGetRowsRequest;
  success(params: AgLoadSuccessParams<TData>): void;
  fail(): void;
}

/** AG Grid's `IServerSideDatasource`, plus the tree data grid options that go with it. */
export interface AgServerSideTreeDatasource {
  getRows(params: AgServerSideGetRowsParams<Child>): void;
  /** The grid option `isServerSideGroup`: a row with children is a group. */
  isServerSideGroup(dataItem: Child): boolean;
  /** The grid option `getServerSideGroupKey`: the row's item id as text. */
  getServerSideGroupKey(dataItem: Child): string;
  /** Settles when the last `getRows` has answered (for tests and for shutting down). */
  readonly idle: Promise<void>;
}

/**
 * A Server-Side Row Model datasource with tree data over a session's children pages: the
 * grid's `groupKeys` name the group (its last key is the parent's id), `startRow`/`endRow`
 * the page, `sortModel` the children's order. Answers `success({rowData, rowCount})` with
 * the group's number of children, or `fail()` when the server refuses.
 */
export function agGridDatasource(options: ChildrenSourceOptions): AgServerSideTreeDatasource {
  let last: Promise<void> = Promise.resolve();
  return {
    getRows(params) {
      const { request } = params;
      const start = request.startRow ?? 0;
      const end = request.endRow ?? Number.MAX_SAFE_INTEGER;
      const sort = sortParameter(request.sortModel.map((m) => ({ column: m.colId, direction: m.sort })), options.sortKey);
      last = children(options, parentOf(request.groupKeys), start, Math.max(0, end - start), sort).then(
        ({ rows, total }) => params.success({ rowData: rows, rowCount: total }),
        () => params.fail(),
      );
    },
    isServerSideGroup: (dataItem) => dataItem.hasChildren,
    getServerSideGroupKey: (dataItem) => String(dataItem.id),
    get idle() {
      return last;
    },
  };
}

// ---- MUI X Data Grid: server-side data source with tree data ----

/** `GridSortItem` of MUI X. */
export interface MuiGridSortItem {
  field: string;
  sort: "asc" | "desc" | null | undefined;
}

/** The members of MUI X's `GridGetRowsParams` this data source reads. */
export interface MuiGridGetRowsParams {
  groupKeys?: string[];
  paginationModel?: { page: number; pageSize: number };
  sortModel: MuiGridSortItem[];
  filterModel?: unknown;
  start?: number | string;
  end?: number;
  groupFields?: string[];
}

/** MUI X's `GridGetRowsResponse`. */
export interface MuiGridGetRowsResponse<R> {
  rows: R[];
  rowCount?: number;
}

/** MUI X's `GridDataSource` for tree data. */
export interface MuiTreeDataSource {
  getRows(params: MuiGridGetRowsParams): Promise<MuiGridGetRowsResponse<Child>>;
  getGroupKey(row: Child): string;
  getChildrenCount(row: Child): number;
}

/**
 * A MUI X data source with tree data over a session's children pages: the top level is paged
 * by `paginationModel` (all roots without one), a group's children (`groupKeys`, the last
 * key its id) come whole, up to `maxChildren` (default 10,000); `sortModel` orders them.
 * Rows are the pages' `Child` objects (`id` is the grid's row id).
 */
export function muiDataSource(options: ChildrenSourceOptions & { maxChildren?: number }): MuiTreeDataSource {
  const maxChildren = options.maxChildren ?? 10000;
  return {
    async getRows(params) {
      const parent = parentOf(params.groupKeys);
      const sort = sortParameter(params.sortModel.map((m) => ({ column: m.field, direction: m.sort })), options.sortKey);
      let offset = 0;
      let count = maxChildren;
      if (parent === null && params.paginationModel !== undefined) {
        offset = params.paginationModel.page * params.paginationModel.pageSize;
        count = params.paginationModel.pageSize;
      }
      const { rows, total } = await children(options, parent, offset, count, sort);
      return { rows, rowCount: total };
    },
    getGroupKey: (row) => String(row.id),
    getChildrenCount: (row) => (row.childCount > 0 ? row.childCount : row.hasChildren ? -1 : 0),
  };
}
