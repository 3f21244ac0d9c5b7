#!/bin/sh
# Renders deploy/nginx.conf.template for a list of instances, on stdout:
#
#   deploy/render-nginx.sh [--listen ADDRESS] [--access-log PATH|off] INSTANCES >nginx.conf
#
# INSTANCES is a file of `NAME HOST:PORT` lines (blank lines and # comments ignored), one
# per tree-server instance, NAME its --instance. Defaults: --listen 8080, --access-log
# /dev/stdout. POSIX sh and awk, so that it runs in any nginx image as well as here.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
listen=8080
access_log=/dev/stdout
while [ $# -gt 1 ]; do
  case "$1" in
    --listen) listen=$2; shift 2 ;;
    --access-log) access_log=$2; shift 2 ;;
    *) break ;;
  esac
done
if [ $# -ne 1 ] || [ ! -r "$1" ]; then
  echo "usage: $0 [--listen ADDRESS] [--access-log PATH|off] INSTANCES-FILE" >&2
  exit 2
fi

awk -v listen="$listen" -v access_log="$access_log" -v list="$1" '
  BEGIN {
    while ((getline line < list) > 0) {
      sub(/#.*/, "", line); sub(/^[ \t]+/, "", line); sub(/[ \t]+$/, "", line)
      n = split(line, field, /[ \t]+/)
      if (n == 0) continue
      if (n != 2 || field[1] !~ /^[a-z0-9-]+$/ || length(field[1]) > 32 || field[2] !~ /^[^ ;{}]+:[0-9]+$/) {
        print "render-nginx: not a `NAME HOST:PORT` line of " list ": " line > "/dev/stderr"; exit 2
      }
      if (field[1] in seen) { print "render-nginx: instance " field[1] " is listed twice in " list > "/dev/stderr"; exit 2 }
      seen[field[1]] = 1
      count++; name[count] = field[1]; address[count] = field[2]
    }
    if (count == 0) { print "render-nginx: no instance in " list > "/dev/stderr"; exit 2 }
  }
  /@INSTANCES@/ {
    print "    # One upstream per instance; moving an instance changes its server line (and the pool'"'"'s)."
    for (i = 1; i <= count; i++) {
      print "    upstream tree_" name[i] " {"
      print "        server " address[i] ";"
      print "        keepalive 64;"
      print "        keepalive_timeout 50s;  # closes idle connections before the instance does (--idle-timeout 60)"
      print "    }"
    }
    print "    # New sessions: any instance, the one with the fewest active connections."
    print "    upstream tree_any {"
    print "        least_conn;"
    for (i = 1; i <= count; i++) print "        server " address[i] ";  # " name[i]
    print "        keepalive 32;"
    print "        keepalive_timeout 50s;"
    print "    }"
    print "    # The upstream of each instance name; \"\": a name of no instance here."
    print "    map $tree_named_instance $tree_upstream {"
    for (i = 1; i <= count; i++) print "        " name[i] "   tree_" name[i] ";"
    print "        default \"\";"
    print "    }"
    next
  }
  { gsub(/@LISTEN@/, listen); gsub(/@ACCESS_LOG@/, access_log); print }
' "$here/nginx.conf.template"
