#!/usr/bin/env bash
# test_trace_processor.sh: the converter, the PerfettoSQL package and the
# canned queries in the real trace processor (trace_processor_shell), the
# evidence that the plugin works there (tests/test_perfetto.sh and
# tests/test_engines.sh run the same package through the SQLite shim, a fast
# extra check only).
#
#   XPLANE_BUILD=build XPLANE_SRC=. XPLANE_DATA=../shared/data \
#     TRACE_PROCESSOR_SHELL=../shared/tools/trace_processor_shell bash tests/test_trace_processor.sh
#
# trace_processor_shell: $TRACE_PROCESSOR_SHELL, else ../shared/tools/ next
# to the repository; the test exits 77 (skip) with a message when it is
# absent. The real profiles: $XPLANE_DATA (the profile parts are skipped
# without them).
#
# 1. Import: trace processor's own tables of each converted trace equal the
#    extension's xplane_pf_* tables (the import they model): slices (id, ts,
#    dur, category, name, depth, parent_id), their args (debug annotation
#    keys as trace processor stores them: '.', '[' and ']' turned into '_',
#    found here on a hand-written trace), thread tracks with their thread
#    and process names, flows. Trace processor's own additions are left out
#    (the arg `legacy_event.passthrough_utid` of the source record, its
#    `swapper` thread 0 and process 0) and said so below.
# 2. Package: package_compare.sql (tests/golden/perfetto/) in two halves: the
#    extension's side run by the sqlite3 shell and dumped as SQL, the
#    package's side run by trace processor over the converted trace after
#    that dump; every `<object>|<extension rows>|<package rows>` line must
#    have equal counts and no row found on one side only. On the converter
#    fixture, package_cases.json (a JSON trace), the thirteen rule fixtures,
#    every real profile and a two-host logdir converted with --merge. And by
#    hand: the steps of the rule fixture steps_edges, and the ops by region
#    window of tests/sql/op_regions.sql's trace (windows from tf_op stats).
# 3. Errors: a trace without the converter's source record (not converted by
#    xplane2perfetto, or a Chrome JSON trace) stops the canned summary with
#    a message naming the cause and the fix.
# 4. Canned queries: every query that runs on both engines (the SPECS of
#    tests/test_engines.sh) prints the same bytes through tp_plugin/tp_run.sh
#    (trace_processor_shell -q, values unwrapped) as in the sqlite3 shell
#    over the extension (the time of day aside), on the rule fixtures, the
#    bundled demo (with the HloProto beside it) and every real profile; and the sqlite3 shell of SQLite 3.52
#    ($SQLITE3_NEW, else ../shared/tools/sqlite3-3.52, when present) prints
#    the same bytes as Debian's 3.40 (JSON subtypes, printf changed between
#    them).
# 5. Python: tests/tp_multihost.py drives Perfetto's TraceProcessor and
#    BatchTraceProcessor (../shared/tools/python, /usr/bin/python3 with
#    pandas) over the per-host traces of a two-host logdir converted with
#    `xplane2perfetto -o TRACES LOGDIR` (two real profiles, else two rule
#    fixtures): per host, the step count, summed and longest step, the top 5
#    ops by self time and the op count equal the extension's over the
#    .xplane.pb files (skipped with a message without the package or pandas).
# 6. Numbers: the package's xplane_repr in trace processor prints Python's
#    repr (the reference summarizer's, /usr/bin/python3 the oracle) of
#    16,000 doubles: picosecond counts k / 10^6 and k / 10^j (the
#    shortcut for doubles of at most 15 digits), random bit patterns,
#    random scales, integers and edge values (the exact path); and the
#    exact algorithm's table of powers (_xplane_pow, written out in
#    format.sql) equals Python's integers 2^(62q) and 5^(27q).
set -uo pipefail

. "$(dirname "$0")/test_env.sh"
. "$(dirname "$0")/canned_specs.sh"   # SPECS, mask, spec_native
TP=${TRACE_PROCESSOR_SHELL:-$SRC/../shared/tools/trace_processor_shell}
if [ ! -x "$TP" ]; then
  echo "SKIP: no trace_processor_shell at $TP (set TRACE_PROCESSOR_SHELL to Perfetto's trace_processor_shell)"
  exit 77
fi
GOLDEN=$SRC/tests/golden/perfetto
SQLITE3_NEW=${SQLITE3_NEW:-$SRC/../shared/tools/sqlite3-3.52}
CONV=$BUILD/tp_plugin/xplane2perfetto
PKG=$SRC/tp_plugin/xplane

cd "$SRC" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# tp TRACE SQLFILE: run the file in trace processor with the package; the
# data rows of every result (-q prints each result's column names first and
# a blank line between results; rows are CSV without escaping).
# Fails (status 1) when trace processor does, its message in $tmp/tp.err.
tp() {
  "$TP" --add-sql-package "$PKG" -q "$2" "$1" > "$tmp/tp.out" 2> "$tmp/tp.err"
  local rc=$?
  awk 'BEGIN { h = 1 } /^$/ { h = 1; next } h { h = 0; next } { print }' "$tmp/tp.out"
  return $rc
}
# The message of a failed tp: from trace processor's traceback on.
tp_error() { sed -n '/Traceback/,$p' "$tmp/tp.err" | head -${1:-12}; }

