# tests/test_env.sh: the settings every shell test reads, sourced first:
#   . "$(dirname "$0")/test_env.sh"
# ctest sets them (tests/CMakeLists.txt); run by hand, they default to the
# repository this file is in and its build/ directory.
#   SRC      the source root               (XPLANE_SRC)
#   BUILD    the build directory           (XPLANE_BUILD, default $SRC/build)
#   EXT      the extension to .load        (XPLANE_EXT, default $BUILD/xplane)
#   DATA     the real profiles             (XPLANE_DATA, default $SRC/../shared/data)
#   SQLITE3  the sqlite3 shell             (SQLITE3, default sqlite3)
#   VENV     the project venv              (XPLANE_VENV, default $BUILD/venv; tools/venv.sh)
SRC=${XPLANE_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD=${XPLANE_BUILD:-$SRC/build}
EXT=${XPLANE_EXT:-$BUILD/xplane}
DATA=${XPLANE_DATA:-$SRC/../shared/data}
SQLITE3=${SQLITE3:-sqlite3}
VENV=${XPLANE_VENV:-$BUILD/venv}

# ext_py_preload: sets PY_PRELOAD, what Python needs preloaded (LD_PRELOAD)
# to load $EXT. An instrumented extension (tests/run_sanitized.sh; read from
# the NEEDED entries of $EXT.so: nothing is executed) needs the ASan and
# UBSan runtimes, as the sqlite3 wrapper preloads them for the shell; then
# ASAN_OPTIONS, unless set, turns leak checking off (Python is no finding).
# Empty for a plain build.
ext_py_preload() {
  PY_PRELOAD=
  if readelf -d "$EXT.so" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
    PY_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
  fi
}
