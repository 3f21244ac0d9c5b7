"""Scenario checks of openapi.yaml against a live tree-server.

Each step sends one request and names the status it must get; the response must be documented
for its operation (status, media type, body schema, required headers; see openapi_check.py).
Steps with `view` are change requests: their answer must also turn the view's rows before into
its rows after (version + 1, ETag = version, the splices); `through` names the state's key of
the view (a `vid`) they are made through, none the session's default view. The steps run in order against one
session, so a step sees what the steps before it did.
"""
import json
import re

import pytest

from openapi_check import SPEC_PATH, TOKEN, EventParser, splice_problems

UNKNOWN = "AAAAAAAAAAAAAAAAAAAAAA"
JSON = {"Content-Type": "application/json"}
AUTH = {"Authorization": f"Bearer {TOKEN}"}
TREE = {"nodes": [
    {"id": "docs", "title": "Documents", "children": [
        {"id": 1, "title": "Compositional Layout", "data": {"size": 3}},
        {"title": "Diffable Data Source", "children": [{"title": "Cell registration"}]},
        {"id": "lazy", "title": "Lazy folder", "hasChildren": True},
    ]},
    {"id": "pics", "title": "Pictures", "expanded": True, "children": [{"title": "Face"}]},
], "expand": "none"}


class Step:
    """One request and what its answer must be. `path`, `headers` and `body` may be callables of
    the scenario state; `path` and header values are formatted with it ({sid}, {first})."""

    def __init__(self, label, method, path, status, *, body=None, raw=None, headers=None,
                 server="main", view=None, through=None, expect=None, save=None):
        self.label, self.method, self.path, self.status = label, method, path, status
        self.body, self.raw, self.headers, self.server = body, raw, headers, server
        self.view, self.through, self.expect, self.save = view, through, expect, save

    def __repr__(self):
        return self.label


def resolve(value, state):
    return value(state) if callable(value) else value


def run(step, api, state):
    path = resolve(step.path, state).format(**state)
    headers = {k: v.format(**state) for k, v in (resolve(step.headers, state) or {}).items()}
    vid = state[step.through] if step.through is not None else None
    before = api.rows(state["sid"], step.view, vid) if step.view is not None else None
    response = api.request(step.method, path, server=step.server, body=resolve(step.body, state),
                           raw=step.raw, headers=headers)
    body, problems = api.spec.problems(step.method, response, step.status)
    if not problems and before is not None:
        problems = splice_problems(response, body, before, api.rows(state["sid"], step.view, vid)[1])
    if not problems and step.expect is not None:
        try:
            step.expect(response, body, state)
        except AssertionError as exc:
            problems.append(str(exc))
    assert not problems, f"{step.method} {response.request.url} -> " + "; ".join(problems)
    if step.save is not None:
        step.save(state, response, body)


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


def version_now(state):
    return state["api"].rows(state["sid"])[0]


def remember_version(state):
    state["version"] = version_now(state)
    return state["version"]


@pytest.fixture(scope="module")
def state(api):
    return {"api": api}


def steps(*items):
    return pytest.mark.parametrize("step", items, ids=repr)


# -- operations ----------------------------------------------------------------------------
@steps(
    Step("demo page", "GET", "/", 200),
    Step("health", "GET", "/healthz", 200),
    Step("health head", "HEAD", "/healthz", 200),
    Step("metrics", "GET", "/metrics", 200),
    Step("spec", "GET", "/openapi.yaml", 200,
         expect=lambda r, b, s: expect(r.content == SPEC_PATH.read_bytes(), "not openapi.yaml byte for byte")),
    Step("client module", "GET", "/client/tree-rows.js", 200,
         expect=lambda r, b, s: expect(r.content == (SPEC_PATH.parent / "clients/typescript/dist/tree-rows.js").read_bytes(),
                                       "not clients/typescript/dist/tree-rows.js byte for byte")),
    Step("client module head", "HEAD", "/client/index.js", 200),
    Step("no such client module", "GET", "/client/index.d.ts", 404),
)
def test_operations(step, api, state):
    run(step, api, state)


# -- create --------------------------------------------------------------------------------
def created(r, b, s):
    expect(r.headers["Location"] == f"/sessions/{b['id']}" and r.headers["ETag"] == '"1"' and b["version"] == 1,
           "Location/ETag/version")


@steps(
    Step("create", "POST", "/sessions", 201, body=TREE, expect=created,
         save=lambda s, r, b: s.update(sid=b["id"])),
    Step("create bare array", "POST", "/sessions", 201, body=[{"title": "bare"}, {"title": "array", "id": 5}]),
    Step("create expand depth", "POST", "/sessions", 201,
         body={"nodes": [{"title": "a", "children": [{"title": "b"}]}], "expand": 1},
         expect=lambda r, b, s: expect(b["total"] == 2, f"expand 1 gives total {b['total']}")),
    Step("create: no content type", "POST", "/sessions", 415, raw=b"[]"),
    Step("create: application/xml", "POST", "/sessions", 415, raw=b"[]", headers={"Content-Type": "application/xml"}),
    Step("create: malformed JSON", "POST", "/sessions", 400, raw=b'[{"title": "x",}]', headers=JSON),
    Step("create: empty body", "POST", "/sessions", 400, raw=b"", headers=JSON),
    Step("create: title not a string", "POST", "/sessions", 422, body=[{"title": 1}]),
    Step("create: no title", "POST", "/sessions", 422, body=[{"id": "x"}]),
    Step("create: duplicate id", "POST", "/sessions", 422, body=[{"title": "a", "id": 4}, {"title": "b", "id": "4"}]),
    Step("create: bad id type", "POST", "/sessions", 422, body=[{"title": "a", "id": 1.5}]),
    Step("create: unknown node member", "POST", "/sessions", 422, body=[{"title": "a", "colour": "red"}]),
    Step("create: unknown top member", "POST", "/sessions", 422, body={"nodes": [], "extra": 1}),
    Step("create: bad expand", "POST", "/sessions", 422, body={"nodes": [], "expand": -1}),
    Step("create: not nodes", "POST", "/sessions", 422, body="nodes"),
    Step("create: missing nodes", "POST", "/sessions", 422, body={"expand": "all"}),
)
def test_create(step, api, state):
    run(step, api, state)


# -- read ----------------------------------------------------------------------------------
def item_is(**members):
    def check(r, b, s):
        expect(all(b.get(k) == v for k, v in members.items()), f"item {b}")
    return check


@steps(
    Step("summary", "GET", "/sessions/{sid}", 200),
    Step("summary head", "HEAD", "/sessions/{sid}", 200),
    Step("summary: unknown", "GET", f"/sessions/{UNKNOWN}", 404),
    Step("summary head: unknown", "HEAD", f"/sessions/{UNKNOWN}", 404),
    Step("rows", "GET", "/sessions/{sid}/rows", 200,
         expect=lambda r, b, s: expect([row["id"] for row in b["rows"]] == ["docs", "pics", "~6"], f"rows {b['rows']}"),
         save=lambda s, r, b: s.update(etag=f'"{b["version"]}"')),
    Step("rows: If-None-Match", "GET", "/sessions/{sid}/rows", 304, headers={"If-None-Match": "{etag}"}),
    Step("rows head: If-None-Match", "HEAD", "/sessions/{sid}/rows", 304, headers={"If-None-Match": "{etag}"}),
    Step("rows: If-None-Match other", "GET", "/sessions/{sid}/rows", 200, headers={"If-None-Match": '"999"'}),
    Step("rows: filtered", "GET", "/sessions/{sid}/rows?filter=ce&limit=2", 200,
         expect=lambda r, b, s: expect(b["filter"] == "ce" and b["matchCount"] == 3 and b["limit"] == 2
                                       and len(b["rows"]) == 2, f"page {b}")),
    Step("rows: filter with + as space", "GET", "/sessions/{sid}/rows?filter=data+source", 200,
         expect=lambda r, b, s: expect(b["filter"] == "data source" and b["matchCount"] == 1, f"page {b}")),
    Step("rows: prefix, case-sensitive", "GET", "/sessions/{sid}/rows?filter=Face&match=exact&caseSensitive=true", 200,
         expect=lambda r, b, s: expect(b["matchCount"] == 1, f"page {b}")),
    Step("rows: limit 0", "GET", "/sessions/{sid}/rows?limit=0", 200,
         expect=lambda r, b, s: expect(b["rows"] == [] and b["total"] == 3, f"page {b}")),
    Step("rows: offset past the end", "GET", "/sessions/{sid}/rows?offset=99", 200),
    Step("rows: limit 1000", "GET", "/sessions/{sid}/rows?limit=1000", 200),
    Step("rows: limit 1001", "GET", "/sessions/{sid}/rows?limit=1001", 400),
    Step("rows: offset -1", "GET", "/sessions/{sid}/rows?offset=-1", 400),
    Step("rows: bad match", "GET", "/sessions/{sid}/rows?match=regex", 400),
    Step("rows: bad caseSensitive", "GET", "/sessions/{sid}/rows?caseSensitive=yes", 400),
    Step("rows: bad diacritics", "GET", "/sessions/{sid}/rows?diacritics=ignore", 400),
    Step("rows: bad leavesOnly", "GET", "/sessions/{sid}/rows?filter=a&leavesOnly=yes", 400),
    Step("rows: %00", "GET", "/sessions/{sid}/rows?filter=%00", 400),
    Step("rows: unknown", "GET", f"/sessions/{UNKNOWN}/rows", 404),
    Step("tree", "GET", "/sessions/{sid}/tree", 200, save=lambda s, r, b: s.update(exported=b)),
    Step("tree: If-None-Match", "GET", "/sessions/{sid}/tree", 304, headers={"If-None-Match": "{etag}"}),
    Step("tree head", "HEAD", "/sessions/{sid}/tree", 200),
    Step("tree: unknown", "GET", f"/sessions/{UNKNOWN}/tree", 404),
    Step("tree round trip", "POST", "/sessions", 201, body=lambda s: s["exported"]),
    Step("item", "GET", "/sessions/{sid}/items/1", 200, expect=item_is(path=["docs"], index=None, data={"size": 3})),
    Step("item: filtered", "GET", "/sessions/{sid}/items/1?filter=layout", 200, expect=item_is(index=1, match=True)),
    Step("item: generated id", "GET", "/sessions/{sid}/items/~6", 200),
    Step("item head", "HEAD", "/sessions/{sid}/items/docs", 200),
    Step("item: unknown", "GET", "/sessions/{sid}/items/nope", 404),
    Step("item: bad match", "GET", "/sessions/{sid}/items/docs?match=x", 400),
)
def test_read(step, api, state):
    run(step, api, state)


