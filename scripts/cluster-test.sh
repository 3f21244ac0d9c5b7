#!/usr/bin/env bash
# The cluster of scripts/cluster.sh (instances a, b, c behind nginx), checked end to end with
# real processes: deploy/nginx.conf is the template's rendering of deploy/instances; `up`; 30
# sessions created through nginx land on all three instances; the API through the proxy
# (rows, expand, filter, edits, batch, ETag / If-None-Match / If-Match, the demo and its
# files); a 100 MB upload and its streamed export, byte for byte the instance's; `kill b`:
# b's sessions answer 503 problem+json with Retry-After while a's and c's go on; `restart b`:
# every session of b is back at its version; `down`. The checks: scripts/lib/cluster_check.py.
#
# Usage: scripts/cluster-test.sh   (TREE_SERVER=a built tree-server, default a release build;
#        CLUSTER_PORT default 18088; BIG_NODES nodes of the big upload, default 1050000)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

echo "== deploy/nginx.conf is deploy/nginx.conf.template rendered for deploy/instances"
if ! deploy/render-nginx.sh deploy/instances | diff -u deploy/nginx.conf - ; then
  echo "FAIL: deploy/nginx.conf is not the rendering of the template: deploy/render-nginx.sh deploy/instances >deploy/nginx.conf" >&2
  exit 1
fi

[ -x /usr/sbin/nginx ] || scripts/cluster.sh install
mkdir -p "${TMPDIR:-/tmp}/cluster-test-nginx"
/usr/sbin/nginx -t -q -p "${TMPDIR:-/tmp}/cluster-test-nginx" -c "$PWD/deploy/nginx.conf" -e /dev/null \
  -g "pid ${TMPDIR:-/tmp}/cluster-test-nginx/nginx.pid;"
rm -rf "${TMPDIR:-/tmp}/cluster-test-nginx"
echo "   and nginx accepts it"

if [ -z "${TREE_SERVER:-}" ]; then
  swift build -c release --product tree-server 2>&1 | tail -1
  TREE_SERVER="$(swift build -c release --show-bin-path)/tree-server"
fi
export TREE_SERVER
export CLUSTER_PORT="${CLUSTER_PORT:-18088}"
export CLUSTER_DIR
CLUSTER_DIR="$(mktemp -d)"
# On failure the logs stay (the instances' a/log, b/log, c/log; nginx/error.log, access.log).
trap 'status=$?; scripts/cluster.sh down || true
      if [ $status = 0 ]; then rm -rf "$CLUSTER_DIR"; else echo "logs kept in $CLUSTER_DIR" >&2; fi' EXIT

echo "== up"
base=$(scripts/cluster.sh up | tail -1)
/usr/sbin/nginx -t -q -p "$CLUSTER_DIR/nginx" -c "$CLUSTER_DIR/nginx/nginx.conf" -e "$CLUSTER_DIR/nginx/error.log" -g "pid $CLUSTER_DIR/nginx/test.pid;"
echo "== checks through $base"
python3 scripts/lib/cluster_check.py "$base" "$CLUSTER_DIR" "$TREE_SERVER"
echo "== down"
