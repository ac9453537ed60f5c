#!/usr/bin/env bash
# tests/hostile/xprof_interrupt.sh: sqlite3_interrupt reaches the groupings
# and sorts that run after the scan, in the xprof tables (core/xprof.c,
# core/memory.c, core/hlo.c; issue 16). Part of tests/test_hostile.sh.
#
# Each query runs on a connection whose xplane_ops (the scan and the
# analysis) is already cached, so the work left is the table's own build:
#   kernels.xplane.pb  (tests/hostile/xspace.py kernels 200000): 200,000 ops
#       sharing one interned 7 KB kernel_details string; xplane_kernel_stats
#       parses it per op: about 1.4 GB of parsing, one group.
#   memory.xplane.pb   (xspace.py memory 200000): 200,000 ops and 10,000
#       allocators of one event each; xplane_memory_peaks looks for the ops
#       running at each allocator's peak: 2e9 op visits.
# Check: interrupted 0.05 s into the build, the query stops with
# "interrupted" within 0.25 s (1 s under the sanitizers), then the same
# connection answers the query whole (nothing partial was cached): one row
# of count 200,000 ops for the kernels (all the same launch configuration:
# registers 999 % 100 = 99, the last regs token wins), and 10,000 peaks of
# one op each for the memory (event k at k*1000 ps meets op k, which runs
# [k*1000, k*1000 + 1000)).
# Without the polls each build runs to its end (kernels: 2.1 s late on the
# code before this part; memory: 2.3 s late with only the per-allocator poll
# left), so the latency check fails.
set -uo pipefail
. "$(dirname "$0")/../test_env.sh"
PY=/usr/bin/python3
[[ -x $PY ]] || { echo "skipped: no $PY"; exit 77; }
. "$(dirname "$0")/../hostile_common.sh"
check() {
  if [[ $3 == "$2" ]]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); printf 'FAIL %s\n  want: %s\n  got:  %s\n' "$1" "$2" "$3"; fi
}

"$PY" "$SRC/tests/hostile/xspace.py" kernels 200000 "$TMP/kernels.xplane.pb" || exit 1
"$PY" "$SRC/tests/hostile/xspace.py" memory 200000 "$TMP/memory.xplane.pb" || exit 1

cat >"$TMP/warm_interrupt.py" <<'PYEOF'
# warm_interrupt.py EXT FILE SQL DELAY: cache xplane_ops(FILE), then run SQL
# (with ? = FILE) and interrupt it DELAY s in; print the outcome, whether the
# stop took effect within XP_LATENCY_BOUND s, then SQL's result on the same
# connection.
import os, sqlite3, sys, threading, time
ext, f, sql, delay = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
db = sqlite3.connect(":memory:", check_same_thread=False)
db.enable_load_extension(True)
db.load_extension(ext)
db.execute("SELECT count(*) FROM xplane_ops(?)", [f]).fetchall()
t_stop = [None]
def fire():
    t_stop[0] = time.monotonic(); db.interrupt()
threading.Timer(delay, fire).start()
try:
    db.execute(sql, [f]).fetchall(); res = "completed"
except sqlite3.OperationalError as e:
    res = str(e)
t1 = time.monotonic()
time.sleep(max(0.0, delay + 0.05 - (t1 - (t_stop[0] or t1))))  # the timer has fired
lat = t1 - t_stop[0] if t_stop[0] else -1.0
bound = float(os.environ.get("XP_LATENCY_BOUND", "0.25"))
print("%s %s" % (res, "ok" if 0 <= lat < bound else "late(%.3fs after the stop)" % lat))
print("|".join(str(x) for x in db.execute(sql, [f]).fetchone()))
PYEOF
# PY_PRELOAD (the sanitizer runtimes an instrumented extension needs) and the
# latency bound: 0.25 s, 1 s under the sanitizers (hostile_common.sh).
python_env 0.25
run() { XP_LATENCY_BOUND=$LATENCY_BOUND LD_PRELOAD=$PY_PRELOAD "$PY" "$TMP/warm_interrupt.py" "$EXT" "$@" 2>&1; }

check "interrupt 0.05 s into xplane_kernel_stats (kernel_details parsed per op), then the whole answer" \
  "interrupted ok
1|200000|99" \
  "$(run "$TMP/kernels.xplane.pb" "SELECT count(*), sum(count), max(registers_per_thread) FROM xplane_kernel_stats(?)" 0.05)"
check "interrupt 0.05 s into xplane_memory_peaks (ops at each peak), then the whole answer" \
  "interrupted ok
10000|10000|10000" \
  "$(run "$TMP/memory.xplane.pb" "SELECT count(*), sum(n_ops_at_peak), sum(ops_at_peak = '[\"fusion.1\"]') FROM xplane_memory_peaks(?)" 0.05)"

echo "$pass passed, $fail failed"
((fail == 0))
