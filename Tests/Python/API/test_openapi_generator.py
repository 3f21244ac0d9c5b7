"""openapi.yaml through openapi-generator's Python client: the generator (the jar of the PyPI
package openapi-generator-cli, run by the `java` on PATH) reads the spec the server serves
(GET /openapi.yaml, which must be the repository's file byte for byte; nothing is edited),
with its validation on and its default options, and the generated typed client runs a
scenario against that server: uploads as an object and as a bare array, changes, inserts, a
batch, typed problems, and an event stream read whole."""
import importlib
import json
import os
import shutil
import subprocess
import sys

import pytest

from openapi_check import WholeStream, parse_events, served_spec

UNKNOWN = "AAAAAAAAAAAAAAAAAAAAAA"


@pytest.fixture(scope="module")
def oag(tmp_path_factory, api):
    """The generated package `tree_sessions_oag`, imported."""
    try:
        import openapi_generator_cli
    except ImportError:
        pytest.fail("openapi-generator-cli is not installed: pip install -r Tests/Python/API/requirements.txt", pytrace=False)
    if shutil.which("java") is None:
        pytest.fail("no java on PATH: apt-get install default-jre-headless", pytrace=False)
    jar = os.path.join(os.path.dirname(openapi_generator_cli.__file__), "openapi-generator.jar")
    served_spec(api.bases["main"])
    out = tmp_path_factory.mktemp("oag")
    result = subprocess.run(
        ["java", "-jar", jar, "generate", "-g", "python", "-i", api.bases["main"] + "/openapi.yaml", "-o", str(out),
         "--package-name", "tree_sessions_oag"], capture_output=True, text=True, timeout=600)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "ERROR" not in output and "Exception" not in output, output
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module("tree_sessions_oag")
    finally:
        sys.path.remove(str(out))


def test_scenario(oag, api):
    from tree_sessions_oag.models import (
        CreateSessionBody, Expand, ExpandMode, InsertAsChildren, InsertItemsBody, Node, NodeId, ParentId,
        PatchItemBody, Problem, RowsPage, SessionSummary, SessionUpload, SetExpanded)

    client = oag.ApiClient(oag.Configuration(host=api.bases["main"]))
    sessions, rows, items = oag.SessionsApi(client), oag.RowsApi(client), oag.ItemsApi(client)

    upload = SessionUpload(nodes=[
        Node(title="Documents", id=NodeId("docs"), children=[Node(title="Face", id=NodeId(1))]),
        Node(title="Pictures", id=NodeId("pics")),
    ], expand=Expand(ExpandMode.ALL))
    session = sessions.create_session(CreateSessionBody(upload))
    assert isinstance(session, SessionSummary) and (session.version, session.total) == (1, 3)

    page = rows.get_rows(session.id, filter="face")
    assert isinstance(page, RowsPage) and page.filter == "face" and page.match_count == 1
    assert [(r.id.actual_instance, r.match, r.match_ranges) for r in page.rows] == [
        ("docs", False, []), (1, True, [[0, 4]])]

    changed = items.patch_item(session.id, "docs", PatchItemBody(SetExpanded(expanded=False)))
    assert (changed.version, changed.total, changed.index) == (2, 2, 0)

    inserted = items.insert_items(session.id, InsertItemsBody(InsertAsChildren(
        nodes=[Node(title="Loaded", id=NodeId(7))], parent_id=ParentId("pics"), index=0)))
    assert (inserted.version, [i.actual_instance for i in inserted.ids]) == (3, [7])

    exported = sessions.get_tree(session.id)
    again = sessions.create_session(CreateSessionBody.from_json(exported.to_json()))
    assert [n.id.actual_instance for n in sessions.get_tree(again.id).nodes] == ["docs", "pics"]

    from tree_sessions_oag.models import BatchBody, BatchOperation, DeleteOperation, InsertBeforeOperation, RevealOperation
    batched = items.apply_batch(session.id, BatchBody(operations=[
        BatchOperation(InsertBeforeOperation(op="insert", nodes=[Node(title="First", id=NodeId("f"))], before=NodeId("docs"))),
        BatchOperation(RevealOperation(op="reveal", id=NodeId(7))),
        BatchOperation(DeleteOperation(op="delete", id=NodeId("f"))),
    ]))
    assert (batched.version, batched.total) == (4, 3)
    assert [r.to_dict() for r in batched.results] == [{"index": None, "ids": ["f"]}, {"index": 2}, {"index": None}]

    with pytest.raises(oag.ApiException) as raised:
        sessions.get_session(UNKNOWN)
    assert raised.value.status == 404 and isinstance(raised.value.data, Problem)
    assert raised.value.data.type == "urn:treesessions:problem:not-found"

    with pytest.raises(oag.ApiException) as raised:
        sessions.create_session(CreateSessionBody([Node(title="a", id=NodeId(4)), Node(title="b", id=NodeId("4"))]))
    assert raised.value.status == 422 and isinstance(raised.value.data, Problem)
    assert (raised.value.data.type, raised.value.data.pointer) == ("urn:treesessions:problem:invalid-node", "/1/id")


