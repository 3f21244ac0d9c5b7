#!/usr/bin/env bash
# Makes Fixtures/release-1-data: a data directory written by a release whose journal records
# are requests (record format 1), with one change of every route, and the answers that
# release gave (expected/), for ReleaseDataTests. Run once with that release's tree-server:
#   TREE_SERVER=/path/to/old/tree-server Tests/TreeServiceTests/Fixtures/make-release-data.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="$here/release-1-data"
server=${TREE_SERVER:?the tree-server of the release that writes the data}
rm -rf "$out" && mkdir -p "$out/expected"
port=$((20000 + RANDOM % 20000))
"$server" --port "$port" --data-dir "$out/data" --fsync always --access-log false --session-ttl 0 >/dev/null 2>&1 &
pid=$!
trap 'kill -9 $pid 2>/dev/null || true' EXIT
base="http://127.0.0.1:$port"
for _ in $(seq 100); do curl -sf "$base/healthz" >/dev/null && break; sleep 0.1; done
call() { # method path [content-type body]
  if [ $# -ge 4 ]; then curl -sS -X "$1" -H "Content-Type: $3" --data-binary "$4" "$base$2"; else curl -sS -X "$1" "$base$2"; fi
  echo
}
sid=$(call POST /sessions application/json '{"nodes":[{"id":"a","title":"Alpha","children":[{"id":"a1","title":"Alpha one"},{"id":"a2","title":"Alpha two","data":{"n":1}}]},{"id":"b","title":"Beta","children":[{"id":"b1","title":"Beta one"}]},{"id":"c","title":"Gamma"}]}' \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
s="/sessions/$sid"
{
call PATCH "$s" application/json '{"expandAll":true}'
call PATCH "$s/items/b" application/json '{"expanded":false}'
call POST "$s/items" application/json '{"nodes":[{"title":"no id","children":[{"title":"no id child"}]},{"id":"d","title":"Delta"}],"parentId":"a","index":1}'
call POST "$s/items" text/csv $'id,parentId,title\nr1,c,Row one\nr2,r1,Row two\n'
call POST "$s/items" application/x-ndjson $'{"id":"n1","parentId":"b","title":"Line one"}\n{"id":"n2","parentId":"n1","title":"Line two","data":[1,2]}\n'
call POST "$s/items?parentId=c" 'text/plain; format=paths' $'x/y\nx/z\n'
call POST "$s/batch" application/json '{"operations":[{"op":"insert","nodes":[{"title":"batch new"}],"parentId":"c"},{"op":"move","id":"a2","parentId":"b","index":0},{"op":"update","id":"a1","title":"Alpha one (renamed)","data":{"k":"v"}},{"op":"delete","id":"n2"},{"op":"expand","id":"b","expanded":true},{"op":"reveal","id":"r2"},{"op":"expandDepth","expandDepth":2}]}'
call PATCH "$s/items/a?filter=alpha" application/json '{"expanded":false}'
call GET "$s/rows?filter=line&offset=0&limit=50"
call PATCH "$s/items/d" application/json '{"parentId":null}'
call DELETE "$s/items/c"
call POST "$s/batch" application/json '{"operations":[]}'
} > "$out/expected/answers.txt"
call GET "$s" > "$out/expected/session.json"
call GET "$s/tree" > "$out/expected/tree.json"
call GET "$s/rows?offset=0&limit=100" > "$out/expected/rows.json"
call GET "$s/rows?filter=alpha&offset=0&limit=100" > "$out/expected/rows-alpha.json"
call GET "$s/rows?filter=line&offset=0&limit=100" > "$out/expected/rows-line.json"
kill -9 $pid
wait $pid 2>/dev/null || true
echo "$sid" > "$out/expected/session-id.txt"
ls -la "$out/data/sessions/$sid"
