# tests/hostile_common.sh: what the scripts of tests/hostile/ share, sourced after
# tests/test_env.sh:
#   . "$(dirname "$0")/../test_env.sh"; . "$(dirname "$0")/../hostile_common.sh"
# Sets XSPACE (the crafted-input writer), CONV (xplane2perfetto), SANITIZED
# (1 when the shell is the sanitizer wrapper), TMP (a temporary directory,
# removed at exit) and the counters with ok NAME / bad NAME; defines
# python_env (below) for the scripts that load the extension into Python.
XSPACE="python3 $SRC/tests/hostile/xspace.py"
CONV=$BUILD/tp_plugin/xplane2perfetto
SANITIZED=0
[[ $SQLITE3 == *sanitized* ]] && SANITIZED=1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

# python_env BOUND: how to run Python with the extension: PY_PRELOAD from
# ext_py_preload (tests/test_env.sh), and LATENCY_BOUND, the bound in
# seconds on an interrupt's latency: BOUND, and 1 s under the sanitizers,
# where every instruction costs several times more (that run is about memory
# safety; the plain run holds BOUND).
python_env() {
  ext_py_preload
  LATENCY_BOUND=$1
  if [ -n "$PY_PRELOAD" ]; then LATENCY_BOUND=1.0; fi
}
