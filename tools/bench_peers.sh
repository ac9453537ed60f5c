# tools/bench_peers.sh: the peers part of tools/bench.sh (issue 40), sourced by
# it; run alone with `BENCH_PARTS=peers tools/bench.sh`.
#
# What a user would run instead of `xplane summarize`, measured in this run on
# the same files, each tool a fresh process with the file in the page cache:
#   xplane summarize   the profile_summary.v1 document (-o /dev/null)
#   xplane convert     the Perfetto trace of the profile
#   trace processor    that trace loaded and summarized by the PerfettoSQL
#                      package (tp_plugin/tp_run.sh queries/summary.sql), the
#                      real trace_processor_shell
#   protobuf parse     python3 (Debian's python3-protobuf) parsing the file
#                      into XSpace objects: parse only, no analysis
#   xprof overview     xprof's Python converter (raw_to_tool_data, the pinned
#   xprof hlo_stats    xprof of requirements.txt, in the project venv) making
#                      the overview page and the HLO op statistics; each run on
#                      a fresh copy of the file, since xprof caches its op
#                      stats beside the profile (cold, as a first look is)
#   xprof-rs overview  xprof-rs get_overview (pinned, venv) on a fresh copy
# The files: the TPU profile of ../shared/data, the flat shape (one device
# plane of BENCH_FLAT_EVENTS, default 4,000,000, small events:
# tools/xplane_gen_flat), the live JAX capture (tools/capture_jax.py --variant
# tiny --steps BENCH_CAPTURE_STEPS, default 4000: about 312 MB; BENCH_CAPTURE=0
# skips it) and the generated GPU profiles of BENCH_PEER_SIZES MB (default
# 1000). Per tool and file: wall seconds, CPU seconds (user + system of the
# process and its children, tools/cpu_time.py), peak resident MB (the mapped
# profile's pages count where a tool maps it), and the ratios of wall and CPU
# to `xplane summarize` on the same file (above 1: the peer takes longer).
# A CPU ratio is the per-core comparison: it does not depend on how many
# cores a tool can use. Each figure is the best (lowest) of BENCH_PEER_REPEAT
# (default 1) runs, the memory the highest. A peer that fails prints its exit
# status in place of figures (its stderr is kept in BENCH_DIR/peers/*.err); a
# peer is stopped after BENCH_PEER_TIMEOUT seconds (default 1200) and gets a
# limit of BENCH_PEER_MEM_GB of address space (default 20: the machine must
# survive xprof on 1 GB).

