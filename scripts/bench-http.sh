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
NGINX=/usr/sbin/nginx

missing=()
command -v wrk >/dev/null || missing+=(wrk)
[ -x "$NGINX" ] || missing+=(nginx)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

swift build -c release --product http-bench-server --scratch-path "$SCRATCH" 2>&1 | tail -1
bin="$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/http-bench-server"

tmp="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

wait_for_port() {
  for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0
    sleep 0.1
  done
  echo "nothing answers on port $1" >&2
  exit 1
}

"$bin" --host 127.0.0.1 --port "$OURS_PORT" >"$tmp/ours.log" 2>&1 &
pids+=($!)
wait_for_port "$OURS_PORT"
# nginx serves exactly the bytes our server sends.
curl -s "http://127.0.0.1:$OURS_PORT/" >"$tmp/payload.json"
chmod 755 "$tmp"  # nginx workers run as www-data
chmod 644 "$tmp/payload.json"

cat >"$tmp/nginx.conf" <<CONF
worker_processes auto;
daemon off;
pid $tmp/nginx.pid;
error_log $tmp/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 10000;
  open_file_cache max=16;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    location / {
      root $tmp;
      default_type application/json;
      try_files /payload.json =404;
    }
  }
}
CONF
"$NGINX" -c "$tmp/nginx.conf" -e "$tmp/nginx-error.log" &
pids+=($!)
wait_for_port "$NGINX_PORT"

ours_bytes=$(curl -s "http://127.0.0.1:$OURS_PORT/" | wc -c)
nginx_bytes=$(curl -s "http://127.0.0.1:$NGINX_PORT/" | wc -c)
echo "payload: ours $ours_bytes bytes, nginx $nginx_bytes bytes; $(nproc) cores"
if [ "$ours_bytes" != "$nginx_bytes" ]; then echo "payloads differ" >&2; exit 1; fi

run() {  # name port -> prints "req/s p99"
  wrk -t"$THREADS" -c"$CONNECTIONS" -d2s "http://127.0.0.1:$2/" >/dev/null  # warm-up
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "http://127.0.0.1:$2/" >"$tmp/$1.txt"
  local rps p99
  rps=$(awk '/^Requests\/sec:/ {print $2}' "$tmp/$1.txt")
  p99=$(awk '$1 == "99%" {print $2}' "$tmp/$1.txt")
  local errors
  errors=$(grep -E "Non-2xx|Socket errors" "$tmp/$1.txt" || true)
  printf "%-6s %12s req/s   p99 %8s   %s\n" "$1" "$rps" "$p99" "$errors"
  echo "$rps" >"$tmp/$1.rps"
}

echo "wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s (after a 2 s warm-up each)"
run ours "$OURS_PORT"
run nginx "$NGINX_PORT"
ratio=$(awk -v a="$(cat "$tmp/ours.rps")" -v b="$(cat "$tmp/nginx.rps")" 'BEGIN { printf "%.2f", a / b }')
echo "ratio ours/nginx: $ratio (goal >= 0.6)"
