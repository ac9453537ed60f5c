#!/usr/bin/env bash
# tests/hostile/changing.sh: files that change while, or between, queries
# read them, logdirs with bad entries, interrupts, the cache budget (issue
# 12, items 1, 2, 3, 8, 13, 16). Part of tests/test_hostile.sh.
#
# The inputs are built here, under a temporary directory:
#   A.xplane.pb / B.xplane.pb  one device plane, one `XLA Ops` line, op
#       fusion.1 (written by the Python below): A has N = 20,000 events of 20
#       bytes (offsets k*50 ps, 10 ps each, an 8-byte unknown field as
#       padding), B 2N = 40,000 events of 10 bytes (offsets k*25 ps, 1 ps
#       each). Same byte size, same framing: B's bytes put in A's place make
#       twice the events the index of A counted.
#   big/  a 60 MB GPU profile from tools/xplane_gen (and a 2-host logdir).
# Expected values are derived from that construction: A gives 20000 ops,
# sum dur 200000 ps, sum self 200000 ps; B 40000 ops, 40000 ps, 40000 ps.
#
# Checks (each fails on the code before the fix; see issue 12's note):
#  1  a file truncated while xplane_events reads it (writefile() in the
#     same statement, after row 1): an SQL error naming the file, "changed
#     while it was read", no signal; truncated at random moments during a
#     cold xplane_ops, a 2-file logdir (prefetch threads) and the converter:
#     never a signal, a stopped conversion leaves no output.
#  2  new bytes of the same size, mtime restored, between two queries of
#     one connection: the right answer (or an error), no memory error.
#  3  an atomic replace (write, touch -r, rename) is seen by the next query
#     of the connection; so is a new JSON trace read in place of a broken
#     XPlane.
#  8  sqlite3_interrupt (or a progress handler) 0.1 s (0.3 s for the
#     conversion) into a cold query (decode, JSON parse, analysis, prefetch
#     threads, conversion) takes effect within 0.5 s (the bound
#     checked here, 1 s under the sanitizers; the requirement is 100 ms,
#     measured in the note; 0.29 s was seen on a 2-core machine running
#     eight other jobs), and an
#     interrupted conversion leaves no file.
# 13  a logdir with an unreadable directory, a dangling symlink and a
#     half-written profile: xplane_files lists every entry with its status
#     and error; data tables fail naming the file; xplane_skip_unreadable(1)
#     skips them and says so in xplane_space.warnings.
# 16  the cache byte budget: default, settable, LRU eviction, prefetch.
# (Item 18, tests writing into their data directory, is checked by
# tests/test_json_input.sh itself: it compares the data folder's listing.)
set -uo pipefail
. "$(dirname "$0")/../test_env.sh"
PY=/usr/bin/python3
GEN=$BUILD/tools/xplane_gen
TO_PF=$BUILD/tp_plugin/xplane2perfetto
for tool in "$GEN" "$TO_PF" "$PY" "$BUILD/tests/hostile_mutate"; do
  [[ -x $tool ]] || { echo "error: $tool is missing (build the project first)" >&2; exit 1; }
done
. "$(dirname "$0")/../hostile_common.sh"
chmod 755 "$TMP"
# Sanitized builds: the fixture tools are not what this part checks.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

check() {
  if [[ $3 == "$2" ]]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); printf 'FAIL %s\n  want: %s\n  got:  %s\n' "$1" "$2" "$3"; fi
}
# check_match NAME GLOB GOT
check_match() {
  if [[ $3 == $2 ]]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); printf 'FAIL %s\n  want (glob): %s\n  got:  %s\n' "$1" "$2" "$3"; fi
}
# q SQL...: one connection with the extension; prints stdout+stderr and "rc=N".
q() { "$SQLITE3" -batch -bail -cmd ".load $EXT" :memory: "$@" 2>&1; echo "rc=$?"; }

# ---- fixtures ----------------------------------------------------------------
cat >"$TMP/mk.py" <<'PYEOF'
import os, sys
def varint(v):
    out = bytearray()
    while True:
        b, v = v & 0x7f, v >> 7
        if v: out.append(b | 0x80)
        else: out.append(b); return bytes(out)