# -- change the session --------------------------------------------------------------------
@steps(
    Step("expandAll", "PATCH", "/sessions/{sid}", 200, body={"expandAll": True}, view=""),
    Step("collapseAll", "PATCH", "/sessions/{sid}", 200, body={"collapseAll": True}, view=""),
    Step("expandDepth", "PATCH", "/sessions/{sid}", 200, body={"expandDepth": 1}, view=""),
    Step("expandAll filtered", "PATCH", "/sessions/{sid}?filter=ce", 200, body={"expandAll": True}, view="&filter=ce"),
    Step("patch session: If-Match current", "PATCH", "/sessions/{sid}", 200, body={"collapseAll": True},
         headers=lambda s: {"If-Match": f'"{remember_version(s)}"'}),
    Step("patch session: If-Match stale", "PATCH", "/sessions/{sid}", 412, body={"collapseAll": True},
         headers={"If-Match": '"{version}"'},
         expect=lambda r, b, s: expect(r.headers["ETag"] == f'"{s["version"] + 1}"', "412 ETag")),
    Step("patch session: two members", "PATCH", "/sessions/{sid}", 422, body={"expandAll": True, "collapseAll": True}),
    Step("patch session: false", "PATCH", "/sessions/{sid}", 422, body={"expandAll": False}),
    Step("patch session: empty", "PATCH", "/sessions/{sid}", 422, body={}),
    Step("patch session: not JSON", "PATCH", "/sessions/{sid}", 400, raw=b"{", headers=JSON),
    Step("patch session: no content type", "PATCH", "/sessions/{sid}", 415, raw=b"{}"),
    Step("patch session: unknown", "PATCH", f"/sessions/{UNKNOWN}", 404, body={"expandAll": True}),
    Step("patch session: bad filter parameter", "PATCH", "/sessions/{sid}?caseSensitive=1", 400, body={"expandAll": True}),
)
def test_change_session(step, api, state):
    run(step, api, state)


# -- items ---------------------------------------------------------------------------------
ITEMS = "/sessions/{sid}/items"
ITEM = "/sessions/{sid}/items/"


@steps(
    Step("insert child", "POST", ITEMS, 201, view="",
         body={"nodes": [{"title": "Loaded", "id": "new1"}], "parentId": "lazy", "index": 0}),
    Step("insert roots", "POST", ITEMS, 201, view="", body={"nodes": [{"title": "Root A"}, {"title": "Root B"}]}),
    Step("insert bare array", "POST", ITEMS, 201, view="", body=[{"title": "Root C"}]),
    Step("insert before", "POST", ITEMS, 201, view="", body={"nodes": [{"title": "Before pics"}], "before": "pics"}),
    Step("insert after (filtered)", "POST", ITEMS + "?filter=ce", 201, view="&filter=ce",
         body={"nodes": [{"title": "After one, with ce"}], "after": 1}),
    Step("insert: unknown parent", "POST", ITEMS, 404, body={"nodes": [{"title": "x"}], "parentId": "nope"}),
    Step("insert: unknown sibling", "POST", ITEMS, 404, body={"nodes": [{"title": "x"}], "after": "nope"}),
    Step("insert: index past the end", "POST", ITEMS, 422, body={"nodes": [{"title": "x"}], "parentId": "pics", "index": 5}),
    Step("insert: existing id", "POST", ITEMS, 422, body={"nodes": [{"title": "x", "id": "1"}]}),
    Step("insert: before and parentId", "POST", ITEMS, 422, body={"nodes": [{"title": "x"}], "before": "pics", "parentId": None}),
    Step("insert: unknown member", "POST", ITEMS, 422, body={"nodes": [{"title": "x"}], "where": 1}),
    Step("insert: malformed", "POST", ITEMS, 400, raw=b"[", headers=JSON),
    Step("insert: no content type", "POST", ITEMS, 415, raw=b"[]"),
    Step("insert: unknown session", "POST", f"/sessions/{UNKNOWN}/items", 404, body=[{"title": "x"}]),
    Step("insert: If-Match stale", "POST", ITEMS, 412, body=[{"title": "x"}], headers=lambda s: {"If-Match": f'"{version_now(s) - 1}"'}),
)
def test_insert(step, api, state):
    run(step, api, state)


@steps(
    Step("expand item", "PATCH", ITEM + "docs", 200, view="", body={"expanded": True}),
    Step("collapse item recursively", "PATCH", ITEM + "docs", 200, view="", body={"expanded": False, "recursive": True}),
    Step("reveal", "PATCH", ITEM + "~3", 200, view="", body={"reveal": True}),
    Step("reveal (filtered)", "PATCH", ITEM + "~3?filter=cell", 200, view="&filter=cell", body={"reveal": True}),
    Step("update", "PATCH", ITEM + "1", 200, view="", body={"title": "Layout", "data": None}),
    Step("update data only", "PATCH", ITEM + "1", 200, view="", body={"data": [1, 2]}),
    Step("move", "PATCH", ITEM + "pics", 200, view="", body={"parentId": "docs", "index": 0}),
    Step("move to roots", "PATCH", ITEM + "pics", 200, view="", body={"parentId": None}),
    Step("move (filtered)", "PATCH", ITEM + "1?filter=a", 200, view="&filter=a", body={"parentId": "pics", "index": 1}),
    Step("move into own subtree", "PATCH", ITEM + "docs", 409, body={"parentId": "~3"}),
    Step("move under itself", "PATCH", ITEM + "docs", 409, body={"parentId": "docs"}),
    Step("move: index past the end", "PATCH", ITEM + "docs", 422, body={"parentId": "pics", "index": 99}),
    Step("move: unknown parent", "PATCH", ITEM + "docs", 404, body={"parentId": "nope"}),
    Step("patch item: mixed kinds", "PATCH", ITEM + "docs", 422, body={"expanded": True, "title": "x"}),
    Step("patch item: reveal false", "PATCH", ITEM + "docs", 422, body={"reveal": False}),
    Step("patch item: empty", "PATCH", ITEM + "docs", 422, body={}),
    Step("patch item: title null", "PATCH", ITEM + "docs", 422, body={"title": None}),
    Step("patch item: unknown item", "PATCH", ITEM + "nope", 404, body={"expanded": True}),
    Step("patch item: no content type", "PATCH", ITEM + "docs", 415, raw=b"{}"),
    Step("patch item: malformed", "PATCH", ITEM + "docs", 400, raw=b"{]", headers=JSON),
    Step("patch item: If-Match stale", "PATCH", ITEM + "docs", 412, body={"expanded": True}, headers={"If-Match": '"1", "2"'}),
    Step("delete item", "DELETE", ITEM + "~3", 200, view=""),
    Step("delete item (filtered)", "DELETE", ITEM + "1?filter=a", 200, view="&filter=a"),
    Step("delete item: gone", "DELETE", ITEM + "~3", 404),
    Step("delete item: If-Match stale", "DELETE", ITEM + "docs", 412, headers={"If-Match": '"1"'}),
    Step("item after edits", "GET", ITEM + "pics", 200),
)
def test_items(step, api, state):
    run(step, api, state)


# -- batches -------------------------------------------------------------------------------
BATCH = "/sessions/{sid}/batch"


def unchanged_since_snapshot(r, b, s):
    """The request changed nothing: the version and the rows of both views are as snapshot() saw them."""
    expect(s["snapshot"] == snapshot_of(s), f"the batch changed the session: {b}")


def snapshot_of(s):
    api = s["api"]
    return api.rows(s["sid"]), api.rows(s["sid"], "&filter=ce")


def snapshot(body):
    """The body, after saving the session's version and rows for unchanged_since_snapshot."""
    def make(s):
        s["snapshot"] = snapshot_of(s)
        return body
    return make


def failed_at(pointer, type_):
    def check(r, b, s):
        expect(b["pointer"] == pointer and b["type"] == f"urn:treesessions:problem:{type_}", f"problem {b}")
        unchanged_since_snapshot(r, b, s)
    return check


def batch_results(*results):
    def check(r, b, s):
        expect(len(b["results"]) == len(results), f"results {b['results']}")
        for got, want in zip(b["results"], results):
            if want is not None:
                expect(got == want, f"result {got}, expected {want}")
    return check


