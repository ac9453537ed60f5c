#!/usr/bin/env bash
# tools/venv.sh: make the project venv, <build>/venv, with the exact packages
# of requirements.txt (jax, jaxlib, xprof, tensorboard, protobuf, numpy and
# their dependencies), for the tests that run xprof and capture live JAX
# profiles. Sourced by tools/setup.sh when XPLANE_TEST_DEPS=1 (tools/test.sh);
# run it alone to make or refresh the venv. Safe to run again: it installs
# only when requirements.txt changed since the last install (a stamp file).
#
# Debian's /usr/bin/python3 (3.11) is used, not a pyenv one first on PATH:
# its sqlite3 module can load extensions, which the tests need.
#
#   XPLANE_BUILD_DIR   build directory (default: <repo>/build)
#   XPLANE_VENV        the venv (default: $XPLANE_BUILD_DIR/venv); exported
set -euo pipefail
XPLANE_SRC="${XPLANE_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
XPLANE_BUILD_DIR="${XPLANE_BUILD_DIR:-$XPLANE_SRC/build}"
XPLANE_VENV="${XPLANE_VENV:-$XPLANE_BUILD_DIR/venv}"
export XPLANE_VENV

xplane_venv() {
  local req="$XPLANE_SRC/requirements.txt" stamp="$XPLANE_VENV/.requirements.sha256" want
  want=$(sha256sum "$req" | cut -d' ' -f1)
  if [ -x "$XPLANE_VENV/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then return 0; fi
  echo "venv: installing requirements.txt into $XPLANE_VENV" >&2
  mkdir -p "$(dirname "$XPLANE_VENV")"
  /usr/bin/python3 -m venv "$XPLANE_VENV" >&2
  "$XPLANE_VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$req" >&2
  "$XPLANE_VENV/bin/python" -c 'import sqlite3; sqlite3.connect(":memory:").enable_load_extension(True)' ||
    { echo "venv: $XPLANE_VENV's sqlite3 cannot load extensions" >&2; return 1; }
  echo "$want" > "$stamp"
}
xplane_venv
