#!/usr/bin/env bash
# tests/test_shell_habits.sh: what a user of the plain sqlite3 shell sees around the canned
# queries (queries/README.md "Shell settings" and "Saved summaries").
#
#   XPLANE_SRC=. XPLANE_BUILD=build bash tests/test_shell_habits.sh
#
# On a generated profile (tools/xplane_gen), every top-level queries/*.sql (found by glob,
# so a new file is covered without editing this test) is run in the shell from the
# repository root, with the parameters it needs, twice: in the shell's defaults, and after
# `.mode box` + `.headers on` (what a ~/.sqliterc may set). Each run must
#   - exit 0 and print the same bytes both times (the files set list mode for their
#     output: it does not depend on the user's settings);
#   - leave no temporary xq_* table, view, index or trigger (sqlite_temp_master);
#   - leave the shell's defaults: `.show` says mode list, headers off; and `.bail` off
#     (a failing statement after it does not stop the next one).
# Then:
#   - `.tables` lists no table after `.load` (the extension's tables are eponymous), and
#     README's query on pragma_module_list lists exactly the tables schema/TABLES.md
#     documents (its `### xplane_<name>(` headings: an independent list);
#   - every question that has an answer file (queries/lib/ask_<q>.sql) has a top-level
#     <q>.sql and <q>_from_summary.sql; each <q>_from_summary.sql, and
#     report_from_summary.sql, given the summary summary.sql printed for the profile,
#     prints the bytes <q>.sql prints for the profile (with @op and @top_k set; the
#     report's generation time masked).
# Last, tools/cpu_time.py (tools/bench.sh's CPU timer) keeps the habits of /usr/bin/time:
# the command's exit status (128 + N for signal N, 2 for a bad usage), one line of user
# seconds, system seconds and peak KB, and at least the CPU the child itself measured.
set -uo pipefail

. "$(dirname "$0")/test_env.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/check.sh"
mask() { sed -e 's/^- Generated At (UTC): `[^`]*`/- Generated At (UTC): `@NOW@`/' \
             -e 's/"\(generated_at_utc\|recorded_at_utc\)": "[^"]*"/"\1": "@NOW@"/' \
             -e 's/&middot; generated [^<]*</\&middot; generated @NOW@</' \
             -e 's/Generated At (UTC): <code>[^<]*</Generated At (UTC): <code>@NOW@</'; }

"$BUILD/tools/xplane_gen" --out "$tmp/logs" --run r1 --style gpu --hosts 1 --devices 2 --steps 12 \
  --ops-per-step 64 --seed 7 > /dev/null || { echo "FAIL: xplane_gen"; exit 1; }
b=$tmp/logs/plugins/profile/r1/host0.xplane.pb
cd "$SRC" || exit 1
"$SQLITE3" -bail -cmd ".load $EXT" -cmd ".parameter set @profile '$b'" :memory: '.read queries/summary.sql' \
  > "$tmp/s.json" || check "summary.sql" 0 1
op=$(jq -r '.hot_ops[0].name' "$tmp/s.json")

# The parameters each top-level file needs, as -cmd arguments.
params() {
  local q=$1
  case $q in
    *_from_summary) echo ".parameter set @summary '$tmp/s.json'" ;;
    compare | profile_compare | track | profile_track) echo ".parameter set @before '$b'"; echo ".parameter set @after '$b'" ;;
    compare_summaries) echo ".parameter set @before_summary '$tmp/s.json'"; echo ".parameter set @after_summary '$tmp/s.json'" ;;
    history | history_table) echo ".parameter set @history '$tmp/h0.db'" ;;
    runs_join) echo ".import --csv queries/example_runs.csv runs"; echo ".parameter set @logdir '$tmp/logs'" ;;
    *) echo ".parameter set @profile '$b'" ;;
  esac
  case $q in
    gap_before_op* | gap_context*) echo ".parameter set @op '$op'" ;;
    track | profile_track) echo ".parameter set @label habits"; echo ".parameter set @history '$tmp/h$2.db'" ;;
  esac
}
# run Q N [SETTINGS...]: queries/Q.sql after SETTINGS, then the probes; output in $tmp/Q.N.
run() {
  local q=$1 n=$2 args=(-cmd ".load $EXT") line
  shift 2
  while IFS= read -r line; do args+=(-cmd "$line"); done < <(params "$q" "$n")
  for line in "$@"; do args+=(-cmd "$line"); done
  # on stdin, as a script: the shell stops at an error there only under .bail on
  # (SQL given as arguments stops at the first error whatever .bail says)
  printf '%s\n' ".read queries/$q.sql" '.print @@END@@' \
    "SELECT 'temp: ' || coalesce(group_concat(type || ' ' || name, ', '), 'none') FROM sqlite_temp_master WHERE name LIKE 'xq%';" \
    '.show' 'SELECT no_such_function();' "SELECT 'bail: off';" |
    "$SQLITE3" "${args[@]}" :memory: > "$tmp/$q.$n" 2> "$tmp/$q.$n.err"
}

# history.sql reads the history track.sql writes: make one first
"$SQLITE3" -bail -cmd ".load $EXT" -cmd ".parameter set @before '$b'" -cmd ".parameter set @after '$b'" \
  -cmd ".parameter set @label h0" -cmd ".parameter set @history '$tmp/h0.db'" :memory: '.read queries/track.sql' \
  > /dev/null || check "track.sql for history.sql" 0 1

