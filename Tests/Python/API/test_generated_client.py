"""openapi.yaml through a generated client: openapi-python-client, as it comes (no
configuration), generates a Python package from the spec the server serves (GET /openapi.yaml,
which must be the repository's file byte for byte; nothing is edited), and a scenario runs
through its typed functions and models against that server: uploads as an object and as a
bare array of nodes, pages, changes, inserts, a batch, typed problems, and an event stream
read whole.

The generator has no request bodies of text (CSV, TSV, NDJSON, path lists: test_formats.py
sends those) and no YAML responses (the body of GET /openapi.yaml). It leaves each out with a
warning: those warnings, computed from the spec, are the only ones allowed. Every other part
of the spec must generate, and no request body may be told apart by a parameterized type
(`isinstance(body, list[Node] | SessionUpload)` raises TypeError on the first call): each
operation has one body the generator reads, JSON, whose union of the object and the bare
array of nodes is sent as it is."""
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from openapi_check import WholeStream, parse_events, served_spec

UNKNOWN = "AAAAAAAAAAAAAAAAAAAAAA"
# What openapi-python-client reads: JSON, text and bytes (strings.py, parser/bodies.py and
# parser/responses.py of its sources). A request body of text is not among them.
BODY_TYPES = re.compile(r"^application/(json|octet-stream|x-www-form-urlencoded|[^;]+\+json)$|^multipart/form-data$")
RESPONSE_TYPES = re.compile(r"^application/(json|octet-stream|[^;]+\+json)$|^text/")


