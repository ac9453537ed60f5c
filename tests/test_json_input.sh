#!/usr/bin/env bash
# test_json_input.sh: Chrome/Perfetto JSON traces (`*.trace.json.gz`,
# `perfetto_trace.json.gz`, `*.json`) read through the same tables.
#
#   ctest -R json_input     (or: XPLANE_EXT=build/xplane XPLANE_BUILD=build bash tests/test_json_input.sh)
#
# 1. mapping: a hand-written trace (X, B/E, i, C, M events, every arg type,
#    skipped phases and entries) gives exactly the events, stats, interned
#    strings and warnings of sqlite_ext/json_trace.h; exact ps from decimal
#    text, epoch-scale times rebased.
# 2. bad input: bad JSON, truncated or corrupt gzip, no traceEvents, ... give
#    an SQL error naming the file and the problem (exit 1, no crash), and
#    the same connection then reads a good trace.
# 3. the directory rule of discover.h, over tiny XPlanes (make_tiny_xspace).
# 4. truncation: a generated gzip trace of exactly 1,000,000 complete
#    events reads as 1,000,000 events, and queries/summary.sql flags
#    suspected_truncation.
# 5. real data: each $XPLANE_DATA profile, written as Chrome JSON by
#    xplane2perfetto --format json (half of them gzipped), reads back with
#    the same events (plane, line, name, start_ps, dur_ps, stats: exact), the
#    same ops (count, sum dur_ps, sum self_ps per name: exact) and the same
#    summary.sql document (but for the keys that name the source), plus the
#    converter's source record (tp_plugin/pf_model.h): one more event
#    `xplane.source`, with the XPlane's sha256, on a plane and line of its
#    own (pid 0, tid 0), so one more process and thread in the summary.
# Sections 1-4 need no data; without $XPLANE_DATA the test then exits 77.
# Env (set by ctest): XPLANE_EXT, XPLANE_BUILD, XPLANE_SRC, XPLANE_DATA, SQLITE3.
# The fixture tools (make_tiny_xspace, xplane2perfetto) run with leak checks
# off in sanitized builds: they are not what this test checks.
set -euo pipefail

: "${XPLANE_EXT:?set XPLANE_EXT to the extension to .load, e.g. build/xplane}"
. "$(dirname "$0")/test_env.sh"
MAKE_TINY=$BUILD/tests/make_tiny_xspace
TO_JSON=$BUILD/tp_plugin/xplane2perfetto
for tool in "$MAKE_TINY" "$TO_JSON"; do
  [[ -x $tool ]] || { echo "error: $tool is missing: build the project first (cmake --build)" >&2; exit 1; }
done

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
DATA_BEFORE=$(ls -l --time-style=full-iso "$DATA" 2>/dev/null)
pass=0
fail=0

# q SQL...: run statements in one shell session with the extension loaded.
q() { "$SQLITE3" -batch -bail -cmd ".load $XPLANE_EXT" :memory: "$@"; }

# check NAME WANT GOT
check() {
  if [[ $3 == "$2" ]]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    printf 'FAIL %s\n  want: %s\n  got:  %s\n' "$1" "$2" "$3"
  fi
}

