"""Drives a running tree-server and watches its resident memory; see scripts/check-memory.sh.

  memory_probe.py uploads PORT PID CEILING_MB
  memory_probe.py cycles  PORT PID CYCLES SESSIONS TREE_JSON_PATH

TREE_JSON_PATH is the upload, as `tree-bench --emit 797K` writes it.
"""
import http.client
import json
import os
import select
import socket
import sys
import threading
import time

from service_client import call

MB = 1 << 20


def proc_status(pid, field):
    """A /proc/PID/status field in bytes (VmRSS, VmHWM)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise SystemExit(f"no {field} for process {pid}")


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def read_status(sock, timeout):
    """The status code of the response on `sock`, or None."""
    sock.settimeout(timeout)
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            piece = sock.recv(65536)
            if not piece:
                break
            data += piece
    except OSError:
        pass
    if not data.startswith(b"HTTP/1.1 "):
        return None, data
    return int(data[9:12]), data


def attack(port, announced, send_bytes, results, index):
    """One upload that announces `announced` bytes (None: chunked) and sends `send_bytes`
    unless the server answers first. Records the status (None: no answer)."""
    sock = socket.create_connection(("127.0.0.1", port))
    chunked = announced is None
    framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {announced}"
    sock.sendall(f"POST /sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{framing}\r\n\r\n".encode())
    piece = b"[" * MB
    if chunked:
        piece = b"%x\r\n" % len(piece) + piece + b"\r\n"
    sent = 0
    answered = False
    try:
        while sent < send_bytes:
            readable, _, _ = select.select([sock], [], [], 0)
            if readable:
                answered = True
                break
            sock.sendall(piece)
            sent += MB
    except OSError:
        answered = True
    status, data = read_status(sock, 5 if answered else 3)
    results[index] = (status, data, sent)
    return sock


def uploads(port, pid, ceiling_mb):
    """Against a 64 MiB budget: bodies larger than the whole budget are 413 at once; bodies
    that fit alone but not together are 503 (Retry-After) but for the first; chunked bodies
    are cut off with 503 (413 once one alone outgrows the whole budget)."""
    start = proc_status(pid, "VmRSS")
    print(f"start: VmRSS {start / MB:.0f} MB")
    phases = [
        ("Content-Length 1 GiB, 100 MB sent each", 1 << 30, 100 * MB, {413}),
        ("Content-Length 40 MiB, 40 MiB sent each", 40 * MB, 40 * MB, {413, 503}),
        ("chunked, 100 MB each", None, 100 * MB, {413, 503}),
    ]
    for kind, announced, send, allowed in phases:
        results = [None] * 8
        sockets = []

        def run(i):
            sockets.append(attack(port, announced, send, results, i))

        threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        rss, hwm = proc_status(pid, "VmRSS"), proc_status(pid, "VmHWM")
        statuses = [r[0] for r in results]
        sent = sum(r[2] for r in results)
        print(f"8 uploads ({kind}): statuses {statuses}, {sent / MB:.0f} MB sent; "
              f"VmRSS {rss / MB:.0f} MB, VmHWM {hwm / MB:.0f} MB")
        for s in sockets:
            s.close()
        for status, data, _ in results:
            if status not in allowed:
                fail(f"expected every upload refused with {sorted(allowed)}, got {statuses}")
            if status == 503 and b"\r\nretry-after: " not in data.lower():
                fail("a 503 without Retry-After")
        if 503 in allowed and statuses.count(503) < 4:
            fail(f"expected most uploads refused with 503 while the budget is taken, got {statuses}")
        if hwm - start > ceiling_mb * MB:
            fail(f"peak resident memory grew by {(hwm - start) / MB:.0f} MB (ceiling {ceiling_mb} MB)")
    # The server still takes an upload that fits.
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request("POST", "/sessions", body=b'{"nodes":[{"title":"a"}]}', headers={"Content-Type": "application/json"})
    r = c.getresponse()
    r.read()
    if r.status != 201:
        fail(f"a small upload afterwards answered {r.status}")
    print(f"peak growth {(proc_status(pid, 'VmHWM') - start) / MB:.0f} MB <= {ceiling_mb} MB; a small upload still works")


def metric(c, name):
    text = call(c, "GET", "/metrics").decode()
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    fail(f"no metric {name}")


def cycles(port, pid, count, sessions, tree_json):
    with open(tree_json, "rb") as f:
        body = f.read()
    start = proc_status(pid, "VmRSS")
    print(f"start: VmRSS {start / MB:.0f} MB; upload {len(body) / MB:.0f} MB")
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    began = time.monotonic()
    for cycle in range(1, count + 1):
        ids = []
        for _ in range(sessions):
            ids.append(json.loads(call(c, "POST", "/sessions", body))["id"])
        for sid in ids:
            call(c, "GET", f"/sessions/{sid}/rows?filter=item%3A%202&limit=50")
        full = proc_status(pid, "VmRSS")
        for sid in ids:
            call(c, "DELETE", f"/sessions/{sid}")
        live, nodes = metric(c, "tree_sessions"), metric(c, "tree_nodes")
        time.sleep(0.5)
        rss = proc_status(pid, "VmRSS")
        print(f"cycle {cycle}: {sessions} sessions VmRSS {full / MB:.0f} MB; after deleting "
              f"(sessions {live:.0f}, nodes {nodes:.0f}): VmRSS {rss / MB:.0f} MB "
              f"({(rss - start) / MB:+.0f} MB) [{time.monotonic() - began:.0f} s]")
        if live != 0 or nodes != 0:
            fail("sessions left after deleting them all")
    rss = proc_status(pid, "VmRSS")
    if rss - start > 100 * MB:
        fail(f"resident memory {rss / MB:.0f} MB is {(rss - start) / MB:.0f} MB above the start (allowed: 100 MB)")
    print(f"resident memory returned to within {(rss - start) / MB:.0f} MB of the start (allowed: 100 MB)")


if __name__ == "__main__":
    mode, port, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if mode == "uploads":
        uploads(port, pid, int(sys.argv[4]))
    elif mode == "cycles":
        cycles(port, pid, int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
    else:
        fail(f"unknown mode {mode}")
