"""openapi.yaml through a generated client: openapi-python-client generates a Python package
from the spec (with the config beside this file) without a warning, and a short scenario runs
through its typed functions and models against a live tree-server.

The generator writes broken code for an operation whose request body has several media types
when one of them is a JSON array or a union (`isinstance(body, list[Node] | SessionUpload)`),
so it reads the spec with the upload formats other than JSON left out of request bodies (CSV,
NDJSON, path lists: text that Tests/API/test_formats.py sends)."""
import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from openapi_check import SPEC_PATH

CONFIG = Path(__file__).resolve().parent / "openapi-python-client.yaml"
UNKNOWN = "AAAAAAAAAAAAAAAAAAAAAA"


@pytest.fixture(scope="module")
def tsc(tmp_path_factory):
    """The generated package, imported."""
    # The generator and ruff (which it runs on the code) come with the interpreter's packages.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    generator = shutil.which("openapi-python-client", path=path)
    if generator is None:
        pytest.fail("openapi-python-client is not installed: pip install -r Tests/API/requirements.txt",
                    pytrace=False)
    out = tmp_path_factory.mktemp("client")
    spec = yaml.safe_load(SPEC_PATH.read_text())
    for operation in (op for item in spec["paths"].values() for op in item.values() if isinstance(op, dict)):
        content = operation.get("requestBody", {}).get("content", {})
        for media_type in [t for t in content if t != "application/json"]:
            del content[media_type]
    json_only = out / "openapi-json-bodies.yaml"
    json_only.write_text(yaml.safe_dump(spec, sort_keys=False, allow_unicode=True))
    result = subprocess.run(
        [generator, "generate", "--path", str(json_only), "--config", str(CONFIG),
         "--output-path", str(out / "tree_sessions_client"), "--meta", "none"],
        capture_output=True, text=True, env={**os.environ, "PATH": path}, timeout=300)
    output = (result.stdout + result.stderr).strip()
    assert result.returncode == 0, output
    # A clean generation prints only "Generating <path>": no warning, no part left out.
    assert output.splitlines() == [f"Generating {out / 'tree_sessions_client'}"], output
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module("tree_sessions_client")
    finally:
        sys.path.remove(str(out))


@pytest.fixture(scope="module")
def client(tsc, api):
    return tsc.Client(base_url=api.bases["main"], raise_on_unexpected_status=True)


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