def ld(num, data): return varint(num << 3 | 2) + varint(len(data)) + data
def vi(num, v): return varint(num << 3) + varint(v)
def v3(v): return bytes([0x80 | (v & 0x7f), 0x80 | ((v >> 7) & 0x7f), (v >> 14) & 0x7f])  # fixed 3-byte varint
kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if kind == 'A':
    ev = b''.join(ld(4, b'\x08\x01\x10' + v3(k * 50) + b'\x18\x0a' + ld(15, bytes(8))) for k in range(n))
else:
    ev = b''.join(ld(4, b'\x08\x01\x10' + v3(k * 25) + b'\x18\x01') for k in range(2 * n))
line = ld(3, vi(1, 1) + ld(2, b'XLA Ops') + ev)
meta = ld(4, vi(1, 1) + ld(2, vi(1, 1) + ld(2, b'fusion.1')))
data = ld(1, vi(1, 1) + ld(2, b'/device:GPU:0') + line + meta)
if len(sys.argv) > 4:  # in place: same inode, same size, mtime restored
    st = os.stat(out)
    assert st.st_size == len(data), (st.st_size, len(data))
    with open(out, 'r+b') as f: f.write(data)
    os.utime(out, ns=(st.st_atime_ns, st.st_mtime_ns))
else:
    with open(out, 'wb') as f: f.write(data)
PYEOF
N=20000
mkdir -p "$TMP/fx"
"$PY" "$TMP/mk.py" A $N "$TMP/fx/A.xplane.pb" && "$PY" "$TMP/mk.py" B $N "$TMP/fx/B.xplane.pb" || exit 1
A_OPS="20000|200000|200000" B_OPS="40000|40000|40000"
OPS_Q="SELECT count(*), sum(dur_ps), sum(self_ps) FROM xplane_ops"
check "fixtures: A and B have the same size" "$(stat -c %s "$TMP/fx/A.xplane.pb")" "$(stat -c %s "$TMP/fx/B.xplane.pb")"
check "fixture A: ops" "$A_OPS
rc=0" "$(q "$OPS_Q('$TMP/fx/A.xplane.pb');")"
check "fixture B: ops" "$B_OPS
rc=0" "$(q "$OPS_Q('$TMP/fx/B.xplane.pb');")"

# ---- 1. SIGBUS: a file that shrinks while it is read --------------------------
F=$TMP/t1/A.xplane.pb
mkdir -p "$TMP/t1" && cp "$TMP/fx/A.xplane.pb" "$F"
# writefile() truncates F after the first row; the scan goes on in the mapping.
out=$(q "SELECT count(*) FROM xplane_events('$F') WHERE writefile('$F', '') >= 0;")
check_match "1: truncated during xplane_events: an error naming the file, no signal" \
  "*$F: changed while it was read*rc=1" "$out"
cp "$TMP/fx/A.xplane.pb" "$F"
out=$(printf '%s\n' "SELECT count(*) FROM xplane_events('$F') WHERE writefile('$F', '') >= 0;" \
        "SELECT count(*) FROM xplane_events('$F');" | "$SQLITE3" -batch -cmd ".load $EXT" :memory: 2>&1)
check_match "1: the same connection then reads the file anew (now empty)" \
  "*line 1:*$F: changed while it was read*line 2:*$F: empty file (0 bytes): not an XSpace" "$out"

