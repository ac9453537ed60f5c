#!/usr/bin/env bash
# tools/report.sh: the main job. Builds what is missing, then prints the
# markdown profile report of a profile with `xplane report` (cli/).
#
#   tools/report.sh                 # the bundled demo: a generated 2-host GPU logdir
#   tools/report.sh PATH [OPTIONS]  # a .xplane.pb file, a run directory or a logdir;
#                                   # OPTIONS as for `xplane report --help`
#
# The demo is generated once into <build>/demo by tools/xplane_gen (seeded, so
# every machine gets the same bytes); its run directory holds two hosts, so
# the report covers both (a cross-host table, then one report per host).
# Works from any directory.
set -euo pipefail
case "${1:-}" in
  -h|--help) sed -n '2,12s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

if [ $# -eq 0 ]; then
  demo="$XPLANE_BUILD_DIR/demo/plugins/profile/demo"
  if [ ! -f "$demo/host0.xplane.pb" ]; then
    "$XPLANE_BUILD_DIR/tools/xplane_gen" --out "$XPLANE_BUILD_DIR/demo" --run demo --style gpu \
      --hosts 2 --devices 2 --steps 12 --ops-per-step 64 --seed 7 >/dev/null
  fi
  set -- "$demo"
fi
exec "$XPLANE_BUILD_DIR/cli/xplane" report "$@"
