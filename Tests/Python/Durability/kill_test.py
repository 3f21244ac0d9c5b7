#!/usr/bin/env python3
"""Kill test of tree-server's durability over a real socket (issue 11). Standard library only.

Two servers run the same binary: S on a data directory (`--data-dir DIR --fsync MODE`) and R in
memory only (`--data-dir none`), the reference. A few random trees are uploaded to both as
several sessions; then client threads (one per group of sessions, so several sessions are
driven at once) send the randomized operation mix to both, the same requests in the same
order: expand and collapse (also recursive), reveal, expandAll / collapseAll / expandDepth,
insert, delete, move, update, batches (some failing as a whole), reads of rows, items,
summaries and trees, in the unfiltered view and in more filtered views than a session keeps,
with If-Match and If-None-Match now and then. Sessions also get views of their own (issue 35):
made (collapsed, expanded, to a depth, copies of the default view or of another view) and
deleted, and a third of the requests go through one of them (`/sessions/{sid}/views/{vid}/...`:
expansion, filtered rows, tree edits, batches, reads). Every answer of S must equal R's (status, ETag,
Location, content type and body, session ids mapped): a differential check on its own.

A request goes to S first and to R only once S answered, so at the moment S gets SIGKILL (after
a random number of operations) each session has an acknowledged version and at most one
request in flight. S restarts on the same directory (with the next `--fsync` mode: batch,
always, off in turn); sessions may answer 503 with Retry-After while they load, never 404. Then,
per session: S's version is the acknowledged one, or the in-flight request landed wholly (it is
replayed on R, and the versions must agree; for a request through a view that edits no tree,
the view's version, or the list of views, tells whether it landed); the summary, every page of the unfiltered view and
of each filtered view the session keeps, and the tree must equal R's; a change with
`If-Match` naming the version from before the restart succeeds, a stale one answers 412;
deleted sessions stay deleted; every view is there with its version, its summary, its rows and
its rows in every filter the run uses (times left out, ids mapped). Some restarts are killed again while they load. The run goes on
(more operations, another kill) for ROUNDS rounds, ends with a SIGTERM (exit status 0) and one
more restart and comparison, and repeats for each seed.

  TREE_SERVER=.build/debug/tree-server python3 Tests/Python/Durability/kill_test.py

Environment:
  TREE_SERVER  the tree-server binary (required)
  SEEDS        how many seeds (default 8: seeds 1..8); SEED=N runs seed N alone
  ROUNDS       kills per seed (default 3)
  THREADS      client threads (default 4); SESSIONS sessions per seed (default 8)
  DIFF_ONLY=1  no durability flags and no kills: only the differential check of two
               memory-only servers (for servers without --data-dir)
  VERBOSE=1    print every step
  S_FLAGS      more flags for S (say a small compaction threshold, so that kills hit compactions)
  STARTUP_SESSIONS  sessions of the start-up check (default 200; 0 skips it; not run with SEED)
  STARTUP_RESTARTS  restarts of the start-up check (default 4)
  COMPACTION_SEED   seed of the compaction run (default 1000; 0 skips it; not run with SEED)

After the seeds, a compaction run: the same with 2 sessions and 1 thread, where session 0 also
gets updates with 3-5 MB of data, so that its journal passes the compaction threshold (64 MiB)
and kills land before, during and after compactions.

After the seeds, a start-up check: STARTUP_SESSIONS sessions on disk, the server restarted (after
SIGTERM and after SIGKILL) and polled by 4 threads from the moment it starts: 503 while a
session loads, never 404, and afterwards every session there with its version.

On a mismatch it prints the seed, the session, its step log and the difference, and exits 1.
"""
import collections
import difflib
import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

CAPACITY = 4           # filtered views a session keeps (the server's default)
MAX_PAGE = 1000        # the server's default --max-page
MODES = ["batch", "always", "off"]
LOAD_TIMEOUT = 60      # seconds a session may answer 503 after a restart
CONNECTION_ERRORS = (OSError, http.client.HTTPException)

VOCABULARY = ["alpha", "Beta", "gamma", "DELTA", "epsilon", "zeta", "Eta", "theta", "iota",
              "Kappa", "café", "Straße", "naïve", "🌲 tree", "report", "Report", "notes",
              "Alphabet", "data", "a", "x"]
FILTER_TEXTS = ["a", "al", "Be", "ta", "report", "café", "E", "ss", "straße", "🌲", "alpha",
                "eta", "notes", "Report", "x", "AL", "ph"]


class Failure(Exception):
    """A mismatch or a broken promise; `session` is the session it concerns (or None)."""

    def __init__(self, message, session=None):
        super().__init__(message)
        self.session = session


# MARK: Servers and connections

class Server:
    """A tree-server process started with --port 0; `port` is read from its log. With a
    `port`, it is started on that one and not waited for."""

    def __init__(self, binary, flags, log_path, cwd, port=None):
        self.flags = flags
        self.log_path = log_path
        self.log = open(log_path, "ab")
        self.log.write(f"==== tree-server {' '.join(flags)}\n".encode())
        self.log.flush()
        start = self.log.tell()
        self.process = subprocess.Popen(
            [binary, "--host", "127.0.0.1", "--port", str(port or 0), "--access-log", "false", *flags],
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=cwd)
        self.started = time.monotonic()
        deadline = time.monotonic() + 30
        self.port = port
        while self.port is None:
            with open(log_path, "rb") as f:
                f.seek(start)
                for line in f.read().decode(errors="replace").splitlines():
                    if "listening on 127.0.0.1:" in line:
                        self.port = int(line.rsplit(":", 1)[1].split()[0])
            if self.port is None:
                if self.process.poll() is not None:
                    raise Failure(f"tree-server {' '.join(flags)} exited with status "
                                  f"{self.process.returncode}:\n{self.tail()}")
                if time.monotonic() > deadline:
                    raise Failure(f"tree-server {' '.join(flags)} did not report its port:\n{self.tail()}")
                time.sleep(0.02)

    def tail(self, lines=30):
        with open(self.log_path, "rb") as f:
            return "\n".join(f.read().decode(errors="replace").splitlines()[-lines:])

    def kill(self):
        """SIGKILL, and wait for the process to be gone."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def terminate(self, timeout=30):
        """SIGTERM; the exit status (None if it had to be killed)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                return None
        return self.process.returncode


class Response:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def json(self):
        return json.loads(self.body)


class Connection:
    """One keep-alive connection to a server, opened again when the server asks to close it
    (or well before its per-connection request limit)."""

    def __init__(self, port, timeout=60):
        self.port, self.timeout = port, timeout
        self.conn = None
        self.count = 0

    def send(self, method, path, body=None, headers=None):
        if self.conn is None or self.count >= 5000:
            self.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
            self.count = 0
        self.count += 1
        h = dict(headers or {})
        if body is not None:
            h.setdefault("Content-Type", "application/json")
        try:
            self.conn.request(method, path, body=body, headers=h)
            r = self.conn.getresponse()
            data = r.read()
        except BaseException:
            self.close()
            raise
        kept = {k: r.getheader(k) for k in ("ETag", "Location", "Content-Type", "Retry-After")}
        if (r.getheader("Connection") or "").lower() == "close":
            self.close()
        return Response(r.status, kept, data)

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


# MARK: Requests

