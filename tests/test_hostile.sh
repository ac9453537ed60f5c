#!/usr/bin/env bash
# test_hostile.sh: hostile and changing inputs (issue 12), one part per file
# under tests/hostile/*.sh, run in name order.
#
#   ctest -R hostile    (or: bash tests/test_hostile.sh [PART...], e.g. changing)
#
# Each part sources tests/test_env.sh, builds its inputs under its own
# temporary directory, prints one line per failed check and a last line
# "N passed, M failed", and exits 0 (all passed), 77 (skipped: it says why)
# or anything else (failed). This driver fails when any part fails, and exits
# 77 only when every part skipped. Run by ctest and by tests/run_sanitized.sh.
set -uo pipefail
. "$(dirname "$0")/test_env.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

parts=()
if (($#)); then
  for p in "$@"; do parts+=("$HERE/hostile/${p%.sh}.sh"); done
else
  for p in "$HERE"/hostile/*.sh; do [[ -f $p ]] && parts+=("$p"); done
fi
((${#parts[@]})) || { echo "test_hostile: no part under $HERE/hostile" >&2; exit 1; }

failed=0 skipped=0
for p in "${parts[@]}"; do
  name=$(basename "$p" .sh)
  echo "== hostile/$name"
  bash "$p"
  rc=$?
  case $rc in
    0) ;;
    77) skipped=$((skipped + 1)); echo "   (hostile/$name skipped)" ;;
    *) failed=$((failed + 1)); echo "   hostile/$name FAILED (exit $rc)" ;;
  esac
done
((failed)) && exit 1
((skipped == ${#parts[@]})) && exit 77
exit 0
