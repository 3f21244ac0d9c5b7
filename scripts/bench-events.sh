#!/usr/bin/env bash
# Event streams under load: SUBSCRIBERS streams (GET /sessions/{sid}/events) on one session of
# a release tree-server (the outline sample, durable with --fsync batch), then CHANGES changes
# at RATE per second; reports the server's resident memory for the open streams and the
# delivery latency p50/p99 (scripts/lib/event_clients.py). The Python client reads every
# stream in one thread on the same 2 cores as the server: its own time is in the latencies.
#
# Usage: scripts/bench-events.sh        (SUBSCRIBERS=10000 CHANGES=60 RATE=4 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

SUBSCRIBERS="${SUBSCRIBERS:-10000}"
CHANGES="${CHANGES:-60}"
RATE="${RATE:-4}"
PORT="${PORT:-18091}"
. scripts/lib/side-by-side.sh

ulimit -n "$(ulimit -Hn)"  # a descriptor per stream, in the server and in the client
build_release
start_scratch
"$server" --port "$PORT" --data-dir "$tmp/data" --max-streams "$SUBSCRIBERS" \
    --max-session-streams "$SUBSCRIBERS" --access-log false >"$tmp/server.log" 2>&1 &
pids+=($!)
wait_for_url "http://127.0.0.1:$PORT/healthz"
sid=$(curl -sf -X POST "http://127.0.0.1:$PORT/sessions" -H 'Content-Type: application/json' \
        --data-binary @Sources/TreeService/Demo/outline-small.json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
echo "$(nproc) cores; $SUBSCRIBERS subscribers on session $sid"
python3 scripts/lib/event_clients.py "$PORT" "${pids[0]}" "$sid" "$SUBSCRIBERS" "$CHANGES" "$RATE"
