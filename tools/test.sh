#!/usr/bin/env bash
# tools/test.sh: build and run the whole test suite.
#
#   tools/test.sh            # ctest (unit, SQL-script, real-data, bad-input),
#                            # then the suite again under ASan+UBSan, then the
#                            # decoder fuzzer for a bounded time
#   XPLANE_FUZZ_SECONDS=N    fuzzing time (default 60)
#   XPLANE_QUICK=1           ctest only (no sanitizer build, no fuzzing)
#
# Real profiles are read from ../shared/data; tests that need them skip with
# a message when that folder is absent.
set -euo pipefail
XPLANE_TEST_DEPS=1
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

cd "$XPLANE_BUILD_DIR"
ctest --output-on-failure -j2
if [ "${XPLANE_QUICK:-0}" != 1 ]; then
  bash "$XPLANE_SRC/tests/run_sanitized.sh"
  bash "$XPLANE_SRC/tests/run_fuzz.sh" "${XPLANE_FUZZ_SECONDS:-60}"
fi