@steps(
    Step("batch", "POST", BATCH, 200, view="", body={"operations": [
        {"op": "insert", "nodes": [{"title": "Batch folder", "id": "b1", "children": [{"title": "in batch"}]}],
         "parentId": None, "index": 0},
        {"op": "update", "id": "b1", "title": "Batch folder, renamed", "data": {"n": 1}},
        {"op": "expand", "id": "b1", "expanded": True},
        {"op": "insert", "nodes": [{"title": "Batch sibling", "id": 77}], "after": "b1"},
        {"op": "move", "id": 77, "parentId": "b1", "index": 0},
        {"op": "reveal", "id": 77},
        {"op": "delete", "id": 77},
        {"op": "expandDepth", "expandDepth": 1},
    ]}, expect=batch_results({"index": 0, "ids": ["b1"]}, {"index": 0}, {"index": 0}, None, None, None,
                             {"index": None}, {})),
    Step("batch (filtered)", "POST", BATCH + "?filter=ce", 200, view="&filter=ce", body={"operations": [
        {"op": "collapseAll"}, {"op": "expand", "id": "b1", "expanded": True, "recursive": True},
        {"op": "insert", "nodes": [{"title": "Ceiling", "id": "ce1"}], "before": "b1"}, {"op": "expandAll"},
    ]}),
    Step("batch: empty", "POST", BATCH, 200, body=snapshot({"operations": []}),
         expect=lambda r, b, s: (expect(b["changes"] == [] and b["results"] == [], f"answer {b}"),
                                 unchanged_since_snapshot(r, b, s))),
    Step("batch: unknown op at 2", "POST", BATCH, 422, body=snapshot({"operations": [
        {"op": "delete", "id": "b1"}, {"op": "collapseAll"}, {"op": "rename", "id": "docs"}]}),
         expect=failed_at("/operations/2/op", "invalid-node")),
    Step("batch: an id deleted earlier", "POST", BATCH + "?filter=ce", 404, body=snapshot({"operations": [
        {"op": "delete", "id": "b1"}, {"op": "expand", "id": "b1", "expanded": True}]}),
         expect=failed_at("/operations/1/id", "not-found")),
    Step("batch: an id inserted earlier", "POST", BATCH, 422, body=snapshot({"operations": [
        {"op": "insert", "nodes": [{"title": "x", "id": "twice"}]}, {"op": "insert", "nodes": [{"title": "y", "id": "twice"}]}]}),
         expect=failed_at("/operations/1/nodes/0/id", "invalid-node")),
    Step("batch: move under itself", "POST", BATCH, 409, body=snapshot({"operations": [
        {"op": "expandAll"}, {"op": "move", "id": "b1", "parentId": "b1"}]}),
         expect=failed_at("/operations/1", "cycle")),
    Step("batch: index past the end", "POST", BATCH, 422, body=snapshot({"operations": [
        {"op": "move", "id": "pics", "parentId": "b1", "index": 9}]}),
         expect=failed_at("/operations/0/index", "invalid-node")),
    Step("batch: update without fields", "POST", BATCH, 422, body=snapshot({"operations": [{"op": "update", "id": "b1"}]}),
         expect=failed_at("/operations/0", "invalid-node")),
    Step("batch: If-Match stale", "POST", BATCH, 412, body={"operations": [{"op": "collapseAll"}]},
         headers=lambda s: {"If-Match": f'"{version_now(s) - 1}"'}),
    Step("batch: If-Match current", "POST", BATCH, 200, view="", body={"operations": [{"op": "collapseAll"}]},
         headers=lambda s: {"If-Match": f'"{version_now(s)}"'}),
    Step("batch: not an object", "POST", BATCH, 422, body=[{"op": "collapseAll"}]),
    Step("batch: unknown member", "POST", BATCH, 422, body={"operations": [], "atomic": True}),
    Step("batch: malformed", "POST", BATCH, 400, raw=b'{"operations": [', headers=JSON),
    Step("batch: no content type", "POST", BATCH, 415, raw=b'{"operations": []}'),
    Step("batch: unknown session", "POST", f"/sessions/{UNKNOWN}/batch", 404, body={"operations": []}),
)
def test_batch(step, api, state):
    run(step, api, state)


# -- views ---------------------------------------------------------------------------------
VIEWS = "/sessions/{sid}/views"
VIEW = "/sessions/{sid}/views/{vid}"
NO_VIEW = "/sessions/{sid}/views/0000000000000000"


def view_made(r, b, s):
    expect(r.headers["Location"] == f"/sessions/{s['sid']}/views/{b['id']}" and r.headers["ETag"] == '"1"'
           and b["version"] == 1 and re.fullmatch("[0-9a-f]{16}", b["id"]), f"Location/ETag/version/id: {b}")


def view_version(s, key="vid"):
    return s["api"].rows(s["sid"], vid=s[key])[0]


def made_from(key):
    """A view made as a copy starts with its source's rows."""
    def check(r, b, s):
        source = s["api"].rows(s["sid"], vid=s[key] if key else None)[1]
        expect(s["api"].rows(s["sid"], vid=b["id"])[1] == source, "the copy's rows are not its source's")
    return check


def default_view_unchanged(r, b, s):
    expect(s["api"].rows(s["sid"]) == s["default_rows"], "a change in a view changed the default view")