def quote_id(node_id):
    return urllib.parse.quote(str(node_id), safe="")


def view_query(view, rng):
    """The query string (without '?') naming `view`: None is the unfiltered view, else
    (text, match, caseSensitive). Default options are sometimes spelled out."""
    if view is None:
        return "filter=" if rng.random() < 0.1 else ""
    text, match, case = view
    parts = ["filter=" + urllib.parse.quote(text, safe="")]
    if match != "contains" or rng.random() < 0.3:
        parts.append("match=" + match)
    if case or rng.random() < 0.3:
        parts.append("caseSensitive=" + ("true" if case else "false"))
    return "&".join(parts)


def with_query(path, query):
    if not query:
        return path
    return path + ("&" if "?" in path else "?") + query


class Request:
    """One request for both servers: `path` has `{sid}` where the session id goes.
    `kind` is "read", "change", "upload" or "delete-session"; `view` the view it names."""

    def __init__(self, method, path, body=None, headers=None, kind="read", view=None, label=""):
        self.method, self.path, self.body = method, path, body
        self.headers = headers or {}
        self.kind, self.view, self.label = kind, view, label
        # Through a session's view: its id on S ({vid} in the path); a view a new one copies
        # ({vfrom} in the body).
        self.vid = self.vfrom = None

    def path_for(self, sid, views=None):
        """The path for one server: `views` maps S's view ids to that server's (None: S)."""
        path = self.path.replace("{sid}", sid)
        if self.vid is not None:
            path = path.replace("{vid}", self.vid if views is None else views.get(self.vid, "-"))
        return path

    def body_for(self, views=None):
        if self.vfrom is None or self.body is None:
            return self.body
        return self.body.replace(b"{vfrom}", (self.vfrom if views is None else views.get(self.vfrom, "-")).encode())

    @property
    def through_view(self):
        """Whether it reads or changes a session's view, or makes or deletes one."""
        return self.vid is not None or self.label == "create view"

    def describe(self):
        body = ""
        if self.body is not None:
            text = self.body[:400].decode(errors="replace")
            body = " " + (text if len(self.body) <= 300 else text[:300] + f"...({len(self.body)} bytes)")
        headers = "".join(f" [{k}: {v}]" for k, v in self.headers.items())
        return f"{self.method} {self.path}{headers}{body}"


def body(value, rng):
    return json.dumps(value, ensure_ascii=rng.random() < 0.5, separators=(",", ":")).encode()


# MARK: Random trees and values