BIG=$TMP/big
"$GEN" --out "$BIG/one" --target-mb 60 >/dev/null && "$GEN" --out "$BIG/two" --hosts 2 --target-mb 30 >/dev/null || exit 1
BIG1=$BIG/one/plugins/profile/run1/host0.xplane.pb
# race CMD-PREFIX...: run the command on a fresh copy, truncate it after each
# delay; every exit must be 0 or 1 (never a signal); print the failures.
signals=0 converter_left=0
for d in 0.05 0.2 0.4; do
  for what in ops logdir convert; do
    W=$TMP/race && rm -rf "$W" && mkdir -p "$W"
    case $what in
      ops) cp "$BIG1" "$W/h.xplane.pb"; victim=$W/h.xplane.pb
           ( "$SQLITE3" -cmd ".load $EXT" :memory: "SELECT count(*), sum(self_ps) FROM xplane_ops('$victim');" >/dev/null 2>"$W/err" ) & ;;
      logdir) cp -r "$BIG/two" "$W/logs"; victim=$W/logs/plugins/profile/run1/host1.xplane.pb
           ( "$SQLITE3" -cmd ".load $EXT" :memory: "SELECT count(*), sum(self_ps) FROM xplane_ops('$W/logs');" >/dev/null 2>"$W/err" ) & ;;
      convert) cp "$BIG1" "$W/h.xplane.pb"; victim=$W/h.xplane.pb
           ( "$TO_PF" -o "$W/out.pftrace" "$victim" >/dev/null 2>"$W/err" ) & ;;
    esac
    pid=$!
    sleep "$d"; truncate -s 100000 "$victim"
    wait $pid; rc=$?
    if ((rc > 1)); then signals=$((signals + 1)); echo "  $what, truncated after ${d}s: exit $rc $(head -c 300 "$W/err")"; fi
    if [[ $what == convert && $rc != 0 && -e $W/out.pftrace ]]; then converter_left=$((converter_left + 1)); fi
  done
done
check "1: truncated at random moments (ops, logdir prefetch, converter): runs ending by a signal" 0 "$signals"
check "1: failed conversions that left an output file" 0 "$converter_left"

# ---- 2. same size, same mtime, new bytes between two queries -----------------
F=$TMP/t2/A.xplane.pb
mkdir -p "$TMP/t2" && cp "$TMP/fx/A.xplane.pb" "$F"
out=$(q "SELECT count(*) FROM xplane_lines('$F');" ".system env -u LD_PRELOAD $PY $TMP/mk.py B $N $F inplace" "$OPS_Q('$F');")
check_match "2: B's bytes in A's place (same size, mtime restored): B's ops, no memory error" "1
$B_OPS
rc=0" "$out"
cp "$TMP/fx/A.xplane.pb" "$F"
out=$(q "SELECT count(*) FROM xplane_lines('$F');" ".system env -u LD_PRELOAD $PY $TMP/mk.py B $N $F inplace" \
        "SELECT count(*), sum(self_ps) FROM xplane_tracks('$F');")
check "2: the same through xplane_tracks (aggregates.c)" "1
1|40000
rc=0" "$out"

# Inside one open profile (no cache to notice the change): tests/hostile_mutate.c.
MUT=$BUILD/tests/hostile_mutate
check "2: B's bytes under A's index: re-walks stop at the index's count, flag the profile, the analysis fails" \
  "scan: changed=1 events=20000; ops: changed=1 result=-1; aggs: changed=1" "$("$MUT" "$TMP/fx/A.xplane.pb" "$TMP/fx/B.xplane.pb" 2>&1)"
check "2: A's bytes under B's index (fewer events than indexed): flagged too" \
  "scan: changed=1 events=20000; ops: changed=1 result=-1; aggs: changed=1" "$("$MUT" "$TMP/fx/B.xplane.pb" "$TMP/fx/A.xplane.pb" 2>&1)"
check "2: unchanged bytes: nothing flagged" \
  "scan: changed=0 events=20000; ops: changed=0 result=20000; aggs: changed=0" "$("$MUT" "$TMP/fx/A.xplane.pb" "$TMP/fx/A.xplane.pb" 2>&1)"

# ---- 3. stale cache ----------------------------------------------------------
F=$TMP/t3/A.xplane.pb
mkdir -p "$TMP/t3" && cp "$TMP/fx/A.xplane.pb" "$F"
out=$(q "$OPS_Q('$F');" ".system cp $TMP/fx/B.xplane.pb $F.new && touch -r $F $F.new && mv $F.new $F" "$OPS_Q('$F');")
check "3: atomic replace (same size, same mtime, new inode) is seen by the next query" "$A_OPS
$B_OPS
rc=0" "$out"
R=$TMP/t3/run
mkdir -p "$R"
printf 'not an xspace' >"$R/host0.xplane.pb"
printf '{"traceEvents":[{"ph":"X","pid":1,"tid":1,"name":"a","ts":1,"dur":2}]}' >"$R/host0.trace.json"
printf '{"traceEvents":[{"ph":"X","pid":1,"tid":1,"name":"a","ts":1,"dur":2},{"ph":"X","pid":1,"tid":1,"name":"b","ts":5,"dur":2}]}' >"$R/new.json"
out=$(q "SELECT count(*) FROM xplane_events('$R/host0.xplane.pb');" ".system mv $R/new.json $R/host0.trace.json" \
        "SELECT count(*) FROM xplane_events('$R/host0.xplane.pb');")