# ---- 1. mapping -------------------------------------------------------------
M=$TMP/mapping.json
cat >"$M" <<'EOF'
{"displayTimeUnit":"ns","traceEvents":[
 {"ph":"M","name":"process_name","pid":1,"args":{"name":"/device:GPU:0"}},
 {"ph":"M","name":"thread_name","pid":1,"tid":7,"args":{"name":"XLA Ops"}},
 {"ph":"X","name":"fusion.1","pid":1,"tid":7,"ts":10.5,"dur":5.25,"args":{"tf_op":"jit(f)/mul","flops":1024,"x":1.5,"big":18446744073709551615,"neg":-3,"b":true,"n":null,"nest":{"a":[1,2,{"b":"c"}]}}},
 {"ph":"X","name":"fusion.1","pid":1,"tid":7,"ts":20,"dur":1e0,"args":{"tf_op":"jit(f)/mul"}},
 {"ph":"B","name":"outer","pid":1,"tid":8,"ts":0,"args":{"k":"v"}},
 {"ph":"E","pid":1,"tid":8,"ts":100.0000005,"args":{"k2":"v2"}},
 {"ph":"E","pid":1,"tid":8,"ts":101},
 {"ph":"i","name":"mark","pid":1,"tid":8,"ts":50},
 {"ph":"C","name":"mem","pid":1,"ts":60,"id":2,"args":{"used":5,"free":7}},
 {"ph":"s","name":"flow","pid":1,"tid":8,"ts":1,"id":3},
 {"ph":"B","name":"never","pid":1,"tid":9,"ts":3},
 7,
 {"ph":"X","name":"nopid","tid":1,"ts":1,"dur":1}
]}
EOF
check "mapping: xplane_space" \
  "1|4|5|perfetto_trace_json|$M|13|ns|0|$(stat -c %s "$M")|$(sha256sum "$M" | cut -c1-64)" \
  "$(q "SELECT n_planes, n_lines, n_events, source_format, source_file, trace_events, display_time_unit,
               time_base_ns, size, sha256 FROM xplane_space('$M');")"
check "mapping: warnings" \
  '["JSON trace: 1 events of phases this reader does not convert were skipped ('"'s'"' x1)","JSON trace: 1 entries of traceEvents are not objects and were skipped","JSON trace: 1 events without an integer pid (or tid) were skipped","JSON trace: 1 '"'E'"' events had no open '"'B'"' event on their thread and were skipped","JSON trace: 1 '"'B'"' events were never ended and were skipped"]' \
  "$(q "SELECT warnings FROM xplane_space('$M');")"
check "mapping: xplane_files" "mapping|perfetto_trace_json" \
  "$(q "SELECT host, source_format FROM xplane_files('$M');")"
check "mapping: events" \
  "/device:GPU:0|1|7|XLA Ops|fusion.1|10500000|5250000
/device:GPU:0|1|7|XLA Ops|fusion.1|20000000|1000000
/device:GPU:0|1|8||outer|0|100000001
/device:GPU:0|1|8||mark|50000000|0
/device:GPU:0|1|-1|mem 2|mem|60000000|0" \
  "$(q "SELECT plane_name, plane_id, line_id, line_name, name, start_ps, dur_ps FROM xplane_events('$M');")"
check "mapping: lines (first-use order; tid 9 holds only an unended B)" "7|XLA Ops|2
8||2
-1|mem 2|1
9||0" \
  "$(q "SELECT line_id, line_name, n_events FROM xplane_lines('$M');")"
check "mapping: stats" \
  "XLA Ops|0|tf_op|str|jit(f)/mul|