def random_json(rng, depth=0):
    k = rng.randrange(9 if depth < 2 else 6)
    if k == 0:
        return None
    if k == 1:
        return rng.random() < 0.5
    if k == 2:
        return rng.choice([0, -1, 7, 2**31, -2**53, 2**63 - 1, 12345678901234567890, rng.randrange(-1000, 1000)])
    if k == 3:
        return rng.choice([1.5, -0.25, 1e-7, 6.02e23, 1e300, 0.1, -0.0, 3.141592653589793])
    if k == 4:
        return rng.choice(VOCABULARY) + rng.choice(["", "\n", "\"q\"", "\\", "\u0000", "\t", " 🌲", "é"])
    if k == 5:
        return ""
    if k == 6:
        return [random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = rng.sample(["size", "kind", "é", "a b", "", "nested", "n"], rng.randrange(4))
    return {key: random_json(rng, depth + 1) for key in keys}


def random_title(rng):
    words = [rng.choice(VOCABULARY) for _ in range(rng.choice([1, 1, 2, 2, 3]))]
    if rng.random() < 0.2:
        words.append(str(rng.randrange(100)))
    return " ".join(words)


def random_node(rng, node_id, with_id=True):
    node = {"title": random_title(rng)}
    if with_id:
        node["id"] = node_id
    if rng.random() < 0.3:
        node["data"] = random_json(rng)
    if rng.random() < 0.25:
        node["expanded"] = rng.random() < 0.7
    return node


def random_forest(rng, n, tag):
    """About n nodes; ids of several kinds (strings, integers, ones that need
    percent-encoding, a few missing so the server generates `~N`)."""
    roots, everything = [], []
    for k in range(n):
        r = rng.random()
        if r < 0.55:
            node_id = f"{tag}{k}"
        elif r < 0.8:
            node_id = 100000 + k
        elif r < 0.9:
            node_id = rng.choice(["a/b ", "x y?", "é#", "%&+", "~"]) + str(k)
        else:
            node_id = None
        node = random_node(rng, node_id, with_id=node_id is not None)
        if everything and rng.random() > 0.05:
            parent = rng.choice(everything[-30:] if rng.random() < 0.7 else everything)
            parent.setdefault("children", []).append(node)
        else:
            roots.append(node)
        everything.append(node)
    for node in everything:
        if "children" not in node and rng.random() < 0.05:
            node["hasChildren"] = True
    return roots


# MARK: Sessions on both servers

class Session:
    """What the client knows of one session: its ids on S and R, the acknowledged version,
    the filtered views it keeps (client-side, least recently used first), the ids it has
    seen, the request in flight, and its step log."""

    def __init__(self, index):
        self.index = index
        self.sid_s = self.sid_r = None
        self.created_s = None
        self.ack = 0
        self.kept = []
        self.ids = {}          # str(id) -> the id as uploaded (str or int)
        self.parents = {}      # str(id) -> str(parent id) or None, from the last tree read
        self.visible = {}      # view -> ids on the last page read
        self.in_flight = None
        self.log = []
        self.counter = 0
        self.views = {}        # the session's views: S's id -> R's id, in the order they were made
        self.view_acks = {}    # S's view id -> its acknowledged version

    @property
    def alive(self):
        return self.sid_s is not None

    def note(self, line):
        self.log.append(line)
        if VERBOSE:
            print(f"  s{self.index} {line}", flush=True)

    def learn_tree(self, tree):
        self.ids, self.parents = {}, {}

        def walk(nodes, parent):
            for node in nodes:
                key = str(node["id"])
                self.ids[key] = node["id"]
                self.parents[key] = parent
                walk(node.get("children", []), key)
        walk(tree["nodes"], None)

    def learn_rows(self, view, page):
        rows = page.get("rows") or []
        for row in rows:
            self.ids.setdefault(str(row["id"]), row["id"])
        if rows:
            self.visible[view] = [row["id"] for row in rows]

    def track(self, request, status):
        """The client-side copy of the kept filtered views after `request` answered `status`,
        by the server's rules: a read of a view it does not keep builds it (the most recently
        used; also when the item is then not found); a read of a kept view does not reorder; a
        change prepares its view (builds it or makes it the most recently used) after If-Match
        and the ids it names were checked (404, 412 and a body refused before: no use), so a
        change answering 2xx or 409 (`cycle`, found while applying) used it; a failing batch
        rolls the preparation back. Single requests here never fail later than that with 422
        (their `index` is 0 or absent)."""
        view = request.view
        if view is None or status in (400, 415) or request.through_view:
            return
        if request.method == "GET":
            used = view not in self.kept
        elif request.label == "batch":
            used = status < 300
        else:
            used = status < 300 or status == 409
        if used:
            if view in self.kept:
                self.kept.remove(view)
            self.kept.append(view)
            del self.kept[:-CAPACITY]

def compare(request, rs, rr, session):
    """None when S's answer `rs` equals R's `rr`, else a description of the difference."""
    problems = []
    if rs.status != rr.status:
        problems.append(f"status: S {rs.status}, R {rr.status}")
    for header in ("ETag", "Content-Type"):
        if rs.headers[header] != rr.headers[header]:
            problems.append(f"{header}: S {rs.headers[header]!r}, R {rr.headers[header]!r}")
    location_s = rs.headers["Location"]
    if session.sid_s and location_s:
        location_s = location_s.replace(session.sid_s, session.sid_r or "")
    for mine, theirs in session.views.items():
        location_s = location_s and location_s.replace(mine, theirs)
    if location_s != rr.headers["Location"]:
        problems.append(f"Location: S {rs.headers['Location']!r}, R {rr.headers['Location']!r}")
    body_s, body_r = rs.body, rr.body
    if session.sid_s and session.sid_r:
        body_s = body_s.replace(session.sid_s.encode(), session.sid_r.encode())
    for mine, theirs in session.views.items():
        body_s = body_s.replace(mine.encode(), theirs.encode())
    summary = (request.method == "POST" and request.path == "/sessions") or \
              (request.method == "GET" and request.path == "/sessions/{sid}")
    if "/views" in request.path and (rs.headers["Content-Type"] or "").startswith("application/json") \
            and rr.status == rs.status:
        # A view's summary and the list of views show wall-clock times of their own.
        a, b = strip_times(json.loads(body_s)), strip_times(json.loads(body_r))
        if a != b:
            problems.append("body:\n" + text_diff(a, b))
    elif summary and rs.status in (200, 201) and rr.status == rs.status:
        a, b = strip_times(json.loads(rs.body)), strip_times(json.loads(rr.body))
        for d in (a, b):
            d.pop("id", None)
        if a != b:
            problems.append("summary:\n" + text_diff(a, b))
    elif body_s != body_r:
        problems.append("body:\n" + text_diff(body_s, body_r))
    return "\n".join(problems) or None


def strip_times(value):
    """`value` without the members that are wall-clock times (createdAt, lastUse, expiresAt)."""
    if isinstance(value, dict):
        return {k: strip_times(v) for k, v in value.items() if k not in ("createdAt", "lastUse", "expiresAt")}
    if isinstance(value, list):
        return [strip_times(v) for v in value]
    return value


def text_diff(a, b):
    def lines(x):
        if isinstance(x, bytes):
            try:
                x = json.loads(x)
            except ValueError:
                return x.decode(errors="replace").splitlines()
        return json.dumps(x, indent=1, ensure_ascii=False, sort_keys=False).splitlines()
    def short(ls):
        return [line if len(line) <= 400 else line[:400] + f"...({len(line)} characters)" for line in ls]
    diff = list(difflib.unified_diff(short(lines(a)), short(lines(b)), "S", "R", lineterm="", n=2))
    return "\n".join(diff[:60]) + ("\n..." if len(diff) > 60 else "")


class World:
    """One seed's run: servers, sessions, the kill switch."""

    def __init__(self, seed, binary, workdir, sessions=None, threads=None, big=False):
        self.seed, self.binary, self.workdir = seed, binary, workdir
        self.threads = threads or THREADS
        # Session 0 gets updates with megabytes of data now and then: its journal passes the
        # compaction threshold (64 MiB) within a round, so kills also land during compactions.
        self.big = big
        self.rng = random.Random(f"{seed}-main")
        self.data_dir = os.path.join(workdir, "data")
        self.s_log = os.path.join(workdir, "s.log")
        self.r_log = os.path.join(workdir, "r.log")
        self.sessions = [Session(i) for i in range(sessions or SESSIONS)]
        self.deleted_s = []
        self.filters = self.pick_filters()
        self.lock = threading.Lock()
        self.done = 0
        self.killed = threading.Event()
        self.stop = threading.Event()
        self.failure = None
        self.trees = [random_forest(self.rng, self.rng.randint(80, 400), f"t{k}-") for k in range(3)]
        self.S = self.R = None
        self.stats = collections.Counter()
        self.generations = 1
        self.ready_times = []

    def pick_filters(self):
        filters = set()
        while len(filters) < 7:
            text = self.rng.choice(FILTER_TEXTS)
            if self.rng.random() < 0.2:
                text = text.upper() if self.rng.random() < 0.5 else text.lower()
            mode = self.rng.choice(["contains", "contains", "prefix", "exact"])
            filters.add((text, mode, self.rng.random() < 0.25))
        return sorted(filters)

    def s_flags(self, mode):
        return EXTRA_S_FLAGS + ([] if DIFF_ONLY else ["--data-dir", self.data_dir, "--fsync", mode])

    def start_s(self, mode):
        # Each server in a directory of its own: in DIFF_ONLY a server with storage keeps its
        # default data directory there.
        self.S = Server(self.binary, self.s_flags(mode), self.s_log, self.subdirectory("s"))
        return self.S

    def start_r(self):
        self.R = Server(self.binary, [] if DIFF_ONLY else ["--data-dir", "none"], self.r_log, self.subdirectory("r"))

    def subdirectory(self, name):
        path = os.path.join(self.workdir, name)
        os.makedirs(path, exist_ok=True)
        return path

    def stop_all(self):
        for server in (self.S, self.R):
            if server is not None:
                server.kill()

    # MARK: One exchange

    def exchange(self, session, request, cs, cr, *, expect_kill=False):
        """Sends `request` to S, then to R; compares. Returns R's response, or None when S
        did not answer (after the kill: the request stays in flight)."""
        session.in_flight = request
        sid_s = session.sid_s or "-"
        try:
            rs = cs.send(request.method, request.path_for(sid_s), request.body_for(), request.headers)
        except CONNECTION_ERRORS as e:
            if expect_kill and self.killed.is_set():
                session.note(f"IN FLIGHT at the kill: {request.describe()}")
                return None
            raise Failure(f"S did not answer ({type(e).__name__}: {e}) to {request.describe()}", session)
        session.in_flight = None
        rr = self.send_r(session, request, cr)
        return self.settle(session, request, rs, rr)

    def send_r(self, session, request, cr):
        """Sends `request` to R, its session and view ids mapped."""
        return cr.send(request.method, request.path_for(session.sid_r or "-", session.views),
                       request.body_for(session.views), request.headers)

    def settle(self, session, request, rs, rr):
        """Checks S's answer against R's and moves the client's state on with R's answer."""
        if request.label == "create view" and rs.status == 201 and rr.status == 201:
            session.views[rs.json()["id"]] = rr.json()["id"]
        version = rr.headers["ETag"]
        session.note(f"{request.label or request.kind}: {request.describe()} -> {rr.status}"
                     f"{' v' + version.strip(chr(34)) if version else ''}")
        diff = compare(request, rs, rr, session)
        if diff:
            raise Failure(f"S and R answer differently:\n{diff}", session)
        self.after(session, request, rr)
        return rr

    def after(self, session, request, rr):
        """Client bookkeeping after R answered `request`."""
        if request.kind == "upload" and rr.status == 201:
            return rr
        session.track(request, rr.status)
        if request.kind == "delete-session":
            return rr
        if request.through_view:
            return self.after_view(session, request, rr)
        ctype = rr.headers["Content-Type"] or ""
        data = None
        if rr.body and ctype.startswith("application/json"):
            data = rr.json()
        if request.method == "GET" and data is not None:
            if request.path.endswith("/tree"):
                session.learn_tree(data)
            elif "/rows" in request.path:
                session.learn_rows(request.view, data)
        if data is not None and "ids" in data:
            for node_id in data["ids"]:
                session.ids[str(node_id)] = node_id
        if data is not None and isinstance(data.get("results"), list):
            for result in data["results"]:
                for node_id in (result or {}).get("ids", []):
                    session.ids[str(node_id)] = node_id
        if rr.headers["ETag"]:
            session.ack = int(rr.headers["ETag"].strip('"'))
        else:
            # An error without ETag (it may come after a filtered view was rebuilt, a version
            # step): ask R for the version, a read that changes nothing.
            summary = self.r_summary(session)
            if summary is not None:
                session.ack = summary
        return rr

    def after_view(self, session, request, rr):
        """Client bookkeeping after R answered a request through a view (its ETag is the
        view's version; the session's is asked for, a tree edit through the view steps it)."""
        if request.label == "delete view" and rr.status == 204:
            session.views.pop(request.vid, None)
            session.view_acks.pop(request.vid, None)
        elif rr.status == 404 and request.vid is not None and "view" in rr.body.decode(errors="replace"):
            pass
        elif rr.headers["ETag"] and rr.status < 300:
            if request.label == "create view":
                mine = [k for k, v in session.views.items() if v == rr.json()["id"]]
                if mine:
                    session.view_acks[mine[0]] = int(rr.headers["ETag"].strip('"'))
            elif request.vid in session.views:
                session.view_acks[request.vid] = int(rr.headers["ETag"].strip('"'))
        if rr.body and (rr.headers["Content-Type"] or "").startswith("application/json"):
            data = rr.json()
            if request.method == "GET" and "/rows" in request.path and isinstance(data, dict):
                session.learn_rows(request.view, data)
            if isinstance(data, dict) and "ids" in data:
                for node_id in data["ids"]:
                    session.ids[str(node_id)] = node_id
        summary = self.r_summary(session)
        if summary is not None:
            session.ack = summary
        return rr

    def r_summary(self, session):
        c = Connection(self.R.port)
        try:
            r = c.send("GET", f"/sessions/{session.sid_r}")
        finally:
            c.close()
        return int(r.json()["version"]) if r.status == 200 else None

    # MARK: Sessions

    def upload_request(self, session, rng):
        tree = self.trees[session.index % len(self.trees)] if rng.random() < 0.8 else \
            random_forest(rng, rng.randint(20, 150), f"u{session.index}-")
        expand = rng.choice(["none", "all", 0, 1, 2, 3, None])
        value = tree if expand is None and rng.random() < 0.5 else \
            {"nodes": tree, **({} if expand is None else {"expand": expand})}
        return Request("POST", "/sessions", body(value, rng), kind="upload", label="upload")

    def create(self, session, rng, cs, cr, expect_kill=False):
        """Uploads a tree to both servers as `session`; False when S did not answer."""
        request = self.upload_request(session, rng)
        session.in_flight = request
        try:
            rs = cs.send(request.method, request.path, request.body)
        except CONNECTION_ERRORS as e:
            if expect_kill and self.killed.is_set():
                session.note(f"IN FLIGHT at the kill: upload ({len(request.body)} bytes)")
                return False
            raise Failure(f"S did not answer an upload ({type(e).__name__}: {e})", session)
        session.in_flight = None
        rr = cr.send(request.method, request.path, request.body)
        if rs.status != 201 or rr.status != 201:
            raise Failure(f"upload: S {rs.status} {rs.body[:300]!r}, R {rr.status} {rr.body[:300]!r}", session)
        a, b = rs.json(), rr.json()
        session.sid_s, session.sid_r = a["id"], b["id"]
        session.created_s = a["createdAt"]
        session.ack = a["version"]
        session.kept, session.visible, session.counter = [], {}, session.counter
        session.views, session.view_acks = {}, {}
        session.note(f"upload ({len(request.body)} bytes) -> S {session.sid_s} R {session.sid_r} v{a['version']}")
        diff = compare(request, rs, rr, session)
        if diff:
            raise Failure(f"upload answers differ:\n{diff}", session)
        tree = self.exchange(session, Request("GET", "/sessions/{sid}/tree", label="tree"), cs, cr,
                             expect_kill=expect_kill)
        return tree is not None

    # MARK: The operation mix

    def pick_view(self, rng):
        return None if rng.random() < 0.45 else rng.choice(self.filters)

    def pick_id(self, session, rng, view=None, missing=0.04):
        if rng.random() < missing or not session.ids:
            return rng.choice(["nope", 424242, "t0-999999"])
        if view in session.visible and rng.random() < 0.7:
            return rng.choice(session.visible[view])
        return session.ids[rng.choice(list(session.ids))]

    def new_nodes(self, session, rng):
        nodes = []
        for _ in range(rng.choice([0, 1, 1, 1, 2, 3]) if rng.random() > 0.03 else 0):
            session.counter += 1
            r = rng.random()
            node_id = None if r < 0.15 else (f"n{session.index}-{session.counter}" if r < 0.75 else
                                             900000 + session.counter * 10 + session.index)
            if rng.random() < 0.04 and session.ids:       # a duplicate: 422
                node_id = session.ids[rng.choice(list(session.ids))]
            node = random_node(rng, node_id, with_id=node_id is not None)
            for _ in range(rng.choice([0, 0, 0, 1, 2])):
                session.counter += 1
                child = random_node(rng, f"c{session.index}-{session.counter}", with_id=rng.random() < 0.8)
                node.setdefault("children", []).append(child)
            if "children" not in node and rng.random() < 0.1:
                node["hasChildren"] = True
            nodes.append(node)
        return nodes

    def random_op(self, session, rng, view, single=False):
        """One operation in the batch form ({"op": ..., ...}); for a `single` request, an
        `index` is 0 or absent (one past the end would fail after the view was prepared)."""
        k = rng.random()
        if k < 0.30:
            op = {"op": "expand", "id": self.pick_id(session, rng, view), "expanded": rng.random() < 0.6}
            if rng.random() < 0.15:
                op["recursive"] = rng.random() < 0.8
            return op
        if k < 0.36:
            op = {"op": "reveal", "id": self.pick_id(session, rng, view)}
            if rng.random() < 0.3:
                op["reveal"] = True
            return op
        if k < 0.44:
            which = rng.choice(["expandAll", "collapseAll", "expandDepth", "expandDepth"])
            if which == "expandDepth":
                return {"op": which, "expandDepth": rng.randrange(5)}
            return {"op": which}
        if k < 0.60:
            op = {"op": "insert", "nodes": self.new_nodes(session, rng)}
            r = rng.random()
            if r < 0.5:
                parent = self.pick_id(session, rng, view) if rng.random() < 0.8 else None
                if parent is not None or rng.random() < 0.5:
                    op["parentId"] = parent
                if rng.random() < 0.6:
                    op["index"] = 0 if single else rng.choice([0, 0, 1, 2, 5, 50])
            elif r < 0.75:
                op["before"] = self.pick_id(session, rng, view)
            else:
                op["after"] = self.pick_id(session, rng, view)
            return op
        if k < 0.68:
            return {"op": "delete", "id": self.pick_id(session, rng, view)}
        if k < 0.80:
            node_id = self.pick_id(session, rng, view)
            op = {"op": "move", "id": node_id,
                  "parentId": self.pick_id(session, rng, view) if rng.random() < 0.85 else None}
            if rng.random() < 0.7:
                op["index"] = 0 if single else rng.choice([0, 0, 1, 2, 3, 40])
            return op
        op = {"op": "update", "id": self.pick_id(session, rng, view)}
        r = rng.random()
        if r < 0.6:
            op["title"] = random_title(rng) if rng.random() < 0.6 else \
                (rng.choice(self.filters)[0] + " " + rng.choice(VOCABULARY))
        if r > 0.4:
            op["data"] = random_json(rng)
        return op

    def single_request(self, op, view, rng):
        """The single request that does what the batch operation `op` does."""
        query = view_query(view, rng)
        kind, rest = op["op"], {k: v for k, v in op.items() if k not in ("op", "id")}
        if kind == "insert":
            if list(rest) == ["nodes"] and rng.random() < 0.3:
                payload = rest["nodes"]     # a bare array: at the end of the roots
            else:
                payload = rest
            return Request("POST", with_query("/sessions/{sid}/items", query), body(payload, rng),
                           kind="change", view=view, label="insert")
        if kind == "delete":
            return Request("DELETE", with_query(f"/sessions/{{sid}}/items/{quote_id(op['id'])}", query),
                           kind="change", view=view, label="delete")
        if kind in ("expandAll", "collapseAll", "expandDepth"):
            payload = {kind: rest.get("expandDepth", True)}
            if rng.random() < 0.03:
                payload = {"expandAll": True, "collapseAll": True}   # 422
            return Request("PATCH", with_query("/sessions/{sid}", query), body(payload, rng),
                           kind="change", view=view, label=kind)
        if kind == "reveal":
            rest = {"reveal": True}
        return Request("PATCH", with_query(f"/sessions/{{sid}}/items/{quote_id(op['id'])}", query),
                       body(rest, rng), kind="change", view=view, label=kind)

    def view_request(self, session, rng):
        """A view made (sometimes a copy of another) or deleted; None for neither."""
        r = rng.random()
        if r < 0.04 or (not session.views and r < 0.12):
            start = rng.choice([None, {}, {"expand": "none"}, {"expand": "all"}, {"expand": rng.randrange(4)},
                                {"from": "default"}, {"from": "{vfrom}"}])
            request = Request("POST", "/sessions/{sid}/views", None if start is None else body(start, rng),
                              kind="change", label="create view")
            if start == {"from": "{vfrom}"}:
                if not session.views:
                    request.body = body({"from": "default"}, rng)
                else:
                    request.vfrom = rng.choice(list(session.views))
            return request
        if session.views and r < 0.055:
            request = Request("DELETE", "/sessions/{sid}/views/{vid}", kind="change", label="delete view")
            request.vid = rng.choice(list(session.views))
            if rng.random() < 0.2:
                request.headers["If-Match"] = f'"{session.view_acks.get(request.vid, 1)}"'
            return request
        return None

    def next_request(self, session, rng):
        if not self.big:
            request = self.view_request(session, rng)
            if request is not None:
                return request
        request = self.next_session_request(session, rng)
        # A third of the requests go through one of the session's views.
        if session.views and not self.big and rng.random() < 0.35 and not request.path.endswith("/tree"):
            request.vid = rng.choice(list(session.views))
            request.path = request.path.replace("/sessions/{sid}", "/sessions/{sid}/views/{vid}", 1)
            request.label = "view " + request.label
            ack = session.view_acks.get(request.vid, 1)
            if "If-Match" in request.headers:
                request.headers["If-Match"] = rng.choice([f'"{ack}"', f'"{ack}"', '*', f'"{ack - 1}"'])
            if "If-None-Match" in request.headers:
                request.headers["If-None-Match"] = rng.choice([f'"{ack}"', '"1"'])
        return request

    def next_session_request(self, session, rng):
        view = self.pick_view(rng)
        if self.big and session.index == 0 and rng.random() < 0.6 and session.ids:
            node_id = session.ids[rng.choice(list(session.ids)[:3])]
            size = rng.randint(3 << 20, 5 << 20)
            payload = {"data": rng.choice(VOCABULARY) + rng.choice("abcdefgh") * size}
            return Request("PATCH", with_query(f"/sessions/{{sid}}/items/{quote_id(node_id)}", view_query(view, rng)),
                           body(payload, rng), kind="change", view=view, label=f"update ({size >> 20} MB of data)")
        k = rng.random()
        if k < 0.14:
            limit = rng.choice([0, 5, 50, 200, MAX_PAGE])
            offset = rng.choice([0, 0, 0, 3, 20, 100, 10**6])
            path = with_query(f"/sessions/{{sid}}/rows?offset={offset}&limit={limit}", view_query(view, rng))
            request = Request("GET", path, view=view, label="rows")
        elif k < 0.18:
            request = Request("GET", with_query(f"/sessions/{{sid}}/items/{quote_id(self.pick_id(session, rng, view))}",
                                                view_query(view, rng)), view=view, label="item")
        elif k < 0.20:
            request = Request("GET", "/sessions/{sid}", label="summary")
        elif k < 0.24:
            request = Request("GET", "/sessions/{sid}/tree", label="tree")
        elif k < 0.36:
            ops = [self.random_op(session, rng, view) for _ in range(rng.choice([0, 1, 2, 3, 4, 6]))]
            if ops and rng.random() < 0.25:     # fails as a whole
                bad = rng.choice([{"op": "delete", "id": "no-such-node"},
                                  {"op": "expand", "id": "no-such-node", "expanded": True},
                                  {"op": "update", "id": session.ids and rng.choice(list(session.ids.values())) or 1,
                                   "color": "red"},
                                  {"op": "explode"}])
                ops.insert(rng.randrange(len(ops) + 1), bad)
            request = Request("POST", with_query("/sessions/{sid}/batch", view_query(view, rng)),
                              body({"operations": ops}, rng), kind="change", view=view, label="batch")
        else:
            request = self.single_request(self.random_op(session, rng, view, single=True), view, rng)
        r = rng.random()
        if request.method == "GET" and r < 0.08:
            request.headers["If-None-Match"] = rng.choice([f'"{session.ack}"', f'W/"{session.ack}"', '"1"'])
        elif request.method != "GET" and r < 0.10:
            request.headers["If-Match"] = rng.choice([f'"{session.ack}"', f'"{session.ack}"', '*',
                                                     f'"{session.ack - 1}"', f'W/"{session.ack}"'])
        return request

    # MARK: Driving

    def drive(self, round_no, kill_after, expect_kill):
        """THREADS client threads drive their sessions until `kill_after` operations were
        acknowledged; then S gets SIGKILL (or, without expect_kill, the threads just stop)."""
        self.done = 0
        self.killed.clear()
        self.stop.clear()
        threads = [threading.Thread(target=self.client, args=(round_no, t, expect_kill), daemon=True)
                   for t in range(self.threads)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 120
        while self.done < kill_after and self.failure is None and time.monotonic() < deadline \
                and any(t.is_alive() for t in threads):
            time.sleep(0.002)
        if expect_kill:
            self.killed.set()
            self.S.kill()
        self.stop.set()
        for thread in threads:
            thread.join(60)
        if self.failure:
            raise self.failure
        if time.monotonic() >= deadline:
            raise Failure(f"round {round_no}: only {self.done} operations in 120 s")

    def client(self, round_no, t, expect_kill):
        rng = random.Random(f"{self.seed}-{round_no}-{t}")
        mine = [s for s in self.sessions if s.index % self.threads == t]
        cs, cr = Connection(self.S.port), Connection(self.R.port)
        session = None
        try:
            while not self.stop.is_set() and not self.killed.is_set():
                session = rng.choice(mine)
                if not session.alive:
                    if not self.create(session, rng, cs, cr, expect_kill):
                        return
                elif rng.random() < 0.004:
                    request = Request("DELETE", "/sessions/{sid}", kind="delete-session", label="delete session")
                    if rng.random() < 0.3:
                        request.headers["If-Match"] = f'"{session.ack}"'
                    old = session.sid_s
                    rr = self.exchange(session, request, cs, cr, expect_kill=expect_kill)
                    if rr is None:
                        return
                    if rr.status == 204:
                        self.deleted_s.append(old)
                        session.sid_s = session.sid_r = None
                else:
                    if self.exchange(session, self.next_request(session, rng), cs, cr, expect_kill=expect_kill) is None:
                        return
                with self.lock:
                    self.done += 1
        except Failure as failure:
            self.failure = self.failure or failure
        except Exception as e:      # a bug of this script, or R failing
            self.failure = self.failure or Failure(f"client thread {t}: {type(e).__name__}: {e}", session)
        finally:
            cs.close()
            cr.close()

    # MARK: Checks after a restart

    def wait_loaded(self, cs, sid):
        """GET /sessions/{sid} on S until it answers something other than 503."""
        deadline = time.monotonic() + LOAD_TIMEOUT
        while True:
            r = cs.send("GET", f"/sessions/{sid}")
            if r.status != 503:
                return r
            if r.headers["Retry-After"] is None:
                raise Failure(f"503 without Retry-After for session {sid}: {r.body[:300]!r}")
            if time.monotonic() > deadline:
                raise Failure(f"session {sid} still answers 503 after {LOAD_TIMEOUT} s")
            time.sleep(0.05)

    def verify(self, round_no, restarted):
        """Every session of S against R after a restart (or, in DIFF_ONLY, after a pause)."""
        cs, cr = Connection(self.S.port), Connection(self.R.port)
        rng = random.Random(f"{self.seed}-verify-{round_no}")
        try:
            # First every session's summary (waiting while they load): how long S took to serve
            # them all; then the deleted sessions, which must stay deleted.
            summaries = {s.index: self.wait_loaded(cs, s.sid_s) for s in self.sessions if s.alive}
            if restarted:
                self.ready_times.append(time.monotonic() - self.S.started)
                self.generations = max([self.generations] + [
                    int(name.split(".")[1]) for _, _, files in os.walk(self.data_dir) for name in files
                    if name.startswith("snapshot.") and name.split(".")[1].isdigit()])
            for old in self.deleted_s:
                r = self.wait_loaded(cs, old)
                if r.status != 404:
                    raise Failure(f"deleted session {old} answers {r.status} after the restart")
            for session in self.sessions:
                self.verify_session(session, round_no, restarted, cs, cr, rng, summaries.get(session.index))
        finally:
            cs.close()
            cr.close()

    def verify_session(self, session, round_no, restarted, cs, cr, rng, r):
        request = session.in_flight
        session.note(f"-- check after {'the restart' if restarted else 'the pause'} of round {round_no}")
        if not session.alive:
            if request is not None:
                self.stats["upload in flight"] += 1
            session.in_flight = None   # an upload in flight: its id was never received
            return
        if r.status == 404:
            if request is not None and request.kind == "delete-session":
                rr = cr.send("DELETE", f"/sessions/{session.sid_r}", None, request.headers)
                session.note(f"the in-flight session delete landed (R: {rr.status})")
                self.stats["in flight, landed"] += 1
                self.deleted_s.append(session.sid_s)
                session.sid_s = session.sid_r = None
                session.in_flight = None
                return
            raise Failure(f"session lost: S answers 404 after the restart (acknowledged version {session.ack})", session)
        if r.status != 200:
            raise Failure(f"summary after the restart: {r.status} {r.body[:300]!r}", session)
        summary = r.json()
        version = summary["version"]
        if summary["createdAt"] != session.created_s:
            raise Failure(f"createdAt was {session.created_s}, is {summary['createdAt']} after the restart", session)
        if version != session.ack:
            if request is None:
                raise Failure(f"version {version} after the restart, acknowledged {session.ack}, nothing in flight "
                              + ("(an acknowledged change was lost)" if version < session.ack else ""), session)
            acknowledged = session.ack
            rr = self.send_r(session, request, cr)
            session.note(f"in flight, landed on S (v{version}); replayed on R: {request.describe()} -> {rr.status}")
            self.stats["in flight, landed"] += 1
            self.after(session, request, rr)
            if session.ack != version:
                raise Failure(f"version {version} after the restart: acknowledged {acknowledged}, and the "
                              f"in-flight request replayed on R gives {session.ack}: not wholly there or not at all",
                              session)
        elif request is not None and request.through_view:
            self.view_in_flight(session, request, cs, cr, round_no, rng)
        elif request is not None:
            session.note(f"in flight, not landed (v{version}): {request.describe()}")
            self.stats["in flight, not there" if request.kind != "read" else "read in flight"] += 1
            if request.view is not None:
                # Whether it built a view (changes which are kept, no version step) is unknown:
                # name fresh filters on both, so that both keep the same views again.
                for k in range(CAPACITY):
                    view = (f"zz-flush-{round_no}-{k}", "contains", False)
                    self.exchange(session, Request("GET", with_query("/sessions/{sid}/rows?limit=0",
                                                                      view_query(view, rng)), view=view,
                                                   label="flush"), cs, cr)
        session.in_flight = None
        before = session.ack
        self.exchange(session, Request("GET", "/sessions/{sid}", label="summary"), cs, cr)
        for view in [None] + list(session.kept):
            self.compare_view(session, view, cs, cr, rng)
        self.exchange(session, Request("GET", "/sessions/{sid}/tree", label="tree"), cs, cr)
        if session.ack != before:
            raise Failure(f"reading the kept views changed the version ({before} -> {session.ack}): "
                          "a kept view was rebuilt", session)
        # If-Match with the tag from before the restart succeeds; a stale one answers 412.
        stale = Request("PATCH", "/sessions/{sid}", body({"collapseAll": True}, rng),
                        {"If-Match": f'"{before - 1}"'}, kind="change", label="stale If-Match")
        if self.exchange(session, stale, cs, cr).status != 412:
            raise Failure("a stale If-Match did not answer 412", session)
        fresh = Request("PATCH", "/sessions/{sid}", body({"expandDepth": rng.randrange(4)}, rng),
                        {"If-Match": f'"{before}"'}, kind="change", label="If-Match")
        if self.exchange(session, fresh, cs, cr).status != 200:
            raise Failure(f"If-Match \"{before}\" (the version before the restart) did not succeed", session)
        self.compare_views(session, cs, cr, rng)

    def view_in_flight(self, session, request, cs, cr, round_no, rng):
        """A request in flight that made, deleted, read or changed a view (no tree edit: the
        session's version did not move): whether it landed on S is told by S's list of views
        or by the view's version on S against R's; landed, it is replayed on R."""
        def landed():
            rr = self.send_r(session, request, cr)
            session.note(f"in flight, landed on S; replayed on R: {request.describe()} -> {rr.status}")
            self.stats["in flight, landed (view)"] += 1
            return rr

        def not_landed():
            session.note(f"in flight, not landed: {request.describe()}")
            self.stats["in flight, not there (view)"] += 1

        if request.label == "create view":
            listed = cs.send("GET", f"/sessions/{session.sid_s}/views?limit={MAX_PAGE}")
            new = [v["id"] for v in listed.json()["views"] if v["id"] not in session.views]
            if not new:
                return not_landed()
            rr = landed()
            if rr.status != 201:
                raise Failure(f"a view made on S before the kill is refused on R: {rr.status} {rr.body[:300]!r}", session)
            session.views[new[0]] = rr.json()["id"]
            self.after(session, request, rr)
            return
        if request.vid not in session.views:
            return not_landed()
        rs = cs.send("GET", f"/sessions/{session.sid_s}/views/{request.vid}")
        rr = cr.send("GET", f"/sessions/{session.sid_r}/views/{session.views[request.vid]}")
        if request.label == "delete view":
            if rs.status == 404 and rr.status == 200:
                self.after(session, request, landed())
            else:
                not_landed()
            return
        if rs.status == 200 and rr.status == 200 and rs.json()["version"] > rr.json()["version"]:
            self.after(session, request, landed())
            return
        not_landed()
        if request.view is not None:
            # Whether it built filtered rows of the view is unknown: name fresh filters through
            # it on both, so that both keep the same ones again.
            for k in range(CAPACITY):
                view = (f"zz-flush-{round_no}-{k}", "contains", False)
                flush = Request("GET", with_query("/sessions/{sid}/views/{vid}/rows?limit=0", view_query(view, rng)),
                                view=view, label="flush")
                flush.vid = request.vid
                self.exchange(session, flush, cs, cr)

    def compare_views(self, session, cs, cr, rng):
        """Every view of the session on S against R: the list, each summary, and each view's
        rows unfiltered and in every filter of the run (reads that build and drop filtered
        rows alike on both)."""
        listed = self.exchange(session, Request("GET", f"/sessions/{{sid}}/views?limit={MAX_PAGE}", label="views"), cs, cr)
        if listed.status != 200:
            raise Failure(f"the list of views: {listed.status} {listed.body[:300]!r}", session)
        theirs = [v["id"] for v in listed.json()["views"]]
        if theirs != list(session.views.values()):
            raise Failure(f"views {theirs} on R, expected {list(session.views.values())}", session)
        for vid in list(session.views):
            summary = Request("GET", "/sessions/{sid}/views/{vid}", label="view summary")
            summary.vid = vid
            self.exchange(session, summary, cs, cr)
            for view in [None] + self.filters:
                offset = 0
                while True:
                    path = with_query(f"/sessions/{{sid}}/views/{{vid}}/rows?offset={offset}&limit={MAX_PAGE}",
                                      view_query(view, rng))
                    rows = Request("GET", path, view=view, label="check view rows")
                    rows.vid = vid
                    rr = self.exchange(session, rows, cs, cr)
                    if rr.status != 200:
                        raise Failure(f"rows of view {vid} {view}: {rr.status} {rr.body[:300]!r}", session)
                    offset += MAX_PAGE
                    if offset >= rr.json()["total"]:
                        break

    def compare_view(self, session, view, cs, cr, rng):
        offset, limit = 0, rng.choice([MAX_PAGE, MAX_PAGE, 97])
        while True:
            path = with_query(f"/sessions/{{sid}}/rows?offset={offset}&limit={limit}", view_query(view, rng))
            rr = self.exchange(session, Request("GET", path, view=view, label="check rows"), cs, cr)
            if rr.status != 200:
                raise Failure(f"rows of {view}: {rr.status} {rr.body[:300]!r}", session)
            page = rr.json()
            offset += limit
            if offset >= page["total"]:
                return


# MARK: Main

def run_seed(seed, binary, big=False):
    workdir = tempfile.mkdtemp(prefix=f"kill-test-{seed}-")
    world = World(seed, binary, workdir, sessions=2 if big else None, threads=1 if big else None, big=big)
    rng = random.Random(f"{seed}-kills")
    started = time.monotonic()
    lives = []
    try:
        world.start_r()
        mode = MODES[seed % 3]
        world.start_s(mode)
        lives.append(mode)
        setup_rng = random.Random(f"{seed}-setup")
        cs, cr = Connection(world.S.port), Connection(world.R.port)
        for session in world.sessions:
            world.create(session, setup_rng, cs, cr)
        cs.close()
        cr.close()
        for round_no in range(ROUNDS):
            kill_after = rng.randint(60, 300)
            world.drive(round_no, kill_after, expect_kill=not DIFF_ONLY)
            if not DIFF_ONLY:
                mode = MODES[(seed + round_no + 1) % 3]
                world.start_s(mode)
                lives.append(mode)
                if rng.random() < 0.4:
                    # Killed again while it starts (loading, repairing): the next start must
                    # still find everything.
                    time.sleep(rng.uniform(0, 0.2))
                    world.S.kill()
                    world.start_s(mode)
                    lives.append(mode + " (the one before killed while starting)")
            world.verify(round_no, restarted=not DIFF_ONLY)
        # The last round ends with SIGTERM: exit status 0, and everything is there after it.
        world.drive(ROUNDS, rng.randint(40, 150), expect_kill=False)
        if not DIFF_ONLY:
            status = world.S.terminate()
            if status != 0:
                raise Failure(f"SIGTERM: exit status {status} (expected 0)")
            world.start_s(MODES[seed % 3])
            lives.append(MODES[seed % 3] + " after SIGTERM")
        world.verify(ROUNDS, restarted=not DIFF_ONLY)
        versions = sum(s.ack for s in world.sessions if s.alive)
        ready = f"; sessions served {max(world.ready_times):.2f} s after exec at most" if world.ready_times else ""
        if big:
            ready += f"; snapshots up to generation {world.generations} (compactions and shutdown snapshots)"
        print(f"{'compaction run, ' if big else ''}seed {seed}: ok in {time.monotonic() - started:.1f} s; fsync per life: {', '.join(lives)}; "
              f"{sum(len(s.log) for s in world.sessions)} steps, versions summed {versions}; "
              + (", ".join(f"{k}: {v}" for k, v in sorted(world.stats.items())) or "nothing in flight") + ready,
              flush=True)
        return True
    except Failure as failure:
        report(world, failure, lives)
        return False
    finally:
        world.stop_all()
        shutil.rmtree(workdir, ignore_errors=True)


def startup_check(binary, count, restarts=None):
    """Many sessions on disk, polled by 4 client threads from the moment the server starts
    (mostly the sessions about to be loaded):
    while they load they may answer 503 (with Retry-After), never 404; afterwards every one
    answers 200 with its version. Restarts after SIGTERM and after SIGKILL (journals to replay)."""
    restarts = restarts or STARTUP_RESTARTS
    workdir = tempfile.mkdtemp(prefix="kill-test-startup-")
    log = os.path.join(workdir, "s.log")
    rng = random.Random("startup")
    server = None
    started = time.monotonic()
    try:
        server = Server(binary, EXTRA_S_FLAGS + ["--data-dir", os.path.join(workdir, "data")], log, workdir)
        c = Connection(server.port)
        versions = {}
        trees = [body({"nodes": random_forest(rng, 3000, "s"), "expand": 1}, rng) for _ in range(3)]
        for k in range(count):
            r = c.send("POST", "/sessions", trees[k % 3])
            if r.status != 201:
                raise Failure(f"upload {k}: {r.status} {r.body[:300]!r}")
            sid = r.json()["id"]
            for _ in range(rng.randrange(3)):
                r = c.send("PATCH", f"/sessions/{sid}", body({"expandDepth": rng.randrange(4)}, rng))
            versions[sid] = json.loads(c.send("GET", f"/sessions/{sid}").body)["version"]
        c.close()
        sids = list(versions)
        order, problems = {}, []
        for restart in range(restarts):
            if restart % 2 == 0:
                status = server.terminate()
                if status != 0:
                    raise Failure(f"SIGTERM: exit status {status}")
            else:
                server.kill()
            # On a port chosen here, so that the pollers knock from the moment of exec.
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
            server = Server(binary, EXTRA_S_FLAGS + ["--data-dir", os.path.join(workdir, "data")], log, workdir,
                            port=port)
            not_found, served, lock = [], {}, threading.Lock()
            # Sessions load in the order of the data directory's listing, the same at every
            # start: once a start showed it, three threads poll the next few sessions due
            # (where the moment a load ends is), a fourth sweeps over all of them.
            expected = sorted(order, key=order.get) if order else list(sids)

            def poll(sweeper):
                conn = Connection(server.port)
                deadline = time.monotonic() + LOAD_TIMEOUT
                try:
                    while time.monotonic() < deadline:
                        with lock:
                            pending = [sid for sid in expected if sid not in served]
                        if not pending:
                            return
                        for sid in (pending if sweeper or not order else pending[:3]):
                            try:
                                r = conn.send("GET", f"/sessions/{sid}")
                            except ConnectionRefusedError:
                                if server.process.poll() is not None:
                                    return
                                time.sleep(0.001)
                                break
                            if r.status == 404:
                                with lock:
                                    not_found.append((sid, round(time.monotonic() - server.started, 3)))
                            elif r.status == 200:
                                with lock:
                                    served.setdefault(sid, time.monotonic())
                finally:
                    conn.close()
            threads = [threading.Thread(target=poll, args=(k == 3,)) for k in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            if not order:
                order = dict(served)
            c = Connection(server.port)
            lost = [sid for sid in sids if c.send("GET", f"/sessions/{sid}").status != 200]
            wrong = [sid for sid in sids if sid not in lost and
                     json.loads(c.send("GET", f"/sessions/{sid}").body)["version"] != versions[sid]]
            c.close()
            if not_found or lost or wrong:
                problems.append(f"restart {restart} (after {'SIGTERM' if restart % 2 == 0 else 'SIGKILL'}): "
                                f"{len(set(s for s, _ in not_found))} answered 404 while the server loaded them "
                                f"(session, seconds after exec: {not_found[:3]}); {len(lost)} do not answer 200 "
                                f"any more (lost: {lost[:3]}); {len(wrong)} have another version")
                sids = [sid for sid in sids if sid not in lost]
        if problems:
            raise Failure(f"start-up with {count} sessions on disk:\n  " + "\n  ".join(problems))
        print(f"start-up: {count} sessions, {restarts} restarts polled by 4 threads: no 404, none lost "
              f"({time.monotonic() - started:.1f} s)", flush=True)
        return True
    except Failure as failure:
        print(f"\nFAIL: {failure}\n")
        if server is not None:
            print("-- the server's log (last 30 lines):\n" + server.tail())
        return False
    finally:
        if server is not None:
            server.kill()
        shutil.rmtree(workdir, ignore_errors=True)


def report(world, failure, lives):
    replay = (f"COMPACTION_SEED={world.seed} SEEDS=0 STARTUP_SESSIONS=0" if world.big else f"SEED={world.seed}")
    print(f"\nFAIL: {'compaction run, ' if world.big else ''}seed {world.seed} (replay: {replay} scripts/kill-test.sh); "
          f"fsync per life of S: {', '.join(lives)}", flush=True)
    session = failure.session
    if session is not None:
        print(f"session {session.index} (S {session.sid_s}, R {session.sid_r}), "
              f"acknowledged version {session.ack}; steps (last 80 of {len(session.log)}):")
        for line in session.log[-80:]:
            print("  " + line)
    print(f"\n{failure}\n")
    if world.S is not None:
        print("-- S's log (last 30 lines):\n" + world.S.tail())
    sys.stdout.flush()


def main():
    binary = os.path.abspath(os.environ.get("TREE_SERVER") or "")
    if not os.environ.get("TREE_SERVER") or not os.path.isfile(binary) or not os.access(binary, os.X_OK):
        sys.exit("set TREE_SERVER to the tree-server binary (`swift build --show-bin-path`/tree-server)")
    seeds = [int(os.environ["SEED"])] if os.environ.get("SEED") else list(range(1, int(os.environ.get("SEEDS", "8")) + 1))
    started = time.monotonic()
    print(f"kill test: seeds {seeds}, {ROUNDS} kills each, {THREADS} threads, {SESSIONS} sessions"
          + (" (DIFF_ONLY: two memory-only servers, no kills)" if DIFF_ONLY else ""), flush=True)
    failed = [seed for seed in seeds if not run_seed(seed, binary)]
    if COMPACTION_SEED and not DIFF_ONLY and not os.environ.get("SEED"):
        failed += [f"compaction {COMPACTION_SEED}"] if not run_seed(COMPACTION_SEED, binary, big=True) else []
    print(f"kill test: {len(seeds) - len(failed)} of {len(seeds)} seeds passed in {time.monotonic() - started:.0f} s"
          + (f"; failed: {failed}" if failed else ""), flush=True)
    startup_ok = DIFF_ONLY or os.environ.get("SEED") or STARTUP_SESSIONS == 0 or startup_check(binary, STARTUP_SESSIONS)
    sys.exit(1 if failed or not startup_ok else 0)


ROUNDS = int(os.environ.get("ROUNDS", "3"))
THREADS = int(os.environ.get("THREADS", "4"))
SESSIONS = int(os.environ.get("SESSIONS", "8"))
DIFF_ONLY = os.environ.get("DIFF_ONLY") == "1"
VERBOSE = os.environ.get("VERBOSE") == "1"
EXTRA_S_FLAGS = os.environ.get("S_FLAGS", "").split()
STARTUP_SESSIONS = int(os.environ.get("STARTUP_SESSIONS", "200"))
COMPACTION_SEED = int(os.environ.get("COMPACTION_SEED", "1000"))
STARTUP_RESTARTS = int(os.environ.get("STARTUP_RESTARTS", "4"))

if __name__ == "__main__":
    main()
