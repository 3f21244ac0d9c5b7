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
@pytest.mark.parametrize("method, path", [("PUT", "/sessions"), ("GET", "/sessions"), ("POST", "/sessions/{sid}"),
                                          ("DELETE", "/sessions/{sid}/rows")])
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
    Step("limited: demo page without token", "GET", "/", 401, **LIMITED),
    Step("limited: metrics without token", "GET", "/metrics", 401, **LIMITED),
    Step("limited: spec without token", "GET", "/openapi.yaml", 401, **LIMITED),
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
