#!/usr/bin/env bash
# What the proxy costs: GET rows (limit 50, mid-tree, 88K-node session expanded, as in
# scripts/bench-service.sh) with wrk, straight to the instance that holds the session and
# through nginx (scripts/cluster.sh: deploy/nginx.conf.template, three instances), in one run
# on one machine, alternated (direct, proxy, direct, proxy). Reports req/s, p50 and p99 of
# each, the ratio proxy/direct, and the CPU time nginx spends per proxied request (its
# processes' utime + stime from /proc over the proxied runs, divided by their requests).
#
# Usage: scripts/bench-cluster.sh   (DURATION=10 CONNECTIONS=64 THREADS=2 CLUSTER_PORT=18288)
# Needs root for apt-get if wrk, nginx or curl are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

DURATION="${DURATION:-10}"
CONNECTIONS="${CONNECTIONS:-64}"
THREADS="${THREADS:-2}"
export CLUSTER_PORT="${CLUSTER_PORT:-18288}"
. scripts/lib/side-by-side.sh
install_bench_tools

build_release
start_scratch
export TREE_SERVER="$server" CLUSTER_DIR="$tmp/cluster" CLUSTER_ACCESS_LOG=off TREE_ACCESS_LOG=false
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true; cleanup_scratch' EXIT
base=$(scripts/cluster.sh up | tail -1)

"$bin/tree-bench" --emit 88K >"$tmp/88K.json"
python3 - "$base" "$tmp" <<'PY'
import http.client, json, sys, urllib.parse
base, tmp = urllib.parse.urlsplit(sys.argv[1]), sys.argv[2]
c = http.client.HTTPConnection(base.hostname, base.port, timeout=120)
nodes = json.loads(open(f"{tmp}/88K.json").read())["nodes"]
c.request("POST", "/sessions", body=json.dumps({"nodes": nodes, "expand": "all"}), headers={"Content-Type": "application/json"})
r = c.getresponse()
created = json.loads(r.read())
assert r.status == 201, created
open(f"{tmp}/sid", "w").write(created["id"])
PY
sid="$(cat "$tmp/sid")"
name="${sid%%.*}"
port=$(awk -v n="$name" '$1 == n { split($2, a, ":"); print a[2] }' "$CLUSTER_DIR/instances")
path="/sessions/$sid/rows?offset=44000&limit=50"
direct="http://127.0.0.1:$port$path"
proxied="$base$path"
if ! cmp -s <(curl -s "$direct") <(curl -s "$proxied"); then echo "the two answers differ" >&2; exit 1; fi

# The CPU seconds (user + system) of nginx's master and workers so far.
nginx_master=$(cat "$CLUSTER_DIR/nginx/nginx.pid")
nginx_cpu() {
  local ticks=0 pid
  for pid in "$nginx_master" $(pgrep -P "$nginx_master"); do
    ticks=$((ticks + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
  done
  awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.3f", t / hz }'
}
requests() { awk '/requests in/ {print $1}' "$tmp/$1.txt"; }
p50() { awk '$1 == "50%" {print $2}' "$tmp/$1.txt"; }

echo "== $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); session $sid on instance $name (port $port); $(curl -s "$direct" | wc -c) bytes a page"
echo "== wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s after a 2 s warm-up, alternated"
cpu_total=0 proxied_requests=0
for round in 1 2; do
  wrk_run "direct$round" "$direct"
  wrk -t"$THREADS" -c"$CONNECTIONS" -d2s "$proxied" >/dev/null  # the warm-up, counted out
  warm=$(nginx_cpu)
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "$proxied" >"$tmp/proxy$round.txt"
  after=$(nginx_cpu)
  rps=$(awk '/^Requests\/sec:/ {print $2}' "$tmp/proxy$round.txt")
  printf "%-8s %12s req/s   p99 %8s   %s\n" "proxy$round" "$rps" "$(awk '$1 == "99%" {print $2}' "$tmp/proxy$round.txt")" \
    "$(grep -E 'Non-2xx|Socket errors' "$tmp/proxy$round.txt" || true)"
  echo "$rps" >"$tmp/proxy$round.rps"
  cpu_total=$(awk -v a="$cpu_total" -v b="$after" -v w="$warm" 'BEGIN { print a + b - w }')
  proxied_requests=$((proxied_requests + $(requests "proxy$round")))
done
for run in direct1 proxy1 direct2 proxy2; do printf "%-8s p50 %8s\n" "$run" "$(p50 "$run")"; done
echo "ratio proxy/direct: round 1 $(ratio proxy1 direct1), round 2 $(ratio proxy2 direct2)"
awk -v c="$cpu_total" -v n="$proxied_requests" 'BEGIN { printf "nginx CPU per proxied request: %.1f µs (%.2f s over %d requests)\n", c / n * 1e6, c, n }'
