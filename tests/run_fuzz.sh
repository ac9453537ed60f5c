#!/usr/bin/env bash
# run_fuzz.sh: build the libFuzzer targets and fuzz them for a bounded time.
#
#   tests/run_fuzz.sh [SECONDS]        (default 60: two thirds to the decoder,
#                                       one third to the JSON/gzip reader)
#
# Targets: xplane_fuzz (tests/fuzz/fuzz_decoder.c) and xplane_fuzz_json
# (tests/fuzz/fuzz_json.c: JSON traces plain, gzip-compressed and truncated;
# its corpus in $FUZZ_BUILD/fuzz-corpus-json, seeded with the JSON seeds).
#
# Builds tests/fuzz/fuzz_decoder.c with clang (-DXPLANE_FUZZ=ON) in its own
# build directory ($FUZZ_BUILD, default <repo>/build-fuzz), makes a seed corpus
# (the real profiles in $XPLANE_DATA, default <repo>/../shared/data, and 6
# mutants of each from tests/hostile/mutate.py, plus small
# XSpaces and JSON traces generated below) and a dictionary of both formats'
# tokens, and runs the fuzzer for SECONDS. The working corpus
# stays in $FUZZ_BUILD/fuzz-corpus so later runs continue from it. Any crash,
# leak, sanitizer report, timeout or failed invariant fails the run; the input
# that caused it is saved under $FUZZ_BUILD/fuzz-artifacts/ (reproduce with
# `$FUZZ_BUILD/tests/fuzz/xplane_fuzz <that file>`).
set -euo pipefail

SECONDS_TO_RUN=${1:-60}
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${FUZZ_BUILD:-$SRC/build-fuzz}
DATA=${XPLANE_DATA:-$SRC/../shared/data}
MAX_LEN=$((4 * 1024 * 1024))

if ! [[ $SECONDS_TO_RUN =~ ^[0-9]+$ ]] || ((SECONDS_TO_RUN < 1)); then
  echo "usage: $0 [SECONDS]" >&2
  exit 2
fi

cmake -S "$SRC" -B "$BUILD" -DCMAKE_C_COMPILER=clang -DXPLANE_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" --target xplane_fuzz xplane_fuzz_json -j2 >/dev/null
FUZZER=$BUILD/tests/fuzz/xplane_fuzz
FUZZER_JSON=$BUILD/tests/fuzz/xplane_fuzz_json
JSON_SECONDS=$((SECONDS_TO_RUN / 3 > 0 ? SECONDS_TO_RUN / 3 : 1))
SECONDS_TO_RUN=$((SECONDS_TO_RUN - JSON_SECONDS > 0 ? SECONDS_TO_RUN - JSON_SECONDS : 1))

