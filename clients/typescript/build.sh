#!/bin/sh
# Builds the client: regenerates src/api.ts from openapi.yaml and compiles src/ to dist/
# (ES modules and .d.ts). Needs python3 with PyYAML and tsc (Debian: apt-get install node-typescript).
#   clients/typescript/build.sh          regenerate and compile into dist/
#   clients/typescript/build.sh --check  fail when src/api.ts or dist/ is not what they would be
set -eu
cd "$(dirname "$0")"
if [ "${1:-}" = "--check" ]; then
  python3 tools/generate.py --check
  scratch="$(mktemp -d)"
  trap 'rm -rf "$scratch"' EXIT
  tsc -p . --outDir "$scratch/dist"
  if ! diff -r "$scratch/dist" dist >/dev/null; then
    diff -r "$scratch/dist" dist | head -20 >&2
    echo "dist/ is not what tsc compiles from src/: run clients/typescript/build.sh" >&2
    exit 1
  fi
  echo "dist/ is current"
  exit 0
fi
python3 tools/generate.py
rm -rf dist
tsc -p .
