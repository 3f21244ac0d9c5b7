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
function defaultSortKey(column) {
    return column === "title" || column.startsWith("data.") ? column : `data.${column}`;
}
/** The `sort` query parameter of a grid's sort model: `[{size, desc}, {title, asc}]` → `-data.size,title`. */
export function sortParameter(keys, sortKey = defaultSortKey) {
    const parts = [];
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
async function children(options, parent, offset, count, sort) {
    const rows = [];
    let total = 0;
    for (;;) {
        const limit = Math.min(1000, count - rows.length);
        const query = { ...options.filter, offset: offset + rows.length, limit, sort, aggregate: options.aggregate };
        const view = options.view ?? null;
        let page;
        if (parent === null) {
            page = (view === null
                ? await options.api.getRootChildren(options.session, query)
                : await options.api.getViewRootChildren(options.session, view, query)).value;
        }
        else {
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
function parentOf(groupKeys) {
    return groupKeys !== undefined && groupKeys.length > 0 ? groupKeys[groupKeys.length - 1] : null;
}
/**
 * A Server-Side Row Model datasource with tree data over a session's children pages: the
 * grid's `groupKeys` name the group (its last key is the parent's id), `startRow`/`endRow`
 * the page, `sortModel` the children's order. Answers `success({rowData, rowCount})` with
 * the group's number of children, or `fail()` when the server refuses.
 */
export function agGridDatasource(options) {
    let last = Promise.resolve();
    return {
        getRows(params) {
            const { request } = params;
            const start = request.startRow ?? 0;
            const end = request.endRow ?? Number.MAX_SAFE_INTEGER;
            const sort = sortParameter(request.sortModel.map((m) => ({ column: m.colId, direction: m.sort })), options.sortKey);
            last = children(options, parentOf(request.groupKeys), start, Math.max(0, end - start), sort).then(({ rows, total }) => params.success({ rowData: rows, rowCount: total }), () => params.fail());
        },
        isServerSideGroup: (dataItem) => dataItem.hasChildren,
        getServerSideGroupKey: (dataItem) => String(dataItem.id),
        get idle() {
            return last;
        },
    };
}
/**
 * A MUI X data source with tree data over a session's children pages: the top level is paged
 * by `paginationModel` (all roots without one), a group's children (`groupKeys`, the last
 * key its id) come whole, up to `maxChildren` (default 10,000); `sortModel` orders them.
 * Rows are the pages' `Child` objects (`id` is the grid's row id).
 */
export function muiDataSource(options) {
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