@steps(
    Step("create view", "POST", VIEWS, 201, expect=view_made,
         save=lambda s, r, b: s.update(vid=b["id"], default_rows=s["api"].rows(s["sid"]))),
    Step("create view: expand all", "POST", VIEWS, 201, body={"expand": "all"}, save=lambda s, r, b: s.update(vid2=b["id"])),
    Step("create view: expand depth", "POST", VIEWS, 201, body={"expand": 1}),
    Step("create view: none", "POST", VIEWS, 201, body={"expand": "none"}),
    Step("create view: copy of the default view", "POST", VIEWS, 201, body={"from": "default"}, expect=made_from(None)),
    Step("create view: copy of a view", "POST", VIEWS, 201, body=lambda s: {"from": s["vid2"]}, expect=made_from("vid2")),
    Step("create view: If-Match of its source", "POST", VIEWS, 201, body=lambda s: {"from": s["vid2"]},
         headers={"If-Match": '"1"'}),
    Step("create view: If-Match stale", "POST", VIEWS, 412, headers={"If-Match": '"0"'}),
    Step("create view: unknown source", "POST", VIEWS, 404, body={"from": "0000000000000000"}),
    Step("create view: expand and from", "POST", VIEWS, 422, body={"expand": 1, "from": "default"}),
    Step("create view: bad expand", "POST", VIEWS, 422, body={"expand": "some"}),
    Step("create view: bad from", "POST", VIEWS, 422, body={"from": "x"}),
    Step("create view: unknown member", "POST", VIEWS, 422, body={"colour": 1}),
    Step("create view: malformed", "POST", VIEWS, 400, raw=b"{", headers=JSON),
    Step("create view: no content type", "POST", VIEWS, 415, raw=b"{}"),
    Step("create view: unknown session", "POST", f"/sessions/{UNKNOWN}/views", 404),
    Step("list views", "GET", VIEWS, 200,
         expect=lambda r, b, s: expect(b["total"] == 7 and b["views"][0]["id"] == s["vid"]
                                       and b["views"][1]["id"] == s["vid2"], f"list {b}")),
    Step("list views: a page", "GET", VIEWS + "?offset=1&limit=2", 200,
         expect=lambda r, b, s: expect(len(b["views"]) == 2 and b["views"][0]["id"] == s["vid2"], f"list {b}")),
    Step("list views head", "HEAD", VIEWS, 200),
    Step("list views: bad limit", "GET", VIEWS + "?limit=1001", 400),
    Step("list views: unknown parameter", "GET", VIEWS + "?filter=a", 400),
    Step("list views: unknown session", "GET", f"/sessions/{UNKNOWN}/views", 404),
    Step("view summary", "GET", VIEW, 200,
         expect=lambda r, b, s: expect(b["id"] == s["vid"] and r.headers["ETag"] == '"1"', f"summary {b}")),
    Step("view summary: If-None-Match", "GET", VIEW, 304, headers={"If-None-Match": '"1"'}),
    Step("view summary head", "HEAD", VIEW, 200),
    Step("view: unknown", "GET", NO_VIEW, 404),
    Step("view: not a view id", "GET", VIEWS + "/default", 404),
    Step("view rows", "GET", VIEW + "/rows", 200,
         expect=lambda r, b, s: expect(all(row["level"] == 0 and not row["expanded"] for row in b["rows"]), f"rows {b['rows']}")),
    Step("view rows: filtered", "GET", VIEW + "/rows?filter=ce&limit=2", 200,
         expect=lambda r, b, s: expect(b["filter"] == "ce" and "matchCount" in b, f"page {b}")),
    Step("view rows: If-None-Match", "GET", VIEW + "/rows", 304, headers={"If-None-Match": '"1"'}),
    Step("view rows head", "HEAD", VIEW + "/rows", 200),
    Step("view rows: bad limit", "GET", VIEW + "/rows?limit=1001", 400),
    Step("view rows: unknown view", "GET", NO_VIEW + "/rows", 404),
    Step("view item", "GET", VIEW + "/items/docs", 200, expect=item_is(expanded=False)),
    Step("view item head", "HEAD", VIEW + "/items/docs", 200),
    Step("view item: unknown item", "GET", VIEW + "/items/nope", 404),
    Step("view item: unknown view", "GET", NO_VIEW + "/items/docs", 404),
    Step("view matches", "GET", VIEW + "/matches?filter=ce&limit=2", 200),
    Step("view matches head", "HEAD", VIEW + "/matches?filter=ce", 200),
    Step("view matches: no filter", "GET", VIEW + "/matches", 400),
    Step("view matches: unknown view", "GET", NO_VIEW + "/matches?filter=ce", 404),
    Step("expand in a view", "PATCH", VIEW + "/items/docs", 200, view="", through="vid", body={"expanded": True},
         expect=default_view_unchanged),
    Step("view item expanded", "GET", VIEW + "/items/docs", 200, expect=item_is(expanded=True)),
    Step("reveal in a view", "PATCH", VIEW + "/items/new1", 200, view="", through="vid", body={"reveal": True}),
    Step("collapse all in a view's filtered rows", "PATCH", VIEW + "?filter=ce", 200, view="&filter=ce", through="vid",
         body={"collapseAll": True}),
    Step("expand all in a view", "PATCH", VIEW, 200, view="", through="vid", body={"expandAll": True}),
    Step("expand depth in a view", "PATCH", VIEW, 200, view="", through="vid", body={"expandDepth": 1},
         expect=default_view_unchanged),
    Step("patch view: If-Match stale", "PATCH", VIEW, 412, body={"collapseAll": True}, headers={"If-Match": '"1"'}),
    Step("patch view: If-Match current", "PATCH", VIEW, 200, body={"collapseAll": True},
         headers=lambda s: {"If-Match": f'"{view_version(s)}"'}),
    Step("patch view: two members", "PATCH", VIEW, 422, body={"expandAll": True, "collapseAll": True}),
    Step("patch view: no content type", "PATCH", VIEW, 415, raw=b"{}"),
    Step("patch view: unknown view", "PATCH", NO_VIEW, 404, body={"expandAll": True}),
    Step("insert through a view", "POST", VIEW + "/items", 201, view="", through="vid",
         body={"nodes": [{"title": "Via a view", "id": "vv1"}], "parentId": None, "index": 0},
         expect=lambda r, b, s: expect(r.headers["Location"] == f"/sessions/{s['sid']}/views/{s['vid']}/items/vv1",
                                       f"Location {r.headers.get('Location')}")),
    Step("insert through a view (filtered)", "POST", VIEW + "/items?filter=ce", 201, view="&filter=ce", through="vid",
         body={"nodes": [{"title": "Nice view", "id": "vv2"}], "after": "vv1"}),
    Step("the edit reaches the other views", "GET", "/sessions/{sid}/views/{vid2}/items/vv2", 200,
         expect=item_is(index=1)),
    Step("update through a view", "PATCH", VIEW + "/items/vv1", 200, view="", through="vid", body={"title": "Via a view, renamed"}),
    Step("move through a view", "PATCH", VIEW + "/items/vv2", 200, view="", through="vid", body={"parentId": "vv1"}),
    Step("move through a view: into its own subtree", "PATCH", VIEW + "/items/vv1", 409, body={"parentId": "vv2"}),
    Step("delete through a view", "DELETE", VIEW + "/items/vv2", 200, view="", through="vid"),
    Step("delete through a view: gone", "DELETE", VIEW + "/items/vv2", 404),
    Step("batch through a view", "POST", VIEW + "/batch", 200, view="", through="vid", body={"operations": [
        {"op": "insert", "nodes": [{"title": "In a view's batch", "id": "vv3"}], "parentId": "vv1"},
        {"op": "expand", "id": "vv1", "expanded": True},
        {"op": "update", "id": "vv3", "title": "Renamed in a view's batch"},
    ]}, expect=batch_results({"index": 1, "ids": ["vv3"]}, {"index": 0}, {"index": 1})),
    Step("batch through a view (filtered)", "POST", VIEW + "/batch?filter=ce", 200, view="&filter=ce", through="vid",
         body={"operations": [{"op": "expandAll"}]}),
    Step("batch through a view: If-Match stale", "POST", VIEW + "/batch", 412, body={"operations": []},
         headers={"If-Match": '"1"'}),
    Step("batch through a view: unknown view", "POST", NO_VIEW + "/batch", 404, body={"operations": []}),
    Step("insert through a view: If-Match stale", "POST", VIEW + "/items", 412, body=[{"title": "x"}],
         headers={"If-Match": '"1"'}),
    Step("insert through a view: unknown view", "POST", NO_VIEW + "/items", 404, body=[{"title": "x"}]),
    Step("the default view before a view is sorted", "GET", "/sessions/{sid}/rows", 200,
         save=lambda s, r, b: s.update(default_rows=s["api"].rows(s["sid"]))),
    Step("sort a view", "PATCH", VIEW, 200, view="", through="vid", body={"sort": "-title"}, expect=default_view_unchanged),
    Step("a sorted view's rows", "GET", VIEW + "/rows?positions=true", 200,
         expect=lambda r, b, s: expect(b["sort"] == "-title" and all("position" in row for row in b["rows"]), f"rows {b}")),
    Step("a sorted view's summary", "GET", VIEW, 200, expect=lambda r, b, s: expect(b["sort"] == "-title", f"summary {b}")),
    Step("a sorted view's children", "GET", VIEW + "/children", 200, expect=lambda r, b, s: expect(b["sort"] == "-title", f"{b}")),
    Step("a sorted view's children: another sort", "GET", VIEW + "/children?sort=title", 400),
    Step("sort a view's filtered rows", "PATCH", VIEW + "?filter=ce", 200, view="&filter=ce", through="vid", body={"sort": "title"}),
    Step("sort a view: bad keys", "PATCH", VIEW, 422, body={"sort": "title,title"},
         expect=lambda r, b, s: expect("at character 7" in b["detail"], f"{b}")),
    Step("sort a view: not a string", "PATCH", VIEW, 422, body={"sort": 1}),
    Step("sort the default view", "PATCH", "/sessions/{sid}", 422, body={"sort": "title"}),
    Step("a view back in the tree's order", "PATCH", VIEW, 200, view="", through="vid", body={"sort": None},
         expect=lambda r, b, s: expect(s["api"].request("GET", VIEW.format(**s)).json()["sort"] is None, "still sorted")),
    Step("delete view: If-Match stale", "DELETE", "/sessions/{sid}/views/{vid2}", 412, headers={"If-Match": '"999"'}),
    Step("delete view", "DELETE", "/sessions/{sid}/views/{vid2}", 204),
    Step("delete view: gone", "DELETE", "/sessions/{sid}/views/{vid2}", 404),
    Step("a deleted view's rows", "GET", "/sessions/{sid}/views/{vid2}/rows", 404),
)
def test_views(step, api, state):
    run(step, api, state)


def test_view_events(api):
    """A view's stream: its reset, a change of its own state (the response, byte for byte),
    nothing of another view's state, a tree edit made elsewhere at its own version, changes of
    its selection and of its expansion from a list, and `end` when the view is deleted."""
    sid = api.request("POST", "/sessions", body=TREE).json()["id"]
    a = api.request("POST", f"/sessions/{sid}/views").json()["id"]
    b = api.request("POST", f"/sessions/{sid}/views").json()["id"]
    with api.http.get(f"{api.bases['main']}/sessions/{sid}/views/{a}/events", stream=True, timeout=10) as stream:
        _, problems = api.spec.problems("GET", stream, 200)
        assert not problems, problems
        events = events_of(stream)
        reset = next(events)
        assert reset["event"] == "reset" and reset["id"] == "1", reset
        assert api.request("PATCH", f"/sessions/{sid}/views/{b}/items/docs", body={"expanded": True}).status_code == 200
        change = api.request("PATCH", f"/sessions/{sid}/views/{a}/items/pics", body={"expanded": False})
        assert change.status_code == 200 and change.json()["version"] == 2, change.text
        event = next(events)
        assert event["event"] == "change" and event["id"] == "2", event
        assert json.loads(event["data"]) == change.json(), event
        edit = api.request("PATCH", f"/sessions/{sid}/items/docs", body={"title": "Docs"})
        assert edit.status_code == 200 and edit.json()["version"] == 2, edit.text
        event = next(events)
        assert event["event"] == "change" and event["id"] == "3", event
        assert not api.spec.event_problems(event), api.spec.event_problems(event)
        # A change of the view's selection, and of its expansion from a list: each the response.
        for method, path, body in (("PATCH", f"/sessions/{sid}/views/{a}/items/docs", {"selected": True}),
                                   ("PUT", f"/sessions/{sid}/views/{a}/expansion", {"expanded": ["docs", "gone"]})):
            change = api.request(method, path, body=body)
            assert change.status_code == 200, change.text
            event = next(events)
            assert event["event"] == "change" and json.loads(event["data"]) == change.json(), event
            assert not api.spec.event_problems(event), api.spec.event_problems(event)
        assert api.request("DELETE", f"/sessions/{sid}/views/{a}").status_code == 204
        end = next(events)
        assert end["event"] == "end" and json.loads(end["data"]) == {"reason": "deleted"}, end
    assert api.request("DELETE", f"/sessions/{sid}").status_code == 204


# -- selection (issue 36) -------------------------------------------------------------------
def selection_is(ids, next_=None, count=None):
    def check(r, b, s):
        got = [item["id"] for item in b["items"]]
        expect(got == ids, f"selected {got}, expected {ids}")
        expect(b["next"] == next_, f"next {b['next']}, expected {next_}")
        if count is not None:
            expect(b["selectedCount"] == count, f"selectedCount {b['selectedCount']}, expected {count}")
    return check


def rows_have_selection(r, b, s):
    expect("selectedCount" in b and all("selected" in row for row in b["rows"]), f"no selection fields: {b}")


