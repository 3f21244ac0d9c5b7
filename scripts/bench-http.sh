#!/usr/bin/env bash
# HTTP1 against nginx: the same ~190-byte JSON from both, wrk with 64 keep-alive
# connections and 2 threads, same duration, one run after the other, loopback only.
#
# Usage: scripts/bench-http.sh            (DURATION=10 CONNECTIONS=64 THREADS=2 by default)
# Needs root for apt-get if wrk or nginx are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION="${DURATION:-10}"
CONNECTIONS="${CONNECTIONS:-64}"
THREADS="${THREADS:-2}"
OURS_PORT="${OURS_PORT:-18080}"
NGINX_PORT="${NGINX_PORT:-18081}"
SCRATCH="${SCRATCH:-.build-http}"
. scripts/lib/side-by-side.sh
install_bench_tools

swift build -c release --product http-bench-server --scratch-path "$SCRATCH" 2>&1 | tail -1
bin="$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/http-bench-server"

start_scratch

"$bin" --host 127.0.0.1 --port "$OURS_PORT" >"$tmp/ours.log" 2>&1 &
pids+=($!)
wait_for_url "http://127.0.0.1:$OURS_PORT/"
# nginx serves exactly the bytes our server sends.
curl -s "http://127.0.0.1:$OURS_PORT/" >"$tmp/payload.json"
serve_with_nginx "$tmp/payload.json" "$NGINX_PORT"

ours_bytes=$(curl -s "http://127.0.0.1:$OURS_PORT/" | wc -c)
nginx_bytes=$(curl -s "http://127.0.0.1:$NGINX_PORT/" | wc -c)
echo "payload: ours $ours_bytes bytes, nginx $nginx_bytes bytes; $(nproc) cores"
if [ "$ours_bytes" != "$nginx_bytes" ]; then echo "payloads differ" >&2; exit 1; fi

echo "wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s (after a 2 s warm-up each)"
wrk_run ours "http://127.0.0.1:$OURS_PORT/"
wrk_run nginx "http://127.0.0.1:$NGINX_PORT/"
echo "ratio ours/nginx: $(ratio ours nginx) (goal >= 0.6)"
