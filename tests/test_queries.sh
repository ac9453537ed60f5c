#!/usr/bin/env bash
# test_queries.sh: tests of the canned queries (queries/*.sql) in the sqlite3 shell.
#
#   XPLANE_EXT=build/xplane XPLANE_BUILD=build XPLANE_SRC=. XPLANE_DATA=../shared/data \
#     bash tests/test_queries.sh
#   UPDATE_GOLDEN=1 bash tests/test_queries.sh    # rewrite tests/golden/queries/ instead
#   VERBOSE=1 bash tests/test_queries.sh          # also list the checks that pass
#
# Part 1, synthetic profiles written by make_rule_fixtures (tests/make_rule_fixtures.c
# describes each): the summary's complete key set, one hand-computed case per
# analysis rule (marker vs payload gaps, pruned regions, light/heavy and typical
# steps, the global breakdown, each optimization candidate), every question
# file, compare (including a profile against itself), track (a 10 % step
# regression fails, an unchanged pair passes), history, runs_join, and the
# error messages of bad parameters.
# Part 2, every real profile in $XPLANE_DATA: the summary JSON and the markdown
# report against golden files (generated_at_utc masked; the goldens are written by
# this code with UPDATE_GOLDEN=1, so they only catch changes: test_reference.sh holds
# the summary against the reference summarizer's own documents), and numbers
# recomputed independently: sha256sum, the README's event counts, a plain count of
# the analysis events, the top hot op's exclusive time and the compute share from
# xplane_events, the top pre-op gap from xplane_ops, and the hierarchical regions
# recomputed in Python from the raw events (tests/recompute_regions.py). A check
# whose input is missing (no README row, no hot op, no gap) fails rather than
# vanishing. Exits 77 (skip) after part 1 when the data folder is absent.
set -uo pipefail

. "$(dirname "$0")/test_env.sh"
GOLDEN=$SRC/tests/golden/queries

cd "$SRC" || exit 1   # the query files .read queries/lib/... relative to the root
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