@steps(
    Step("select an item with its subtree", "PATCH", "/sessions/{sid}/items/docs", 200, view="", body={"selected": True}),
    Step("rows carry the selection", "GET", "/sessions/{sid}/rows", 200, expect=rows_have_selection),
    Step("deselect an item alone", "PATCH", "/sessions/{sid}/items/docs", 200, view="", body={"selected": False, "recursive": False}),
    Step("the selection, top-most", "GET", "/sessions/{sid}/selection?top=true&limit=1", 200,
         expect=lambda r, b, s: expect(len(b["items"]) == 1 and b["next"] == b["items"][0]["id"], f"{b}")),
    Step("the selection after an item", "GET", "/sessions/{sid}/selection?after=docs&limit=1000", 200,
         expect=lambda r, b, s: expect(b["next"] is None and b["selectedCount"] == len(b["items"]), f"{b}")),
    Step("the selection in filtered rows", "GET", "/sessions/{sid}/selection?filter=ce", 200),
    Step("the selection: unknown after", "GET", "/sessions/{sid}/selection?after=" + UNKNOWN, 404),
    Step("the selection: bad top", "GET", "/sessions/{sid}/selection?top=maybe", 400),
    Step("the selection: limit too large", "GET", "/sessions/{sid}/selection?limit=5000", 400),
    Step("the selection: unknown session", "GET", "/sessions/" + UNKNOWN + "/selection", 404),
    Step("select rows", "PATCH", "/sessions/{sid}", 200, view="",
         body={"selectRows": {"offset": 0, "count": 2, "selected": True, "recursive": False}}),
    Step("select rows: offset missing", "PATCH", "/sessions/{sid}", 422, body={"selectRows": {"count": 2, "selected": True}}),
    Step("select rows: not an object", "PATCH", "/sessions/{sid}", 422, body={"selectRows": [0, 2]}),
    Step("select: not a boolean", "PATCH", "/sessions/{sid}/items/docs", 422, body={"selected": "yes"}),
    Step("select: unknown item", "PATCH", "/sessions/{sid}/items/" + UNKNOWN, 404, body={"selected": True}),
    Step("invert the selection", "PATCH", "/sessions/{sid}", 200, view="", body={"invertSelection": True}),
    Step("select all in filtered rows", "PATCH", "/sessions/{sid}?filter=ce", 200, view="&filter=ce", body={"selectAll": True}),
    Step("select none", "PATCH", "/sessions/{sid}", 200, view="", body={"selectNone": True},
         expect=lambda r, b, s: expect(b["changes"] == [], f"{b}")),
    Step("nothing selected", "GET", "/sessions/{sid}/selection", 200, expect=selection_is([], None, 0)),
    Step("select all: must be true", "PATCH", "/sessions/{sid}", 422, body={"selectAll": False}),
    Step("select in a batch", "POST", "/sessions/{sid}/batch", 200, view="", body={"operations": [
        {"op": "select", "id": "pics", "selected": True},
        {"op": "selectRows", "selectRows": {"offset": 0, "count": 1, "selected": True}},
        {"op": "invertSelection"}, {"op": "invertSelection"},
    ]}),
    Step("a view's selection is its own", "GET", VIEW + "/selection", 200, expect=selection_is([], None, 0)),
    Step("select in a view", "PATCH", VIEW + "/items/pics", 200, view="", through="vid", body={"selected": True}),
    Step("a view's selection", "GET", VIEW + "/selection?top=true", 200,
         expect=lambda r, b, s: expect([i["id"] for i in b["items"]] == ["pics"], f"{b}")),
    Step("select all in a view", "PATCH", VIEW, 200, view="", through="vid", body={"selectAll": True}),
    Step("move the selection: into itself", "POST", VIEW + "/batch", 409, body={"operations": [
        {"op": "moveSelected", "parentId": "pics"}]}),
    Step("act on a view's selection", "POST", VIEW + "/batch", 200, view="", through="vid", body={"operations": [
        {"op": "selectNone"}, {"op": "select", "id": "lazy", "selected": True},
        {"op": "moveSelected", "parentId": "pics", "index": 0}, {"op": "deleteSelected"},
    ]}, expect=batch_results({}, None, {}, {})),
    Step("the selection: unknown view", "GET", NO_VIEW + "/selection", 404),
    Step("highlight", "GET", "/sessions/{sid}/rows?highlight=ce", 200,
         expect=lambda r, b, s: expect(b["highlight"] == "ce" and all("match" in row for row in b["rows"]), f"{b}")),
    Step("highlight: with a filter", "GET", "/sessions/{sid}/rows?highlight=ce&filter=ce", 400),
    Step("highlighted matches", "GET", "/sessions/{sid}/matches?highlight=ce&limit=5", 200),
    Step("a view's highlighted matches", "GET", VIEW + "/matches?highlight=ce&limit=5", 200),
    Step("matches: neither filter nor highlight", "GET", "/sessions/{sid}/matches", 400),
    Step("export the selection", "GET", "/sessions/{sid}/tree?selection=true", 200),
    Step("export a view's selection as CSV", "GET", VIEW + "/tree?selection=true&format=csv", 200),
    Step("export through a view: unknown view", "GET", NO_VIEW + "/tree", 404),
    Step("save the expansion", "GET", "/sessions/{sid}/expansion", 200),
    Step("set the expansion", "PUT", "/sessions/{sid}/expansion", 200, view="", body={"expanded": ["docs", "gone"]},
         expect=lambda r, b, s: expect(b["unknown"] == 1, f"{b}")),
    Step("set the expansion: not ids", "PUT", "/sessions/{sid}/expansion", 422, body={"expanded": [True]}),
    Step("set a view's expansion", "PUT", VIEW + "/expansion", 200, view="", through="vid", body={"expanded": []}),
    Step("a view's expansion", "GET", VIEW + "/expansion", 200,
         expect=lambda r, b, s: expect(b["expanded"] == [], f"{b}")),
    Step("the expansion: unknown view", "GET", NO_VIEW + "/expansion", 404),
    Step("the fields", "GET", "/sessions/{sid}/fields", 200,
         expect=lambda r, b, s: expect(b["fields"][0] == {"field": "title", "count": b["nodes"], "types": {"string": b["nodes"]}}, f"{b}")),
    Step("the fields: no query parameters", "GET", "/sessions/{sid}/fields?limit=1", 400),
    Step("the fields: unknown session", "GET", "/sessions/" + UNKNOWN + "/fields", 404),
    Step("search data fields", "GET", "/sessions/{sid}/rows?filter=layout&fields=title,data.kind&limit=3", 200,
         expect=lambda r, b, s: expect(b["fields"] == ["title", "data.kind"]
                                       and all("matchedFields" in row for row in b["rows"]), f"{b}")),
    Step("conditions alone", "GET", "/sessions/{sid}/rows?where=title%3E%3DD", 200,
         expect=lambda r, b, s: expect(b["filter"] == "" and b["where"] == 'title>="D"', f"{b}")),
    Step("matches of conditions", "GET", "/sessions/{sid}/matches?where=title%3DConference%20App", 200),
    Step("a bare text operand (\">\")", "GET", "/sessions/{sid}/rows?where=title%3E%3E", 200),
    Step("a condition without a comparison", "GET", "/sessions/{sid}/rows?where=title", 400,
         expect=lambda r, b, s: expect("at character 6" in b["detail"], f"{b}")),
    Step("fields without a text", "GET", "/sessions/{sid}/rows?fields=title", 400),
    Step("the roots' children", "GET", "/sessions/{sid}/children?limit=2", 200,
         expect=lambda r, b, s: expect(b["parentId"] is None and len(b["children"]) <= 2
                                       and all("childCount" in c and "position" in c for c in b["children"]), f"{b}")),
    Step("an item's children, sorted", "GET", "/sessions/{sid}/items/docs/children?sort=-title&aggregate=count", 200,
         expect=lambda r, b, s: expect(b["parentId"] == "docs" and b["sort"] == "-title"
                                       and all("aggregates" in c for c in b["children"]), f"{b}")),
    Step("children: a key twice", "GET", "/sessions/{sid}/children?sort=title,-title", 400,
         expect=lambda r, b, s: expect("at character 7" in b["detail"], f"{b}")),
    Step("children: unknown item", "GET", "/sessions/{sid}/items/" + UNKNOWN + "/children", 404),
)
def test_selection(step, api, state):
    run(step, api, state)


# -- methods -------------------------------------------------------------------------------
@pytest.mark.parametrize("method, path", [("PUT", "/sessions"), ("DELETE", "/sessions"), ("POST", "/sessions/{sid}"),
                                          ("DELETE", "/sessions/{sid}/rows"), ("GET", "/sessions/{sid}/tokens")])
def test_method_not_allowed(method, path, api, state):
    r = api.request(method, path.format(**state))
    assert r.status_code == 405 and "Allow" in r.headers \
        and r.headers.get("Content-Type") == "application/problem+json", f"{r.status_code} {dict(r.headers)}"


def test_options(api, state):
    r = api.request("OPTIONS", f"/sessions/{state['sid']}/items/docs")
    assert r.status_code == 204 and r.headers.get("Allow") == "GET, HEAD, PATCH, DELETE, OPTIONS", \
        f"{r.status_code} {dict(r.headers)}"


# -- delete the session --------------------------------------------------------------------
@steps(
    Step("delete session: If-Match stale", "DELETE", "/sessions/{sid}", 412, headers={"If-Match": '"1"'}),
    Step("delete session", "DELETE", "/sessions/{sid}", 204),
    Step("delete session: gone", "DELETE", "/sessions/{sid}", 404),
)
def test_delete_session(step, api, state):
    run(step, api, state)


# -- limits and the token (a second server) -------------------------------------------------
LIMITED = dict(server="limited")