# ---- 1. trace processor's import against the xplane_pf_* tables ----
# Rows as one text column each, the same SQL on both engines (quote() for
# text and integers, xplane_repr for reals: the extension's C function and
# the package's exact SQL one print the same digits on any SQLite, where
# printf('%.17g') does not). Of a key given twice on one slice, trace
# processor keeps the last value only: the rows keep the last one of each key.
import_rows() {
  local s=$1 a=$2 tt=$3 th=$4 pr=$5 fl=$6
  cat <<EOF
SELECT 'slice|' || s.id || '|' || s.ts || '|' || s.dur || '|' || quote(s.category) || '|' || quote(s.name)
       || '|' || s.depth || '|' || quote(s.parent_id) AS r
FROM $s s ORDER BY s.id;
-- (joined directly: trace processor finds an arg set by arg_set_id, the
-- extension's xplane_pf_args seeks to it, tests/test_pf_seek.sh)
SELECT 'arg|' || s.id || '|' || a.key || '|' || a.value_type || '|' || quote(a.int_value) || '|'
       || quote(a.string_value) || '|' || coalesce(xplane_repr(a.real_value), 'NULL') AS r
FROM $s s
JOIN $a a ON a.arg_set_id = s.arg_set_id
WHERE a.key GLOB 'debug.*' ORDER BY s.id, a.key;
SELECT 'track|' || tt.id || '|' || quote(tt.name) || '|' || th.tid || '|' || quote(th.name) || '|'
       || p.pid || '|' || quote(p.name) AS r
FROM $tt tt JOIN $th th USING (utid) JOIN $pr p USING (upid) ORDER BY tt.id;
SELECT 'flow|' || f.slice_out || '|' || f.slice_in AS r FROM $fl f ORDER BY f.slice_out, f.slice_in;
EOF
}

check_import() {
  local profile=$1 trace=$2 label=$3 q="'$1'"
  { echo "INCLUDE PERFETTO MODULE xplane.format;"; import_rows slice args thread_track thread process flow; } > "$tmp/imp_tp.sql"
  import_rows "xplane_pf_slice($q)" "xplane_pf_args($q)" "xplane_pf_thread_track($q)" "xplane_pf_thread($q)" \
    "xplane_pf_process($q)" "xplane_pf_flow($q)" > "$tmp/imp_ext.sql"
  tp "$trace" "$tmp/imp_tp.sql" | sed -e 's/^"//' -e 's/"$//' > "$tmp/imp_tp.txt" ||
    { bad "$label: trace processor failed: $(tp_error)"; return; }
  "$SQLITE3" -bail -cmd ".load $EXT" :memory: < "$tmp/imp_ext.sql" > "$tmp/imp_ext.txt" 2>&1
  if [ ! -s "$tmp/imp_ext.txt" ] || ! diff "$tmp/imp_ext.txt" "$tmp/imp_tp.txt" > "$tmp/diff"; then
    bad "$label: trace processor's import differs from xplane_pf_* ($(grep -c '^[<>]' "$tmp/diff") lines; < extension, > trace processor):"
    head -20 "$tmp/diff"
  else
    ok
  fi
}

# ---- 2. the package against the extension ----
split=$(grep -n '^INCLUDE PERFETTO MODULE' "$GOLDEN/package_compare.sql" | head -1 | cut -d: -f1)

# The keyed tables in the order their lookups rely on (trace processor finds
# a row of a table without a scan only where the key column is sorted; no
# query result shows the order): _xplane_event_track and _xplane_track_line
# in track order, _xplane_slice_rare in arg set order, _xplane_child_dur and
# _xplane_child_ps in id order, _xplane_op_base with each op at its op_id's
# position (its op_id is _xplane_op_seq's rowid: a table without an id
# column numbers its rows from 0), _xplane_op_stat in slice id order,
# _xplane_op_base's track_row numbering its ops 0, 1, ... (each op's track
# position, which the payload lookahead looks up), _xplane_op_at in time
# order, _xplane_launch in correlation order; and each op at most once in
# _xplane_op_step (in marker order, found by op_id through its index).
# Counts of rows out of place, all 0.
order_sql="SELECT 'keyed order',
  (SELECT count(*) FROM (SELECT track_id, lag(track_id) OVER () AS prev FROM _xplane_event_track) WHERE track_id <= prev),
  (SELECT count(*) FROM (SELECT track_id, lag(track_id) OVER () AS prev FROM _xplane_track_line) WHERE track_id < prev),
  (SELECT count(*) FROM (SELECT arg_set_id, lag(arg_set_id) OVER () AS prev FROM _xplane_slice_rare) WHERE arg_set_id <= prev),
  (SELECT count(*) FROM (SELECT id, lag(id) OVER () AS prev FROM _xplane_child_dur) WHERE id <= prev),
  (SELECT count(*) FROM (SELECT id, lag(id) OVER () AS prev FROM _xplane_child_ps) WHERE id <= prev),
  (SELECT count(*) FROM (SELECT op_id, row_number() OVER () - 1 AS pos FROM _xplane_op_base) WHERE op_id != pos),
  (SELECT count(*) FROM (SELECT slice_id, lag(slice_id) OVER () AS prev FROM _xplane_op_stat) WHERE slice_id <= prev),
  (SELECT (count(*) != count(DISTINCT track_row)) + (coalesce(min(track_row), 0) != 0) + (coalesce(max(track_row), -1) != count(*) - 1) FROM _xplane_op_base),
  (SELECT count(*) FROM (SELECT t, lag(t) OVER () AS prev FROM _xplane_op_at) WHERE t < prev),
  (SELECT count(*) FROM (SELECT correlation, lag(correlation) OVER () AS prev FROM _xplane_launch) WHERE correlation <= prev),
  (SELECT count(*) - count(DISTINCT op_id) FROM _xplane_op_step);"

# compare_package PROFILE TRACE LABEL [EXPECTED]: the 16 object lines, equal
# counts, and no other line but the EXPECTED ones (the differences known to
# be unavoidable, given exactly); then the keyed tables' order (order_sql).
compare_package() {
  local profile=$1 trace=$2 label=$3 expected=${4:-} out order
  rm -f "$tmp/native.db"
  { cat "$GOLDEN/rule_cases.sql"; head -n $((split - 1)) "$GOLDEN/package_compare.sql" | sed "s#@PROFILE@#'$profile'#g"; } |
    sed 's/^CREATE TEMP TABLE/CREATE TABLE/' > "$tmp/native.sql"
  if ! "$SQLITE3" -bail -cmd ".load $EXT" "$tmp/native.db" < "$tmp/native.sql" > "$tmp/native.err" 2>&1; then
    bad "$label: the extension's side failed: $(head -c 500 "$tmp/native.err")"
    return
  fi
  { "$SQLITE3" "$tmp/native.db" .dump | grep -v '^PRAGMA\|^BEGIN TRANSACTION;$\|^COMMIT;$'
    tail -n +"$split" "$GOLDEN/package_compare.sql"; echo "$order_sql"; } > "$tmp/pkg.sql"
  if ! out=$(tp "$trace" "$tmp/pkg.sql" | tr -d '"' | tr ',' '|'); then
    bad "$label: the package failed in trace processor: $(tp_error)"
  elif order=$(echo "$out" | tail -1); out=$(echo "$out" | sed '$d'); [ "$order" != 'keyed order|0|0|0|0|0|0|0|0|0|0|0' ]; then
    bad "$label: rows out of place in the keyed tables (_xplane_event_track|_xplane_track_line|_xplane_slice_rare|_xplane_child_dur|_xplane_child_ps|_xplane_op_base|_xplane_op_stat|_xplane_op_base's track_row a numbering from 0|_xplane_op_at|_xplane_launch; each op once in _xplane_op_step, which an index finds by op_id): $order"
  elif [ "$(echo "$out" | tail -n +17)" != "$expected" ] ||
       ! echo "$out" | head -16 | awk -F'|' 'NF != 3 || $2 != $3 { bad = 1 } END { exit bad || NR != 16 }'; then
    bad "$label: the package differs from the extension: $out"
  else
    ok
    echo "$label: $(echo "$out" | head -16 | paste -sd' ')"
  fi
}

# Trace processor's debug annotation keys: a hand-written trace.
cat > "$tmp/keys.textproto" <<'EOF'
packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 1 name: "t" } }
packet {
  timestamp: 1000 trusted_packet_sequence_id: 1
  track_event {
    type: TYPE_INSTANT track_uuid: 1 name: "x"
    debug_annotations { name: "xplane.source.file" string_value: "f" }
    debug_annotations { name: "a.b[c]d e-f:g/h#1" int_value: 1 }
  }
}
EOF
if command -v protoc > /dev/null; then
  protoc --encode=perfetto.protos.Trace -I schema schema/perfetto_trace.proto < "$tmp/keys.textproto" > "$tmp/keys.pftrace"
  echo "SELECT key FROM args WHERE key GLOB 'debug.*' ORDER BY id;" > "$tmp/keys.sql"
  keys=$(tp "$tmp/keys.pftrace" "$tmp/keys.sql" | paste -sd' ')
  [ "$keys" = '"debug.xplane_source_file" "debug.a_b_c_d e-f:g/h#1"' ] && ok ||
    bad "trace processor's debug annotation keys: $keys (expected '.', '[', ']' -> '_')"