# q QUERY [NAME VALUE]...: run queries/QUERY.sql with those parameters.
q() {
  local query=$1
  shift
  local args=(-bail -cmd ".load $EXT")
  while [ $# -ge 2 ]; do
    args+=(-cmd ".parameter set @$1 \"$2\"")
    shift 2
  done
  "$SQLITE3" "${args[@]}" :memory: ".read queries/$query.sql"
}

# sql SQL...: evaluate SQL with the extension loaded (list mode, no header).
sql() { "$SQLITE3" -bail -cmd ".load $EXT" :memory: "$@"; }

# check NAME EXPECTED ACTUAL
check() {
  if [ "$2" == "$3" ]; then
    pass=$((pass + 1))
    [ -z "${VERBOSE:-}" ] || echo "ok: $1"
  else
    fail=$((fail + 1))
    echo "FAIL: $1"
    diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | head -40
  fi
}

# golden NAME FILE: compare FILE with tests/golden/queries/NAME (or write it).
golden() {
  if [ -n "${UPDATE_GOLDEN:-}" ]; then
    mkdir -p "$(dirname "$GOLDEN/$1")"
    cp "$2" "$GOLDEN/$1"
    return
  fi
  check "golden $1" "$(cat "$GOLDEN/$1" 2>/dev/null)" "$(cat "$2")"
}

# mask: the run-dependent parts of an output (time of day, folders).
mask() {
  sed -e 's/"\(generated_at_utc\|recorded_at_utc\)": "[^"]*"/"\1": "@NOW@"/' \
      -e 's/^- Generated At (UTC): `[^`]*`/- Generated At (UTC): `@NOW@`/' \
      -e "s#$tmp#@TMP@#g" -e "s#$DATA#@DATA@#g"
}

# doc FILE: SQL for the text of FILE (readfile gives a blob, which JSON functions refuse).
doc() { printf "CAST(readfile('%s') AS TEXT)" "$1"; }
# jq-like: jv FILE PATH -> the value at PATH of the JSON in FILE (SQLite text form).
jv() { sql "SELECT json_extract($(doc "$1"), '$2');"; }
# jn FILE PATH -> the number at PATH as Python prints it (all digits).
jn() { sql "SELECT xplane_repr(json_extract($(doc "$1"), '$2'));"; }
# rows FILE PATH COLUMNS: one line per element of the array at PATH, COLUMNS joined by |.
rows() {
  local cols="" c
  for c in ${3//,/ }; do cols="$cols${cols:+ || '|' || }coalesce(json_extract(j.value, '\$.$c'), 'null')"; done
  sql "SELECT $cols FROM json_each($(doc "$1"), '$2') j ORDER BY j.key;"
}

# ---- part 1: synthetic profiles ------------------------------------------------
FX=$tmp/fx
mkdir -p "$FX"
if ! "$BUILD/tests/make_rule_fixtures" "$FX"; then
  echo "FAIL: make_rule_fixtures"
  exit 1
fi
for f in "$FX"/*.xplane.pb; do
  q summary profile "$f" > "${f%.xplane.pb}.json" || { echo "FAIL: summary of $f"; fail=$((fail + 1)); }
done

# The key set of profile_summary.v1 (notes 1.2): every nested key, array
# elements as [#], over the fixtures' documents (some lists are empty in each).
expected_keys='communication_ops
communication_ops[#]
communication_ops[#].avg_duration
communication_ops[#].collective
communication_ops[#].count
communication_ops[#].total_duration
device_op_region_aggregates
gap_before_ops
gap_before_ops[#]
gap_before_ops[#].avg_gap_duration
gap_before_ops[#].count
gap_before_ops[#].marker_op
gap_before_ops[#].max_gap_duration
gap_before_ops[#].name
gap_before_ops[#].payload_op
gap_before_ops[#].total_gap_duration
gap_region_contexts
gap_region_contexts[#]
gap_region_contexts[#].avg_gap_duration
gap_region_contexts[#].count
gap_region_contexts[#].op_name
gap_region_contexts[#].region_path
gap_region_contexts[#].total_gap_duration
generated_at_utc
hierarchical_regions
hierarchical_regions[#]
hierarchical_regions[#].count
hierarchical_regions[#].depth
hierarchical_regions[#].exclusive_duration
hierarchical_regions[#].inclusive_duration
hierarchical_regions[#].path
hot_ops
hot_ops[#]
hot_ops[#].avg_duration
hot_ops[#].canonical_name
hot_ops[#].category
hot_ops[#].count
hot_ops[#].exclusive_duration
hot_ops[#].flop_proxy_per_invocation
hot_ops[#].name
hot_ops[#].shape_signature
hot_ops[#].source_file
hot_ops[#].tf_op_path
hot_ops[#].total_duration
optimization_candidates
optimization_candidates[#]
optimization_candidates[#].candidate_id
optimization_candidates[#].evidence
optimization_candidates[#].evidence[#]
optimization_candidates[#].rationale
optimization_candidates[#].suggestions
optimization_candidates[#].suggestions[#]
optimization_candidates[#].title
run_metadata
run_metadata.artifact_name
run_metadata.artifact_ref
run_metadata.config_hash
run_metadata.git_sha
run_metadata.hardware_type
run_metadata.mesh_or_topology
run_metadata.num_devices
run_metadata.num_hosts
run_metadata.run_id
run_metadata.run_path
schema_version
semantic_families
semantic_families[#]
semantic_families[#].avg_duration
semantic_families[#].avg_exclusive_duration
semantic_families[#].count
semantic_families[#].dominant_shape_signature
semantic_families[#].example_op
semantic_families[#].exclusive_duration
semantic_families[#].family
semantic_families[#].flop_proxy_total
semantic_families[#].share_of_total
semantic_families[#].time_per_flop_proxy
semantic_families[#].total_duration
source_format
source_path
step_time
step_time.all_steps
step_time.all_steps.count
step_time.all_steps.max
step_time.all_steps.mean
step_time.all_steps.median
step_time.all_steps.min
step_time.all_steps.p90
step_time.classes
step_time.classes[#]
step_time.classes[#].count
step_time.classes[#].duration_stats
step_time.classes[#].duration_stats.count
step_time.classes[#].duration_stats.max
step_time.classes[#].duration_stats.mean
step_time.classes[#].duration_stats.median
step_time.classes[#].duration_stats.min
step_time.classes[#].duration_stats.p90
step_time.classes[#].fraction_of_steady
step_time.classes[#].name
step_time.classes[#].periodicity
step_time.classes[#].representative_duration
step_time.classes[#].representative_step
step_time.steady_state_steps
step_time.steady_state_steps.count
step_time.steady_state_steps.max
step_time.steady_state_steps.mean
step_time.steady_state_steps.median
step_time.steady_state_steps.min
step_time.steady_state_steps.p90
step_time.warmup_steps_ignored
time_breakdown
time_breakdown.communication
time_breakdown.communication.share_of_total
time_breakdown.communication.total_duration
time_breakdown.compute
time_breakdown.compute.share_of_total
time_breakdown.compute.total_duration
time_breakdown.duration_basis
time_breakdown.host
time_breakdown.host.share_of_total
time_breakdown.host.total_duration
time_breakdown.other
time_breakdown.other.share_of_total
time_breakdown.other.total_duration
time_breakdown.stall
time_breakdown.stall.share_of_total
time_breakdown.stall.total_duration
time_breakdown.total_duration
trace_overview
trace_overview.display_time_unit
trace_overview.duration_basis
trace_overview.num_complete_events
trace_overview.num_events_total
trace_overview.num_processes
trace_overview.num_threads
trace_overview.profile_end_ts
trace_overview.profile_start_ts
trace_overview.quality_warnings
trace_overview.suspected_truncation
trace_provenance
trace_provenance.run_ids
trace_provenance.source_file_hints
trace_provenance.trace_sha256'
keys_of() {   # the nested keys of the JSON files given, as above
  local f
  for f in "$@"; do
    sql "SELECT replace(substr(fullkey, 3), char(34), '') FROM json_tree($(doc "$f")) WHERE fullkey <> '\$';"
  done | sed 's/\[[0-9]*\]/[#]/g' | LC_ALL=C sort -u
}
check "summary key set" "$expected_keys" "$(keys_of "$FX"/*.json)"
check "key set of one document (empty lists have no element keys)" \
  "$(printf '%s\n' "$expected_keys" | grep -v -e '^communication_ops\[' -e '^step_time\.classes\[')" \
  "$(keys_of "$FX/gap_marker_payload.json")"
check "generated_at_utc format" "1" \
  "$(sql "SELECT json_extract($(doc "$FX/no_dominant.json"), '\$.generated_at_utc')
            GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]*Z';")"
check "source_path is the profile as given" "$FX/no_dominant.xplane.pb" "$(jv "$FX/no_dominant.json" '$.source_path')"

# Pre-op gaps: constant.2 (after 5 idle) resolves to payload dot.4 through
# iota.3; copy-start.5 stops at the next idle period; bitcast.7 and tuple.8 are
# all marker-like up to the next idle period (payload itself); the second dot.4
# (after 1 idle) is its own marker. dot.4: 5 + 1, markers tie 1-1 -> by name.
G=$FX/gap_marker_payload.json
check "gap_before_ops" \
"dot.4|2|6.0|5.0|3.0|constant.2|dot.4
copy-start.5|1|3.0|3.0|3.0|copy-start.5|copy-start.5
bitcast.7|1|2.0|2.0|2.0|bitcast.7|bitcast.7
fusion.6|1|2.0|2.0|2.0|fusion.6|fusion.6" \
  "$(rows "$G" '$.gap_before_ops' name,count,total_gap_duration,max_gap_duration,avg_gap_duration,marker_op,payload_op)"
# Regions of gaps: the first dot.4 has no tf_op (fallback path "dot"), so it takes
# the op's most frequent real path, the second dot.4's; copy ops get copy(...).
check "gap_region_contexts" \
"dot.4|train_step=>layer_0=>dense|2|6.0|3.0
copy-start.5|copy(copy-start)|1|3.0|3.0
bitcast.7|bitcast|1|2.0|2.0
fusion.6|fusion|1|2.0|2.0" \
  "$(rows "$G" '$.gap_region_contexts' op_name,region_path,count,total_gap_duration,avg_gap_duration)"
# Total 38 us of ops: dot.4 16/38 = 42.1 % (single-hot-op), its gaps 6/38 = 15.8 %.
check "gap fixture candidates" \
"single-hot-op|Top op 'dot.4' contributes 42.1% of profiled exclusive duration.
pre-op-gap|Op 'dot.4' accumulates significant pre-op idle gap (15.8% of total profiled exclusive duration)." \
  "$(rows "$G" '$.optimization_candidates' candidate_id,rationale)"
check "hot ops" \
"dot.4|dot|compute|2|16.0|16.0|8.0|train_step/layer_0/dense
fusion.1|fusion|compute|1|10.0|10.0|10.0|null
fusion.6|fusion|compute|1|7.0|7.0|7.0|null" \
  "$(rows "$G" '$.hot_ops' name,canonical_name,category,count,exclusive_duration,total_duration,avg_duration,tf_op_path | head -3 | sed 's#jit(train_step)#train_step#')"

# Global breakdown: compute covers [0,10) [15,27) [30,31) [33,40) [42,44) [45,51)
# = 38 of the window [0,51); the 13 uncovered are stall.
q summary profile "$FX/gap_marker_payload.xplane.pb" breakdown_mode exclusive_global > "$tmp/global.json"
check "exclusive_global breakdown" "exclusive_duration_global_timeline|51.0|38.0|0.0|13.0|0.0|0.0|0.7450980392156863" \
  "$(sql "SELECT d ->> '\$.duration_basis', d ->> '\$.total_duration', d ->> '\$.compute.total_duration',
                 d ->> '\$.communication.total_duration', d ->> '\$.stall.total_duration', d ->> '\$.host.total_duration',
                 d ->> '\$.other.total_duration', xplane_repr(d ->> '\$.compute.share_of_total')
            FROM (SELECT json_extract($(doc "$tmp/global.json"), '\$.time_breakdown') AS d);")"
check "overview basis stays per track" "exclusive_duration_per_track" "$(jv "$tmp/global.json" '$.trace_overview.duration_basis')"

# Regions: train_step=>model and ...=>attn have one child of equal inclusive
# time (pruned); eval_step=>head keeps its own 3 us; the launch/shard_map noise
# leaves fusion.4 at train_step itself.
check "pruned hierarchical regions" \
"train_step|1|4|22.0|2.0
train_step=>model=>layer_0|3|3|20.0|0.0
train_step=>model=>layer_0=>attn=>dot_general|5|1|10.0|10.0
train_step=>model=>layer_0=>mlp|4|2|10.0|10.0
eval_step=>head|2|2|8.0|3.0
eval_step|1|2|8.0|0.0
eval_step=>head=>softmax|3|1|5.0|5.0" \
  "$(rows "$FX/pruned_regions.json" '$.hierarchical_regions' path,depth,count,inclusive_duration,exclusive_duration)"

# Steps: 0-4 warmup; steady 5-16: light 10 x8 and step 16 = (10+14)/2 = 12, heavy
# 7, 11, 15 = 30 (every 4 steps). Light p90: position 7.2 of [10 x8, 12] = 10.4.
S=$FX/steps_light_heavy.json
check "light/heavy classes" \
"light|9|0.75|10.0|10.0|12.0|5|10.0|null
heavy|3|0.25|30.0|30.0|30.0|7|30.0|4" \
  "$(rows "$S" '$.step_time.classes' name,count,fraction_of_steady,duration_stats.median,duration_stats.min,duration_stats.max,representative_step,representative_duration,periodicity)"
check "light p90 and mean" "1|1" \
  "$(sql "SELECT abs(json_extract(d, '\$.step_time.classes[0].duration_stats.p90') - 10.4) < 1e-12,
                 abs(json_extract(d, '\$.step_time.classes[0].duration_stats.mean') - 92.0 / 9) < 1e-12
            FROM (SELECT $(doc "$S") AS d);")"
check "steady and all steps" "12|10.0|30.0|1|17|50.0|12.0" \
  "$(sql "SELECT d ->> '\$.steady_state_steps.count', d ->> '\$.steady_state_steps.median', d ->> '\$.steady_state_steps.p90',
                 abs((d ->> '\$.steady_state_steps.mean') - 182.0 / 12) < 1e-12, d ->> '\$.all_steps.count',
                 d ->> '\$.all_steps.max', d ->> '\$.all_steps.median'
            FROM (SELECT json_extract($(doc "$S"), '\$.step_time') AS d);")"
check "step-jitter candidate" "step-jitter|Steady median: 10.000|Steady p90: 30.000|p90/median: 3.00" \
  "$(sql "SELECT group_concat(v, '|') FROM (SELECT c.value ->> '\$.candidate_id' AS v, 0 AS k
            FROM json_each($(doc "$S"), '\$.optimization_candidates') c
          UNION ALL SELECT e.value, 1 + e.key FROM json_each($(doc "$S"), '\$.optimization_candidates') c,
            json_each(c.value, '\$.evidence') e ORDER BY 2);")"
# Host `train` annotations (no Steps line): steady 5, 6, 7 = 20, 22, 24, fewer
# than 6 -> one typical class; p90 at position 1.8 = 23.6; all 8: 566 / 8.
T=$FX/steps_typical.json
check "typical class" "typical|3|1.0|22.0|6|22.0|null" \
  "$(rows "$T" '$.step_time.classes' name,count,fraction_of_steady,duration_stats.median,representative_step,representative_duration,periodicity)"
check "typical p90, all-steps mean" "1|8|70.75" \
  "$(sql "SELECT abs(json_extract(d, '\$.step_time.steady_state_steps.p90') - 23.6) < 1e-12,
                 json_extract(d, '\$.step_time.all_steps.count'), json_extract(d, '\$.step_time.all_steps.mean')
            FROM (SELECT $(doc "$T") AS d);")"
check "warmup parameter" "0|8" \
  "$(q summary profile "$FX/steps_typical.xplane.pb" warmup_steps 0 > "$tmp/w0.json" &&
     sql "SELECT json_extract(d, '\$.step_time.warmup_steps_ignored'), json_extract(d, '\$.step_time.steady_state_steps.count')
            FROM (SELECT $(doc "$tmp/w0.json") AS d);")"

# One file per candidate, nothing else triggering: all ops 5 us except as noted.
cand() { sql "SELECT group_concat(v, '|') FROM (SELECT c.value ->> '\$.candidate_id' AS v, c.key AS i, -1 AS j
                FROM json_each($(doc "$FX/$1.json"), '\$.optimization_candidates') c
              UNION ALL SELECT e.value, c.key, e.key FROM json_each($(doc "$FX/$1.json"), '\$.optimization_candidates') c,
                json_each(c.value, '\$.evidence') e ORDER BY 2, 3);"; }
check "communication-heavy (20 of 100 us)" "communication-heavy|Communication share: 20.0%|Top collective: all-reduce" "$(cand comm_heavy)"
check "communication breakdown" "all-reduce|4|20.0|5.0" \
  "$(rows "$FX/comm_heavy.json" '$.communication_ops' collective,count,total_duration,avg_duration)"
check "stall-heavy (25 of 100 us)" "stall-heavy|Stall share: 25.0%" "$(cand stall_heavy)"
check "single-hot-op (50 of 100 us)" \
  "single-hot-op|Top op: custom-call.1|Top op exclusive duration: 50.000|Top op share: 50.0%" "$(cand single_hot_op)"
check "pre-op-gap (1500 us idle)" \
  "pre-op-gap|Payload op with largest pre-gap: fusion.11|Observed first op after gap (marker): fusion.11|Total pre-gap: 1500.000|Max pre-gap: 1500.000|Occurrences: 1" \
  "$(cand pre_op_gap)"
check "no-dominant-bottleneck" \
  "no-dominant-bottleneck|Compute: 100.0%|Communication: 0.0%|Host: 0.0%|Stall: 0.0%" "$(cand no_dominant)"

# Reports and answers of the fixtures, against golden files.
q report profile "$FX/gap_marker_payload.xplane.pb" | mask > "$tmp/out" && golden fixtures/gap_marker_payload.report.md "$tmp/out"
q report profile "$FX/steps_light_heavy.xplane.pb" | mask > "$tmp/out" && golden fixtures/steps_light_heavy.report.md "$tmp/out"
q summary profile "$FX/pruned_regions.xplane.pb" | mask > "$tmp/out" && golden fixtures/pruned_regions.summary.json "$tmp/out"
for query in top_ops compute_vs_communication gap_before_op gap_context candidates; do
  q $query profile "$FX/gap_marker_payload.xplane.pb" top_k 3 > "$tmp/out" && golden fixtures/$query.json "$tmp/out"
done
q gap_before_op profile "$FX/gap_marker_payload.xplane.pb" op "op DOT.4?" > "$tmp/out" && golden fixtures/gap_before_op.target.json "$tmp/out"
q gap_context profile "$FX/gap_marker_payload.xplane.pb" op copy > "$tmp/out" && golden fixtures/gap_context.target.json "$tmp/out"
q hierarchical_regions profile "$FX/pruned_regions.xplane.pb" > "$tmp/out" && golden fixtures/hierarchical_regions.json "$tmp/out"
q compute_vs_communication profile "$FX/comm_heavy.xplane.pb" > "$tmp/out" && golden fixtures/compute_vs_communication.comm.json "$tmp/out"
q gap_before_op profile "$FX/gap_marker_payload.xplane.pb" op "op DOT.4?" > "$tmp/t.json"
check "target normalized, matched, context" "DOT.4|dot.4|dot.4|train_step=>layer_0=>dense" \
  "$(sql "SELECT d ->> '\$.target', d ->> '\$.match.name', d ->> '\$.context[0].op_name', d ->> '\$.context[0].region_path'
            FROM (SELECT $(doc "$tmp/t.json") AS d);")"

# compare: a profile against itself fails provenance; markdown of a regression.
q compare before "$FX/track_base.xplane.pb" after "$FX/track_base.xplane.pb" > "$tmp/self.json"
check "compare with itself" "fail|Before and after summaries point to identical trace content (matching SHA256).|Before and after summaries have the same source_path." \
  "$(sql "SELECT d ->> '\$.status' || '|' || (SELECT group_concat(value, '|') FROM json_each(d, '\$.messages'))
            FROM (SELECT json_extract($(doc "$tmp/self.json"), '\$.provenance_checks') AS d);")"
q compare before "$FX/track_base.xplane.pb" after "$FX/track_slow.xplane.pb" | mask > "$tmp/out" && golden fixtures/compare.json "$tmp/out"
q compare before "$FX/track_base.xplane.pb" after "$FX/track_slow.xplane.pb" format markdown | mask > "$tmp/out" &&
  golden fixtures/compare.md "$tmp/out"
q compare before "$FX/track_base.xplane.pb" after "$FX/track_slow.xplane.pb" > "$tmp/c.json"
check "compare step time" "100.0|110.0|10.0|pass|none" \
  "$(sql "SELECT d ->> '\$.step_time.steady_state_median_before', d ->> '\$.step_time.steady_state_median_after',
                 d ->> '\$.step_time.steady_state_median_delta', d ->> '\$.provenance_checks.status',
                 coalesce(d ->> '\$.regressed_ops[0].name', 'none') || coalesce(d ->> '\$.improved_ops[0].name', '')
            FROM (SELECT $(doc "$tmp/c.json") AS d);")"

# track: 100 -> 110 us steps is +10 %: median over 5 % fails; p90 at exactly
# 10 % does not (strict). Same step times in another file: pass. Both go to the
# history, which history.sql summarizes.
H=$tmp/history.db
q track before "$FX/track_base.xplane.pb" after "$FX/track_slow.xplane.pb" label slow history "$H" > "$tmp/t1.json"
q track before "$FX/track_base.xplane.pb" after "$FX/track_same.xplane.pb" label same history "$H" > "$tmp/t2.json"
trk() { sql "SELECT d ->> '\$.label', d ->> '\$.assessment.status', (SELECT group_concat(value, '|') FROM json_each(d, '\$.assessment.failures')),
                    d ->> '\$.assessment.metrics.steady_state_median_regression_pct', d ->> '\$.assessment.metrics.steady_state_p90_regression_pct'
               FROM (SELECT $(doc "$1") AS d);"; }
check "track: 10 % regression fails" "slow|fail|Steady-state median step time regressed by 10.00% (threshold 5.00%).|10.0|10.0" "$(trk "$tmp/t1.json")"
check "track: same step times pass" "same|pass||0.0|0.0" "$(trk "$tmp/t2.json")"
q track before "$FX/track_base.xplane.pb" after "$FX/track_slow.xplane.pb" max_step_median_regression_pct 12 > "$tmp/t3.json"
check "track: threshold parameter" "|pass|" "$(trk "$tmp/t3.json" | cut -d'|' -f1-3)"
mask < "$tmp/t1.json" > "$tmp/out" && golden fixtures/track.json "$tmp/out"
check "history rows" "1|slow|fail
2|same|pass" "$("$SQLITE3" "$H" "SELECT id, label, status FROM regression_history ORDER BY id;")"
q history history "$H" tail 1 > "$tmp/h.json"
check "history summary" "2|1|1|Steady-state median step time regressed by 10.00% (threshold 5.00%).|1|0|same|1|same" \
  "$(sql "SELECT d ->> '\$.num_records', d ->> '\$.status_counts.fail', d ->> '\$.status_counts.pass',
                 d ->> '\$.top_failures[0].message', d ->> '\$.top_failures[0].count', json_array_length(d, '\$.top_warnings'),
                 d ->> '\$.latest_record.label', json_array_length(d, '\$.recent_records'), d ->> '\$.recent_records[0].label'
            FROM (SELECT $(doc "$tmp/h.json") AS d);")"
mask < "$tmp/h.json" | sed "s#$H#@HISTORY@#" > "$tmp/out" && golden fixtures/history.json "$tmp/out"

# runs_join: a logdir of two runs (links to fixtures) joined with the example CSV.
L=$tmp/logs/plugins/profile
mkdir -p "$L/baseline" "$L/candidate"
ln -s "$FX/track_base.xplane.pb" "$L/baseline/host0.xplane.pb"
ln -s "$FX/track_slow.xplane.pb" "$L/candidate/host0.xplane.pb"
"$SQLITE3" -bail -cmd ".load $EXT" -cmd ".import --csv queries/example_runs.csv runs" \
  -cmd ".parameter set @logdir $tmp/logs" :memory: ".read queries/runs_join.sql" > "$tmp/out"
golden fixtures/runs_join.md "$tmp/out"

# Bad parameters: a clear message, exit status 1.
err() { "$@" 2>&1 >/dev/null | sed 's/^.*error near line [0-9]*: //; s/ ([0-9]*)$//'; }
check "no @profile" "xplane queries: set @profile to an .xplane.pb file or a profile directory (.parameter set @profile PATH)" \
  "$(err q summary)"
check "directory of two profiles" "xplane queries: more than one profile (one .xplane.pb per host): pass one file (trace processor: a trace converted per host, not --merge)" \
  "$(err q summary profile "$FX")"
check "missing profile" "xplane_use: $tmp/none.xplane.pb: no such file or directory" \
  "$(err q summary profile "$tmp/none.xplane.pb")"
check "bad breakdown mode" "xplane queries: @breakdown_mode must be exclusive_per_track or exclusive_global" \
  "$(err q summary profile "$FX/no_dominant.xplane.pb" breakdown_mode fast)"
check "compare without @after" "xplane queries: set @before and @after to two profiles (.xplane.pb files or profile directories)" \
  "$(err q compare before "$FX/no_dominant.xplane.pb")"
check "compare_summaries without documents" \
  "xplane queries: set @before_summary and @after_summary to two profile_summary.v1 documents (summary.sql output)" \
  "$(err q compare_summaries before_summary "$tmp/none.json" after_summary "$tmp/none.json")"
echo '{"schema_version": "other"}' > "$tmp/other.json"
check "compare_summaries of a document that is not a summary" \
  "xplane queries: set @before_summary and @after_summary to two profile_summary.v1 documents (summary.sql output)" \
  "$(err q compare_summaries before_summary "$tmp/other.json" after_summary "$tmp/other.json")"
check "bad compare format" "xplane queries: @format must be json or markdown" \
  "$(err q compare before "$FX/no_dominant.xplane.pb" after "$FX/track_base.xplane.pb" format md)"
q summary > /dev/null 2>&1
check "exit status of an error" "1" "$?"

# ---- part 2: the real profiles ---------------------------------------------------
shopt -s nullglob
files=("$DATA"/*.xplane.pb)
if [ ${#files[@]} -eq 0 ]; then
  echo "$pass passed, $fail failed (synthetic); SKIP real profiles: no *.xplane.pb in $DATA (set XPLANE_DATA)"
  [ "$fail" -eq 0 ] && exit 77
  exit 1
fi
for f in "${files[@]}"; do
  b=$(basename "$f" .xplane.pb)
  J=$tmp/$b.json
  q summary profile "$f" > "$J"
  mask < "$J" > "$tmp/out" && golden "$b.summary.json" "$tmp/out"
  q report profile "$f" | mask > "$tmp/out" && golden "$b.report.md" "$tmp/out"
  # independent: sha256sum of the file; the README's event count; the analysis
  # events counted plainly.
  check "$b sha256" "$(sha256sum "$f" | cut -d' ' -f1)" "$(jv "$J" '$.trace_provenance.trace_sha256')"
  readme_events=$(awk -F'|' -v n="$b" '{gsub(/ /, "", $2)} $2 == n {gsub(/ /, "", $5); print $5}' "$DATA/README.md")
  # every profile has its row in the README: a missing row fails, it does not skip
  check "$b events vs README" "${readme_events:-(no row for $b in $DATA/README.md)}" \
    "$(jv "$J" '$.trace_overview.num_events_total')"
  check "$b complete events" \
    "$(sql "SELECT count(*) FROM xplane_events('$f') WHERE start_ps IS NOT NULL AND dur_ps > 0
              AND coalesce(nullif(display_name, ''), name, '') <> '';")" \
    "$(jv "$J" '$.trace_overview.num_complete_events')"
  # the top hot op's exclusive total, from the events of device-op lines
  # (every real profile has device ops: no top op is a failure, not a skip)
  top=$(jv "$J" '$.hot_ops[0].name')
  check "$b has a top op" "1" "$([ -n "$top" ] && echo 1 || echo "no hot_ops[0]")"
  check "$b top op exclusive" "$(jn "$J" '$.hot_ops[0].exclusive_duration')" \
    "$(sql ".parameter set @top \"$top\"" "SELECT xplane_repr(sum(self_ps) / 1e6) FROM xplane_events('$f')
             WHERE plane_name LIKE '/device:%' AND coalesce(nullif(display_name, ''), name) = @top
               AND (coalesce(nullif(line_display_name, ''), line_name) IN ('XLA Ops', 'Async XLA Ops')
                    OR coalesce(nullif(line_display_name, ''), line_name) LIKE 'Stream #%');")"
  # the compute share by hand: compute self time / all self time off `Steps`
  check "$b compute share" "1" \
    "$(sql "SELECT abs(sum(CASE WHEN xplane_event_category(plane_name, coalesce(nullif(display_name, ''), name)) = 'compute'
                                THEN self_ps ELSE 0 END) * 1.0 / sum(self_ps)
                       - json_extract($(doc "$J"), '\$.time_breakdown.compute.share_of_total')) < 1e-12
              FROM xplane_events('$f') WHERE coalesce(nullif(line_display_name, ''), line_name) <> 'Steps';")"
  # the top pre-op gap: the gaps xplane_ops reports before markers of that payload
  # (every real profile has idle gaps between device ops: none is a failure)
  gap=$(jv "$J" '$.gap_before_ops[0].name')
  check "$b has a top gap" "1" "$([ -n "$gap" ] && echo 1 || echo "no gap_before_ops[0]")"
  check "$b top gap" "$(jv "$J" '$.gap_before_ops[0].count')|$(jn "$J" '$.gap_before_ops[0].total_gap_duration')" \
    "$(sql ".parameter set @gap \"$gap\"" "SELECT count(*) || '|' || xplane_repr(sum(gap_before_ps) / 1e6) FROM xplane_ops('$f')
             WHERE gap_before_ps > 0 AND gap_payload_name = @gap;")"
  # the regions recomputed in Python from the raw events (names, stats, start and
  # duration): self time, tf_op, path parts, pruning and order all done there
  sql -json "SELECT plane_index, plane_name, line_index, line_id, line_name, line_display_name, event_index,
                    name, display_name, start_ps, dur_ps, stats
               FROM xplane_events('$f') WHERE start_ps IS NOT NULL;" > "$tmp/events.json"
  regions=$(/usr/bin/python3 "$SRC/tests/recompute_regions.py" "$tmp/events.json")
  check "$b has regions" "1" "$([ -n "$regions" ] && echo 1 || echo "no regions recomputed")"
  check "$b regions recomputed from the events" "$regions" \
    "$(/usr/bin/python3 "$SRC/tests/recompute_regions.py" --summary "$J")"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
