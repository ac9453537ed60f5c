#!/usr/bin/env bash
# test_docs.sh: the documentation says what the extension does.
#
#   XPLANE_EXT=build/xplane XPLANE_BUILD=build XPLANE_DATA=../shared/data bash tests/test_docs.sh
#
# Part 1, the examples. Every fenced ```sql block of schema/TABLES.md and
# docs/ANALYSIS.md whose first line is `-- test: <input>` is run with the
# sqlite3 shell (`-batch -header -column`, the extension loaded), and the
# fenced ```text block that follows it must be its exact output (trailing
# white space of each line ignored: editors strip it). A failing statement
# fails the test (the shell's error lands in the output, which then differs).
# <input> says what the block reads:
#   none          nothing (pure functions, window functions over VALUES)
#   demo          the demo logdir logs/, written by the ```sh block of
#                 TABLES.md whose first line is `# test: demo setup`
#   <file>.pb     a real profile of $XPLANE_DATA, named by its file name
# Blocks run in a scratch directory laid out like the repository root:
# build/ and queries/ link to the build and source trees, the real profiles
# are linked there by file name and the demo logdir is written there (the
# profiles themselves are only read). The expected outputs of ANALYSIS.md
# were derived by hand from the rules stated there; those of TABLES.md were
# printed by the extension on the real profiles and checked against the
# columns' documented meaning when written: for those, this part only proves
# that the examples run and that the documentation is not stale.
#
# Part 2, the reference pins the interface. From the loaded extension:
# every module named xplane_* (pragma_module_list) with every column
# (pragma_table_xinfo, hidden ones included) and every function named
# xplane_* with each arity (pragma_function_list). TABLES.md must document
# exactly those:
#   - a table by a heading `### <table>(path)` followed by markdown tables
#     whose first cell lists column names (comma-separated, backticks
#     allowed); the columns listed under `### Columns every table has` count
#     for every table;
#   - a function by a cell `<name>(args)` in a table of the section
#     `## SQL functions`: `a, b` is arity 2, `a [, b]` arities 1 and 2,
#     `...` any arity (-1).
# Nothing documented may be missing from the extension either. So when a
# table, column or function is added (e.g. xplane_devices, xplane_hlo_stats,
# xplane_kernel_stats, xplane_memory, or a new function), THIS TEST FAILS
# until TABLES.md documents it; when one is removed, until its documentation
# goes too.
#
# Exits 77 (skip) when $XPLANE_DATA has no profile and nothing else failed:
# the blocks reading real profiles could not run.
set -u -o pipefail

. "$(dirname "$0")/test_env.sh"

TABLES_MD="$SRC/schema/TABLES.md"
ANALYSIS_MD="$SRC/docs/ANALYSIS.md"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

failures=0
skipped=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
q() { "$SQLITE3" -batch -noheader -list -cmd ".load $EXT" :memory: "$1"; }

[ -e "$EXT.so" ] || [ -e "$EXT" ] || { echo "FAIL: no extension at $EXT" >&2; exit 1; }

# ---- part 1: the examples ----------------------------------------------------

