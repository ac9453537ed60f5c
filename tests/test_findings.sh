#!/usr/bin/env bash
# test_findings.sh: xplane_findings finds each problem tools/xplane_gen
# --inject puts in a profile, with the evidence the generator's constants give
# (derived by hand below, from the header of tools/xplane_gen.c), and nothing
# in a clean generated profile. Where a figure depends on the seeded jitter
# (idle times, step spans), it is recomputed here by an independent SQL query
# over xplane_ops / xplane_steps / xplane_events, and bounded by the injected
# constant. Needs no real data.
#
#   XPLANE_EXT=build/xplane XPLANE_BUILD=build SQLITE3=sqlite3 bash tests/test_findings.sh
set -u -o pipefail
. "$(dirname "$0")/test_env.sh"

GEN="$BUILD/tools/xplane_gen"
[ -x "$GEN" ] || { echo "FAIL: no generator at $GEN" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

D=2 S=10 N=100
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
check() { if [ "$2" == "$3" ]; then echo "ok - $1"; else fail "$1: expected [$2], got [$3]"; fi; }
q() { "$SQLITE3" -batch -noheader -cmd ".load $EXT" :memory: "$1" 2>&1; }
gen() { # gen RUN STYLE [INJECT]
  local inj=()
  [ -n "${3:-}" ] && inj=(--inject "$3")
  "$GEN" --out "$T" --run "$1" --style "$2" --devices $D --steps $S --ops-per-step $N \
    --heavy-every 0 --seed 3 "${inj[@]}" >/dev/null || fail "xplane_gen $1 exited $?"
}
R() { echo "$T/plugins/profile/$1"; }

gen clean_gpu gpu
gen clean_tpu tpu
for j in recompile host-bound transfers tiny sync; do gen "$j" gpu "$j"; done
gen recompile_tpu tpu recompile
gen memory-bound tpu memory-bound
msg=$("$GEN" --out "$T" --run nope --inject memory-bound 2>&1 >/dev/null)
check "xplane_gen --inject memory-bound without --style tpu: usage error" \
  "2|xplane_gen: --inject memory-bound needs --style tpu (GPU planes carry no peak FLOP rate)" "$?|$(head -1 <<<"$msg")"

# --- a clean profile has no finding; each injected one only its own kind
check "clean gpu: no finding" "0" "$(q "SELECT count(*) FROM xplane_findings('$(R clean_gpu)')")"
check "clean tpu: no finding" "0" "$(q "SELECT count(*) FROM xplane_findings('$(R clean_tpu)')")"
for pair in recompile:recompilation host-bound:host_bound transfers:transfers tiny:tiny_kernels \
  sync:synchronization recompile_tpu:recompilation memory-bound:memory_bound; do
  check "${pair%%:*}: only ${pair#*:}" "${pair#*:}" \
    "$(q "SELECT group_concat(DISTINCT id) FROM xplane_findings('$(R "${pair%%:*}")')")"
done

# --- recompilation: 3 backend_compile of exactly 20 ms, each inside a
# PjitFunction(train_step): one module compiled 3 times, 60 ms = 6e10 ps (the
# PjRtCompiler::Compile nested in each is part of it, not a compile of its own).
for run in recompile recompile_tpu; do
  check "$run: module, count, time" "high|PjitFunction(train_step)|3|3|60000000000|60000000000" \
    "$(q "SELECT severity, subject, count, of_total, time_ps, evidence->>'compile_ps'
            FROM xplane_findings('$(R $run)')")"
  check "$run: share of the span (span from xplane_events)" "1" \
    "$(q "SELECT abs(f.share - 6e10 / (SELECT max(start_ps + dur_ps) - min(start_ps)
                                         FROM xplane_events('$(R $run)'))) < 1e-12
            FROM xplane_findings('$(R $run)') f")"
done

# --- host_bound: steps s % 4 == 0 of 10 (0, 4, 8) on both devices; each has
# 3 ms of host preprocessing with the device idle, so >= 9 ms of idle; the
# idle equals xplane_steps' idle_ps of those steps.
P="$(R host-bound)"
check "host-bound: steps per device" "0|3|10|0,4,8;1|3|10|0,4,8" \
  "$(q "SELECT group_concat(plane_index || '|' || count || '|' || of_total || '|' || steps, ';')
          FROM (SELECT * FROM xplane_findings('$P') ORDER BY plane_index)")"
check "host-bound: idle = xplane_steps idle of steps 0,4,8, >= 9 ms" "1|1" \
  "$(q "SELECT min(f.time_ps = (SELECT sum(idle_ps) FROM xplane_steps('$P') s
                               WHERE s.plane_index = f.plane_index AND s.step % 4 = 0)),
               min(f.time_ps >= 9000000000 AND f.evidence->>'host_busy_ps' >= 9000000000
                   AND f.share >= 0.25)
          FROM xplane_findings('$P') f")"

# --- transfers: per step and device one HtoD copy of exactly 600 us and
# 32 MiB, one DtoH of exactly 300 us and 16 MiB; 10 steps.
P="$(R transfers)"
check "transfers: direction, count, time, bytes, in steps" \
  "0|HtoD|10|6000000000|335544320|10;0|DtoH|10|3000000000|167772160|10;1|HtoD|10|6000000000|335544320|10;1|DtoH|10|3000000000|167772160|10" \
  "$(q "SELECT group_concat(plane_index || '|' || subject || '|' || count || '|' || time_ps || '|' ||
                            bytes || '|' || (evidence->>'in_steps'), ';')
          FROM (SELECT * FROM xplane_findings('$P') ORDER BY plane_index, subject = 'DtoH')")"
check "transfers: share = copy time / the device's step time (xplane_steps)" "1" \
  "$(q "SELECT min(abs(share - time_ps * 1.0 / (SELECT sum(dur_ps) FROM xplane_steps('$P') s
                                               WHERE s.plane_index = f.plane_index)) < 1e-12)
          FROM xplane_findings('$P') f")"

# --- tiny_kernels: even slots but the payload (N/4+1 = 26) and the hot op
# (5N/8 = 62) run 2 us; the all-reduces are odd slots: 50 - 2 = 48 per step,
# 480 of the 1000 kernels per device, 480 x 2 us of kernel time. The launch
# gap is recomputed with a window query (idle on the line before each tiny
# kernel, under 50 us).
P="$(R tiny)"
check "tiny: count, of, tiny time" "0|480|1000|960000000;1|480|1000|960000000" \
  "$(q "SELECT group_concat(plane_index || '|' || count || '|' || of_total || '|' || (evidence->>'tiny_ps'), ';')
          FROM (SELECT * FROM xplane_findings('$P') ORDER BY plane_index)")"
check "tiny: launch gap = window query over xplane_ops" "1" \
  "$(q "WITH o AS (SELECT plane_index, line_index, start_ps, dur_ps,
                          max(end_ps) OVER (PARTITION BY plane_index, line_index ORDER BY start_ps, op_id
                                            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
                     FROM xplane_ops('$P')),
               g AS (SELECT plane_index, sum(CASE WHEN start_ps - prev_end BETWEEN 1 AND 50000000
                                                  THEN start_ps - prev_end ELSE 0 END) AS gap
                       FROM o WHERE dur_ps < 5000000 GROUP BY plane_index)
          SELECT min(f.time_ps = g.gap AND g.gap > 0) FROM xplane_findings('$P') f JOIN g USING (plane_index)")"

# --- synchronization: block_until_ready in steps 2, 5, 8; after each the
# host pauses 2 ms, so each of the 2 devices idles >= 2 ms after each call:
# >= 12 ms. The idle is recomputed from xplane_events and xplane_ops.
P="$(R sync)"
check "sync: call, count" "block_until_ready|3" \
  "$(q "SELECT subject || '|' || count FROM xplane_findings('$P')")"
check "sync: idle after the calls = independent query, >= 12 ms" "1|1" \
  "$(q "WITH c AS (SELECT start_ps + dur_ps AS t FROM xplane_events('$P') WHERE name = 'block_until_ready'),
               o AS (SELECT plane_index, start_ps, end_ps FROM xplane_ops('$P')),
               idle AS (SELECT (SELECT min(start_ps) FROM o WHERE o.plane_index = p.plane_index AND o.start_ps > c.t) - c.t AS ps
                          FROM c, (SELECT DISTINCT plane_index FROM o) p
                         WHERE NOT EXISTS (SELECT 1 FROM o WHERE o.plane_index = p.plane_index
                                              AND o.start_ps <= c.t AND o.end_ps > c.t))
          SELECT f.time_ps = (SELECT sum(ps) FROM idle), f.time_ps >= 12000000000
            FROM xplane_findings('$P') f")"
check "sync: call time = the events' durations" "1" \
  "$(q "SELECT (SELECT evidence->>'call_ps' FROM xplane_findings('$P'))
             = (SELECT sum(dur_ps) FROM xplane_events('$P') WHERE name = 'block_until_ready')")"

# --- memory_bound: with --inject memory-bound the hot op fusion.hot declares
# flops = bytes_accessed = 2 x (8192x1024 + 1024x4096 + 8192x4096) = 92274688
# per run (the generator's header), 20 runs (2 devices x 10 steps): 1 FLOP per
# byte against the ridge 197e12 / 819e9 FLOP/byte of the TPU planes' peaks.
# Its self time and the device self time are recomputed from xplane_ops.
P="$(R memory-bound)"
check "memory-bound: op, runs, flops, bytes, intensity, ridge, peaks" \
  "fusion.hot|fusion.hot|20|1845493760|1845493760.0|1845493760.0|1.0|1|1.97e+14|8.19e+11|convolution fusion|0.05" \
  "$(q "SELECT subject, ops, count, bytes, evidence->>'flops', evidence->>'bytes_accessed',
               evidence->>'flops_per_byte',
               abs(evidence->>'ridge_flops_per_byte' - 197e12 / 819e9) < 1e-9,
               printf('%.2e', evidence->>'peak_flops_per_s'), printf('%.2e', evidence->>'peak_bw_bytes_per_s'),
               evidence->>'category', evidence->>'hot_op_share_min'
          FROM xplane_findings('$P')")"
check "memory-bound: self time, share, time range = xplane_ops; share >= 5 %" "1|1|1|1|1" \
  "$(q "WITH o AS (SELECT sum(self_ps) FILTER (WHERE name = 'fusion.hot') AS hot,
                          sum(max(self_ps, 0)) AS dev,
                          min(start_ps) FILTER (WHERE name = 'fusion.hot') AS lo,
                          max(end_ps) FILTER (WHERE name = 'fusion.hot') AS hi
                     FROM xplane_ops('$P'))
          SELECT f.time_ps = o.hot, (f.evidence->>'device_self_ps') = o.dev,
                 abs(f.share - o.hot * 1.0 / o.dev) < 1e-12, f.start_ps = o.lo AND f.end_ps = o.hi,
                 f.share >= 0.05 AND f.severity = CASE WHEN f.share >= 0.15 THEN 'high' ELSE 'medium' END
            FROM xplane_findings('$P') f, o")"
check "memory-bound: the roofline table agrees (xplane_hlo_stats)" "memory|1" \
  "$(q "SELECT h.bound_by, abs(h.bw_utilization - (f.evidence->>'bw_utilization')) < 1e-12
          FROM xplane_hlo_stats('$P') h, xplane_findings('$P') f WHERE h.kind = 'op' AND h.name = 'fusion.hot'")"

# --- thresholds from SQL: the second argument (hidden column params) flips
# each rule off (a stricter value than the profile's figure) or on (a looser
# one), and the evidence shows the value used.
pq() { q "SELECT coalesce(group_concat(id || ':' || count, ','), 'none') FROM (SELECT * FROM xplane_findings('$(R "$1")', '$2') ORDER BY id, plane_index, subject)"; }
check "params: memory-bound off at hot_op_share=0.2 (share 0.12)" "none" "$(pq memory-bound hot_op_share=0.2)"
check "params: clean tpu, hot_op_share=0.002: the memory-bound ops of xplane_hlo_stats with that share, collectives left out" \
  "$(q "SELECT 'memory_bound:' || count(*) || '|' || count(*) FROM xplane_hlo_stats('$(R clean_tpu)')
         WHERE kind = 'op' AND bound_by = 'memory' AND share_of_device_self >= 0.002 AND category <> 'all-reduce'")" \
  "$(q "SELECT id || ':' || count(*) || '|' || sum(evidence->>'hot_op_share_min' = 0.002)
          FROM xplane_findings('$(R clean_tpu)', 'hot_op_share=0.002') GROUP BY id")"
check "params: tiny off at tiny_share=0.49 (480 of 1000)" "none" "$(pq tiny tiny_share=0.49)"
check "params: tiny on at tiny_share=0.47" "tiny_kernels:480,tiny_kernels:480" "$(pq tiny tiny_share=0.47)"
check "params: tiny off at tiny_min=481, on at 480" "none|tiny_kernels:480,tiny_kernels:480" \
  "$(pq tiny tiny_min=481)|$(pq tiny 'tiny_min = 480')"
check "params: tiny off at tiny_kernel_us=1 (the kernels last 2 us)" "none" "$(pq tiny tiny_kernel_us=1)"
check "params: clean gpu, tiny_kernel_us=100: all but the 60 us payload and the hot op, 980 of 1000" \
  "tiny_kernels|980|1000|100000000;tiny_kernels|980|1000|100000000" \
  "$(q "SELECT group_concat(id || '|' || count || '|' || of_total || '|' || (evidence->>'tiny_threshold_ps'), ';')
          FROM xplane_findings('$(R clean_gpu)', 'tiny_kernel_us=100')")"
check "params: transfers at transfer_share=0.1: HtoD (12.6 %) only; 0.2: none" \
  "transfers:10,transfers:10|none" "$(pq transfers transfer_share=0.1)|$(pq transfers transfer_share=0.2)"
check "params: sync on at sync_idle_us=12000, off at 20000 (12.5 ms)" "synchronization:3|none" \
  "$(pq sync sync_idle_us=12000)|$(pq sync sync_idle_us=20000)"
check "params: recompile_min=4: medium by share; with compile_share=1: none" "medium|none" \
  "$(q "SELECT severity FROM xplane_findings('$(R recompile)', 'recompile_min=4')")|$(pq recompile 'recompile_min=4, compile_share=1')"
check "params: host-bound off at idle_share=0.6 and at host_busy_share=1" "none|none" \
  "$(pq host-bound idle_share=0.6)|$(pq host-bound host_busy_share=1)"
check "params: blank and NULL are the defaults" "host_bound:3,host_bound:3|host_bound:3,host_bound:3" \
  "$(pq host-bound ' ')|$(q "SELECT group_concat(id || ':' || count, ',') FROM xplane_findings('$(R host-bound)', NULL)")"
check "params: as hidden column constraints, and the params column shows them" "none|tiny_share=0.47" \
  "$(q "SELECT coalesce(group_concat(id), 'none') FROM xplane_findings WHERE path = '$(R tiny)' AND params = 'tiny_share=0.49'")|$(q "SELECT DISTINCT params FROM xplane_findings('$(R tiny)', 'tiny_share=0.47')")"
check "params: the evidence shows the thresholds used" "0.47|2500000|7" \
  "$(q "SELECT DISTINCT (evidence->>'tiny_share_min') || '|' || (evidence->>'tiny_threshold_ps') FROM xplane_findings('$(R tiny)', 'tiny_share=0.47,tiny_kernel_us=2.5')")|$(q "SELECT DISTINCT evidence->>'tiny_min' FROM xplane_findings('$(R tiny)', 'tiny_min=7,tiny_share=0')")"
perr() { q "SELECT count(*) FROM xplane_findings('$1', $2)"; }
check "params error: unknown name, before any file is read" \
  "Error: stepping, xplane_findings: unknown parameter 'tiny_us' (known: recompile_min, compile_share, idle_share, host_busy_share, transfer_share, tiny_kernel_us, tiny_share, tiny_min, sync_idle_us, hot_op_share)" \
  "$(perr "$T/nope" "'tiny_us=5'")"
check "params error: a share above 1" "Error: stepping, xplane_findings: parameter tiny_share wants a share from 0 to 1, not '1.5'" \
  "$(perr "$(R tiny)" "'tiny_share=1.5'")"
check "params error: a count that is not whole" "Error: stepping, xplane_findings: parameter tiny_min wants a whole number >= 1, not '2.5'" \
  "$(perr "$(R tiny)" "'tiny_min=2.5'")"
check "params error: not a number" "Error: stepping, xplane_findings: parameter sync_idle_us wants microseconds >= 0 (at most 1e9), not '1ms'" \
  "$(perr "$(R tiny)" "'sync_idle_us=1ms'")"
check "params error: zero tiny threshold" "Error: stepping, xplane_findings: parameter tiny_kernel_us wants microseconds > 0 (at most 1e9), not '0'" \
  "$(perr "$(R tiny)" "'tiny_kernel_us=0'")"
check "params error: twice" "Error: stepping, xplane_findings: parameter tiny_min is given twice" \
  "$(perr "$(R tiny)" "'tiny_min=3,tiny_min=4'")"
check "params error: no '='" "Error: stepping, xplane_findings: 'tiny_min' is not name=value" \
  "$(perr "$(R tiny)" "'tiny_min'")"
check "params error: an empty item" "Error: stepping, xplane_findings: an empty item in 'tiny_min=3,' (write name=value,name=value)" \
  "$(perr "$(R tiny)" "'tiny_min=3,'")"
check "params error: not text" "Error: stepping, xplane_findings: the params argument must be text like 'name=value,name=value' (or NULL)" \
  "$(perr "$(R tiny)" "0.5")"

# --- edge cases (tests/make_findings_fixtures.c): a step-covering annotation
# is not host work; a call that returns while the device runs adds no idle.
"$BUILD/tests/make_findings_fixtures" "$T" || fail "make_findings_fixtures exited $?"
check "annotation only: no host_bound; sync 2 calls, 250 us after" "synchronization|2|250000000" \
  "$(q "SELECT group_concat(id || '|' || count || '|' || time_ps) FROM xplane_findings('$T/annotation_only.xplane.pb')")"
check "host busy 70 %: host_bound 1/1 step, 300 us idle, 700 us host" \
  "host_bound|1|1|300000000|700000000|0.3;synchronization|2|250000000" \
  "$(q "SELECT group_concat(id || '|' || count || '|' || coalesce(of_total || '|', '') || time_ps ||
                            coalesce('|' || (evidence->>'host_busy_ps'), '') ||
                            CASE id WHEN 'host_bound' THEN '|' || share ELSE '' END, ';')
          FROM (SELECT * FROM xplane_findings('$T/host_busy.xplane.pb') ORDER BY id)")"

# --- real profiles (skipped without them): the synchronization rows agree
# with the independent query (there, devices are sometimes busy when a call
# returns, and some calls come before the first op; an idle gap several
# calls return in counts once, from the earliest return), and stay within
# the devices' idle time (a physical bound: on the TPU profile four threads
# wait on the same results, so counting each call's wait once over-counted
# 99.6 s of idle where the devices have 49.1 s).
sync_idle_sql() { # PATH CALL
  echo "WITH c AS (SELECT start_ps + dur_ps AS t FROM xplane_events('$1') WHERE name = '$2'),
             o AS (SELECT plane_index, start_ps, end_ps FROM xplane_ops('$1')),
             idle AS (SELECT p.plane_index, c.t,
                             (SELECT min(start_ps) FROM o WHERE o.plane_index = p.plane_index AND o.start_ps > c.t) AS next
                        FROM c, (SELECT DISTINCT plane_index FROM o) p
                       WHERE NOT EXISTS (SELECT 1 FROM o WHERE o.plane_index = p.plane_index
                                            AND o.start_ps <= c.t AND o.end_ps > c.t)
                         AND EXISTS (SELECT 1 FROM o WHERE o.plane_index = p.plane_index AND o.start_ps <= c.t)),
             gap AS (SELECT next - min(t) AS ps FROM idle WHERE next IS NOT NULL GROUP BY plane_index, next)
        SELECT sum(ps) FROM gap"
}
if [ -d "$DATA" ]; then
  for f in tracelens_jax_conv_minimal_08 tracelens_jax_conv_minimal_legacy tracelens_te_fused_attn xprof_tpu_inference_2; do
    P="$DATA/$f.xplane.pb"
    [ -f "$P" ] || continue
    call=$(q "SELECT subject FROM xplane_findings('$P') WHERE id = 'synchronization'")
    [ -n "$call" ] || { fail "$f: no synchronization finding"; continue; }
    check "$f: sync idle = independent query" "$(q "$(sync_idle_sql "$P" "$call")")" \
      "$(q "SELECT time_ps FROM xplane_findings('$P') WHERE id = 'synchronization'")"
    check "$f: sync idle <= the devices' idle time" "1" \
      "$(q "SELECT (SELECT time_ps FROM xplane_findings('$P') WHERE id = 'synchronization')
                   <= (SELECT sum(idle_ps) FROM xplane_device_time('$P'))")"
  done
  # memory_bound on the real TPU profile: none at the defaults (its memory-bound ops are async
  # copies, left out, and three loop fusions of 0.58-0.64 % each); at hot_op_share=0.005 the
  # fusions, as xplane_hlo_stats lists them
  P="$DATA/xprof_tpu_inference_2.xplane.pb"
  if [ -f "$P" ]; then
    check "xprof_tpu_inference_2: no memory_bound at the defaults" "0" \
      "$(q "SELECT count(*) FROM xplane_findings('$P') WHERE id = 'memory_bound'")"
    check "xprof_tpu_inference_2: hot_op_share=0.005: the memory-bound loop fusions of xplane_hlo_stats" \
      "$(q "SELECT group_concat(name || ':' || count || ':' || self_ps, ',') FROM (SELECT * FROM xplane_hlo_stats('$P')
             WHERE kind = 'op' AND bound_by = 'memory' AND share_of_device_self >= 0.005
               AND category NOT LIKE 'copy-%' AND category NOT LIKE 'all-%' ORDER BY self_ps DESC)")" \
      "$(q "SELECT group_concat(subject || ':' || count || ':' || time_ps, ',') FROM
             (SELECT * FROM xplane_findings('$P', 'hot_op_share=0.005') WHERE id = 'memory_bound' ORDER BY time_ps DESC)")"
  fi
else
  echo "skip - real profiles: $DATA absent"
fi

# --- the canned question (queries/findings.sql), run from the source root
canned() { (cd "$SRC" && "$SQLITE3" -batch -cmd ".load $EXT" -cmd ".parameter set @profile $1" \
  ${2:+-cmd ".parameter set @finding $2"} :memory: '.read queries/findings.sql' 2>&1); }
out=$(canned "$(R transfers)/host0.xplane.pb" transfers)
check "findings.sql @finding transfers: 4 results, HtoD first, 600 us x 10" "4|HtoD|6000000000|6.0" \
  "$(q "SELECT json_array_length(j, '\$.results') || '|' || (j->>'\$.results[0].subject') || '|' ||
               (j->>'\$.results[0].time_ps') || '|' || (j->>'\$.results[0].time_ms')
          FROM (SELECT '$(printf '%s' "$out" | tr -d '\n' | sed "s/'/''/g")' AS j)")"
out=$(canned "$(R sync)/host0.xplane.pb" transfers)
check "findings.sql: a profile without that finding gives []" "0" \
  "$(q "SELECT json_array_length('$(printf '%s' "$out" | tr -d '\n' | sed "s/'/''/g")', '\$.results')")"
out=$(canned "$(R clean_gpu)/host0.xplane.pb")
check "findings.sql: clean profile, all findings: []" "0" \
  "$(q "SELECT json_array_length('$(printf '%s' "$out" | tr -d '\n' | sed "s/'/''/g")', '\$.results')")"
canned "$(R sync)/host0.xplane.pb" bogus >/dev/null
check "findings.sql: a bad @finding exits 1" "1" "$?"
canned "$(R memory-bound)/host0.xplane.pb" memory_bound >"$T/mb.json"
check "findings.sql @finding memory_bound: fusion.hot, 1 FLOP/byte" "1|fusion.hot|1.0" \
  "$(q "SELECT json_array_length(j, '\$.results') || '|' || (j->>'\$.results[0].subject') || '|' ||
               (j->>'\$.results[0].evidence.flops_per_byte') FROM (SELECT readfile('$T/mb.json') AS j)")"
cannedp() { (cd "$SRC" && "$SQLITE3" -batch -cmd ".load $EXT" -cmd ".parameter set @profile $1" \
  -cmd ".parameter set @finding_params '$2'" :memory: '.read queries/findings.sql' 2>&1); }
cannedp "$(R memory-bound)/host0.xplane.pb" hot_op_share=0.5 >"$T/mb.json"
check "findings.sql @finding_params hot_op_share=0.5: []" "0" \
  "$(q "SELECT json_array_length(readfile('$T/mb.json'), '\$.results')")"
out=$(cannedp "$(R memory-bound)/host0.xplane.pb" hot_op=0.5)
rc=$?
check "findings.sql: a bad @finding_params exits 1 naming it" "1|1" "$rc|$(grep -c "unknown parameter 'hot_op'" <<<"$out")"

# --- the summary with findings (queries/summary_findings.sql): summary.sql's
# document plus one key, xplane_findings, whose candidates are the
# xplane_findings rows (profile_summary.v1's own sections, its
# optimization_candidates included, stay the same bytes).
summ() { (cd "$SRC" && "$SQLITE3" -batch -cmd ".load $EXT" -cmd ".parameter set @profile $1" \
  ${3:+-cmd ".parameter set @finding_params '$3'"} :memory: ".read queries/$2.sql" 2>&1) |
  sed 's/"generated_at_utc": "[^"]*"/"generated_at_utc": "@NOW@"/'; }
summ_check() { # NAME FILE [PARAMS]: prints "ok N ids" or what differs
  summ "$2" summary > "$T/s.json"
  summ "$2" summary_findings "${3:-}" > "$T/sf.json"
  q "SELECT id || coalesce(':' || plane_name, '') || coalesce(':' || subject, '')
       FROM xplane_findings('$2', '${3:-}') ORDER BY severity = 'high' DESC, time_ps DESC, id, plane_index, subject" > "$T/ids"
  /usr/bin/python3 -c 'import json,sys
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); ids=open(sys.argv[3]).read().split("\n")[:-1]
x=b.pop("xplane_findings", None)
same = a == b and json.dumps(a, indent=2, sort_keys=True) == open(sys.argv[1]).read().rstrip("\n")
got = [c["candidate_id"] for c in x["candidates"]] if isinstance(x, dict) else None
want = ["finding:" + i for i in ids]
print("ok" if same and got == want and x["schema_version"] == "xplane_findings.v1" else "differs: same=%s %s %s" % (same, got, want), len(got or []))' \
    "$T/s.json" "$T/sf.json" "$T/ids"
}
check "summary_findings: memory-bound run" "ok 1" "$(summ_check mb "$(R memory-bound)/host0.xplane.pb")"
check "summary_findings: transfers run (4 candidates)" "ok 4" "$(summ_check tr "$(R transfers)/host0.xplane.pb")"
check "summary_findings: clean run, no candidate" "ok 0" "$(summ_check clean "$(R clean_gpu)/host0.xplane.pb")"
check "summary_findings: @finding_params transfer_share=0.1 (HtoD only)" "ok 2" \
  "$(summ_check tr "$(R transfers)/host0.xplane.pb" transfer_share=0.1)"
check "summary_findings: a candidate's text" \
  "finding:transfers:/device:GPU:0:HtoD|HtoD copies on /device:GPU:0|[\"count: 10\",\"copy time: 6.000 ms\",\"share: 12.6%\"]|335544320" \
  "$(summ "$(R transfers)/host0.xplane.pb" summary_findings > "$T/sf.json"
     q "SELECT c->>'candidate_id', c->>'title', c->'evidence', c->>'finding.bytes'
          FROM (SELECT value AS c FROM json_each(readfile('$T/sf.json'), '\$.xplane_findings.candidates'))
         WHERE c->>'candidate_id' LIKE '%GPU:0:HtoD'")"
if [ -d "$DATA" ]; then
  for f in tracelens_jax_conv_minimal_08 xprof_tpu_inference_2; do
    [ -f "$DATA/$f.xplane.pb" ] || continue
    r=$(summ_check "$f" "$DATA/$f.xplane.pb")
    check "summary_findings: $f (summary bytes kept, candidates = rows)" "ok" "${r% *}"
  done
fi

# --- an interrupt (a progress handler that says stop after 5 ms) ends the scan
# with "interrupted", and the next query gets the whole answer (nothing partial
# was kept): 4 devices, 50 steps of 2000 ops with tiny kernels = 4 rows.
"$GEN" --out "$T/big" --run big --devices 4 --steps 50 --ops-per-step 2000 --heavy-every 0 --inject tiny >/dev/null ||
  fail "xplane_gen big exited $?"
# (an instrumented extension, tests/run_sanitized.sh, needs its runtimes
# preloaded into Python: ext_py_preload, tests/test_env.sh)
ext_py_preload
py=(env LD_PRELOAD="$PY_PRELOAD" /usr/bin/python3)
check "interrupted, then whole" "error: interrupted|4" "$("${py[@]}" - "$EXT" "$T/big/plugins/profile/big" <<'EOF'
import sqlite3, sys, time
db = sqlite3.connect(":memory:")
db.enable_load_extension(True)
db.load_extension(sys.argv[1])
p = sys.argv[2]
db.execute("SELECT count(*) FROM xplane_ops(?)", [p]).fetchone()  # decoded and analysed: the findings remain
t0 = time.monotonic()
db.set_progress_handler(lambda: 1 if time.monotonic() - t0 > 0.005 else 0, 100)
try:
    r = "rows: %d" % db.execute("SELECT count(*) FROM xplane_findings(?)", [p]).fetchone()[0]
except sqlite3.OperationalError as e:
    r = "error: %s" % e
db.set_progress_handler(None, 0)
print("%s|%d" % (r, db.execute("SELECT count(*) FROM xplane_findings(?)", [p]).fetchone()[0]))
EOF
)"

