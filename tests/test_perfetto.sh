#!/usr/bin/env bash
# test_perfetto.sh: the Perfetto converter, the extension's Perfetto-shaped
# tables and the PerfettoSQL package (tp_plugin/), without trace_processor.
#
#   XPLANE_BUILD=build XPLANE_SRC=. XPLANE_DATA=../shared/data bash tests/test_perfetto.sh
#
# 1. The fixture (tests/make_perfetto_fixture.c) converted by xplane2perfetto:
#    `protoc --decode` of the trace equals tests/golden/perfetto/fixture.textproto,
#    the Chrome JSON equals fixture.json, and an independent importer
#    (tests/perfetto_import.c: trace processor's sorting and strict nesting)
#    gives exactly fixture_slices.txt and exactly the extension's
#    xplane_pf_slice / xplane_pf_args / xplane_pf_thread_track rows.
#    Refusals (.pb output, output = input), xplane_to_perfetto (same bytes as
#    the CLI), merged mode, and the package's xplane_ops = the extension's.
# 2. Every real profile in $XPLANE_DATA (exit 77 without it, or without
#    protoc): BEGIN/END pairs = events with a start and duration > 0,
#    instants = zero-duration events, the importer's slices and args = the
#    extension's tables, every annotation = the event's effective stat in
#    xplane_stats, and the package's xplane_ops and xplane_breakdown = the
#    extension's (tests/golden/perfetto/package_compare.sql; exact ps).
set -euo pipefail