fi

# A line index no converter writes (2^32 and above): the package keys a line
# as upid << 32 | line_index, so the host line below (upid 1, index 3 << 32)
# would read as the device's op line (upid 3, index 0) if the key took it;
# its key is NULL, so its event is an analysis event and a track of its
# own but no op. Expected by hand: 2 analysis events, the op `fusion`
# alone (the device's `XLA Ops` line), 2 tracks. (A dummy process between
# the two makes the device upid 3: trace processor numbers processes in
# order of first use, after process 0.)
cat > "$tmp/lkey.textproto" <<'EOF'
packet { trusted_packet_sequence_id: 1 sequence_flags: 1 interned_data { event_categories { iid: 1 name: "XLA Ops" } event_categories { iid: 2 name: "Other" } } }
packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 20 process { pid: 20 process_name: "/host:CPU" } } }
packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 21 parent_uuid: 20 thread { pid: 20 tid: 21 thread_name: "Other" } } }
packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 30 process { pid: 30 process_name: "/host:idle" } } }
packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 10 process { pid: 10 process_name: "/device:GPU:0" } } }
packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 11 parent_uuid: 10 thread { pid: 10 tid: 11 thread_name: "XLA Ops" } } }
packet {
  timestamp: 1000 trusted_packet_sequence_id: 1 sequence_flags: 2
  track_event {
    type: TYPE_SLICE_BEGIN track_uuid: 11 name: "fusion" category_iids: 1
    debug_annotations { name: "xplane.event_index" int_value: 0 }
    debug_annotations { name: "xplane.line_index" int_value: 0 }
    debug_annotations { name: "xplane.line_id" int_value: 1 }
    debug_annotations { name: "xplane.line_display_name" string_value: "" }
  }
}
packet { timestamp: 2000 trusted_packet_sequence_id: 1 sequence_flags: 2 track_event { type: TYPE_SLICE_END track_uuid: 11 } }
packet {
  timestamp: 3000 trusted_packet_sequence_id: 1 sequence_flags: 2
  track_event {
    type: TYPE_SLICE_BEGIN track_uuid: 21 name: "work" category_iids: 2
    debug_annotations { name: "xplane.event_index" int_value: 0 }
    debug_annotations { name: "xplane.line_index" int_value: 12884901888 }
    debug_annotations { name: "xplane.line_id" int_value: 2 }
    debug_annotations { name: "xplane.line_display_name" string_value: "" }
  }
}
packet { timestamp: 4000 trusted_packet_sequence_id: 1 sequence_flags: 2 track_event { type: TYPE_SLICE_END track_uuid: 21 } }
EOF
if command -v protoc > /dev/null; then
  protoc --encode=perfetto.protos.Trace -I schema schema/perfetto_trace.proto < "$tmp/lkey.textproto" > "$tmp/lkey.pftrace"
  cat > "$tmp/lkey.sql" <<'EOF'
INCLUDE PERFETTO MODULE xplane.summary;
SELECT (SELECT group_concat(upid || ':' || name, ' ') FROM (SELECT upid, name FROM process WHERE upid > 0 ORDER BY upid)),
  (SELECT count(*) FROM xplane_analysis_event), (SELECT group_concat(name) FROM _xplane_op_info), (SELECT count(*) FROM xplane_tracks);
