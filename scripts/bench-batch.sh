#!/usr/bin/env bash
# Many edits over HTTP, as a client sees them: N edits in one POST /sessions/{sid}/batch
# against the same kind of edits as single requests (one client, one keep-alive connection,
# each request waiting for its answer; SINGLES of them, N by default, their mean times N when
# fewer), on the 7.2M tree fully expanded with four filtered views kept (as tree-bench's edit
# ops: "item: 2", "item: 1", "Level 13", "Level 7"), every edit naming the unfiltered view.
#
# OPS=mixed (default): a quarter each of insert one node (index 0 or last), delete a leaf,
# move a leaf under another node (index 0 or last), rename ("Level L, item: I", so matches
# change); planned before the timing so that all stay valid in order (a node that receives
# children or is moved is never deleted or moved later; a deleted one is never named again).
# OPS=rename: renames only. The singles run first, then the batch, on the same session.
#
# The server keeps sessions in memory only (--data-dir none): scripts/bench-durability.sh
# measures what storing them costs.
#
# Usage: scripts/bench-batch.sh   (SIZE=7.2M N=50000 SINGLES=N OPS=mixed PORT=18092)
#   SERVER=PATH: a tree-server binary to run instead of building this checkout's.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE="${SIZE:-7.2M}"
N="${N:-50000}"
SINGLES="${SINGLES:-$N}"
OPS="${OPS:-mixed}"
PORT="${PORT:-18092}"
export PATH="/opt/swift/usr/bin:$PATH"
. scripts/lib/side-by-side.sh
command -v curl >/dev/null || install_bench_tools

build_release

start_scratch
"$bin/tree-bench" --emit "$SIZE" >"$tmp/tree.json"
# Memory only (a binary from before the data directory knows no --data-dir).
memory_only=()
if "$server" --help | grep -q -- --data-dir; then memory_only=(--data-dir none); fi
"$server" --port "$PORT" --access-log false --max-nodes 20000000 "${memory_only[@]}" >"$tmp/server.log" 2>&1 &
pids+=($!)
wait_for_url "http://127.0.0.1:$PORT/healthz"

echo "== $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $SIZE tree; $N edits ($OPS) in one batch against $SINGLES single requests"
python3 - "$PORT" "$tmp" "$N" "$SINGLES" "$OPS" <<'PY'
import http.client, json, random, statistics, sys, time
port, tmp, n, singles_n, ops = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
sys.path.insert(0, "scripts/lib")
from service_client import call_json as call

c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
sid = call(c, "POST", "/sessions", open(f"{tmp}/tree.json", "rb").read())["id"]
base = f"/sessions/{sid}"
call(c, "PATCH", base, b'{"expandAll": true}')
filters = ["item%3A%202", "item%3A%201", "Level%2013", "Level%207"]
for f in filters:
    call(c, "GET", f"{base}/rows?filter={f}&limit=0")
total = call(c, "GET", f"{base}/rows?limit=0")["total"]

# A pool of ids (and which are leaves) from pages of 1000 rows at random offsets.
rng = random.Random(42)
pool, leaf = [], set()
seen = set()
while len(pool) < min(total, max(20_000, 3 * (n + singles_n))):
    offset = rng.randrange(0, max(1, total - 1000))
    for row in call(c, "GET", f"{base}/rows?offset={offset}&limit=1000")["rows"]:
        if row["id"] in seen: continue
        seen.add(row["id"])
        pool.append(row["id"])
        if not row["hasChildren"]: leaf.add(row["id"])

def title():
    return f"Level {rng.randint(0, 13)}, item: {rng.randint(1, 3)}"

# The edits, valid in order: (kind, request method, path, body, batch operation).
pinned, gone = set(), set()
# The first insertion into an uploaded tree spreads its position columns (O(n), once per
# session): done here, untimed, so that singles and batch both edit a spread forest.
warm = pool[0]
pinned.add(warm)  # it has a child now: never deleted or moved
call(c, "POST", f"{base}/items", json.dumps({"nodes": [{"title": "warm-up"}], "parentId": warm}).encode())

