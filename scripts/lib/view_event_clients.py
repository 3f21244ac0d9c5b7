"""The views load test of scripts/bench-events.sh (VIEWS=N): N views on one session of a running
tree-server, each with EXPANDS random folders revealed and expanded through its own view
(`PATCH /sessions/{sid}/views/{vid}/items/{id}`), one event stream per view
(`GET /sessions/{sid}/views/{vid}/events`), then CHANGES tree edits at RATE per second
(renames and inserts, each through a random view or, one in five, the default view), every
one of them fanned out to all N streams.

Reports the server's resident memory (after the upload, with the views, with their streams
open, after the edits) and the delivery latency (from just before the edit request is sent to
the event's arrival at each view's stream): p50 and p99 over all deliveries, and per edit the
time until the last of the views had it. Then checks every event: each stream got each edit
once, at its view's own next version, with that view's own splices (an insert shows as one
inserted row exactly in the views where its parent is expanded, a rename as none), the
totals chain up to the view's `total` at the end, and the view an edit went through got its
response byte for byte.

  view_event_clients.py PORT PID SID VIEWS CHANGES RATE EXPANDS SEED
"""
import http.client
import json
import random
import statistics
import sys
import time

from event_clients import MB, Streams, percentile
from process_memory import settled_rss

class API:
    """Requests over one keep-alive connection."""

    def __init__(self, port):
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def __call__(self, method, path, body=None, ok=(200, 201, 204)):
        payload = json.dumps(body) if body is not None else None
        headers = {"Content-Type": "application/json"} if body is not None else {}
        try:
            self.conn.request(method, path, body=payload, headers=headers)
            response = self.conn.getresponse()
        except (http.client.HTTPException, OSError):  # the server closed an idle connection
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
            self.conn.request(method, path, body=payload, headers=headers)
            response = self.conn.getresponse()
        data = response.read()
        if response.status not in ok:
            raise SystemExit(f"FAIL: {method} {path} answered {response.status}: {data[:300]!r}")
        return data


def folders_of(tree):
    """(folders, parent): the ids of the nodes with children, and each folder's parent id."""
    folders, parent = [], {}
    stack = [(node, None) for node in tree["nodes"]]
    while stack:
        node, up = stack.pop()
        children = node.get("children")
        if children:
            key = str(node["id"])
            folders.append(key)
            parent[key] = up
            stack.extend((child, key) for child in children)
    return folders, parent


def parse_stream(raw):
    """The events of one stream's bytes (head and chunked framing removed): (id, event, data)."""
    head, _, body = raw.partition(b"\r\n\r\n")
    if b"chunked" in head.lower():
        out, rest = bytearray(), body
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                break
            out += rest[:size]
            rest = rest[size + 2:]
        body = bytes(out)
    events = []
    for block in body.split(b"\n\n"):
        fields = {}
        for line in block.split(b"\n"):
            if line.startswith(b":") or b":" not in line:
                continue
            name, _, value = line.partition(b":")
            fields[name] = value[1:] if value.startswith(b" ") else value
        if b"event" in fields:
            events.append((int(fields[b"id"]) if b"id" in fields else None,
                           fields[b"event"].decode(), fields.get(b"data", b"")))
    return events