EOF
  got=$(tp "$tmp/lkey.pftrace" "$tmp/lkey.sql" | tail -1)
  [ "$got" = '"1:/host:CPU 2:/host:idle 3:/device:GPU:0",2,"fusion",2' ] && ok ||
    bad "a line index above 2^32 - 1: $got (expected the upids 1 host, 3 device; 2 events, the op fusion alone, 2 tracks)"
fi

# Sums of doubles: trace processor's SQLite (3.54) adds them with Kahan-Babuska-Neumaier
# compensation, Debian's 3.40 and the reference summarizer (Python) one plain addition at a
# time. 15 steps of 0.1 us (a `Steps` line of 100,000 ps events): Python's sum([0.1] * 10) / 10
# = 0.09999999999999999 (the 10 steady steps after 5 warm-up), sum([0.1] * 15) / 15 =
# 0.10000000000000002 (all); a compensated sum gives 0.1 for both. Both engines must print
# Python's (summary_json.sql adds in order itself; before, trace processor printed 0.1).
{
  echo 'planes { id: 1 name: "/device:GPU:0"'
  echo '  event_metadata { key: 1 value { id: 1 name: "gemm" } }'
  for i in $(seq 0 14); do echo "  event_metadata { key: $((i + 2)) value { id: $((i + 2)) name: \"$i\" } }"; done
  echo '  lines { id: 1 name: "Stream #1" timestamp_ns: 0 events { metadata_id: 1 offset_ps: 0 duration_ps: 1500000 } }'
  echo '  lines { id: 4 name: "Steps" timestamp_ns: 0'
  for i in $(seq 0 14); do echo "    events { metadata_id: $((i + 2)) offset_ps: $((i * 100000)) duration_ps: 100000 }"; done
  echo '  } }'
} > "$tmp/tenth.textproto"
protoc --encode=tensorflow.profiler.XSpace -I schema schema/xplane.proto < "$tmp/tenth.textproto" > "$tmp/tenth.xplane.pb"
"$CONV" -o "$tmp/tenth.pftrace" "$tmp/tenth.xplane.pb" > /dev/null
want="0.10000000000000002 0.09999999999999999"
got_ext=$(cd "$SRC" && "$SQLITE3" -bail -cmd ".load $EXT" -cmd ".parameter set @profile '$tmp/tenth.xplane.pb'" :memory: \
  ".read queries/summary.sql" | jq -r '[.step_time.all_steps.mean, .step_time.steady_state_steps.mean] | map(tostring) | join(" ")')
got_tp=$(cd "$SRC" && TRACE_PROCESSOR_SHELL=$TP tp_plugin/tp_run.sh "$tmp/tenth.pftrace" queries/summary.sql 2> "$tmp/tp.err" |
  jq -r '[.step_time.all_steps.mean, .step_time.steady_state_steps.mean] | map(tostring) | join(" ")')
[ "$got_ext" = "$want" ] && ok || bad "15 steps of 0.1 us, the extension's means: $got_ext (Python's: $want)"
[ "$got_tp" = "$want" ] && ok || bad "15 steps of 0.1 us, the package's means in trace processor: $got_tp (Python's: $want) $(head -c 200 "$tmp/tp.err")"