check "3: the JSON trace read for a broken XPlane is the cache key: its change is seen" "1
2
rc=0" "$out"

# ---- 8. interrupts -------------------------------------------------------------
cat >"$TMP/interrupt.py" <<'PYEOF'
# interrupt.py EXT SQL DELAY [progress]: run SQL on a fresh connection and stop
# it DELAY s in: Connection.interrupt() from a timer thread, or (progress) a
# progress handler, every 1000 instructions, that returns 1 from then on.
import os, sqlite3, sys, threading, time
ext, sql, delay = sys.argv[1], sys.argv[2], float(sys.argv[3])
db = sqlite3.connect(":memory:", check_same_thread=False)
db.enable_load_extension(True)
db.load_extension(ext)
t_stop = [None]
if len(sys.argv) > 4 and sys.argv[4] == "progress":
    t_start = time.monotonic()
    def handler():
        if time.monotonic() - t_start < delay: return 0
        if t_stop[0] is None: t_stop[0] = t_start + delay
        return 1
    db.set_progress_handler(handler, 1000)
else:
    def fire():
        t_stop[0] = time.monotonic(); db.interrupt()
    threading.Timer(delay, fire).start()
t0 = time.monotonic()
try:
    db.execute(sql).fetchall(); res = "completed"
except sqlite3.OperationalError as e:
    res = str(e)
t1 = time.monotonic()
lat = t1 - t_stop[0] if t_stop[0] else -1.0
bound = float(os.environ.get("XP_LATENCY_BOUND", "0.5"))
print("%s %s" % (res, "ok" if 0 <= lat < bound else "late(%.3fs after the stop, %.3fs in all)" % (lat, t1 - t0)))
PYEOF
# PY_PRELOAD (the sanitizer runtimes an instrumented extension needs) and the
# latency bound: 0.5 s, 1 s under the sanitizers (hostile_common.sh).
python_env 0.5
interrupt() { XP_LATENCY_BOUND=$LATENCY_BOUND LD_PRELOAD=$PY_PRELOAD "$PY" "$TMP/interrupt.py" "$EXT" "$@" 2>&1; }
mkdir -p "$BIG/twice/a" "$BIG/twice/b" && cp "$BIG1" "$BIG/twice/a/" && cp "$BIG1" "$BIG/twice/b/"
check "8: interrupt 0.1 s into a cold xplane_ops (decode + analysis)" "interrupted ok" \
  "$(interrupt "SELECT count(*), sum(self_ps) FROM xplane_ops('$BIG1')" 0.1)"
check "8: interrupt 0.1 s into a cold 2-file xplane_ops (prefetch threads)" "interrupted ok" \
  "$(interrupt "SELECT count(*), sum(self_ps) FROM xplane_ops('$BIG/twice')" 0.1)"
check "8: interrupt 0.1 s into a cold aggregate (xplane_gaps)" "interrupted ok" \
  "$(interrupt "SELECT count(*) FROM xplane_gaps('$BIG1')" 0.1)"
check "8: a progress handler stopping 0.1 s into a cold xplane_ops" "interrupted ok" \
  "$(interrupt "SELECT count(*), sum(self_ps) FROM xplane_ops('$BIG1')" 0.1 progress)"
"$GEN" --out "$BIG/j" --target-mb 10 >/dev/null && "$TO_PF" --format json -o "$BIG/t.trace.json" \
  "$BIG/j/plugins/profile/run1/host0.xplane.pb" >/dev/null || exit 1
check "8: interrupt 0.1 s into a cold JSON trace (70 MB: the parse)" "interrupted ok" \
  "$(interrupt "SELECT count(*) FROM xplane_events('$BIG/t.trace.json')" 0.1)"
