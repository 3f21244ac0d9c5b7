#!/usr/bin/env bash
# Memory bounds of tree-server, measured from /proc/PID/status (VmRSS, VmHWM):
#  1. uploads against --max-buffered-bodies 64 MiB, 8 connections at a time: bodies that
#     announce 1 GiB (more than the whole budget: 413 at once), 40 MiB each (fit alone, not
#     together: 503 with Retry-After), chunked 100 MB each (cut off with 503, or 413 once one
#     alone outgrows the budget); the server's peak resident memory stays under a ceiling;
#  2. cycles: CYCLES times, SESSIONS sessions of the 797K-node tree (`tree-bench --emit
#     797K`) are created, filtered
#     and deleted; with no session left, resident memory must be within 100 MB of the start.
#
# Usage: scripts/check-memory.sh   (TREE_SERVER=path to a built tree-server; default: a
#        release build. CYCLES=6 SESSIONS=15 CEILING_MB=200 PORT=18095)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

CYCLES="${CYCLES:-6}"
SESSIONS="${SESSIONS:-15}"
CEILING_MB="${CEILING_MB:-200}"
PORT="${PORT:-18095}"
. scripts/lib/side-by-side.sh

if [ -z "${TREE_SERVER:-}" ]; then
  swift build -c release --product tree-server 2>&1 | tail -1
  TREE_SERVER="$(swift build -c release --show-bin-path)/tree-server"
fi
swift build -c release --product tree-bench 2>&1 | tail -1
start_scratch
"$(swift build -c release --show-bin-path)/tree-bench" --emit 797K >"$tmp/797K.json"

# start_server FLAGS...: starts tree-server on $PORT, sets `server_pid`.
start_server() {
  rm -rf "$tmp/data"
  "$TREE_SERVER" --port "$PORT" --access-log false --data-dir "$tmp/data" "$@" >"$tmp/server.log" 2>&1 &
  server_pid=$!
  pids+=("$server_pid")
  wait_for_url "http://127.0.0.1:$PORT/healthz"
}

stop_server() {
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
}

echo "== 1. concurrent uploads against --max-buffered-bodies 64 MiB (ceiling: +$CEILING_MB MB)"
start_server --max-buffered-bodies $((64 << 20))
python3 scripts/lib/memory_probe.py uploads "$PORT" "$server_pid" "$CEILING_MB"
stop_server

echo "== 2. $CYCLES cycles of $SESSIONS sessions of 797K nodes: created, filtered, deleted"
start_server
python3 scripts/lib/memory_probe.py cycles "$PORT" "$server_pid" "$CYCLES" "$SESSIONS" "$tmp/797K.json"
stop_server
echo "== memory checks passed"