n_files=0
for f in queries/*.sql; do
  q=$(basename "$f" .sql)
  n_files=$((n_files + 1))
  run "$q" 1
  run "$q" 2 '.mode box' '.headers on'
  out1=$(sed '/^@@END@@$/,$d' "$tmp/$q.1" | mask)
  out2=$(sed '/^@@END@@$/,$d' "$tmp/$q.2" | mask)
  [ -n "$out1" ] || check "$q: prints something (stderr: $(head -c 300 "$tmp/$q.1.err"))" yes no
  check "$q: the same output after .mode box / .headers on" "$out1" "$out2"
  for n in 1 2; do
    check "$q ($n): no temporary xq_* object left" "temp: none" "$(grep '^temp: ' "$tmp/$q.$n")"
    check "$q ($n): mode and headers are the defaults after it" "headers: off
mode: list" "$(sed -n 's/^ *\(headers\|mode\): \([a-z]*\).*/\1: \2/p' "$tmp/$q.$n")"
    check "$q ($n): .bail off after it" "bail: off" "$(grep '^bail: ' "$tmp/$q.$n")"
  done
done
[ "$n_files" -ge 20 ] || check "top-level query files found" ">= 20" "$n_files"

# .tables and the extension's tables
check ".tables after .load lists nothing" "" "$("$SQLITE3" -cmd ".load $EXT" :memory: '.tables')"
readme_query=$(sed -n "s/^sqlite> \(SELECT name FROM pragma_module_list WHERE name LIKE 'xplane%' ORDER BY 1;\).*/\1/p" README.md)
[ -n "$readme_query" ] || check "README shows the pragma_module_list query" yes no
check "README's pragma_module_list query = the tables TABLES.md documents" \
  "$(sed -n 's/^### \(xplane_[a-z0-9_]*\)(.*/\1/p' schema/TABLES.md | LC_ALL=C sort -u)" \
  "$("$SQLITE3" -cmd ".load $EXT" :memory: "$readme_query" | LC_ALL=C sort)"

# Saved summaries: <q>_from_summary.sql = <q>.sql on the profile
asks=$(cd queries/lib && ls ask_*.sql | sed 's/^ask_//; s/\.sql$//')
# (what_next reads the findings from a summary written by summary_findings.sql)
"$SQLITE3" -bail -cmd ".load $EXT" -cmd ".parameter set @profile '$b'" :memory: ".read queries/summary_findings.sql" \
  > "$tmp/sf.json" || check "summary_findings.sql" 0 1
check "seven questions have an answer file" "candidates compute_vs_communication gap_before_op gap_context hierarchical_regions top_ops what_next" \
  "$(echo $asks)"
for q in $asks report; do
  [ -f "queries/$q.sql" ] && [ -f "queries/${q}_from_summary.sql" ] || { check "$q: both files" yes no; continue; }
  want=$("$SQLITE3" -bail -cmd ".load $EXT" -cmd ".parameter set @profile '$b'" -cmd ".parameter set @op '$op'" \
    -cmd ".parameter set @top_k 3" :memory: ".read queries/$q.sql" | mask)
  sf=$tmp/s.json
  [ $q = what_next ] && sf=$tmp/sf.json
  got=$("$SQLITE3" -bail -cmd ".load $EXT" -cmd ".parameter set @summary '$sf'" -cmd ".parameter set @op '$op'" \
    -cmd ".parameter set @top_k 3" :memory: ".read queries/${q}_from_summary.sql" | mask)
  [ -n "$want" ] || check "$q: prints something" yes no
  check "${q}_from_summary.sql = $q.sql on the profile" "$want" "$got"
done
# a file that is not a summary is refused with a message
"$SQLITE3" -cmd ".load $EXT" -cmd ".parameter set @summary '$b'" :memory: '.read queries/top_ops_from_summary.sql' \
  > /dev/null 2> "$tmp/err"
check "a profile given as @summary: exit status" 1 "$?"
grep -q '@summary must name a readable profile_summary.v1' "$tmp/err" || check "a profile given as @summary: message" yes "$(cat "$tmp/err")"

# tools/cpu_time.py
ct=$SRC/tools/cpu_time.py
"$ct" -o "$tmp/ct" sh -c 'exit 3'
check "cpu_time.py: the command's exit status" 3 "$?"
grep -Eq '^[0-9]+\.[0-9]{6} [0-9]+\.[0-9]{6} [0-9]+ [0-9]+\.[0-9]{6}$' "$tmp/ct" || check "cpu_time.py: one line 'user sys KB wall'" yes "$(cat "$tmp/ct")"
"$ct" -o "$tmp/ct" sh -c 'kill -TERM $$'
check "cpu_time.py: a signal's status" 143 "$?"
"$ct" > /dev/null 2>&1
check "cpu_time.py: usage" 2 "$?"
# the child spins until its own process clock reads 0.3 s: the timer must see at least that
"$ct" -o "$tmp/ct" /usr/bin/python3 -c 'import time
while time.process_time() < 0.3: pass'
check "cpu_time.py: >= the 0.3 s the child measured" 1 "$(awk '{print ($1 + $2 >= 0.3 && $1 + $2 < 5)}' "$tmp/ct")"
# the child sleeps 0.3 s: its wall time is at least that, its CPU time far less
"$ct" -o "$tmp/ct" sleep 0.3
check "cpu_time.py: wall >= the 0.3 s slept" 1 "$(awk '{print ($4 >= 0.3 && $4 < 5 && $1 + $2 < 0.2)}' "$tmp/ct")"

echo "test_shell_habits: $pass passed, $fail failed"
[ $fail -eq 0 ]
