#!/usr/bin/env bash
# Builds the HTTP/1.1 request parser fuzzer (libFuzzer + AddressSanitizer) and runs it.
# Usage: Fuzz/run.sh [seconds=60] [extra libFuzzer flags...]
# Output (binary, working corpus, crash files) goes to Fuzz/out/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
out=Fuzz/out
mkdir -p "$out/corpus"
cp -n Fuzz/corpus/* Fuzz/regressions/* "$out/corpus/" 2>/dev/null || true

sources=(
  Sources/HTTP1/Parsing/*.swift
  Sources/HTTP1/Message/HTTPHeaders.swift
  Sources/HTTP1/Message/HTTPVersion.swift
  Sources/HTTP1/Message/HTTPRequest.swift
  Sources/HTTP1/Server/HTTPConnection.swift
  Sources/HTTP1/Server/MemoryBudget.swift
  Sources/HTTP1/Server/MonotonicInstant.swift
  Fuzz/ParserFuzz.swift
)
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -D TREE_INVARIANTS -module-name HTTP1Fuzz \
  "${sources[@]}" -o "$out/http-parser-fuzz"

cd "$out"
# -max_len 4096: requests large enough to cross every (fuzz-sized) limit.
./http-parser-fuzz -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 \
  -artifact_prefix=./ corpus "$@"
