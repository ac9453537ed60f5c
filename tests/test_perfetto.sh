#!/usr/bin/env bash
# test_perfetto.sh: the Perfetto converter, the extension's Perfetto-shaped
# tables and the PerfettoSQL package (tp_plugin/), without trace_processor.
#
#   XPLANE_BUILD=build XPLANE_SRC=. XPLANE_DATA=../shared/data bash tests/test_perfetto.sh
#
# 1. The fixture (tests/make_perfetto_fixture.c) converted by xplane2perfetto:
#    `protoc --decode` of the trace equals tests/golden/perfetto/fixture.textproto,
#    the Chrome JSON equals fixture.json (flows included), and an independent
#    importer (tests/perfetto_import.c: trace processor's sorting and strict
#    nesting) gives exactly fixture_slices.txt and exactly the extension's
#    xplane_pf_slice / xplane_pf_args / xplane_pf_thread_track rows; its flow
#    is exactly launch -> kernel in xplane_pf_flow. Refusals (.pb output,
#    output = input), xplane_to_perfetto (same bytes as the CLI), a logdir
#    per host (the traces differ from the file's only in its identity) and
#    merged (one `[<host>] xplane source` record per host). The fixture's
#    path, run and mtime (in its source record) are fixed or replaced by
#    @TMP@ / @RUN@ before comparing with the goldens.
# 2. The PerfettoSQL package against the extension (package_compare.sql,
#    with the hand-written rule inputs of rule_cases.sql): xplane_ops (every
#    column), xplane_steps, xplane_scopes, xplane_tracks, xplane_op_names,
#    xplane_hints, the breakdown and the rule functions, row for row, on the
#    fixture, on every rule fixture (tests/make_rule_fixtures.c) and on
#    package_cases.json (a JSON trace: host step annotations tied to ops by
#    correlation_id, stats JSON escapes, duplicate stats, region pruning),
#    whose package tables are also checked by hand (package_cases.txt), and
#    on package_cases.json read in place of a cut XPlane (xplane_files says
#    xplane_pb, xplane_space perfetto_trace_json). In each, the package's
#    xplane_files and xplane_space (module xplane.source, from the trace's
#    source record) equal the extension's rows, every column.
# 3. Every real profile in $XPLANE_DATA (exit 77 without it, or without
#    protoc): BEGIN/END pairs = events with a start and duration > 0,
#    instants = zero-duration events + the one source record (`xplane.source`:
#    slice 0, at the earliest ts, its sha256 = sha256sum of the file, its
#    n_events = xplane_space.n_events), the importer's slices and args = the
#    extension's tables, every annotation = the event's effective stat in
#    xplane_stats, the flows = consecutive slices of each correlation id (and
#    the importer's flow_ids count; the Chrome JSON's flow attributes start
#    each flow at its earliest slice), and the package = the extension as in
#    2 (exact ps).
set -euo pipefail

. "$(dirname "$0")/test_env.sh"
GOLDEN=$SRC/tests/golden/perfetto
CONV=$BUILD/tp_plugin/xplane2perfetto
IMPORT=$BUILD/tests/perfetto_import
SHIM=$BUILD/tests/perfetto_sql_shim
PKG=$SRC/tp_plugin/xplane

if ! command -v protoc >/dev/null; then
  echo "SKIP: protoc is not installed (apt-get install protobuf-compiler)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
decode() { protoc --decode=perfetto.protos.Trace -I "$SRC/schema" "$SRC/schema/perfetto_trace.proto" < "$1"; }
# xplane_to_perfetto writes files only when the environment allows it (README:
# Security); every output here is a new file under $tmp.
export XPLANE_FILE_OUTPUT=new
sql() { "$SQLITE3" -batch -bail -cmd ".load $EXT" "$@"; }
# The fixture's identity in its source record (path under $tmp, run = the
# name of $tmp) as the goldens write it.
run=$(basename "$tmp")
normalize() { sed -e "s#$tmp/#@TMP@/#g" -e "s#\"$run\"#\"@RUN@\"#g" "$@"; }

