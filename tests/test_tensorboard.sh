#!/usr/bin/env bash
# tests/test_tensorboard.sh: the xplane TensorBoard plugin (tensorboard_plugin/)
# in real TensorBoard from the project venv, beside xprof's profile tab, and
# driven by headless Chromium: tests/tensorboard_test.py says what it checks.
# Needs the project venv (tools/venv.sh), ../shared/data, node and chromium;
# without them: skipped with a message, except under CI, where that fails.
#
#   bash tests/test_tensorboard.sh
#   XPLANE_TB_SCREENSHOT=docs/tensorboard_xplane_tab.png bash tests/test_tensorboard.sh
set -uo pipefail
. "$(dirname "$0")/test_env.sh"
cd "$SRC" || exit 1
missing=
[ -x "$VENV/bin/python" ] || missing="the project venv at $VENV (tools/venv.sh)"
[ -f "$DATA/xprof_tpu_inference_2.xplane.pb" ] || missing="${missing:+$missing, }the real profiles in $DATA"
command -v node > /dev/null || missing="${missing:+$missing, }node"
[ -x /usr/bin/chromium ] || missing="${missing:+$missing, }/usr/bin/chromium"
if [ -n "$missing" ]; then
  if [ "${CI:-}" = true ]; then echo "FAIL: missing under CI: $missing"; exit 1; fi
  echo "SKIP: missing $missing"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ext_py_preload
LD_PRELOAD=$PY_PRELOAD "$VENV/bin/python" tests/tensorboard_test.py "$SRC" "$BUILD" "$DATA" "$EXT" "$SQLITE3" "$tmp"
