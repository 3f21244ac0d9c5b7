#!/usr/bin/env bash
# Checks openapi.yaml: validates it as OpenAPI 3.1, starts tree-server on free loopback ports,
# runs scenario checks (every documented status with real data, each response validated against
# the spec, change responses replayed against the rows) and Schemathesis with all checks.
# Exits non-zero on any failure.
#
#   scripts/check-openapi.sh
#
# Environment:
#   TREE_SERVER       tree-server binary (default .build/debug/tree-server; built when missing)
#   MAX_EXAMPLES      Schemathesis test cases per operation and phase (default 50)
#   SCHEMATHESIS_SEED random seed, for a reproducible run (default: a new one each run)
#   OPENAPI_VENV      where to install the Python tools when they are missing and pip may not
#                     install into the system Python (default .build-openapi-venv)
#   PYTHON            Python 3 interpreter (default python3)
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
SPEC="$ROOT/openapi.yaml"
BIN="${TREE_SERVER:-.build/debug/tree-server}"
MAX_EXAMPLES="${MAX_EXAMPLES:-50}"
PY="${PYTHON:-python3}"
VENV="${OPENAPI_VENV:-$ROOT/.build-openapi-venv}"
# Known-good versions (Schemathesis 4.x CLI: --url, --checks, --max-examples, --config-file).
SCHEMATHESIS_VERSION=4.32.5
SPEC_VALIDATOR_VERSION=0.9.0
HYPOTHESIS_VERSION=6.170.17

log() { printf '== %s\n' "$*" >&2; }

# 1. Tools ------------------------------------------------------------------------------------
have_tools() { "$1" -c 'import schemathesis, openapi_spec_validator' >/dev/null 2>&1; }
if ! have_tools "$PY"; then
    if [ -x "$VENV/bin/python" ] && have_tools "$VENV/bin/python"; then
        PY="$VENV/bin/python"
    else
        log "installing schemathesis==$SCHEMATHESIS_VERSION openapi-spec-validator==$SPEC_VALIDATOR_VERSION"
        packages=("schemathesis==$SCHEMATHESIS_VERSION" "openapi-spec-validator==$SPEC_VALIDATOR_VERSION"
                  "hypothesis==$HYPOTHESIS_VERSION")
        if ! "$PY" -m pip install --quiet --disable-pip-version-check "${packages[@]}"; then
            # An externally managed Python (PEP 668): use a virtual environment.
            log "pip refused the system Python; using a virtual environment at $VENV"
            "$PY" -m venv "$VENV"
            "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${packages[@]}"
            PY="$VENV/bin/python"
        fi
        have_tools "$PY" || { log "the tools did not install"; exit 1; }
    fi
fi
log "schemathesis $("$PY" -c 'import importlib.metadata as m; print(m.version("schemathesis"))')"

# 2. The spec on its own ----------------------------------------------------------------------
log "validating $SPEC"
"$PY" -m openapi_spec_validator "$SPEC"

# 3. The server -------------------------------------------------------------------------------
if [ ! -x "$BIN" ]; then
    if [ -n "${TREE_SERVER:-}" ]; then log "TREE_SERVER=$BIN is not an executable"; exit 1; fi
    log "building tree-server"
    swift build --product tree-server
fi

WORK=$(mktemp -d)
SERVER_PIDS=()
cleanup() {
    for pid in ${SERVER_PIDS[@]+"${SERVER_PIDS[@]}"}; do
        if kill -0 "$pid" 2>/dev/null; then
            kill "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
        fi
    done
    rm -rf "$WORK"
}
trap cleanup EXIT

# start_server NAME FLAG...: starts tree-server on a free loopback port, waits for /healthz,
# and sets URL to its base URL.
start_server() {
    local name=$1
    shift
    : >"$WORK/$name.log"
    "$BIN" --host 127.0.0.1 --port 0 --access-log false "$@" >>"$WORK/$name.log" 2>&1 &
    local pid=$!
    SERVER_PIDS+=("$pid")
    local port=""
    for _ in $(seq 1 100); do
        port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$WORK/$name.log" | head -n 1 || true)
        [ -n "$port" ] && break
        kill -0 "$pid" 2>/dev/null || { cat "$WORK/$name.log" >&2; log "tree-server ($name) exited"; exit 1; }
        sleep 0.1
    done
    [ -n "$port" ] || { cat "$WORK/$name.log" >&2; log "tree-server ($name) did not report its port"; exit 1; }
    URL="http://127.0.0.1:$port"
    "$PY" - "$URL/healthz" <<'EOF'
import sys, time, urllib.request
for _ in range(100):
    try:
        with urllib.request.urlopen(sys.argv[1], timeout=2) as r:
            if r.status == 200:
                sys.exit(0)
    except OSError:
        pass
    time.sleep(0.1)
sys.exit("no answer from " + sys.argv[1])
EOF
    log "tree-server ($name) up at $URL"
}

