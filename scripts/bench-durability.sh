#!/usr/bin/env bash
# What durability costs (issue 11), release build, side by side in one run: a durable
# tree-server (--data-dir, --fsync batch) and a memory-only one (--data-dir none), both holding
# a session of the 7.2M-node tree (fully expanded), same requests in the same order:
#  (a) single expand/collapse requests, one client waiting for each answer: p50 and p99 per
#      run (TOGGLES collapse+expand pairs on nodes with children), the two servers taking turns;
#  (b) CHANGES expand/collapse changes on distinct nodes from CONNECTIONS concurrent clients
#      (wrk, a Lua script that stops after CHANGES answers and notes the time from its first
#      request to that answer): changes per second, durable over memory-only (goal >= 50%);
#  (c) restart of the durable server with the 7.2M session and SMALL small ones in its data
#      directory, from exec until every session answers 200 (polled): after SIGTERM and after
#      SIGKILL (goal <= 3 s);
# then tree-bench's own snapshot figures for 7.2M (write, load, against parsing the JSON).
# Every figure is a median over RUNS runs. Check that the machine is quiet first (`uptime`).
#
# Usage: scripts/bench-durability.sh   (RUNS=5 TOGGLES=500 CHANGES=1000 CONNECTIONS=64 THREADS=2
#                                       SMALL=100 FSYNC=batch PORT=18093 WRK_SECONDS=5 (the bound
#                                       on one run of (b)); DATA_PARENT=dir for
#                                       the data directory, default a scratch directory in $TMPDIR)
#   SIZE=88K (or 350K, 797K): a smaller tree instead of 7.2M, for a quick trial.
#   SERVER=PATH: a tree-server binary to run instead of building this checkout's.
# Needs root for apt-get if wrk or curl are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE="${SIZE:-7.2M}"
RUNS="${RUNS:-5}"
TOGGLES="${TOGGLES:-500}"
CHANGES="${CHANGES:-1000}"
CONNECTIONS="${CONNECTIONS:-64}"
THREADS="${THREADS:-2}"
SMALL="${SMALL:-100}"
FSYNC="${FSYNC:-batch}"
PORT="${PORT:-18093}"
MEMORY_PORT=$((PORT + 1))
export PATH="/opt/swift/usr/bin:$PATH" PYTHONDONTWRITEBYTECODE=1
. scripts/lib/side-by-side.sh
install_bench_tools

build_release

start_scratch
data="${DATA_PARENT:-$tmp}/bench-durability-data"
rm -rf "$data"
trap 'cleanup_scratch; rm -rf "$data"' EXIT
"$bin/tree-bench" --emit "$SIZE" >"$tmp/tree.json"
flags=(--access-log false --max-nodes 20000000)
"$server" --port "$PORT" "${flags[@]}" --data-dir "$data" --fsync "$FSYNC" >"$tmp/durable.log" 2>&1 &
durable=$!
pids+=($durable)
"$server" --port "$MEMORY_PORT" "${flags[@]}" --data-dir none >"$tmp/memory.log" 2>&1 &
pids+=($!)
wait_for_url "http://127.0.0.1:$PORT/healthz"
wait_for_url "http://127.0.0.1:$MEMORY_PORT/healthz"

echo "== $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); data directory on $(df --output=source,fstype "${DATA_PARENT:-$tmp}" | tail -1)"
echo "== $SIZE session on both servers; (a) $TOGGLES collapse+expand pairs per run, $RUNS runs"
python3 - "$PORT" "$MEMORY_PORT" "$tmp" "$RUNS" "$TOGGLES" "$CHANGES" "$CONNECTIONS" <<'PY'
import http.client, json, statistics, sys, time
durable_port, memory_port, tmp, runs, toggles, changes, connections = sys.argv[1:8]
runs, toggles, changes, connections = int(runs), int(toggles), int(changes), int(connections)
sys.path.insert(0, "scripts/lib")
from service_client import call_json as call

body = open(f"{tmp}/tree.json", "rb").read()
servers = {}
for name, port in (("durable", durable_port), ("memory", memory_port)):
    c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=600)
    start = time.perf_counter()
    sid = call(c, "POST", "/sessions", body)["id"]
    upload = time.perf_counter() - start
    call(c, "PATCH", f"/sessions/{sid}", b'{"expandAll": true}')
    servers[name] = (c, sid)
    print(f"upload ({name}): {upload:.2f} s")
del body

# Nodes with children, from pages across the expanded tree (the same ids on both servers:
# generated in upload order).
c, sid = servers["memory"]
total = call(c, "GET", f"/sessions/{sid}/rows?limit=0")["total"]
ids = []
for k in range(1, 41):
    rows = call(c, "GET", f"/sessions/{sid}/rows?offset={total * k // 41}&limit=1000")["rows"]
    ids += [row["id"] for row in rows if row["hasChildren"]]
