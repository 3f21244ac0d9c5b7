"""The checks of scripts/cluster-test.sh against a cluster that scripts/cluster.sh started:

    python3 scripts/lib/cluster_check.py BASE_URL CLUSTER_DIR TREE_SERVER

Every request goes through nginx at BASE_URL, except where one is compared with the same
request straight to the instance (ports after nginx's, as cluster.sh gives them). It calls
`scripts/cluster.sh kill b` and `restart b` itself. Python stdlib only.
"""
import hashlib
import http.client
import json
import os
import random
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
BASE, CLUSTER_DIR, TREE_SERVER = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
PROXY = urllib.parse.urlsplit(BASE)
INSTANCES = ["a", "b", "c"]
SAMPLE = (REPO / "Tests/Support/TreeReference/Resources/outline-small.json").read_bytes()
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


class Reply:
    def __init__(self, r, body):
        self.status, self.headers, self.body = r.status, r.headers, body

    @property
    def json(self):
        return json.loads(self.body)

    def header(self, name):
        return self.headers.get(name)


def connect(port=None):
    return http.client.HTTPConnection(PROXY.hostname, port or PROXY.port, timeout=300)


CONN = connect()


def call(method, path, payload=None, headers=None, conn=None):
    """One request on a kept-alive connection (nginx's by default); payload: bytes or a JSON value."""
    conn = conn or CONN
    h = dict(headers or {})
    if payload is not None and not isinstance(payload, (bytes, bytearray)):
        payload = json.dumps(payload).encode()
    if payload is not None:
        h["Content-Type"] = "application/json"
    conn.request(method, path, body=payload, headers=h)
    r = conn.getresponse()
    return Reply(r, r.read())


def instance_port(name):
    for line in (CLUSTER_DIR / "instances").read_text().splitlines():
        n, address = line.split()
        if n == name:
            return int(address.rsplit(":", 1)[1])
    raise SystemExit(f"no instance {name} in {CLUSTER_DIR}/instances")


def cluster(*args):
    subprocess.run([str(REPO / "scripts/cluster.sh"), *args], check=True)


def is_problem(reply, status):
    try:
        doc = reply.json
    except ValueError:
        return False
    return (reply.status == status and reply.header("Content-Type") == "application/problem+json"
            and doc.get("status") == status and doc.get("type", "").startswith("urn:treesessions:problem:"))


def create_sample():
    r = call("POST", "/sessions", SAMPLE)
    if r.status != 201:
        raise SystemExit(f"FAIL: POST /sessions through nginx: {r.status} {r.body[:300]!r}")
    return r.json["id"], r


def wait_loaded(sid, deadline):
    """GET /sessions/{sid} until it is not 503 (an instance loading its sessions answers 503
    with Retry-After: 1, as does nginx while the instance starts)."""
    while True:
        r = call("GET", f"/sessions/{sid}")
        if r.status != 503 or time.monotonic() > deadline:
            return r
        time.sleep(float(r.header("Retry-After") or 1) / 5)


def big_upload(nodes):
    """An upload of `nodes` nodes (about 100 bytes each), every node with an id and a title,
    in roots of 1000 children with 9 grandchildren each."""
    parts, n, root = [], 0, 0
    parts.append(b'{"nodes":[')
    while n < nodes:
        if root:
            parts.append(b",")
        children = []
        for c in range(1000):
            kids = ",".join(f'{{"id":"n{root}.{c}.{k}","title":"Level 3, item {k} of {c} under root {root}, padded to about a hundred bytes"}}'
                            for k in range(9))
            children.append(f'{{"id":"n{root}.{c}","title":"Level 2, item {c} under root {root}","children":[{kids}]}}')
        parts.append(f'{{"id":"n{root}","title":"Root {root}","children":[{",".join(children)}]}}'.encode())
        n += 1 + 1000 * 10
        root += 1
    parts.append(b"]}")
    return b"".join(parts), n


def stream_digest(path, port=None):
    """GET path (the streamed export), hashed as it arrives: status, headers, sha256, bytes."""
    conn = connect(port)
    conn.request("GET", path)
    r = conn.getresponse()
    digest, size = hashlib.sha256(), 0
    while chunk := r.read(1 << 20):
        digest.update(chunk)
        size += len(chunk)
    conn.close()
    return r.status, r.headers, digest.hexdigest(), size


def read_event(response):
    """The next server-sent event of a streamed response, as a dict (event, id, data)."""
    event = {}
    while True:
        line = response.readline().decode().rstrip("\n")
        if line == "" and "data" in event:
            return event
        if line and not line.startswith(":"):
            name, _, value = line.partition(": ")
            event[name] = value


