#!/usr/bin/env bash
# tests/hostile/limits.sh: hostile inputs against the documented limits and
# the write policy (issue 12, items 4-7, 9-12, 14, 15, 17; README "Limits and
# safety", "Security").
#
#   bash tests/hostile/limits.sh [ITEM ...]     (e.g. `limits.sh 10 11`; run by tests/test_hostile.sh)
#
# Every input is built here under a temporary directory: XSpaces by
# tests/hostile/xspace.py (its own wire encoder), JSON traces by printf/awk.
# Each check prints PASS/FAIL with what it expected; the script exits 1 on any
# failure. Memory bounds are peak RSS from /usr/bin/time (skipped under the
# sanitizers, whose shadow memory is not the extension's); the work bounds are
# structural (instructions counted by valgrind, rows, exact errors), never
# wall-clock, except a generous `timeout` that only stops a hang.
set -uo pipefail
. "$(dirname "$0")/../test_env.sh"
. "$(dirname "$0")/../hostile_common.sh"

# q SQL...: run the statements in one shell with the extension; stdout to
# $TMP/out, stderr to $TMP/err; returns the shell's exit code.
q() { timeout 300 "$SQLITE3" -batch -bail :memory: -cmd ".load $EXT" "$@" >"$TMP/out" 2>"$TMP/err"; }
# expect_out NAME WANT SQL...: the statements succeed and print exactly WANT.
expect_out() {
  local name=$1 want=$2
  shift 2
  if q "$@" && [[ $(<"$TMP/out") == "$want" ]]; then ok "$name"; else
    bad "$name: want '$want', got '$(head -c 300 "$TMP/out")' (exit $?) $(head -c 300 "$TMP/err")"
  fi
}
# expect_err NAME SUBSTRING SQL...: the statements fail (exit 1) with SUBSTRING in the error.
expect_err() {
  local name=$1 want=$2 rc
  shift 2
  q "$@"
  rc=$?
  if ((rc == 1)) && grep -qF -- "$want" "$TMP/err"; then ok "$name"; else
    bad "$name: want exit 1 and '$want', got exit $rc: $(head -c 300 "$TMP/err") out: $(head -c 200 "$TMP/out")"
  fi
}
# peak_kb CMD...: runs CMD, sets RC and KB (peak RSS in kB).
peak_kb() {
  /usr/bin/time -f %M -o "$TMP/time" "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  KB=$(tail -n 1 "$TMP/time")
}
want_item() { (($# == 0)) && return 0; }
ITEMS=" $* "
run() { [[ $ITEMS == "  " || $ITEMS == *" $1 "* ]]; }

# A one-op profile (one plane /device:GPU:0, one line, one 1000 ps op).
$XSPACE lines 0 "$TMP/one.xplane.pb"

# ---- item 10: window frames ------------------------------------------------
# xplane_self_ps needs ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING; rows
# (ts, dur) = (0,10) (2,3) (2,1) (5,1): by hand, the self times are
# 10-3-1 = 6 for the parent... (2,3) contains (2,1)? Both start at 2: the
# longer is the parent, so (2,3) has 3-1 = 2, (2,1) 1, and (5,1) is a child of
# (0,10): self(0,10) = 10 - 3 - 1 = 6.
if run 10; then
  T="CREATE TABLE t(ts, dur); INSERT INTO t VALUES (0,10),(2,3),(2,1),(5,1);"
  expect_out "10: the documented frame" $'0|10|6\n2|3|2\n2|1|1\n5|1|1' "$T" \
    "SELECT ts, dur, xplane_self_ps(ts, dur) OVER (ORDER BY ts, dur DESC ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM t ORDER BY ts, dur DESC"
  # (EXCLUDE frames never call xValue: the error is the one of a use without OVER)
  msg="ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING"
  # (OVER () is not among them: SQLite (3.40.1, 3.52.0) calls the function
  # exactly as for the documented frame up to the one value it reuses for
  # every row, and ignores an error raised in xFinal of a window: see
  # functions_timeline.c and the check after this loop.)
  for fr in "ORDER BY ts" "ORDER BY ts GROUPS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING" \
    "ORDER BY ts RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING" \
    "ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING" \
    "ORDER BY ts ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING" \
    "ORDER BY ts ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING EXCLUDE TIES"; do
    for fn in "xplane_self_ps(ts, dur)" "xplane_gap_ps(ts, dur)" "xplane_gap_payload(ts, dur, 'x')"; do
      expect_err "10: $fn OVER ($fr) is an error" "${fn%%(*}" "$T" "SELECT $fn OVER ($fr) FROM t"
      grep -qF "$msg" "$TMP/err" || bad "10: $fn OVER ($fr): the error does not name the frame"
    done
  done
  # The one escape (README, functions_timeline.c), pinned on both SQLite
  # versions at hand so that the documentation stays true: OVER () gives row
  # 0's value (10 - 3 = 7) on every row, with no error. Should this fail
  # because a newer SQLite reports the error set in xFinal, update the README.
  W="WITH t(ts, dur) AS (VALUES (0, 10), (2, 3), (20, 5)) SELECT xplane_self_ps(ts, dur) OVER () FROM t"
  expect_out "10: OVER () on this SQLite: row 0's value on every row (the documented escape)" $'7\n7\n7' "$W"
  S352=$SRC/../shared/tools/sqlite3-3.52
  if ((SANITIZED)) || [[ ! -x $S352 ]]; then echo "SKIP 10: OVER () on SQLite 3.52 (no shell, or the sanitizer build)"; else
    got=$("$S352" -batch :memory: -cmd ".load $EXT" "$W" 2>&1)
    if [[ $got == $'7\n7\n7' ]]; then ok "10: OVER () on SQLite 3.52: the same escape"; else
      bad "10: OVER () on SQLite 3.52: want 7 on every row, got '$got'"; fi
  fi
fi

# ---- item 11: no file written from SQL the user did not type ---------------
if run 11; then
  d=$TMP/w11
  mkdir -p "$d"
  # The attacker's database: an INSERT into t fires a trigger whose INSERT
  # runs a CHECK constraint that calls xplane_to_perfetto.
  "$SQLITE3" "$d/evil.db" -cmd ".load $EXT" "CREATE TABLE log(x CHECK (xplane_to_perfetto('$TMP/one.xplane.pb', '$d/pwned.pftrace') > 0));
    CREATE TABLE t(a); CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES (1); END;"
  for env in "" "XPLANE_FILE_OUTPUT=" "XPLANE_FILE_OUTPUT=off"; do
    env $env "$SQLITE3" -batch "$d/evil.db" -cmd ".load $EXT" "PRAGMA trusted_schema=OFF; INSERT INTO t VALUES (1);" \
      >/dev/null 2>"$TMP/err"
    if [[ ! -e $d/pwned.pftrace ]] && grep -qF "writing files from SQL is off" "$TMP/err"; then
      ok "11: a CHECK constraint of an untrusted schema writes no file (env: '${env:-unset}')"
    else
      bad "11: CHECK constraint (env '${env:-unset}'): $(ls "$d"); $(<"$TMP/err")"
    fi
  done
  expect_err "11: top-level SQL without XPLANE_FILE_OUTPUT is refused" \
    "xplane_to_perfetto: writing files from SQL is off" \
    "SELECT xplane_to_perfetto('$TMP/one.xplane.pb', '$d/a.pftrace')"
  [[ -e $d/a.pftrace ]] && bad "11: a.pftrace was written"
  XPLANE_FILE_OUTPUT=new expect_out "11: XPLANE_FILE_OUTPUT=new creates a new file" 1 \
    "SELECT xplane_to_perfetto('$TMP/one.xplane.pb', '$d/a.pftrace')"
  echo keep >"$d/b.pftrace"
  XPLANE_FILE_OUTPUT=new expect_err "11: XPLANE_FILE_OUTPUT=new never replaces a file" \
    "$d/b.pftrace: exists (XPLANE_FILE_OUTPUT=new creates files only; =replace replaces them)" \
    "SELECT xplane_to_perfetto('$TMP/one.xplane.pb', '$d/b.pftrace')"
  [[ $(tr -d '\0' <"$d/b.pftrace") == keep ]] && ok "11: the existing file is unchanged" || bad "11: b.pftrace changed"
  XPLANE_FILE_OUTPUT=replace expect_out "11: XPLANE_FILE_OUTPUT=replace replaces" 1 \
    "SELECT xplane_to_perfetto('$TMP/one.xplane.pb', '$d/b.pftrace')"
  cmp -s "$d/a.pftrace" "$d/b.pftrace" && ok "11: the replaced file is the trace" || bad "11: b.pftrace is not the trace"
  XPLANE_FILE_OUTPUT=bogus expect_err "11: an unknown XPLANE_FILE_OUTPUT is refused" \
    "XPLANE_FILE_OUTPUT must be 'new' or 'replace'" \
    "SELECT xplane_to_perfetto('$TMP/one.xplane.pb', '$d/c.pftrace')"
  # Even enabled, a CHECK of the untrusted schema cannot replace an existing file.
  echo keep >"$d/pwned.pftrace"
  XPLANE_FILE_OUTPUT=new "$SQLITE3" -batch "$d/evil.db" -cmd ".load $EXT" "INSERT INTO t VALUES (1);" >/dev/null 2>&1
  [[ $(<"$d/pwned.pftrace") == keep ]] && ok "11: enabled with 'new', the CHECK still replaces nothing" \
    || bad "11: pwned.pftrace replaced"
fi

# ---- item 12: a planted <out>.partial symlink ------------------------------
if run 12; then
  d=$TMP/w12
  mkdir -p "$d"
  echo precious >"$d/victim"
  ln -s "$d/victim" "$d/out.pftrace.partial"
  "$CONV" -o "$d/out.pftrace" "$TMP/one.xplane.pb" >/dev/null 2>"$TMP/err"
  rc=$?
  if ((rc == 0)) && [[ $(tr -d '\0' <"$d/victim") == precious && -L $d/out.pftrace.partial && -f $d/out.pftrace ]]; then
    ok "12: xplane2perfetto writes beside a planted .partial symlink, its target untouched"
  else
    bad "12: xplane2perfetto (exit $rc): victim '$(<"$d/victim")' $(<"$TMP/err")"
  fi
  ln -s "$d/victim" "$d/sql.pftrace.partial"
  XPLANE_FILE_OUTPUT=new expect_out "12: xplane_to_perfetto with a planted .partial symlink" 1 \
    "SELECT xplane_to_perfetto('$TMP/one.xplane.pb', '$d/sql.pftrace')"
  [[ $(tr -d '\0' <"$d/victim") == precious ]] && ok "12: the symlink's target is untouched" || bad "12: victim overwritten"
  left=$(find "$d" -name '.*' -type f | wc -l)
  ((left == 0)) && ok "12: no temporary file left" || bad "12: $left temporary files left in $d"
fi

# ---- item 9: times near 2^62 -----------------------------------------------
# Limits (profile.h): offsets and durations within +-2^61 ps; absolute times
# strictly within +-2^62 ps of the time base; sums saturate at 2^63-1.
if run 9; then
  H=4611686018427387904 G=2305843009213693952 M=9223372036854775807
  refused() { # refused NAME SPEC WANT: the profile of SPEC is refused with WANT
    $XSPACE events "$2" "$TMP/t9.xplane.pb"
    expect_err "9: $1" "xplane_tracks: $TMP/t9.xplane.pb: plane 0 (/device:GPU:0) line 0 (XLA Ops)$3" \
      "SELECT dur_ps FROM xplane_tracks('$TMP/t9.xplane.pb')"
  }
  refused "duration 2^62 refused" "0:0/$H" " event 0: time out of range: offset_ps 0, duration_ps $H"
  refused "offset near 2^63 refused" "0:$((M - 5))/10" " event 0: time out of range: offset_ps $((M - 5)), duration_ps 10"
  refused "timestamp_ns x 1000 past 2^62 refused" "4611686018427:$G/$G" \
    ": timestamp_ns 4611686018427 puts events more than 2^62 ps from the profile's time base (0 ns)"
  # Five nested events of 2^61 ps each: durations sum to 5 x 2^61 > 2^63 - 1,
  # saturated; the self time of the outermost is 2^61 - 2^61 = 0, the
  # innermost keeps 2^61: self sum 2^61. Times [0, 2^61].
  $XSPACE events "0:0/$G,0/$G,0/$G,0/$G,0/$G" "$TMP/t9.xplane.pb"
  expect_out "9: five nested 2^61 ps events: the duration sum saturates, nothing negative" \
    "$M|$G|0|$G" "SELECT dur_ps, self_ps, first_start_ps, last_end_ps FROM xplane_tracks('$TMP/t9.xplane.pb')"
  expect_out "9: ... the five ops: none with a negative duration or self time" "5|0" \
    "SELECT count(*), sum(dur_ps < 0 OR self_ps < 0 OR gap_before_ps < 0) FROM xplane_ops('$TMP/t9.xplane.pb')"
  # A host up 100 days (uptime-clock timestamps 8.64e15 ns): rebased, start 0.
  $XSPACE events "8640000000000000:5/7" "$TMP/t9.xplane.pb"
  expect_out "9: a 100-day uptime timestamp is rebased (time base 8640000000000000 ns)" "8640000000000000|5|12" \
    "SELECT time_base_ns, (SELECT first_start_ps FROM xplane_lines('$TMP/t9.xplane.pb')), (SELECT last_end_ps FROM xplane_lines('$TMP/t9.xplane.pb')) FROM xplane_space('$TMP/t9.xplane.pb')"
  # The window functions over any rows: an overflowing end is an error.
  expect_err "9: xplane_self_ps with start + duration past 2^63 is an error" \
    "xplane_self_ps: start $H + duration $H overflows a 64-bit integer" \
    "SELECT xplane_self_ps(s, d) OVER (ORDER BY s ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM (SELECT $H AS s, $H AS d)"
  expect_out "9: xplane_gap_ps between -2^63 and 2^63-1 saturates" $'0\n7\n9223372036854775807' \
    "SELECT xplane_gap_ps(s, d) OVER (ORDER BY s ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM (SELECT -9223372036854775808 AS s, 1 AS d UNION ALL SELECT -9223372036854775800, 0 UNION ALL SELECT $M, 0) ORDER BY s"
fi

# ---- item 5: lines of a plane in linear work -------------------------------
# A plane with one op line and N empty lines: the analysis tables walk each
# track once. Instructions (valgrind) for 20,000 lines against 10,000, less
# a no-extra-line profile's: linear doubles them, today's scan per line
# quadruples them. Want at most 3x (the midpoint: the interrupt probe runs on
# wall time, so a loaded machine adds instructions; 2.6x was seen).
if run 5; then
  if ((SANITIZED)) || ! command -v valgrind >/dev/null; then
    echo "SKIP 5: needs valgrind and an uninstrumented build"
  else
    work() {
      valgrind --tool=callgrind --callgrind-out-file=/dev/null "$SQLITE3" -batch :memory: ".load $EXT" \
        "SELECT (SELECT count(*) FROM xplane_ops('$1')), (SELECT count(*) FROM xplane_steps('$1')),
                (SELECT count(*) FROM xplane_scopes('$1')), (SELECT count(*) FROM xplane_tracks('$1'))" \
        2>&1 >"$TMP/out5" | sed -n 's/.*Collected : //p'
    }
    for n in 0 10000 20000; do $XSPACE lines $n "$TMP/l$n.xplane.pb"; done
    b=$(work "$TMP/l0.xplane.pb") w1=$(work "$TMP/l10000.xplane.pb") w2=$(work "$TMP/l20000.xplane.pb")
    [[ $(<"$TMP/out5") == "1|0|1|1" ]] || bad "5: 20,000 lines: want 1 op, 0 steps, 1 scope (fusion), 1 track row, got $(<"$TMP/out5")"
    if [[ -n $b && -n $w1 && -n $w2 ]] && ((w2 - b <= 3 * (w1 - b))); then
      ok "5: 20,000 empty lines cost $((w2 - b)) instructions, 10,000 cost $((w1 - b)) (at most 3x)"
    else
      bad "5: 20,000 empty lines cost $((w2 - b)) instructions, 10,000 cost $((w1 - b)) (want at most 3x)"
    fi
  fi
fi

# ---- item 6: memory per empty plane; plane and line limits -----------------
# 1,000,000 empty planes (2 bytes each: a 2 MB file) index under 200 MB peak
# RSS (the issue asked for 300 MB; it was 674 MB); one plane more than the limit of 2^20 planes, or 2^21
# + 1 lines, is refused while indexing with the limit named.
if run 6; then
  $XSPACE planes 1000000 "$TMP/p1m.xplane.pb"
  peak_kb "$SQLITE3" -batch :memory: -cmd ".load $EXT" "SELECT count(*) FROM xplane_planes('$TMP/p1m.xplane.pb')"
  if ((RC == 0)) && [[ $(<"$TMP/out") == 1000000 ]]; then ok "6: 1,000,000 empty planes listed"; else bad "6: 1,000,000 planes: exit $RC $(<"$TMP/out") $(<"$TMP/err")"; fi
  if ((!SANITIZED)); then
    # (the issue's bound is 300 MB; measured: 238,400 kB before the plane
    # walk kept one failure instead of a status per plane and 16-byte plane
    # spans, 164,300 kB after; the bound keeps that)
    ((KB < 200000)) && ok "6: ... within 200 MB peak RSS ($KB kB)" || bad "6: 1,000,000 empty planes peaked at $KB kB (want < 200000)"
  fi
  rm -f "$TMP/p1m.xplane.pb"
  $XSPACE planes 1048577 "$TMP/p2.xplane.pb"
  expect_err "6: 1,048,577 planes refused" \
    "xplane_planes: $TMP/p2.xplane.pb: more than 1048576 planes (the limit: README \"Limits and safety\"); plane 1048576 starts at byte 2097154" \
    "SELECT count(*) FROM xplane_planes('$TMP/p2.xplane.pb')"
  rm -f "$TMP/p2.xplane.pb"
  # One plane of 2,097,153 empty lines (tag 0x1a, length 0 each).
  python3 -c 'import sys; n = 2097153; body = b"\x1a\x00" * n; L = len(body)
v = bytearray()
while True:
    b = L & 0x7f; L >>= 7
    if L: v.append(b | 0x80)
    else: v.append(b); break
sys.stdout.buffer.write(b"\x0a" + bytes(v) + body)' >"$TMP/l2m.xplane.pb"
  expect_err "6: 2,097,153 lines refused" \
    "xplane_lines: $TMP/l2m.xplane.pb: more than 2097152 lines (the limit: README \"Limits and safety\")" \
    "SELECT count(*) FROM xplane_lines('$TMP/l2m.xplane.pb')"
  rm -f "$TMP/l2m.xplane.pb"
  # Metadata entries (event and stat, as written: empty map entries of id 0,
  # which collapse into one): 4,194,304 are read within 400 MB peak; one more is
  # refused. Before the limit, 20,000,000 of them (a 40 MB file) peaked at 1.87 GB.
  # meta_file EXTRA: 2^21 empty event-metadata entries and 2^21 + EXTRA empty
  # stat-metadata entries in one plane
  meta_file() {
    python3 -c 'import sys
n = 1 << 22
body = b"\x22\x00" * (n // 2) + b"\x2a\x00" * (n // 2 + int(sys.argv[1]))
L = len(body); v = bytearray()
while True:
    b = L & 0x7f; L >>= 7
    if L: v.append(b | 0x80)
    else: v.append(b); break
sys.stdout.buffer.write(b"\x0a" + bytes(v) + body)' "$1"
  }
  meta_file 0 >"$TMP/m4m.xplane.pb"
  peak_kb "$SQLITE3" -batch :memory: -cmd ".load $EXT" \
    "SELECT (SELECT count(*) FROM xplane_event_metadata('$TMP/m4m.xplane.pb')) || ' ' || (SELECT count(*) FROM xplane_stat_metadata('$TMP/m4m.xplane.pb'))"
  if ((RC == 0)) && [[ $(<"$TMP/out") == "1 1" ]]; then ok "6: 4,194,304 metadata entries (one id each kind) read"; else bad "6: 4,194,304 metadata entries: exit $RC $(<"$TMP/out") $(head -c 300 "$TMP/err")"; fi
  if ((!SANITIZED)); then
    ((KB < 400000)) && ok "6: ... within 400 MB peak RSS ($KB kB)" || bad "6: 4,194,304 metadata entries peaked at $KB kB (want < 400000)"
  fi
  meta_file 1 >"$TMP/m4m1.xplane.pb"
  expect_err "6: 4,194,305 metadata entries refused" \
    "xplane_event_metadata: $TMP/m4m1.xplane.pb: more than 4194304 event and stat metadata entries (the limit: README \"Limits and safety\")" \
    "SELECT count(*) FROM xplane_event_metadata('$TMP/m4m1.xplane.pb')"
  rm -f "$TMP/m4m.xplane.pb" "$TMP/m4m1.xplane.pb"
fi

# ---- item 7: JSON caps enforced while parsing --------------------------------
# A 300 MB event name in a 306 kB .json.gz: refused at 16 MiB (a token longer
# than that), within 800 MB peak RSS (today: 1.24 GB, 54 s). 1,048,577 'B'
# events never ended: refused at the 1,048,576th still open.
if run 7; then
  python3 -c 'import gzip, sys
with gzip.open(sys.argv[1], "wb", compresslevel=1) as f:
    f.write(b"{\"traceEvents\":[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1,\"name\":\"")
    for i in range(300): f.write(b"a" * (1 << 20))
    f.write(b"\"}]}")' "$TMP/bigname.json.gz"
  peak_kb "$SQLITE3" -batch :memory: -cmd ".load $EXT" "SELECT count(*) FROM xplane_events('$TMP/bigname.json.gz')"
  want="xplane_events: $TMP/bigname.json.gz: a JSON string at byte 64 of the decompressed text is longer than 16 MiB (the limit: README \"Limits and safety\")"
  if ((RC == 1)) && grep -qF "$want" "$TMP/err"; then ok "7: a 300 MB name is refused at 16 MiB"; else bad "7: 300 MB name: exit $RC $(head -c 300 "$TMP/err")"; fi
  if ((!SANITIZED)); then
    ((KB < 800000)) && ok "7: ... within 800 MB peak RSS ($KB kB)" || bad "7: the 300 MB name peaked at $KB kB (want < 800000)"
  fi
  awk 'BEGIN { printf "{\"traceEvents\":["; for (i = 0; i < 1048577; i++) printf "%s{\"ph\":\"B\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":%d}", (i ? "," : ""), i; printf "]}" }' |
    gzip -1 >"$TMP/openb.json.gz"
  expect_err "7: 1,048,577 'B' events never ended: refused" \
    "xplane_events: $TMP/openb.json.gz: more than 1048576 'B' events open at once (never ended?): the limit, README \"Limits and safety\"" \
    "SELECT count(*) FROM xplane_events('$TMP/openb.json.gz')"
  # 1,048,576 are within the limit: converted, the B events skipped with a warning.
  awk 'BEGIN { printf "{\"traceEvents\":["; for (i = 0; i < 1048576; i++) printf "%s{\"ph\":\"B\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":%d}", (i ? "," : ""), i; printf "]}" }' |
    gzip -1 >"$TMP/openb.json.gz"
  expect_out "7: 1,048,576 open 'B' events: skipped with a warning" \
    "0|[\"JSON trace: 1048576 'B' events were never ended and were skipped\"]" \
    "SELECT n_events, warnings FROM xplane_space('$TMP/openb.json.gz')"
fi

# ---- item 15: lenient JSON says so -------------------------------------------
# ts 1e400 (untimed), dur 1e30, dur -3 and dur 9223372036854 us (past 2^61 ps:
# duration 0), an E before its B (the pair skipped): one warning each kind,
# no negative duration.
if run 15; then
  cat >"$TMP/lenient.json" <<'JSON'
{"traceEvents":[
{"ph":"X","name":"a","pid":1,"tid":1,"ts":1e400,"dur":1},
{"ph":"X","name":"b","pid":1,"tid":1,"ts":5,"dur":1e30},
{"ph":"X","name":"c","pid":1,"tid":1,"ts":6,"dur":-3},
{"ph":"B","name":"d","pid":1,"tid":2,"ts":10},
{"ph":"E","pid":1,"tid":2,"ts":5},
{"ph":"X","name":"e","pid":1,"tid":1,"ts":7,"dur":9223372036854}
]}
JSON
  expect_out "15: the events as converted (a untimed; b, c, e with duration 0; d skipped)" \
    $'a||1000000\nb|5000000|0\nc|6000000|0\ne|7000000|0' \
    "SELECT name, start_ps, dur_ps FROM xplane_events('$TMP/lenient.json') ORDER BY name"
  expect_out "15: a quality warning for each" \
    "[\"JSON trace: 1 events had a ts out of range (beyond +-2^63 ns) and were kept without a start time\",\"JSON trace: 3 events had a negative or out-of-range dur (beyond 2^61 ps) and were kept with duration 0\",\"JSON trace: 1 'E' events came before their 'B' (or more than 2^61 ps after it); the pairs were skipped\"]" \
    "SELECT warnings FROM xplane_space('$TMP/lenient.json')"
fi

# ---- item 17: the smaller ones ---------------------------------------------
if run 17; then
  # A UTF-8 byte order mark before the JSON: read (by name and by content).
  printf '\xef\xbb\xbf{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2}]}' >"$TMP/bom.json"
  cp "$TMP/bom.json" "$TMP/bom_trace"
  expect_out "17: a JSON trace with a UTF-8 BOM is read" "a|1000000|2000000" \
    "SELECT name, start_ps, dur_ps FROM xplane_events('$TMP/bom.json')"
  expect_out "17: ... also when only its content says JSON" "1" "SELECT count(*) FROM xplane_events('$TMP/bom_trace')"
  # args nested 130 deep: refused with the reason.
  python3 -c 'import sys; sys.stdout.write("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2,\"args\":{\"x\":" + "[" * 130 + "]" * 130 + "}}]}")' >"$TMP/deep_args.json"
  expect_err "17: args nested past 128 levels: a clear error" \
    "xplane_events: $TMP/deep_args.json: an args value of event 1 is nested more than 128 levels deep (the most this reader keeps)" \
    "SELECT count(*) FROM xplane_events('$TMP/deep_args.json')"
  # An output name ending in .PB (any case) is refused like .pb.
  "$CONV" -o "$TMP/out.PB" "$TMP/one.xplane.pb" >/dev/null 2>"$TMP/err"
  if [[ ! -e $TMP/out.PB ]] && grep -qF "$TMP/out.PB: refusing to write a trace to a .pb name" "$TMP/err"; then
    ok "17: a .PB output is refused"
  else
    bad "17: .PB output: $(<"$TMP/err")"
  fi
fi

# ---- item 4: hash flooding in the metadata id maps -------------------------
# 20,000 event metadata ids crafted so that the old id hash put them all in
# one slot, against ids 1..20,000: the work of listing them (instructions
# counted by valgrind, less a one-id profile's) within 3x. Today's code: 300x.
if run 4; then
  if ((SANITIZED)) || ! command -v valgrind >/dev/null; then
    echo "SKIP 4: needs valgrind and an uninstrumented build"
  else
    instr() { # instr FILE: instructions of listing FILE's event metadata
      valgrind --tool=callgrind --callgrind-out-file=/dev/null "$SQLITE3" -batch :memory: ".load $EXT" \
        "SELECT count(*) FROM xplane_event_metadata('$1')" 2>&1 >/dev/null | sed -n 's/.*Collected : //p'
    }
    $XSPACE seq_ids 1 "$TMP/ids1.xplane.pb"
    $XSPACE seq_ids 20000 "$TMP/seq.xplane.pb"
    $XSPACE crafted_ids 20000 "$TMP/crafted.xplane.pb"
    b=$(instr "$TMP/ids1.xplane.pb") s=$(instr "$TMP/seq.xplane.pb") c=$(instr "$TMP/crafted.xplane.pb")
    if [[ -n $b && -n $s && -n $c ]] && (((c - b) <= 3 * (s - b))); then
      ok "4: 20,000 crafted ids cost $((c - b)) instructions, sequential ones $((s - b)) (within 3x)"
    else
      bad "4: 20,000 crafted ids cost $((c - b)) instructions, sequential ones $((s - b)) (want within 3x)"
    fi
  fi
fi

# ---- item 14: no silent empties; bounded output from view-safe functions ---
if run 14; then
  # Python's json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=True) of
  # {"b":[1,2],"a":"é"}, written by hand.
  expect_out "14: xplane_json_pretty of a small document" $'{\n  "a": "\\u00e9",\n  "b": [\n    1,\n    2\n  ]\n}' \
    "SELECT xplane_json_pretty('{\"b\":[1,2],\"a\":\"é\"}')"
  # 2 MB nested 499 deep holding 1,000,000 zeros: pretty printing asks for
  # 1,000,000 lines of 1,000 spaces (1 GB). Refused with SQLITE_TOOBIG early.
  awk 'BEGIN { for (i = 0; i < 499; i++) printf "["; for (i = 0; i < 1000000; i++) printf "0,"; printf "0";
               for (i = 0; i < 499; i++) printf "]" }' >"$TMP/deep.json"
  peak_kb "$SQLITE3" -batch :memory: -cmd ".load $EXT" \
    "SELECT length(xplane_json_pretty(CAST(readfile('$TMP/deep.json') AS TEXT)))"
  if ((RC > 0 && RC < 128)) && grep -qF "xplane_json_pretty: the output would pass" "$TMP/err" && grep -qF "string or blob too big" "$TMP/err"; then
    ok "14: 2 MB asking for 1 GB of pretty JSON is SQLITE_TOOBIG (peak ${KB} kB)"
  else
    bad "14: deep pretty JSON: exit $RC, out '$(<"$TMP/out")', err '$(head -c 300 "$TMP/err")'"
  fi
  if ((!SANITIZED)); then
    ((KB < 200000)) && ok "14: ... within 200 MB peak RSS ($KB kB)" || bad "14: deep pretty JSON peaked at $KB kB (want < 200000)"
  fi
fi

echo "$pass passed, $fail failed"
((fail == 0))
