#!/usr/bin/env bash
# The service over HTTP, on loopback, release build:
#  1. upload of the 7.2M-node tree (about 330 MB of JSON) to a ready session;
#  2. a fresh filter request on that session, and single expand/collapse requests;
#  3. GET rows (limit 50, mid-tree, 88K expanded session) with wrk at 64 connections
#     against nginx serving the very same response bytes, side by side in one run; then the
#     same with a reader token (its signature checked on every request).
#
# Usage: scripts/bench-service.sh        (DURATION=10 CONNECTIONS=64 THREADS=2 RUNS=5)
# Needs root for apt-get if wrk, nginx or curl are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION="${DURATION:-10}"
CONNECTIONS="${CONNECTIONS:-64}"
THREADS="${THREADS:-2}"
RUNS="${RUNS:-5}"
PORT="${PORT:-18090}"
NGINX_PORT="${NGINX_PORT:-18091}"
. scripts/lib/side-by-side.sh
install_bench_tools

build_release

start_scratch

"$bin/tree-bench" --emit 7.2M >"$tmp/7.2M.json"
"$bin/tree-bench" --emit 88K >"$tmp/88K.json"
"$server" --port "$PORT" --access-log false --max-nodes 20000000 --data-dir none >"$tmp/server.log" 2>&1 &
pids+=($!)
wait_for_url "http://127.0.0.1:$PORT/healthz"

echo "== $(nproc) cores; $(du -m "$tmp/7.2M.json" | cut -f1) MB upload of 7,174,452 nodes"
python3 - "$PORT" "$tmp" "$RUNS" <<'PY'
import http.client, json, statistics, sys, time
port, tmp, runs = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
body = open(f"{tmp}/7.2M.json", "rb").read()

def conn():
    return http.client.HTTPConnection("127.0.0.1", port, timeout=600)

sys.path.insert(0, "scripts/lib")
from service_client import call_json as call

uploads, sid = [], None
for i in range(runs):
    c = conn()
    start = time.perf_counter()
    created = call(c, "POST", "/sessions", body)
    uploads.append(time.perf_counter() - start)
    if sid: call(c, "DELETE", f"/sessions/{sid}")
    sid = created["id"]
print(f"upload 7.2M:        median {statistics.median(uploads):.3f} s over {runs} runs (goal <= 3 s)")

c = conn()
call(c, "PATCH", f"/sessions/{sid}", json.dumps({"expandAll": True}).encode())
filters, variants = [], ["item: 2", "ITEM: 2", "Item: 2", "iTem: 2", "itEm: 2", "iteM: 2", "ITem: 2"]
for text in variants[:max(runs, 3)]:
    q = text.replace(" ", "%20").replace(":", "%3A")
    start = time.perf_counter()
    page = call(c, "GET", f"/sessions/{sid}/rows?filter={q}&limit=50")
    filters.append(time.perf_counter() - start)
print(f"filter 'item: 2':   median {statistics.median(filters):.3f} s over {len(filters)} fresh views, "
      f"{page['matchCount']} matches, {page['total']} rows (goal <= 0.6 s)")

rows = call(c, "GET", f"/sessions/{sid}/rows?offset=1000000&limit=200")["rows"]
toggles = []
for row in rows:
    if not row["hasChildren"]: continue
    for expanded in (False, True):
        start = time.perf_counter()
        call(c, "PATCH", f"/sessions/{sid}/items/{row['id']}", json.dumps({"expanded": expanded}).encode())
        toggles.append(time.perf_counter() - start)
print(f"expand/collapse:    median {statistics.median(toggles) * 1e3:.3f} ms over {len(toggles)} requests, "
      f"p99 {sorted(toggles)[int(len(toggles) * 0.99)] * 1e3:.3f} ms (goal <= 1 ms)")
call(c, "DELETE", f"/sessions/{sid}")

c = conn()
s88 = call(c, "POST", "/sessions", json.dumps({"nodes": json.loads(open(f"{tmp}/88K.json").read())["nodes"], "expand": "all"}).encode())
open(f"{tmp}/rows-path", "w").write(f"/sessions/{s88['id']}/rows?offset=44000&limit=50")
# A reader token of that session: the same reads, each with its signature checked.
open(f"{tmp}/reader-token", "w").write(call(c, "POST", f"/sessions/{s88['id']}/tokens", b'{"role": "reader"}')["token"])
PY

path="$(cat "$tmp/rows-path")"
curl -s "http://127.0.0.1:$PORT$path" >"$tmp/rows.json"
serve_with_nginx "$tmp/rows.json" "$NGINX_PORT"
ours_bytes=$(curl -s "http://127.0.0.1:$PORT$path" | wc -c)
nginx_bytes=$(curl -s "http://127.0.0.1:$NGINX_PORT/rows" | wc -c)
if [ "$ours_bytes" != "$nginx_bytes" ]; then echo "payloads differ: $ours_bytes vs $nginx_bytes" >&2; exit 1; fi
echo "== GET rows: $ours_bytes bytes from both; wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s after a 2 s warm-up"
wrk_run ours "http://127.0.0.1:$PORT$path"
wrk_run nginx "http://127.0.0.1:$NGINX_PORT/rows"
echo "ratio ours/nginx: $(ratio ours nginx) (goal >= 0.5; p99 goal < 5 ms)"
wrk_run token "http://127.0.0.1:$PORT$path" -H "Authorization: Bearer $(cat "$tmp/reader-token")"
echo "ratio with a reader token / without: $(ratio token ours)"
