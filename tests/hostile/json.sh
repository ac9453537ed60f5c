#!/usr/bin/env bash
# tests/hostile/json.sh: JSON traces shaped to mislead the reader (issue 41),
# beyond limits.sh (item 7: a 300 MB string refused at 16 MiB, 1,048,576 open
# 'B' events; item 17: args nested past 128 levels, a BOM). Part of
# tests/test_hostile.sh. These passed when written: each states what it
# checks, with the exact answer expected.
#   dup      duplicate keys in an event: the last one counts ("name":"a" then
#            "b", "ts":1 then 5: b at 5 us), as Python's json and JavaScript do
#   utf8     ill-formed UTF-8 inside a string: an error naming the file and
#            the byte (yajl validates strings), never a partial table
#   deep     traceEvents nested 100,000 arrays deep, and another key nested
#            100,000 objects deep: no event, a warning saying why, peak RSS
#            under 64 MB (yajl keeps no tree: the depth costs nothing)
#   numbers  a pid of 1e400 and a tid of -10^23: the event is skipped with a
#            warning (no integer pid/tid), nothing wraps
#   trunc    a document cut short: an error saying it ends early
set -uo pipefail
. "$(dirname "$0")/../test_env.sh"
. "$(dirname "$0")/../hostile_common.sh"
q() { timeout 600 "$SQLITE3" -batch -bail :memory: -cmd ".load $EXT" "$@" >"$TMP/out" 2>"$TMP/err"; }
expect_out() {
  local name=$1 want=$2 rc; shift 2
  q "$@"; rc=$?
  if ((rc == 0)) && [[ $(<"$TMP/out") == "$want" ]]; then ok "$name"; else
    bad "$name: want '$want', got '$(head -c 300 "$TMP/out")' (exit $rc) $(head -c 300 "$TMP/err")"; fi
}
expect_err() {
  local name=$1 want=$2 rc; shift 2
  q "$@"; rc=$?
  if ((rc != 0)) && grep -qF -- "$want" "$TMP/err" && [ ! -s "$TMP/out" ]; then ok "$name"; else
    bad "$name: want an error with '$want', got exit $rc: $(head -c 300 "$TMP/err") out: $(head -c 200 "$TMP/out")"; fi
}
cd "$TMP" || exit 1
printf '{"traceEvents":[{"ph":"X","name":"a","name":"b","pid":1,"tid":1,"ts":1,"ts":5,"dur":2}]}' > dup.json
expect_out "dup: the last key counts" "b|5000000|2000000" "SELECT name, start_ps, dur_ps FROM xplane_events('dup.json')"
printf '{"traceEvents":[{"ph":"X","name":"a\xff\xfeb","pid":1,"tid":1,"ts":1,"dur":2}]}' > badutf.json
expect_err "utf8: ill-formed UTF-8 in a string" \
  "xplane_events: badutf.json: invalid JSON at byte 36: lexical error: invalid bytes in UTF8 string." \
  "SELECT name FROM xplane_events('badutf.json')"
python3 -c 'import sys; sys.stdout.write("{\"traceEvents\":" + "[" * 100000 + "]" * 100000 + "}")' > deep.json
python3 -c 'import sys; sys.stdout.write("{\"x\":" + "{\"a\":" * 100000 + "1" + "}" * 100000 + ",\"traceEvents\":[]}")' > deep2.json
expect_out "deep: traceEvents 100,000 arrays deep" \
  '0|["JSON trace: 1 entries of traceEvents are not objects and were skipped"]' "SELECT n_events, warnings FROM xplane_space('deep.json')"
expect_out "deep: another key 100,000 objects deep" \
  '0|["JSON trace: traceEvents is empty"]' "SELECT n_events, warnings FROM xplane_space('deep2.json')"
if ((SANITIZED == 0)); then
  kb=$( { /usr/bin/time -f '%M' "$SQLITE3" -batch :memory: -cmd ".load $EXT" \
          "SELECT count(*) FROM xplane_events('deep.json'); SELECT count(*) FROM xplane_events('deep2.json');" > /dev/null; } 2>&1 | tail -1)
  ((kb < 65536)) && ok "deep: peak RSS ${kb} KB < 64 MB" || bad "deep: peak RSS ${kb} KB"
fi
printf '{"traceEvents":[{"ph":"X","name":"a","pid":1e400,"tid":-99999999999999999999999,"ts":1,"dur":2}]}' > hugenum.json
expect_out "numbers: pid 1e400, tid -10^23: skipped, said" \
  '0|["JSON trace: 1 events without an integer pid (or tid) were skipped"]' "SELECT n_events, warnings FROM xplane_space('hugenum.json')"
printf '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2}' > trunc.json
expect_err "trunc: a document cut short" \
  "xplane_events: trunc.json: invalid JSON: parse error: premature EOF (the text ends at byte 68 before the document does: truncated?)" \
  "SELECT count(*) FROM xplane_events('trunc.json')"
echo "$pass passed, $fail failed"
((fail == 0))
