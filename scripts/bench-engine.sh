#!/usr/bin/env bash
# The engine before and after a change, side by side in one run: tree-bench built in release
# twice, from the engine of two git revisions and this checkout's Sources/tree-bench and
# process setup (TreeProcess, CTreeSystem) both times (so both measure the same way, on the same pages: the bench
# must compile against both engines), then run
# alternately (before, after, after, before, ...: each data set in a fresh process), and the
# median over the rounds of each op's median printed for both, with after/before ratios.
#
# Usage: scripts/bench-engine.sh [BEFORE [AFTER]]     (revisions; default 348754a HEAD)
#   SIZE=7.2M ROUNDS=3
#   BEFORE_ARGS / AFTER_ARGS: tree-bench options of each side; both default to
#     "--edits 5 --batch 1000 --batch-singles 100" (the engine of 348754a edits in O(n)), so
#     both sides make the very same edits (same seed) and the `.edited` reads run on the same
#     tree. tree-bench's own defaults (--edits 21 --batch 50000) are for the new engine alone.
#   Reads only (more rounds, for the figures that must not get slower):
#     BEFORE_ARGS="--edits 0" ROUNDS=7 scripts/bench-engine.sh
#   BUILDS=DIR keeps the two builds there (keyed by revision and bench sources) and reuses them;
#     by default they go to a scratch directory removed at exit.
# One release build at a time; 7.2M takes about 2 minutes a round and 1 GB of memory.
set -euo pipefail
cd "$(dirname "$0")/.."

BEFORE="${1:-348754a}"
AFTER="${2:-HEAD}"
SIZE="${SIZE:-7.2M}"
ROUNDS="${ROUNDS:-3}"
BEFORE_ARGS="${BEFORE_ARGS:---edits 5 --batch 1000 --batch-singles 100}"
AFTER_ARGS="${AFTER_ARGS:-$BEFORE_ARGS}"
export PATH="/opt/swift/usr/bin:$PATH"
. scripts/lib/side-by-side.sh
start_scratch
builds="${BUILDS:-$tmp/builds}"
mkdir -p "$builds"