@steps(
    Step("limited: health without token", "GET", "/healthz", 200, **LIMITED),
    Step("limited: demo page without token (open)", "GET", "/", 200, **LIMITED),
    Step("limited: demo page with a wrong token (not checked)", "GET", "/", 200,
         headers={"Authorization": "Bearer nope"}, **LIMITED),
    Step("limited: metrics without token", "GET", "/metrics", 401,
         expect=lambda r, b, s: expect(r.headers["WWW-Authenticate"] == 'Bearer realm="tree-sessions"',
                                       f"WWW-Authenticate {r.headers.get('WWW-Authenticate')}"), **LIMITED),
    Step("limited: spec without token (open)", "GET", "/openapi.yaml", 200, **LIMITED),
    Step("limited: client module without token (open)", "GET", "/client/index.js", 200, **LIMITED),
    Step("limited: list sessions without token", "GET", "/sessions", 401, **LIMITED),
    Step("limited: create without token", "POST", "/sessions", 401, body=[{"title": "a"}], **LIMITED),
    Step("limited: create wrong token", "POST", "/sessions", 401, body=[{"title": "a"}],
         headers={"Authorization": "Bearer nope"}, **LIMITED),
    Step("limited: rows without token", "GET", f"/sessions/{UNKNOWN}/rows", 401, **LIMITED),
    Step("limited: over the node budget", "POST", "/sessions", 503, body=[{"title": "a"}] * 4, headers=AUTH,
         expect=lambda r, b, s: expect(r.headers.get("Retry-After"), "no Retry-After"), **LIMITED),
    Step("limited: create", "POST", "/sessions", 201, body=[{"title": "a"}, {"title": "b"}], headers=AUTH,
         save=lambda s, r, b: s.update(first=b["id"]), **LIMITED),
    Step("limited: too many sessions", "POST", "/sessions", 429, body=[{"title": "a"}], headers=AUTH, **LIMITED),
    Step("limited: insert over the node budget", "POST", "/sessions/{first}/items", 503,
         body=[{"title": "c"}, {"title": "d"}], headers=AUTH, **LIMITED),
    Step("limited: body too large", "POST", "/sessions", 413, body=[{"title": "x" * 5000}], headers=AUTH, **LIMITED),
    Step("limited: batch over --max-batch", "POST", "/sessions/{first}/batch", 413, headers=AUTH,
         body={"operations": [{"op": "collapseAll"}] * 3},
         expect=lambda r, b, s: expect(b["type"] == "urn:treesessions:problem:too-many-operations", f"problem {b}"), **LIMITED),
    Step("limited: batch at --max-batch", "POST", "/sessions/{first}/batch", 200, headers=AUTH,
         body={"operations": [{"op": "collapseAll"}] * 2}, **LIMITED),
    Step("limited: create view", "POST", "/sessions/{first}/views", 201, headers=AUTH, **LIMITED),
    Step("limited: too many views", "POST", "/sessions/{first}/views", 429, headers=AUTH,
         expect=lambda r, b, s: expect(b["type"] == "urn:treesessions:problem:too-many-views"
                                       and r.headers.get("Retry-After"), f"problem {b}"), **LIMITED),
)
def test_limits(step, api, state):
    run(step, api, state)


# -- event streams (read as they come: the Step runner reads whole bodies) ------------------
def events_of(response):
    """The server-sent events of a streamed response, one dict (event, id, data) at a time."""
    parser = EventParser()
    for line in response.iter_lines(decode_unicode=True):
        event = parser.line(line)
        if event is not None:
            yield event


def test_events(api, state):
    """A stream's documented head, its reset, a change event that is the change response
    (ChangeEvent), and the end when the session is deleted; every event is a StreamEvent, the
    schema of the stream's media type."""
    sid = api.request("POST", "/sessions", body=TREE).json()["id"]
    with api.http.get(f"{api.bases['main']}/sessions/{sid}/events", stream=True, timeout=10) as stream:
        _, problems = api.spec.problems("GET", stream, 200)
        assert not problems, problems
        events = events_of(stream)
        reset = next(events)
        assert reset["event"] == "reset" and reset["id"] == "1", reset
        assert not api.spec.event_problems(reset), api.spec.event_problems(reset)
        change = api.request("PATCH", f"/sessions/{sid}/items/docs", body={"expanded": True})
        assert change.status_code == 200, change.text
        event = next(events)
        assert event["event"] == "change" and event["id"] == str(change.json()["version"]), event
        assert json.loads(event["data"]) == change.json(), event
        assert not api.spec.event_problems(event), api.spec.event_problems(event)
        assert api.request("DELETE", f"/sessions/{sid}").status_code == 204
        end = next(events)
        assert end["event"] == "end" and json.loads(end["data"]) == {"reason": "deleted"}, end
        assert not api.spec.event_problems(end), api.spec.event_problems(end)


def test_event_schema_rejects_what_the_server_never_sends(api):
    """StreamEvent is strict: an event with an unknown name, data of another kind of event,
    or data that is not JSON is a problem."""
    good = {"event": "reset", "id": "3", "data": '{"version":3,"total":2,"reason":"subscribed"}'}
    assert not api.spec.event_problems(good)
    for bad in [{**good, "event": "message"}, {**good, "event": "change"}, {**good, "data": "{"},
                {**good, "id": "x"}, {"event": "end", "data": '{"reason":"gone"}'}]:
        assert api.spec.event_problems(bad), bad


def test_event_stream_token(api, state):
    """With --token, a browser's EventSource opens the stream with an access token (on the
    limited server's one session, made by test_limits)."""
    sid = state["first"]
    base = f"{api.bases['limited']}/sessions/{sid}/events"
    assert api.http.get(base, timeout=10).status_code == 401
    granted = api.request("POST", f"/sessions/{sid}/events/token", server="limited", headers=AUTH)
    body, problems = api.spec.problems("POST", granted, 201)
    assert not problems, problems
    with api.http.get(f"{base}?access_token={body['token']}", stream=True, timeout=10) as stream:
        assert stream.status_code == 200 and next(events_of(stream))["event"] == "reset"
    assert api.http.get(f"{base}?access_token=wrong", timeout=10).status_code == 401


# -- access: session tokens, roles, bound views, settings, the session list (issue 38) -------
# A third server, with an admin token and a signing-key file (conftest.py).
SECURED = dict(server="secured")
SEC = "/sessions/{sec}"
SEC_VIEW = "/sessions/{sec}/views/{secv}"
FORBIDDEN = "urn:treesessions:problem:forbidden"
INVALID_TOKEN = 'Bearer realm="tree-sessions", error="invalid_token"'


def bearer(key):
    """An Authorization header with the token the state keeps under `key`."""
    return {"Authorization": "Bearer {" + key + "}"}


def minted(role, view=None):
    """A 201 of POST .../tokens: the role and view asked for, no-store, and a token whose
    readable fields say the same."""
    def check(r, b, s):
        fields = b["token"].split(".")
        expect(b["role"] == role and b["view"] == (s[view] if view else None), f"minted {b}")
        expect(r.headers.get("Cache-Control") == "no-store", "no Cache-Control: no-store")
        expect(fields[:4] == ["ts1", s["sec"], role, s[view] if view else "-"] and len(fields) == 8, f"token fields {fields[:4]}")
    return check


def keep(key, member="token"):
    return lambda s, r, b: s.update({key: b[member]})


def problem(status_type, www=None, says=None):
    """A problem of this type (and WWW-Authenticate value; a `detail` that says this)."""
    def check(r, b, s):
        expect(b["type"] == status_type, f"problem {b}")
        if www is not None:
            expect(r.headers.get("WWW-Authenticate") == www, f"WWW-Authenticate {r.headers.get('WWW-Authenticate')}")
        if says is not None:
            expect(says in b["detail"], f"detail {b['detail']!r} does not say {says!r}")
        for key in ("reader", "owner", "bound"):
            expect(key not in s or s[key] not in b["detail"], "the detail echoes a token")
    return check


def tampered(s):
    """The reader's token with one character of its signature changed."""
    token = s["reader"]
    return {"Authorization": "Bearer " + token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]}


def under_unknown_key(s):
    """The reader's token claiming a key the server does not have."""
    fields = s["reader"].split(".")
    fields[6] = "gone"
    return {"Authorization": "Bearer " + ".".join(fields)}


def after_expiry(s):
    """Waits until the short token has expired, then sends it."""
    import time
    from datetime import datetime
    expires = datetime.fromisoformat(s["short_expires"].replace("Z", "+00:00")).timestamp()
    time.sleep(max(0.0, expires - time.time() + 0.05))
    return {"Authorization": "Bearer " + s["short"]}


def listed(*names, next_=False):
    def check(r, b, s):
        got = [entry["name"] for entry in b["sessions"]]
        expect(got == list(names), f"sessions {got}, expected {list(names)}")
        expect((b["next"] is not None) == next_, f"next {b['next']}")
        expect(all(entry["cursor"] for entry in b["sessions"]), "an entry without a cursor")
        expect(r.headers.get("Cache-Control") == "no-store", "no Cache-Control: no-store")
    return check


def summary_has(**members):
    def check(r, b, s):
        expect(all(b.get(k) == v for k, v in members.items()), f"summary {b}")
    return check


