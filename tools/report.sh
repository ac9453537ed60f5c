#!/usr/bin/env bash
# tools/report.sh: the main job. Builds what is missing, then prints the
# markdown profile report (queries/report.sql) for a profile.
#
#   tools/report.sh                 # the bundled demo: a generated 2-host GPU logdir
#   tools/report.sh PATH            # a .xplane.pb file, a run directory or a logdir
#
# The demo is generated once into <build>/demo by tools/xplane_gen (seeded, so
# every machine gets the same bytes).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

profile="${1:-}"
if [ -z "$profile" ]; then
  profile="$XPLANE_BUILD_DIR/demo/plugins/profile/demo/host0.xplane.pb"
  if [ ! -f "$profile" ]; then
    "$XPLANE_BUILD_DIR/tools/xplane_gen" --out "$XPLANE_BUILD_DIR/demo" --run demo --style gpu \
      --hosts 2 --devices 2 --steps 12 --ops-per-step 64 --seed 7 >/dev/null
  fi
fi
[ -e "$profile" ] || { echo "report: $profile: no such file or directory" >&2; exit 2; }

cd "$XPLANE_SRC"
exec sqlite3 -bail -cmd ".load $XPLANE_BUILD_DIR/xplane" \
  -cmd ".parameter set @profile '$(printf %s "$profile" | sed "s/'/''/g")'" \
  :memory: ".read queries/report.sql"