ids = list(dict.fromkeys(ids))
need = max(toggles, changes + 2 * connections)
if len(ids) < need:
    raise SystemExit(f"only {len(ids)} nodes with children found, {need} needed")

def p(samples, q):
    s = sorted(samples)
    return s[min(len(s) - 1, int(len(s) * q))]

results = {"durable": {"p50": [], "p99": []}, "memory": {"p50": [], "p99": []}}
for run in range(runs):
    samples = {"durable": [], "memory": []}
    nodes = ids[run * 37 % len(ids):] + ids[:run * 37 % len(ids)]
    for i, node in enumerate(nodes[:toggles]):
        order = ("durable", "memory") if i % 2 == 0 else ("memory", "durable")
        for expanded in (False, True):
            payload = json.dumps({"expanded": expanded}).encode()
            for name in order:
                c, sid = servers[name]
                start = time.perf_counter()
                call(c, "PATCH", f"/sessions/{sid}/items/{node}", payload)
                samples[name].append(time.perf_counter() - start)
    for name in samples:
        results[name]["p50"].append(p(samples[name], 0.5))
        results[name]["p99"].append(p(samples[name], 0.99))
with open(f"{tmp}/a.json", "w") as f:
    json.dump({name: {k: statistics.median(v) for k, v in r.items()} for name, r in results.items()}, f)
for name in results:
    print(f"(a) {name:8} p50 {statistics.median(results[name]['p50']) * 1e3:.3f} ms, "
          f"p99 {statistics.median(results[name]['p99']) * 1e3:.3f} ms (runs: "
          + ", ".join(f"{x * 1e3:.2f}" for x in results[name]["p99"]) + ")")

# (b): the paths for wrk, one per line, distinct nodes.
for name in servers:
    c, sid = servers[name]
    with open(f"{tmp}/{name}.paths", "w") as f:
        for node in ids[:changes + 2 * connections]:
            f.write(f"/sessions/{sid}/items/{node}\n")
with open(f"{tmp}/big-sid", "w") as f:
    f.write(servers["durable"][1])
PY

# wrk: thread k takes every THREADS-th path from line k, sends each once and stops after its
# share of CHANGES answers, appending the monotonic clock of its first request and of that
# answer to a file (wrk itself always runs for -d, so its own req/s would not do); the body
# alternates per run (collapse, then expand again).
cat >"$tmp/changes.lua" <<'LUA'
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clock, bench_timespec *now);
]]
local ts = ffi.new("bench_timespec")
local function now()
  ffi.C.clock_gettime(1, ts)   -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end
local count = 0
function setup(thread)
  count = count + 1
  thread:set("tid", count)