# An analysis interrupted half-way is not reused: the next query opens the
# file again and gives the whole answer (the one a fresh connection gives).
cat >"$TMP/reuse.py" <<'PYEOF'
import sqlite3, sys, threading
db = sqlite3.connect(":memory:", check_same_thread=False)
db.enable_load_extension(True); db.load_extension(sys.argv[1])
db.execute("SELECT count(*) FROM xplane_events(?)", [sys.argv[2]]).fetchall()  # cached, no analysis yet
threading.Timer(0.05, db.interrupt).start()
q = "SELECT count(*), sum(self_ps) FROM xplane_ops(?)"
try: first = db.execute(q, [sys.argv[2]]).fetchall()
except sqlite3.OperationalError as e: first = str(e)
print(first); print("%d|%d" % db.execute(q, [sys.argv[2]]).fetchone())
PYEOF
check "8: an interrupted analysis is not reused by the next query" "interrupted
$(q "SELECT count(*), sum(self_ps) FROM xplane_ops('$BIG1');" | head -1)" \
  "$(LD_PRELOAD=$PY_PRELOAD "$PY" "$TMP/reuse.py" "$EXT" "$BIG1" 2>&1)"
# (xplane_to_perfetto writes only with XPLANE_FILE_OUTPUT set: README Security; its temporary
# file is hidden, .conv.pftrace.<random>.partial, hence ls -A)
rm -f "$TMP/conv.pftrace"
check "8: interrupt 0.3 s into a conversion" "interrupted ok" \
  "$(XPLANE_FILE_OUTPUT=new interrupt "SELECT xplane_to_perfetto('$BIG1', '$TMP/conv.pftrace')" 0.3)"
check "8: the interrupted conversion left no file" "" "$(ls -A "$TMP" | grep conv)"
check "8: a progress handler stopping a conversion 0.1 s in" "interrupted ok" \
  "$(XPLANE_FILE_OUTPUT=new interrupt "SELECT xplane_to_perfetto('$BIG1', '$TMP/conv.pftrace')" 0.1 progress)"
check "8: ... and no file left" "" "$(ls -A "$TMP" | grep conv)"

# ---- 13. one bad entry in a logdir ---------------------------------------------
L=$TMP/t13/logs
mkdir -p "$L/plugins/profile/run1" "$L/plugins/profile/run2" "$L/plugins/profile/run3" "$L/lost+found"
cp "$TMP/fx/A.xplane.pb" "$L/plugins/profile/run1/host0.xplane.pb"
ln -s "$TMP/t13/nowhere.xplane.pb" "$L/plugins/profile/run2/host0.xplane.pb"
head -c 1000 "$TMP/fx/A.xplane.pb" >"$L/plugins/profile/run3/host0.xplane.pb"
chmod -R a+rX "$TMP/t13" 2>/dev/null
chmod 700 "$L/lost+found"
# As a non-root user (root reads every directory).
nq() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$SQLITE3" -batch -bail -cmd ".load $EXT" :memory: "$@" 2>&1; echo "rc=$?"; }
if setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null && [[ -r $EXT.so ]] \
   && setpriv --reuid=nobody --regid=nogroup --clear-groups test -r "$EXT.so"; then
  check "13: xplane_files lists every entry with status and error" \
"$L/lost+found|error|cannot read directory: Permission denied
$L/plugins/profile/run1/host0.xplane.pb|ok|
$L/plugins/profile/run2/host0.xplane.pb|error|cannot open: No such file or directory
$L/plugins/profile/run3/host0.xplane.pb|ok|
rc=0" "$(nq "SELECT file, status, error FROM xplane_files('$L') ORDER BY file;")"
  check "13: a data table fails by default, naming the first bad entry" \
    "Error: stepping, xplane_events: $L/lost+found: cannot read directory: Permission denied
rc=1" "$(nq "SELECT count(*) FROM xplane_events('$L');")"
  check "13: xplane_skip_unreadable(1): the readable file's events, the skipped ones in the warnings" \
"1
20000
$L/plugins/profile/run1/host0.xplane.pb|3
rc=0" "$(nq "SELECT xplane_skip_unreadable(1);" "SELECT count(*) FROM xplane_events('$L');" \
          "SELECT file, json_array_length(warnings) FROM xplane_space('$L');")"
  check "13: each skipped entry in the warnings, with its reason" \
