# Shared by the bench scripts: install the tools, a scratch directory cleaned up on exit,
# serve a file with nginx on loopback, run wrk against a URL, print the ratio. Source it;
# the caller sets THREADS, CONNECTIONS and DURATION.

NGINX=/usr/sbin/nginx

# Installs wrk, nginx and curl from Debian when missing.
install_bench_tools() {
  local missing=()
  command -v wrk >/dev/null || missing+=(wrk)
  command -v curl >/dev/null || missing+=(curl)
  [ -x "$NGINX" ] || missing+=(nginx)
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

# build_release: release builds of tree-bench and tree-server; sets `bin` (their directory)
# and `server` (tree-server, or $SERVER when set: another binary to measure).
build_release() {
  swift build -c release --product tree-bench 2>&1 | tail -1
  bin="$(swift build -c release --show-bin-path)"
  server="${SERVER:-}"
  if [ -z "$server" ]; then
    swift build -c release --product tree-server 2>&1 | tail -1
    server="$bin/tree-server"
  fi
}

# start_scratch: sets `tmp` (a scratch directory) and `pids` (processes to stop), and
# removes the one and stops the others when the script exits.
start_scratch() {
  tmp="$(mktemp -d)"
  pids=()
  trap cleanup_scratch EXIT
}

cleanup_scratch() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}

# wait_for_url URL: until something answers there (10 s at most).
wait_for_url() {
  for _ in $(seq 100); do
    curl -s -o /dev/null "$1" && return 0
    sleep 0.1
  done
  echo "nothing answers at $1" >&2
  exit 1
}

# serve_with_nginx FILE PORT: nginx answers every path on 127.0.0.1:PORT with FILE
# (which must be in $tmp), as application/json.
serve_with_nginx() {
  local file port
  file=$(basename "$1")
  port=$2
  chmod 755 "$tmp"  # nginx workers run as www-data
  chmod 644 "$tmp/$file"
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
    listen 127.0.0.1:$port;
    location / { root $tmp; default_type application/json; try_files /$file =404; }
  }
}
CONF
  "$NGINX" -c "$tmp/nginx.conf" -e "$tmp/nginx-error.log" &
  pids+=($!)
  wait_for_url "http://127.0.0.1:$port/"
}

# wrk_run NAME URL [WRK ARGS...]: a 2 s warm-up, then the measured run; prints req/s and p99
# and keeps the req/s in $tmp/NAME.rps.
wrk_run() {
  local name=$1 url=$2
  shift 2
  wrk -t"$THREADS" -c"$CONNECTIONS" -d2s "$@" "$url" >/dev/null
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "$@" "$url" >"$tmp/$name.txt"
  local rps p99
  rps=$(awk '/^Requests\/sec:/ {print $2}' "$tmp/$name.txt")
  p99=$(awk '$1 == "99%" {print $2}' "$tmp/$name.txt")
  printf "%-6s %12s req/s   p99 %8s   %s\n" "$name" "$rps" "$p99" "$(grep -E 'Non-2xx|Socket errors' "$tmp/$name.txt" || true)"
  echo "$rps" >"$tmp/$name.rps"
}

# ratio A B: req/s of run A over run B, two decimals.
ratio() {
  awk -v a="$(cat "$tmp/$1.rps")" -v b="$(cat "$tmp/$2.rps")" 'BEGIN { printf "%.2f", a / b }'
}