def test_bare_arrays(oag, api):
    """A bare array of nodes is an upload and an insert of its own (the oneOf's NodeList)."""
    from tree_sessions_oag.models import CreateSessionBody, InsertItemsBody, Node, NodeId

    client = oag.ApiClient(oag.Configuration(host=api.bases["main"]))
    sessions, rows, items = oag.SessionsApi(client), oag.RowsApi(client), oag.ItemsApi(client)
    session = sessions.create_session(CreateSessionBody([Node(title="Inbox", id=NodeId("in")), Node(title="Archive")]))
    assert (session.version, session.node_count, session.total) == (1, 2, 2)
    inserted = items.insert_items(session.id, InsertItemsBody([Node(title="Last", id=NodeId(9))]))
    assert (inserted.version, [i.actual_instance for i in inserted.ids], inserted.index) == (2, [9], 2)
    assert [r.id.actual_instance for r in rows.get_rows(session.id).rows] == ["in", "~1", 9]


def test_event_stream(oag, api):
    """get_events answers the stream as text (EventStream) once it ends: a reset, the change
    made while it was open, and the end of the deleted session, each a StreamEvent of the spec."""
    from tree_sessions_oag.models import CreateSessionBody, EventStream, Node, NodeId, PatchItemBody, SessionUpload, SetExpanded

    client = oag.ApiClient(oag.Configuration(host=api.bases["main"]))
    sessions, items, events_api = oag.SessionsApi(client), oag.ItemsApi(client), oag.EventsApi(client)
    sid = sessions.create_session(CreateSessionBody(SessionUpload(nodes=[
        Node(title="Documents", id=NodeId("docs"), children=[Node(title="Face")])]))).id
    stream = WholeStream(api.bases["main"], lambda: events_api.get_events(sid))
    changed = items.patch_item(sid, "docs", PatchItemBody(SetExpanded(expanded=True)))
    sessions.delete_session(sid)
    body = stream.result()
    assert isinstance(body, EventStream) and isinstance(body.actual_instance, str), body
    events = parse_events(body.actual_instance)
    assert [(e["event"], e.get("id")) for e in events] == [("reset", "1"), ("change", "2"), ("end", "2")], events
    assert json.loads(events[1]["data"]) == json.loads(changed.to_json())
    for event in events:
        assert not api.spec.event_problems(event), (event, api.spec.event_problems(event))


def test_views(oag, api):
    """A view through the generated client: made, changed on its own, read, and deleted."""
    from tree_sessions_oag.models import CreateSessionBody, CreateViewBody, Node, NodeId, PatchItemBody, SessionUpload, SetExpanded

    client = oag.ApiClient(oag.Configuration(host=api.bases["main"]))
    sessions, rows, views = oag.SessionsApi(client), oag.RowsApi(client), oag.ViewsApi(client)
    sid = sessions.create_session(CreateSessionBody(SessionUpload(nodes=[
        Node(title="Documents", id=NodeId("docs"), children=[Node(title="Face")])]))).id
    view = views.create_view(sid, create_view_body=CreateViewBody())
    assert (view.version, view.total) == (1, 1)
    changed = views.patch_view_item(sid, view.id, "docs", PatchItemBody(SetExpanded(expanded=True)))
    assert (changed.version, changed.total) == (2, 2)
    assert [r.id.actual_instance for r in views.get_view_rows(sid, view.id).rows] == ["docs", "~1"]
    assert rows.get_rows(sid).version == 1
    assert [v.id for v in views.list_views(sid).views] == [view.id]
    views.delete_view(sid, view.id)
    with pytest.raises(oag.ApiException) as raised:
        views.get_view(sid, view.id)
    assert raised.value.status == 404