SRC=${XPLANE_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${XPLANE_BUILD:-$SRC/build}
EXT=${XPLANE_EXT:-$BUILD/xplane}
DATA=${XPLANE_DATA:-$SRC/../shared/data}
SQLITE3=${SQLITE3:-sqlite3}
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
fail() { echo "FAIL: $*"; exit 1; }
decode() { protoc --decode=perfetto.protos.Trace -I "$SRC/schema" "$SRC/schema/perfetto_trace.proto" < "$1"; }
sql() { "$SQLITE3" -batch -bail -cmd ".load $EXT" "$@"; }

# The importer's tables against the extension's, for one trace of one profile.
# Prints nothing when they are identical.
compare_tables() {
  local profile=$1 import_sql=$2
  sql "$tmp/cmp.db" <<EOF
.read $import_sql
CREATE TEMP TABLE ext_slice AS SELECT id, ts, dur, track_id, category, name, depth, parent_id FROM xplane_pf_slice('$profile');
CREATE TEMP TABLE ext_args AS SELECT arg_set_id, key, int_value, string_value, real_value, value_type FROM xplane_pf_args('$profile');
CREATE TEMP TABLE ext_track AS SELECT tt.id, tt.name, t.tid FROM xplane_pf_thread_track('$profile') tt
  JOIN xplane_pf_thread('$profile') t USING (utid);
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

# The package's xplane_ops and xplane_breakdown against the extension's:
# "rows|N|N" and nothing else.
compare_ops() {
  local profile=$1
  sed "s#@PROFILE@#'$profile'#" "$GOLDEN/package_compare.sql" > "$tmp/ops.sql"
  "$SHIM" "$EXT" "$PKG" "$profile" "$tmp/ops.sql"
}

# ---- 1. the fixture ----
"$BUILD/tests/make_perfetto_fixture" "$tmp/fx.xplane.pb"
out=$("$CONV" "$tmp/fx.xplane.pb")
[ "$out" = '{"files_in":1,"files_out":1,"slices":15,"instants":2,"skipped_untimed":1,"skipped_invalid":1,"processes":3,"threads":4,"tracks":6,"records":41}' ] ||
  fail "fixture conversion counts: $out"
[ -f "$tmp/fx.pftrace" ] || fail "default output name is not fx.pftrace"
decode "$tmp/fx.pftrace" > "$tmp/fx.textproto"
diff -u "$GOLDEN/fixture.textproto" "$tmp/fx.textproto" || fail "fixture trace differs from the golden textproto"
"$IMPORT" "$tmp/fx.pftrace" > "$tmp/fx.sql"
sql "$tmp/fx_only.db" ".read $tmp/fx.sql" ".mode list" \
  "SELECT * FROM imp_slice ORDER BY id" "SELECT * FROM imp_count" > "$tmp/fx_slices.txt"
diff -u "$GOLDEN/fixture_slices.txt" "$tmp/fx_slices.txt" || fail "imported fixture slices differ from the golden"
d=$(compare_tables "$tmp/fx.xplane.pb" "$tmp/fx.sql")
[ -z "$d" ] || fail "fixture: extension tables differ from the imported trace: $d"
"$CONV" --format json -o "$tmp/fx.json" "$tmp/fx.xplane.pb" > /dev/null
diff -u "$GOLDEN/fixture.json" "$tmp/fx.json" || fail "fixture Chrome JSON differs from the golden"

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
[ "$n" = 17 ] || fail "xplane_to_perfetto returned $n, expected 17"
cmp "$tmp/fx.pftrace" "$tmp/sqlfn.pftrace" || fail "xplane_to_perfetto and xplane2perfetto differ"
n=$(sql :memory: "SELECT xplane_to_perfetto('$tmp/fx.xplane.pb', '$tmp/sqlfn.json', 'json')")
[ "$n" = 17 ] && cmp -s "$GOLDEN/fixture.json" "$tmp/sqlfn.json" || fail "xplane_to_perfetto json mode"
if sql :memory: "SELECT xplane_to_perfetto('$tmp/fx.xplane.pb', '$tmp/x.pftrace', 'bogus')" 2> "$tmp/err"; then
  fail "bad mode accepted"
fi
grep -q "mode must be 'per_host', 'merged', 'json' or 'json_merged'" "$tmp/err" || fail "bad mode message: $(cat "$tmp/err")"

# A logdir of two hosts: one trace per host, or one merged trace.
mkdir -p "$tmp/logdir/plugins/profile/run1"
cp "$tmp/fx.xplane.pb" "$tmp/logdir/plugins/profile/run1/hostA.xplane.pb"
cp "$tmp/fx.xplane.pb" "$tmp/logdir/plugins/profile/run1/hostB.xplane.pb"
"$CONV" -o "$tmp/traces" "$tmp/logdir" > /dev/null
cmp "$tmp/fx.pftrace" "$tmp/traces/plugins/profile/run1/hostA.pftrace" || fail "per-host trace of hostA"
cmp "$tmp/fx.pftrace" "$tmp/traces/plugins/profile/run1/hostB.pftrace" || fail "per-host trace of hostB"
out=$("$CONV" --merge -o "$tmp/merged.pftrace" "$tmp/logdir")
[ "$out" = '{"files_in":2,"files_out":1,"slices":30,"instants":4,"skipped_untimed":2,"skipped_invalid":2,"processes":6,"threads":8,"tracks":12,"records":82}' ] ||
  fail "merged counts: $out"
decode "$tmp/merged.pftrace" | grep -A2 '^    process {' | grep -E 'pid|process_name' | sed 's/^ *//' |
  paste -sd' ' > "$tmp/procs.txt"
[ "$(cat "$tmp/procs.txt")" = 'pid: 1 process_name: "[hostA] /host:CPU" pid: 2 process_name: "[hostA] /device:GPU:0" pid: 3 process_name: "[hostA] xplane:2" pid: 4 process_name: "[hostB] /host:CPU" pid: 5 process_name: "[hostB] /device:GPU:0" pid: 6 process_name: "[hostB] xplane:2"' ] ||
  fail "merged processes: $(cat "$tmp/procs.txt")"
# flows: correlation_id 7 on each host, kept apart (host ordinal << 48)
flows=$(decode "$tmp/merged.pftrace" | grep 'flow_ids:' | sort | uniq -c | awk '{print $1 ":" $3}' | paste -sd' ')
[ "$flows" = "2:281474976710663 2:7" ] || fail "merged flow ids: $flows"

out=$(compare_ops "$tmp/fx.xplane.pb")
[ "$out" = "rows|11|11" ] || fail "fixture: package xplane_ops differs from the extension's: $out"
echo "fixture: trace, JSON, import, tables, refusals, SQL function, logdir and package ops all match"

# ---- 2. real profiles ----
shopt -s nullglob
files=("$DATA"/*.xplane.pb)
if [ ${#files[@]} -eq 0 ]; then
  echo "SKIP: no *.xplane.pb in $DATA (set XPLANE_DATA to the real profiles)"
  exit 77
fi
for f in "${files[@]}"; do
  h=$(basename "$f" .xplane.pb)
  "$CONV" -o "$tmp/$h.pftrace" "$f" > /dev/null
  "$IMPORT" "$tmp/$h.pftrace" > "$tmp/$h.sql"
  counts=$(sql "$tmp/$h.db" ".read $tmp/$h.sql" "
    SELECT (SELECT n FROM imp_count WHERE what = 'begin') || ' ' || (SELECT n FROM imp_count WHERE what = 'end')
      || ' ' || (SELECT n FROM imp_count WHERE what = 'instant');
    SELECT sum(start_ps IS NOT NULL AND dur_ps > 0) || ' ' || sum(start_ps IS NOT NULL AND dur_ps > 0)
      || ' ' || sum(start_ps IS NOT NULL AND dur_ps = 0) FROM xplane_events('$f');")
  first=$(echo "$counts" | sed -n 1p)
  second=$(echo "$counts" | sed -n 2p)
  [ "$first" = "$second" ] || fail "$h: begin/end/instant $first, events $second"
  d=$(compare_tables "$f" "$tmp/$h.sql")
  [ -z "$d" ] || fail "$h: extension tables differ from the imported trace: $d"
  # Every annotation round-trips: the importer's args of each slice against
  # the event's effective stats (doubles compared as numbers, the rest as text).
  d=$(sql "$tmp/$h.db" "
    CREATE TEMP TABLE invalid AS SELECT plane_index, line_index, event_index FROM xplane_events('$f')
      WHERE dur_ps < 0;
    CREATE TEMP TABLE ident AS SELECT arg_set_id,
      max(CASE WHEN key = 'debug.xplane.plane_index' THEN int_value END) AS p,
      max(CASE WHEN key = 'debug.xplane.line_index' THEN int_value END) AS l,
      max(CASE WHEN key = 'debug.xplane.event_index' THEN int_value END) AS e
      FROM imp_args GROUP BY arg_set_id;
    CREATE TEMP TABLE got AS SELECT i.p, i.l, i.e, substr(a.key, 7) AS name, a.text_value AS t, a.real_value AS r
      FROM imp_args a JOIN ident i USING (arg_set_id) WHERE a.key NOT LIKE 'debug.xplane.%';
    CREATE TEMP TABLE want AS SELECT plane_index AS p, line_index AS l, event_index AS e,
      coalesce(nullif(name, ''), '#' || stat_id) AS name,
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
  out=$(compare_ops "$f")
  n=$(sql :memory: "SELECT count(*) FROM xplane_ops('$f')")
  [ "$out" = "rows|$n|$n" ] || fail "$h: package xplane_ops differs from the extension's: $out"
  echo "$h: $first (begin end instant) match the events; tables, $(sql "$tmp/$h.db" "SELECT count(*) FROM imp_args") args and $n ops match"
  rm -f "$tmp/$h.db" "$tmp/$h.sql" "$tmp/$h.pftrace"
done
echo "PASS"