@steps(
    Step("secured: create with settings", "POST", "/sessions", 201, headers=AUTH,
         body={**TREE, "name": "Team tree", "labels": {"team": "search", "env": "test"}, "owner": "ana@example.com"},
         expect=summary_has(name="Team tree", labels={"env": "test", "team": "search"}, owner="ana@example.com",
                            tokensValidAfter=None),
         save=lambda s, r, b: s.update(sec=b["id"]), **SECURED),
    Step("secured: a view", "POST", SEC + "/views", 201, headers=AUTH, save=lambda s, r, b: s.update(secv=b["id"]), **SECURED),
    Step("secured: another session", "POST", "/sessions?name=Other", 201, headers=AUTH, body=[{"title": "x"}],
         save=lambda s, r, b: s.update(other=b["id"]), **SECURED),
    # Minting.
    Step("mint a reader token", "POST", SEC + "/tokens", 201, headers=AUTH, body={"role": "reader"},
         expect=minted("reader"), save=keep("reader"), **SECURED),
    Step("mint an editor token", "POST", SEC + "/tokens", 201, headers=AUTH, body={"role": "editor", "ttl": 600},
         expect=minted("editor"), save=keep("editor"), **SECURED),
    Step("mint an owner token", "POST", SEC + "/tokens", 201, headers=AUTH, body={"role": "owner", "ttl": 600, "view": None},
         expect=minted("owner"), save=lambda s, r, b: s.update(owner=b["token"], owner_expires=b["expiresAt"]), **SECURED),
    Step("mint a reader token bound to a view", "POST", SEC + "/tokens", 201, headers=AUTH,
         body=lambda s: {"role": "reader", "view": s["secv"]}, expect=minted("reader", "secv"), save=keep("bound"), **SECURED),
    Step("mint a token that lasts a second", "POST", SEC + "/tokens", 201, headers=AUTH, body={"role": "reader", "ttl": 1},
         save=lambda s, r, b: s.update(short=b["token"], short_expires=b["expiresAt"]), **SECURED),
    Step("mint: no role", "POST", SEC + "/tokens", 422, headers=AUTH, body={"ttl": 60},
         expect=lambda r, b, s: expect(b["pointer"] == "/role", f"{b}"), **SECURED),
    Step("mint: unknown role", "POST", SEC + "/tokens", 422, headers=AUTH, body={"role": "admin"}, **SECURED),
    Step("mint: ttl 0", "POST", SEC + "/tokens", 422, headers=AUTH, body={"role": "reader", "ttl": 0},
         expect=lambda r, b, s: expect(b["pointer"] == "/ttl", f"{b}"), **SECURED),
    Step("mint: ttl over --max-token-ttl", "POST", SEC + "/tokens", 422, headers=AUTH, body={"role": "reader", "ttl": 2592001}, **SECURED),
    Step("mint: a view the session does not have", "POST", SEC + "/tokens", 422, headers=AUTH,
         body={"role": "reader", "view": "0000000000000000"},
         expect=lambda r, b, s: expect(b["pointer"] == "/view", f"{b}"), **SECURED),
    Step("mint: unknown member", "POST", SEC + "/tokens", 422, headers=AUTH, body={"role": "reader", "scope": "all"}, **SECURED),
    Step("mint: a query parameter", "POST", SEC + "/tokens?ttl=60", 400, headers=AUTH, body={"role": "reader"}, **SECURED),
    Step("mint: no content type", "POST", SEC + "/tokens", 415, headers=AUTH, raw=b'{"role": "reader"}', **SECURED),
    Step("mint: unknown session", "POST", f"/sessions/{UNKNOWN}/tokens", 404, headers=AUTH, body={"role": "reader"}, **SECURED),
    Step("mint: without a credential", "POST", SEC + "/tokens", 401, body={"role": "reader"},
         expect=problem("urn:treesessions:problem:unauthorized", 'Bearer realm="tree-sessions"'), **SECURED),
    # The reader role.
    Step("reader: rows", "GET", SEC + "/rows", 200, headers=bearer("reader"), **SECURED),
    Step("reader: the summary", "GET", SEC, 200, headers=bearer("reader"), **SECURED),
    Step("reader: expand", "PATCH", SEC + "/items/docs", 200, headers=bearer("reader"), body={"expanded": True}, **SECURED),
    Step("reader: select", "PATCH", SEC + "/items/docs", 200, headers=bearer("reader"), body={"selected": True}, **SECURED),
    Step("reader: a batch of view changes", "POST", SEC + "/batch", 200, headers=bearer("reader"),
         body={"operations": [{"op": "collapseAll"}, {"op": "expand", "id": "docs", "expanded": True}]}, **SECURED),
    Step("reader: set the expansion", "PUT", SEC + "/expansion", 200, headers=bearer("reader"), body={"expanded": ["docs"]}, **SECURED),
    Step("reader: rename, refused", "PATCH", SEC + "/items/docs", 403, headers=bearer("reader"), body={"title": "Mine"},
         expect=problem(FORBIDDEN, says="editor"), **SECURED),
    Step("reader: move, refused", "PATCH", SEC + "/items/1", 403, headers=bearer("reader"), body={"parentId": None}, **SECURED),
    Step("reader: insert, refused", "POST", SEC + "/items", 403, headers=bearer("reader"), body=[{"title": "x"}],
         expect=problem(FORBIDDEN), **SECURED),
    Step("reader: delete an item, refused", "DELETE", SEC + "/items/docs", 403, headers=bearer("reader"), **SECURED),
    Step("reader: a batch with an edit, refused", "POST", SEC + "/batch", 403, headers=bearer("reader"),
         body={"operations": [{"op": "collapseAll"}, {"op": "delete", "id": "docs"}]}, **SECURED),
    Step("reader: an edit through a view, refused", "POST", SEC_VIEW + "/items", 403, headers=bearer("reader"),
         body=[{"title": "x"}], **SECURED),
    Step("reader: delete the session, refused", "DELETE", SEC, 403, headers=bearer("reader"), **SECURED),
    Step("reader: mint, refused", "POST", SEC + "/tokens", 403, headers=bearer("reader"), body={"role": "reader"}, **SECURED),
    Step("reader: settings, refused", "PATCH", SEC, 403, headers=bearer("reader"), body={"name": "Mine"},
         expect=problem(FORBIDDEN, says="owner"), **SECURED),
    Step("reader: metrics, refused", "GET", "/metrics", 403, headers=bearer("reader"), **SECURED),
    Step("reader: upload, refused", "POST", "/sessions", 403, headers=bearer("reader"), body=[{"title": "x"}], **SECURED),
    Step("reader: the session list is its session", "GET", "/sessions", 200, headers=bearer("reader"),
         expect=lambda r, b, s: expect([e["id"] for e in b["sessions"]] == [s["sec"]], f"{b}"), **SECURED),
    Step("reader: an events token", "POST", SEC + "/events/token", 201, headers=bearer("reader"),
         expect=lambda r, b, s: expect(b["token"].split(".")[2:4] == ["reader", "-"] and b["expiresIn"] <= 60, f"{b}"), **SECURED),
    # The editor and owner roles.
    Step("editor: rename", "PATCH", SEC + "/items/docs", 200, headers=bearer("editor"), body={"title": "Docs"}, **SECURED),
    Step("editor: a batch with an edit", "POST", SEC + "/batch", 200, headers=bearer("editor"),
         body={"operations": [{"op": "insert", "nodes": [{"title": "By the editor", "id": "ed1"}]}]}, **SECURED),
    Step("editor: settings, refused", "PATCH", SEC, 403, headers=bearer("editor"), body={"ttl": 60}, **SECURED),
    Step("editor: delete the session, refused", "DELETE", SEC, 403, headers=bearer("editor"), **SECURED),
    Step("owner: mint an editor token, expiring with the owner's", "POST", SEC + "/tokens", 201, headers=bearer("owner"),
         body={"role": "editor", "ttl": 86400},
         expect=lambda r, b, s: expect(b["expiresAt"] == s["owner_expires"], f"{b['expiresAt']} is not {s['owner_expires']}"), **SECURED),
    # A token bound to a view.
    Step("bound: its view's rows", "GET", SEC_VIEW + "/rows", 200, headers=bearer("bound"), **SECURED),
    Step("bound: expand in its view", "PATCH", SEC_VIEW + "/items/docs", 200, headers=bearer("bound"), body={"expanded": True}, **SECURED),
    Step("bound: the default view's rows, refused", "GET", SEC + "/rows", 403, headers=bearer("bound"),
         expect=problem(FORBIDDEN, says="bound to view"), **SECURED),
    Step("bound: the default view's expandAll, refused", "PATCH", SEC, 403, headers=bearer("bound"), body={"expandAll": True}, **SECURED),
    Step("bound: make a view, refused", "POST", SEC + "/views", 403, headers=bearer("bound"), **SECURED),
    Step("bound: the views are its view", "GET", SEC + "/views", 200, headers=bearer("bound"),
         expect=lambda r, b, s: expect([v["id"] for v in b["views"]] == [s["secv"]] and b["total"] == 1, f"{b}"), **SECURED),
    Step("bound: the summary", "GET", SEC, 200, headers=bearer("bound"), **SECURED),
    Step("bound: an events token, bound too", "POST", SEC + "/events/token", 201, headers=bearer("bound"),
         expect=lambda r, b, s: expect(b["token"].split(".")[3] == s["secv"], f"{b}"), **SECURED),
    # Credentials that are refused: 401.
    Step("no credential", "GET", SEC + "/rows", 401,
         expect=problem("urn:treesessions:problem:unauthorized", 'Bearer realm="tree-sessions"'), **SECURED),
    Step("a forged signature", "GET", SEC + "/rows", 401, headers=tampered,
         expect=problem("urn:treesessions:problem:unauthorized", INVALID_TOKEN, "signature"), **SECURED),
    Step("a key the server does not have", "GET", SEC + "/rows", 401, headers=under_unknown_key,
         expect=problem("urn:treesessions:problem:unauthorized", INVALID_TOKEN), **SECURED),
    Step("a malformed token", "GET", SEC + "/rows", 401, headers={"Authorization": "Bearer ts1.nothing"},
         expect=problem("urn:treesessions:problem:unauthorized", INVALID_TOKEN), **SECURED),
    Step("an unknown token", "GET", SEC + "/rows", 401, headers={"Authorization": "bearer not-a-token"},
         expect=problem("urn:treesessions:problem:unauthorized", INVALID_TOKEN), **SECURED),
    Step("another scheme", "GET", SEC + "/rows", 401, headers={"Authorization": "Basic YTpi"},
         expect=problem("urn:treesessions:problem:unauthorized", INVALID_TOKEN), **SECURED),
    Step("a token of another session", "GET", "/sessions/{other}/rows", 401, headers=bearer("reader"),
         expect=problem("urn:treesessions:problem:unauthorized", INVALID_TOKEN, "another session"), **SECURED),
    Step("an expired token", "GET", SEC + "/rows", 401, headers=after_expiry,
         expect=problem("urn:treesessions:problem:unauthorized", INVALID_TOKEN, "expired"), **SECURED),
    Step("the admin token as access_token", "GET", SEC + "/events?access_token=" + TOKEN, 401,
         expect=problem("urn:treesessions:problem:unauthorized", INVALID_TOKEN, "URL"), **SECURED),
    # Settings.
    Step("the version before the settings", "GET", SEC, 200, headers=AUTH,
         save=lambda s, r, b: s.update(sec_version=b["version"]), **SECURED),
    Step("owner: settings", "PATCH", SEC, 200, headers=bearer("owner"),
         body={"name": "Team tree, renamed", "labels": {"team": "search", "run": "pages"}, "ttl": 0},
         expect=lambda r, b, s: (summary_has(name="Team tree, renamed", labels={"run": "pages", "team": "search"}, ttl=0,
                                             expiresAt=None, owner="ana@example.com")(r, b, s),
                                 expect(r.headers["ETag"] == f'"{b["version"]}"', "ETag is not the version"),
                                 expect(b["version"] == s["sec_version"] + 1, f"version {b['version']}, before {s['sec_version']}")),
         save=lambda s, r, b: s.update(sec_version=b["version"]), **SECURED),
    Step("settings: the summary after", "GET", SEC, 200, headers=AUTH,
         expect=lambda r, b, s: expect(b["version"] == s["sec_version"] and b["name"] == "Team tree, renamed", f"{b}"),
         **SECURED),
    Step("settings: the same again steps nothing", "PATCH", SEC, 200, headers=AUTH, body={"name": "Team tree, renamed"},
         expect=lambda r, b, s: expect(b["version"] == s["sec_version"] and r.headers["ETag"] == f'"{s["sec_version"]}"', f"{b}"),
         **SECURED),
    Step("settings: If-Match current", "PATCH", SEC, 200, headers=lambda s: {**AUTH, "If-Match": f'"{s["sec_version"]}"'},
         body={"owner": None, "ttl": None}, expect=summary_has(owner=None, ttl=1800), **SECURED),
    Step("settings: If-Match stale", "PATCH", SEC, 412, headers={**AUTH, "If-Match": '"999"'}, body={"name": None}, **SECURED),
    Step("settings: mixed with a view's operation", "PATCH", SEC, 422, headers=AUTH, body={"name": "x", "expandAll": True}, **SECURED),
    Step("settings: with a filter", "PATCH", SEC + "?filter=doc", 400, headers=AUTH, body={"name": "x"}, **SECURED),
    Step("settings: an empty name", "PATCH", SEC, 422, headers=AUTH, body={"name": ""},
         expect=lambda r, b, s: expect(b["pointer"] == "/name", f"{b}"), **SECURED),
    Step("settings: a bad label key", "PATCH", SEC, 422, headers=AUTH, body={"labels": {"a b": "c"}}, **SECURED),
    Step("settings: 17 labels", "PATCH", SEC, 422, headers=AUTH, body={"labels": {f"k{i}": "v" for i in range(17)}}, **SECURED),
    Step("settings: tokensValidAfter in the future", "PATCH", SEC, 422, headers=AUTH,
         body={"tokensValidAfter": "2999-01-01T00:00:00Z"}, **SECURED),
    Step("settings: tokensValidAfter not a time", "PATCH", SEC, 422, headers=AUTH, body={"tokensValidAfter": "yesterday"}, **SECURED),
    Step("settings: an unknown session", "PATCH", f"/sessions/{UNKNOWN}", 404, headers=AUTH, body={"name": "x"}, **SECURED),
    Step("upload: name twice", "POST", "/sessions?name=a", 400, headers=AUTH, body={"nodes": [], "name": "b"}, **SECURED),
    Step("upload: a name with a control character", "POST", "/sessions", 422, headers=AUTH, body={"nodes": [], "name": "a\tb"}, **SECURED),
    # The session list.
    *[Step(f"upload page {i}", "POST", "/sessions", 201, headers=AUTH,
           body={"nodes": [{"title": "x"}], "name": f"Page {i}", "labels": {"run": "pages"}}, **SECURED) for i in (1, 2, 3)],
    Step("list by name, a page of 2", "GET", "/sessions?name=Page&limit=2", 200, headers=AUTH,
         expect=listed("Page 3", "Page 2", next_=True), save=lambda s, r, b: s.update(next_page=b["next"]), **SECURED),
    Step("list the page after", "GET", "/sessions?name=Page&limit=2&after={next_page}", 200, headers=AUTH,
         expect=listed("Page 1"), **SECURED),
    Step("list by label", "GET", "/sessions?label=run:pages", 200, headers=AUTH,
         expect=listed("Page 3", "Page 2", "Page 1", "Team tree, renamed"), **SECURED),
    Step("list by label and name", "GET", "/sessions?label=run:pages&name=Team", 200, headers=AUTH,
         expect=listed("Team tree, renamed"), **SECURED),
    Step("list head", "HEAD", "/sessions?limit=1", 200, headers=AUTH, **SECURED),
    Step("list: a label without a colon", "GET", "/sessions?label=run", 400, headers=AUTH, **SECURED),
    Step("list: not a cursor", "GET", "/sessions?after=page-2", 400, headers=AUTH, **SECURED),
    Step("list: limit 1001", "GET", "/sessions?limit=1001", 400, headers=AUTH, **SECURED),
    Step("list: unknown parameter", "GET", "/sessions?label=run:pages&owner=ana", 400, headers=AUTH, **SECURED),
    # Revocation.
    Step("the reader before tokensValidAfter", "GET", SEC, 200, headers=bearer("reader"), **SECURED),
    Step("revoke the tokens minted so far", "PATCH", SEC, 200, headers=AUTH, body={"tokensValidAfter": "now"},
         expect=lambda r, b, s: expect(b["tokensValidAfter"] is not None, f"{b}"), **SECURED),
    Step("a revoked reader token", "GET", SEC, 401, headers=bearer("reader"),
         expect=problem("urn:treesessions:problem:unauthorized", INVALID_TOKEN, "tokensValidAfter"), **SECURED),
    Step("a revoked owner token", "PATCH", SEC, 401, headers=bearer("owner"), body={"tokensValidAfter": None}, **SECURED),
    Step("mint after the revocation", "POST", SEC + "/tokens", 201, headers=AUTH, body={"role": "reader"},
         save=keep("fresh"), **SECURED),
    Step("a token minted after tokensValidAfter", "GET", SEC, 200, headers=bearer("fresh"), **SECURED),
    Step("tokensValidAfter cleared", "PATCH", SEC, 200, headers=AUTH, body={"tokensValidAfter": None},
         expect=summary_has(tokensValidAfter=None), **SECURED),
    Step("the old reader token again", "GET", SEC, 200, headers=bearer("reader"), **SECURED),
    Step("a reader token, deleting another session", "DELETE", "/sessions/{other}", 401, headers=bearer("fresh"), **SECURED),
    Step("admin: delete the session", "DELETE", SEC, 204, headers=AUTH, **SECURED),
)
def test_access(step, api, state):
    run(step, api, state)