# The server under test, with room for every session Schemathesis creates.
start_server main --max-sessions 1000000 --max-body 1048576
BASE=$URL
MAIN_PID=${SERVER_PIDS[0]}
# A server with tiny limits and a token, for 401, 413, 429 and 503.
TOKEN=check-openapi-token
start_server limited --max-sessions 1 --max-total-nodes 3 --max-body 4096 --token "$TOKEN"
LIMITED=$URL

# 4. Scenarios: every documented status, with real data --------------------------------------
cat >"$WORK/scenarios.py" <<'PYEOF'
"""Scenario checks of openapi.yaml against a live tree-server.

Every request names the operation it exercises and the status it must get; the response must
be documented for that operation (status, media type, body schema, required headers). Change
responses are also checked for their meaning: version + 1, ETag = version, and the splices turn
the view's rows before into its rows after.

usage: scenarios.py SPEC BASE_URL LIMITED_BASE_URL TOKEN
  LIMITED_BASE_URL: a server with --max-sessions 1 --max-total-nodes 3 --max-body 4096 --token TOKEN
"""
import json
import re
import sys

import jsonschema
import referencing
import requests
import yaml

SPEC_PATH, BASE, LIMITED, TOKEN = sys.argv[1:5]
spec = yaml.safe_load(open(SPEC_PATH, encoding="utf-8"))
registry = referencing.Registry().with_resource(
    "urn:spec", referencing.Resource.from_contents(spec, default_specification=referencing.jsonschema.DRAFT202012)
)
failures = []
passed = 0


def pointer_escape(s):
    return s.replace("~", "~0").replace("/", "~1")


def resolve(obj, pointer):
    while isinstance(obj, dict) and "$ref" in obj:
        pointer = obj["$ref"][1:]
        obj = spec
        for part in pointer.strip("/").split("/"):
            obj = obj[part.replace("~1", "/").replace("~0", "~")]
    return obj, pointer


