"""The load test of scripts/bench-events.sh: SUBSCRIBERS event streams on one session of a
running tree-server, then CHANGES changes at RATE per second through the API; every stream
notes when each event arrives. Reports the server's resident memory for the open streams and
the delivery latency (from just before the change request is sent to the event's arrival at
each subscriber): p50 and p99 over all deliveries, and per change the time until the last of
the subscribers had it.

  event_clients.py PORT PID SID SUBSCRIBERS CHANGES RATE
"""
import http.client
import json
import re
import selectors
import socket
import statistics
import sys
import time

from process_memory import rss, settled_rss

MB = 1 << 20
ID = re.compile(rb"\nid: (\d+)\n")


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


class Streams:
    """Event streams opened on `paths` and read in one thread: each notes when each event id
    first arrived (`arrivals`: id -> time), and with `keep` the bytes it received (`raws`)."""

    def __init__(self, port, paths, keep=False):
        self.paths = paths
        self.selector = selectors.DefaultSelector()
        self.tails = [b""] * len(paths)
        self.arrivals = [dict() for _ in paths]
        self.raws = [bytearray() for _ in paths] if keep else None
        for i, path in enumerate(paths):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
            s.setblocking(False)
            self.selector.register(s, selectors.EVENT_READ, i)

    def pump(self, until, deadline):
        """Reads every stream until until() holds or the deadline passes."""
        while time.monotonic() < deadline and not until():
            for key, _ in self.selector.select(timeout=0.05):
                i = key.data
                try:
                    data = key.fileobj.recv(65536)
                except BlockingIOError:
                    continue
                if not data:
                    raise SystemExit(f"FAIL: the stream {self.paths[i]} was closed by the server")
                now = time.monotonic()
                if self.raws is not None:
                    self.raws[i] += data
                text = self.tails[i] + data
                for match in ID.finditer(text):
                    self.arrivals[i].setdefault(int(match.group(1)), now)
                self.tails[i] = text[-32:]  # an id line cut between two reads is found next time


def main():
    port, pid, sid = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    count, changes, rate = int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
    before = settled_rss(pid)

    opened = time.monotonic()
    streams = Streams(port, [f"/sessions/{sid}/events"] * count)
    arrivals, pump = streams.arrivals, streams.pump

    version = json.loads(api(port, "GET", f"/sessions/{sid}")[1])["version"]
    pump(lambda: all(version in a for a in arrivals), time.monotonic() + 120)
    ready = sum(version in a for a in arrivals)
    if ready < count:
        raise SystemExit(f"only {ready} of {count} streams started")
    with_streams = settled_rss(pid)
    print(f"{count} streams open in {time.monotonic() - opened:.1f} s; server RSS {before / MB:.1f} MB -> "
          f"{with_streams / MB:.1f} MB: +{(with_streams - before) / MB:.1f} MB, "
          f"{(with_streams - before) / count / 1024:.2f} KiB per stream")

    sent = {}
    start = time.monotonic()
    for k in range(changes):
        due = start + k / rate
        pump(lambda: time.monotonic() >= due, due)
        t = time.monotonic()
        status, body = api(port, "PATCH", f"/sessions/{sid}/items/1", {"expanded": k % 2 == 0})
        if status != 200:
            raise SystemExit(f"change answered {status}: {body[:200]}")
        sent[json.loads(body)["version"]] = t
    last = max(sent)
    pump(lambda: all(last in a for a in arrivals), time.monotonic() + 60)
    latencies, all_reached = [], []
    for v, t in sent.items():
        times = [a[v] - t for a in arrivals if v in a]
        if len(times) < count:
            raise SystemExit(f"version {v} reached {len(times)} of {count} streams")
        latencies += times
        all_reached.append(max(times))
    after = settled_rss(pid)
    ms = lambda x: f"{x * 1000:.0f} ms"
    print(f"{changes} changes at {rate:g}/s, each to {count} streams ({len(latencies)} deliveries): "
          f"latency p50 {ms(percentile(latencies, 50))}, p99 {ms(percentile(latencies, 99))}; "
          f"a change reached all {count}: median {ms(statistics.median(all_reached))}, "
          f"p99 {ms(percentile(all_reached, 99))}, max {ms(max(all_reached))}")
    print(f"server RSS after the changes: {after / MB:.1f} MB (+{(after - before) / MB:.1f} MB over no streams)")


def api(port, method, path, body=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(method, path, body=json.dumps(body) if body is not None else None,
                 headers={"Content-Type": "application/json"} if body is not None else {})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, data


if __name__ == "__main__":
    main()
