#!/usr/bin/env bash
# Checks the two clients of docs/CLIENTS.md against openapi.yaml and a real tree-server:
#   - the Swift client's models are what clients/swift/generate_models.py makes of openapi.yaml;
#   - the TypeScript client's src/api.ts is what its tools/generate.py makes of it, and dist/ is
#     what `tsc --strict` compiles from src/ (clients/typescript/build.sh --check);
#   - node --test clients/typescript/test/: every test starts its own tree-server ($TREE_SERVER).
# The Swift client's own tests (Tests/TreeSessionsClientTests) run in `swift test`.
# Installs what is missing: PyYAML with pip, Debian's node-typescript (tsc) and nodejs.
#
#   TREE_SERVER=.build/debug/tree-server scripts/check-clients.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH" PYTHONDONTWRITEBYTECODE=1
log() { printf '== %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

export TREE_SERVER="${TREE_SERVER:-$PWD/.build/debug/tree-server}"
[ -x "$TREE_SERVER" ] || { log "no tree-server at $TREE_SERVER: swift build --product tree-server"; exit 1; }

python3 -c 'import yaml' 2>/dev/null || python3 -m pip install --quiet --disable-pip-version-check pyyaml
missing=()
command -v node >/dev/null || missing+=(nodejs)
command -v tsc >/dev/null || missing+=(node-typescript)
if [ "${#missing[@]}" -gt 0 ]; then
    log "installing ${missing[*]}"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi

log "Swift client: Sources/TreeSessionsClient/Generated/Models.swift against openapi.yaml"
python3 clients/swift/generate_models.py --check

log "TypeScript client: src/api.ts against openapi.yaml, dist/ against tsc $(tsc --version)"
clients/typescript/build.sh --check

log "TypeScript client: node --test against $TREE_SERVER"
node --test clients/typescript/test/

log "clients: OK"
