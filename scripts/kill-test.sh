#!/usr/bin/env bash
# The kill test of issue 11 (Tests/Python/Durability/kill_test.py): random changes on several
# sessions from several client threads, SIGKILL of the server at a random moment, restart on the same
# data directory, and every acknowledged change must be there, equal to a memory-only
# reference server in every view the session keeps (a third of the requests go through random
# views, created and deleted at random: issue 35); a change in flight is wholly there or not
# at all. Several seeds; each also runs under --fsync always, batch and off. Exits non-zero on
# any mismatch, printing the seed, the session's step log and the difference.
#
#   scripts/kill-test.sh                 # seeds 1..8 (SEEDS=N for more or fewer)
#   SEED=7 scripts/kill-test.sh          # replay one seed
#
# Environment: TREE_SERVER (default: the debug build, built when missing), SEEDS, SEED, ROUNDS
# (kills per seed, default 3), THREADS (4), SESSIONS (8), VERBOSE=1, S_FLAGS (more flags for the
# durable server), DIFF_ONLY=1 (two memory-only servers compared, no kills). Needs only python3
# (standard library).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH" PYTHONDONTWRITEBYTECODE=1
if [ -z "${TREE_SERVER:-}" ]; then
    swift build --product tree-server 2>&1 | tail -1
    TREE_SERVER="$(swift build --show-bin-path)/tree-server"
fi
export TREE_SERVER
exec python3 Tests/Python/Durability/kill_test.py
