"""The complexity guard of the service path (scripts/check-complexity.sh): edits over HTTP
on sessions of the 88K and the 797K tree (9x the nodes), each uploaded expanded and with the
four filtered views of tree-bench's edit ops kept and a view of its own sorted by title,
descending (toggles and renames through it), on one keep-alive connection, in
alternating rounds. The median time of a request may grow at most LIMIT times across the
larger tree: HTTP costs the same on both, so an engine step linear in the tree shows as a
growth of many times (each kept view once copied costs 10 ms an edit on 7.2M nodes).

Usage: http_complexity.py PORT DIR   (DIR holds 88K.json and 797K.json from tree-bench --emit)
"""
import http.client
import json
import random
import statistics
import sys
import time
import urllib.parse

sys.path.insert(0, sys.argv[0].rsplit("/", 1)[0])
from service_client import call_json  # noqa: E402

LIMIT = 3.0
ROUNDS = 5
PER_ROUND = 8
# tree-bench's editFilters: "Level <nest - 1>" matches every leaf.
SIZES = {"88K": 10, "797K": 12}

port, folder = int(sys.argv[1]), sys.argv[2]
c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
rng = random.Random(42)


def q(text):
    return urllib.parse.quote(text, safe="")


class Session:
    def __init__(self, name, nest):
        body = open(f"{folder}/{name}.json", "rb").read()
        created = call_json(c, "POST", "/sessions?expand=all", body)
        self.name, self.sid, self.nodes = name, created["id"], created["nodeCount"]
        self.filters = ["item: 2", f"Level {nest - 1}", "item: 1", "Level 7"]
        self.turn = 0
        self.keep_views()
        # A view expanded like the session, sorted: every edit keeps its order too.
        self.vid = call_json(c, "POST", f"/sessions/{self.sid}/views", json.dumps({"expand": "all"}).encode())["id"]
        call_json(c, "PATCH", f"/sessions/{self.sid}/views/{self.vid}", json.dumps({"sort": "-title"}).encode())

    def keep_views(self):
        """Names the four filters, so that the session keeps each (building it if needed)."""
        for f in self.filters:
            call_json(c, "GET", f"/sessions/{self.sid}/rows?filter={q(f)}&limit=1")

    def rows(self):
        total = call_json(c, "GET", f"/sessions/{self.sid}/rows?limit=1")["total"]
        offset = rng.randrange(max(1, total - 50))
        return call_json(c, "GET", f"/sessions/{self.sid}/rows?offset={offset}&limit=50")["rows"]

    def pick(self, leaf=None):
        """A random visible node's id; a leaf's, or one with children, when asked."""
        while True:
            rows = [r for r in self.rows() if leaf is None or r["hasChildren"] != leaf]
            if rows:
                return rng.choice(rows)["id"]

    def view(self, named):
        """The query naming the view an edit names: the unfiltered one, or each filter in turn."""
        if not named:
            return ""
        self.turn += 1
        return "?filter=" + q(self.filters[self.turn % len(self.filters)])

    def timed(self, method, path, payload=None):
        body = json.dumps(payload).encode() if payload is not None else None
        start = time.perf_counter()
        call_json(c, method, path, body)
        return time.perf_counter() - start

    def title(self):
        return f"Level {rng.randrange(14)}, item: {rng.randrange(1, 4)}"

    def insert(self, named):
        parent = self.pick()
        return self.timed("POST", f"/sessions/{self.sid}/items{self.view(named)}",
                          {"nodes": [{"title": self.title()}], "parentId": parent})

    def delete(self, named):
        return self.timed("DELETE", f"/sessions/{self.sid}/items/{q(self.pick(leaf=True))}{self.view(named)}")

    def move(self, named):
        node = self.pick(leaf=True)
        target = self.pick()
        while target == node:
            target = self.pick()
        return self.timed("PATCH", f"/sessions/{self.sid}/items/{q(node)}{self.view(named)}", {"parentId": target, "index": 0})

    def rename(self, named):
        return self.timed("PATCH", f"/sessions/{self.sid}/items/{q(self.pick())}{self.view(named)}", {"title": self.title()})

    def toggle(self, named):
        node = self.pick(leaf=False)
        path = f"/sessions/{self.sid}{self.sorted_view(named)}/items/{q(node)}"
        return self.timed("PATCH", path, {"expanded": False}) + self.timed("PATCH", path, {"expanded": True})

    def sorted_view(self, named):
        return f"/views/{self.vid}" if named else ""

    def sorted_rename(self, named):
        return self.timed("PATCH", f"/sessions/{self.sid}/views/{self.vid}/items/{q(self.pick())}", {"title": self.title()})


sessions = [Session(name, nest) for name, nest in SIZES.items()]
ops = [("toggle", Session.toggle, False), ("sorted.toggle", Session.toggle, True), ("sorted.rename", Session.sorted_rename, True)] + [
    (name + (".named" if named else ""), edit, named)
    for name, edit in [("insert", Session.insert), ("delete", Session.delete), ("move", Session.move), ("rename", Session.rename)]
    for named in (False, True)
]
samples = {(op, s.name): [] for op, _, _ in ops for s in sessions}
for _ in range(ROUNDS):
    for op, run, named in ops:
        for s in sessions:
            s.keep_views()
            samples[(op, s.name)] += [run(s, named) for _ in range(PER_ROUND)]

small, large = sessions
print(f"complexity guard over HTTP: sessions of {small.nodes} and {large.nodes} nodes "
      f"({large.nodes / small.nodes:.1f}x), four filtered views and a sorted view kept, {ROUNDS} alternating rounds; limit {LIMIT}x")
print(f"{'op':16s} {small.name + ' median':>14s} {large.name + ' median':>14s}   growth")
failed = []
for op, _, _ in ops:
    a, b = statistics.median(samples[(op, small.name)]), statistics.median(samples[(op, large.name)])
    growth = b / a
    if not growth <= LIMIT:
        failed.append(op)
    print(f"{op:16s} {a * 1e3:11.3f} ms {b * 1e3:11.3f} ms {growth:7.2f}x" + ("" if growth <= LIMIT else "  FAIL"))
for s in sessions:
    call_json(c, "DELETE", f"/sessions/{s.sid}")
if failed:
    sys.exit(f"complexity guard over HTTP FAILED: {', '.join(failed)} grew more than {LIMIT}x across a 9x larger tree")
print("complexity guard over HTTP passed")
