"""Opens N push streams (GET /events) on a running http-bench-server, measures the server's
resident memory per open stream, then broadcasts events and times their delivery to all;
see scripts/bench-push.sh.

  push_clients.py PORT PID STREAMS ROUNDS EVENT_BYTES
"""
import http.client
import json
import selectors
import socket
import statistics
import sys
import time

from process_memory import rss, settled_rss

MB = 1 << 20


def get(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, body


def main():
    port, pid, count, rounds, event_bytes = (int(a) for a in sys.argv[1:6])
    get(port, "/")
    get(port, "/broadcast?bytes=16")
    before = settled_rss(pid)

    selector = selectors.DefaultSelector()
    received = {}
    started = time.monotonic()
    socks = []
    for i in range(count):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /events HTTP/1.1\r\nHost: bench\r\n\r\n")
        s.setblocking(False)
        selector.register(s, selectors.EVENT_READ, i)
        received[i] = b""
        socks.append(s)

    def pump(done, deadline):
        """Reads until done(i) holds for every stream, or the deadline; the time it took."""
        waiting = {i for i in range(count) if not done(i)}
        while waiting and time.monotonic() < deadline:
            for key, _ in selector.select(timeout=0.5):
                i = key.data
                try:
                    data = key.fileobj.recv(65536)
                except BlockingIOError:
                    continue
                if not data:
                    raise SystemExit(f"stream {i} closed by the server")
                received[i] += data
                if i in waiting and done(i):
                    waiting.discard(i)
        return len(waiting)

    missing = pump(lambda i: b"\r\n\r\n" in received[i], time.monotonic() + 120)
    if missing:
        raise SystemExit(f"{missing} of {count} streams got no head")
    opened = time.monotonic() - started
    for i in range(count):
        received[i] = received[i].split(b"\r\n\r\n", 1)[1]
    after = settled_rss(pid)
    growth = after - before
    print(f"{count} open streams in {opened:.1f} s; server RSS {before / MB:.1f} MB -> {after / MB:.1f} MB: "
          f"+{growth / MB:.1f} MB, {growth / count / 1024:.2f} KiB per stream")

    sends, deliveries = [], []
    for _ in range(rounds):
        for i in range(count):
            received[i] = b""
        t0 = time.monotonic()
        status, body = get(port, f"/broadcast?bytes={event_bytes}")
        result = json.loads(body)
        if status != 200 or result["sent"] != count:
            raise SystemExit(f"broadcast: {status} {result}")
        framed = len(f"{result['bytes']:x}\r\n") + result["bytes"] + 2
        missing = pump(lambda i: len(received[i]) >= framed, time.monotonic() + 30)
        if missing:
            raise SystemExit(f"{missing} of {count} streams did not get the event")
        deliveries.append(time.monotonic() - t0)
        sends.append(result["sendMicros"] / 1e6)
        time.sleep(0.2)
    after_events = settled_rss(pid)
    print(f"{rounds} broadcasts of {event_bytes} bytes to {count} streams from one thread: send loop "
          f"median {statistics.median(sends) * 1000:.1f} ms, max {max(sends) * 1000:.1f} ms; "
          f"all {count} received it within median {statistics.median(deliveries) * 1000:.1f} ms, "
          f"max {max(deliveries) * 1000:.1f} ms (client-side, includes the Python reader)")
    print(f"server RSS after the broadcasts: {after_events / MB:.1f} MB (+{(after_events - before) / MB:.1f} MB)")

    for s in socks:
        s.close()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        _, body = get(port, "/broadcast?bytes=16")
        if json.loads(body)["streams"] == 0:
            break
        time.sleep(0.1)
    print(f"after closing all: {json.loads(body)['streams']} streams open, server RSS {settled_rss(pid) / MB:.1f} MB")


main()
