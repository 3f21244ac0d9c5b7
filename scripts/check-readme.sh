#!/usr/bin/env bash
# The README's curl tour is a test: starts tree-server on a free loopback port (memory only, no
# access log), runs Tests/Python/Readme/test_readme_tour.py against it (every ```sh block of
# the section "A session with curl", in order, in one bash, from a fresh copy of the checkout, each
# command's output compared with the `# ` lines the README shows after it), stops the server.
# Exits non-zero when a command fails or prints something else, naming it.
#
#   scripts/check-readme.sh
#   TREE_SERVER=.build/release/tree-server scripts/check-readme.sh
#   scripts/check-readme.sh -v --readme FILE     arguments go to the test: name every command
#                                                that passed; check another copy of the README
#
# Environment:
#   TREE_SERVER   tree-server binary (default: `swift build --product tree-server`, then
#                 `$(swift build --show-bin-path)/tree-server`)
#   PYTHON        Python 3 interpreter (default python3; standard library only)
# Needs curl, git and python3 (the tour uses all three).
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONDONTWRITEBYTECODE=1
log() { printf '== %s\n' "$*" >&2; }

if [ -z "${TREE_SERVER:-}" ]; then
    swift build --product tree-server
    TREE_SERVER="$(swift build --show-bin-path)/tree-server"
fi
[ -x "$TREE_SERVER" ] || { log "no tree-server at $TREE_SERVER"; exit 1; }

scratch="$(mktemp -d)"
server=""
stop() {
    if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
        kill -TERM "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
    fi
    rm -rf "$scratch"
}
trap stop EXIT

# --port 0: the kernel picks a free port, which the server names in its "listening on" line.
"$TREE_SERVER" --host 127.0.0.1 --port 0 --data-dir none --access-log false >"$scratch/server.log" 2>&1 &
server=$!
port=""
for _ in $(seq 400); do
    port="$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$scratch/server.log" | head -n 1)"
    [ -n "$port" ] && break
    kill -0 "$server" 2>/dev/null || { log "tree-server exited:"; cat "$scratch/server.log" >&2; exit 1; }
    sleep 0.05
done
[ -n "$port" ] || { log "tree-server did not report its port:"; cat "$scratch/server.log" >&2; exit 1; }
log "tree-server on port $port ($TREE_SERVER)"

status=0
"${PYTHON:-python3}" Tests/Python/Readme/test_readme_tour.py --url "http://127.0.0.1:$port" "$@" || status=1
if ! kill -0 "$server" 2>/dev/null; then
    log "tree-server died during the tour:"; cat "$scratch/server.log" >&2; status=1
fi
[ "$status" -eq 0 ] && log "README tour: OK" || log "README tour: FAILED"
exit "$status"
