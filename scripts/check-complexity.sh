#!/usr/bin/env bash
# The complexity guard: operations must not grow linearly with the tree. Release builds;
#  1. the engine: `tree-bench --complexity` (toggle, page, indexOf, every edit kind naming the
#     unfiltered view and a kept filtered one, a batch of 1,000) on 88K and 797K nodes with four
#     filtered views kept, in one process;
#  2. the service: the same edits over HTTP on sessions of both sizes with four filtered views
#     kept (scripts/lib/http_complexity.py).
# Each prints the table it measured and fails when an op's median grows more than 3x across
# the 9x larger tree (O(log n) grows well under 2x, O(n) about 9x).
#
# Usage: scripts/check-complexity.sh   (PORT=18097)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
PORT="${PORT:-18097}"
. scripts/lib/side-by-side.sh

build_release
start_scratch

echo "-- the engine"
"$bin/tree-bench" --complexity

echo "-- the service"
"$bin/tree-bench" --emit 88K >"$tmp/88K.json"
"$bin/tree-bench" --emit 797K >"$tmp/797K.json"
"$server" --port "$PORT" --access-log false --data-dir none >"$tmp/server.log" 2>&1 &
pids+=($!)
wait_for_url "http://127.0.0.1:$PORT/healthz"
python3 scripts/lib/http_complexity.py "$PORT" "$tmp" || { tail -20 "$tmp/server.log"; exit 1; }
