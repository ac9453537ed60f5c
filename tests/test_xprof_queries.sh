#!/usr/bin/env bash
# tests/test_xprof_queries.sh: the xprof report sections and questions
# (queries/report_xprof.sql, summary_xprof.sql, bound_by.sql, top_kernels.sql,
# peak_memory.sql; queries/lib/xprof_json.sql and xprof_md.sql).
#
# - On the hand-made profiles of tests/fixtures (encoded here with protoc),
#   lines of the sections whose numbers are derived by hand in the fixtures'
#   comments and in tests/sql/xprof_tables.sql / memory.sql.
# - A profile without the data has none of the sections: report_xprof.sql
#   prints report.sql's bytes.
# - On every real profile: summary_xprof.sql is summary.sql plus one key
#   (`xprof`): removing it gives summary.sql's document; report_xprof.sql
#   starts with report.sql's bytes; the TPU profile has the Device, Roofline,
#   Memory and Step Overview sections, the GPU ones Device, Kernel Stats and
#   Memory.
# - tp_query.sh refuses the sqlite3-only query files.
# - The PerfettoSQL package's xplane_memory / xplane_memory_peaks give the
#   extension's rows (memory fixture, every real profile).
# - The reference's HLO-proto rewrite of hot-op and region paths, with and
#   without an HLO proto beside a profile.
#
#   bash tests/test_xprof_queries.sh
set -uo pipefail
. "$(dirname "$0")/test_env.sh"
cd "$SRC" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { # check LABEL EXPECTED ACTUAL
  if [ "$2" == "$3" ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $1"; diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | head -20; fi
}
q() { # q QUERY PROFILE [name value]...
  local query=$1 profile=$2; shift 2
  local args=(-bail -cmd ".load $EXT" -cmd ".parameter set @profile \"$profile\"")
  while [ $# -ge 2 ]; do args+=(-cmd ".parameter set @$1 \"$2\""); shift 2; done
  "$SQLITE3" "${args[@]}" :memory: ".read queries/$query.sql"
}
for f in tests/fixtures/*.textproto; do
  case $f in *.hlo.textproto) continue ;; esac
  protoc --encode=tensorflow.profiler.XSpace -I schema schema/xplane.proto < "$f" > "$tmp/$(basename "$f" .textproto).xplane.pb" ||
    { echo "FAIL: protoc $f"; exit 1; }
done

# ---- hand-derived lines ----
r=$(q report_xprof "$tmp/xprof.xplane.pb")
# dot.1: 1e9 FLOPs and 2e5 bytes in 20 us of 81 us device self time; peaks 1e14 FLOP/s, 5e10 bytes/s
check "roofline row dot.1" \
  '| `dot.1` | convolution | 2 | 20.000 | 24.69% | 5.000e+13 | 1.000e+10 | 5000.000 | compute | 50.00% | 20.00% |' \
  "$(sed -n '/^## Roofline/,/^$/p' <<< "$r" | grep -F '| `dot.1`')"
check "roofline row fusion.2" \
  '| `fusion.2` | loop fusion | 1 | 20.000 | 24.69% | 5.000e+10 | 2.500e+10 | 2.000 | memory | 0.05% | 50.00% |' \
  "$(sed -n '/^## Roofline/,/^$/p' <<< "$r" | grep -F '| `fusion.2`')"
# FLOP utilization: (1e9 + 1e6 + 0) FLOPs in 50 us on a 1e14 FLOP/s device = 20.02 %
check "achieved FLOP utilization" '- Achieved FLOP utilization: `20.02%`' "$(grep -F 'Achieved FLOP' <<< "$r")"
check "TPU device line" \
  '- `/device:TPU:0`: TPU test, peak 1.000e+14 FLOP/s, 5.000e+10 bytes/s, ridge 2000.000 FLOP/byte' \
  "$(grep -F '/device:TPU:0' <<< "$r")"
# gemm: 4 + 6 us launches of grid 8,4,1; 1024 static + 2048 dynamic shared bytes; occ_pct 37.5
check "kernel row" \
  '| `volta_h884gemm_64x64` | 8,4,1 | 128,1,1 | 64 | 3072 | 37.50% | yes (op eligible) | `model/dense/MatMul` | 2 | 10.000 | 5.000 |' \
  "$(grep -F '| `volta_h884gemm_64x64` | 8,4,1' <<< "$r")"
check "kernel row without details" '| `bad_kernel` | 1,1,1 | 1,1,1 | n/a | n/a | n/a | no | n/a | 1 | 2.000 | 2.000 |' \
  "$(grep -F '| `bad_kernel` | 1,1,1' <<< "$r")"
check "no memory or step sections without the data" "0" "$(grep -c '^## Memory\|^## Step Overview' <<< "$r")"
r=$(q report_xprof "$tmp/memory.xplane.pb")
check "memory section" \
  '## Memory
- `GPU_0_bfc`: peak `300` bytes at `2.000` us (allocator-reported peak `400` bytes), 3 allocations, 2 deallocations; running at the peak: `k1`, `k2`
- `index_on_host:1`: peak `50` bytes at `2.500` us, 1 allocations, 0 deallocations; running at the peak: `k2`, `k3`' \
  "$(sed -n '/^## Memory/,$p' <<< "$r")"
r=$(q report_xprof "$tmp/steps_input.xplane.pb")
check "step overview" \
  '## Step Overview
- Input-bound: `highly input-bound` (steady input wait `25.00%` of step time)

| step | step time (us) | compute (us) | collectives (us) | input wait (us) | idle (us) |
|---:|---:|---:|---:|---:|---:|
| 5 | 100.000 | 50.000 | 10.000 | 25.000 | 15.000 |
| 6 | 100.000 | 50.000 | 10.000 | 25.000 | 15.000 |
| 7 | 100.000 | 50.000 | 10.000 | 25.000 | 15.000 |' \
  "$(sed -n '/^## Step Overview/,$p' <<< "$r")"
check "top_kernels, top_k 1" "volta_h884gemm_64x64|8|10.0" \
  "$(q top_kernels "$tmp/xprof.xplane.pb" top_k 1 > "$tmp/k.json";
     "$SQLITE3" :memory: "SELECT (j ->> '\$.results[0].name') || '|' || (j ->> '\$.results[0].grid[0]') || '|' || (j ->> '\$.results[0].total_time_us')
                            || CASE WHEN json_array_length(j, '\$.results') = 1 THEN '' ELSE ' (not 1 row)' END
                          FROM (SELECT readfile('$tmp/k.json') AS j);")"
q peak_memory "$tmp/memory.xplane.pb" > "$tmp/m.json"
check "peak_memory" "GPU_0_bfc|300|2.0|400" \
  "$("$SQLITE3" :memory: "SELECT (j ->> '\$.results[0].allocator') || '|' || (j ->> '\$.results[0].peak_in_use_bytes') || '|'
                                || (j ->> '\$.results[0].peak_time_us') || '|' || (j ->> '\$.results[0].reported_peak_bytes')
                              FROM (SELECT readfile('$tmp/m.json') AS j);")"
q bound_by "$tmp/xprof.xplane.pb" > "$tmp/b.json"
# compute: dot.1 (20 us); memory: fusion.2 (20 us); unknown: the other 41 us
check "bound_by time split" "20.0|20.0|41.0" \
  "$("$SQLITE3" :memory: "SELECT (j ->> '\$.by_time.compute.self_time_us') || '|' || (j ->> '\$.by_time.memory.self_time_us') || '|'
                                || (j ->> '\$.by_time.unknown.self_time_us') FROM (SELECT readfile('$tmp/b.json') AS j);")"

# ---- the reference's HLO-proto rewrite (tests/fixtures/jit_train_step.hlo.textproto
# says which kernels get which path): a hot op with a generic tf_op path (XlaModule:)
# and device-op region rows with a generic region (GpuExecutable=>Run) take the path;
# a specific path stays; without the HLO proto nothing changes.
mkdir -p "$tmp/hp" "$tmp/nohp"
protoc --encode=xla.HloProto -I schema schema/hlo.proto < tests/fixtures/jit_train_step.hlo.textproto \
  > "$tmp/hp/jit_train_step.hlo_proto.pb" || { echo "FAIL: protoc hlo"; exit 1; }
printf '%s' '{"traceEvents": [
 {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "/host:CPU"}},
 {"ph": "M", "name": "process_name", "pid": 2, "args": {"name": "/device:GPU:0"}},
 {"ph": "M", "name": "thread_name", "pid": 2, "tid": 20, "args": {"name": "Stream #1"}},
 {"ph": "X", "pid": 1, "tid": 1, "name": "GpuExecutable::Run", "ts": 0, "dur": 100},
 {"ph": "X", "pid": 2, "tid": 20, "name": "gemm_fusion_dot_7", "ts": 10, "dur": 30, "args": {"tf_op": "XlaModule:"}},
 {"ph": "X", "pid": 2, "tid": 20, "name": "gemm_fusion_dot_general_2", "ts": 50, "dur": 20, "args": {"tf_op": "jit(train_step)/specific"}},
 {"ph": "X", "pid": 2, "tid": 20, "name": "fusion.9", "ts": 80, "dur": 10, "args": {"tf_op": "XlaModule:"}}]}' > "$tmp/hp/host.trace.json"
cp "$tmp/hp/host.trace.json" "$tmp/nohp/host.trace.json"
P='jit(train_step)/layer_0/dense/dot_general'
paths() { q summary "$1" > "$tmp/p.json"; /usr/bin/python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(" ".join(h["name"] + "=" + str(h["tf_op_path"]) for h in d["hot_ops"]))
print(" ".join(r["op_name"] + "=" + r["region_path"] for r in d["device_op_region_aggregates"]))' "$tmp/p.json"; }
check "HLO rewrite: hot ops and regions" \
  "gemm_fusion_dot_7=$P gemm_fusion_dot_general_2=jit(train_step)/specific fusion.9=XlaModule:
gemm_fusion_dot_7=$P gemm_fusion_dot_general_2=$P fusion.9=GpuExecutable=>Run" "$(paths "$tmp/hp/host.trace.json")"
check "HLO rewrite: nothing without the HLO proto" \
  "gemm_fusion_dot_7=XlaModule: gemm_fusion_dot_general_2=jit(train_step)/specific fusion.9=XlaModule:
gemm_fusion_dot_7=GpuExecutable=>Run gemm_fusion_dot_general_2=GpuExecutable=>Run fusion.9=GpuExecutable=>Run" \
  "$(paths "$tmp/nohp/host.trace.json")"
check "xplane_hlo_op_paths rows" "gemm_fusion_dot_7|gemm_fusion_dot_7|$P|1
gemm_fusion_dot_general_2|gemm_fusion_dot_general_2|$P|1" \
  "$("$SQLITE3" -cmd ".load $EXT" :memory: "SELECT name, kernel, tf_op_path, votes FROM xplane_hlo_op_paths('$tmp/hp/host.trace.json') ORDER BY name;")"

# ---- no data: no section ----
printf '%s' '{"traceEvents": [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "/host:CPU"}},
 {"ph": "X", "pid": 1, "tid": 1, "name": "step", "ts": 0, "dur": 4}]}' > "$tmp/host_only.json"
check "report_xprof = report without any data" "$(q report "$tmp/host_only.json" | grep -v 'Generated At')" \
  "$(q report_xprof "$tmp/host_only.json" | grep -v 'Generated At')"

# ---- sqlite3-only files ----
for f in report_xprof summary_xprof bound_by top_kernels peak_memory; do
  out=$(tp_plugin/tp_query.sh "queries/$f.sql" 2>&1 >/dev/null)
  case $out in *"runs in the sqlite3 shell only"*) pass=$((pass + 1)) ;; *) fail=$((fail + 1)); echo "FAIL: tp_query.sh accepted $f.sql" ;; esac
done

# ---- the PerfettoSQL package's memory tables = the extension's ----
# (tp_plugin/xplane/xprof.sql over the converted trace, run by the shim as
# test_engines.sh does), on the memory fixture and every real profile.
SHIM=$BUILD/tests/perfetto_sql_shim
mem_cols='allocator, n_allocations, n_deallocations, allocated_bytes, peak_in_use_bytes, peak_time_ps,
  reported_peak_bytes, final_in_use_bytes, first_time_ps, last_time_ps, n_ops_at_peak, ops_at_peak'
ev_sums='count(*), sum(in_use_bytes), sum(coalesce(bytes, 0)), sum(coalesce(requested_bytes, 0)),
  sum(coalesce(available_bytes, 0)), count(tf_op), count(shape), count(region_type), count(addr), total(fragmentation)'
pkg_vs_ext() { # pkg_vs_ext PROFILE LABEL
  printf 'INCLUDE PERFETTO MODULE xplane.xprof;\nSELECT %s FROM xplane_memory_peaks ORDER BY allocator;\nSELECT %s FROM xplane_memory;\nSELECT group_concat(kind || allocator || time_ps, %s) FROM (SELECT * FROM xplane_memory ORDER BY rowid);\n' \
    "$mem_cols" "$ev_sums" "','" > "$tmp/mp.sql"
  "$SHIM" "$EXT" tp_plugin/xplane "$1" "$tmp/mp.sql" > "$tmp/mp.out" 2>&1
  "$SQLITE3" -cmd ".load $EXT" :memory: "SELECT $mem_cols FROM xplane_memory_peaks('$1') ORDER BY allocator;
    SELECT $ev_sums FROM xplane_memory('$1');
    SELECT group_concat(kind || allocator || time_ps, ',') FROM xplane_memory('$1');" > "$tmp/me.out" 2>&1
  check "$2: package memory tables = the extension's" "$(cat "$tmp/me.out")" "$(cat "$tmp/mp.out")"
}
if [ -x "$SHIM" ]; then
  pkg_vs_ext "$tmp/memory.xplane.pb" "memory fixture"
  for f in "$DATA"/*.xplane.pb; do [ -e "$f" ] && pkg_vs_ext "$f" "$(basename "$f" .xplane.pb)"; done
else
  echo "note: $SHIM missing, package checks skipped"
fi

# ---- real profiles ----
shopt -s nullglob
files=("$DATA"/*.xplane.pb)
for f in "${files[@]}"; do
  b=$(basename "$f" .xplane.pb)
  q summary "$f" | sed 's/"generated_at_utc": "[^"]*"/"generated_at_utc": "@NOW@"/' > "$tmp/s.json"
  q summary_xprof "$f" | sed 's/"generated_at_utc": "[^"]*"/"generated_at_utc": "@NOW@"/' > "$tmp/sx.json"
  check "$b: summary_xprof is summary plus the xprof key" "ok" \
    "$(/usr/bin/python3 -c 'import json,sys
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
x=b.pop("xprof", None)
print("ok" if a == b and isinstance(x, dict) and json.dumps(a, indent=2, sort_keys=True) == open(sys.argv[1]).read().rstrip("\n") else "differs")' "$tmp/s.json" "$tmp/sx.json")"
  q report "$f" | grep -v 'Generated At' > "$tmp/r.md"
  q report_xprof "$f" | grep -v 'Generated At' > "$tmp/rx.md"
  n=$(wc -l < "$tmp/r.md")
  check "$b: report_xprof starts with report" "$(cat "$tmp/r.md")" "$(head -n "$n" "$tmp/rx.md")"
  case $b in
    xprof_tpu_inference_2) want='## Device ## Roofline (HLO Op Stats) ## Memory ## Step Overview' ;;
    gpu_mw|tracelens_*) want='## Device ## Kernel Stats ## Memory' ;;
  esac
  got=$(tail -n +"$((n + 1))" "$tmp/rx.md" | grep '^## ' | grep -v '^## Step Overview' | tr '\n' ' ' | sed 's/ $//')
  [ "$b" = xprof_tpu_inference_2 ] && got=$(tail -n +"$((n + 1))" "$tmp/rx.md" | grep '^## ' | tr '\n' ' ' | sed 's/ $//')
  check "$b: xprof sections" "$want" "$got"
done
[ ${#files[@]} -eq 0 ] && echo "note: no real profiles in $DATA (those checks skipped)"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