# the converter fixture and package_cases.json
"$BUILD/tests/make_perfetto_fixture" "$tmp/fx.xplane.pb"
"$CONV" -o "$tmp/fx.pftrace" "$tmp/fx.xplane.pb" > /dev/null
check_import "$tmp/fx.xplane.pb" "$tmp/fx.pftrace" "fixture"
compare_package "$tmp/fx.xplane.pb" "$tmp/fx.pftrace" "fixture"
# Lines of one thread whose names read alike in SQL (tests/hostile/xspace.py
# line_names: "a" 0xff, which trace processor reads repaired as "a" U+FFFD,
# the next line's name; two names alike up to a NUL): the converter writes
# their slices' line index, which the package otherwise takes from the
# thread and category. Line k's events start at 10000k and 10000k + 2000 ps:
# by hand, each slice's line and event index, and the extension says the same.
/usr/bin/python3 "$SRC/tests/hostile/xspace.py" line_names 0 "$tmp/names.xplane.pb"
"$CONV" -o "$tmp/names.pftrace" "$tmp/names.xplane.pb" > /dev/null
echo "INCLUDE PERFETTO MODULE xplane.slices;
SELECT group_concat(start_ps || ':' || line_index || '.' || event_index, ' ')
FROM (SELECT * FROM xplane_slice ORDER BY start_ps);" > "$tmp/names.sql"
want='0:0.0 2000:0.1 10000:1.0 12000:1.1 20000:2.0 22000:2.1 30000:3.0 32000:3.1 40000:4.0 42000:4.1'
got=$(tp "$tmp/names.pftrace" "$tmp/names.sql" | tr -d '"')
ext=$("$SQLITE3" -cmd ".load $EXT" :memory: "SELECT group_concat(start_ps || ':' || line_index || '.' || event_index, ' ')
  FROM (SELECT * FROM xplane_events('$tmp/names.xplane.pb') ORDER BY start_ps)")
[ "$got" = "$want" ] && [ "$ext" = "$want" ] && ok ||
  bad "lines alike in SQL: the package's (line.event) by start [$got], the extension's [$ext], by hand [$want]"
cp "$GOLDEN/package_cases.json" "$tmp/cases.json"
"$CONV" -o "$tmp/cases.pftrace" "$tmp/cases.json" > /dev/null
check_import "$tmp/cases.json" "$tmp/cases.pftrace" "package_cases.json"
# Its event k_dup has the stat tf_op twice: trace processor keeps the last
# one only (as xplane_pf_args does, checked on dup_keys.json below), so the
# op's stats JSON there has one tf_op where the extension's xplane_ops lists
# both (test_perfetto.sh expects the same difference through the shim).
k_dup='11|2|/device:GPU:1|0|Stream #1(Kernel)|4|k_dup|k_dup|[NULL]|compute|[NULL]|[NULL]|[NULL]|[NULL]|jit(b)/second|b=>second|[NULL]|[NULL]|[NULL]|[NULL]|502000000|1000000|503000000|1000000|999000|11|k_dup|[NULL]|[NULL]|[NULL]|[NULL]'
compare_package "$tmp/cases.json" "$tmp/cases.pftrace" "package_cases.json" \
  "ops only native|$k_dup|{tf_op:jit(a)/first|tf_op:jit(b)/second}|502000|1000
ops only package|$k_dup|{tf_op:jit(b)/second}|502000|1000"

# Region windows from tf_op stats (no real profile has one on an event that
# is not a device op): the trace of tests/sql/op_regions.sql and the rows it
# derives by hand there (windows train=>model and train=>model=>layer from
# host events' tf_op, step=>outer from an `XLA Modules` event's, A=>B and C=>D
# from names; a fallback-path event is no window), through the converter and
# the package's xplane_op_regions.
sed -n "/writefile('@TMP@\/op_regions.json', '/,/^]}')/p" "$SRC/tests/sql/op_regions.sql" |
  sed -e "1s/.*writefile('@TMP@\/op_regions.json', '//" -e '$s/'"'"') > 0 AS written;$//' > "$tmp/op_regions.json"
"$CONV" -o "$tmp/op_regions.pftrace" "$tmp/op_regions.json" > /dev/null
echo "INCLUDE PERFETTO MODULE xplane.regions;
SELECT group_concat(r, ' ') FROM (
  SELECT region_path || ':' || name || ':' || count || ':' || total_ps || ':' || self_ps || ':' || coalesce(shape_signature, '-') AS r
  FROM xplane_op_regions ORDER BY self_ps DESC, total_ps DESC, region_path, name);" > "$tmp/op_regions.sql"
got=$(tp "$tmp/op_regions.pftrace" "$tmp/op_regions.sql" | tr -d '"')
want='step=>outer:fusion.1:1:40000000:40000000:- train=>model=>layer:fusion.2:2:22000000:20000000:- train=>model=>layer:copy.7:1:10000000:10000000:- C=>D:fusion.1:2:8000000:8000000:8,128 train=>model:all-reduce.3:1:4000000:4000000:-'
[ "$got" = "$want" ] && ok || bad "region windows from tf_op stats (tests/sql/op_regions.sql's trace): [$got], by hand [$want]"

# The plane records' tf_op_or_name flag (the package scans for region windows
# with a tf_op or name stat only on the tracks of planes whose stat metadata
# names one, _xplane_window_tf_track): the same trace with its host events'
# stat named `tf.op` (trace processor stores it as debug.tf_op too, so the
# flag counts that name: the same windows), and the converted trace with the
# flag's key renamed in place (a trace of a converter without the flag: every
# plane is scanned, the same windows). The flags themselves: 1 on both planes
# of the `tf.op` trace, none on the renamed one, and 0 on both planes of the
# trace with `tf_op` renamed to `op` (no metadata names either stat).
sed -e '/"pid": 1, "tid": 10/s/"tf_op"/"tf.op"/g' "$tmp/op_regions.json" > "$tmp/op_regions_dot.json"
"$CONV" -o "$tmp/op_regions_dot.pftrace" "$tmp/op_regions_dot.json" > /dev/null
perl -0777 -pe 's/xplane\.plane\.tf_op_or_name_stat/xplane.plane.tf_op_or_name_XXXX/g' "$tmp/op_regions.pftrace" \
  > "$tmp/op_regions_old.pftrace"
echo "SELECT group_concat(extract_arg(arg_set_id, 'debug.xplane_plane_plane_name') || '=' ||
  coalesce(extract_arg(arg_set_id, 'debug.xplane_plane_tf_op_or_name_stat'), 'none'), ' ') AS flags
  FROM slice WHERE name = 'xplane.plane' ORDER BY id;" > "$tmp/plane_flag.sql"
for v in dot old; do
  got=$(tp "$tmp/op_regions_$v.pftrace" "$tmp/op_regions.sql" | tr -d '"')
  [ "$got" = "$want" ] && ok || bad "region windows, trace op_regions_$v: [$got], by hand [$want]"
done
flags=$(tp "$tmp/op_regions_dot.pftrace" "$tmp/plane_flag.sql" | tr -d '"')
[ "$flags" = "/host:CPU=1 /device:GPU:0=1" ] && ok || bad "plane flags of op_regions_dot: [$flags]"
flags=$(tp "$tmp/op_regions_old.pftrace" "$tmp/plane_flag.sql" | tr -d '"')
[ "$flags" = "/host:CPU=none /device:GPU:0=none" ] && ok || bad "plane flags of op_regions_old: [$flags]"
sed -e 's/"tf_op"/"op"/g' "$tmp/op_regions.json" > "$tmp/op_regions_none.json"
"$CONV" -o "$tmp/op_regions_none.pftrace" "$tmp/op_regions_none.json" > /dev/null
flags=$(tp "$tmp/op_regions_none.pftrace" "$tmp/plane_flag.sql" | tr -d '"')
[ "$flags" = "/host:CPU=0 /device:GPU:0=0" ] && ok || bad "plane flags without tf_op stats: [$flags]"

# Repeated keys (dup_keys.json): trace processor's args of each slice in arg
# id order, keys and values, equal xplane_pf_args' (one arg per key, the
# last value at the first one's position; `x.y` and `x_y` are one key):
# 30 args, 25 of `many` (4 xplane.* annotations: its event index and, being
# the first slice of its line, the line's index, line_id and
# line_display_name; no plane index, its process giving it; no start_ps or
# dur_ps, its times being whole ns; 21 of its 23 stats) and 5 of k_dup (its
# event index, 4 of its 5 stats).
"$CONV" -o "$tmp/dup.pftrace" "$GOLDEN/dup_keys.json" > /dev/null
dup_sql() {
  echo "SELECT s.name || '|' || a.key || '|' || a.value_type || '|' || coalesce(a.int_value, a.string_value) AS r
    FROM $1 s JOIN $2 a USING (arg_set_id) WHERE s.name IN ('many', 'k_dup') ORDER BY s.id, a.id;"
}
dup_sql slice args > "$tmp/dup.sql"
tp "$tmp/dup.pftrace" "$tmp/dup.sql" | sed -e 's/^"//' -e 's/"$//' > "$tmp/dup.tp"
dup_sql "xplane_pf_slice('$GOLDEN/dup_keys.json')" "xplane_pf_args('$GOLDEN/dup_keys.json')" |
  "$SQLITE3" -bail -cmd ".load $EXT" :memory: > "$tmp/dup.ext"