XLA Ops|0|flops|int64|1024|
XLA Ops|0|x|double|1.5|
XLA Ops|0|big|uint64|18446744073709551615|
XLA Ops|0|neg|int64|-3|
XLA Ops|0|b|int64|1|
XLA Ops|0|nest|str|{\"a\":[1,2,{\"b\":\"c\"}]}|
XLA Ops|1|tf_op|ref|jit(f)/mul|8
|0|k|str|v|
|0|k2|str|v2|
mem 2|0|used|int64|5|
mem 2|0|free|int64|7|" \
  "$(q "SELECT line_name, event_index, name, value_type, value, ref_id FROM xplane_stats('$M');")"
check "mapping: stat metadata (names, then the repeated string)" \
  "1|tf_op|1 2|flops|1 3|x|1 4|big|1 5|neg|1 6|b|1 7|nest|1 8|jit(f)/mul|0 9|k|1 10|k2|1 11|used|1 12|free|1" \
  "$(q "SELECT id || '|' || name || '|' || is_stat_name FROM xplane_stat_metadata('$M');" | tr '\n' ' ' | sed 's/ $//')"
check "mapping: event metadata" "1|fusion.1 2|outer 3|mark 4|mem 5|never" \
  "$(q "SELECT id || '|' || name FROM xplane_event_metadata('$M');" | tr '\n' ' ' | sed 's/ $//')"

# Epoch-scale microseconds (beyond int64 ps): exact from the decimal text,
# rounded half up to the ps, and rebased on the earliest start.
E=$TMP/epoch.json
printf '%s\n' '{"traceEvents":[' \
  '{"ph":"X","name":"a","pid":3,"tid":1,"ts":1700000000123456.789,"dur":2},' \
  '{"ph":"X","name":"b","pid":3,"tid":2,"ts":1700000000123458.0004565,"dur":0.0000015}]}' >"$E"
check "epoch-scale times" "1700000000123456789|a|0|2000000
1700000000123456789|b|1211457|2" \
  "$(q "SELECT s.time_base_ns, e.name, e.start_ps, e.dur_ps FROM xplane_space('$E') s, xplane_events('$E') e;")"
R=$TMP/rel.json
printf '%s\n' '[{"ph":"X","name":"neg","pid":0,"tid":0,"ts":-1.5e-3,"dur":25E-1},' \
  '{"ph":"X","name":"untimed","pid":0,"tid":0,"dur":1}]' >"$R"
check "bare array, negative and exponent times, no ts = no start" "neg|-1500|2500000
untimed||1000000" \
  "$(q "SELECT name, start_ps, dur_ps FROM xplane_events('$R');")"
printf '{"traceEvents": []}' >"$TMP/empty.json"
check "empty traceEvents" '0|0|["JSON trace: traceEvents is empty"]' \
  "$(q "SELECT n_planes, n_events, warnings FROM xplane_space('$TMP/empty.json');")"
cp "$M" "$TMP/trace.data"
check "other names: JSON by content" "perfetto_trace_json|perfetto_trace_json|5" \
  "$(q "SELECT f.source_format, s.source_format, s.n_events FROM xplane_files('$TMP/trace.data') f,
               xplane_space('$TMP/trace.data') s;")"

# ---- 2. bad input -------------------------------------------------------------
# bad NAME FILE EXPECT: the error names the file and holds EXPECT; the next
# query on the same connection reads the mapping trace.
bad() {
  local name=$1 file=$2 want=$3 out err rc
  set +e
  out=$(printf ".load %s\nSELECT 'bad:' || n_events FROM xplane_space('%s');\nSELECT 'after:' || n_events FROM xplane_space('%s');\n" \
    "$XPLANE_EXT" "$file" "$M" | timeout 60 "$SQLITE3" -batch :memory: 2>"$TMP/stderr")
  rc=$?
  set -e
  err=$(<"$TMP/stderr")
  if ((rc == 1)) && [[ $out == "after:5" && $err == *"xplane_space: $file: $want"* ]]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    printf 'FAIL bad input: %s\n  exit %s, stdout: %s\n  stderr: %s\n  want: xplane_space: %s: %s\n' \
      "$name" "$rc" "$out" "$err" "$file" "$want"
  fi
}
B=$TMP/bad
mkdir "$B"
printf '{"traceEvents": [{"ph":"X",}]}' >"$B/syntax.json"
bad "syntax error" "$B/syntax.json" "invalid JSON at byte 28: parse error: invalid object key (must be a string)"
gzip -nc "$M" | head -c 300 >"$B/cut.json.gz"
bad "truncated gzip" "$B/cut.json.gz" \
  "truncated gzip stream: the file ends before its compressed data does (an incomplete write or copy?)"
gzip -nc "$M" >"$B/crc.json.gz"
printf '\x00\x00\x00\x00' | dd of="$B/crc.json.gz" bs=1 seek=$(($(stat -c %s "$B/crc.json.gz") - 8)) conv=notrunc 2>/dev/null
bad "corrupt gzip (CRC)" "$B/crc.json.gz" "corrupt gzip data: incorrect data check"
printf '{"traceEvents": [' >"$B/cut.json"
bad "truncated JSON" "$B/cut.json" \
  "invalid JSON: parse error: premature EOF (the text ends at byte 17 before the document does: truncated?)"
printf '{"displayTimeUnit": "ns", "otherData": {}}' >"$B/noevents.json"
bad "no traceEvents" "$B/noevents.json" \
  "not a Chrome/Perfetto JSON trace: the top-level object has no traceEvents array"
printf '{"traceEvents": {"ph": "X"}}' >"$B/object.json"
bad "traceEvents is an object" "$B/object.json" "traceEvents is an object, not an array of events"
printf '{"traceEvents": 3}' >"$B/number.json"
bad "traceEvents is a number" "$B/number.json" "traceEvents is a number, not an array of events"
printf 'hello' | gzip -nc >"$B/text.json.gz"
bad "gzip of text" "$B/text.json.gz" "not a JSON trace: its decompressed content starts with byte 0x68, not '{' or '['"
printf '  \n ' >"$B/blank.json"
bad "white space" "$B/blank.json" "not a JSON trace: only white space"
: >"$B/zero.json"
bad "empty file" "$B/zero.json" "empty file (0 bytes): not a JSON trace"
# metadata naming no process or thread: the conversion is an empty XSpace (found by fuzz_json)
printf '{"traceEvents": [{"ph":"M","nme":"process_name","pid":1,"args":{"name":"x"}}]}' >"$B/nothing.json"
bad "events that make nothing" "$B/nothing.json" \
  "nothing to read: no event of this JSON trace makes a process, thread or slice"
printf '{"traceEvents": [{"ph":"X","name":"a\xff"}]}' >"$B/utf8.json"
bad "invalid UTF-8" "$B/utf8.json" "invalid JSON at byte 37: lexical error: invalid bytes in UTF8 string."
printf '{"traceEvents": []} {}' >"$B/garbage.json"
bad "trailing garbage" "$B/garbage.json" "invalid JSON at byte 21: parse error: trailing garbage"
mkdir "$B/dir.json"
bad "a directory named .json (no trace in it)" "$B/dir.json" "no *.xplane.pb profile in this directory or below"

# ---- 3. the directory rule (discover.h) -------------------------------------
D=$TMP/rules
mkdir -p "$D"/{one,only,rank1,rank2,several,hosts,broken,bothbad}
ASAN_OPTIONS=detect_leaks=0 "$MAKE_TINY" "$TMP/tiny.xplane.pb" >/dev/null
head -c 500 "$TMP/tiny.xplane.pb" >"$TMP/cut.xplane.pb"
gzip -nc "$M" >"$TMP/good.json.gz"
cp "$TMP/tiny.xplane.pb" "$D/one/h.xplane.pb"
cp "$TMP/good.json.gz" "$D/one/perfetto_trace.json.gz"
cp "$TMP/good.json.gz" "$D/only/a.trace.json.gz"
cp "$M" "$D/only/b.trace.json"
cp "$TMP/good.json.gz" "$D/only/perfetto_trace.json.gz"
cp "$M" "$D/rank1/a.trace.json"
cp "$TMP/good.json.gz" "$D/rank1/b.trace.json.gz"
cp "$M" "$D/rank2/b.trace.json"
cp "$M" "$D/rank2/a.trace.json"
cp "$TMP/tiny.xplane.pb" "$D/several/h1.xplane.pb"
cp "$TMP/tiny.xplane.pb" "$D/several/h2.xplane.pb"
cp "$M" "$D/several/z.trace.json"
cp "$TMP/tiny.xplane.pb" "$D/hosts/h1.xplane.pb"
cp "$TMP/tiny.xplane.pb" "$D/hosts/h2.xplane.pb"
cp "$M" "$D/hosts/notes.json" # not a trace name: ignored by directory walks
cp "$TMP/cut.xplane.pb" "$D/broken/h.xplane.pb"
cp "$TMP/good.json.gz" "$D/broken/perfetto_trace.json.gz"
cp "$TMP/cut.xplane.pb" "$D/bothbad/h.xplane.pb"
printf '{"traceEvents": [' >"$D/bothbad/x.trace.json"
check "rule: the files a logdir lists" \
  "bothbad|h|xplane_pb
broken|h|xplane_pb
hosts|h1|xplane_pb
hosts|h2|xplane_pb
one|h|xplane_pb
only|perfetto_trace|perfetto_trace_json
rank1|b|perfetto_trace_json
rank2|a|perfetto_trace_json
several|z|perfetto_trace_json" \
  "$(q "SELECT run, host, source_format FROM xplane_files('$D');")"
check "rule: one XPlane beside a JSON trace is read" "xplane_pb|8|$D/one/h.xplane.pb" \
  "$(q "SELECT source_format, n_events, source_file FROM xplane_space('$D/one');")"
SEVERAL_NOTE="$D/several holds 2 XPlane files (one per host): its JSON trace z.trace.json was read instead, as the reference summarizer does (name an .xplane.pb file to read it)"
for p in "$D/several" "$D/several/z.trace.json"; do
  check "rule: several XPlanes: the JSON trace, with a warning ($p)" "perfetto_trace_json|5|$SEVERAL_NOTE" \
    "$(q "SELECT source_format, n_events, warnings ->> 0 FROM xplane_space('$p');")"
done
check "rule: an XPlane named directly is read as it is" "xplane_pb|8" \
  "$(q "SELECT source_format, n_events FROM xplane_space('$D/several/h1.xplane.pb');")"
CUT_ERR=$(q "SELECT 1 FROM xplane_space('$TMP/cut.xplane.pb');" 2>&1 | sed -n 's/^.*xplane_space: //p') || true
check "rule: the unreadable XPlane alone is an error" \
  "$TMP/cut.xplane.pb: truncated at byte 500: the field at byte 0 needs 736 bytes but the file has 500 (an incomplete or cut-off write?)" \
  "$CUT_ERR"
BROKEN_NOTE="$D/broken/h.xplane.pb: truncated at byte 500: the field at byte 0 needs 736 bytes but the file has 500 (an incomplete or cut-off write?); read the JSON trace $D/broken/perfetto_trace.json.gz instead"
for p in "$D/broken" "$D/broken/h.xplane.pb"; do
  check "rule: an unreadable XPlane falls back to the JSON trace ($p)" \
    "$D/broken/h.xplane.pb|h|xplane_pb|perfetto_trace_json|$D/broken/perfetto_trace.json.gz|5|6|$BROKEN_NOTE|$(sha256sum "$D/broken/perfetto_trace.json.gz" | cut -c1-64)" \
    "$(q "SELECT f.file, f.host, f.source_format, s.source_format, s.source_file, s.n_events, json_array_length(s.warnings),
                 s.warnings ->> 0, s.sha256 FROM xplane_files('$p') f, xplane_space(f.file) s;")"
done
BOTH_ERR=$(q "SELECT 1 FROM xplane_space('$D/bothbad');" 2>&1 | sed -n 's/^.*xplane_space: //p') || true
check "rule: both unreadable: one error naming both" \
  "$D/bothbad/h.xplane.pb: truncated at byte 500: the field at byte 0 needs 736 bytes but the file has 500 (an incomplete or cut-off write?); its directory's JSON trace $D/bothbad/x.trace.json could not be read either: invalid JSON: parse error: premature EOF (the text ends at byte 17 before the document does: truncated?)" \
  "$BOTH_ERR"

# ---- 4. truncation at a collector cap ------------------------------------------
CAP=$TMP/cap.trace.json.gz
awk 'BEGIN {
  printf "{\"traceEvents\":[\n{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"/host:CPU\"}},\n"
  printf "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"python\"}}"
  for (i = 0; i < 1000000; i++) printf ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1,\"name\":\"step\"}", 2 * i
  printf "\n]}\n" }' | gzip -1 >"$CAP"
