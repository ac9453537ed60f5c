#!/usr/bin/env bash
# tests/test_live_capture.sh: a live JAX capture (tools/capture_jax.py, in the
# project venv) read by the device-time model and the report.
#
# The clean variant: 12 StepTraceAnnotation steps of a data-parallel MLP on 2
# CPU devices whose gradients meet in an all-reduce. Expected from how the
# capture was made (not from our output): 2 CPU devices (device_ordinal 0
# and 1), each with communication time (the all-reduce), the physical
# invariants of the model, 12 steps numbered 0..11 from the host
# annotations, and a report with both devices. Captured in a temporary
# directory (never committed). Without the venv: skipped with a message,
# except under CI, where that fails.
#
#   bash tests/test_live_capture.sh
set -uo pipefail
. "$(dirname "$0")/test_env.sh"
. "$(dirname "$0")/check.sh"
cd "$SRC" || exit 1
if [ ! -x "$VENV/bin/python" ]; then
  if [ "${CI:-}" = true ]; then echo "FAIL: no project venv at $VENV under CI (tools/venv.sh)"; exit 1; fi
  echo "SKIP: no project venv at $VENV (tools/venv.sh makes it)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sql() { "$SQLITE3" -bail -cmd ".load $EXT" :memory: "$@"; }

start=$(date +%s.%N)
f=$("$VENV/bin/python" tools/capture_jax.py --out "$tmp/logs" --variant clean --run clean --steps 12 2> "$tmp/cap.err")
[ -f "$f" ] || { echo "FAIL: capture_jax.py wrote no profile"; tail -5 "$tmp/cap.err"; exit 1; }
echo "note: clean capture: $(stat -c %s "$f") bytes in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b - a}') s"

check "2 CPU devices, ordinals 0 and 1" "cpu|0
cpu|1" "$(sql "SELECT device_kind, device_ordinal FROM xplane_device_time('$f')")"
check "the all-reduce is communication on both devices" "2" \
  "$(sql "SELECT count(*) FROM xplane_device_time('$f') WHERE communication_ps > 0")"
check "the invariants: busy <= wall, parts sum to busy" "0" \
  "$(sql "SELECT count(*) FROM xplane_device_time('$f') WHERE NOT (busy_ps > 0 AND busy_ps <= wall_ps
          AND compute_ps + communication_ps + transfer_ps + other_ps = busy_ps AND busy_ps <= op_time_ps)")"
check "the ops counted are the events with an hlo_op stat" \
  "$(sql "SELECT count(*) FROM xplane_events('$f') WHERE stats->>'hlo_op' IS NOT NULL AND dur_ps > 0")" \
  "$(sql "SELECT sum(n_ops) FROM xplane_device_time('$f')")"
check "12 annotated steps, 0..11" "12|0|11|host_annotation" \
  "$(sql "SELECT count(*), min(step), max(step), group_concat(DISTINCT source) FROM xplane_steps('$f')")"
"$BUILD/cli/xplane" report -q "$f" > "$tmp/r.md" 2> "$tmp/r.err" || check "xplane report exits 0 ($(cat "$tmp/r.err"))" 0 1
check "the report's device rows" "2" "$(grep -c '^| `/host:CPU #[01]` | cpu |' "$tmp/r.md")"

echo "live_capture: $pass passed, $fail failed"
[ $fail -eq 0 ]