peers_part() {
  local venv=$XPLANE_BUILD_DIR/venv x=$XPLANE_BUILD_DIR/cli/xplane pd=$BENCH_DIR/peers
  local tps=${TRACE_PROCESSOR_SHELL:-$XPLANE_SRC/../shared/tools/trace_processor_shell}
  local f files=() mb
  mkdir -p "$pd"
  if [ ! -x "$venv/bin/xprof-rs" ] || ! "$venv/bin/python" -c 'import xprof' 2>/dev/null; then
    echo "peers part skipped: the project venv has no xprof / xprof-rs (XPLANE_TEST_DEPS=1 tools/setup.sh)"
    return 0
  fi
  f=$XPLANE_SRC/../shared/data/xprof_tpu_inference_2.xplane.pb
  [ -f "$f" ] && files+=("$f")
  f=$BENCH_DIR/flat/plugins/profile/flat/flat0.xplane.pb
  if [ ! -f "$f" ]; then
    mkdir -p "$(dirname "$f")"
    "$XPLANE_BUILD_DIR/tools/xplane_gen_flat" --out "$f" --events "${BENCH_FLAT_EVENTS:-4000000}" > /dev/null
  fi
  files+=("$f")
  if [ "${BENCH_CAPTURE:-1}" != 0 ]; then
    local steps=${BENCH_CAPTURE_STEPS:-4000}
    f=$(ls "$BENCH_DIR/live/plugins/profile/tiny$steps"/*.xplane.pb 2>/dev/null | head -1 || true)
    if [ -z "$f" ]; then
      echo "capturing a live JAX profile (tools/capture_jax.py --variant tiny --steps $steps) ..." >&2
      "$venv/bin/python" "$XPLANE_SRC/tools/capture_jax.py" --out "$BENCH_DIR/live" --variant tiny \
        --steps "$steps" --run "tiny$steps" > /dev/null
      f=$(ls "$BENCH_DIR/live/plugins/profile/tiny$steps"/*.xplane.pb | head -1)
    fi
    files+=("$f")
  fi
  for mb in ${BENCH_PEER_SIZES-1000}; do
    f=$BENCH_DIR/gpu$mb/plugins/profile/run1/host0.xplane.pb
    [ -f "$f" ] || "$GEN" --out "$BENCH_DIR/gpu$mb" --style gpu --target-mb "$mb" --seed 11 > /dev/null
    files+=("$f")
  done

  printf '\n%-34s %10s | %-18s %9s %9s %8s | %11s %10s\n' profile bytes tool wall_s cpu_s rss_MB \
    wall/xplane cpu/xplane
  for f in "${files[@]}"; do
    local name bytes
    name=$(peer_name "$f")
    bytes=$(stat -L -c %s "$f")
    cat "$f" > /dev/null
    P_BASE_WALL="" P_BASE_CPU=""
    peer_row "$name" "$bytes" "xplane summarize" "$f" -- "$x" summarize "$f" -o /dev/null --quiet
    peer_row "$name" "$bytes" "xplane convert" "$f" -- "$x" convert "$f" -o "$pd/trace.pftrace"
    if [ -x "$tps" ]; then
      TRACE_PROCESSOR_SHELL=$tps peer_row "$name" "$bytes" "trace processor" "$f" -- \
        "$XPLANE_SRC/tp_plugin/tp_run.sh" "$pd/trace.pftrace" "$XPLANE_SRC/queries/summary.sql"
    fi
    PYTHONPATH=$BENCH_DIR peer_row "$name" "$bytes" "protobuf parse" "$f" -- /usr/bin/python3 -c \
      'import sys, xplane_pb2; s = xplane_pb2.XSpace.FromString(open(sys.argv[1], "rb").read()); assert s.planes' "$f"
    local tool
    for tool in overview_page hlo_stats; do
      peer_row "$name" "$bytes" "xprof ${tool%_page}" "$f" copy -- "$venv/bin/python" -c \
        'import sys; from xprof.convert import raw_to_tool_data as r
d, _ = r.xspace_to_tool_data([sys.argv[1]], sys.argv[2], {})
sys.exit(0 if d else "xprof: no " + sys.argv[2] + " data")' @COPY@ "$tool"
    done
    peer_row "$name" "$bytes" "xprof-rs overview" "$f" copy -- "$venv/bin/xprof-rs" get_overview @SESSION@
  done
}

# peer_name FILE: the data file's name, or the benchmark folder and file.
peer_name() {
  if [[ $1 == */shared/data/* ]]; then basename "$1"
  else echo "${1#"$BENCH_DIR"/}" | sed 's,/plugins/profile/,:,'; fi
}

# peer_row NAME BYTES TOOL FILE [copy] -- COMMAND...: runs COMMAND
# BENCH_PEER_REPEAT times and prints its row. With `copy`, each run gets a
# fresh copy of FILE in a session folder of its own (not timed): @COPY@ in
# COMMAND is the copy, @SESSION@ its folder. The first row of a file (xplane
# summarize) sets the baseline of the ratios.
peer_row() {
  local name=$1 bytes=$2 tool=$3 file=$4 copy=0 i rc wall="" cpu="" rss=0 u sy w c r a
  shift 4
  [ "$1" = copy ] && { copy=1; shift; }
  shift # --
  local log=$BENCH_DIR/peers/$(echo "$tool" | tr ' ' _).err
  for ((i = 0; i < ${BENCH_PEER_REPEAT:-1}; i++)); do
    local cmd=() s=$BENCH_DIR/peers/session/run
    if ((copy)); then
      rm -rf "$BENCH_DIR/peers/session"
      mkdir -p "$s"
      cp "$file" "$s/$(basename "$file")"
      chmod u+w "$s/$(basename "$file")"
    fi
    for a in "$@"; do
      a=${a//@COPY@/$s/$(basename "$file")}
      cmd+=("${a//@SESSION@/$s}")
    done
    rc=0
    (ulimit -v $((${BENCH_PEER_MEM_GB:-20} * 1024 * 1024))
     exec timeout "${BENCH_PEER_TIMEOUT:-1200}" "$CPU_TIME" -o "$BENCH_DIR/peers/cpu" "${cmd[@]}") \
      > /dev/null 2> "$log" || rc=$?
    if ((rc)); then
      printf '%-34s %10s | %-18s %9s %9s %8s | %11s %10s\n' "$name" "$bytes" "$tool" "exit $rc" - - - -
      return 0
    fi
    read -r u sy r w < "$BENCH_DIR/peers/cpu"
    c=$(awk -v u="$u" -v s="$sy" 'BEGIN {printf "%.3f", u + s}')
    wall=$(lower "$wall" "$w") cpu=$(lower "$cpu" "$c")
    r=$((r / 1024))
    ((r > rss)) && rss=$r
  done
  [ -z "$P_BASE_WALL" ] && P_BASE_WALL=$wall P_BASE_CPU=$cpu
  printf '%-34s %10s | %-18s %9.3f %9.3f %8d | %11s %10s\n' "$name" "$bytes" "$tool" "$wall" "$cpu" "$rss" \
    "$(awk -v a="$wall" -v b="$P_BASE_WALL" 'BEGIN {printf "%.2f", a / b}')" \
    "$(awk -v a="$cpu" -v b="$P_BASE_CPU" 'BEGIN {printf "%.2f", a / b}')"
}
