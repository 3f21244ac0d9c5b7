#!/usr/bin/env bash
# Three tree-server instances (a, b, c) behind nginx on this machine, as deploy/compose.yaml
# runs them in containers: same proxy configuration (deploy/nginx.conf.template, rendered by
# deploy/render-nginx.sh), same instance names, one data directory each.
#
#   scripts/cluster.sh up            build (release), start a, b, c and nginx; prints the base
#                                    URL on its last line once every instance answers /healthz
#                                    through the proxy
#   scripts/cluster.sh kill NAME     SIGKILL instance NAME
#   scripts/cluster.sh restart NAME  stop NAME if it runs (SIGTERM), start it again on the same
#                                    data directory; returns once it answers through the proxy
#   scripts/cluster.sh down          stop everything `up` started (the data stays in $CLUSTER_DIR)
#   scripts/cluster.sh install       install Debian's nginx and curl if missing (`up` does it too)
#
# Environment: CLUSTER_PORT (nginx, default 8088; the instances listen on the three ports
# after it), CLUSTER_DIR (data directories, pids, logs, the rendered nginx.conf; default
# $TMPDIR/tree-cluster-$CLUSTER_PORT, so that later subcommands find it), TREE_SERVER (a
# built tree-server; default: a release build), CLUSTER_ACCESS_LOG (nginx's access log, default
# $CLUSTER_DIR/nginx/access.log; off for none). Other TREE_* variables reach the instances.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

NGINX=/usr/sbin/nginx
CLUSTER_PORT="${CLUSTER_PORT:-8088}"
CLUSTER_DIR="${CLUSTER_DIR:-${TMPDIR:-/tmp}/tree-cluster-$CLUSTER_PORT}"
INSTANCES=(a b c)
BASE="http://127.0.0.1:$CLUSTER_PORT"

say() { echo "cluster: $*" >&2; }
die() { say "$*"; exit 1; }

port_of() {
  local i
  for i in "${!INSTANCES[@]}"; do
    [ "${INSTANCES[$i]}" = "$1" ] && { echo $((CLUSTER_PORT + 1 + i)); return; }
  done
  die "no instance $1 (the instances are ${INSTANCES[*]})"
}

# The pid in FILE if that process runs; fails otherwise.
running_pid() {
  local pid
  [ -s "$1" ] || return 1
  pid=$(cat "$1")
  kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

# wait_gone PID: until the process has exited (10 s at most).
wait_gone() {
  for _ in $(seq 200); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.05
  done
  die "process $1 did not exit"
}

# wait_healthy NAME: until instance NAME answers /healthz through nginx (30 s at most).
wait_healthy() {
  for _ in $(seq 300); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/instances/$1/healthz")" = 200 ] && return 0
    running_pid "$CLUSTER_DIR/$1/pid" >/dev/null || die "instance $1 exited; its log, $CLUSTER_DIR/$1/log, ends with: $(tail -3 "$CLUSTER_DIR/$1/log")"
    sleep 0.1
  done
  die "instance $1 does not answer /healthz through nginx at $BASE"
}

tree_server_binary() {
  if [ -n "${TREE_SERVER:-}" ]; then
    echo "$TREE_SERVER"
  else
    swift build -c release --product tree-server 2>&1 | tail -1 >&2
    echo "$(swift build -c release --show-bin-path)/tree-server"
  fi
}

start_instance() {
  local name=$1 dir="$CLUSTER_DIR/$1"
  running_pid "$dir/pid" >/dev/null && die "instance $name runs already (pid $(cat "$dir/pid"))"
  mkdir -p "$dir"
  # From the checkout (where the demo and openapi.yaml are served from, as with `swift run`).
  # setsid: the instance outlives this script and is not hit by a ^C in its terminal.
  setsid "$(cat "$CLUSTER_DIR/tree-server")" --instance "$name" --host 127.0.0.1 --port "$(port_of "$name")" \
    --data-dir "$dir/data" </dev/null >>"$dir/log" 2>&1 &
  echo $! >"$dir/pid"
}

stop_instance() {
  local pid
  if pid=$(running_pid "$CLUSTER_DIR/$1/pid"); then
    kill "$2" "$pid"
    wait_gone "$pid"
  fi
  rm -f "$CLUSTER_DIR/$1/pid"
}

# Debian's nginx and curl, when missing (as root).
install() {
  local missing=()
  [ -x "$NGINX" ] || missing+=(nginx)
  command -v curl >/dev/null || missing+=(curl)
  [ "${#missing[@]}" -eq 0 ] && return
  say "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

up() {
  install
  running_pid "$CLUSTER_DIR/nginx/nginx.pid" >/dev/null && die "a cluster runs already in $CLUSTER_DIR ($BASE); scripts/cluster.sh down first"
  local server
  server=$(tree_server_binary)
  [ -x "$server" ] || die "no tree-server at $server"
  mkdir -p "$CLUSTER_DIR/nginx"
  echo "$server" >"$CLUSTER_DIR/tree-server"
  # The proxy's configuration: the template rendered for these addresses.
  local name
  for name in "${INSTANCES[@]}"; do echo "$name 127.0.0.1:$(port_of "$name")"; done >"$CLUSTER_DIR/instances"
  deploy/render-nginx.sh --listen "127.0.0.1:$CLUSTER_PORT" --access-log "${CLUSTER_ACCESS_LOG:-$CLUSTER_DIR/nginx/access.log}" \
    "$CLUSTER_DIR/instances" >"$CLUSTER_DIR/nginx/nginx.conf"
  # Whatever goes wrong from here stops what was started.
  trap 'say "up failed; stopping what it started"; down' EXIT
  for name in "${INSTANCES[@]}"; do start_instance "$name"; done
  "$NGINX" -p "$CLUSTER_DIR/nginx" -c "$CLUSTER_DIR/nginx/nginx.conf" -e "$CLUSTER_DIR/nginx/error.log" \
    -g "pid $CLUSTER_DIR/nginx/nginx.pid;" || die "nginx did not start: $(tail -1 "$CLUSTER_DIR/nginx/error.log")"
  for name in "${INSTANCES[@]}"; do wait_healthy "$name"; done
  trap - EXIT
  say "instances ${INSTANCES[*]} on ports $((CLUSTER_PORT + 1))-$((CLUSTER_PORT + ${#INSTANCES[@]})), data and logs in $CLUSTER_DIR"
  echo "$BASE"
}

down() {
  local name pid
  for name in "${INSTANCES[@]}"; do stop_instance "$name" -TERM; done
  if pid=$(running_pid "$CLUSTER_DIR/nginx/nginx.pid"); then
    kill -QUIT "$pid"
    wait_gone "$pid"
  fi
  say "stopped; data and logs stay in $CLUSTER_DIR"
}

case "${1:-}" in
  up) up ;;
  install) install ;;
  kill) [ $# -eq 2 ] || die "usage: $0 kill NAME"; port_of "$2" >/dev/null; stop_instance "$2" -KILL ;;
  restart)
    [ $# -eq 2 ] || die "usage: $0 restart NAME"
    port_of "$2" >/dev/null
    [ -s "$CLUSTER_DIR/tree-server" ] || die "no cluster in $CLUSTER_DIR: scripts/cluster.sh up first"
    stop_instance "$2" -TERM
    start_instance "$2"
    wait_healthy "$2"
    ;;
  down) down ;;
  *) sed -n '2,19p' "$0" >&2; exit 2 ;;
esac
