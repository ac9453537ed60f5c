#!/usr/bin/env bash
# tp_plugin/tp_run.sh: run a canned query of queries/ in trace_processor_shell
# and print its document as the sqlite3 shell prints it (the same bytes).
#
#   tp_plugin/tp_run.sh TRACE.pftrace queries/summary.sql [name=value ...] > summary.json
#   trace_processor_shell ... -q script.sql TRACE | tp_plugin/tp_run.sh --unwrap
#
# trace_processor_shell: $TRACE_PROCESSOR_SHELL, else trace_processor_shell
# on PATH. The query is assembled by tp_plugin/tp_query.sh (the settings
# name=value are its) and run with the package (--add-sql-package
# tp_plugin/xplane). `-q` prints each result as CSV without escaping: a
# header line with the column name, then every value in double quotes, one
# row after the other. The canned queries print one text column, so this
# tool drops the header lines and the quotes around each value: a row ends
# where a `"` is followed by a newline and a `"` (one row's end, the next
# one's start), and a result where a `"` is followed by a blank line and a
# quoted header; no document of the canned queries holds either inside a
# value (the JSON is indented; no markdown line starts with a `"` after a
# line ending with one). A NULL would print as [NULL]. --unwrap does only that, on trace_processor_shell -q output read
# from stdin. Exit status: trace processor's (its error message on stderr).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)  # tp_plugin/, or share/xplane/perfetto/ when installed

# -q output -> the values. Each result is a header line (its quoted column
# name) and its rows; results are separated by a blank line. So: the
# headers at the start and every `"<newline><newline>"name"<newline>` (a
# row's end, the blank line, the next header) go, then every row separator
# `"<newline>"` becomes a newline, and the first and last quotes go.
unwrap() {
  perl -0777 -pe 's/\A(?:"[^"\n]*"\n\n)*"[^"\n]*"\n//; s/"\n(?:\n"[^"\n]*"\n)+(?="|\z)/"\n/g;
                  s/"\n"/\n/g; s/\A"//; s/"\n\z/\n/'
}
if [ "${1:-}" = --unwrap ]; then
  unwrap
  exit 0
fi
TP=${TRACE_PROCESSOR_SHELL:-trace_processor_shell}
[ $# -ge 2 ] || { echo "usage: tp_plugin/tp_run.sh TRACE.pftrace QUERY.sql [name=value ...]" >&2; exit 2; }
trace=$1
shift
sql=$(mktemp)
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$sql" "$out" "$err"' EXIT
"$HERE/tp_query.sh" "$@" > "$sql"
rc=0
"$TP" --add-sql-package "$HERE/xplane" -q "$sql" "$trace" > "$out" 2> "$err" || rc=$?
if [ $rc -ne 0 ]; then
  sed -n '/Traceback/,$p' "$err" >&2
  [ -s "$err" ] && ! grep -q Traceback "$err" && cat "$err" >&2
  exit $rc
fi
unwrap < "$out"