def main():
    port, pid, sid = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    count, changes, rate = int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
    expands, seed = int(sys.argv[7]), int(sys.argv[8])
    rng = random.Random(seed)
    api = API(port)
    ms = lambda x: f"{x * 1000:.0f} ms"

    folders, parent = folders_of(json.loads(api("GET", f"/sessions/{sid}/tree")))
    uploaded = settled_rss(pid)

    # The views, each with `expands` random folders revealed and expanded through itself: its
    # expanded set is those folders and all their ancestors.
    started = time.monotonic()
    views, expanded, toggles = [], [], []
    for _ in range(count):
        vid = json.loads(api("POST", f"/sessions/{sid}/views"))["id"]
        mine = set()
        for folder in rng.sample(folders, expands):
            for body in ({"reveal": True}, {"expanded": True}):
                t = time.perf_counter()
                api("PATCH", f"/sessions/{sid}/views/{vid}/items/{folder}", body)
                toggles.append(time.perf_counter() - t)
            f = folder
            while f is not None:
                mine.add(f)
                f = parent[f]
        views.append(vid)
        expanded.append(mine)
    made = time.monotonic() - started
    with_views = settled_rss(pid)
    print(f"{count} views made in {made:.1f} s, each with {expands} random folders revealed and expanded "
          f"({statistics.mean(len(e) for e in expanded):.1f} nodes expanded a view on average; "
          f"reveal/expand request median {statistics.median(toggles) * 1e3:.2f} ms, "
          f"p99 {percentile(toggles, 99) * 1e3:.2f} ms); server RSS {uploaded / MB:.1f} MB -> "
          f"{with_views / MB:.1f} MB: +{(with_views - uploaded) / MB:.1f} MB, "
          f"{(with_views - uploaded) / count / 1024:.2f} KiB per view")

    # One stream per view.
    opened = time.monotonic()
    streams = Streams(port, [f"/sessions/{sid}/views/{vid}/events" for vid in views], keep=True)
    arrivals, raws, pump = streams.arrivals, streams.raws, streams.pump

    pump(lambda: all(arrivals), time.monotonic() + 120)
    ready = sum(bool(a) for a in arrivals)
    if ready < count:
        raise SystemExit(f"FAIL: only {ready} of {count} view streams started")
    base = [min(a) for a in arrivals]  # each view's version when its stream opened (its reset)
    with_streams = settled_rss(pid)
    print(f"{count} view streams open in {time.monotonic() - opened:.1f} s; server RSS "
          f"{with_views / MB:.1f} MB -> {with_streams / MB:.1f} MB: +{(with_streams - with_views) / MB:.1f} MB, "
          f"{(with_streams - with_views) / count / 1024:.2f} KiB per stream")

    # The edits: alternately a rename and an insert (a leaf at the head of a folder's children),
    # through a random view (of a folder it has expanded) or, one in five, the default view
    # (of a random folder for a rename, among the roots for an insert).
    sent, edits = [], []
    start = time.monotonic()
    for k in range(changes):
        due = start + k / rate
        pump(lambda: time.monotonic() >= due, due)
        through = None if rng.random() < 0.2 else rng.randrange(count)
        prefix = f"/sessions/{sid}" if through is None else f"/sessions/{sid}/views/{views[through]}"
        if k % 2 == 0:
            target = rng.choice(folders) if through is None else rng.choice(sorted(expanded[through]))
            method, path, body, kind = "PATCH", f"{prefix}/items/{target}", {"title": f"Renamed {k}"}, "rename"
        else:
            target = None if through is None else rng.choice(sorted(expanded[through]))
            method, path, body, kind = "POST", f"{prefix}/items", {
                "nodes": [{"title": f"Inserted {k}"}], "parentId": target, "index": 0}, "insert"
        t = time.monotonic()
        response = api(method, path, body)
        sent.append(t)
        edits.append((kind, target, through, response))
    pump(lambda: all(base[i] + changes in a for i, a in enumerate(arrivals)), time.monotonic() + 60)
    latencies, all_reached = [], []
    for k, t in enumerate(sent):
        times = [a[base[i] + k + 1] - t for i, a in enumerate(arrivals) if base[i] + k + 1 in a]
        if len(times) < count:
            raise SystemExit(f"FAIL: edit {k} reached {len(times)} of {count} view streams")
        latencies += times
        all_reached.append(max(times))
    after = settled_rss(pid)
    p50, p99 = percentile(latencies, 50), percentile(latencies, 99)
    print(f"{changes} edits at {rate:g}/s ({sum(e[0] == 'rename' for e in edits)} renames, "
          f"{sum(e[0] == 'insert' for e in edits)} inserts; {sum(e[2] is None for e in edits)} through the "
          f"default view), each to {count} view streams ({len(latencies)} deliveries): "
          f"latency p50 {ms(p50)}, p99 {ms(p99)}; an edit reached all {count}: "
          f"median {ms(statistics.median(all_reached))}, p99 {ms(percentile(all_reached, 99))}, "
          f"max {ms(max(all_reached))}")
    print(f"server RSS after the edits: {after / MB:.1f} MB (upload {uploaded / MB:.1f} MB, "
          f"+{(after - uploaded) / MB:.1f} MB for the views, their streams and the edits)")

    # Every stream's events: its reset, then one change per edit at its view's next version,
    # with its view's own splices.
    summaries = {}
    spliced = 0
    for i, vid in enumerate(views):
        events = parse_stream(bytes(raws[i]))
        if not events or events[0][1] != "reset" or events[0][0] != base[i]:
            raise SystemExit(f"FAIL: view {vid}: the stream did not start with a reset at {base[i]}: {events[:1]}")
        total = json.loads(events[0][2])["total"]
        changes_seen = events[1:]
        if len(changes_seen) != changes:
            raise SystemExit(f"FAIL: view {vid}: {len(changes_seen)} events after the reset for {changes} edits")
        for k, ((version, kind, data), (edit, target, through, response)) in enumerate(zip(changes_seen, edits)):
            event = json.loads(data)
            if kind != "change" or version != base[i] + k + 1 or event["version"] != version:
                raise SystemExit(f"FAIL: view {vid}, edit {k}: {kind} at {version}, not a change at {base[i] + k + 1}")
            if through == i and data != response:
                raise SystemExit(f"FAIL: view {vid}, edit {k} made through it: the event is not its response:\n"
                                 f"  {data[:300]!r}\n  {response[:300]!r}")
            inserted = sum(c["inserted"] for c in event["changes"])
            removed = sum(c["removed"] for c in event["changes"])
            shown = edit == "insert" and (target is None or target in expanded[i])
            if (inserted, removed) != ((1, 0) if shown else (0, 0)) or len(event["changes"]) != int(shown):
                raise SystemExit(f"FAIL: view {vid}, edit {k} ({edit} under {target}): splices {event['changes']}, "
                                 f"expected {'one inserted row' if shown else 'none'}")
            spliced += shown
            if event["total"] != total + inserted - removed:
                raise SystemExit(f"FAIL: view {vid}, edit {k}: total {event['total']} after {total} and {event['changes']}")
            total = event["total"]
        summary = json.loads(api("GET", f"/sessions/{sid}/views/{vid}"))
        if summary["version"] != base[i] + changes or summary["total"] != total:
            raise SystemExit(f"FAIL: view {vid}: summary {summary}, but its stream ended at version "
                             f"{base[i] + changes} with total {total}")
        summaries[total] = summaries.get(total, 0) + 1
    print(f"checked {count * changes} events: each view's stream got every edit once, at its own next "
          f"version, with its own splices ({spliced} inserted rows shown, {count * changes - spliced} "
          f"events without splices; {len(summaries)} distinct totals among the views at the end), "
          f"and each view an edit went through got its response byte for byte")
    print(f"SUMMARY views: {count} views x {changes} edits at {rate:g}/s: delivery p50 {ms(p50)}, p99 {ms(p99)}; "
          f"an edit reached all views: median {ms(statistics.median(all_reached))}, p99 {ms(percentile(all_reached, 99))}; "
          f"server RSS {uploaded / MB:.1f} MB after the upload, {with_views / MB:.1f} MB with the views, "
          f"{with_streams / MB:.1f} MB with their streams, {after / MB:.1f} MB after the edits")


main()