if [ "$(grep -c . "$tmp/dup.ext")" != 30 ] || ! diff "$tmp/dup.ext" "$tmp/dup.tp" > "$tmp/diff"; then
  bad "repeated keys: trace processor's args differ from xplane_pf_args (< extension, > trace processor):"
  head -10 "$tmp/diff"
else
  ok
fi

# xplane_scope_path with a depth (3 arguments; trace processor keeps one
# function per argument count) on the hand-written cases of rule_cases.sql
scope_sql="SELECT coalesce(tf_op, '<null>') || ' | ' || name || ' | ' || d || ' | ' || quote(xplane_scope_path(tf_op, name, d)) AS r
  FROM rule_scope_case, (SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 4) ORDER BY 1;"
{ sed 's/^CREATE TEMP TABLE/CREATE TABLE/' "$GOLDEN/rule_cases.sql"; echo "INCLUDE PERFETTO MODULE xplane.semantics;"
  echo "$scope_sql"; } > "$tmp/scope.sql"
tp "$tmp/fx.pftrace" "$tmp/scope.sql" | sed -e 's/^"//' -e 's/"$//' > "$tmp/scope.tp"
{ cat "$GOLDEN/rule_cases.sql"; echo "$scope_sql"; } | "$SQLITE3" -bail -cmd ".load $EXT" :memory: > "$tmp/scope.ext"
if [ "$(grep -c . "$tmp/scope.ext")" -lt 40 ] || ! diff "$tmp/scope.ext" "$tmp/scope.tp" > "$tmp/diff"; then
  bad "xplane_scope_path(tf_op, name, depth) differs from the extension's:"; head -10 "$tmp/diff"; tp_error
else
  ok
fi

