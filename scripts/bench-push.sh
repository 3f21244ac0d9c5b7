#!/usr/bin/env bash
# Push bodies (server-sent events) held cheaply: opens STREAMS streams on http-bench-server,
# reports its resident memory per open stream, then times ROUNDS broadcasts of one event to
# all of them from one thread (the send loop, and delivery to the last client).
#
# Usage: scripts/bench-push.sh            (STREAMS=10000 ROUNDS=5 EVENT_BYTES=200 by default)
set -euo pipefail
cd "$(dirname "$0")/.."

STREAMS="${STREAMS:-10000}"
ROUNDS="${ROUNDS:-5}"
EVENT_BYTES="${EVENT_BYTES:-200}"
PORT="${PORT:-18090}"
SCRATCH="${SCRATCH:-.build-http}"
. scripts/lib/side-by-side.sh

ulimit -n "$(ulimit -Hn)"  # a descriptor per stream, in the server and in the client
swift build -c release --product http-bench-server --scratch-path "$SCRATCH" 2>&1 | tail -1
bin="$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/http-bench-server"

start_scratch
"$bin" --host 127.0.0.1 --port "$PORT" --max-connections $((STREAMS + 100)) >"$tmp/server.log" 2>&1 &
pids+=($!)
wait_for_url "http://127.0.0.1:$PORT/"
echo "$(nproc) cores; $STREAMS streams"
python3 scripts/lib/push_clients.py "$PORT" "${pids[0]}" "$STREAMS" "$ROUNDS" "$EVENT_BYTES"