# The importer's tables against the extension's, for one trace of one profile.
# Prints nothing when they are identical.
compare_tables() {
  local profile=$1 import_sql=$2
  sql "$tmp/cmp.db" <<EOF
.read $import_sql
CREATE TEMP TABLE ext_slice AS SELECT id, ts, dur, track_id, category, name, depth, parent_id FROM xplane_pf_slice('$profile');
CREATE TEMP TABLE ext_args AS SELECT arg_set_id, key, int_value, string_value, real_value, value_type FROM xplane_pf_args('$profile');
-- the thread tracks, and the source record's global track (no thread)
CREATE TEMP TABLE ext_track AS SELECT tt.id, tt.name, t.tid FROM xplane_pf_thread_track('$profile') tt
  JOIN xplane_pf_thread('$profile') t USING (utid)
  UNION ALL SELECT track_id, 'xplane source', NULL FROM ext_slice WHERE category = 'xplane' AND name = 'xplane.source';
SELECT 'slice only in import', * FROM (SELECT * FROM imp_slice EXCEPT SELECT * FROM ext_slice) LIMIT 5;
SELECT 'slice only in extension', * FROM (SELECT * FROM ext_slice EXCEPT SELECT * FROM imp_slice) LIMIT 5;
SELECT 'arg only in import', * FROM (SELECT arg_set_id, key, int_value, string_value, real_value, value_type FROM imp_args
  EXCEPT SELECT * FROM ext_args) LIMIT 5;
SELECT 'arg only in extension', * FROM (SELECT * FROM ext_args EXCEPT
  SELECT arg_set_id, key, int_value, string_value, real_value, value_type FROM imp_args) LIMIT 5;
SELECT 'track only in import', * FROM (SELECT * FROM imp_track EXCEPT SELECT * FROM ext_track);
SELECT 'track only in extension', * FROM (SELECT * FROM ext_track EXCEPT SELECT * FROM imp_track);
SELECT 'row counts differ' WHERE (SELECT count(*) FROM imp_slice) <> (SELECT count(*) FROM ext_slice)
  OR (SELECT count(*) FROM imp_args) <> (SELECT count(*) FROM ext_args);
EOF
  rm -f "$tmp/cmp.db"
}

# The package against the extension on one profile: 16 "<object>|N|N"
# lines with equal counts, then exactly the EXPECTED lines (the known
# differences, given exactly; none by default), and nothing else (fails
# otherwise); prints the 16 lines on one line.
compare_package() {
  local profile=$1 expected=${2:-} out
  { cat "$GOLDEN/rule_cases.sql"; sed "s#@PROFILE@#'$profile'#" "$GOLDEN/package_compare.sql"; } > "$tmp/pkg.sql"
  out=$("$SHIM" "$EXT" "$PKG" "$profile" "$tmp/pkg.sql") || fail "$profile: the package failed: $out"
  { echo "$out" | head -16 | awk -F'|' 'NF != 3 || $2 != $3 { bad = 1 } END { exit bad || NR != 16 }' &&
    [ "$(echo "$out" | tail -n +17)" = "$expected" ]; } ||
    fail "$profile: the package differs from the extension: $out"
  echo "$out" | head -16 | paste -sd' '
}

