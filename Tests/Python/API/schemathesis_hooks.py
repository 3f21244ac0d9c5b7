"""Schemathesis hook: keeps generated bodies within the two rules of the API that JSON Schema
cannot state, so that a schema-valid request must be accepted (see schemathesis.toml).

* Node ids are unique in a session (by their string form), across requests: every string or
  integral id in the nodes of an upload or insert (also an insert operation of a batch) gets a
  fresh value of the same JSON type.
* An `index` (insert as children, move; also in a batch) must not pass the parent's number of
  children: a valid one becomes 0, which every parent allows, written as the same JSON type
  (`0` or `0.0`).

* The other upload formats (CSV, TSV, NDJSON, path lists) are typed `string` in the spec: a
  body of one of them becomes a small valid one with fresh ids; `format`, `separator` and
  `columns` (which name how to read the body) are left out of uploads, and `parentId` of an
  insert unless the body is a path list (rows name their parents themselves).
* `expand`, `ttl` and `name` may be members of a nested upload or query parameters, not both:
  the query parameter is left out when the body has the member.
* `tokensValidAfter` is a time from 1970 up to now: a valid time outside that becomes
  2020-01-01T00:00:00Z. The session's settings take no filter: `filter`, `where` and `fields`
  are left out of a `PATCH /sessions/{sid}` whose body holds settings.
* `view` of `POST /sessions/{sid}/tokens` must be a view of the session (else 422): a valid one
  becomes `null`.
* `access_token` of an event stream is left out: a generated one is never a token the server
  minted (401); test_scenarios.py opens streams with real ones.
* `fields`, `where`, `aggregate` and `sort` (a query parameter, or a view's `sort` member) have a
  grammar of their own (docs/API.md): a generated value becomes a valid one, and `fields` is left out unless a `filter` or `highlight` text
  is there to search.
* Query parameters that exclude each other: `before` is left out of matches with `after`,
  `highlight` out of rows and matches with `filter`; matches with neither `filter` nor
  `highlight` get `filter=a`.

The routes under `/sessions/{sid}/views/{vid}/` are treated as the default view's routes they
repeat.

Only values that are valid are rewritten, so a request that breaks the schema still does.

With TREE_READER_SESSION set (test_schemathesis.py's run with a reader token), every valid `sid`
becomes that session and every valid `vid` TREE_READER_VIEW, the session and view the token
reaches; and the check `reader_never_edits` fails any 2xx answer to a request that a reader may
not make (`is_edit`).
"""
import itertools
import os
from datetime import datetime, timezone

import jsonschema
import schemathesis

_fresh = itertools.count(1)

# NDJSON bodies are text, sent as they are (the hook below makes them valid rows).
schemathesis.serializer.alias("application/x-ndjson", "text/plain")
INT64 = (-(2 ** 63), 2 ** 63 - 1)


def integral(value):
    return (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, float) and value.is_integer())


def fresh_id(value):
    if isinstance(value, str):
        return f"{value}#{next(_fresh)}"
    if integral(value) and INT64[0] <= value <= INT64[1]:
        return type(value)(10 ** 15 + next(_fresh))
    return value


def fresh_nodes(nodes):
    if not isinstance(nodes, list):
        return nodes
    out = []
    for node in nodes:
        if isinstance(node, dict):
            node = dict(node)
            if "id" in node:
                node["id"] = fresh_id(node["id"])
            if "children" in node:
                node["children"] = fresh_nodes(node["children"])
        out.append(node)
    return out


def index_zero(body):
    index = body.get("index")
    if integral(index) and 0 <= index <= INT64[1]:
        body["index"] = type(index)(0)
    return body


SETTINGS = {"name", "labels", "owner", "ttl", "tokensValidAfter"}
# Batch operations that edit the tree (the editor role).
EDIT_OPERATIONS = {"insert", "delete", "move", "update", "deleteSelected", "moveSelected"}
_formats = jsonschema.Draft202012Validator.FORMAT_CHECKER


def bounded_settings(body):
    """A `tokensValidAfter` before 1970 or in the future moved into that span."""
    body = dict(body)
    after = body.get("tokensValidAfter")
    if isinstance(after, str) and after != "now" and _formats.conforms(after, "date-time"):
        try:
            when = datetime.fromisoformat(after.upper().replace("Z", "+00:00"))
        except ValueError:
            when = None
        if when is None or when > datetime.now(timezone.utc) or when < datetime(1970, 1, 1, tzinfo=timezone.utc):
            body["tokensValidAfter"] = "2020-01-01T00:00:00Z"
    return body


def is_edit(method, path, body):
    """Whether a request (`path` a template) needs more than the reader role of its session: an
    edit of the tree, the session's deletion, settings or tokens, an upload, the metrics."""
    route = (method.upper(), path.replace("/views/{vid}/", "/"))
    if route in {("POST", "/sessions"), ("GET", "/metrics"), ("HEAD", "/metrics"), ("DELETE", "/sessions/{sid}"),
                 ("POST", "/sessions/{sid}/tokens"), ("POST", "/sessions/{sid}/items"),
                 ("DELETE", "/sessions/{sid}/items/{itemId}")}:
        return True
    if not isinstance(body, dict):
        return False
    if route == ("PATCH", "/sessions/{sid}/items/{itemId}"):
        return bool({"title", "data", "parentId", "index"} & set(body))
    if route == ("PATCH", "/sessions/{sid}"):
        return bool(SETTINGS & set(body))
    if route == ("POST", "/sessions/{sid}/batch") and isinstance(body.get("operations"), list):
        return any(isinstance(op, dict) and op.get("op") in EDIT_OPERATIONS for op in body["operations"])
    return False


