#!/usr/bin/env bash
# tp_plugin/tp_query.sh: a canned query of queries/ as one SQL script for
# trace processor (trace_processor_shell, the Python TraceProcessor, Batch
# Trace Processor).
#
#   tp_plugin/tp_query.sh queries/summary.sql [name=value ...] > summary.tp.sql
#   trace_processor_shell --add-sql-package tp_plugin/xplane -q summary.tp.sql host0.pftrace
#
# The query files are written for the sqlite3 shell, and their SQL reads the
# tables by name (xplane_tracks, xplane_op_names, ...), which the
# PerfettoSQL package defines too. This tool only assembles, it changes no
# SQL: it inlines the `.read` files (paths relative to the repository root,
# as the queries write them), drops dot-commands (`.mode`, `.bail`, ...) and
# the files marked `-- sqlite3-only:` in their first lines (the shell's
# bindings: queries/lib/params.sql, queries/lib/use_profile.sql), and starts
# the script with `INCLUDE PERFETTO MODULE xplane.summary;` (or
# xplane.reports, which adds xplane.xprof, when the query names one of its
# tables: xplane_memory, xplane_memory_peaks, xplane_devices,
# xplane_hlo_stats, xplane_kernel_stats; trace processor builds every table
# of an included module, so the summary includes only what it reads) and the settings:
# each name=value (as `.parameter set @name value` would set it: warmup_steps,
# hot_op_limit, breakdown_mode, top_k, op, format) becomes a row of
# temp.xq_params; name=@file stores the text of the file (the two summary
# documents of compare_summaries.sql).
# A query marked sqlite3-only itself (compare, track, history, runs_join) is
# refused with the reason. Run it from anywhere; output goes to stdout.
set -euo pipefail

# ROOT holds queries/: the repository (this file in tp_plugin/), or, installed
# (`cmake --install`: share/xplane/perfetto/tp_query.sh), share/xplane, whose
# query files name each other by absolute, quoted path (.read '/.../x.sql').
ROOT=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "tp_query.sh: $*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: tp_plugin/tp_query.sh QUERY.sql [name=value ...]"
query=$1
shift
[ -f "$query" ] || query=$ROOT/$query
[ -f "$query" ] || die "$query: no such query file"

# The reason a file is sqlite3-only (empty when it runs on both engines).
sqlite_only() { sed -n '1,4s/^-- sqlite3-only: //p' "$1" | head -1; }

# A text as an SQL string literal.
quote() { printf "'%s'" "${1//\'/\'\'}"; }

# A value as an SQL literal: integers and decimals as numbers, else text.
literal() {
  if [[ $1 =~ ^-?[0-9]+$ || $1 =~ ^-?[0-9]*\.[0-9]+([eE][-+]?[0-9]+)?$ ]]; then
    printf '%s' "$1"
  else
    quote "$1"
  fi
}

# emit FILE: the file with its `.read` files inlined (recursively), the
# sqlite3-only ones and the dot-commands left out. One awk process, not a
# bash loop per line: the summary's 750 lines took 70 ms of CPU that way,
# a sixth of the package's own CPU on the TPU profile (now 20 ms).
emit() {
  awk -v root="$ROOT" '
    function only(path,   l, i, r) {
      r = 0
      for (i = 1; i <= 4 && (getline l < path) > 0; i++)
        if (index(l, "-- sqlite3-only: ") == 1) { r = 1; break }
      close(path)
      return r
    }
    function emit(file,   line, inc, path, t) {
      while ((getline line < file) > 0) {
        if (line ~ /^\.read[ \t]+[^ \t]/) {
          inc = line
          sub(/^\.read[ \t]+/, "", inc)
          if (substr(inc, 1, 1) == "\047") { sub(/^\047/, "", inc); sub(/\047.*$/, "", inc) }
          else sub(/[ \t].*$/, "", inc)
          path = substr(inc, 1, 1) == "/" ? inc : root "/" inc
          if ((getline t < path) < 0) {
            print "tp_query.sh: " file ": .read " inc ": no such file" | "cat 1>&2"
            exit 2
          }
          close(path)
          if (only(path)) print "-- (" inc ": sqlite3 shell only, left out)"
          else emit(path)
        } else if (substr(line, 1, 1) != ".") {
          print line
        }
      }
      close(file)
    }
    BEGIN { emit(ARGV[1]); exit 0 }
  ' "$1"
}

reason=$(sqlite_only "$query")
[ -z "$reason" ] || die "$(basename "$query") runs in the sqlite3 shell only: $reason"

body=$(emit "$query")
module=xplane.summary
if grep -Eq '\bxplane_(memory|memory_peaks|devices|hlo_stats|kernel_stats)\b' <<< "$body"; then module=xplane.reports; fi
echo "-- $(basename "$query") for trace processor, assembled by tp_plugin/tp_query.sh."
echo "--   trace_processor_shell --add-sql-package tp_plugin/xplane -q THIS_FILE host.pftrace"
echo "INCLUDE PERFETTO MODULE $module;"
echo "DROP TABLE IF EXISTS temp.xq_params;"
echo "CREATE TEMP TABLE xq_params(name TEXT PRIMARY KEY, value);"
for kv in "$@"; do
  [[ $kv =~ ^([a-z_]+)=(.*)$ ]] || die "$kv: expected name=value"
  name=${BASH_REMATCH[1]} value=${BASH_REMATCH[2]}
  if [[ $value == @* ]]; then   # name=@file: the file's text
    [ -r "${value#@}" ] || die "$kv: cannot read ${value#@}"
    value=$(quote "$(cat "${value#@}")")
  else
    value=$(literal "$value")
  fi
  echo "INSERT INTO xq_params VALUES ('$name', $value);"
done
printf '%s\n' "$body"
