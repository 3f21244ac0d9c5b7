"""Checks a live response against openapi.yaml: the status, that the status is documented for
the operation, the media type, the body against the documented schema (JSON Schema 2020-12),
the required headers, and the rules about rows pages that a schema for generated clients cannot
carry (a filtered page has `matchCount` and rows with `match`/`matchRanges`, an unfiltered one
has neither)."""
import json
import re
import threading
import time
from pathlib import Path

import jsonschema
import referencing
import referencing.jsonschema
import requests
import yaml

SPEC_PATH = Path(__file__).resolve().parents[3] / "openapi.yaml"
TOKEN = "check-openapi-token"
# The server under test, with room for every session a run creates.
MAIN_FLAGS = ("--max-sessions", "1000000", "--max-body", "1048576")
# Tiny limits and a token, for 401, 413 (body, batch), 429 (sessions, views) and 503.
LIMITED_FLAGS = ("--max-sessions", "1", "--max-total-nodes", "3", "--max-body", "4096", "--max-batch", "2",
                 "--max-views", "1", "--token", TOKEN)
# An admin token and signing keys (`--signing-key-file`, given by the caller), for session
# tokens, their roles (403), and 401 for tokens that are refused.
SECURED_FLAGS = ("--max-sessions", "1000", "--token", TOKEN)


def pointer_escape(s):
    return s.replace("~", "~0").replace("/", "~1")