check "1,000,000 complete events" "1000000|1000000|1000002|1999999000000" \
  "$(q "SELECT s.n_events, (SELECT count(*) FROM xplane_events('$CAP') WHERE dur_ps > 0), s.trace_events,
               (SELECT max(end_ps) FROM xplane_events('$CAP')) FROM xplane_space('$CAP') s;")"
if [[ -f $SRC/queries/summary.sql ]]; then
  (cd "$SRC" && "$SQLITE3" -cmd ".load $XPLANE_EXT" -cmd ".parameter set @profile $CAP" :memory: \
    '.read queries/summary.sql') >"$TMP/cap.summary.json"
  check "summary flags the cap" \
    "1000000|1|Trace contains exactly 1,000,000 complete events; this often indicates export truncation at a collector cap." \
    "$(q "SELECT j ->> '$.trace_overview.num_complete_events', j ->> '$.trace_overview.suspected_truncation',
                 j ->> '$.trace_overview.quality_warnings[0]' FROM (SELECT readfile('$TMP/cap.summary.json') AS j);")"
else
  echo "NOTE: queries/summary.sql is absent: suspected_truncation not checked (the event count is)"
fi

# ---- 5. real data: XPlane -> Chrome JSON -> tables --------------------------------
if ! compgen -G "$DATA/*.xplane.pb" >/dev/null; then
  echo "$pass passed, $fail failed"
  ((fail == 0)) || exit 1
  echo "SKIP: real profiles not found in $DATA (the XPlane/JSON equivalence was not checked)"
  exit 77
