#!/usr/bin/env bash
# test_generator.sh: the synthetic profile generator (tools/xplane_gen) writes
# valid, deterministic, JAX-shaped profiles that carry its documented injected
# features. Generates small GPU and TPU logdirs (2 hosts x 2 devices) and checks
# them through the extension (and protoc, when installed). Needs no real data.
#
#   XPLANE_EXT=build/xplane XPLANE_BUILD=build SQLITE3=sqlite3 bash tests/test_generator.sh
set -u -o pipefail

GEN="$XPLANE_BUILD/tools/xplane_gen"
[ -x "$GEN" ] || { echo "FAIL: no generator at $GEN" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

H=2 D=2 S=10 N=32 K=5 SEED=7
IOTA="iota.$((N / 4))"
GPU_HOT="sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas"
# Exact structure (see the header of tools/xplane_gen.c).
# (a memory line per device on the host plane: 1 + 8 S events each)
GPU_PLANES=$((D + 2)) GPU_LINES=$((5 * D + 1)) GPU_EVENTS=$((S * (D * (2 * N + 11) + 2) + D))
TPU_PLANES=$((D + 2)) TPU_LINES=$((5 * D + 2)) TPU_EVENTS=$((S * (D * (N + 20) + 2) + D))

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
# check NAME EXPECTED ACTUAL
check() {
  if [ "$2" == "$3" ]; then echo "ok - $1"; else fail "$1: expected [$2], got [$3]"; fi
}
q() { "$SQLITE3" -batch -noheader -cmd ".load $XPLANE_EXT" :memory: "$1" 2>&1; }
json_field() { sed -E "s/.*\"$2\":\"?([^\",}]*)\"?[,}].*/\1/" <<<"$1"; }

# gen DIR RUN STYLE SEED: run the generator, keep its JSON lines in DIR/RUN.json
gen() {
  "$GEN" --out "$1" --run "$2" --style "$3" --hosts $H --devices $D --steps $S \
    --ops-per-step $N --heavy-every $K --seed "$4" >"$1/$2.json" ||
    fail "xplane_gen --style $3 exited $?"
}
mkdir -p "$T/a" "$T/b" "$T/c"
for dir in a b; do
  gen "$T/$dir" gpu gpu $SEED
  gen "$T/$dir" tpu tpu $SEED
done
gen "$T/c" gpu gpu $((SEED + 1))
gen "$T/c" tpu tpu $((SEED + 1))
A="$T/a/plugins/profile"

# --- layout: <dir>/plugins/profile/<run>/<host>.xplane.pb, nothing else
check "files found by the extension" \
  "$(printf '%s\n' "gpu|host0|$A/gpu/host0.xplane.pb" "gpu|host1|$A/gpu/host1.xplane.pb" \
    "tpu|host0|$A/tpu/host0.xplane.pb" "tpu|host1|$A/tpu/host1.xplane.pb")" \
  "$(q "SELECT run, host, file FROM xplane_files('$T/a') ORDER BY run, host")"
check "files on disk" "4" "$(find "$T/a" -type f -name '*.xplane.pb' | wc -l)"

# --- counts: JSON lines = what the extension reads = the documented formulas
for style in gpu tpu; do
  planes_var=${style^^}_PLANES lines_var=${style^^}_LINES events_var=${style^^}_EVENTS
  check "$style: one JSON line per host" "$H" "$(wc -l <"$T/a/$style.json")"
  h=0
  while IFS= read -r line; do
    path="$A/$style/host$h.xplane.pb"
    check "$style host$h: JSON path" "$path" "$(json_field "$line" path)"
    check "$style host$h: JSON steps" "$S" "$(json_field "$line" steps)"
    json="$(json_field "$line" planes)|$(json_field "$line" lines)|$(json_field "$line" events)|$(json_field "$line" bytes)"
    check "$style host$h: JSON counts = formulas" \
      "${!planes_var}|${!lines_var}|${!events_var}|$(stat -c %s "$path")" "$json"
    check "$style host$h: extension counts = JSON" "$json|[\"host$h\"]" \
      "$(q "SELECT n_planes, n_lines, n_events, size, hostnames FROM xplane_space('$path')")"
    check "$style host$h: Task Environment times" "1" \
      "$(q "SELECT profile_stop_time_ns > profile_start_time_ns FROM xplane_space('$path')")"
    if command -v protoc >/dev/null; then
      decoded=$(protoc -I "$XPLANE_SRC/schema" --decode=tensorflow.profiler.XSpace xplane.proto <"$path")
      check "$style host$h: protoc decodes the same counts" "$json" \
        "$(grep -c '^planes {' <<<"$decoded")|$(grep -c '^  lines {' <<<"$decoded")|$(grep -c '^    events {' <<<"$decoded")|$(stat -c %s "$path")"
    fi
    h=$((h + 1))
  done <"$T/a/$style.json"
done
command -v protoc >/dev/null || echo "note: protoc not installed, protoc decode check skipped"

# --- determinism: same seed, same bytes; another seed, other bytes
for f in gpu/host0 gpu/host1 tpu/host0 tpu/host1; do
  if cmp -s "$A/$f.xplane.pb" "$T/b/plugins/profile/$f.xplane.pb"; then echo "ok - $f: same seed, identical"
  else fail "$f: same seed gave different files"; fi
  if cmp -s "$A/$f.xplane.pb" "$T/c/plugins/profile/$f.xplane.pb"; then fail "$f: other seed gave the same file"
  else echo "ok - $f: other seed, different"; fi
done

# --- GPU: kernel stats interned by ref, correlation ids shared with host launches
KERNELS=$((H * S * D * N)) COPIES=$((H * S * D))
check "gpu: device kernel string stats are refs" \
  "$(printf '%s\n' "hlo_module|$KERNELS|$KERNELS" "hlo_op|$KERNELS|$KERNELS" \
    "kernel_details|$KERNELS|$KERNELS" "memcpy_details|$COPIES|$COPIES" "tf_op|$KERNELS|$KERNELS")" \
  "$(q "SELECT name, count(*), sum(value_type = 'ref') FROM xplane_stats('$A/gpu')
        WHERE scope = 'event' AND plane_name LIKE '/device:%'
          AND name IN ('hlo_op', 'hlo_module', 'tf_op', 'kernel_details', 'memcpy_details')
        GROUP BY name ORDER BY name")"
check "gpu: a ref resolves to its interned string" "$((H * S * D))" \
  "$(q "SELECT count(*) FROM xplane_stats('$A/gpu') WHERE event_name = '$IOTA'
        AND name = 'hlo_op' AND value_type = 'ref' AND value = '$IOTA'")"
check "gpu: every device event has one earlier host launch of its correlation_id" \
  "$((KERNELS + COPIES))|$((KERNELS + COPIES))|$((KERNELS + COPIES))" \
  "$(q "CREATE TEMP TABLE c AS
          SELECT file, plane_name LIKE '/device:%' AS dev, CAST(value AS INT) AS cid,
                 start_ps, event_name
          FROM xplane_stats('$A/gpu') WHERE scope = 'event' AND name = 'correlation_id';
        SELECT (SELECT count(*) FROM c WHERE dev),
               (SELECT count(DISTINCT file || cid) FROM c WHERE NOT dev),
               (SELECT count(*) FROM c d JOIN c h
                  ON h.file = d.file AND h.cid = d.cid AND NOT h.dev AND h.start_ps < d.start_ps
                 AND h.event_name = CASE d.event_name WHEN 'CopyHostToDevice'
                                     THEN 'cuMemcpyHtoDAsync_v2' ELSE 'cuLaunchKernel' END
                WHERE d.dev)")"
check "gpu: step annotations (train, step_num, _r)" "$((H * S))|0|$((S - 1))|$((H * S))" \
  "$(q "SELECT count(*), min(json_extract(stats, '\$.step_num')),
               max(json_extract(stats, '\$.step_num')), sum(json_extract(stats, '\$._r') = 1)
        FROM xplane_events('$A/gpu') WHERE plane_name = '/host:CPU' AND name = 'train'")"

# --- TPU: op facts on the metadata only, device clock on the events, Steps line
OPS=$((H * S * D * (N + 1)))
check "tpu: XLA Ops hlo_category from metadata, device_offset_ps from the event" \
  "$(printf '%s\n' "device_offset_ps|event|$OPS" "hlo_category|metadata|$OPS")" \
  "$(q "SELECT name, origin, count(*) FROM xplane_stats('$A/tpu')
        WHERE scope = 'event' AND line_name = 'XLA Ops' AND name IN ('hlo_category', 'device_offset_ps')
        GROUP BY name, origin ORDER BY name")"
check "tpu: hot op metadata" "convolution fusion" \
  "$(q "SELECT DISTINCT value FROM xplane_stats('$A/tpu')
        WHERE scope = 'event_metadata' AND event_name LIKE '%fusion.hot =%' AND name = 'hlo_category'")"
check "tpu: Steps events named by step number" "$((H * D * S))|$S|0|$((S - 1))|$((H * D * S))" \
  "$(q "SELECT count(*), count(DISTINCT name), min(CAST(name AS INT)), max(CAST(name AS INT)),
               sum(CAST(CAST(name AS INT) AS TEXT) = name)
        FROM xplane_events('$A/tpu') WHERE line_name = 'Steps'")"
check "tpu: Async XLA Ops partially overlap" "$((H * D * S * 7))" \
  "$(q "SELECT count(*) FROM (SELECT start_ps, end_ps, lead(start_ps) OVER w AS ns, lead(end_ps) OVER w AS ne
          FROM xplane_events('$A/tpu') WHERE line_name = 'Async XLA Ops'
          WINDOW w AS (PARTITION BY file, plane_index ORDER BY start_ps))
        WHERE ns < end_ps AND ne > end_ps")"

# --- injected features, both styles
DEVICE_OPS="plane_name LIKE '/device:%' AND (line_name IN ('XLA Ops', 'Async XLA Ops') OR line_name LIKE 'Stream #%')"
for style in gpu tpu; do
  # min_gap: 0.9 x the documented floor (400 us GPU, 200 us TPU; +-10 % jitter)
  if [ $style = gpu ]; then hot=$GPU_HOT compute="line_id = 16 + 3 * plane_id" min_gap=360000000
  else hot=fusion.hot compute="line_name = 'XLA Ops'" min_gap=180000000; fi
  # 1. the hot op has the largest total on device op lines, by 1.5x or more
  check "$style: hot op on top" "$(printf '%s|1\n%s|1' "$hot" "$hot")" \
    "$(q "WITH t AS (SELECT file, coalesce(nullif(display_name, ''), name) AS op, sum(dur_ps) AS tot
                     FROM xplane_events('$A/$style') WHERE $DEVICE_OPS GROUP BY file, op),
               r AS (SELECT *, row_number() OVER (PARTITION BY file ORDER BY tot DESC) AS rk FROM t)
          SELECT a.op, a.tot >= 1.5 * b.tot FROM r a JOIN r b ON b.file = a.file AND b.rk = 2
          WHERE a.rk = 1 ORDER BY a.file")"
  # 2. the largest pre-op gap of the compute lines: before the iota, once per
  #    step and device, >= min_gap, payload starting exactly at the iota's end
  check "$style: pre-op gap before $IOTA then convolution.payload" \
    "$(printf '%s|%d|%d|1\n%s|%d|%d|1' "$IOTA" $((S * D)) $((S * D)) "$IOTA" $((S * D)) $((S * D)))" \
    "$(q "WITH ev AS (
            SELECT file, coalesce(nullif(display_name, ''), name) AS op, start_ps, end_ps,
                   max(end_ps) OVER (PARTITION BY file, plane_index, line_index ORDER BY start_ps, end_ps
                                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS runmax,
                   lead(coalesce(nullif(display_name, ''), name)) OVER w AS next_op,
                   lead(start_ps) OVER w AS next_start
            FROM xplane_events('$A/$style') WHERE $compute
            WINDOW w AS (PARTITION BY file, plane_index, line_index ORDER BY start_ps, end_ps)),
          g AS (SELECT file, op, count(*) AS n, sum(start_ps - runmax) AS tot,
                       sum(next_op = 'convolution.payload' AND next_start = end_ps) AS payload,
                       min(start_ps - runmax) >= $min_gap AS big
                FROM ev WHERE start_ps > runmax GROUP BY file, op),
          r AS (SELECT *, row_number() OVER (PARTITION BY file ORDER BY tot DESC) AS rk FROM g)
          SELECT op, n, payload, big FROM r WHERE rk = 1 ORDER BY file")"
  # 3. heavy steps (s % K == K-1) last over 1.5x the shortest step; 4. the
  #    communication phase [S/2, S/2 + S/5) spends over 15 % of op time in all-reduces
  steps="WITH tr AS (SELECT file, start_ps AS s0, end_ps AS s1, json_extract(stats, '\$.step_num') AS step
                     FROM xplane_events('$A/$style') WHERE plane_name = '/host:CPU' AND name = 'train'),
              ops AS (SELECT file, coalesce(nullif(display_name, ''), name) AS op, start_ps, dur_ps
                      FROM xplane_events('$A/$style') WHERE $DEVICE_OPS AND line_name <> 'Async XLA Ops'),
              st AS (SELECT tr.file, step, s1 - s0 AS dur,
                            sum(CASE WHEN op LIKE 'nccl%' OR op LIKE 'all-reduce%' THEN dur_ps END) * 1.0
                              / sum(dur_ps) AS comm
                     FROM tr JOIN ops ON ops.file = tr.file AND start_ps BETWEEN s0 AND s1
                     GROUP BY tr.file, step)"
  check "$style: heavy steps" "4,9|4,9" \
    "$(q "$steps SELECT group_concat(steps, '|') FROM (SELECT file, group_concat(step) AS steps FROM
            (SELECT st.file, step FROM st JOIN (SELECT file, min(dur) AS m FROM st GROUP BY file) USING (file)
             WHERE dur > 1.5 * m ORDER BY st.file, step) GROUP BY file ORDER BY file)")"
  check "$style: communication-heavy steps" "5,6|5,6" \
    "$(q "$steps SELECT group_concat(steps, '|') FROM (SELECT file, group_concat(step) AS steps FROM
            (SELECT file, step FROM st WHERE comm > 0.15 ORDER BY file, step) GROUP BY file ORDER BY file)")"
done

# --- memory events (header of tools/xplane_gen.c): per device, weights W = 2 GiB once,
#     then per step 4 allocations of 1..4 x 64 MiB (x2 in heavy steps), freed at the end.
W=2147483648 ACT_SUM=$((10 * 67108864)) HEAVY=$((S / K))
for style in gpu tpu; do
  if [ $style = gpu ]; then alloc0=GPU_0_bfc alloc1=GPU_1_bfc train_off=8000000
  else alloc0=index_on_host:0 alloc1=index_on_host:1 train_off=16000000; fi
  # the peak: first reached by the 4th allocation of the first heavy step (K-1), 8 us after
  # the step starts (the step's `train` annotation starts with it on GPU, 8 us before on TPU)
  row="$((1 + 4 * S))|$((4 * S))|$((W + (S + HEAVY) * ACT_SUM))|$((W + 2 * ACT_SUM))|$((W + 2 * ACT_SUM))|$W|1"
  check "$style: memory peaks per allocator, from the generator's parameters" \
    "$(printf '%s\n' "host0|$alloc0|$row" "host0|$alloc1|$row" "host1|$alloc0|$row" "host1|$alloc1|$row")" \
    "$(q "SELECT m.host, allocator, n_allocations, n_deallocations, allocated_bytes, peak_in_use_bytes,
                 reported_peak_bytes, final_in_use_bytes,
                 peak_time_ps - (SELECT start_ps FROM xplane_events('$A/$style') e
                                  WHERE e.file = m.file AND e.name = 'train'
                                    AND json_extract(e.stats, '\$.step_num') = $((K - 1))) = $train_off
          FROM xplane_memory_peaks('$A/$style') m ORDER BY m.host, allocator")"
done

# --- FLOPs and bytes (TPU): a fixed fraction of the peaks (197 TFLOP/s, 819 GB/s) over the
#     op's nominal duration, so no op runs above a peak. convolution.payload: 60 us nominal at
#     50 % of the FLOP peak -> 0.5 * 197 * 60e6 = 5,910,000,000 FLOPs per run, 20 % of the
#     bandwidth -> 0.2 * 0.819 * 60e6 = 9,828,000 bytes; iota: 8 us at 5 % -> 327,600 bytes.
check "tpu: FLOP and bandwidth utilization never above 1 (all op and category rows)" "0|0|1" \
  "$(q "SELECT sum(flop_utilization > 1), sum(bw_utilization > 1), count(flop_utilization) > 0
        FROM xplane_hlo_stats('$A/tpu')")"
check "tpu: payload and iota FLOPs / bytes from their nominal durations" \
  "$(for h in host0 host1; do printf '%s\n' "$h|convolution.payload|$((S * D))|$((S * D * 5910000000))|$((S * D * 9828000))" \
    "$h|$IOTA|$((S * D))|0|$((S * D * 327600))"; done)" \
  "$(q "SELECT host, name, count, CAST(flops AS INT), CAST(bytes_accessed AS INT) FROM xplane_hlo_stats('$A/tpu')
        WHERE kind = 'op' AND name IN ('convolution.payload', '$IOTA') ORDER BY host, name")"
# bound-by from the fractions: FLOP/byte fraction ratio >= 1 is compute-bound
# (convolution 0.6/0.15, hot fusion 0.7/0.1), below is memory-bound (loop fusion, all-reduce)
check "tpu: bound-by per category follows the fractions" \
  "$(printf '%s\n' "all-reduce|memory" "convolution|compute" "convolution fusion|compute" "loop fusion|memory")" \
  "$(q "SELECT DISTINCT name, bound_by FROM xplane_hlo_stats('$A/tpu')
        WHERE kind = 'category' AND name IN ('all-reduce', 'convolution', 'convolution fusion', 'loop fusion')
        ORDER BY name")"

# --- the HLO proto beside the profiles: one instruction per op slot (+ the while on TPU),
#     named as the device lines name the ops, with the slot's name stack
for style in gpu tpu; do
  if [ $style = gpu ]; then n_ins=$N; else n_ins=$((N + 1)); fi
  check "$style: HLO proto instructions" "$n_ins|1|$n_ins|$N" \
    "$(q "SELECT count(*), sum(is_root), count(DISTINCT name), sum(source_file = 'model.py' AND op_name LIKE 'jit(train_step)/%'
                                                                   AND source_line > 0)
          FROM xplane_hlo_instructions('$A/$style/jit_train_step.hlo_proto.pb')")"
done
check "tpu: every XLA Ops op but the async copies names an HLO instruction" "0" \
  "$(q "SELECT count(*) FROM xplane_ops('$A/tpu') o WHERE o.name NOT LIKE 'copy-start.%'
          AND o.name NOT IN (SELECT name FROM xplane_hlo_instructions('$A/tpu/jit_train_step.hlo_proto.pb'))")"
# GPU: the attn/out matmuls (slots i % 8 == 3 below the optimizer: 3, 11, 19, 27 for N = 32)
# are Triton fusions gemm_fusion_dot.<i> whose kernels carry the generic tf_op command_buffer;
# the HLO proto gives them their name stack (layer: i / 8 forward, 1 - (i - 16) / 8 backward)
check "gpu: HLO path rewrite of the gemm_fusion_dot kernels" \
  "$(printf '%s\n' "gemm_fusion_dot.11|jit(train_step)/jvp(model)/layer_1/attn/out/dot_general" \
    "gemm_fusion_dot.19|jit(train_step)/transpose(jvp(model))/layer_1/attn/out/dot_general" \
    "gemm_fusion_dot.27|jit(train_step)/transpose(jvp(model))/layer_0/attn/out/dot_general" \
    "gemm_fusion_dot.3|jit(train_step)/jvp(model)/layer_0/attn/out/dot_general")" \
  "$(q "SELECT DISTINCT name, tf_op_path FROM xplane_hlo_op_paths('$A/gpu/host0.xplane.pb') ORDER BY name")"
check "gpu: their kernels' tf_op is command_buffer" "command_buffer" \
  "$(q "SELECT DISTINCT value FROM xplane_stats('$A/gpu') WHERE name = 'tf_op' AND event_name LIKE 'gemm_fusion_dot.%'")"

# --- bad command lines exit 2 with a message; --help exits 0
for args in "--style cpu --out $T/x" "--out" "--bogus" "--out $T/x --ops-per-step 15" \
  "--out $T/x --target-mb 2049" "--out $T/x --steps 2000000" "--steps 3"; do
  # shellcheck disable=SC2086
  msg=$("$GEN" $args 2>&1 >/dev/null)
  check "bad flags ($args): exit 2" "2" "$?"
  [ -n "$msg" ] || fail "bad flags ($args): no message"
done
"$GEN" --help >"$T/help.txt"
check "--help exits 0" "0" "$?"
grep -q '^usage: xplane_gen --out DIR' "$T/help.txt" || fail "--help prints no usage"
[ ! -e "$T/x" ] || fail "a rejected command line created $T/x"

[ $failures -eq 0 ] || { echo "$failures check(s) failed" >&2; exit 1; }
echo "all generator checks passed"