# extract DOC PREFIX: write PREFIX.N.{sql,expected,input,where} for each
# tested block of DOC; prints the number of blocks. A tested block without a
# ```text block right after it is reported as a failure (where = 'unpaired').
extract() {
  awk -v prefix="$2" -v doc="$(basename "$1")" '
    function flush() { close(prefix "." n ".sql"); close(prefix "." n ".expected") }
    state == 0 && /^```sql[ \t]*$/ { state = 1; start = NR; first = 1; next }
    state == 1 && first {
      first = 0
      if ($0 ~ /^-- test: /) {
        n++; input = $0; sub(/^-- test: /, "", input); sub(/[ \t]+$/, "", input)
        print input > (prefix "." n ".input"); close(prefix "." n ".input")
        print doc ":" start > (prefix "." n ".where"); close(prefix "." n ".where")
        printf "" > (prefix "." n ".sql"); state = 2; next
      }
      state = 9
    }
    state == 9 && /^```[ \t]*$/ { state = 0; next }
    state == 9 { next }
    state == 2 && /^```[ \t]*$/ { state = 3; next }
    state == 2 { print > (prefix "." n ".sql"); next }
    state == 3 && /^[ \t]*$/ { next }
    state == 3 && /^```text[ \t]*$/ { state = 4; printf "" > (prefix "." n ".expected"); next }
    state == 3 { print "unpaired" > (prefix "." n ".where"); close(prefix "." n ".where"); state = 0 }
    state == 4 && /^```[ \t]*$/ { flush(); state = 0; next }
    state == 4 { print > (prefix "." n ".expected"); next }
    END { if (state == 3 || state == 4 || state == 2) print "unpaired" > (prefix "." n ".where"); print n + 0 }
  ' "$1"
}

W="$T/work"
mkdir -p "$W" "$T/blocks"
ln -s "$BUILD" "$W/build"
ln -s "$SRC/queries" "$W/queries"
shopt -s nullglob
profiles=("$DATA"/*.xplane.pb)
for f in "${profiles[@]}"; do ln -s "$f" "$W/$(basename "$f")"; done

# The demo logdir, by the documented command.
setup=$(awk '/^```sh[ \t]*$/ { getline; if ($0 == "# test: demo setup") { on = 1; next } }
             on && /^```[ \t]*$/ { exit } on { print }' "$TABLES_MD")
if [ -z "$setup" ]; then
  fail "TABLES.md has no \`# test: demo setup\` block"
elif ! (cd "$W" && bash -e -c "$setup") >"$T/demo.log" 2>&1; then
  fail "the demo setup of TABLES.md failed: $(tail -3 "$T/demo.log")"
fi

n_run=0
for doc in "$TABLES_MD" "$ANALYSIS_MD"; do
  prefix="$T/blocks/$(basename "$doc" .md)"
  count=$(extract "$doc" "$prefix")
  [ "$count" -gt 0 ] || fail "$(basename "$doc") has no tested example"
  for ((i = 1; i <= count; i++)); do
    where=$(cat "$prefix.$i.where")
    input=$(cat "$prefix.$i.input")
    if [ "$where" = unpaired ]; then
      fail "$(basename "$doc"), example $i (-- test: $input): no \`\`\`text block with its output after it"
      continue
    fi
    case "$input" in
      none | demo) ;;
      *.xplane.pb)
        if [ ! -e "$W/$input" ]; then
          if [ ${#profiles[@]} -eq 0 ]; then skipped=$((skipped + 1)); continue; fi
          fail "$where: -- test: $input names no profile of $DATA"
          continue
        fi ;;
      *) fail "$where: unknown input '-- test: $input' (none, demo or a profile's file name)"; continue ;;
    esac
    (cd "$W" && "$SQLITE3" -batch -header -column -cmd ".load $EXT" :memory: <"$prefix.$i.sql") \
      >"$prefix.$i.out" 2>&1
    rc=$?
    sed -E 's/[[:space:]]+$//' "$prefix.$i.out" >"$prefix.$i.got"
    sed -E 's/[[:space:]]+$//' "$prefix.$i.expected" >"$prefix.$i.want"
    n_run=$((n_run + 1))
    if [ $rc -ne 0 ]; then
      fail "$where: the example exited $rc: $(head -3 "$prefix.$i.out")"
    elif ! diff -u "$prefix.$i.want" "$prefix.$i.got" >"$prefix.$i.diff"; then
      fail "$where: the output shown differs from the real output:"
      cat "$prefix.$i.diff" >&2
    else
      echo "ok - $where ($input)"
    fi
  done
done
echo "examples run: $n_run, skipped (no real profiles): $skipped"

# ---- part 2: the registered interface against TABLES.md ------------------

q "SELECT m.name || ' ' || c.name FROM pragma_module_list m, pragma_table_xinfo(m.name) c
    WHERE m.name LIKE 'xplane\_%' ESCAPE '\' ORDER BY 1" | LC_ALL=C sort -u >"$T/real_columns" ||
  fail "could not list the extension's tables"
q "SELECT name FROM pragma_module_list WHERE name LIKE 'xplane\_%' ESCAPE '\'" | LC_ALL=C sort -u >"$T/real_tables"
q "SELECT DISTINCT name || ' ' || narg FROM pragma_function_list WHERE name LIKE 'xplane\_%' ESCAPE '\'" |
  LC_ALL=C sort -u >"$T/real_functions" || fail "could not list the extension's functions"
[ -s "$T/real_tables" ] && [ -s "$T/real_functions" ] || fail "the extension registered no xplane_* table or function"

# The documented tables, columns and functions, parsed from TABLES.md.
awk -v out_t="$T/doc_tables" -v out_c="$T/doc_columns" -v out_f="$T/doc_functions" -v out_bad="$T/doc_bad" '
  function trim(s) { gsub(/^[ \t`]+|[ \t`]+$/, "", s); return s }
  function nargs(s,   k) { gsub(/[ \t\[\]]/, "", s); sub(/^,+/, "", s); if (s == "") return 0; k = gsub(/,/, ",", s); return k + 1 }
  /^#/ {
    section = ""; table = ""
    if ($0 ~ /^### xplane_[a-z0-9_]+\(/) {
      table = $0; sub(/^### /, "", table); sub(/\(.*/, "", table)
      print table > out_t; section = "table"
    } else if ($0 ~ /^### Columns every table has[ \t]*$/) {
      table = "*"; section = "table"
    }
    if ($0 ~ /^## SQL functions/) fsection = 1
    else if ($0 ~ /^## /) fsection = 0
    next
  }
  /^\|/ {
    split($0, cell, "|"); first = cell[2]
    if (first ~ /^[ \t]*-+[ \t]*$/ || trim(first) == "column" || trim(first) == "function") next
    if (section == "table") {
      n = split(first, names, ",")
      for (i = 1; i <= n; i++) {
        c = trim(names[i])
        if (c !~ /^[a-z_][a-z0-9_]*$/) { print NR ": not a column name: [" c "]" > out_bad; continue }
        print table " " c > out_c
      }
    } else if (fsection) {
      s = first
      while (match(s, /xplane_[a-z0-9_]+\([^)]*\)/)) {
        f = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
        name = f; sub(/\(.*/, "", name)
        args = f; sub(/^[^(]*\(/, "", args); sub(/\)$/, "", args)
        if (args ~ /\.\.\./) { print name " -1" > out_f; continue }
        req = args; opt = ""
        if (index(args, "[")) { req = substr(args, 1, index(args, "[") - 1); opt = substr(args, index(args, "[")) }
        lo = nargs(req); hi = lo + nargs(opt)
        for (k = lo; k <= hi; k++) print name " " k > out_f
      }
    }
  }
' "$TABLES_MD"
touch "$T/doc_tables" "$T/doc_columns" "$T/doc_functions" "$T/doc_bad"
while read -r line; do fail "TABLES.md line $line"; done <"$T/doc_bad"
LC_ALL=C sort -u "$T/doc_tables" >"$T/doc_tables.s"
# common columns (`*`) count for every documented table
awk 'NR == FNR { t[++n] = $1; next } $1 == "*" { for (i = 1; i <= n; i++) print t[i] " " $2; next } { print }' \
  "$T/doc_tables.s" "$T/doc_columns" | LC_ALL=C sort -u >"$T/doc_columns.s"
LC_ALL=C sort -u "$T/doc_functions" >"$T/doc_functions.s"

# compare WHAT REAL DOC
compare() {
  local what=$1 real=$2 doc=$3 x
  while read -r x; do fail "$what registered but not documented in schema/TABLES.md: $x"; done < <(LC_ALL=C comm -23 "$real" "$doc")
  while read -r x; do fail "$what documented in schema/TABLES.md but not registered: $x"; done < <(LC_ALL=C comm -13 "$real" "$doc")
  if LC_ALL=C cmp -s "$real" "$doc"; then echo "ok - $what: $(wc -l <"$real") documented, all registered"; fi
}
compare "table" "$T/real_tables" "$T/doc_tables.s"
# a column of an undocumented table is reported with its table only
awk 'NR == FNR { ok[$1] = 1; next } ok[$1]' <(LC_ALL=C comm -12 "$T/real_tables" "$T/doc_tables.s") "$T/real_columns" \
  >"$T/real_columns.k"
awk 'NR == FNR { ok[$1] = 1; next } ok[$1]' <(LC_ALL=C comm -12 "$T/real_tables" "$T/doc_tables.s") "$T/doc_columns.s" \
  >"$T/doc_columns.k"
compare "column (table column)" "$T/real_columns.k" "$T/doc_columns.k"
compare "function (name arity)" "$T/real_functions" "$T/doc_functions.s"

if [ $failures -gt 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
if [ ${#profiles[@]} -eq 0 ]; then
  echo "SKIP: no *.xplane.pb in $DATA: $skipped example(s) reading real profiles did not run (set XPLANE_DATA)"
  exit 77
fi
echo "all documentation checks passed"