READER_SESSION = os.environ.get("TREE_READER_SESSION")
READER_VIEW = os.environ.get("TREE_READER_VIEW")

if READER_SESSION:
    @schemathesis.check
    def reader_never_edits(ctx, response, case):
        """A reader token never gets a 2xx for a request that needs more than reading."""
        if 200 <= response.status_code < 300 and is_edit(case.method, case.path, case.body):
            raise AssertionError(f"a reader token got {response.status_code} for {case.method} {case.path}, "
                                 "which needs the editor or owner role (or an admin token)")


def other_format_body(media_type):
    """A small valid body of a row or path-list media type, with fresh ids; None for JSON."""
    n = next(_fresh)
    if media_type == "text/csv":
        return f"id,parentId,title\r\nc{n},,Row {n}\r\nc{n}.1,c{n},\"Child, {n}\"\r\n"
    if media_type == "text/tab-separated-values":
        return f"id\tparentId\ttitle\r\nt{n}\t\tRow {n}\r\nt{n}.1\tt{n}\tChild {n}\r\n"
    if media_type == "application/x-ndjson":
        return f'{{"id":"j{n}","title":"Row {n}"}}\n{{"id":"j{n}.1","parentId":"j{n}","title":"Child"}}\n'
    if media_type == "text/plain":
        return f"p{n}/a.txt\np{n}/b/\n"
    return None


@schemathesis.hook
def before_call(context, case, kwargs):
    operation = context.operation
    if operation is None:
        return
    # A view's routes take what the default view's take.
    route = (operation.method.upper(), operation.path.replace("/views/{vid}/", "/"))
    body = case.body
    if READER_SESSION and isinstance(case.path_parameters, dict):
        parameters = dict(case.path_parameters)
        for name, value in (("sid", READER_SESSION), ("vid", READER_VIEW)):
            if isinstance(parameters.get(name), str) and "\0" not in parameters[name]:
                parameters[name] = value
        case.path_parameters = parameters
    if route[1] == "/sessions/{sid}/events" and isinstance(case.query, dict) and "access_token" in case.query:
        case.query = {k: v for k, v in case.query.items() if k != "access_token"}
    if route in {("POST", "/sessions"), ("PATCH", "/sessions/{sid}")} and isinstance(body, dict) and SETTINGS & set(body):
        body = case.body = bounded_settings(body)
        if route[0] == "PATCH" and isinstance(case.query, dict):
            case.query = {k: v for k, v in case.query.items() if k not in ("filter", "where", "fields")}
    if route == ("POST", "/sessions/{sid}/tokens") and isinstance(body, dict) and isinstance(body.get("view"), str) \
            and len(body["view"]) == 16 and all(c in "0123456789abcdef" for c in body["view"]):
        case.body = dict(body, view=None)
    if isinstance(case.query, dict) and {"fields", "where", "aggregate", "sort"} & set(case.query):
        query = dict(case.query)
        if "fields" in query:
            if query.get("filter") or query.get("highlight"):
                query["fields"] = "title,data.shell"
            else:
                del query["fields"]
        if "where" in query:
            query["where"] = "data.size>1000000,data.owner=alice"
        if "aggregate" in query:
            query["aggregate"] = "count,sum:data.size"
        if "sort" in query:
            query["sort"] = "-data.size,title"
        case.query = query
    if route == ("PATCH", "/sessions/{sid}/views/{vid}") and isinstance(body, dict) and isinstance(body.get("sort"), str):
        case.body = dict(body, sort="-data.size,title")
    if route in {("POST", "/sessions"), ("POST", "/sessions/{sid}/items")}:
        if isinstance(case.query, dict):
            drop = {"format", "separator", "columns"} | ({"parentId"} if case.media_type != "text/plain" else set())
            if isinstance(body, dict):
                drop |= {"expand", "ttl", "name"} & set(body)
            case.query = {k: v for k, v in case.query.items() if k not in drop}
        replacement = other_format_body(case.media_type)
        if replacement is not None:
            if isinstance(body, str):
                case.body = replacement
        elif isinstance(body, list):
            case.body = fresh_nodes(body)
        elif isinstance(body, dict):
            body = dict(body)
            if "nodes" in body:
                body["nodes"] = fresh_nodes(body["nodes"])
            case.body = index_zero(body)
    elif route[1] in ("/sessions/{sid}/rows", "/sessions/{sid}/matches") and isinstance(case.query, dict):
        query = dict(case.query)
        # `filter` and `highlight` exclude each other (400); the matches need one of them (an
        # empty one is none); `after` and `before` exclude each other (400): none of which a
        # schema can say.
        if query.get("filter") and query.get("highlight"):
            del query["highlight"]
        if route[1] == "/sessions/{sid}/matches":
            if not query.get("filter") and not query.get("highlight"):
                query["filter"] = "a"
            if "after" in query and "before" in query:
                del query["before"]
        case.query = query
    elif route == ("PATCH", "/sessions/{sid}/items/{itemId}") and isinstance(body, dict) and "parentId" in body:
        case.body = index_zero(dict(body))
    elif route == ("POST", "/sessions/{sid}/batch") and isinstance(body, dict) and isinstance(body.get("operations"), list):
        operations = []
        for operation in body["operations"]:
            if isinstance(operation, dict):
                operation = dict(operation)
                if "nodes" in operation:
                    operation["nodes"] = fresh_nodes(operation["nodes"])
                operation = index_zero(operation)
            operations.append(operation)
        case.body = {**body, "operations": operations}
