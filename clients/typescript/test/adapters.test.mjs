// The grid adapters, called by doubles exactly as each grid's documented interface calls a
// datasource (the grids themselves cannot be installed here), against a real server.
import test from "node:test";
import assert from "node:assert/strict";
import { agGridDatasource, muiDataSource, sortParameter, TreeSessionsApi } from "../dist/index.js";
import { startServer } from "./server.mjs";

let server;
let api;
let sid;
const folder = Array.from({ length: 25 }, (_, i) => ({ id: `f${i}`, title: `item ${i}`, data: { size: (i * 7) % 10 } }));
test.before(async () => {
  server = await startServer();
  api = TreeSessionsApi.at(server.url);
  sid = (await api.createSession({ nodes: [
    { id: "docs", title: "docs", data: { size: 30 }, children: [{ id: 1, title: "b", data: { size: 5 } }, { id: 2, title: "a", data: { size: 5 } }, { id: 3, title: "c" }] },
    { id: "big", title: "big", children: folder },
    { id: "lazy", title: "lazy", hasChildren: true },
    { id: "zeta", title: "Zeta", data: { size: 1 } },
  ] })).value.id;
});
test.after(async () => { await server?.stop(); });

/** AG Grid's Server-Side Row Model calling `getRows(IServerSideGetRowsParams)`; resolves with what success/fail got. */
function agGetRows(datasource, { startRow, endRow, groupKeys = [], sortModel = [] }) {
  return new Promise((resolve) => {
    datasource.getRows({
      request: { startRow, endRow, rowGroupCols: [], valueCols: [], pivotCols: [], pivotMode: false, groupKeys, filterModel: {}, sortModel },
      parentNode: { level: groupKeys.length - 1 },
      success: (result) => resolve({ ok: true, ...result }),
      fail: () => resolve({ ok: false }),
      api: {},
      context: undefined,
    });
  });
}

test("AG Grid: the top level, a group's children, sorting, paging, a view, failure", async () => {
  const ds = agGridDatasource({ api, session: sid });
  const top = await agGetRows(ds, { startRow: 0, endRow: 100 });
  assert.equal(top.ok, true);
  assert.deepEqual(top.rowData.map((r) => r.id), ["docs", "big", "lazy", "zeta"]);
  assert.equal(top.rowCount, 4);
  assert.deepEqual(top.rowData.map(ds.isServerSideGroup), [true, true, true, false]);
  assert.deepEqual(top.rowData.map(ds.getServerSideGroupKey), ["docs", "big", "lazy", "zeta"]);

  const docs = await agGetRows(ds, { startRow: 0, endRow: 100, groupKeys: ["docs"] });
  assert.deepEqual(docs.rowData.map((r) => r.id), [1, 2, 3]);
  assert.equal(docs.rowCount, 3);

  const sorted = await agGetRows(ds, { startRow: 0, endRow: 100, groupKeys: ["docs"], sortModel: [{ colId: "data.size", sort: "desc" }, { colId: "title", sort: "asc" }] });
  assert.deepEqual(sorted.rowData.map((r) => r.title), ["a", "b", "c"]); // 5, 5 by title, then no size last

  const page = await agGetRows(ds, { startRow: 10, endRow: 20, groupKeys: ["big"] });
  assert.deepEqual(page.rowData.map((r) => r.id), folder.slice(10, 20).map((n) => n.id));
  assert.equal(page.rowCount, 25);
  const tail = await agGetRows(ds, { startRow: 20, endRow: 40, groupKeys: ["big"], sortModel: [{ colId: "title", sort: "desc" }] });
  const byTitleDesc = folder.map((n) => n.title).sort((x, y) => Number(y.split(" ")[1]) - Number(x.split(" ")[1]));
  assert.deepEqual(tail.rowData.map((r) => r.title), byTitleDesc.slice(20, 25));

  const view = (await api.createView(sid, { expand: "all" })).value.id;
  const inView = agGridDatasource({ api, session: sid, view, filter: { filter: "item 1" } });
  const matches = await agGetRows(inView, { startRow: 0, endRow: 100, groupKeys: ["big"] });
  assert.deepEqual(matches.rowData.map((r) => r.title), ["item 1", ...folder.map((n) => n.title).filter((t) => /^item 1\d$/.test(t))]);
  assert.ok(matches.rowData.every((r) => r.match === true));

  const missing = await agGetRows(ds, { startRow: 0, endRow: 10, groupKeys: ["nope"] });
  assert.deepEqual(missing, { ok: false });
});

test("AG Grid's sort model as the API's sort parameter", () => {
  assert.equal(sortParameter([{ column: "data.size", direction: "desc" }, { column: "title", direction: "asc" }]), "-data.size,title");
  assert.equal(sortParameter([{ column: "owner", direction: "asc" }]), "data.owner");
  assert.equal(sortParameter([{ column: "title", direction: null }]), undefined);
  assert.equal(sortParameter([{ column: "level", direction: "asc" }, { column: "title", direction: "desc" }], (c) => (c === "level" ? null : c)), "-title");
});

test("MUI X: the top level paged, a group's children whole, sorting, group keys and counts", async () => {
  const ds = muiDataSource({ api, session: sid });
  // As GridDataSource.getRows is called: GridGetRowsParams with groupKeys, paginationModel, sortModel, filterModel, start, end.
  const first = await ds.getRows({ groupKeys: [], paginationModel: { page: 0, pageSize: 3 }, sortModel: [], filterModel: { items: [] }, start: 0, end: 2 });
  assert.deepEqual(first.rows.map((r) => r.id), ["docs", "big", "lazy"]);
  assert.equal(first.rowCount, 4);
  const second = await ds.getRows({ groupKeys: [], paginationModel: { page: 1, pageSize: 3 }, sortModel: [], filterModel: { items: [] }, start: 3, end: 5 });
  assert.deepEqual(second.rows.map((r) => r.id), ["zeta"]);
  const sorted = await ds.getRows({ groupKeys: [], paginationModel: { page: 0, pageSize: 10 }, sortModel: [{ field: "title", sort: "desc" }], filterModel: { items: [] }, start: 0, end: 9 });
  assert.deepEqual(sorted.rows.map((r) => r.title), ["Zeta", "lazy", "docs", "big"]);

  assert.deepEqual(first.rows.map(ds.getGroupKey), ["docs", "big", "lazy"]);
  assert.deepEqual(first.rows.map(ds.getChildrenCount), [3, 25, -1]);
  assert.equal(ds.getChildrenCount(second.rows[0]), 0);

  // A group's children come whole, whatever page the grid shows.
  const big = await ds.getRows({ groupKeys: ["big"], paginationModel: { page: 1, pageSize: 3 }, sortModel: [{ field: "data.size", sort: "asc" }], filterModel: { items: [] }, start: 3, end: 5 });
  assert.equal(big.rows.length, 25);
  assert.equal(big.rowCount, 25);
  const sizes = big.rows.map((r) => r.data.size);
  assert.deepEqual(sizes, [...sizes].sort((x, y) => x - y));
  const nested = await ds.getRows({ groupKeys: ["docs", "1"], paginationModel: { page: 0, pageSize: 3 }, sortModel: [], filterModel: { items: [] } });
  assert.deepEqual(nested, { rows: [], rowCount: 0 });

  await assert.rejects(ds.getRows({ groupKeys: ["nope"], sortModel: [], filterModel: { items: [] } }), (e) => e.status === 404);
});