def check(label, template, method, response, status, base_check=None):
    """Checks one response against the spec; returns the parsed JSON body (or None)."""
    global passed
    problems = []
    if response.status_code != status:
        problems.append(f"status {response.status_code}, expected {status}: {response.text[:300]}")
    operation = spec["paths"][template].get(method.lower())
    body = None
    if operation is None:
        problems.append(f"{method} {template} is not in the spec")
    else:
        responses = operation["responses"]
        key = str(response.status_code)
        if key not in responses:
            problems.append(f"status {key} is not documented for {method} {template}")
        else:
            doc, pointer = resolve(responses[key], f"/paths/{pointer_escape(template)}/{method.lower()}/responses/{key}")
            for name, header in doc.get("headers", {}).items():
                header, _ = resolve(header, "")
                value = response.headers.get(name)
                if header.get("required") and value is None:
                    problems.append(f"missing header {name}")
                if value is not None and name == "ETag" and not re.fullmatch(r'"[0-9]+"', value):
                    problems.append(f"bad ETag {value!r}")
            content = doc.get("content")
            ctype = response.headers.get("Content-Type", "").split(";")[0].strip()
            if method == "HEAD":
                if response.content:
                    problems.append("HEAD response has a body")
            elif content:
                if ctype not in content:
                    problems.append(f"Content-Type {ctype!r}, documented: {list(content)}")
                elif ctype.endswith("json"):
                    try:
                        body = response.json()
                    except ValueError:
                        problems.append(f"body is not JSON: {response.text[:200]}")
                    else:
                        schema_pointer = f"{pointer}/content/{pointer_escape(ctype)}/schema"
                        validator = jsonschema.Draft202012Validator(
                            {"$ref": "urn:spec#" + schema_pointer}, registry=registry,
                            format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
                        for error in validator.iter_errors(body):
                            problems.append(f"schema: {error.message} at {list(error.absolute_path)}")
                            break
            elif response.content:
                problems.append(f"undocumented body: {response.text[:200]}")
    if base_check and not problems:
        try:
            base_check(response, body)
        except AssertionError as exc:
            problems.append(str(exc))
    if problems:
        failures.append(f"{label}: {method} {response.request.url} -> " + "; ".join(problems))
    else:
        passed += 1
    return body


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


s = requests.Session()
JSON = {"Content-Type": "application/json"}


def req(method, path, base=BASE, body=None, headers=None, raw=None, **kw):
    h = dict(headers or {})
    data = raw
    if body is not None:
        data = json.dumps(body).encode()
        h.setdefault("Content-Type", "application/json")
    return s.request(method, base + path, data=data, headers=h, **kw)


def all_rows(sid, query=""):
    r = req("GET", f"/sessions/{sid}/rows?limit=1000{query}")
    assert r.status_code == 200, r.text
    page = r.json()
    return page["version"], [(row["id"], row["level"]) for row in page["rows"]]


def change_check(sid, before, query=""):
    """A check that the change response turns `before` (version, rows) into the rows after."""
    version, rows = before

    def run(response, body):
        assert body["version"] == version + 1, f"version {body['version']}, expected {version + 1}"
        assert response.headers["ETag"] == f'"{body["version"]}"', "ETag is not the version"
        _, after = all_rows(sid, query)
        assert body["total"] == len(after), f"total {body['total']}, rows {len(after)}"
        patched = list(rows)
        for splice in body["changes"]:
            i, removed, inserted = splice["index"], splice["removed"], splice["inserted"]
            assert i + removed <= len(patched), f"splice {splice} past the end"
            patched[i:i + removed] = [None] * inserted
        assert len(patched) == len(after), f"splices give {len(patched)} rows, the view has {len(after)}"
        for old, new in zip(patched, after):
            assert old is None or old == new, f"splices give {old} where the view has {new}"
    return run


def change(label, template, method, status, query, *args, **kwargs):
    """Sends a change request and checks its answer against the rows before and after."""
    before = all_rows(sid, query)
    return check(label, template, method, req(*args, **kwargs), status, change_check(sid, before, query))


# -- operations ----------------------------------------------------------------------------
check("demo page", "/", "GET", req("GET", "/"), 200)
check("health", "/healthz", "GET", req("GET", "/healthz"), 200)
check("health head", "/healthz", "HEAD", req("HEAD", "/healthz"), 200)
check("metrics", "/metrics", "GET", req("GET", "/metrics"), 200)
check("spec", "/openapi.yaml", "GET", req("GET", "/openapi.yaml"), 200,
      lambda r, b: expect(yaml.safe_load(r.text)["openapi"].startswith("3.1"), "not the spec"))

# -- create --------------------------------------------------------------------------------
tree = {"nodes": [
    {"id": "docs", "title": "Documents", "children": [
        {"id": 1, "title": "Compositional Layout", "data": {"size": 3}},
        {"title": "Diffable Data Source", "children": [{"title": "Cell registration"}]},
        {"id": "lazy", "title": "Lazy folder", "hasChildren": True},
    ]},
    {"id": "pics", "title": "Pictures", "expanded": True, "children": [{"title": "Face"}]},
], "expand": "none"}
r = req("POST", "/sessions", body=tree)
created = check("create", "/sessions", "POST", r, 201,
                lambda r, b: expect(r.headers["Location"] == f"/sessions/{b['id']}" and r.headers["ETag"] == '"1"' and b["version"] == 1, "Location/ETag/version"))
sid = created["id"]
r = req("POST", "/sessions", body=[{"title": "bare"}, {"title": "array", "id": 5}])
check("create bare array", "/sessions", "POST", r, 201)
check("create expand depth", "/sessions", "POST", req("POST", "/sessions", body={"nodes": [{"title": "a", "children": [{"title": "b"}]}], "expand": 1}), 201,
      lambda r, b: expect(b["total"] == 2, f"expand 1 gives total {b['total']}"))
check("create: no content type", "/sessions", "POST", req("POST", "/sessions", raw=b"[]"), 415)
check("create: text/plain", "/sessions", "POST", req("POST", "/sessions", raw=b"[]", headers={"Content-Type": "text/plain"}), 415)
check("create: malformed JSON", "/sessions", "POST", req("POST", "/sessions", raw=b'[{"title": "x",}]', headers=JSON), 400)
check("create: empty body", "/sessions", "POST", req("POST", "/sessions", raw=b"", headers=JSON), 400)
check("create: title not a string", "/sessions", "POST", req("POST", "/sessions", body=[{"title": 1}]), 422)
check("create: no title", "/sessions", "POST", req("POST", "/sessions", body=[{"id": "x"}]), 422)
check("create: duplicate id", "/sessions", "POST", req("POST", "/sessions", body=[{"title": "a", "id": 4}, {"title": "b", "id": "4"}]), 422)
check("create: bad id type", "/sessions", "POST", req("POST", "/sessions", body=[{"title": "a", "id": 1.5}]), 422)
check("create: unknown node member", "/sessions", "POST", req("POST", "/sessions", body=[{"title": "a", "colour": "red"}]), 422)
check("create: unknown top member", "/sessions", "POST", req("POST", "/sessions", body={"nodes": [], "extra": 1}), 422)
check("create: bad expand", "/sessions", "POST", req("POST", "/sessions", body={"nodes": [], "expand": -1}), 422)
check("create: not nodes", "/sessions", "POST", req("POST", "/sessions", body="nodes"), 422)
check("create: missing nodes", "/sessions", "POST", req("POST", "/sessions", body={"expand": "all"}), 422)

# -- read ----------------------------------------------------------------------------------
check("summary", "/sessions/{sid}", "GET", req("GET", f"/sessions/{sid}"), 200)
check("summary head", "/sessions/{sid}", "HEAD", req("HEAD", f"/sessions/{sid}"), 200)
check("summary: unknown", "/sessions/{sid}", "GET", req("GET", "/sessions/AAAAAAAAAAAAAAAAAAAAAA"), 404)
check("summary head: unknown", "/sessions/{sid}", "HEAD", req("HEAD", "/sessions/AAAAAAAAAAAAAAAAAAAAAA"), 404)
page = check("rows", "/sessions/{sid}/rows", "GET", req("GET", f"/sessions/{sid}/rows"), 200,
             lambda r, b: expect([row["id"] for row in b["rows"]] == ["docs", "pics", "~6"], f"rows {b['rows']}"))
etag = f'"{page["version"]}"'
check("rows: If-None-Match", "/sessions/{sid}/rows", "GET", req("GET", f"/sessions/{sid}/rows", headers={"If-None-Match": etag}), 304)
check("rows head: If-None-Match", "/sessions/{sid}/rows", "HEAD", req("HEAD", f"/sessions/{sid}/rows", headers={"If-None-Match": etag}), 304)
check("rows: If-None-Match other", "/sessions/{sid}/rows", "GET", req("GET", f"/sessions/{sid}/rows", headers={"If-None-Match": '"999"'}), 200)
check("rows: filtered", "/sessions/{sid}/rows", "GET", req("GET", f"/sessions/{sid}/rows?filter=ce&limit=2"), 200,
      lambda r, b: expect(b["filter"] == "ce" and b["matchCount"] == 3 and b["limit"] == 2 and len(b["rows"]) == 2, f"page {b}"))
check("rows: filter with + as space", "/sessions/{sid}/rows", "GET", req("GET", f"/sessions/{sid}/rows?filter=data+source"), 200,
      lambda r, b: expect(b["filter"] == "data source" and b["matchCount"] == 1, f"page {b}"))
check("rows: prefix, case-sensitive", "/sessions/{sid}/rows", "GET", req("GET", f"/sessions/{sid}/rows?filter=Face&match=exact&caseSensitive=true"), 200,
      lambda r, b: expect(b["matchCount"] == 1, f"page {b}"))
check("rows: limit 0", "/sessions/{sid}/rows", "GET", req("GET", f"/sessions/{sid}/rows?limit=0"), 200,
      lambda r, b: expect(b["rows"] == [] and b["total"] == 3, f"page {b}"))
check("rows: offset past the end", "/sessions/{sid}/rows", "GET", req("GET", f"/sessions/{sid}/rows?offset=99"), 200)
check("rows: limit 1000", "/sessions/{sid}/rows", "GET", req("GET", f"/sessions/{sid}/rows?limit=1000"), 200)
check("rows: limit 1001", "/sessions/{sid}/rows", "GET", req("GET", f"/sessions/{sid}/rows?limit=1001"), 400)
check("rows: offset -1", "/sessions/{sid}/rows", "GET", req("GET", f"/sessions/{sid}/rows?offset=-1"), 400)
check("rows: bad match", "/sessions/{sid}/rows", "GET", req("GET", f"/sessions/{sid}/rows?match=regex"), 400)
check("rows: bad caseSensitive", "/sessions/{sid}/rows", "GET", req("GET", f"/sessions/{sid}/rows?caseSensitive=yes"), 400)
check("rows: %00", "/sessions/{sid}/rows", "GET", req("GET", f"/sessions/{sid}/rows?filter=%00"), 400)
check("rows: unknown", "/sessions/{sid}/rows", "GET", req("GET", "/sessions/AAAAAAAAAAAAAAAAAAAAAA/rows"), 404)
check("tree", "/sessions/{sid}/tree", "GET", req("GET", f"/sessions/{sid}/tree"), 200)
check("tree: If-None-Match", "/sessions/{sid}/tree", "GET", req("GET", f"/sessions/{sid}/tree", headers={"If-None-Match": etag}), 304)
check("tree head", "/sessions/{sid}/tree", "HEAD", req("HEAD", f"/sessions/{sid}/tree"), 200)
check("tree: unknown", "/sessions/{sid}/tree", "GET", req("GET", "/sessions/AAAAAAAAAAAAAAAAAAAAAA/tree"), 404)
exported = req("GET", f"/sessions/{sid}/tree").json()
check("tree round trip", "/sessions", "POST", req("POST", "/sessions", body=exported), 201)
check("item", "/sessions/{sid}/items/{itemId}", "GET", req("GET", f"/sessions/{sid}/items/1"), 200,
      lambda r, b: expect(b["path"] == ["docs"] and b["index"] is None and b["data"] == {"size": 3}, f"item {b}"))
check("item: filtered", "/sessions/{sid}/items/{itemId}", "GET", req("GET", f"/sessions/{sid}/items/1?filter=layout"), 200,
      lambda r, b: expect(b["index"] == 1 and b["match"] is True, f"item {b}"))
check("item: generated id", "/sessions/{sid}/items/{itemId}", "GET", req("GET", f"/sessions/{sid}/items/~6"), 200)
check("item head", "/sessions/{sid}/items/{itemId}", "HEAD", req("HEAD", f"/sessions/{sid}/items/docs"), 200)
check("item: unknown", "/sessions/{sid}/items/{itemId}", "GET", req("GET", f"/sessions/{sid}/items/nope"), 404)
check("item: bad match", "/sessions/{sid}/items/{itemId}", "GET", req("GET", f"/sessions/{sid}/items/docs?match=x"), 400)

# -- change the session --------------------------------------------------------------------
P = "/sessions/{sid}"
change("expandAll", P, "PATCH", 200, "", "PATCH", f"/sessions/{sid}", body={"expandAll": True})
change("collapseAll", P, "PATCH", 200, "", "PATCH", f"/sessions/{sid}", body={"collapseAll": True})
change("expandDepth", P, "PATCH", 200, "", "PATCH", f"/sessions/{sid}", body={"expandDepth": 1})
change("expandAll filtered", P, "PATCH", 200, "&filter=ce", "PATCH", f"/sessions/{sid}?filter=ce", body={"expandAll": True})
version = all_rows(sid)[0]
check("patch session: If-Match current", P, "PATCH", req("PATCH", f"/sessions/{sid}", body={"collapseAll": True}, headers={"If-Match": f'"{version}"'}), 200)
check("patch session: If-Match stale", P, "PATCH", req("PATCH", f"/sessions/{sid}", body={"collapseAll": True}, headers={"If-Match": f'"{version}"'}), 412,
      lambda r, b: expect(r.headers["ETag"] == f'"{version + 1}"', "412 ETag"))
check("patch session: two members", P, "PATCH", req("PATCH", f"/sessions/{sid}", body={"expandAll": True, "collapseAll": True}), 422)
check("patch session: false", P, "PATCH", req("PATCH", f"/sessions/{sid}", body={"expandAll": False}), 422)
check("patch session: empty", P, "PATCH", req("PATCH", f"/sessions/{sid}", body={}), 422)
check("patch session: not JSON", P, "PATCH", req("PATCH", f"/sessions/{sid}", raw=b"{", headers=JSON), 400)
check("patch session: no content type", P, "PATCH", req("PATCH", f"/sessions/{sid}", raw=b"{}"), 415)
check("patch session: unknown", P, "PATCH", req("PATCH", "/sessions/AAAAAAAAAAAAAAAAAAAAAA", body={"expandAll": True}), 404)
check("patch session: bad filter parameter", P, "PATCH", req("PATCH", f"/sessions/{sid}?caseSensitive=1", body={"expandAll": True}), 400)

# -- items ---------------------------------------------------------------------------------
I = "/sessions/{sid}/items"
change("insert child", I, "POST", 201, "", "POST", f"/sessions/{sid}/items", body={"nodes": [{"title": "Loaded", "id": "new1"}], "parentId": "lazy", "index": 0})
ins = change("insert roots", I, "POST", 201, "", "POST", f"/sessions/{sid}/items", body={"nodes": [{"title": "Root A"}, {"title": "Root B"}]})
change("insert bare array", I, "POST", 201, "", "POST", f"/sessions/{sid}/items", body=[{"title": "Root C"}])
change("insert before", I, "POST", 201, "", "POST", f"/sessions/{sid}/items", body={"nodes": [{"title": "Before pics"}], "before": "pics"})
change("insert after (filtered)", I, "POST", 201, "&filter=ce", "POST", f"/sessions/{sid}/items?filter=ce", body={"nodes": [{"title": "After one, with ce"}], "after": 1})
check("insert: unknown parent", I, "POST", req("POST", f"/sessions/{sid}/items", body={"nodes": [{"title": "x"}], "parentId": "nope"}), 404)
check("insert: unknown sibling", I, "POST", req("POST", f"/sessions/{sid}/items", body={"nodes": [{"title": "x"}], "after": "nope"}), 404)
check("insert: index past the end", I, "POST", req("POST", f"/sessions/{sid}/items", body={"nodes": [{"title": "x"}], "parentId": "pics", "index": 5}), 422)
check("insert: existing id", I, "POST", req("POST", f"/sessions/{sid}/items", body={"nodes": [{"title": "x", "id": "1"}]}), 422)
check("insert: before and parentId", I, "POST", req("POST", f"/sessions/{sid}/items", body={"nodes": [{"title": "x"}], "before": "pics", "parentId": None}), 422)
check("insert: unknown member", I, "POST", req("POST", f"/sessions/{sid}/items", body={"nodes": [{"title": "x"}], "where": 1}), 422)
check("insert: malformed", I, "POST", req("POST", f"/sessions/{sid}/items", raw=b"[", headers=JSON), 400)
check("insert: no content type", I, "POST", req("POST", f"/sessions/{sid}/items", raw=b"[]"), 415)
check("insert: unknown session", I, "POST", req("POST", "/sessions/AAAAAAAAAAAAAAAAAAAAAA/items", body=[{"title": "x"}]), 404)
version = all_rows(sid)[0]
check("insert: If-Match stale", I, "POST", req("POST", f"/sessions/{sid}/items", body=[{"title": "x"}], headers={"If-Match": f'"{version - 1}"'}), 412)

IT = "/sessions/{sid}/items/{itemId}"
change("expand item", IT, "PATCH", 200, "", "PATCH", f"/sessions/{sid}/items/docs", body={"expanded": True})
change("collapse item recursively", IT, "PATCH", 200, "", "PATCH", f"/sessions/{sid}/items/docs", body={"expanded": False, "recursive": True})
change("reveal", IT, "PATCH", 200, "", "PATCH", f"/sessions/{sid}/items/~3", body={"reveal": True})
change("reveal (filtered)", IT, "PATCH", 200, "&filter=cell", "PATCH", f"/sessions/{sid}/items/~3?filter=cell", body={"reveal": True})
change("update", IT, "PATCH", 200, "", "PATCH", f"/sessions/{sid}/items/1", body={"title": "Layout", "data": None})
change("update data only", IT, "PATCH", 200, "", "PATCH", f"/sessions/{sid}/items/1", body={"data": [1, 2]})
change("move", IT, "PATCH", 200, "", "PATCH", f"/sessions/{sid}/items/pics", body={"parentId": "docs", "index": 0})
change("move to roots", IT, "PATCH", 200, "", "PATCH", f"/sessions/{sid}/items/pics", body={"parentId": None})
change("move (filtered)", IT, "PATCH", 200, "&filter=a", "PATCH", f"/sessions/{sid}/items/1?filter=a", body={"parentId": "pics", "index": 1})
check("move into own subtree", IT, "PATCH", req("PATCH", f"/sessions/{sid}/items/docs", body={"parentId": "~3"}), 409)
check("move under itself", IT, "PATCH", req("PATCH", f"/sessions/{sid}/items/docs", body={"parentId": "docs"}), 409)
check("move: index past the end", IT, "PATCH", req("PATCH", f"/sessions/{sid}/items/docs", body={"parentId": "pics", "index": 99}), 422)
check("move: unknown parent", IT, "PATCH", req("PATCH", f"/sessions/{sid}/items/docs", body={"parentId": "nope"}), 404)
check("patch item: mixed kinds", IT, "PATCH", req("PATCH", f"/sessions/{sid}/items/docs", body={"expanded": True, "title": "x"}), 422)
check("patch item: reveal false", IT, "PATCH", req("PATCH", f"/sessions/{sid}/items/docs", body={"reveal": False}), 422)
check("patch item: empty", IT, "PATCH", req("PATCH", f"/sessions/{sid}/items/docs", body={}), 422)
check("patch item: title null", IT, "PATCH", req("PATCH", f"/sessions/{sid}/items/docs", body={"title": None}), 422)
check("patch item: unknown item", IT, "PATCH", req("PATCH", f"/sessions/{sid}/items/nope", body={"expanded": True}), 404)
check("patch item: no content type", IT, "PATCH", req("PATCH", f"/sessions/{sid}/items/docs", raw=b"{}"), 415)
check("patch item: malformed", IT, "PATCH", req("PATCH", f"/sessions/{sid}/items/docs", raw=b"{]", headers=JSON), 400)
version = all_rows(sid)[0]
check("patch item: If-Match stale", IT, "PATCH", req("PATCH", f"/sessions/{sid}/items/docs", body={"expanded": True}, headers={"If-Match": '"1", "2"'}), 412)
change("delete item", IT, "DELETE", 200, "", "DELETE", f"/sessions/{sid}/items/~3")
change("delete item (filtered)", IT, "DELETE", 200, "&filter=a", "DELETE", f"/sessions/{sid}/items/1?filter=a")
check("delete item: gone", IT, "DELETE", req("DELETE", f"/sessions/{sid}/items/~3"), 404)
check("delete item: If-Match stale", IT, "DELETE", req("DELETE", f"/sessions/{sid}/items/docs", headers={"If-Match": '"1"'}), 412)
check("item after edits", IT, "GET", req("GET", f"/sessions/{sid}/items/pics"), 200)

# -- methods -------------------------------------------------------------------------------
for method, path in [("PUT", "/sessions"), ("GET", "/sessions"), ("POST", f"/sessions/{sid}"), ("DELETE", f"/sessions/{sid}/rows")]:
    r = req(method, path)
    if r.status_code != 405 or "Allow" not in r.headers or r.headers.get("Content-Type") != "application/problem+json":
        failures.append(f"{method} {path}: {r.status_code} {dict(r.headers)}")
    else:
        passed += 1
r = req("OPTIONS", f"/sessions/{sid}/items/docs")
if r.status_code != 204 or r.headers.get("Allow") != "GET, HEAD, PATCH, DELETE, OPTIONS":
    failures.append(f"OPTIONS: {r.status_code} {dict(r.headers)}")
else:
    passed += 1

# -- delete the session --------------------------------------------------------------------
check("delete session: If-Match stale", P, "DELETE", req("DELETE", f"/sessions/{sid}", headers={"If-Match": '"1"'}), 412)
check("delete session", P, "DELETE", req("DELETE", f"/sessions/{sid}"), 204)
check("delete session: gone", P, "DELETE", req("DELETE", f"/sessions/{sid}"), 404)

# -- limits and the token (a second server) -------------------------------------------------
AUTH = {"Authorization": f"Bearer {TOKEN}"}
check("limited: health without token", "/healthz", "GET", req("GET", "/healthz", base=LIMITED), 200)
check("limited: demo page without token", "/", "GET", req("GET", "/", base=LIMITED), 401)
check("limited: metrics without token", "/metrics", "GET", req("GET", "/metrics", base=LIMITED), 401)
check("limited: spec without token", "/openapi.yaml", "GET", req("GET", "/openapi.yaml", base=LIMITED), 401)
check("limited: create without token", "/sessions", "POST", req("POST", "/sessions", base=LIMITED, body=[{"title": "a"}]), 401)
check("limited: create wrong token", "/sessions", "POST", req("POST", "/sessions", base=LIMITED, body=[{"title": "a"}], headers={"Authorization": "Bearer nope"}), 401)
check("limited: rows without token", "/sessions/{sid}/rows", "GET", req("GET", "/sessions/AAAAAAAAAAAAAAAAAAAAAA/rows", base=LIMITED), 401)
check("limited: over the node budget", "/sessions", "POST", req("POST", "/sessions", base=LIMITED, body=[{"title": "a"}] * 4, headers=AUTH), 503,
      lambda r, b: expect(r.headers.get("Retry-After"), "no Retry-After"))
first = check("limited: create", "/sessions", "POST", req("POST", "/sessions", base=LIMITED, body=[{"title": "a"}, {"title": "b"}], headers=AUTH), 201)
check("limited: too many sessions", "/sessions", "POST", req("POST", "/sessions", base=LIMITED, body=[{"title": "a"}], headers=AUTH), 429)
if first and "id" in first:
    check("limited: insert over the node budget", "/sessions/{sid}/items", "POST",
          req("POST", f"/sessions/{first['id']}/items", base=LIMITED, body=[{"title": "c"}, {"title": "d"}], headers=AUTH), 503)
check("limited: body too large", "/sessions", "POST", req("POST", "/sessions", base=LIMITED, body=[{"title": "x" * 5000}], headers=AUTH), 413)

print(f"scenarios: {passed} passed, {len(failures)} failed")
for failure in failures:
    print("FAIL", failure)
sys.exit(1 if failures else 0)
PYEOF

log "scenario checks"
status=0
"$PY" "$WORK/scenarios.py" "$SPEC" "$BASE" "$LIMITED" "$TOKEN" || status=$?

# 5. Schemathesis -----------------------------------------------------------------------------
# Statuses a schema-valid request may still get: JSON Schema cannot say that ids are unique,
# that ids named in a body exist, that an index is within range, or which version is current.
cat >"$WORK/schemathesis.toml" <<'EOF'
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "304", "401", "404", "409", "412", "422", "429", "503"]

