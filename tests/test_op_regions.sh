#!/usr/bin/env bash
# tests/test_op_regions.sh: the summary's device_op_region_aggregates against
# an independent implementation (tests/oracle/device_op_regions.py, exact
# integer arithmetic in Python) on every real profile: the whole list (the
# default limit, 500 rows, holds every row of these profiles), and the
# oracle's ranking cut at 3 rows against the first 3 of the summary's.
# Skips (77) when ../shared/data holds no profile.
#
#   bash tests/test_op_regions.sh
set -uo pipefail
. "$(dirname "$0")/test_env.sh"
PY=/usr/bin/python3
shopt -s nullglob
files=("$DATA"/*.xplane.pb)
if [ ${#files[@]} -eq 0 ]; then echo "skip: no profiles in $DATA"; exit 77; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
for f in "${files[@]}"; do
  b=$(basename "$f" .xplane.pb)
  (cd "$SRC" && "$SQLITE3" -cmd ".load $EXT" -cmd ".parameter set @profile $f" :memory: \
     '.read queries/summary.sql') > "$tmp/$b.summary.json" || { echo "FAIL $b: summary.sql"; fail=$((fail + 1)); continue; }
  "$PY" -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["device_op_region_aggregates"], indent=2, sort_keys=True))' \
     "$tmp/$b.summary.json" > "$tmp/$b.sql.json"
  "$SQLITE3" -bail -cmd ".load $EXT" -cmd ".parameter set @f \"$f\"" -json :memory: ".read $SRC/tests/oracle/events.sql" \
    > "$tmp/$b.events.json" || { echo "FAIL $b: events dump"; fail=$((fail + 1)); continue; }
  "$PY" "$SRC/tests/oracle/device_op_regions.py" "$tmp/$b.events.json" > "$tmp/$b.oracle.json"
  n=$(grep -c '"op_name"' "$tmp/$b.oracle.json")
  if cmp -s "$tmp/$b.sql.json" "$tmp/$b.oracle.json"; then
    echo "ok   $b: $n rows equal the oracle's"; pass=$((pass + 1))
  else
    echo "FAIL $b: the summary's rows differ from the oracle's:"; diff "$tmp/$b.oracle.json" "$tmp/$b.sql.json" | head -20
    fail=$((fail + 1))
  fi
  # The ranking cut: the first 3 rows at limit 3 are the first 3 of the list.
  "$PY" "$SRC/tests/oracle/device_op_regions.py" "$tmp/$b.events.json" 3 > "$tmp/$b.oracle3.json"
  if "$PY" -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(a[:3] != b)' \
       "$tmp/$b.sql.json" "$tmp/$b.oracle3.json"; then pass=$((pass + 1)); else echo "FAIL $b: top 3"; fail=$((fail + 1)); fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
