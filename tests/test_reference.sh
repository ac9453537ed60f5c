#!/usr/bin/env bash
# test_reference.sh: our summary against the reference summarizer's own documents.
#
#   bash tests/test_reference.sh            (ctest -R reference; settings: tests/test_env.sh)
#   VERBOSE=1 bash tests/test_reference.sh  also list the checks that pass
#
# For each tests/reference/<profile>.summary.json (and .global.summary.json: warmup 0,
# hot_op_limit 5, exclusive_global), prints queries/summary.sql's document for
# $DATA/<profile>.xplane.pb with the same parameters and compares the two leaf by leaf
# with tests/compare_reference.py (/usr/bin/python3, standard library only). The
# reference files were written by the reference summarizer itself, run with exact
# arithmetic (tests/reference/README.md), so they are expectations from outside this
# code, unlike tests/golden/. Every profile is summarized twice: with the analysis on
# one thread and on two.
# First, whatever the data: the comparator must catch a changed leaf of each kind
# (so that the comparison cannot pass by accident) and let only the documented
# tolerance and masks through. Then exits 77 (skip) when $DATA holds no profile.
set -uo pipefail

. "$(dirname "$0")/test_env.sh"
PY=/usr/bin/python3
CMP=$SRC/tests/compare_reference.py
REF=$SRC/tests/reference

cd "$SRC" || exit 1   # summary.sql .reads queries/lib/... relative to the root
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

# check NAME EXPECTED ACTUAL
check() {
  if [ "$2" == "$3" ]; then
    pass=$((pass + 1))
    [ -z "${VERBOSE:-}" ] || echo "ok: $1"
  else
    fail=$((fail + 1))
    echo "FAIL: $1"
    diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | head -40
  fi
}

# cmp_rc OURS REF: the comparator's exit status (its report goes to $tmp/report).
cmp_rc() { "$PY" "$CMP" "$1" "$2" > "$tmp/report" 2>&1; echo $?; }

# ---- the comparator catches what it must, passes what it may -----------------------
# A small document in the reference's shape; each case edits one leaf of a copy.
cat > "$tmp/ref.json" <<'EOF'
{"schema_version": "profile_summary.v1", "generated_at_utc": "2026-01-01T00:00:00Z",
 "source_path": "../shared/data/p.xplane.pb",
 "time_breakdown": {"total_duration": 3708.907, "compute": {"share_of_total": 0.3333333333333333, "total_duration": 1236.3023333333333}},
 "hot_ops": [{"name": "fusion.1", "count": 3, "exclusive_duration": 0.1, "avg_duration": 0.7, "tf_op_path": null}],
 "step_time": {"all_steps": {"min": 10.5, "count": 2}},
 "device_op_region_aggregates": [{"region_path": "a=>b", "total_duration": 1.5}]}
EOF
# edit EXPR: a copy of ref.json with the Python statement EXPR applied to d.
edit() {
  "$PY" -c "import json,math,sys; d=json.load(open(sys.argv[1])); $1; json.dump(d, sys.stdout)" "$tmp/ref.json" > "$tmp/ours.json"
  cmp_rc "$tmp/ours.json" "$tmp/ref.json"
}
check "comparator: identical documents agree" "0" "$(edit 'pass')"
check "comparator: masked generated_at_utc" "0" "$(edit 'd["generated_at_utc"] = "x"')"
check "comparator: source_path, same file name elsewhere" "0" "$(edit 'd["source_path"] = "/abs/p.xplane.pb"')"
check "comparator: source_path, other file" "1" "$(edit 'd["source_path"] = "../shared/data/q.xplane.pb"')"
check "comparator: exact sum off by one ulp" "1" \
  "$(edit 'd["time_breakdown"]["total_duration"] = math.nextafter(3708.907, 1e9)')"
check "comparator: exact sum changed" "1" "$(edit 'd["hot_ops"][0]["exclusive_duration"] = 0.0')"
check "comparator: share off by one ulp (tolerated)" "0" \
  "$(edit 'd["time_breakdown"]["compute"]["share_of_total"] = math.nextafter(1/3, 1)')"