[checks.negative_data_rejection]
expected-statuses = ["400", "401", "404", "405", "409", "412", "413", "415", "422", "429", "503"]

[phases.coverage]
# QUERY is not a method this server knows: like any unknown method it gets 501, not 405.
unexpected-methods = ["get", "put", "post", "delete", "patch", "trace"]
EOF

# Runs the Schemathesis CLI. Works around a CPython 3.11.7 bug ("SystemError: AST constructor
# recursion depth mismatch") that Hypothesis can hit while describing a lambda for a strategy's
# repr; that description is only cosmetic.
cat >"$WORK/run_schemathesis.py" <<'PYEOF'
import sys
try:
    import hypothesis.internal.lambda_sources as lambda_sources
    _describe = lambda_sources._lambda_description
    def _safe_describe(f, *args, **kwargs):
        try:
            return _describe(f, *args, **kwargs)
        except SystemError:
            return "lambda: <unknown>"
    lambda_sources._lambda_description = _safe_describe
except (ImportError, AttributeError):
    pass
import schemathesis.cli
sys.argv[0] = "schemathesis"
schemathesis.cli.schemathesis()
PYEOF

seed_args=()
[ -n "${SCHEMATHESIS_SEED:-}" ] && seed_args=(--seed "$SCHEMATHESIS_SEED")

log "schemathesis run (max $MAX_EXAMPLES examples per operation)"
st_status=0
# From the scratch directory, so that Schemathesis keeps its crash cache out of the repository.
(cd "$WORK" && "$PY" "$WORK/run_schemathesis.py" --no-color --config-file "$WORK/schemathesis.toml" run "$SPEC" \
    --url "$BASE" \
    --checks all \
    --max-examples "$MAX_EXAMPLES" \
    --workers 2 \
    --request-timeout 30 \
    ${seed_args[@]+"${seed_args[@]}"}) || st_status=$?

if ! kill -0 "$MAIN_PID" 2>/dev/null; then
    log "tree-server died during the run:"; tail -n 50 "$WORK/main.log" >&2; exit 1
fi
[ "$status" -eq 0 ] || log "scenario checks failed"
[ "$st_status" -eq 0 ] || log "schemathesis failed (exit $st_status)"
if [ "$status" -ne 0 ] || [ "$st_status" -ne 0 ]; then exit 1; fi
log "openapi.yaml: OK"