# --- a multi-file path: rows per file, a bad path is an error naming it
check "logdir: findings per run directory" "6" \
  "$(q "SELECT count(DISTINCT id) FROM xplane_findings('$T')")"
msg=$(q "SELECT * FROM xplane_findings('$T/nope')")
grep -q "$T/nope" <<<"$msg" || fail "a missing path: the error does not name it: $msg"

# the one list of rule ids (core/findings.h, xplane_finding_rules()) holds every id a rule
# of core/ emits (xp_fl_add(fl, "<id>")), and nothing else
emitted=$(grep -ho 'xp_fl_add(fl, "[a-z_]*")' "$SRC"/core/*.c | sed 's/.*"\(.*\)")/\1/' | sort -u | tr '\n' ' ')
listed=$(q "SELECT group_concat(value, ' ') FROM (SELECT value FROM json_each(xplane_finding_rules()) ORDER BY value)")
[ "$emitted" = "$listed " ] || fail "xplane_finding_rules() lists '$listed', the rules emit '$emitted'"

# lib/checks.sql's bad-finding message is a literal (SQLite 3.40's RAISE takes no computed
# text): it must list the ids of xplane_finding_rules(), in its order, "a, b, ... or z"
said=$(sed -n "s/.*'xplane queries: @finding must be \\(.*\\)'); END;/\\1/p" "$SRC"/queries/lib/checks.sql)
want=$(q "SELECT group_concat(value, ', ') FROM json_each(xplane_finding_rules())" | sed 's/\(.*\), /\1 or /')
[ -n "$said" ] && [ "$said" = "$want" ] || fail "lib/checks.sql's bad-finding message lists '$said', xplane_finding_rules() gives '$want'"

[ $failures -eq 0 ] || { echo "$failures check(s) failed" >&2; exit 1; }
echo "all findings checks passed"