end
function init(args)
  local threads, quota = tonumber(args[2]), tonumber(args[3])
  body, out = args[4], args[5]
  paths, i = {}, 0
  local n = 0
  for line in io.lines(args[1]) do
    if n % threads == tid - 1 then paths[#paths + 1] = line end
    n = n + 1
  end
  share = math.floor(quota / threads)
  answered, failed = 0, 0
end
function request()
  if i == 0 then first = now() end
  i = i + 1
  return wrk.format("PATCH", paths[(i - 1) % #paths + 1], {["Content-Type"] = "application/json"}, body)
end
function response(status, headers, body)
  answered = answered + 1
  if status ~= 200 then failed = failed + 1 end
  if answered == share then
    local f = io.open(out, "a")
    f:write(string.format("%.6f %.6f %d\n", first, now(), failed))
    f:close()
    wrk.thread:stop()
  end
end
LUA

fsync_metric() { curl -s "http://127.0.0.1:$PORT/metrics" | awk -v m="tree_storage_fsync_seconds$1" '$1 == m {print $2}'; }
echo "== (b) $CHANGES changes on distinct nodes from $CONNECTIONS connections (wrk -t$THREADS), $RUNS runs each"
for run in $(seq "$RUNS"); do
  if [ $((run % 2)) = 1 ]; then body='{"expanded":false}'; order="durable memory"; else body='{"expanded":true}'; order="memory durable"; fi
  for name in $order; do
    port=$PORT; [ "$name" = memory ] && port=$MEMORY_PORT
    times="$tmp/b-$name-$run.times"
    [ "$name" = durable ] && fsyncs_before=$(fsync_metric _count) && fsync_seconds_before=$(fsync_metric _sum)
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"${WRK_SECONDS:-5}s" --latency -s "$tmp/changes.lua" "http://127.0.0.1:$port" \
      -- "$tmp/$name.paths" "$THREADS" "$CHANGES" "$body" "$times" >"$tmp/b-$name-$run.txt"
    if [ "$(wc -l <"$times" 2>/dev/null || echo 0)" != "$THREADS" ]; then
      echo "(b) $name: not all $CHANGES changes answered within ${WRK_SECONDS:-5} s (WRK_SECONDS)"; cat "$tmp/b-$name-$run.txt"; exit 1
    fi
    if awk '$3 != 0 {bad = 1} END {exit !bad}' "$times"; then echo "(b) $name: answers other than 200"; exit 1; fi
    # changes per second: CHANGES over the time from the first request sent to the last answer.
    awk -v n="$CHANGES" 'NR == 1 || $1 < a {a = $1} $2 > b {b = $2} END {printf "%.0f\n", n / (b - a)}' "$times" >>"$tmp/b-$name.rps"
    if [ "$name" = durable ]; then
      # How the changes shared their fsyncs (the server's fsync histogram, before and after).
      awk -v c0="$fsyncs_before" -v c1="$(fsync_metric _count)" -v s0="$fsync_seconds_before" -v s1="$(fsync_metric _sum)" \
          -v n="$CHANGES" 'BEGIN { f = c1 - c0; if (f > 0) printf "%d fsyncs, %.1f changes each, %.3f ms each\n", f, n / f, (s1 - s0) / f * 1000 }' >>"$tmp/b-fsyncs"
    fi
  done
done
median() { sort -g "$1" | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
b_durable=$(median "$tmp/b-durable.rps")
b_memory=$(median "$tmp/b-memory.rps")
echo "(b) durable $b_durable changes/s (runs: $(tr '\n' ' ' <"$tmp/b-durable.rps"))"
echo "(b) memory  $b_memory changes/s (runs: $(tr '\n' ' ' <"$tmp/b-memory.rps"))"
echo "(b) durable runs' fsyncs: $(paste -sd ';' "$tmp/b-fsyncs" 2>/dev/null || echo "no tree_storage_fsync_seconds in /metrics")"

# (c): SMALL small sessions beside the 7.2M one; then restarts, timed from exec.
kill "${pids[1]}" 2>/dev/null; wait "${pids[1]}" 2>/dev/null || true   # the memory-only server: not needed any more
echo "== (c) restart with the $SIZE session and $SMALL small ones: $RUNS restarts after SIGTERM, $RUNS after SIGKILL"
python3 - "$PORT" "$tmp" "$RUNS" "$SMALL" "$server" "$data" "$FSYNC" "$durable" <<'PY'
import http.client, json, os, signal, statistics, subprocess, sys, time
port, tmp, runs, small, server, data, fsync, first_pid = sys.argv[1:9]
port, runs, small, first_pid = int(port), int(runs), int(small), int(first_pid)
sys.path.insert(0, "scripts/lib")
from service_client import call_json as call

tree = [{"title": f"Folder {i}", "children": [{"title": f"Item {i}.{j}", "children": [
    {"title": f"Leaf {i}.{j}.{k}", "data": {"n": k}} for k in range(10)]} for j in range(10)]} for i in range(10)]
c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
sids = [open(f"{tmp}/big-sid").read()]
for _ in range(small):
    sids.append(call(c, "POST", "/sessions", json.dumps({"nodes": tree, "expand": 1}).encode())["id"])
for sid in sids[1:]:
    call(c, "PATCH", f"/sessions/{sid}/items/~1", b'{"expanded": true}')
versions = {sid: call(c, "GET", f"/sessions/{sid}")["version"] for sid in sids}
c.close()
size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(data) for f in fs)
print(f"data directory: {size / 1e6:.0f} MB in {sum(len(fs) for _, _, fs in os.walk(data))} files")

def gone(pid):
    """The process exited (it may still be a zombie of the shell that started it)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True

def stop(pid, sig):
    os.kill(pid, sig)
    for _ in range(1200):
        if gone(pid):
            return
        time.sleep(0.025)
    raise SystemExit(f"tree-server {pid} did not stop")

def restart():
    """Starts the server on the data directory; seconds from exec until every session
    answered 200, and the process."""
    log = open(f"{tmp}/restart.log", "ab")
    start = time.perf_counter()
    global proc
    proc = p = subprocess.Popen([server, "--port", str(port), "--access-log", "false", "--max-nodes", "20000000",
                                 "--data-dir", data, "--fsync", fsync],
                                stdout=log, stderr=subprocess.STDOUT)
    pending = list(sids)
    not_found = {}
    c = None
    while pending:
        if time.perf_counter() - start > 120:
            raise SystemExit(f"{len(pending)} sessions still not answering after 120 s")
        if p.poll() is not None:
            raise SystemExit(f"tree-server exited with {p.returncode}; see {tmp}/restart.log")
        try:
            if c is None:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            still = []
            for sid in pending:
                c.request("GET", f"/sessions/{sid}")
                r = c.getresponse()
                r.read()
                if r.status == 404:
                    # Never right for a stored session; counted, and polled again for 2 s (a
                    # 404 that lasts is a session lost).
                    first = not_found.setdefault(sid, time.perf_counter())
                    if time.perf_counter() - first > 2:
                        raise SystemExit(f"session {sid} ({sids.index(sid)} of {len(sids)}; 0 is the big one) answers "
                                         f"404 for good after the restart; the server's log:\n"
                                         + open(f"{tmp}/restart.log", errors="replace").read()[-3000:])
                    still.append(sid)
                elif r.status != 200:
                    still.append(sid)
            pending = still
        except (ConnectionError, http.client.HTTPException, OSError):
            c = None
            time.sleep(0.005)
    elapsed = time.perf_counter() - start
    if not_found:
        print(f"    (a bug: {len(not_found)} sessions answered 404 while the server started, then 200)")
    c.request("GET", f"/sessions/{sids[0]}")
    r = c.getresponse()
    got = json.loads(r.read())["version"]
    if got != versions[sids[0]]:
        raise SystemExit(f"the 7.2M session has version {got} after the restart, {versions[sids[0]]} before")
    c.close()
    return elapsed, p

proc = None
pid = first_pid
times = {"SIGTERM": [], "SIGKILL": []}
try:
    for sig in [signal.SIGTERM] * runs + [signal.SIGKILL] * runs:
        stop(pid, sig)
        if proc is not None:
            proc.wait()
        elapsed, _ = restart()
        pid = proc.pid
        times[sig.name].append(elapsed)
        # A few changes for the journal (replayed after the next SIGKILL).
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for sid in sids[:20]:
            for e in (False, True):
                call(c, "PATCH", f"/sessions/{sid}/items/~1", json.dumps({"expanded": e}).encode())
            versions[sid] += 2
        c.close()
finally:
    if proc is not None and proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
with open(f"{tmp}/c.json", "w") as f:
    json.dump({k: statistics.median(v) for k, v in times.items()}, f)
for k, v in times.items():
    print(f"(c) after {k}: median {statistics.median(v):.2f} s until all {len(sids)} sessions answer (runs: "
          + ", ".join(f"{x:.2f}" for x in v) + ")")
PY

echo "== tree-bench --sizes $SIZE --edits 0 --batch 0 (snapshot write and load against parsing the JSON)"
"$bin/tree-bench" --json --sizes "$SIZE" --edits 0 --batch 0 >"$tmp/tree-bench.json"
grep -E '"op":"(snapshot\.[a-z0-9.]+|parse)"' "$tmp/tree-bench.json" || true

python3 - "$tmp" "$b_durable" "$b_memory" "$FSYNC" "$CHANGES" "$CONNECTIONS" "$SMALL" "$SIZE" <<'PY'
import json, sys
tmp, b_durable, b_memory, fsync, changes, connections, small, size = sys.argv[1:9]
a, c = json.load(open(f"{tmp}/a.json")), json.load(open(f"{tmp}/c.json"))
bench = {}
for line in open(f"{tmp}/tree-bench.json"):
    try:
        row = json.loads(line)
    except ValueError:
        continue
    if "median_s" in row:
        bench[row["op"]] = row["median_s"]
rows = [
    (f"one expand/collapse, p50", f"{a['durable']['p50'] * 1e3:.3f} ms", f"{a['memory']['p50'] * 1e3:.3f} ms", ""),
    (f"one expand/collapse, p99", f"{a['durable']['p99'] * 1e3:.3f} ms", f"{a['memory']['p99'] * 1e3:.3f} ms", "p99 <= 2 ms"),
    (f"{changes} changes, {connections} clients", f"{float(b_durable):.0f} changes/s", f"{float(b_memory):.0f} changes/s",
     f">= 50%: {float(b_durable) / float(b_memory) * 100:.0f}%"),
    (f"restart, {size} + {small} small, after SIGTERM", f"{c['SIGTERM']:.2f} s", "", "<= 3 s"),
    (f"restart, {size} + {small} small, after SIGKILL", f"{c['SIGKILL']:.2f} s", "", "<= 3 s"),
]
for op in sorted(bench):
    if op.startswith("snapshot.") or op == "parse":
        goal = {"snapshot.write": "<= 1 s", "snapshot.load": "<= 1 s, >= 2x faster than parse"}.get(op, "")
        if op == "snapshot.load" and "parse" in bench:
            goal += f": {bench['parse'] / bench[op]:.1f}x"
        rows.append((f"tree-bench {op}", f"{bench[op]:.3f} s", "", goal))
print(f"\nload at the end: {open('/proc/loadavg').read().split()[:3]} (at the start: see above)")
print(f"\n| {size} nodes | --fsync {fsync} | --data-dir none | goal |\n|---|---|---|---|")
for row in rows:
    print("| " + " | ".join(row) + " |")
PY
