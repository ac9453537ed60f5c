#!/usr/bin/env bash
# test_threads.sh: the analysis gives the same answer on any number of threads.
#
#   bash tests/test_threads.sh        (ctest -R threads; settings: tests/test_env.sh)
#
# The analysis (core/pass.c, core/facts.c) walks the tracks of a profile on up to
# xplane_threads() threads and joins their results in profile order. The
# expectation here is that invariant: every derived table, and the summary
# document (its generated_at_utc masked), are the same bytes with 1, 2 and 3
# threads, on generated GPU and TPU profiles (many tracks, host launches,
# Steps lines) and on the real profiles in $DATA when present. The summary's
# values themselves are checked against the reference in test_reference.sh.
set -uo pipefail
. "$(dirname "$0")/test_env.sh"
cd "$SRC" || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
check() {
  if [ "$2" == "$3" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1: expected [$2], got [$3]"; fi
}

# every table of the analysis, rows in a fixed order, as one digest per table
TABLES="xplane_ops xplane_steps xplane_op_names xplane_op_tf_ops xplane_gaps xplane_op_regions xplane_scopes
        xplane_hints xplane_tracks"
digests() { # FILE THREADS
  local out="" t
  for t in $TABLES; do
    out+="$t $("$SQLITE3" -bail -batch -noheader -cmd ".load $EXT" :memory: ".output /dev/null" \
      "SELECT xplane_threads($2)" ".output stdout" ".mode quote" "SELECT * FROM $t('$1')" | sha256sum | cut -c1-16) "
  done
  echo "$out"
}
summary() { # FILE THREADS
  "$SQLITE3" -bail -batch -cmd ".load $EXT" :memory: ".output /dev/null" "SELECT xplane_threads($2)" \
    ".output stdout" ".parameter set @profile '$1'" ".read queries/summary.sql" | grep -v '"generated_at_utc"'
}

GEN=$BUILD/tools/xplane_gen
files=()
for style in gpu tpu; do
  "$GEN" --out "$T/$style" --run r --style $style --hosts 1 --devices 2 --steps 12 --ops-per-step 40 --seed 3 \
    > /dev/null || check "xplane_gen --style $style" "0" "$?"
  files+=("$T/$style/plugins/profile/r/host0.xplane.pb")
done
shopt -s nullglob
files+=("$DATA"/*.xplane.pb)
for f in "${files[@]}"; do
  name=$(basename "$(dirname "$(dirname "$f")")")/$(basename "$f")
  [[ $f == "$DATA"/* ]] && name=$(basename "$f")
  one=$(digests "$f" 1)
  n_ops=$("$SQLITE3" -batch -noheader -cmd ".load $EXT" :memory: "SELECT count(*) FROM xplane_ops('$f')")
  [ "$n_ops" -gt 0 ] || check "$name: has ops" "> 0" "$n_ops"
  for th in 2 3; do
    check "$name: every analysis table, $th threads = 1 thread" "$one" "$(digests "$f" $th)"
  done
  s1=$(summary "$f" 1)
  [ -n "$s1" ] || check "$name: summary printed" "a document" "(nothing)"
  check "$name: summary.sql, 2 threads = 1 thread" "$s1" "$(summary "$f" 2)"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
