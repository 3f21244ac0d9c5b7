#!/usr/bin/env bash
# Event streams under load: SUBSCRIBERS streams (GET /sessions/{sid}/events) on one session of
# a release tree-server (the outline sample, durable with --fsync batch), then CHANGES changes
# at RATE per second; reports the server's resident memory for the open streams and the
# delivery latency p50/p99 (scripts/lib/event_clients.py). The Python client reads every
# stream in one thread on the same 2 cores as the server: its own time is in the latencies.
#
# With VIEWS=N, views instead (scripts/lib/view_event_clients.py): the TREE data set of
# tree-bench (797K by default; 88K, 350K, 7.2M) uploaded to one session, N views made on it,
# each with EXPANDS random folders revealed and expanded through itself, one event stream per
# view (GET /sessions/{sid}/views/{vid}/events), then CHANGES tree edits (renames and inserts,
# through random views or the default view) at RATE per second, each fanned out to all N
# streams with each view's own splices (checked). Reports the delivery latency p50/p99 over all
# the views' streams and the server's resident memory, and ends with a `SUMMARY views:` line.
#
# Usage: scripts/bench-events.sh        (SUBSCRIBERS=10000 CHANGES=60 RATE=4 by default)
#        VIEWS=1000 scripts/bench-events.sh   (TREE=797K EXPANDS=5 SEED=1 CHANGES=60 RATE=4)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

SUBSCRIBERS="${SUBSCRIBERS:-10000}"
VIEWS="${VIEWS:-}"
TREE="${TREE:-797K}"
EXPANDS="${EXPANDS:-5}"
SEED="${SEED:-1}"
CHANGES="${CHANGES:-60}"
RATE="${RATE:-4}"
PORT="${PORT:-18091}"
. scripts/lib/side-by-side.sh

ulimit -n "$(ulimit -Hn)"  # a descriptor per stream, in the server and in the client
build_release
start_scratch
streams="${VIEWS:-$SUBSCRIBERS}"
"$server" --port "$PORT" --data-dir "$tmp/data" --max-streams "$streams" \
    --max-session-streams "$streams" --access-log false >"$tmp/server.log" 2>&1 &
pids+=($!)
wait_for_url "http://127.0.0.1:$PORT/healthz"

if [ -n "$VIEWS" ]; then
  "$bin/tree-bench" --emit "$TREE" >"$tmp/tree.json"
  upload_start=$(date +%s.%N)
  sid=$(curl -sf -X POST "http://127.0.0.1:$PORT/sessions" -H 'Content-Type: application/json' \
          --data-binary @"$tmp/tree.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  upload_end=$(date +%s.%N)
  rm "$tmp/tree.json"
  echo "$(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg); session $sid: the $TREE tree" \
       "uploaded in $(awk -v a="$upload_start" -v b="$upload_end" 'BEGIN { printf "%.1f", b - a }') s;" \
       "$VIEWS views, $EXPANDS random folders expanded in each"
  python3 scripts/lib/view_event_clients.py "$PORT" "${pids[0]}" "$sid" "$VIEWS" "$CHANGES" "$RATE" "$EXPANDS" "$SEED"
  exit 0
fi

sid=$(curl -sf -X POST "http://127.0.0.1:$PORT/sessions" -H 'Content-Type: application/json' \
        --data-binary @Sources/TreeService/Demo/outline-small.json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
echo "$(nproc) cores; $SUBSCRIBERS subscribers on session $sid"
python3 scripts/lib/event_clients.py "$PORT" "${pids[0]}" "$sid" "$SUBSCRIBERS" "$CHANGES" "$RATE"
