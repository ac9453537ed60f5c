# tests/hostile_common.sh: what the scripts of tests/hostile/ share, sourced after
# tests/test_env.sh:
#   . "$(dirname "$0")/../test_env.sh"; . "$(dirname "$0")/../hostile_common.sh"
# Sets XSPACE (the crafted-input writer), CONV (xplane2perfetto), SANITIZED
# (1 when the shell is the sanitizer wrapper), TMP (a temporary directory,
# removed at exit) and the counters with ok NAME / bad NAME.
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