def main():
    # ---- placement: 30 sessions through nginx land on every instance
    sessions = [create_sample()[0] for _ in range(30)]
    by_instance = {name: [s for s in sessions if s.startswith(name + ".")] for name in INSTANCES}
    check(all(len(s.split(".", 1)[1]) == 22 for s in sessions), "every id is NAME. and 22 random characters")
    check(all(by_instance[n] for n in INSTANCES) and sum(map(len, by_instance.values())) == 30,
          "30 sessions created through nginx land on a, b and c: "
          + ", ".join(f"{n} {len(by_instance[n])}" for n in INSTANCES))
    r = create_sample()[1]
    check(r.header("Location") == f"/sessions/{r.json['id']}", "Location is the session's path, through nginx")

    # ---- the API through the proxy, on a session of each instance
    for name in INSTANCES:
        sid = by_instance[name][0]
        p = f"/sessions/{sid}"
        rows = call("GET", f"{p}/rows?limit=3")
        check(rows.status == 200 and rows.json["total"] == 5 and len(rows.json["rows"]) == 3, f"{name}: rows")
        etag = rows.header("ETag")
        check(call("GET", f"{p}/rows?limit=3", headers={"If-None-Match": etag}).status == 304, f"{name}: If-None-Match → 304")
        exp = call("PATCH", f"{p}/items/1", {"expanded": True})
        check(exp.status == 200 and exp.json["total"] == 8 and exp.json["version"] == 2, f"{name}: expand")
        check(call("GET", f"{p}/rows?limit=3", headers={"If-None-Match": etag}).status == 200, f"{name}: a stale tag → 200")
        flt = call("GET", f"{p}/rows?filter=ce&limit=2")
        check(flt.status == 200 and flt.json["filter"] == "ce" and flt.json["matchCount"] > 0, f"{name}: filter")
        stale = call("POST", f"{p}/items", {"nodes": [{"title": "new"}], "parentId": "1"}, headers={"If-Match": etag})
        check(is_problem(stale, 412), f"{name}: If-Match with a stale tag → 412 problem+json")
        ins = call("POST", f"{p}/items", {"nodes": [{"id": "n1", "title": "new"}], "parentId": "1"}, headers={"If-Match": '"2"'})
        check(ins.status == 201 and ins.header("Location") == f"{p}/items/n1", f"{name}: insert with If-Match → 201, Location")
        upd = call("PATCH", f"{p}/items/n1", {"title": "renamed"})
        check(upd.status == 200, f"{name}: update")
        dele = call("DELETE", f"{p}/items/n1")
        check(dele.status == 200 and dele.json["version"] == 5, f"{name}: delete")
        batch = call("POST", f"{p}/batch", {"operations": [{"op": "expand", "id": "1", "expanded": False},
                                                           {"op": "expandAll"}]})
        check(batch.status == 200 and batch.json["version"] == 6 and len(batch.json["results"]) == 2, f"{name}: batch")

    # ---- an event stream through nginx: events pass at once (no buffering), in order
    sid = by_instance["b"][1]
    events = connect()
    events.request("GET", f"/sessions/{sid}/events")
    stream = events.getresponse()
    check(stream.status == 200 and stream.getheader("Content-Type") == "text/event-stream", "b: an event stream through nginx")
    first = read_event(stream)
    t = time.monotonic()
    change = call("PATCH", f"/sessions/{sid}/items/1", {"expanded": True})
    event = read_event(stream)
    took = time.monotonic() - t
    check(first.get("event") == "reset" and event.get("event") == "change" and event.get("id") == "2"
          and json.loads(event["data"]) == change.json and took < 1,
          f"b: a change's event arrives through nginx in {took * 1000:.0f} ms, equal to its response")
    events.close()

    # nginx's own answers: an id of no instance, an id without an instance.
    for path in ["/sessions/zz.AAAAAAAAAAAAAAAAAAAAAA/rows", "/sessions/AAAAAAAAAAAAAAAAAAAAAA"]:
        check(is_problem(call("GET", path), 404), f"{path} → 404 problem+json from nginx")
    # An instance's own 404 for another instance's id (straight to it, not through nginx).
    direct = call("GET", f"/sessions/{by_instance['b'][0]}/rows", conn=connect(instance_port("a")))
    check(is_problem(direct, 404) and "instance b" in direct.json["detail"], "instance a answers 404 for an id of b")
    # Any instance: the demo and its files, the spec, health, metrics.
    home = call("GET", "/")
    check(home.status == 200 and home.header("Content-Type").startswith("text/html") and b"TreeSessions demo" in home.body,
          "GET / (the demo, one page with its script inline) through nginx")
    for asset in ["/openapi.yaml", "/healthz", "/metrics"]:
        check(call("GET", asset).status == 200, f"GET {asset} through nginx")
    check(call("GET", f"/?session={by_instance['c'][0]}").status == 200, "the demo's link to a session")

    # ---- a 100 MB upload (BIG_NODES: 1,050,105 nodes by default) and its streamed export
    body, nodes = big_upload(int(os.environ.get("BIG_NODES", "1050000")))
    t = time.monotonic()
    big = call("POST", "/sessions", body)
    took = time.monotonic() - t
    if check(big.status == 201 and big.json["nodeCount"] == nodes,
             f"a {len(body) / 1e6:.0f} MB upload of {nodes} nodes through nginx ({took:.1f} s)"):
        bid = big.json["id"]
        t = time.monotonic()
        status, headers, proxied, size = stream_digest(f"/sessions/{bid}/tree")
        took = time.monotonic() - t
        _, _, straight, _ = stream_digest(f"/sessions/{bid}/tree", port=instance_port(bid.split(".")[0]))
        check(status == 200 and proxied == straight and headers.get("Transfer-Encoding") == "chunked",
              f"its export streamed through nginx ({size / 1e6:.0f} MB, {took:.1f} s, chunked) is the instance's, byte for byte")
        exported = json.loads(call("GET", f"/sessions/{bid}/tree").body)
        first = exported["nodes"][0]
        check(len(exported["nodes"]) == (nodes + 10_000) // 10_001 and first["id"] == "n0" and len(first["children"]) == 1000
              and first["children"][999]["children"][8]["title"].startswith("Level 3, item 8 of 999"),
              "the export is the upload's tree")
        check(call("DELETE", f"/sessions/{bid}").status == 204, "the big session deleted")
    del body

    # ---- an instance down: its sessions answer 503, the others go on
    versions = {}
    for sid in sessions:
        r = call("GET", f"/sessions/{sid}")
        versions[sid] = (r.json["version"], r.header("ETag"))
    cluster("kill", "b")
    downs = [call("GET", f"/sessions/{sid}/rows") for sid in by_instance["b"]]
    check(all(is_problem(r, 503) and r.header("Retry-After") for r in downs),
          f"b killed: its {len(downs)} sessions answer 503 problem+json with Retry-After")
    edit = call("PATCH", f"/sessions/{by_instance['b'][0]}/items/1", {"expanded": False})
    # Its body may be unread: nginx closes the connection after the answer, and says so.
    check(is_problem(edit, 503) and edit.header("Connection") == "close", "b killed: an edit of b's session → 503, Connection: close")
    for name in ["a", "c"]:
        ok = all(call("GET", f"/sessions/{sid}/rows").status == 200 for sid in by_instance[name])
        sid = by_instance[name][-1]
        edit = call("PATCH", f"/sessions/{sid}/items/1", {"expanded": True})
        versions[sid] = (edit.json.get("version"), f'"{edit.json.get("version")}"')
        check(ok and edit.status == 200, f"b killed: the sessions of {name} answer, and take edits")
    new = [create_sample()[0] for _ in range(6)]
    check(all(not s.startswith("b.") for s in new), "b killed: new sessions go to a and c (6 of 6 created)")
    # A data directory belongs to its instance: a with b's directory refuses to start.
    run = subprocess.run([TREE_SERVER, "--instance", "a", "--port", "0", "--data-dir", str(CLUSTER_DIR / "b/data")],
                         capture_output=True, text=True, timeout=30)
    check(run.returncode == 2 and "sessions of instance b" in run.stderr, "instance a refuses to start on b's data directory (exit 2)")
    run = subprocess.run([TREE_SERVER, "--instance", "B.1", "--data-dir", "none"], capture_output=True, text=True, timeout=30)
    check(run.returncode == 2 and "--instance needs" in run.stderr, "--instance B.1 → exit 2 with a clear message")

    # ---- b again: every session of b back with its version
    cluster("restart", "b")
    deadline = time.monotonic() + 60
    back = {sid: wait_loaded(sid, deadline) for sid in by_instance["b"]}
    check(all(r.status == 200 and r.json["version"] == versions[sid][0] and r.header("ETag") == versions[sid][1]
              for sid, r in back.items()), f"b restarted: its {len(back)} sessions are back, each at its version and ETag")
    sid = by_instance["b"][0]
    check(call("GET", f"/sessions/{sid}/rows", headers={"If-None-Match": versions[sid][1]}).status == 304,
          "b restarted: a tag from before the kill still matches")
    check(call("PATCH", f"/sessions/{sid}/items/1", {"expanded": False}, headers={"If-Match": versions[sid][1]}).status == 200,
          "b restarted: an edit with If-Match of before the kill")
    others = [sid for sid in sessions if not sid.startswith("b.")]
    check(all(call("GET", f"/sessions/{sid}").json["version"] == versions[sid][0] for sid in others),
          f"the {len(others)} sessions of a and c are at their versions")

    print(f"{len(failures)} failed" if failures else "all passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
