#!/usr/bin/env bash
# test_engines.sh: one SQL body, two engines. Every canned query that runs in
# trace processor prints the same bytes there as in the sqlite3 shell.
#
#   XPLANE_EXT=build/xplane XPLANE_BUILD=build XPLANE_SRC=. XPLANE_DATA=../shared/data \
#     bash tests/test_engines.sh
#
# For each profile: the query run by the sqlite3 shell over the extension's
# tables (queries/QUERY.sql as users run it), against the same file
# assembled by tp_plugin/tp_query.sh and run over the PerfettoSQL package
# (tp_plugin/xplane, the modules tp_query.sh includes) by tests/perfetto_sql_shim, which
# fills slice/thread/process/args from the extension's Perfetto-shaped
# tables (exactly what trace processor builds from the converted trace) and
# replaces the extension's functions with the package's (xplane_repr,
# xplane_format, xplane_json_pretty, the rules). No trace_processor binary
# can be installed here; this is the closest run of the package.
# Queries: summary (both breakdown modes, a non-default warmup), report,
# top_ops, compute_vs_communication, gap_before_op and gap_context (with an
# op), hierarchical_regions, candidates. Profiles: the rule fixtures
# (tests/make_rule_fixtures.c: every analysis rule and candidate) and every
# real profile in $XPLANE_DATA (exit 77 after the fixtures when it is absent).
# compare_summaries on two summary documents (json and markdown), in both
# engines, equals compare.sql on the two profiles (fixture pairs and real
# pairs). Also: the sqlite3-only queries are refused by tp_query.sh with
# their reason, and a trace without an xplane.source record fails with the
# message.
set -uo pipefail

. "$(dirname "$0")/test_env.sh"
. "$(dirname "$0")/canned_specs.sh"   # SPECS, mask, spec_native
SHIM=$BUILD/tests/perfetto_sql_shim
PKG=$SRC/tp_plugin/xplane

cd "$SRC" || exit 1   # the query files .read queries/lib/... relative to the root
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

# all PROFILE OP: every query of SPECS on both engines, byte for byte. The
# package side runs them all in one shim session (the package's tables are
# built once, as in one trace processor session), separated by marker rows.
all() {
  local profile=$1 op=$2 i label
  : > "$tmp/all.sql"
  for i in "${!SPECS[@]}"; do
    spec_native "$SQLITE3" "${SPECS[$i]}" "$profile" "$op" "$tmp/native.$i"
    echo "SELECT '@@@ $i';" >> "$tmp/all.sql"
    tp_plugin/tp_query.sh "queries/$SPEC_QUERY.sql" "${SPEC_KV[@]}" >> "$tmp/all.sql" || return 1
  done
  rm -f "$tmp"/package.*
  "$SHIM" "$EXT" "$PKG" "$profile" "$tmp/all.sql" > "$tmp/package" 2> "$tmp/package.err" ||
    echo "package failed: $(head -c 2000 "$tmp/package.err")" >> "$tmp/package"
  awk -v d="$tmp" '/^@@@ [0-9]+$/ { out = d "/package." $2; printf "" > out; next } { print > out }' "$tmp/package"
  for i in "${!SPECS[@]}"; do
    label="$(basename "$profile") ${SPECS[$i]//@OP@/$op}"
    if [ ! -s "$tmp/native.$i" ] || ! diff <(mask < "$tmp/native.$i") <(mask < "$tmp/package.$i" 2>&1) > "$tmp/diff"; then
      fail=$((fail + 1)); echo "FAIL: $label: the engines differ:"; head -30 "$tmp/diff"
    else
      pass=$((pass + 1))
    fi
  done
}

# ---- tp_query.sh itself -------------------------------------------------------
for q in compare track history runs_join; do
  out=$(tp_plugin/tp_query.sh "queries/$q.sql" 2>&1 >/dev/null)
  case $out in
    "tp_query.sh: $q.sql runs in the sqlite3 shell only: "?*) pass=$((pass + 1)) ;;
    *) fail=$((fail + 1)); echo "FAIL: tp_query.sh accepted $q.sql: $out" ;;
  esac
done
tp_plugin/tp_query.sh queries/summary.sql > "$tmp/s.sql"
if grep -v '^ *--\|RAISE(' "$tmp/s.sql" | grep -q '^\.\|xplane_use\|sqlite_parameters\|@[a-z]'; then
  fail=$((fail + 1)); echo "FAIL: the assembled summary holds sqlite3-only lines"
