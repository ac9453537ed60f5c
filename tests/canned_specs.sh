# tests/canned_specs.sh: the canned queries that run on both engines, as the
# engine tests run them; sourced by tests/test_engines.sh (the SQLite shim)
# and tests/test_trace_processor.sh (the real trace processor).
#
#   . "$(dirname "$0")/canned_specs.sh"
#   for i in "${!SPECS[@]}"; do
#     spec_native "$SQLITE3" "${SPECS[$i]}" "$profile" "$op" out.txt   # sets SPEC_QUERY, SPEC_KV
#     tp_plugin/tp_query.sh "queries/$SPEC_QUERY.sql" "${SPEC_KV[@]}" >> script.sql
#   done
#
# Needs EXT (the extension to .load) and the working directory at the
# repository root (the query files .read queries/lib/... from there).

# The queries run on each profile: "QUERY [name value]..." (@OP@: the op
# the caller passes).
SPECS=(
  "summary"
  "summary breakdown_mode exclusive_global warmup_steps 2 hot_op_limit 7"
  "report"
  "top_ops top_k 3"
  "compute_vs_communication"
  "gap_before_op op @OP@"
  "gap_context op @OP@"
  "hierarchical_regions"
  "candidates"
)

# The time of day the documents carry, masked.
mask() { sed -e 's/"\(generated_at_utc\|recorded_at_utc\)": "[^"]*"/"\1": "@NOW@"/' \
             -e 's/^- Generated At (UTC): `[^`]*`/- Generated At (UTC): `@NOW@`/'; }

# spec_native SHELL SPEC PROFILE OP OUT: the query of SPEC run by the sqlite3
# shell SHELL over the extension (the settings as `.parameter set`), its
# output (or the failure) in OUT. Sets SPEC_QUERY (the query's name) and
# SPEC_KV (its settings as name=value words, for tp_plugin/tp_query.sh).
spec_native() {
  local shell=$1 spec=$2 profile=$3 op=$4 out=$5 words args k v
  read -r -a words <<< "$spec"
  SPEC_QUERY=${words[0]}
  SPEC_KV=()
  args=(-bail -cmd ".load $EXT" -cmd ".parameter set @profile \"$profile\"")
  for ((k = 1; k + 1 < ${#words[@]}; k += 2)); do
    v=${words[k + 1]}
    [ "$v" != "@OP@" ] || v=$op
    args+=(-cmd ".parameter set @${words[k]} \"$v\"")
    SPEC_KV+=("${words[k]}=$v")
  done
  "$shell" "${args[@]}" :memory: ".read queries/$SPEC_QUERY.sql" > "$out" 2> "$out.err" ||
    echo "sqlite3 failed: $(cat "$out.err")" >> "$out"
}