# ---- seeds ------------------------------------------------------------------
# Protobuf encoders over hex strings: varint N (negative N as its uint64 bits);
# fv NUM VALUE (varint field);
# fl NUM HEX (length-delimited field); fs NUM TEXT (string field).
varint() {
  local n=$1 out=""
  while ((n < 0 || n >= 128)); do
    out+=$(printf '%02x' $(((n & 127) | 128)))
    n=$(((n >> 7) & 0x01ffffffffffffff))
  done
  printf '%s%02x' "$out" "$n"
}
fv() { varint $(($1 << 3)); varint "$2"; }
fl() { varint $((($1 << 3) | 2)); varint $((${#2} / 2)); printf '%s' "$2"; }
fs() { fl "$1" "$(printf '%s' "$2" | xxd -p | tr -d '\n')"; }
seed() { printf '%s' "$2" | xxd -r -p >"$SEEDS/$1"; }

SEEDS=$BUILD/fuzz-seeds
rm -rf "$SEEDS"
mkdir -p "$SEEDS" "$BUILD/fuzz-corpus" "$BUILD/fuzz-artifacts"

# One plane with every field the schema defines: stats of each value type,
# timed and aggregated events, both metadata maps, packed and unpacked child ids.
stat_str=$(fv 1 1; fs 5 "value")
stat_ref=$(fv 1 2; fv 7 3)
stat_dbl=$(fv 1 4; printf '11000000000000f83f') # double_value 1.5
stat_i64=$(fv 1 5; fv 4 -1)
stat_u64=$(fv 1 6; fv 3 42)
stat_bytes=$(fv 1 7; fl 6 00ff)
ev_timed=$(fv 1 10; fv 2 5000; fv 3 2000; fl 4 "$stat_str"; fl 4 "$stat_ref")
ev_agg=$(fv 1 11; fv 5 3; fv 3 100)
line=$(fv 1 1; fs 2 "XLA Ops"; fv 3 1000; fl 4 "$ev_timed"; fl 4 "$ev_agg"; fv 9 9000; fv 10 7; fs 11 "Ops")
emeta10=$(fv 1 10; fs 2 "fusion.1"; fl 3 0102; fs 4 "fusion"; fl 5 "$stat_dbl"; fl 6 "$(varint 11; varint 300)"; fv 6 12)
emeta11=$(fv 1 11; fs 2 "copy"; fl 5 "$stat_u64"; fl 5 "$stat_bytes")
smeta() { fl 5 "$(fv 1 "$1"; fl 2 "$(fv 1 "$1"; fs 2 "$2"; fs 3 "about $2")")"; }
plane=$(fv 1 3; fs 2 "/device:GPU:0"; fl 3 "$line"
  fl 4 "$(fv 1 10; fl 2 "$emeta10")"; fl 4 "$(fv 1 11; fl 2 "$emeta11")"
  smeta 1 "tf_op"; smeta 2 "kind"; smeta 3 "hlo"; smeta 4 "flops"; smeta 5 "bytes"; smeta 6 "n"; smeta 7 "raw"
  fl 6 "$stat_i64")
task_env=$(fv 1 9; fs 2 "Task Environment"; smeta 1 "profile_start_time"; smeta 2 "profile_stop_time"
  fl 6 "$(fv 1 1; fv 3 1700000000000000000)"; fl 6 "$(fv 1 2; fv 3 1700000001000000000)")
seed full.xplane.pb "$(fl 1 "$plane"; fl 1 "$task_env"; fs 2 "an error"; fs 3 "a warning"; fs 4 "host0")"
seed empty_plane.xplane.pb "$(fl 1 "$(fs 2 "/host:CPU")")"
seed hostnames_only.xplane.pb "$(fs 4 "host0"; fs 4 "host1")"
seed line_no_events.xplane.pb "$(fl 1 "$(fl 3 "$(fv 1 1; fs 2 "Steps")")")"
seed unknown_fields.xplane.pb "$(fl 1 "$(fv 15 1; fl 99 0a00; fl 3 "$(fl 4 "$(fv 8 1)")")"; fv 20 5)"

# JSON traces (the converter's input): every phase, args of every JSON type,
# unmatched B/E, an epoch-scale ts, entries that are not events; plain,
# gzip-compressed, and the bare-array form.
cat >"$SEEDS/trace.json" <<'EOF'
{"displayTimeUnit":"ns","traceEvents":[
 {"ph":"M","name":"process_name","pid":1,"args":{"name":"/device:GPU:0"}},
 {"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"Stream #1"}},
 {"ph":"X","name":"fusion.1","pid":1,"tid":2,"ts":1.5,"dur":2.25,"args":{"flops":1024,
  "big":18446744073709551615,"ratio":0.5,"kind":"hlo","k2":"hlo","ok":true,"none":null,"obj":{"a":[1,2.5e3]}}},
 {"ph":"B","name":"step","pid":1,"tid":3,"ts":10},{"ph":"E","pid":1,"tid":3,"ts":20,"args":{"n":1}},
 {"ph":"i","name":"mark","pid":1,"tid":2,"ts":5,"s":"t"},{"ph":"I","name":"mark2","pid":1,"tid":2,"ts":6},
 {"ph":"C","name":"mem","pid":1,"ts":7,"id":"a","args":{"used":5,"free":6.5}},
 {"ph":"E","pid":1,"tid":9,"ts":30},{"ph":"B","name":"open","pid":1,"tid":4,"ts":1e3},
 {"ph":"X","name":"epoch","pid":2,"tid":1,"ts":1700000000000000.123,"dur":1},
 {"ph":"X","name":"nots","pid":2,"tid":1},"not an object",{"ph":"Q","pid":1},{"ph":"X","pid":"x"}
]}
EOF
gzip -c "$SEEDS/trace.json" >"$SEEDS/trace.json.gz"
printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1}]' >"$SEEDS/array.json"
# Out-of-range times, an E before its B, open B events (tests/hostile/limits.sh).
printf '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1e400,"dur":1},{"ph":"X","name":"b","pid":1,"tid":1,"ts":5,"dur":-3},{"ph":"B","name":"d","pid":1,"tid":2,"ts":10},{"ph":"E","pid":1,"tid":2,"ts":5},{"ph":"X","name":"e","pid":1,"tid":1,"ts":7,"dur":9223372036854},{"ph":"B","name":"o","pid":2,"tid":1,"ts":1}]}' >"$SEEDS/lenient.json"
# Tokens of both formats for the mutator: XSpace tags, JSON trace keys; findings parameter names.
cat >"$BUILD/fuzz.dict" <<'EOF'
"\x0a"
"\x12"
"\x1a"
"\x22"
"\x2a"
"\x32"
"\x08"
"\x10"
"\x18"
"\x11"
"\x38"
"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"
"\"traceEvents\""
"\"displayTimeUnit\""
"\"ph\""
"\"name\""
"\"pid\""
"\"tid\""
"\"ts\""
"\"dur\""
"\"args\""
"\"id\""
"\"process_name\""
"\"thread_name\""
"\"X\""
"\"B\""
"\"E\""
"\"M\""
"\"C\""
"\"i\""
"1e308"
"-9223372036854775808"
"18446744073709551616"
"0.0005"
"tiny_kernel_us="
"hot_op_share="
"recompile_min="
"sync_idle_us="
","
"1e9"
EOF
# The findings' parameter text (fuzz_decoder.c reads every input as one too).
printf 'tiny_kernel_us=2.5, tiny_min=7,hot_op_share=0.01' >"$SEEDS/find_params.txt"

n_real=0
if [[ -d $DATA ]]; then
  for f in "$DATA"/*.xplane.pb; do
    [[ -f $f ]] || continue
    cp "$f" "$SEEDS/"
    n_real=$((n_real + 1))
  done
  # and their mutants (tests/hostile/mutate.py: flips, cuts, duplicated chunks, huge
  # lengths, and valid framing around int64 extremes and ids pointing nowhere)
  if ((n_real > 0)); then
    /usr/bin/python3 "$SRC/tests/hostile/mutate.py" 6 "$SEEDS" "$DATA"/*.xplane.pb > /dev/null
    n_real=$((n_real * 7))
  fi
else
  echo "note: $DATA is absent: seeding with the generated inputs only"
fi
echo "seeds: $n_real real profiles and their mutants + $(($(ls "$SEEDS" | wc -l) - n_real)) generated, in $SEEDS"

# ---- fuzz -------------------------------------------------------------------
# run_target NAME FUZZER SECONDS CORPUS SEEDS...: fuzz; 0 when clean.
run_target() {
  local name=$1 fuzzer=$2 secs=$3 corpus=$4 rc
  shift 4
  local log=$BUILD/fuzz-last-$name.log
  echo "fuzzing $name for ${secs}s (log: $log)"
  # The targets write scratch files under TMPDIR; a crash leaves them behind.
  rm -rf "$BUILD/fuzz-tmp"
  mkdir -p "$BUILD/fuzz-tmp" "$corpus"
  set +e
  TMPDIR=$BUILD/fuzz-tmp "$fuzzer" "$corpus" "$@" \
    -max_total_time="$secs" -max_len="$MAX_LEN" -timeout=20 -rss_limit_mb=4096 \
    -dict="$BUILD/fuzz.dict" -artifact_prefix="$BUILD/fuzz-artifacts/" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  set -e
  rm -rf "$BUILD/fuzz-tmp"
  grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)' "$log" | tail -n 2 || true
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" || true
  if ((rc == 0)) && ! grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log"; then
    echo "PASS $name (${secs}s, no crash)"
    return 0
  fi
  grep -E 'ERROR:|runtime error:|invariant failed|SUMMARY:|Test unit written' "$log" | head -n 20 || true
  echo "FAIL $name (exit $rc; see $log)"
  return 1
}

JSON_SEEDS=$BUILD/fuzz-seeds-json
rm -rf "$JSON_SEEDS"
mkdir -p "$JSON_SEEDS"
cp "$SEEDS"/*.json "$JSON_SEEDS/"
passed=0 failed=0
if run_target fuzz_decoder "$FUZZER" "$SECONDS_TO_RUN" "$BUILD/fuzz-corpus" "$SEEDS"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
if run_target fuzz_json "$FUZZER_JSON" "$JSON_SECONDS" "$BUILD/fuzz-corpus-json" "$JSON_SEEDS"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
echo "$passed passed, $failed failed"
((failed == 0))