else
  pass=$((pass + 1))
fi

# ---- the rule fixtures ------------------------------------------------------------
FX=$tmp/fx
mkdir -p "$FX"
"$BUILD/tests/make_rule_fixtures" "$FX" || { echo "FAIL: make_rule_fixtures"; exit 1; }

# A trace without the converter's xplane.source record: the summary stops
# with the message (the record is what xplane_files/xplane_space read).
f=$(ls "$FX"/*.xplane.pb | head -1)
{ echo "DELETE FROM slice WHERE name = 'xplane.source';"; cat "$tmp/s.sql"; } > "$tmp/s_norecord.sql"
out=$("$SHIM" "$EXT" "$PKG" "$f" "$tmp/s_norecord.sql" 2>&1 >/dev/null)
case $out in
  *"xplane queries: no profile: @profile names no .xplane.pb file; in trace processor: the trace has no xplane.source record"*"xplane2perfetto -o HOST.pftrace HOST.xplane.pb"*)
    pass=$((pass + 1)) ;;
  *) fail=$((fail + 1)); echo "FAIL: a trace without xplane.source: $out" ;;
esac

for f in "$FX"/*.xplane.pb; do
  all "$f" "op DOT.4?"
done

# pair BEFORE AFTER: compare_summaries.sql on the two summaries summary.sql
# printed, in the sqlite3 shell and over the package, in both formats; each
# must equal compare.sql run on the two profiles.
pair() {
  local b=$1 a=$2 fmt label
  "$SQLITE3" -bail -cmd ".load $EXT" -cmd ".parameter set @profile \"$b\"" :memory: ".read queries/summary.sql" > "$tmp/b.json"
  "$SQLITE3" -bail -cmd ".load $EXT" -cmd ".parameter set @profile \"$a\"" :memory: ".read queries/summary.sql" > "$tmp/a.json"
  for fmt in json markdown; do
    label="compare $(basename "$b") $(basename "$a") $fmt"
    "$SQLITE3" -bail -cmd ".load $EXT" -cmd ".parameter set @before \"$b\"" -cmd ".parameter set @after \"$a\"" \
      -cmd ".parameter set @format $fmt" :memory: ".read queries/compare.sql" > "$tmp/cmp.profiles" 2>&1
    "$SQLITE3" -bail -cmd ".load $EXT" -cmd ".parameter set @before_summary $tmp/b.json" \
      -cmd ".parameter set @after_summary $tmp/a.json" -cmd ".parameter set @format $fmt" :memory: \
      ".read queries/compare_summaries.sql" > "$tmp/cmp.native" 2>&1
    tp_plugin/tp_query.sh queries/compare_summaries.sql before_summary=@"$tmp/b.json" after_summary=@"$tmp/a.json" \
      format=$fmt > "$tmp/cmp.sql"
    "$SHIM" "$EXT" "$PKG" "$b" "$tmp/cmp.sql" > "$tmp/cmp.package" 2>&1
    if [ ! -s "$tmp/cmp.profiles" ] || ! diff "$tmp/cmp.profiles" "$tmp/cmp.native" > "$tmp/diff" ||
       ! diff "$tmp/cmp.profiles" "$tmp/cmp.package" >> "$tmp/diff"; then
      fail=$((fail + 1)); echo "FAIL: $label:"; head -20 "$tmp/diff"
    else
      pass=$((pass + 1))
    fi
  done
}
pair "$FX/track_base.xplane.pb" "$FX/track_slow.xplane.pb"
pair "$FX/steps_light_heavy.xplane.pb" "$FX/comm_heavy.xplane.pb"

# ---- the real profiles --------------------------------------------------------
shopt -s nullglob
files=("$DATA"/*.xplane.pb)
if [ ${#files[@]} -eq 0 ]; then
  echo "$pass passed, $fail failed (fixtures only)"
  echo "SKIP: no real profiles in $DATA (the folder ../shared/data is absent)"
  [ $fail -eq 0 ] && exit 77 || exit 1
fi
for f in "${files[@]}"; do
  # the op with the largest pre-op gap, as a user would ask about it
  op=$("$SQLITE3" -cmd ".load $EXT" :memory: \
    "SELECT gap_payload_name FROM xplane_ops('$f') ORDER BY gap_before_ps DESC, op_id LIMIT 1")
  all "$f" "$op"
done
pair "${files[0]}" "${files[1]}"
pair "${files[-1]}" "${files[0]}"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