# xplane_pf_flow against the flow ids: each slice with an int correlation_id
# linked to the previous slice of that id (slice ids in import order), flow
# ids in the order of their incoming slice. Prints the flow count.
check_flows() {
  local profile=$1 d
  d=$(sql :memory: "
    CREATE TEMP TABLE tagged AS SELECT arg_set_id AS id, int_value AS fid FROM xplane_pf_args('$profile')
      WHERE key = 'debug.correlation_id' AND value_type IN ('int', 'uint') AND int_value != 0;
    CREATE TEMP TABLE want AS SELECT row_number() OVER (ORDER BY id) - 1 AS id, prev AS slice_out, id AS slice_in
      FROM (SELECT id, lag(id) OVER (PARTITION BY fid ORDER BY id) AS prev FROM tagged) WHERE prev IS NOT NULL;
    CREATE TEMP TABLE got AS SELECT id, slice_out, slice_in FROM xplane_pf_flow('$profile');
    SELECT 'flow missing', * FROM (SELECT * FROM want EXCEPT SELECT * FROM got) LIMIT 5;
    SELECT 'flow extra', * FROM (SELECT * FROM got EXCEPT SELECT * FROM want) LIMIT 5;")
  [ -z "$d" ] || fail "$profile: xplane_pf_flow differs from the flow ids: $d"
  sql :memory: "SELECT count(*) FROM xplane_pf_flow('$profile')"
}

# ---- 1. the fixture ----
"$BUILD/tests/make_perfetto_fixture" "$tmp/fx.xplane.pb"
touch -d @1700000000 "$tmp/fx.xplane.pb" # its mtime_ns in the source record
out=$("$CONV" "$tmp/fx.xplane.pb")
[ "$out" = '{"files_in":1,"files_out":1,"slices":18,"instants":2,"skipped_untimed":1,"skipped_invalid":1,"processes":3,"threads":5,"tracks":7,"sources":1,"records":53}' ] ||
  fail "fixture conversion counts: $out"
[ -f "$tmp/fx.pftrace" ] || fail "default output name is not fx.pftrace"
decode "$tmp/fx.pftrace" | normalize > "$tmp/fx.textproto"
diff -u "$GOLDEN/fixture.textproto" "$tmp/fx.textproto" || fail "fixture trace differs from the golden textproto"
"$IMPORT" "$tmp/fx.pftrace" > "$tmp/fx.sql"
sql "$tmp/fx_only.db" ".read $tmp/fx.sql" ".mode list" \
  "SELECT * FROM imp_slice ORDER BY id" "SELECT * FROM imp_count" > "$tmp/fx_slices.txt"
diff -u "$GOLDEN/fixture_slices.txt" "$tmp/fx_slices.txt" || fail "imported fixture slices differ from the golden"
d=$(compare_tables "$tmp/fx.xplane.pb" "$tmp/fx.sql")
[ -z "$d" ] || fail "fixture: extension tables differ from the imported trace: $d"
"$CONV" --format json -o "$tmp/fx.json" "$tmp/fx.xplane.pb" > /dev/null
normalize "$tmp/fx.json" | diff -u "$GOLDEN/fixture.json" - || fail "fixture Chrome JSON differs from the golden"

# The command line: --help on stdout (status 0), `PATH OUT` refused with the
# right spelling (status 2).
"$CONV" --help > "$tmp/help" || fail "xplane2perfetto --help: status $?"
head -1 "$tmp/help" | grep -qx 'usage: xplane2perfetto \[--format proto|json\] \[--merge\] \[-o OUT\] PATH' ||
  fail "xplane2perfetto --help: $(head -1 "$tmp/help")"
set +e
"$CONV" "$tmp/fx.xplane.pb" "$tmp/out.pftrace" > /dev/null 2> "$tmp/err"
rc=$?
set -e
[ $rc = 2 ] && grep -qF "one PATH only; name the output with -o: xplane2perfetto -o $tmp/out.pftrace $tmp/fx.xplane.pb" "$tmp/err" ||
  fail "xplane2perfetto PATH OUT: status $rc, $(cat "$tmp/err")"

# Refusals: a .pb output name, the input itself.
if "$CONV" -o "$tmp/out.xplane.pb" "$tmp/fx.xplane.pb" 2> "$tmp/err"; then fail ".pb output accepted"; fi
grep -q "refusing to write a trace to a .pb name" "$tmp/err" || fail "no .pb refusal message: $(cat "$tmp/err")"
cp "$tmp/fx.xplane.pb" "$tmp/same.xplane.pb"
ln -s same.xplane.pb "$tmp/link.pftrace"
if "$CONV" -o "$tmp/link.pftrace" "$tmp/same.xplane.pb" 2> "$tmp/err"; then fail "output onto the input accepted"; fi
grep -q "refusing to write over the input profile" "$tmp/err" || fail "no overwrite refusal: $(cat "$tmp/err")"
cmp -s "$tmp/fx.xplane.pb" "$tmp/same.xplane.pb" || fail "the input was modified"

# The SQL function writes the same bytes; modes and errors.
n=$(sql :memory: "SELECT xplane_to_perfetto('$tmp/fx.xplane.pb', '$tmp/sqlfn.pftrace')")
[ "$n" = 20 ] || fail "xplane_to_perfetto returned $n, expected 20"
cmp "$tmp/fx.pftrace" "$tmp/sqlfn.pftrace" || fail "xplane_to_perfetto and xplane2perfetto differ"
n=$(sql :memory: "SELECT xplane_to_perfetto('$tmp/fx.xplane.pb', '$tmp/sqlfn.json', 'json')")
[ "$n" = 20 ] && normalize "$tmp/sqlfn.json" | cmp -s "$GOLDEN/fixture.json" - || fail "xplane_to_perfetto json mode"
if sql :memory: "SELECT xplane_to_perfetto('$tmp/fx.xplane.pb', '$tmp/x.pftrace', 'bogus')" 2> "$tmp/err"; then
  fail "bad mode accepted"
fi
grep -q "mode must be 'per_host', 'merged', 'json' or 'json_merged'" "$tmp/err" || fail "bad mode message: $(cat "$tmp/err")"

# A logdir of two hosts: one trace per host (the fixture's trace but for the
# file's path, run and host in its source record), or one merged trace.
mkdir -p "$tmp/logdir/plugins/profile/run1"
cp -p "$tmp/fx.xplane.pb" "$tmp/logdir/plugins/profile/run1/hostA.xplane.pb"
cp -p "$tmp/fx.xplane.pb" "$tmp/logdir/plugins/profile/run1/hostB.xplane.pb"
"$CONV" -o "$tmp/traces" "$tmp/logdir" > /dev/null
for h in hostA hostB; do
  decode "$tmp/traces/plugins/profile/run1/$h.pftrace" |
    sed -e "s#\"$tmp/logdir/plugins/profile/run1/$h.xplane.pb\"#\"@TMP@/fx.xplane.pb\"#g" -e 's#"run1"#"@RUN@"#' \
      -e "s#\"$h\"#\"fx\"#" | diff -u "$tmp/fx.textproto" - || fail "per-host trace of $h"
done
out=$("$CONV" --merge -o "$tmp/merged.pftrace" "$tmp/logdir")
[ "$out" = '{"files_in":2,"files_out":1,"slices":36,"instants":4,"skipped_untimed":2,"skipped_invalid":2,"processes":6,"threads":10,"tracks":14,"sources":2,"records":106}' ] ||
  fail "merged counts: $out"
# one source record per host, on its own global track, at its host's first ts
# (hostB's comes after hostA's slices of that ts: trace order breaks ties; hostA's
# source record, its 3 plane records, its cuLaunchKernel at 1000 ns: id 5)
"$IMPORT" "$tmp/merged.pftrace" > "$tmp/merged.sql"
srcs=$(sql "$tmp/merged.db" ".read $tmp/merged.sql" "
  SELECT s.id, s.ts, t.name, t.tid IS NULL, a.string_value FROM imp_slice s JOIN imp_track t ON t.id = s.track_id
    JOIN imp_args a ON a.arg_set_id = s.id AND a.key = 'debug.xplane_source_host'
   WHERE s.category = 'xplane' AND s.name = 'xplane.source' ORDER BY s.id" | paste -sd' ')
[ "$srcs" = '0|1000|[hostA] xplane source|1|hostA 5|1000|[hostB] xplane source|1|hostB' ] || fail "merged source records: $srcs"
decode "$tmp/merged.pftrace" | grep -A2 '^    process {' | grep -E 'pid|process_name' | sed 's/^ *//' |
  paste -sd' ' > "$tmp/procs.txt"
[ "$(cat "$tmp/procs.txt")" = 'pid: 1 process_name: "[hostA] /host:CPU" pid: 2 process_name: "[hostA] /device:GPU:0" pid: 3 process_name: "[hostA] xplane:2" pid: 4 process_name: "[hostB] /host:CPU" pid: 5 process_name: "[hostB] /device:GPU:0" pid: 6 process_name: "[hostB] xplane:2"' ] ||
  fail "merged processes: $(cat "$tmp/procs.txt")"
# flows: correlation_id 7 on each host, kept apart (host ordinal << 48)
flows=$(decode "$tmp/merged.pftrace" | grep 'flow_ids:' | sort | uniq -c | awk '{print $1 ":" $3}' | paste -sd' ')
[ "$flows" = "2:281474976710663 2:7" ] || fail "merged flow ids: $flows"

flows=$(sql :memory: "SELECT f.id, o.name, i.name FROM xplane_pf_flow('$tmp/fx.xplane.pb') f
  JOIN xplane_pf_slice('$tmp/fx.xplane.pb') o ON o.id = f.slice_out JOIN xplane_pf_slice('$tmp/fx.xplane.pb') i ON i.id = f.slice_in")
[ "$flows" = "0|cuLaunchKernel|kernel" ] || fail "fixture flows: $flows"
[ "$(check_flows "$tmp/fx.xplane.pb")" = 1 ] || fail "fixture: xplane_pf_flow"
echo "fixture: trace, JSON, import, tables, flows, refusals, SQL function and logdir all match"

# ---- 2. the package against the extension ----
out=$(compare_package "$tmp/fx.xplane.pb")
[ "$out" = "ops|11|11 steps|0|0 scopes|8|8 tracks|8|8 op_names|7|7 hints|0|0 breakdown|3|3 rules|186|186 files|1|1 space|1|1 gaps|1|1 op_tf_ops|1|1 events|20|20 devices|1|1 hlo_stats|7|7 kernel_stats|0|0" ] ||
  fail "fixture: package comparison: $out"
cases=$GOLDEN/package_cases.json
# Its event k_dup has the stat tf_op twice ("jit(a)/first", then
# "jit(b)/second"). The extension's xplane_ops lists both in the op's stats;
# the package reads the trace's args, where trace processor keeps one arg per
# key, the last value (xplane_pf_args does the same, checked below and against
# trace_processor_shell in test_trace_processor.sh): so the one op row differs
# in its stats column only, `{"tf_op":"jit(b)/second"}` in the package. Every
# other column is the same: the effective tf_op is the last one on both sides.
k_dup='11|2|/device:GPU:1|0|Stream #1(Kernel)|4|k_dup|k_dup||compute|||||jit(b)/second|b=>second|||||502000000|1000000|503000000|1000000|999000|11|k_dup|||||'
k_dup_diff="ops only native|$k_dup{\"tf_op\":\"jit(a)/first\",\"tf_op\":\"jit(b)/second\"}|502000|1000
ops only package|$k_dup{\"tf_op\":\"jit(b)/second\"}|502000|1000"
out=$(compare_package "$cases" "$k_dup_diff")
[ "$out" = "ops|14|14 steps|12|12 scopes|18|18 tracks|8|8 op_names|12|12 hints|5|5 breakdown|4|4 rules|216|216 files|1|1 space|1|1 gaps|12|12 op_tf_ops|8|8 events|28|28 devices|3|3 hlo_stats|13|13 kernel_stats|0|0" ] ||
  fail "package_cases.json: package comparison: $out"
# A key given twice on one slice (dup_keys.json): trace processor keeps one
# arg per key, the last value at the first one's position, and `x.y` and
# `x_y` are one key there (`debug.x_y`); found on trace_processor_shell
# v58.2, where test_trace_processor.sh checks this same trace. Event `many`
# has 23 annotations (the hash path of pf_import.c: over 16): k00..k19 with
# `x.y` after k04, then k03 again and `x_y`; k_dup has 5 (the scan path).
# So, in arg id order (xplane.* annotations aside): k00 0, k01 1, k02 2,
# k03 'again', k04 4, x_y 'under', k05 5 .. k19 19; a 1, tf_op
# 'jit(b)/second', b 2, c 3.
got=$(sql :memory: "SELECT group_concat(r, ' ') FROM (SELECT s.name || ':' || substr(a.key, 7) || '=' ||
  coalesce(a.int_value, a.string_value) AS r FROM xplane_pf_slice('$GOLDEN/dup_keys.json') s
  JOIN xplane_pf_args('$GOLDEN/dup_keys.json') a USING (arg_set_id)
  WHERE s.name IN ('many', 'k_dup') AND a.key NOT GLOB 'debug.xplane_*' ORDER BY s.id, a.id)")
want="many:k00=0 many:k01=1 many:k02=2 many:k03=again many:k04=4 many:x_y=under"
for i in 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19; do want="$want many:k$i=$((10#$i))"; done
want="$want k_dup:a=1 k_dup:tf_op=jit(b)/second k_dup:b=2 k_dup:c=3"
[ "$got" = "$want" ] || fail "xplane_pf_args with repeated keys: $got"
# The same JSON trace read in place of a cut XPlane: xplane_files says what
# the file looks like, xplane_space what was read (the source record's
# file_source_format and source_format).
mkdir -p "$tmp/fallback/r1"
head -c 100 "$tmp/fx.xplane.pb" > "$tmp/fallback/r1/h.xplane.pb"
cp "$cases" "$tmp/fallback/r1/h.trace.json"
formats=$(sql :memory: "SELECT f.source_format, s.source_format FROM xplane_files('$tmp/fallback/r1/h.xplane.pb') f,
  xplane_space('$tmp/fallback/r1/h.xplane.pb') s")
[ "$formats" = "xplane_pb|perfetto_trace_json" ] || fail "fallback: source formats $formats"
out=$(compare_package "$tmp/fallback/r1/h.xplane.pb" "$k_dup_diff")
[ "$out" = "ops|14|14 steps|12|12 scopes|18|18 tracks|8|8 op_names|12|12 hints|5|5 breakdown|4|4 rules|216|216 files|1|1 space|1|1 gaps|12|12 op_tf_ops|8|8 events|28|28 devices|3|3 hlo_stats|13|13 kernel_stats|0|0" ] ||
  fail "fallback JSON trace: package comparison: $out"
"$SHIM" "$EXT" "$PKG" "$cases" "$GOLDEN/package_cases_query.sql" > "$tmp/cases.txt"
diff -u "$GOLDEN/package_cases.txt" "$tmp/cases.txt" || fail "package_cases.json: the package's tables differ from the golden"
mkdir -p "$tmp/rules"
"$BUILD/tests/make_rule_fixtures" "$tmp/rules" > /dev/null
n=0
for f in "$tmp"/rules/*.xplane.pb; do
  compare_package "$f" > /dev/null
  n=$((n + 1))
done
[ "$n" = 13 ] || fail "expected 13 rule fixtures, compared $n"
echo "package: fixture, package_cases.json (and its golden, and read in place of a cut XPlane) and $n rule fixtures match the extension"

# ---- 3. real profiles ----
shopt -s nullglob
files=("$DATA"/*.xplane.pb)
if [ ${#files[@]} -eq 0 ]; then
  echo "SKIP: no *.xplane.pb in $DATA (set XPLANE_DATA to the real profiles)"
  exit 77
fi
for f in "${files[@]}"; do
  h=$(basename "$f" .xplane.pb)
  conv=$("$CONV" -o "$tmp/$h.pftrace" "$f")
  "$IMPORT" "$tmp/$h.pftrace" > "$tmp/$h.sql"
  counts=$(sql "$tmp/$h.db" ".read $tmp/$h.sql" "
    SELECT (SELECT n FROM imp_count WHERE what = 'begin') || ' ' || (SELECT n FROM imp_count WHERE what = 'end')
      || ' ' || (SELECT n FROM imp_count WHERE what = 'instant');
    SELECT sum(start_ps IS NOT NULL AND dur_ps > 0) || ' ' || sum(start_ps IS NOT NULL AND dur_ps > 0)
      || ' ' || sum(start_ps IS NOT NULL AND dur_ps = 0) FROM xplane_events('$f');
    CREATE TEMP TABLE src AS SELECT s.id, s.ts, s.dur, t.tid FROM imp_slice s JOIN imp_track t ON t.id = s.track_id
      WHERE s.category = 'xplane' AND s.name = 'xplane.source';
    SELECT count(*), min(id), min(ts) = (SELECT min(ts) FROM imp_slice), max(dur), min(tid IS NULL),
      (SELECT string_value FROM imp_args WHERE arg_set_id = (SELECT min(id) FROM src) AND key = 'debug.xplane_source_sha256'),
      (SELECT int_value FROM imp_args WHERE arg_set_id = (SELECT min(id) FROM src) AND key = 'debug.xplane_source_n_events')
      FROM src;
    SELECT n_events FROM xplane_space('$f');
    SELECT n_planes FROM xplane_space('$f');")
  first=$(echo "$counts" | sed -n 1p)
  second=$(echo "$counts" | sed -n 2p)
  read -r nb ne ni <<< "$first"
  read -r eb ee ei <<< "$second"
  # the trace's instants: the zero-duration events, the one source record and
  # one plane record per plane
  n_planes=$(echo "$counts" | sed -n 5p)
  [ "$nb $ne $ni" = "$eb $ee $((ei + 1 + n_planes))" ] ||
    fail "$h: begin/end/instant $first in the trace, events $second + 1 source + $n_planes planes"
  # the source record: exactly one, slice 0 at the earliest ts, an instant on
  # a global track, with the file's sha256 and every event counted
  n_events=$(echo "$counts" | sed -n 4p)
  want="1|0|1|0|1|$(sha256sum "$f" | cut -c1-64)|$n_events"
  [ "$(echo "$counts" | sed -n 3p)" = "$want" ] || fail "$h: source record $(echo "$counts" | sed -n 3p), expected $want"
  # n_events = the converted events + the skipped ones (the CLI's counts)
  conv_events=$(echo "$conv" | sed -E 's/.*"slices":([0-9]+),"instants":([0-9]+),"skipped_untimed":([0-9]+),"skipped_invalid":([0-9]+),.*"sources":1,.*/\1 + \2 + \3 + \4/')
  [ "$((conv_events))" = "$n_events" ] || fail "$h: converted + skipped events $conv_events, xplane_space.n_events $n_events"
  d=$(compare_tables "$f" "$tmp/$h.sql")
  [ -z "$d" ] || fail "$h: extension tables differ from the imported trace: $d"
  # Every annotation round-trips: the importer's args of each slice against
  # the event's effective stats (doubles compared as numbers, the rest as text).
  # A slice's event: the plane of its thread's process (the plane record with
  # that pid), its own xplane.line_index, else the line whose first slice
  # (with xplane.line_id) has the slice's thread and category, the one line
  # there, and its xplane.event_index.
  d=$(sql "$tmp/$h.db" "
    CREATE TEMP TABLE invalid AS SELECT plane_index, line_index, event_index FROM xplane_events('$f')
      WHERE dur_ps < 0;
    CREATE TEMP TABLE own AS SELECT arg_set_id,
      max(CASE WHEN key = 'debug.xplane_line_index' THEN int_value END) AS l,
      max(CASE WHEN key = 'debug.xplane_event_index' THEN int_value END) AS e,
      max(key = 'debug.xplane_line_id') AS first
      FROM imp_args GROUP BY arg_set_id;
    CREATE TEMP TABLE prec AS SELECT
      max(CASE WHEN key = 'debug.xplane_plane_pid' THEN int_value END) AS pid,
      max(CASE WHEN key = 'debug.xplane_plane_plane_index' THEN int_value END) AS p
      FROM imp_args WHERE key GLOB 'debug.xplane_plane_*' GROUP BY arg_set_id;
    CREATE TEMP TABLE sl AS SELECT s.id, s.category, t.tid, pr.p, o.l, o.e, o.first
      FROM imp_slice s JOIN imp_track t ON t.id = s.track_id JOIN imp_thread USING (tid)
      JOIN prec pr USING (pid) JOIN own o ON o.arg_set_id = s.id;
    CREATE TEMP TABLE line AS SELECT tid, category, max(l) AS l FROM sl WHERE first
      GROUP BY tid, category HAVING count(*) = 1;
    CREATE TEMP TABLE ident AS SELECT s.id AS arg_set_id, s.p, coalesce(s.l, n.l) AS l, s.e
      FROM sl s LEFT JOIN line n USING (tid, category);
    CREATE TEMP TABLE got AS SELECT i.p, i.l, i.e, substr(a.key, 7) AS name, a.text_value AS t, a.real_value AS r
      FROM imp_args a JOIN ident i USING (arg_set_id) WHERE a.key NOT LIKE 'debug.xplane\_%' ESCAPE '\'
        AND i.p IS NOT NULL;
    CREATE TEMP TABLE want AS SELECT plane_index AS p, line_index AS l, event_index AS e,
      replace(replace(replace(coalesce(nullif(name, ''), '#' || stat_id), '.', '_'), '[', '_'), ']', '_') AS name,
      CASE value_type WHEN 'bytes' THEN lower(hex(value)) WHEN 'double' THEN NULL ELSE CAST(value AS TEXT) END AS t,
      CASE value_type WHEN 'double' THEN value END AS r
      FROM xplane_stats('$f') s WHERE scope = 'event' AND value_type <> 'none' AND start_ps >= 0
        AND NOT EXISTS (SELECT 1 FROM invalid v WHERE v.plane_index = s.plane_index
                        AND v.line_index = s.line_index AND v.event_index = s.event_index);
    SELECT 'annotation missing', * FROM (SELECT * FROM want EXCEPT SELECT * FROM got) LIMIT 5;
    SELECT 'annotation extra', * FROM (SELECT * FROM got EXCEPT SELECT * FROM want) LIMIT 5;
    SELECT 'annotation counts', (SELECT count(*) FROM got), (SELECT count(*) FROM want)
      WHERE (SELECT count(*) FROM got) <> (SELECT count(*) FROM want);")
  [ -z "$d" ] || fail "$h: annotations differ from xplane_stats: $d"
  # the plane records: one per plane (index, id, name, pid = index + 1), each
  # with its plane stats (xplane_stats scope 'plane') as args
  d=$(sql "$tmp/$h.db" "
    CREATE TEMP TABLE rec AS SELECT s.id,
      max(CASE WHEN a.key = 'debug.xplane_plane_plane_index' THEN a.int_value END) AS p,
      max(CASE WHEN a.key = 'debug.xplane_plane_plane_id' THEN a.int_value END) AS pid_,
      max(CASE WHEN a.key = 'debug.xplane_plane_plane_name' THEN a.text_value END) AS name,
      max(CASE WHEN a.key = 'debug.xplane_plane_pid' THEN a.int_value END) AS pid
      FROM imp_slice s JOIN imp_args a ON a.arg_set_id = s.id
      WHERE s.category = 'xplane' AND s.name = 'xplane.plane' GROUP BY s.id;
    SELECT 'plane records', * FROM (SELECT p, pid_, name, pid FROM rec
      EXCEPT SELECT plane_index, plane_id, plane_name, plane_index + 1 FROM xplane_planes('$f'));
    SELECT 'plane record count', count(*) FROM rec HAVING count(*) <> (SELECT n_planes FROM xplane_space('$f'));
    CREATE TEMP TABLE pgot AS SELECT r.p, substr(a.key, 7) AS name, a.text_value AS t, a.real_value AS r
      FROM imp_args a JOIN rec r ON r.id = a.arg_set_id WHERE a.key NOT LIKE 'debug.xplane\_plane\_%' ESCAPE '\';
    CREATE TEMP TABLE pwant AS SELECT plane_index AS p,
      replace(replace(replace(coalesce(nullif(name, ''), '#' || stat_id), '.', '_'), '[', '_'), ']', '_') AS name,
      CASE value_type WHEN 'bytes' THEN lower(hex(value)) WHEN 'double' THEN NULL ELSE CAST(value AS TEXT) END AS t,
      CASE value_type WHEN 'double' THEN value END AS r
      FROM xplane_stats('$f') WHERE scope = 'plane' AND value_type <> 'none';
    SELECT 'plane stat missing', * FROM (SELECT * FROM pwant EXCEPT SELECT * FROM pgot) LIMIT 5;
    SELECT 'plane stat extra', * FROM (SELECT * FROM pgot EXCEPT SELECT * FROM pwant) LIMIT 5;")
  [ -z "$d" ] || fail "$h: plane records differ from the planes and their stats: $d"
  # flows: the table, the importer's flow_ids, the Chrome JSON's attributes
  nf=$(check_flows "$f")
  fl=$(sql "$tmp/$h.db" "SELECT n FROM imp_count WHERE what = 'flow_ids';
    SELECT count(*) FROM xplane_pf_args('$f') WHERE key = 'debug.correlation_id' AND value_type IN ('int', 'uint')
      AND int_value != 0;" | paste -sd' ')
  [ "${fl% *}" = "${fl#* }" ] || fail "$h: flow_ids in the trace / correlation ids: $fl"
  "$CONV" --format json -o "$tmp/$h.json" "$f" > /dev/null
  js=$(sql :memory: "
    CREATE TEMP TABLE ev AS SELECT value ->> 'bind_id' AS b, CAST(value ->> 'ts' AS REAL) AS ts,
      value ->> 'flow_in' IS NOT NULL AS fin FROM json_each(readfile('$tmp/$h.json'), '$.traceEvents')
      WHERE value ->> 'bind_id' IS NOT NULL;
    SELECT (SELECT count(*) FROM ev WHERE fin) || ' ' || (SELECT count(*) FROM ev e WHERE NOT fin
      AND ts = (SELECT min(ts) FROM ev x WHERE x.b = e.b)) || ' ' || (SELECT count(DISTINCT b) FROM ev);")
  [ "$js" = "$nf $((${fl% *} - nf)) $((${fl% *} - nf))" ] ||
    fail "$h: Chrome JSON flows (flow_in, starts at the earliest, ids) $js; flows $nf of ${fl% *} slices"
  out=$(compare_package "$f")
  echo "$h: $first (begin end instant) match the events and the source record; tables, $(sql "$tmp/$h.db" "SELECT count(*) FROM imp_args") args, $nf flows and the package match: $out"
  rm -f "$tmp/$h.db" "$tmp/$h.sql" "$tmp/$h.pftrace" "$tmp/$h.json"
done
echo "PASS"