"skipped $L/lost+found: cannot read directory: Permission denied
skipped $L/plugins/profile/run2/host0.xplane.pb: cannot open: No such file or directory
skipped $L/plugins/profile/run3/host0.xplane.pb: truncated at byte 1000*
rc=0" "$(nq "SELECT xplane_skip_unreadable(1);" \
          "SELECT j.value FROM xplane_space('$L'), json_each(warnings) j ORDER BY 1;" | sed '1d; s/truncated at byte 1000.*/truncated at byte 1000*/')"
  # summary.sql over a run directory whose second XPlane is a dangling link.
  D=$TMP/t13/run
  mkdir -p "$D" && cp "$TMP/fx/A.xplane.pb" "$D/host0.xplane.pb" && ln -s "$TMP/t13/nowhere" "$D/host1.xplane.pb"
  chmod -R a+rX "$D"
  (cd "$SRC" && setpriv --reuid=nobody --regid=nogroup --clear-groups "$SQLITE3" -cmd ".load $EXT" \
    -cmd "SELECT xplane_skip_unreadable(1)" -cmd ".parameter set @profile $D" :memory: '.read queries/summary.sql' 2>&1 \
    | sed 1d) >"$TMP/t13/summary.json"
  check "13: the summary's quality warnings name the skipped file" \
    "skipped $D/host1.xplane.pb: cannot open: No such file or directory" \
    "$("$SQLITE3" :memory: "SELECT j.value FROM json_each(readfile('$TMP/t13/summary.json'), '\$.trace_overview.quality_warnings') j WHERE j.value LIKE 'skipped%';" 2>&1)"
else
  echo "NOTE: cannot run as user nobody (setpriv): item 13 checks skipped"
fi

# ---- 16. cache byte budget ---------------------------------------------------------
check "16: the default budget (4 GiB) and setting it" "4294967296
1000000
rc=0" "$(q "SELECT xplane_cache_budget();" "SELECT xplane_cache_budget(1000000);")"
mkdir -p "$TMP/t16/logs"
for r in 1 2 3 4; do mkdir -p "$TMP/t16/logs/run$r"; cp "$TMP/fx/A.xplane.pb" "$TMP/t16/logs/run$r/host0.xplane.pb"; done
R1=$TMP/t16/logs/run1 R2=$TMP/t16/logs/run2
# One profile with its ops analysis: what the cache counts for it.
one=$(q "SELECT count(*) FROM xplane_ops('$R1');" "SELECT count(*) FROM xplane_space('$R1');" \
        "SELECT xplane_cache_stats() ->> 'bytes';" | sed -n 3p)
budget=$((one * 3 / 2))
out=$(q "SELECT xplane_cache_budget($budget) = $budget;" \
        "SELECT count(*) FROM xplane_ops('$R1');" "SELECT count(*) FROM xplane_ops('$R2');" \
        "SELECT count(*) FROM xplane_ops('$R1');" \
        "SELECT c ->> 'entries', c ->> 'opens', c ->> 'bytes' <= c ->> 'budget' FROM (SELECT xplane_cache_stats() c);" \
        "SELECT count(*) FROM xplane_ops('$R2');" "SELECT xplane_cache_stats() ->> 'opens';")
check "16: a budget of 1.5 profiles holds one: each other one evicts the least recently used" "1
20000
20000
20000
1|3|1
20000
4
rc=0" "$out"
out=$(q "SELECT xplane_cache_budget($budget) = $budget;" "SELECT count(*) FROM xplane_ops('$TMP/t16/logs');" \
        "SELECT c ->> 'entries' <= 2, c ->> 'peak_bytes' < $one * 5 / 2 FROM (SELECT xplane_cache_stats() c);")
check "16: the prefetch of a 4-file logdir stops at the budget (at most a profile per thread more)" "1
80000
1|1
rc=0" "$out"
out=$(q "SELECT count(*) FROM xplane_ops('$TMP/t16/logs');" \
        "SELECT c ->> 'entries', c ->> 'peak_bytes' >= $one * 4 FROM (SELECT xplane_cache_stats() c);")
check "16: with the default budget the 4 profiles stay cached" "80000
4|1
rc=0" "$out"

echo "$pass passed, $fail failed"
((fail == 0))