def expected_warnings(spec):
    """(method, path, detail) of each part of the spec that the generator cannot express."""
    expected = set()
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            for media_type in operation.get("requestBody", {}).get("content", {}):
                if not BODY_TYPES.match(media_type):
                    expected.add((method.upper(), path, f"Unsupported content type {media_type}"))
            for response in operation["responses"].values():
                if "$ref" in response:
                    response = spec["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
                content = response.get("content", {})
                if content and not any(RESPONSE_TYPES.match(t) for t in content):
                    expected.add((method.upper(), path,
                                  f"Cannot parse response for status code <status> (Unsupported content_type "
                                  f"{', '.join(content)}), response will be omitted from generated client"))
    return expected


def warnings_of(output):
    """(method, path, detail) of each WARNING or ERROR block the generator printed."""
    found = set()
    for match in re.finditer(r"^(?:WARNING|ERROR) parsing (\S+) (\S+) within .*\n\n(.+)$", output, re.MULTILINE):
        method, path, detail = match.groups()
        found.add((method, path, re.sub(r"<[^>]*>", "<status>", detail.strip())))
    return found


@pytest.fixture(scope="module")
def tsc(tmp_path_factory, api):
    """The generated package, imported."""
    # The generator and ruff (which it runs on the code) come with the interpreter's packages.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    generator = shutil.which("openapi-python-client", path=path)
    if generator is None:
        pytest.fail("openapi-python-client is not installed: pip install -r Tests/Python/API/requirements.txt",
                    pytrace=False)
    spec = yaml.safe_load(served_spec(api.bases["main"]))
    out = tmp_path_factory.mktemp("client")
    package = out / "tree_sessions_client"
    result = subprocess.run(
        [generator, "generate", "--url", api.bases["main"] + "/openapi.yaml", "--output-path", str(package),
         "--meta", "none"],
        capture_output=True, text=True, env={**os.environ, "PATH": path}, timeout=300)
    output = (result.stdout + result.stderr).strip()
    assert result.returncode == 0, output
    assert output.startswith(f"Generating {package}"), output
    assert "will not be generated" not in output, output
    assert warnings_of(output) == expected_warnings(spec), output
    for module in (package / "api").rglob("*.py"):
        for match in re.finditer(r"isinstance\(body, ([^)]*)\)", module.read_text()):
            assert "[" not in match.group(1), f"{module.name}: isinstance(body, {match.group(1)})"
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module("tree_sessions_client")
    finally:
        sys.path.remove(str(out))


@pytest.fixture(scope="module")
def client(tsc, api):
    return tsc.Client(base_url=api.bases["main"], raise_on_unexpected_status=True)


def test_bare_arrays(tsc, client):
    """A bare array of nodes is an upload and an insert of its own (the JSON body's union)."""
    from tree_sessions_client.api.items import insert_items
    from tree_sessions_client.api.rows import get_rows
    from tree_sessions_client.api.sessions import create_session
    from tree_sessions_client.models import InsertResponse, Node, SessionSummary

    session = create_session.sync(client=client, body=[Node(title="Inbox", id="in"), Node(title="Archive")])
    assert isinstance(session, SessionSummary) and (session.version, session.node_count, session.total) == (1, 2, 2)
    inserted = insert_items.sync(session.id, client=client, body=[Node(title="Last", id=9)])
    assert isinstance(inserted, InsertResponse) and (inserted.version, inserted.ids, inserted.index) == (2, [9], 2)
    assert [row.id for row in get_rows.sync(session.id, client=client).rows] == ["in", "~1", 9]


def test_event_stream(tsc, client, api):
    """get_events returns the stream as text once it ends: a reset, the change made while it
    was open, and the end of the deleted session, each a StreamEvent of the spec."""
    from tree_sessions_client.api.events import get_events
    from tree_sessions_client.api.items import patch_item
    from tree_sessions_client.api.sessions import create_session, delete_session
    from tree_sessions_client.models import ItemChangeResponse, Node, SessionUpload, SetExpanded

    sid = create_session.sync(client=client, body=SessionUpload(nodes=[
        Node(title="Documents", id="docs", children=[Node(title="Face")])])).id
    stream = WholeStream(api.bases["main"], lambda: get_events.sync(sid, client=client))
    changed = patch_item.sync(sid, "docs", client=client, body=SetExpanded(expanded=True))
    assert isinstance(changed, ItemChangeResponse)
    assert delete_session.sync_detailed(sid, client=client).status_code == 204
    body = stream.result()
    assert isinstance(body, str), body
    events = parse_events(body)
    assert [(e["event"], e.get("id")) for e in events] == [("reset", "1"), ("change", "2"), ("end", "2")], events
    assert json.loads(events[1]["data"]) == changed.to_dict()
    for event in events:
        assert not api.spec.event_problems(event), (event, api.spec.event_problems(event))


def test_scenario(tsc, client):
    from tree_sessions_client.api.items import insert_items, patch_item
    from tree_sessions_client.api.rows import get_rows
    from tree_sessions_client.api.sessions import create_session, get_session, get_tree
    from tree_sessions_client.models import (
        ExpandMode, InsertAsChildren, InsertResponse, ItemChangeResponse, MatchMode, Node, Problem, RowsPage,
        SessionSummary, SessionUpload, SetExpanded, TreeExport)
    from tree_sessions_client.types import UNSET

    # Create.
    upload = SessionUpload(nodes=[
        Node(title="Documents", id="docs", children=[
            Node(title="Compositional Layout", id=1, data={"size": 3}),
            Node(title="Diffable Data Source", children=[Node(title="Cell registration")]),
        ]),
        Node(title="Pictures", id="pics", expanded=True, children=[Node(title="Face")]),
    ], expand=ExpandMode.NONE)
    response = create_session.sync_detailed(client=client, body=upload)
    assert response.status_code == 201
    session = response.parsed
    assert isinstance(session, SessionSummary)
    assert (session.version, session.node_count, session.total) == (1, 6, 3)
    sid = session.id

    # The unfiltered page has no matchCount, its rows no match.
    page = get_rows.sync(sid, client=client)
    assert isinstance(page, RowsPage)
    assert page.filter_ is None and page.match_count is UNSET
    assert [(row.id, row.level) for row in page.rows] == [("docs", 0), ("pics", 0), ("~5", 1)]
    assert all(row.match is UNSET and row.match_ranges is UNSET for row in page.rows)

    # A filtered page: typed matchCount, and every row's match and matchRanges.
    page = get_rows.sync(sid, client=client, filter_="ce", match=MatchMode.CONTAINS)
    assert isinstance(page, RowsPage)
    assert page.filter_ == "ce" and page.match_count == 3
    assert [(row.title, row.match, row.match_ranges) for row in page.rows] == [
        ("Documents", False, []),
        ("Diffable Data Source", True, [[18, 2]]),
        ("Cell registration", True, [[0, 2]]),
        ("Pictures", False, []),
        ("Face", True, [[2, 2]]),
    ]

    # Expand.
    changed = patch_item.sync(sid, "docs", client=client, body=SetExpanded(expanded=True))
    assert isinstance(changed, ItemChangeResponse)
    assert (changed.version, changed.total, changed.index) == (2, 5, 0)
    assert [(s.index, s.removed, s.inserted) for s in changed.changes] == [(1, 0, 2)]

    # Insert.
    inserted = insert_items.sync(sid, client=client, body=InsertAsChildren(
        nodes=[Node(title="Loaded", id=7)], parent_id="docs", index=0))
    assert isinstance(inserted, InsertResponse)
    assert (inserted.version, inserted.ids, inserted.index) == (3, [7], 1)

    # Export and upload the export again: the same tree, the same unfiltered expansion.
    exported = get_tree.sync(sid, client=client)
    assert isinstance(exported, TreeExport)
    docs = exported.nodes[0]
    assert (docs.id, docs.expanded, docs.children[0].id, docs.children[0].expanded) == ("docs", True, 7, UNSET)
    again = create_session.sync(client=client, body=SessionUpload.from_dict(exported.to_dict()))
    assert isinstance(again, SessionSummary)
    assert get_tree.sync(again.id, client=client).to_dict() == exported.to_dict()
    assert [row.to_dict() for row in get_rows.sync(again.id, client=client, limit=1000).rows] == \
        [row.to_dict() for row in get_rows.sync(sid, client=client, limit=1000).rows]

    # A batch of typed operations: one change, one result each.
    from tree_sessions_client.api.items import apply_batch
    from tree_sessions_client.models import (
        BatchBody, BatchResponse, ExpandOperation, ExpandOperationOp, InsertAfterOperation, InsertAfterOperationOp,
        UpdateOperation, UpdateOperationOp)
    batched = apply_batch.sync(sid, client=client, body=BatchBody(operations=[
        InsertAfterOperation(op=InsertAfterOperationOp.INSERT, nodes=[Node(title="Sibling", id=8)], after="docs"),
        UpdateOperation(op=UpdateOperationOp.UPDATE, id=8, title="Renamed"),
        ExpandOperation(op=ExpandOperationOp.EXPAND, id="docs", expanded=False),
    ]))
    assert isinstance(batched, BatchResponse)
    assert (batched.version, batched.total) == (4, 4)
    assert [r.to_dict() for r in batched.results] == [{"index": 1, "ids": [8]}, {"index": 1}, {"index": 0}]
    response = apply_batch.sync_detailed(sid, client=client, body=BatchBody(operations=[
        UpdateOperation(op=UpdateOperationOp.UPDATE, id=8, title="Again"),
        ExpandOperation(op=ExpandOperationOp.EXPAND, id="nope", expanded=True),
    ]))
    assert response.status_code == 404
    assert isinstance(response.parsed, Problem) and response.parsed.pointer == "/operations/1/id"

    # A 404 and a 422 as typed problems.
    response = get_session.sync_detailed(UNKNOWN, client=client)
    assert response.status_code == 404
    problem = response.parsed
    assert isinstance(problem, Problem)
    assert (problem.type_, problem.status) == ("urn:treesessions:problem:not-found", 404)
    response = create_session.sync_detailed(client=client, body=[Node(title="a", id=4), Node(title="b", id="4")])
    assert response.status_code == 422
    problem = response.parsed
    assert isinstance(problem, Problem)
    assert (problem.type_, problem.status, problem.pointer) == ("urn:treesessions:problem:invalid-node", 422, "/1/id")


def test_views(tsc, client):
    """A view through the generated client: made fresh and as a copy, listed, read, changed
    on its own (the default view does not move), and deleted."""
    from tree_sessions_client.api.rows import get_rows
    from tree_sessions_client.api.sessions import create_session
    from tree_sessions_client.api.views import (
        create_view, delete_view, get_view, get_view_rows, list_views, patch_view_item)
    from tree_sessions_client.models import (
        CreateViewBody, ItemChangeResponse, Node, RowsPage, SessionUpload, SetExpanded, ViewList, ViewSummary)

    sid = create_session.sync(client=client, body=SessionUpload(nodes=[
        Node(title="Documents", id="docs", children=[Node(title="Face")]), Node(title="Pictures", id="pics")])).id
    view = create_view.sync(sid, client=client)
    assert isinstance(view, ViewSummary) and (view.version, view.total) == (1, 2)
    expanded = create_view.sync(sid, client=client, body=CreateViewBody(expand="all"))
    assert isinstance(expanded, ViewSummary) and expanded.total == 3
    copy = create_view.sync(sid, client=client, body=CreateViewBody(from_=expanded.id))
    assert isinstance(copy, ViewSummary) and copy.total == 3
    listed = list_views.sync(sid, client=client)
    assert isinstance(listed, ViewList) and [v.id for v in listed.views] == [view.id, expanded.id, copy.id]

    changed = patch_view_item.sync(sid, view.id, "docs", client=client, body=SetExpanded(expanded=True))
    assert isinstance(changed, ItemChangeResponse) and (changed.version, changed.total) == (2, 3)
    page = get_view_rows.sync(sid, view.id, client=client)
    assert isinstance(page, RowsPage) and page.version == 2 and [r.id for r in page.rows] == ["docs", "~1", "pics"]
    assert get_rows.sync(sid, client=client).version == 1
    assert get_view.sync(sid, expanded.id, client=client).version == 1

    assert delete_view.sync_detailed(sid, view.id, client=client).status_code == 204
    assert get_view.sync_detailed(sid, view.id, client=client).status_code == 404