bench_hash=$(cat Sources/tree-bench/*.swift Sources/TreeProcess/*.swift Sources/CTreeSystem/*.c Sources/CTreeSystem/include/* | sha1sum | cut -c1-12)

# build REV: prints the path of a release tree-bench with REV's engine and this checkout's bench.
build() {
  local rev dir
  rev=$(git rev-parse --short=12 "$1^{commit}")
  dir="$builds/$rev-$bench_hash"
  if [ ! -x "$dir/tree-bench" ]; then
    rm -rf "$dir" && mkdir -p "$dir/src"
    git archive "$rev" | tar -x -C "$dir/src"
    rm -rf "$dir/src/Sources/tree-bench"
    cp -R Sources/tree-bench "$dir/src/Sources/"
    # The bench's process setup (TreeProcess, CTreeSystem) too: a revision from before they
    # existed gets them, and its manifest the targets.
    rm -rf "$dir/src/Sources/TreeProcess" "$dir/src/Sources/CTreeSystem"
    cp -R Sources/TreeProcess Sources/CTreeSystem "$dir/src/Sources/"
    python3 - "$dir/src/Package.swift" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path).read()
if 'name: "TreeProcess"' not in text:
    text = text.replace("    targets: [\n", '    targets: [\n        .target(name: "CTreeSystem"),\n'
                        '        .target(name: "TreeProcess", dependencies: ["CTreeSystem"]),\n', 1)
    text = re.sub(r'(\.executableTarget\(name: "tree-bench", dependencies: )\[[^\]]*\]',
                  r'\1["TreeEngine", "TreeFormats", "TreeStorage", "TreeProcess"]', text)
    open(path, "w").write(text)
PY
    echo "== building tree-bench: engine of $rev, bench sources $bench_hash" >&2
    swift build -c release --product tree-bench --package-path "$dir/src" --scratch-path "$dir/build" 2>&1 | tail -1 >&2
    cp "$(swift build -c release --package-path "$dir/src" --scratch-path "$dir/build" --show-bin-path)/tree-bench" "$dir/"
  fi
  echo "$dir/tree-bench"
}

before_bin=$(build "$BEFORE")
after_bin=$(build "$AFTER")
before_rev=$(git rev-parse --short "$BEFORE^{commit}")
after_rev=$(git rev-parse --short "$AFTER^{commit}")

echo "== $SIZE, $ROUNDS rounds; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "   before = engine of $before_rev: tree-bench --json --sizes $SIZE $BEFORE_ARGS"
echo "   after  = engine of $after_rev: tree-bench --json --sizes $SIZE $AFTER_ARGS"
for round in $(seq "$ROUNDS"); do
  if [ $((round % 2)) -eq 1 ]; then order="before after"; else order="after before"; fi
  for side in $order; do
    if [ "$side" = before ]; then bin=$before_bin args=$BEFORE_ARGS; else bin=$after_bin args=$AFTER_ARGS; fi
    start=$(date +%s)
    # shellcheck disable=SC2086  # the options are words
    "$bin" --json --sizes "$SIZE" $args >"$tmp/$side.$round.jsonl"
    echo "   round $round $side: $(( $(date +%s) - start )) s"
  done
done

python3 - "$tmp" "$ROUNDS" <<'PY'
import json, statistics, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])

def runs(side):
    out = []
    for r in range(1, rounds + 1):
        ops = {}
        for line in open(f"{tmp}/{side}.{r}.jsonl"):
            o = json.loads(line)
            ops[o["op"]] = o
        out.append(ops)
    return out

sides = {s: runs(s) for s in ("before", "after")}

# (row name, op, field, unit): the figure each round gives; the median over rounds is shown.
reads = ["parse", "collapseAll", "expandAll", "toggle", "page", "indexOf", "filter", "filterTyping", "filterTyping.total"]
rows = [(op, op, "median_s", "s") for op in reads]
rows += [(op + ".edited", op + ".edited", "median_s", "s") for op in ["toggle", "page", "indexOf", "filter"]]
rows += [("insert.first", "insert.first", "median_s", "s")]
for op in ["insert", "delete", "move", "rename"]:
    rows += [(op, op, "median_s", "s"), (op + " p90", op, "p90_s", "s"), (op + ".named", op + ".named", "median_s", "s")]
rows += [("edit.viewsRestore", "edit.viewsRestore", "median_s", "s"),
         ("batch.single mean", "batch.single", "mean_us", "us"),
         ("batch per edit", "batch", "per_edit_us", "us"),
         ("batch total", "batch", "median_s", "s"),
         ("batch edits", "batch", "edits", "n"),
         ("batch ratio", "batch", "ratio", "x")]
rows += [(op, op, "bytes_per_node", "B") for op in ["memory", "memory.views4", "memory.edited", "memory.edited.views4"]]
# Any other op timed (the --formats imports, say), by its median.
listed = {op for _, op, _, _ in rows}
rows += [(op, op, "median_s", "s") for op in sorted({op for side in sides.values() for r in side for op, o in r.items()
                                                     if op not in listed and "median_s" in o})]

def shown(v, unit):
    if v is None: return "-"
    if unit == "us": v, unit = v / 1e6, "s"
    if unit == "s":
        return f"{v*1e6:.2f} µs" if v < 1e-3 else f"{v*1e3:.2f} ms" if v < 1 else f"{v:.3f} s"
    if unit == "B": return f"{v:.1f} B/node"
    if unit == "x": return f"{v:.1f}x"
    return f"{v:,.0f}"

def values(side, op, field):
    return [r[op][field] for r in sides[side] if op in r and field in r[op]]

print(f"{'op':22} {'before':>12} {'after':>12} {'after/before':>13}   rounds' range before | after")
slower = []
for name, op, field, unit in rows:
    b, a = values("before", op, field), values("after", op, field)
    if not b and not a: continue  # not measured with these options
    mb = statistics.median(b) if b else None
    ma = statistics.median(a) if a else None
    ratio = f"{ma / mb:.4g}" if mb and ma is not None and unit not in ("n", "x") else ""
    spread = lambda xs: f"{shown(min(xs), unit)}–{shown(max(xs), unit)}" if len(xs) > 1 else ""
    flag = ""
    # A read is slower beyond noise when every after round is slower than every before round.
    if op.split(".")[0] in reads + ["memory"] and b and a and min(a) > max(b) and ma > 1.05 * mb:
        flag = "  SLOWER"
        slower.append(name)
    print(f"{name:22} {shown(mb, unit):>12} {shown(ma, unit):>12} {ratio:>13}   {spread(b)} | {spread(a)}{flag}")
print("slower than before beyond the rounds' spread: " + (", ".join(slower) if slower else "none"))
PY
