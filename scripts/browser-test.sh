#!/usr/bin/env bash
# Browser test of the demo page served at GET /: Debian's chromium driven by Playwright for
# Python (Tests/Python/Browser). Installs what is missing (apt chromium, pip playwright; never
# `playwright install`), builds tree-server and runs the test, which starts the server on a free
# loopback port (Tests/Python/conftest.py) and saves the screenshots to docs/ (demo.png, and
# demo-1280.png and demo-420.png beside it: the 1280 and 420 px wide layouts). Exits non-zero
# on failure.
#
#   scripts/browser-test.sh              # debug build in .build (what CI has already built)
#   SCRATCH_PATH=.build-demo CONFIGURATION=release scripts/browser-test.sh
#   BROWSER_TEST_LARGE=0 scripts/browser-test.sh   # without the 797,160-node tree
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export PATH="/opt/swift/usr/bin:$PATH"
scratch=${SCRATCH_PATH:-.build}
configuration=${CONFIGURATION:-debug}
python=${PYTHON:-python3}
export PYTHONDONTWRITEBYTECODE=1

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

echo "== browser test: dependencies"
chromium_bin=${CHROMIUM:-}
if [ -z "$chromium_bin" ]; then
    chromium_bin=$(command -v chromium || command -v chromium-browser || true)
fi
if [ -z "$chromium_bin" ]; then
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium >/dev/null
    chromium_bin=$(command -v chromium)
fi
"$chromium_bin" --version 2>/dev/null || true
if ! "$python" -c 'import playwright, pytest' 2>/dev/null; then
    if ! "$python" -m pip --version >/dev/null 2>&1; then
        as_root apt-get update -qq
        DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq python3-pip >/dev/null
    fi
    "$python" -m pip install -q -r Tests/Python/Browser/requirements.txt \
        || "$python" -m pip install -q --break-system-packages -r Tests/Python/Browser/requirements.txt
fi

echo "== browser test: build tree-server ($configuration, $scratch)"
swift build --scratch-path "$scratch" -c "$configuration" --product tree-server
server_bin="$(swift build --scratch-path "$scratch" -c "$configuration" --show-bin-path)/tree-server"

echo "== browser test: pytest Tests/Python/Browser (tree-server started by Tests/Python/conftest.py)"
mkdir -p docs
TREE_SERVER="$server_bin" CHROMIUM="$chromium_bin" SCREENSHOT="$root/docs/demo.png" \
    "$python" -m pytest -q Tests/Python/Browser "$@"
