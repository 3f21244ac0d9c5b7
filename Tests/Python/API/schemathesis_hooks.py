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
* `expand` and `ttl` may be members of a nested upload or query parameters, not both: the query
  parameter is left out when the body has the member.
* `fields`, `where`, `aggregate` and `sort` (a query parameter, or a view's `sort` member) have a
  grammar of their own (docs/API.md): a generated value becomes a valid one, and `fields` is left out unless a `filter` or `highlight` text
  is there to search.
* Query parameters that exclude each other: `before` is left out of matches with `after`,
  `highlight` out of rows and matches with `filter`; matches with neither `filter` nor
  `highlight` get `filter=a`.

The routes under `/sessions/{sid}/views/{vid}/` are treated as the default view's routes they
repeat.

Only values that are valid are rewritten, so a request that breaks the schema still does.
"""
import itertools

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
                drop |= {"expand", "ttl"} & set(body)
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