class Spec:
    def __init__(self, path=SPEC_PATH):
        self.doc = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        self.registry = referencing.Registry().with_resource(
            "urn:spec", referencing.Resource.from_contents(
                self.doc, default_specification=referencing.jsonschema.DRAFT202012))
        self.templates = [(t, re.compile("^" + re.sub(r"\\{[^/]+?\\}", "[^/]+", re.escape(t)) + "$"))
                          for t in self.doc["paths"]]

    def template(self, path):
        """The path template of the spec that a concrete path (without query) falls under."""
        path = path.split("?", 1)[0]
        matches = [t for t, rx in self.templates if rx.match(path)]
        assert matches, f"{path} matches no path of the spec"
        # The most specific one: the fewest parameters.
        return min(matches, key=lambda t: t.count("{"))

    def resolve(self, obj, pointer):
        while isinstance(obj, dict) and "$ref" in obj:
            pointer = obj["$ref"][1:]
            obj = self.doc
            for part in pointer.strip("/").split("/"):
                obj = obj[part.replace("~1", "/").replace("~0", "~")]
        return obj, pointer

    def problems(self, method, response, status):
        """(parsed JSON body or None, list of what is wrong with the response)."""
        problems = []
        if response.status_code != status:
            problems.append(f"status {response.status_code}, expected {status}: {response.text[:300]}")
        template = self.template(response.request.path_url)
        operation = self.doc["paths"][template].get(method.lower())
        body = None
        if operation is None:
            return None, problems + [f"{method} {template} is not in the spec"]
        key = str(response.status_code)
        if key not in operation["responses"]:
            return None, problems + [f"status {key} is not documented for {method} {template}"]
        doc, pointer = self.resolve(operation["responses"][key],
                                    f"/paths/{pointer_escape(template)}/{method.lower()}/responses/{key}")
        for name, header in doc.get("headers", {}).items():
            header, _ = self.resolve(header, "")
            value = response.headers.get(name)
            if header.get("required") and value is None:
                problems.append(f"missing header {name}")
            if value is not None and name == "ETag" and not re.fullmatch(r'"[0-9]+(-(csv|ndjson|paths))?"', value):
                problems.append(f"bad ETag {value!r}")
        content = doc.get("content")
        ctype = response.headers.get("Content-Type", "").split(";")[0].strip()
        if method == "HEAD":
            if response.content:
                problems.append("HEAD response has a body")
        elif content:
            if ctype not in content:
                problems.append(f"Content-Type {ctype!r}, documented: {list(content)}")
            elif ctype == "application/json" or ctype.endswith("+json"):
                try:
                    body = response.json()
                except ValueError:
                    problems.append(f"body is not JSON: {response.text[:200]}")
                else:
                    schema_pointer = f"{pointer}/content/{pointer_escape(ctype)}/schema"
                    validator = jsonschema.Draft202012Validator(
                        {"$ref": "urn:spec#" + schema_pointer}, registry=self.registry,
                        format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
                    for error in validator.iter_errors(body):
                        problems.append(f"schema: {error.message} at {list(error.absolute_path)}")
                        break
                    if not problems and operation.get("operationId") in ("getRows", "getViewRows") and key == "200":
                        problems += rows_page_problems(body)
        elif response.content:
            problems.append(f"undocumented body: {response.text[:200]}")
        return body, problems

    def schema_problems(self, data, schema):
        """What is wrong with `data` as the component schema `schema` (e.g. an event's data)."""
        validator = jsonschema.Draft202012Validator(
            {"$ref": f"urn:spec#/components/schemas/{schema}"}, registry=self.registry,
            format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        return [f"{schema}: {error.message} at {list(error.absolute_path)}" for error in validator.iter_errors(data)][:1]

    def event_problems(self, event):
        """What is wrong with a parsed server-sent event ({event, id, data}) as the spec's
        StreamEvent: its fields, then its `data` as JSON against the `contentSchema` of the
        kind of event its name selects (jsonschema, unlike Schemathesis, does not read
        `contentSchema` by itself)."""
        problems = self.schema_problems(event, "StreamEvent")
        if problems:
            return problems
        for branch in self.doc["components"]["schemas"]["StreamEvent"]["oneOf"]:
            kind, pointer = self.resolve(branch, "")
            if kind["properties"]["event"]["const"] == event["event"]:
                data = kind["properties"]["data"]
                assert data["contentMediaType"] == "application/json", pointer
                try:
                    parsed = json.loads(event["data"])
                except ValueError:
                    return [f"{event['event']} event: data is not JSON: {event['data'][:200]}"]
                schema = data["contentSchema"]["$ref"].rsplit("/", 1)[1]
                return self.schema_problems(parsed, schema)
        return [f"no kind of StreamEvent is named {event['event']!r}"]


def served_spec(base):
    """The bytes of GET /openapi.yaml, which must be the repository's openapi.yaml byte for
    byte (the binary embeds the file it was built with: rebuild it after editing the spec)."""
    response = requests.get(base + "/openapi.yaml", timeout=30)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].split(";")[0] == "application/yaml", response.headers
    assert response.content == SPEC_PATH.read_bytes(), \
        "GET /openapi.yaml is not openapi.yaml: rebuild tree-server (it embeds the spec)"
    return response.content


class EventParser:
    """Server-sent events from the lines of a `text/event-stream` (the HTML standard's
    parsing): `data` lines joined with LF, the last `id` kept for the events after it,
    comments and blocks without data skipped."""

    def __init__(self):
        self.last_id = None
        self.fields = {}
        self.data = []

    def line(self, line):
        """Reads one line (without its line end); answers the event that a blank line ends."""
        if line == "":
            event = None
            if self.data:
                event = {"event": self.fields.get("event") or "message", "data": "\n".join(self.data)}
                if self.last_id is not None:
                    event["id"] = self.last_id
            self.fields, self.data = {}, []
            return event
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self.data.append(value)
        elif name == "id" and "\0" not in value:
            self.last_id = value
        elif name == "event":
            self.fields["event"] = value
        return None


def parse_events(text):
    """The events of a whole stream's text."""
    parser = EventParser()
    events = [parser.line(line) for line in re.split(r"\r\n|\r|\n", text)]
    return [event for event in events if event is not None]


def rows_page_problems(page):
    """What the RowsPage and Row schemas say in words: the members of the two kinds of view
    (a highlighted unfiltered page's rows have match and matchRanges, and nothing else of a
    filtered page's), and of a view that selects something."""
    if "selectedCount" in page:
        for row in page["rows"]:
            if "selected" not in row or row["hasChildren"] != ("partial" in row and "selectedBelow" in row):
                return [f"a row of a page with selectedCount without its selection members: {row}"]
    elif any(key in row for row in page["rows"] for key in ("selected", "partial", "selectedBelow")):
        return ["a page without selectedCount has rows with selected/partial/selectedBelow"]
    if page["filter"] is None:
        if "matchCount" in page:
            return ["an unfiltered page has matchCount"]
        if any(key in row for row in page["rows"] for key in ("matchesBelow", "score")):
            return ["an unfiltered page has rows with matchesBelow/score"]
        highlighted = "highlight" in page
        for row in page["rows"]:
            if ("match" in row and "matchRanges" in row) != highlighted or ("match" in row) != ("matchRanges" in row):
                return [f"a row of an unfiltered page with match/matchRanges exactly when highlighted: {row}"]
            if highlighted and not row["match"] and row["matchRanges"]:
                return [f"a row that does not match has matchRanges: {row}"]
        return []
    if "highlight" in page:
        return ["a filtered page has highlight"]
    if "matchCount" not in page:
        return ["a filtered page without matchCount"]
    for row in page["rows"]:
        if "match" not in row or "matchRanges" not in row or "matchesBelow" not in row:
            return [f"a row of a filtered page without match/matchRanges/matchesBelow: {row}"]
        if not row["match"] and row["matchRanges"]:
            return [f"a row that does not match has matchRanges: {row}"]
        if "score" in row and not row["match"]:
            return [f"a row that does not match has a score: {row}"]
    return []


class API:
    """Requests to the servers under test, each checked against the spec."""

    def __init__(self, spec, bases):
        self.spec = spec
        self.bases = bases  # name -> base URL
        self.http = requests.Session()

    def request(self, method, path, server="main", body=None, raw=None, headers=None):
        h = dict(headers or {})
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
            h.setdefault("Content-Type", "application/json")
        return self.http.request(method, self.bases[server] + path, data=data, headers=h, timeout=30)

    def rows(self, sid, query="", vid=None):
        """(version, [(id, level), ...]) of every row of the view (`vid`; None: the default
        view), filtered by `query` (`&filter=...`)."""
        view = f"/views/{vid}" if vid is not None else ""
        r = self.request("GET", f"/sessions/{sid}{view}/rows?limit=1000{query}")
        assert r.status_code == 200, r.text
        page = r.json()
        return page["version"], [(row["id"], row["level"]) for row in page["rows"]]


def splice_problems(response, body, before, after_rows):
    """That the change response turns `before` (version, rows) into `after_rows`."""
    version, rows = before
    if body["version"] != version + 1:
        return [f"version {body['version']}, expected {version + 1}"]
    if response.headers["ETag"] != f'"{body["version"]}"':
        return ["ETag is not the version"]
    if body["total"] != len(after_rows):
        return [f"total {body['total']}, rows {len(after_rows)}"]
    patched = list(rows)
    for splice in body["changes"]:
        i, removed, inserted = splice["index"], splice["removed"], splice["inserted"]
        if i + removed > len(patched):
            return [f"splice {splice} past the end"]
        patched[i:i + removed] = [None] * inserted
    if len(patched) != len(after_rows):
        return [f"splices give {len(patched)} rows, the view has {len(after_rows)}"]
    for old, new in zip(patched, after_rows):
        if old is not None and old != new:
            return [f"splices give {old} where the view has {new}"]
    return []


def open_streams(base):
    """The server's tree_event_streams_open gauge."""
    metrics = requests.get(base + "/metrics", timeout=10).text
    return int(re.search(r"^tree_event_streams_open (\d+)$", metrics, re.MULTILINE).group(1))


class WholeStream:
    """A call that reads an event stream whole (a generated client's), run on a thread: made
    when the server has opened the stream, so that what follows is in it."""

    def __init__(self, base, read):
        self.answer, self.error = None, None
        self.thread = threading.Thread(target=self._run, args=(read,), daemon=True)
        low = open_streams(base)
        self.thread.start()
        deadline = time.monotonic() + 10
        # More streams than at any time since the call started (earlier streams may close meanwhile).
        while self.thread.is_alive() and (count := open_streams(base)) <= low:
            assert time.monotonic() < deadline, "the stream did not open"
            low = min(low, count)
            time.sleep(0.02)

    def _run(self, read):
        try:
            self.answer = read()
        except BaseException as error:  # noqa: BLE001 (raised again by result())
            self.error = error

    def result(self):
        """What the call answered once the stream ended."""
        self.thread.join(timeout=10)
        assert not self.thread.is_alive(), "the stream did not end"
        if self.error is not None:
            raise self.error
        return self.answer
