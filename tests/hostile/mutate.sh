#!/usr/bin/env bash
# tests/hostile/mutate.sh: mutated real profiles (issue 41). Part of
# tests/test_hostile.sh; the fuzzers (tests/run_fuzz.sh) start from the same
# kinds of mutants.
#
#   bash tests/hostile/mutate.sh [N]     (N mutants per profile, default 6)
#
# Each profile of ../shared/data is mutated N times by tests/hostile/mutate.py
# (seeded: the same mutants on every run): bytes flipped at random offsets,
# the file truncated at a random length, a random chunk duplicated in place,
# a length varint made huge, an int64 field set to an extreme, a metadata id
# pointed nowhere. Every mutant is summarized by `xplane summarize` and its
# ops counted in the sqlite3 shell. Checks, per mutant:
#   - neither process ends by a signal or a timeout (120 s);
#   - the command exits 0 with a profile_summary.v1 document that parses, or
#     1 with one error line naming the mutant's file;
#   - the shell answers a count or an error naming the file;
#   - peak RSS below 1 GiB (the profiles are under 3.1 MB; skipped under the
#     sanitizers, whose shadow memory is not ours).
# The mutants are written under a temporary directory, never kept.
set -uo pipefail
. "$(dirname "$0")/../test_env.sh"
. "$(dirname "$0")/../hostile_common.sh"
CLI=$BUILD/cli/xplane
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
N=${1:-6}
shopt -s nullglob
profiles=("$DATA"/*.xplane.pb)
if ((${#profiles[@]} == 0)); then echo "skipped: no real profiles in $DATA"; exit 77; fi
mkdir -p "$TMP/m"
/usr/bin/python3 "$SRC/tests/hostile/mutate.py" "$N" "$TMP/m" "${profiles[@]}" > "$TMP/list" ||
  { echo "FAIL mutate.py"; exit 1; }
n=0 ok_doc=0 ok_err=0
while IFS=$'\t' read -r f what; do
  n=$((n + 1))
  /usr/bin/time -f '%M' -o "$TMP/kb" timeout 120 "$CLI" summarize "$f" -o "$TMP/s.json" --quiet 2> "$TMP/err"
  rc=$?
  if ((rc == 0)) && /usr/bin/python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["schema_version"] == "profile_summary.v1"' "$TMP/s.json" 2> /dev/null; then
    ok_doc=$((ok_doc + 1))
  elif ((rc == 1)) && [ "$(wc -l < "$TMP/err")" -ge 1 ] && grep -qF "$(basename "$f")" "$TMP/err"; then
    ok_err=$((ok_err + 1))
  else
    bad "$(basename "$f") ($what): summarize exit $rc: $(head -c 300 "$TMP/err")"
  fi
  rm -f "$TMP/s.json"
  kb=$(tail -1 "$TMP/kb")
  if ((SANITIZED == 0)) && [[ $kb =~ ^[0-9]+$ ]] && ((kb > 1048576)); then bad "$(basename "$f") ($what): peak RSS ${kb} KB"; fi
  timeout 120 "$SQLITE3" -batch :memory: -cmd ".load $EXT" "SELECT count(*) FROM xplane_ops('$f')" > "$TMP/out" 2> "$TMP/err"
  rc=$?
  if ! { ((rc == 0)) && grep -qx '[0-9]*' "$TMP/out"; } && ! { ((rc == 1)) && grep -qF "$(basename "$f")" "$TMP/err"; }; then
    bad "$(basename "$f") ($what): xplane_ops exit $rc: $(head -c 300 "$TMP/err")"
  fi
done < "$TMP/list"
((n == N * ${#profiles[@]})) && ok "$n mutants of ${#profiles[@]} profiles" || bad "$n mutants, want $((N * ${#profiles[@]}))"
((ok_doc + ok_err == n)) && ok "every mutant: a whole document ($ok_doc) or an error naming its file ($ok_err)"
echo "$pass passed, $fail failed"
((fail == 0))