fi
# Op names compared per file (those on lines xplane2perfetto kept whole).
declare -A OPS=([gpu_mw]=13 [tracelens_jax08_attention]=12 [tracelens_jax08_elementwise]=5
  [tracelens_jax08_gemm]=8 [tracelens_jax_conv_minimal_08]=6 [tracelens_jax_conv_minimal_legacy]=6
  [tracelens_te_fused_attn]=0 [xprof_tpu_inference_2]=17)
declare -A EVENTS=([gpu_mw]=23128 [tracelens_jax08_attention]=4380 [tracelens_jax08_elementwise]=4623
  [tracelens_jax08_gemm]=3782 [tracelens_jax_conv_minimal_08]=3650 [tracelens_jax_conv_minimal_legacy]=6024
  [tracelens_te_fused_attn]=1992 [xprof_tpu_inference_2]=26723)
# The Chrome JSON of xplane2perfetto moves partially overlapping events of a
# line to extra threads "<line> (overlap k)" (the format has no child
# tracks): their per-track self times and gaps legitimately differ, so ops
# are compared on the lines it kept whole, and summaries only for files
# where it split no line.
LANE="(line_name GLOB '* (overlap [0-9]*)' OR line_name GLOB '* (other [0-9]*)')"
BASE="CASE WHEN $LANE THEN substr(line_name, 1, instr(line_name, ' (') - 1) ELSE line_name END"
mkdir "$TMP/conv"
k=0
for x in "$DATA"/*.xplane.pb; do
  b=$(basename "$x" .xplane.pb)
  j=$TMP/conv/$b.trace.json
  ASAN_OPTIONS=detect_leaks=0 "$TO_JSON" --format json -o "$j" "$x" >/dev/null
  if ((k++ % 2)); then gzip -n "$j"; j=$j.gz; fi
  check "$b: events (plane, line, name, start, dur, stats), exact" "${EVENTS[$b]:-?}|${EVENTS[$b]:-?}|0|0" \
    "$(q ".parameter set @x $x" ".parameter set @j $j" \
      "CREATE TEMP TABLE ex AS SELECT plane_name p, line_name l, coalesce(nullif(display_name, ''), name) n,
              start_ps s, dur_ps d, stats FROM xplane_events(@x) WHERE start_ps IS NOT NULL;
       CREATE TEMP TABLE ej AS SELECT plane_name p, $BASE l, name n, start_ps s, dur_ps d, stats FROM xplane_events(@j)
         WHERE name IS NOT 'xplane.source' AND name IS NOT 'xplane.plane';
       SELECT (SELECT count(*) FROM ex), (SELECT count(*) FROM ej),
              (SELECT count(*) FROM (SELECT * FROM ex EXCEPT SELECT * FROM ej)),
              (SELECT count(*) FROM (SELECT * FROM ej EXCEPT SELECT * FROM ex));")"
  ops=$(q ".parameter set @x $x" ".parameter set @j $j" \
    "CREATE TEMP TABLE split AS SELECT DISTINCT plane_name p, $BASE l FROM xplane_lines(@j) WHERE $LANE;
     CREATE TEMP TABLE ox AS SELECT name, count(*) n, sum(dur_ps) d, sum(self_ps) s FROM xplane_ops(@x)
      WHERE (plane_name, line_name) NOT IN (SELECT p, l FROM split) GROUP BY name;
     CREATE TEMP TABLE oj AS SELECT name, count(*) n, sum(dur_ps) d, sum(self_ps) s FROM xplane_ops(@j)
      WHERE (plane_name, $BASE) NOT IN (SELECT p, l FROM split) GROUP BY name;
     SELECT (SELECT count(*) FROM split), (SELECT count(*) FROM ox),
            (SELECT count(*) FROM (SELECT * FROM ox EXCEPT SELECT * FROM oj)),
            (SELECT count(*) FROM (SELECT * FROM oj EXCEPT SELECT * FROM ox));")
  check "$b: ops on whole lines (count, sum dur, sum self per name), exact" "${ops%%|*}|${OPS[$b]:-?}|0|0" "$ops"
  check "$b: the source record in the JSON" "1|$(sha256sum "$x" | cut -c1-64)|${EVENTS[$b]:-?}" \
    "$(q ".parameter set @j $j" "SELECT count(*), max(stats ->> '\$.\"xplane.source.sha256\"'),
        max(stats ->> '\$.\"xplane.source.n_events\"') FROM xplane_events(@j) WHERE name = 'xplane.source';")"
  check "$b: the plane records in the JSON (one per plane, with its index and name)" \
    "$(q "SELECT count(*) FROM xplane_planes('$x')")|0" \
    "$(q ".parameter set @x $x" ".parameter set @j $j" "SELECT count(*), (SELECT count(*) FROM (
        SELECT stats ->> '\$.\"xplane.plane.plane_index\"', stats ->> '\$.\"xplane.plane.plane_name\"'
          FROM xplane_events(@j) WHERE name = 'xplane.plane'
        EXCEPT SELECT plane_index, plane_name FROM xplane_planes(@x)))
        FROM xplane_events(@j) WHERE name = 'xplane.plane';")"
  check "$b: xplane_space of the JSON" "perfetto_trace_json|$(sha256sum "$j" | cut -c1-64)" \
    "$(q "SELECT source_format, sha256 FROM xplane_space('$j');")"
  if [[ -f $SRC/queries/summary.sql && ${ops%%|*} == 0 ]]; then
    for f in "$x" "$j"; do
      (cd "$SRC" && "$SQLITE3" -cmd ".load $XPLANE_EXT" -cmd ".parameter set @profile $f" :memory: \
        '.read queries/summary.sql') >"$TMP/${f##*/}.summary"
    done
    # Keys that name the source (and its format) differ by design; the
    # source record is a process and a thread more in the JSON.
    check "$b: summary.sql, one process and one thread more (the source record)" "1|1" \
      "$(q "SELECT (readfile('$TMP/${j##*/}.summary') ->> '\$.trace_overview.num_processes')
                 - (readfile('$TMP/${x##*/}.summary') ->> '\$.trace_overview.num_processes'),
               (readfile('$TMP/${j##*/}.summary') ->> '\$.trace_overview.num_threads')
                 - (readfile('$TMP/${x##*/}.summary') ->> '\$.trace_overview.num_threads');")"
    check "$b: summary.sql, the same numbers" "0|0" \
      "$(q "CREATE TEMP TABLE skip(k); INSERT INTO skip VALUES ('\$.generated_at_utc'), ('\$.source_path'),
              ('\$.source_format'), ('\$.trace_provenance.trace_sha256'), ('\$.trace_overview.display_time_unit'),
              ('\$.trace_overview.num_events_total'), ('\$.trace_overview.num_processes'),
              ('\$.trace_overview.num_threads');
            CREATE TEMP TABLE sx AS SELECT replace(fullkey, '\"', '') k, atom FROM json_tree(readfile('$TMP/${x##*/}.summary'))
              WHERE type NOT IN ('object', 'array') AND k NOT IN skip;
            CREATE TEMP TABLE sj AS SELECT replace(fullkey, '\"', '') k, atom FROM json_tree(readfile('$TMP/${j##*/}.summary'))
              WHERE type NOT IN ('object', 'array') AND k NOT IN skip;
            SELECT (SELECT count(*) FROM (SELECT * FROM sx EXCEPT SELECT * FROM sj)),
                   (SELECT count(*) FROM (SELECT * FROM sj EXCEPT SELECT * FROM sx));")"
  fi
done

# The data folder is read-only to tests: nothing was written there (names, sizes, times).
check "nothing written into $DATA" "$DATA_BEFORE" "$(ls -l --time-style=full-iso "$DATA" 2>/dev/null)"

echo "$pass passed, $fail failed"
((fail == 0))