def live():
    while True:
        h = rng.choice(pool)
        if h not in gone: return h
def free_leaf():
    while True:
        h = live()
        if h in leaf and h not in pinned: return h
edits = []
while len(edits) < n + singles_n:
    kind = "rename" if ops == "rename" else rng.choice(["insert", "delete", "move", "rename"])
    index = {"index": 0} if rng.random() < 0.5 else {}
    if kind == "insert":
        parent = live(); pinned.add(parent)
        body = {"nodes": [{"title": title()}], "parentId": parent, **index}
        edits.append((kind, "POST", f"{base}/items", body, {"op": "insert", **body}))
    elif kind == "delete":
        h = free_leaf(); pinned.add(h); gone.add(h)
        edits.append((kind, "DELETE", f"{base}/items/{h}", None, {"op": "delete", "id": h}))
    elif kind == "move":
        h = free_leaf(); pinned.add(h)
        target = live()
        while target == h: target = live()
        pinned.add(target)
        body = {"parentId": target, **index}
        edits.append((kind, "PATCH", f"{base}/items/{h}", body, {"op": "move", "id": h, **body}))
    else:
        h = live()
        body = {"title": title()}
        edits.append((kind, "PATCH", f"{base}/items/{h}", body, {"op": "update", "id": h, **body}))
singles, batch = edits[:singles_n], edits[singles_n:]
payloads = [(k, m, p, json.dumps(b).encode() if b is not None else None) for k, m, p, b, _ in singles]
batch_body = json.dumps({"operations": [op for *_, op in batch]}).encode()

version = call(c, "GET", f"{base}/rows?limit=0")["version"]
times, by_kind = [], {}
for kind, method, path, payload in payloads:
    start = time.perf_counter()
    call(c, method, path, payload)
    elapsed = time.perf_counter() - start
    times.append(elapsed)
    by_kind.setdefault(kind, []).append(elapsed)
after_singles = call(c, "GET", f"{base}/rows?limit=0")["version"]
if after_singles != version + len(payloads):
    raise SystemExit(f"FAIL: {len(payloads)} single edits moved the version {version} -> {after_singles}")

start = time.perf_counter()
answer = call(c, "POST", f"{base}/batch", batch_body)
batch_s = time.perf_counter() - start
if answer["version"] != after_singles + 1 or len(answer["results"]) != len(batch):
    raise SystemExit(f"FAIL: the batch answered version {answer['version']} (expected {after_singles + 1}) "
                     f"and {len(answer['results'])} results for {len(batch)} operations")
for f in filters:  # the kept views are still there and readable
    call(c, "GET", f"{base}/rows?filter={f}&limit=50")

mean = statistics.mean(times)
p99 = sorted(times)[int(len(times) * 0.99)]
kinds = ", ".join(f"{k} {statistics.mean(v) * 1e3:.3f} / {statistics.median(v) * 1e3:.3f}" for k, v in sorted(by_kind.items()))
print(f"singles: {len(times)} requests, mean {mean * 1e3:.3f} ms, median {statistics.median(times) * 1e3:.3f} ms, "
      f"p99 {p99 * 1e3:.3f} ms (by kind, mean / median ms: {kinds})")
print(f"         {sum(times):.2f} s in all" + (f"; x {len(batch)} = {mean * len(batch):.2f} s" if len(times) != len(batch) else ""))
print(f"batch:   {len(batch)} operations, {len(batch_body) / 1e6:.1f} MB body: {batch_s:.3f} s "
      f"({batch_s / len(batch) * 1e6:.1f} µs per edit; goal <= 1 s)")
print(f"ratio:   {mean * len(batch) / batch_s:.1f}x (the singles' mean x {len(batch)} / the batch; goal >= 10x)")
PY