# the rule fixtures
mkdir -p "$tmp/rules"
"$BUILD/tests/make_rule_fixtures" "$tmp/rules" > /dev/null
for f in "$tmp"/rules/*.xplane.pb; do
  "$CONV" -o "${f%.xplane.pb}.pftrace" "$f" > /dev/null
  check_import "$f" "${f%.xplane.pb}.pftrace" "$(basename "$f")"
  compare_package "$f" "${f%.xplane.pb}.pftrace" "$(basename "$f")" > /dev/null
done

# steps_edges (tests/make_rule_fixtures.c derives these by hand): each op's
# step in op order (- for none), and each step's ops in the table's order
# (the extension's: of two steps that start together the shorter first)
printf '%s\n' "INCLUDE PERFETTO MODULE xplane.ops;" \
  "SELECT group_concat(coalesce(step, '-'), ',') FROM (SELECT step FROM xplane_ops ORDER BY op_id);" \
  "SELECT group_concat(step || ':' || n_ops, ',') FROM (SELECT step, n_ops FROM xplane_steps);" > "$tmp/edges.sql"
if ! out=$(tp "$tmp/rules/steps_edges.pftrace" "$tmp/edges.sql" | tr -d '"' | paste -sd' '); then
  bad "steps_edges: trace processor failed: $(tp_error)"
elif [ "$out" != "-,0,0,1,-,-,2,2,5,-,- 0:2,1:1,3:0,2:2,4:0,5:1" ]; then
  bad "steps_edges: ops' steps and steps' ops: $out (expected -,0,0,1,-,-,2,2,5,-,- 0:2,1:1,3:0,2:2,4:0,5:1)"
else
  ok
fi

# a two-host logdir converted with --merge (one trace, both hosts): the
# package over it against the extension over the logdir
mkdir -p "$tmp/merge/plugins/profile/run1"
cp "$tmp/rules/steps_light_heavy.xplane.pb" "$tmp/merge/plugins/profile/run1/hostA.xplane.pb"
cp "$tmp/rules/comm_heavy.xplane.pb" "$tmp/merge/plugins/profile/run1/hostB.xplane.pb"
"$CONV" --merge -o "$tmp/merged.pftrace" "$tmp/merge" > /dev/null
compare_package "$tmp/merge" "$tmp/merged.pftrace" "merged two-host logdir"

# ---- 4. the canned queries, sqlite3 shell against trace processor ----
# queries PROFILE TRACE OP: every query of SPECS on both engines, byte for
# byte; trace processor runs them all in one session (the package's tables
# are built once), separated by marker rows.
queries() {
  local profile=$1 trace=$2 op=$3 i label
  : > "$tmp/all.sql"
  for i in "${!SPECS[@]}"; do
    spec_native "$SQLITE3" "${SPECS[$i]}" "$profile" "$op" "$tmp/native.$i"
    if [ -x "$SQLITE3_NEW" ]; then
      spec_native "$SQLITE3_NEW" "${SPECS[$i]}" "$profile" "$op" "$tmp/new.$i"
      if ! diff <(mask < "$tmp/native.$i") <(mask < "$tmp/new.$i") > "$tmp/diff"; then
        bad "$(basename "$profile") ${SPECS[$i]//@OP@/$op}: SQLite 3.52 prints otherwise than 3.40:"; head -10 "$tmp/diff"
      else
        ok
      fi
    fi
    echo "SELECT '@@@ $i' AS marker;" >> "$tmp/all.sql"
    tp_plugin/tp_query.sh "queries/$SPEC_QUERY.sql" "${SPEC_KV[@]}" >> "$tmp/all.sql" || return 1
  done
  rm -f "$tmp"/package.*
  "$TP" --add-sql-package "$PKG" -q "$tmp/all.sql" "$trace" 2> "$tmp/tp.err" | tp_plugin/tp_run.sh --unwrap > "$tmp/package"
  awk -v d="$tmp" '/^@@@ [0-9]+$/ { out = d "/package." $2; printf "" > out; next } { print > out }' "$tmp/package"
  for i in "${!SPECS[@]}"; do
    label="$(basename "$profile") ${SPECS[$i]//@OP@/$op}"
    if [ ! -s "$tmp/native.$i" ] || [ ! -f "$tmp/package.$i" ] ||
       ! diff <(mask < "$tmp/native.$i") <(mask < "$tmp/package.$i") > "$tmp/diff"; then
      bad "$label: the engines differ:"; head -20 "$tmp/diff"; tp_error
    else
      ok
    fi
  done
}
for f in "$tmp"/rules/*.xplane.pb; do
  queries "$f" "${f%.xplane.pb}.pftrace" "DOT.4?"
done
# the bundled demo (tools/report.sh's generator options): an HloProto beside the profile,
# whose rewrite of the hot ops' paths the converter carries in the trace (issue 39 item 9:
# the engines printed `command_buffer` against the HloProto's path); the summary must name
# such a path, and every canned query print the same bytes on both engines
"$BUILD/tools/xplane_gen" --out "$tmp/demo" --run demo --style gpu --hosts 2 --devices 2 --steps 12 \
  --ops-per-step 64 --seed 7 > /dev/null
demo=$tmp/demo/plugins/profile/demo/host0.xplane.pb
"$CONV" -o "$tmp/demo0.pftrace" "$demo" > /dev/null
if [ -f "$tmp/demo/plugins/profile/demo/jit_train_step.hlo_proto.pb" ] &&
   [ "$("$SQLITE3" -cmd ".load $EXT" :memory: "SELECT count(*) > 0 FROM xplane_hlo_op_paths('$demo')")" = 1 ]; then
  ok
else
  bad "demo: no HloProto rewrite beside the generated profile"
fi
queries "$demo" "$tmp/demo0.pftrace" "fusion.0"

# ---- 3. errors ----
# A trace without the source record: the hand-written one (not converted by
# xplane2perfetto), and the fixture's Chrome JSON trace (args.* keys).
tp_plugin/tp_query.sh queries/summary.sql > "$tmp/s.sql"
"$CONV" --format json -o "$tmp/fx.json" "$tmp/fx.xplane.pb" > /dev/null
for t in "$tmp/keys.pftrace" "$tmp/fx.json"; do
  [ -f "$t" ] || continue
  tp "$t" "$tmp/s.sql" > /dev/null
  case $(tp_error) in
    *"xplane queries: no profile:"*"in trace processor: the trace has no xplane.source record"*"xplane2perfetto -o HOST.pftrace HOST.xplane.pb"*) ok ;;
    *) bad "$(basename "$t"): no source record: $(tp_error)" ;;
  esac
done

# ---- 5. Python: a multi-host logdir through (Batch)TraceProcessor ----
multihost() {
  local a=$1 b=$2 f
  # the project venv's Python (requirements.txt pins protobuf and pandas), else Debian's
  local py=${PYTHON3:-} pypath=${PERFETTO_PYTHON:-$SRC/../shared/tools/python}
  [ -n "$py" ] || { [ -x "$VENV/bin/python" ] && py=$VENV/bin/python || py=/usr/bin/python3; }
  if ! PYTHONPATH=$pypath "$py" -c 'import perfetto.batch_trace_processor.api, pandas' 2> /dev/null; then
    if [ "${CI:-}" = true ] && [ "$py" = "$VENV/bin/python" ]; then
      bad "multi-host Python: the project venv ($py) cannot import perfetto (at $pypath) and pandas"
    else
      echo "SKIP (Python part): no perfetto package at $pypath or no pandas for $py (set PERFETTO_PYTHON; tools/venv.sh)"
    fi
    return
  fi
  rm -rf "$tmp/mh"
  mkdir -p "$tmp/mh/logdir/plugins/profile/run1"
  cp "$a" "$tmp/mh/logdir/plugins/profile/run1/hostA.xplane.pb"
  cp "$b" "$tmp/mh/logdir/plugins/profile/run1/hostB.xplane.pb"
  "$CONV" -o "$tmp/mh/traces" "$tmp/mh/logdir" > /dev/null
  for f in "$tmp"/mh/logdir/plugins/profile/run1/*.xplane.pb; do
    "$SQLITE3" -bail -cmd ".load $EXT" :memory: "
      SELECT s.host, 'steps', count(st.step), coalesce(sum(st.dur_ps), 0), coalesce(max(st.dur_ps), 0)
      FROM xplane_space('$f') s LEFT JOIN xplane_steps('$f') st GROUP BY s.host;
      SELECT s.host, 'top', o.rank, o.name, o.self_ps FROM xplane_space('$f') s,
        (SELECT row_number() OVER (ORDER BY sum(self_ps) DESC, name) AS rank, name, sum(self_ps) AS self_ps
         FROM xplane_ops('$f') GROUP BY name ORDER BY rank LIMIT 5) o;
      SELECT (SELECT host FROM xplane_space('$f')), 'ops', count(*) FROM xplane_ops('$f');"
  done | sort > "$tmp/mh/want"
  if ! PYTHONPATH=$pypath "$py" tests/tp_multihost.py "$TP" "$PKG" "$tmp/mh/traces" > "$tmp/mh/got" 2> "$tmp/mh/err"; then
    bad "multi-host Python: $(tail -5 "$tmp/mh/err")"
  elif [ "$(grep -c . "$tmp/mh/want")" -lt 4 ] || ! diff "$tmp/mh/want" "$tmp/mh/got" > "$tmp/diff"; then
    bad "multi-host Python: the per-host numbers differ from the extension's:"; head -10 "$tmp/diff"
  else
    ok
    echo "multi-host Python: $(grep -c . "$tmp/mh/got") per-host lines equal the extension's"
  fi
}

# ---- 6. numbers: xplane_repr against Python's repr ----
repr_cases() {
  local py=${PYTHON3:-/usr/bin/python3}
  "$py" - "$tmp/repr.sql" "$tmp/repr.want" <<'PY'
import random, struct, sys
random.seed(7)
vals = [random.randint(1, 10 ** random.randint(1, 15)) / 1e6 for _ in range(6000)]
vals += [random.randint(1, 10 ** random.randint(1, 15)) / 10 ** random.randint(0, 18) for _ in range(3000)]
for _ in range(3000):
    x = abs(struct.unpack('<d', struct.pack('<Q', random.getrandbits(64)))[0])
    if x == x and x != float('inf') and x != 0:
        vals.append(x)
vals += [random.random() * 10 ** random.randint(-6, 17) for _ in range(3000)]
vals += [float(random.randint(1, 10 ** 15)) for _ in range(1000)]
vals += [0.1, 0.2, 0.3, 1 / 3, 2 / 3, 123.0, 1e15, 1e16, 9.999999999999999e14, 0.0001, 0.00012345678901234,
         1e-05, 5e-324, 1.7976931348623157e308, 100.0, 0.5, 1e-4 * 0.999999999999999, 123456789012345.6]
with open(sys.argv[1], 'w') as f:
    f.write('INCLUDE PERFETTO MODULE xplane.format;\nCREATE PERFETTO TABLE _repr_case AS SELECT column1 AS i, column2 AS x FROM (VALUES ')
    f.write(','.join('(%d, %r)' % (i, x) for i, x in enumerate(vals)))
    f.write(');\nSELECT i, xplane_repr(x) FROM _repr_case ORDER BY i;\n')
with open(sys.argv[2], 'w') as f:
    f.writelines('%d,"%r"\n' % (i, x) for i, x in enumerate(vals))
PY
  "$CONV" -o "$tmp/repr.pftrace" "$tmp/rules/steps_light_heavy.xplane.pb" > /dev/null
  if ! tp "$tmp/repr.pftrace" "$tmp/repr.sql" > "$tmp/repr.got"; then
    bad "xplane_repr: trace processor fails: $(tp_error 4)"
  elif [ "$(grep -c . "$tmp/repr.want")" -lt 16000 ] || ! diff "$tmp/repr.want" "$tmp/repr.got" > "$tmp/diff"; then
    bad "xplane_repr differs from Python's repr:"; head -10 "$tmp/diff"
  else
    ok
    echo "xplane_repr: $(grep -c . "$tmp/repr.got") doubles printed as Python's repr prints them"
  fi
  printf 'INCLUDE PERFETTO MODULE xplane.format;\nSELECT e, digits FROM _xplane_pow ORDER BY e;\n' > "$tmp/pow.sql"
  "$py" -c '
rows = [(0, 1)] + [(62 * q, 2 ** (62 * q)) for q in range(1, 16)] + [(-27 * q, 5 ** (27 * q)) for q in range(1, 41)]
for e, d in sorted(rows):
    print("%d,\"%d\"" % (e, d))' > "$tmp/pow.want"
  if ! tp "$tmp/repr.pftrace" "$tmp/pow.sql" > "$tmp/pow.got"; then
    bad "_xplane_pow: trace processor fails: $(tp_error 4)"
  elif ! diff "$tmp/pow.want" "$tmp/pow.got" > "$tmp/diff"; then
    bad "_xplane_pow differs from Python's powers:"; head -c 600 "$tmp/diff"; echo
  else
    ok
  fi
}
repr_cases

# ---- the real profiles ----
shopt -s nullglob
files=("$DATA"/*.xplane.pb)
if [ ${#files[@]} -eq 0 ]; then
  multihost "$tmp/rules/steps_light_heavy.xplane.pb" "$tmp/rules/comm_heavy.xplane.pb"
  echo "$pass passed, $fail failed (fixtures only)"
  echo "SKIP: no real profiles in $DATA"
  [ $fail -eq 0 ] && exit 77 || exit 1
fi
for f in "${files[@]}"; do
  h=$(basename "$f" .xplane.pb)
  "$CONV" -o "$tmp/$h.pftrace" "$f" > /dev/null
  check_import "$f" "$tmp/$h.pftrace" "$h"
  compare_package "$f" "$tmp/$h.pftrace" "$h"
  # the op with the largest pre-op gap, as a user would ask about it
  op=$("$SQLITE3" -cmd ".load $EXT" :memory: \
    "SELECT gap_payload_name FROM xplane_ops('$f') ORDER BY gap_before_ps DESC, op_id LIMIT 1")
  queries "$f" "$tmp/$h.pftrace" "$op"
  # tools/tp_floor.sql (tools/bench.sh's lower bound) runs in trace processor
  # and picks by line name exactly the ops the extension's rule picks
  want=$("$SQLITE3" -cmd ".load $EXT" :memory: "SELECT count(*) FROM xplane_ops('$f')")
  if "$TP" -q tools/tp_floor.sql "$tmp/$h.pftrace" > "$tmp/floor.out" 2> "$tmp/tp.err"; then
    got=$(tail -1 "$tmp/floor.out" | cut -d, -f2)
    [ "$got" = "$want" ] && ok || bad "$h: tools/tp_floor.sql counts $got ops, the extension $want"
  else
    bad "$h: tools/tp_floor.sql fails in trace processor: $(tp_error 4)"
  fi
  rm -f "$tmp/$h.pftrace"
done
# gpu_mw has steps; any second profile
if [ -f "$DATA/gpu_mw.xplane.pb" ] && [ -f "$DATA/tracelens_jax08_gemm.xplane.pb" ]; then
  multihost "$DATA/gpu_mw.xplane.pb" "$DATA/tracelens_jax08_gemm.xplane.pb"
else
  multihost "${files[0]}" "${files[1]:-${files[0]}}"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