check "comparator: average off by one ulp (tolerated)" "0" "$(edit 'd["hot_ops"][0]["avg_duration"] = math.nextafter(0.7, 0)')"
check "comparator: share off by 1e-12 relative" "1" \
  "$(edit 'd["time_breakdown"]["compute"]["share_of_total"] *= 1 + 1e-12')"
check "comparator: step min is an average (tolerated at one ulp)" "0" \
  "$(edit 'd["step_time"]["all_steps"]["min"] = math.nextafter(10.5, 11)')"
check "comparator: integer differs" "1" "$(edit 'd["hot_ops"][0]["count"] = 4')"
check "comparator: integer turned float" "1" "$(edit 'd["hot_ops"][0]["count"] = 3.0')"
check "comparator: string differs" "1" "$(edit 'd["hot_ops"][0]["name"] = "fusion.2"')"
check "comparator: null vs string" "1" "$(edit 'd["hot_ops"][0]["tf_op_path"] = "a"')"
check "comparator: extra list item" "1" "$(edit 'd["hot_ops"].append(dict(d["hot_ops"][0]))')"
check "comparator: missing key" "1" "$(edit 'del d["hot_ops"][0]["tf_op_path"]')"
check "comparator: extra key" "1" "$(edit 'd["hot_ops"][0]["extra"] = 1')"
check "comparator: missing section (not the allowed one)" "1" "$(edit 'del d["step_time"]')"
check "comparator: device_op_region_aggregates missing (no longer allowed)" "1" \
  "$(edit 'del d["device_op_region_aggregates"]')"
check "comparator: device_op_region_aggregates present but different" "1" \
  "$(edit 'd["device_op_region_aggregates"][0]["region_path"] = "a"')"
# a float under a key of no class fails, even when equal, and the report says so
"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); d['hot_ops'][0]['new_ratio'] = 0.5; json.dump(d, sys.stdout)" \
  "$tmp/ref.json" > "$tmp/new.json"
check "comparator: unclassified float leaf" "1" "$(cmp_rc "$tmp/new.json" "$tmp/new.json")"
check "comparator: the report names the leaf and both values" \
  '$.hot_ops[0].new_ratio: float leaf in no class of compare_reference.py (ours=0.5 reference=0.5)' \
  "$(cat "$tmp/report")"

# ---- the real profiles ----------------------------------------------------------------
shopt -s nullglob
refs=("$REF"/*.summary.json)
check "reference files present" "16" "${#refs[@]}"
files=("$DATA"/*.xplane.pb)
if [ ${#files[@]} -eq 0 ]; then
  echo "$pass passed, $fail failed (comparator self-checks); SKIP: no *.xplane.pb in $DATA (set XPLANE_DATA)"
  [ "$fail" -eq 0 ] && exit 77
  exit 1
fi
# Each with the analysis on 1 thread and on 2 (xplane_threads): the tracks are
# walked in parallel and joined in profile order, so both must agree.
for th in 1 2; do
for r in "${refs[@]}"; do
  name=$(basename "$r" .summary.json)   # <profile> or <profile>.global
  b=${name%.global}
  f=$DATA/$b.xplane.pb
  if [ ! -f "$f" ]; then
    check "$name: profile for the reference file" "$f" "(missing)"
    continue
  fi
  params=(-cmd ".parameter set @profile \"$f\"")
  if [ "$name" != "$b" ]; then
    params+=(-cmd ".parameter set @warmup_steps 0" -cmd ".parameter set @hot_op_limit 5"
             -cmd ".parameter set @breakdown_mode exclusive_global")
  fi
  if ! "$SQLITE3" -bail -cmd ".load $EXT" -cmd ".output /dev/null" -cmd "SELECT xplane_threads($th)" -cmd ".output stdout" "${params[@]}" :memory: \
       ".read queries/summary.sql" > "$tmp/$name.json"; then
    check "$name ($th threads): summary.sql" "exit 0" "failed"
    continue
  fi
  rc=$(cmp_rc "$tmp/$name.json" "$r")
  # the notes (an allowed section still absent) are shown, not counted
  [ -z "${VERBOSE:-}" ] || grep '^note:' "$tmp/report" | sed "s/^/$name: /"
  check "$name ($th threads): summary.sql agrees with the reference leaf by leaf" "0" "$rc"
  [ "$rc" == 0 ] || grep -v '^note:' "$tmp/report" | head -40
done
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