def test_session_token_opens_event_streams(api, state):
    """A session token (not only the events token) opens its session's streams as access_token
    and as Authorization; a bound one only its view's stream; tokensValidAfter closes the
    streams of the tokens it revokes."""
    base = api.bases["secured"]
    sid = api.request("POST", "/sessions", server="secured", headers=AUTH, body=TREE).json()["id"]
    vid = api.request("POST", f"/sessions/{sid}/views", server="secured", headers=AUTH).json()["id"]
    reader = api.request("POST", f"/sessions/{sid}/tokens", server="secured", headers=AUTH, body={"role": "reader"}).json()["token"]
    bound = api.request("POST", f"/sessions/{sid}/tokens", server="secured", headers=AUTH,
                        body={"role": "reader", "view": vid}).json()["token"]
    for url, headers in ((f"{base}/sessions/{sid}/events?access_token={reader}", {}),
                         (f"{base}/sessions/{sid}/events", {"Authorization": f"Bearer {reader}"}),
                         (f"{base}/sessions/{sid}/views/{vid}/events?access_token={bound}", {})):
        with api.http.get(url, headers=headers, stream=True, timeout=10) as stream:
            _, problems = api.spec.problems("GET", stream, 200)
            assert not problems, problems
            assert next(events_of(stream))["event"] == "reset"
    refused = api.http.get(f"{base}/sessions/{sid}/events?access_token={bound}", timeout=10)
    _, problems = api.spec.problems("GET", refused, 403)
    assert not problems, problems
    # tokensValidAfter closes the streams opened with the tokens it revokes, without `end`;
    # their reconnects get 401.
    with api.http.get(f"{base}/sessions/{sid}/events?access_token={reader}", stream=True, timeout=10) as stream:
        events = events_of(stream)
        assert next(events)["event"] == "reset"
        revoked = api.request("PATCH", f"/sessions/{sid}", server="secured", headers=AUTH, body={"tokensValidAfter": "now"})
        assert revoked.status_code == 200, revoked.text
        assert all(event["event"] != "end" for event in events)
    again = api.http.get(f"{base}/sessions/{sid}/events?access_token={reader}", timeout=10)
    _, problems = api.spec.problems("GET", again, 401)
    assert not problems, problems
    assert api.request("DELETE", f"/sessions/{sid}", server="secured", headers=AUTH).status_code == 204
