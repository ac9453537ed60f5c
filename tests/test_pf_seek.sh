#!/usr/bin/env bash
# test_pf_seek.sh: the extension's Perfetto-model tables (xplane_pf_slice,
# xplane_pf_args, xplane_pf_flow; sqlite_ext/tables_perfetto.c) join without
# rescans: `id =` and `arg_set_id =` are pushed down and seek (vtab.c's plan
# bits XP_P_ID and XP_P_SET), and a cursor scanned again for the same profile
# reuses the import it built.
#
#   XPLANE_BUILD=build XPLANE_SRC=. XPLANE_DATA=../shared/data bash tests/test_pf_seek.sh
#
# 1. The converter fixture (tests/make_perfetto_fixture; its 24 slices are
#    listed in tests/golden/perfetto/fixture_slices.txt): single-row seeks by
#    id and arg_set_id, values of other types (text, integral and fractional
#    reals, NULL, out of range), both constraints at once, IN lists, each
#    against the same rows filtered from a MATERIALIZED copy of the table (an
#    independent path: a plain scan, SQLite's own comparison).
# 2. Real profiles in $XPLANE_DATA (exit 77 without them): gemm's import
#    under lowered limits of one allocation (many blocks, below) gives the
#    rows of the unlimited one; a string longer than a block imports, one
#    longer than an allocation is a clear error; the join of
#    xplane_pf_slice with xplane_pf_args on arg_set_id, of xplane_pf_flow with
#    xplane_pf_slice on id, and args looked up by id give exactly the rows of
#    the same queries over MATERIALIZED CTEs; the join has one row per arg
#    (every arg belongs to one slice); EXPLAIN QUERY PLAN shows the inner
#    table's plan using the constraint; the join runs within a bound of
#    SQLite VM steps (`.progress`: 200 per slice and arg, where a rescan of
#    the args per slice needs about slices x args; the MATERIALIZED path
#    takes under 100) and builds the import once per cursor
#    (xplane_cache_stats' pf_imports = 2: one slice cursor, one args cursor;
#    a rebuild per rescan would count one per slice). The same over a logdir
#    of two copies of a profile, joined on file too (4 imports: one per
#    cursor and file).
set -euo pipefail

. "$(dirname "$0")/test_env.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
sql() { "$SQLITE3" -batch -bail -cmd ".load $EXT" "$@"; }

# ---- 1. the fixture ----
fx=$tmp/fx.xplane.pb
"$BUILD/tests/make_perfetto_fixture" "$fx"
# Each lookup, through the table and through a MATERIALIZED copy.
lookups=(
  "id = 0" "id = 5" "id = 20" "id = 21" "id = -1" "id = '5'" "id = 5.0" "id = 5.5" "id = NULL"
  "id = 9223372036854775807" "id = 'x'" "arg_set_id = 7" "arg_set_id = 7 AND id = 7" "arg_set_id = 7 AND id = 8"
  "id IN (3, 1, 17, 40)" "arg_set_id IN (2, 2, 9)" "id = (SELECT 4)"
)
for w in "${lookups[@]}"; do
  got=$(sql :memory: "SELECT id, name, ts, depth FROM xplane_pf_slice('$fx') WHERE $w ORDER BY id")
  want=$(sql :memory: "WITH s AS MATERIALIZED (SELECT * FROM xplane_pf_slice('$fx'))
    SELECT id, name, ts, depth FROM s WHERE $w ORDER BY id")
  [ "$got" = "$want" ] || fail "fixture: xplane_pf_slice WHERE $w: got [$got], want [$want]"
  got=$(sql :memory: "SELECT id, arg_set_id, key, int_value, string_value FROM xplane_pf_args('$fx') WHERE $w ORDER BY id")
  want=$(sql :memory: "WITH a AS MATERIALIZED (SELECT * FROM xplane_pf_args('$fx'))
    SELECT id, arg_set_id, key, int_value, string_value FROM a WHERE $w ORDER BY id")
  [ "$got" = "$want" ] || fail "fixture: xplane_pf_args WHERE $w: got [$got], want [$want]"
done
# By hand (fixture_slices.txt): slice 0 is the source record, the earliest;
# the fixture has 24 slices, the last (23) the marker; one flow (0).
[ "$(sql :memory: "SELECT name FROM xplane_pf_slice('$fx') WHERE id = 0")" = "xplane.source" ] ||
  fail "fixture: slice 0 is not the source record"
[ "$(sql :memory: "SELECT group_concat(name) FROM xplane_pf_slice('$fx') WHERE id IN (23, 24)")" = "marker" ] ||
  fail "fixture: slice 23 / 24"
[ "$(sql :memory: "SELECT count(*) FROM xplane_pf_flow('$fx') WHERE id = 0")|$(sql :memory: "SELECT count(*) FROM xplane_pf_flow('$fx') WHERE id = 1")" = "1|0" ] ||
  fail "fixture: flow 0 / 1"
echo "fixture: ${#lookups[@]} lookups by id and arg_set_id equal the MATERIALIZED copies'"

# ---- 2. real profiles ----
shopt -s nullglob
profiles=()
for name in tracelens_jax08_gemm xprof_tpu_inference_2; do
  [ -f "$DATA/$name.xplane.pb" ] && profiles+=("$DATA/$name.xplane.pb")
done
if [ ${#profiles[@]} = 0 ]; then
  echo "SKIP: no real profiles in $DATA (set XPLANE_DATA)"
  exit 77
fi

# Big profiles: the import keeps its arrays in blocks (pf_import.h), each of
# the largest power of two of elements that one allocation may hold, so no
# array is ever one allocation past the limit (the 1 GB generated profile, about
# 190 M args, was refused: "too large for the Perfetto-model tables").
# XPLANE_FAIL_ALLOC_ABOVE lowers that limit. At 1,000,000 bytes (where the
# import used to refuse gemm: its args, 40 bytes each then, needed a 1.3 MB
# array) a block holds 32,768 args (512 KiB) and gemm's 6,937 (16 bytes each
# now) fit in one. At 20,000 bytes: 7 blocks of 1,024 args, gemm's 3,794
# slices (96 bytes) in 30 blocks of 128, the ids by slice in 2, the
# sorts merging across blocks, and only part of gemm's distinct keys and
# string values interned (the rest are compared as text). Without
# the limit every array of gemm fits in its first block (the layout of one
# array per table that the import had before). Every table's rows, in full,
# must be those of the unlimited run (sha256 of the ordered rows, and counts).
# The join on arg_set_id under each limit has one row per arg (6,948, by
# hand: 22,058 before the converter left out the exact times that whole ns
# give, which are all 2 x 3,782 of gemm's converted slices, its times being
# whole ns: 14,494; then the plane index of each of the 3,782, and the line
# index of all but the first slice of each of its 7 lines (xplane_events:
# 3,782 converted events on 7 lines, none sharing a thread and name):
# 14,494 - 3,782 - 3,775 = 6,937; then xplane.plane.tf_op_or_name_stat on
# each of its 11 plane records: 6,948).
if [[ " ${profiles[*]} " == *tracelens_jax08_gemm* ]]; then
  gemm=$DATA/tracelens_jax08_gemm.xplane.pb
  # all_rows P: every table, every column, in id order: a count and a sha256 per table.
  all_rows() {
    local t q
    for t in "slice|id" "args|id" "flow|id" "thread_track|id" "thread|utid" "process|upid"; do
      q="SELECT * FROM xplane_pf_${t%%|*}('$1') ORDER BY ${t#*|}"
      printf '%s %s %s\n' "${t%%|*}" "$(sql :memory: "SELECT count(*) FROM ($q)")" "$(sql :memory: "$q" | sha256sum | cut -c1-64)"
    done
  }
  want=$(all_rows "$gemm")
  [ "$(echo "$want" | awk '$1 == "slice" || $1 == "args" {printf "%s=%s ", $1, $2}')" = "slice=3794 args=6948 " ] ||
    fail "gemm: unlimited import: [$want]"
  for lim in 1000000 20000; do
    got=$(XPLANE_FAIL_ALLOC_ABOVE=$lim all_rows "$gemm" 2>&1) || true
    [ "$got" = "$want" ] || fail "gemm under a $lim-byte allocation limit: got [$got], want the unlimited rows [$want]"
    got=$(XPLANE_FAIL_ALLOC_ABOVE=$lim sql :memory: "SELECT count(*) FROM xplane_pf_slice('$gemm') s
      JOIN xplane_pf_args('$gemm') a ON a.arg_set_id = s.arg_set_id" 2>&1) || true
    [ "$got" = 6948 ] || fail "gemm under a $lim-byte allocation limit: the join: got [$got], want 6948"
  done
  echo "gemm: the import under 1 MB and 20 KB allocation limits (many blocks) gives the rows of the unlimited one"

  # One string longer than a block gets a block of its own: a 1 MiB stat
  # (tests/hostile/xspace.py bigstat 1) under a 2,000,000-byte limit (blocks
  # of 1 MiB; the string and its NUL need 1,048,577 bytes) imports as without
  # the limit; under 100,000 bytes no allocation can hold it, and the error
  # says so.
  /usr/bin/python3 "$SRC/tests/hostile/xspace.py" bigstat 1 "$tmp/big.xplane.pb"
  q="SELECT id, key, length(string_value), substr(string_value, 1, 3), value_type FROM xplane_pf_args('$tmp/big.xplane.pb') WHERE key = 'debug.blob'"
  want=$(sql :memory: "$q")
  [ "$want" = "$(sql :memory: "SELECT count(*) - 1 FROM xplane_pf_args('$tmp/big.xplane.pb')")|debug.blob|1048576|aaa|string" ] ||
    fail "bigstat: unlimited: got [$want]"
  got=$(XPLANE_FAIL_ALLOC_ABOVE=2000000 sql :memory: "$q" 2>&1) || true
  [ "$got" = "$want" ] || fail "bigstat under a 2 MB limit: got [$got], want [$want]"
  err=$(XPLANE_FAIL_ALLOC_ABOVE=100000 sql :memory: "$q" 2>&1 >/dev/null) && fail "bigstat under a 100 KB limit: no error"
  [[ $err == *"$tmp/big.xplane.pb: too large for the Perfetto-model tables: one of its strings needs 1048577 bytes, more than one allocation may hold (100000 bytes); xplane2perfetto converts it for trace processor" ]] ||
    fail "bigstat under a 100 KB limit: got [$err]"
  echo "bigstat: a string longer than a block imports; one longer than an allocation says so"
fi

# check_join PATH [file]: the three queries, direct and through MATERIALIZED
# CTEs, on PATH (a file; with "file", a logdir of two files, each joined on
# file too, so each cursor builds one import per file: 4).
check_join() {
  local p=$1 on_file="" n_slices n_args limit eqp got files=1
  [ "${2:-}" = file ] && on_file="AND a.file = s.file" && files=2
  read -r n_slices n_args < <(sql :memory: "SELECT (SELECT count(*) FROM xplane_pf_slice('$p')), (SELECT count(*) FROM xplane_pf_args('$p'))" | tr '|' ' ')
  # .progress 1000 --limit L interrupts after 1000 * L VM steps.
  limit=$(( (n_slices + n_args) * 200 / 1000 ))
  local join="SELECT s.file, s.id, s.name, s.ts, a.id, a.key, a.value_type, a.int_value, a.string_value, a.real_value
    FROM xplane_pf_slice('$p') s JOIN xplane_pf_args('$p') a ON a.arg_set_id = s.arg_set_id $on_file ORDER BY s.file, a.id"
  local mjoin="WITH s AS MATERIALIZED (SELECT * FROM xplane_pf_slice('$p')), a AS MATERIALIZED (SELECT * FROM xplane_pf_args('$p'))
    SELECT s.file, s.id, s.name, s.ts, a.id, a.key, a.value_type, a.int_value, a.string_value, a.real_value
    FROM s JOIN a ON a.arg_set_id = s.arg_set_id $on_file ORDER BY s.file, a.id"
  eqp=$(sql :memory: "EXPLAIN QUERY PLAN $join")
  echo "$eqp" | grep -q 'SCAN a VIRTUAL TABLE INDEX [0-9]*:path.*arg_set_id' || fail "$p: the join's plan does not seek the args by arg_set_id: $eqp"
  sql :memory: ".progress 1000 --limit $limit --quiet" "$join" "SELECT json_extract(xplane_cache_stats(), '\$.pf_imports')" > "$tmp/direct" ||
    fail "$p: the direct join failed or took over $((limit * 1000)) VM steps ($n_slices slices, $n_args args): $(tail -1 "$tmp/direct")"
  sql :memory: ".progress 1000 --limit $limit --quiet" "$mjoin" > "$tmp/mat" || fail "$p: the MATERIALIZED join failed: $(tail -1 "$tmp/mat")"
  got=$(tail -1 "$tmp/direct")
  sed -i '$d' "$tmp/direct"
  [ "$got" = $((2 * files)) ] || fail "$p: the join built the import $got times (want $((2 * files)): one per cursor and file)"
  cmp -s "$tmp/direct" "$tmp/mat" || fail "$p: the join differs from the MATERIALIZED join: $(diff "$tmp/direct" "$tmp/mat" | head -5)"
  got=$(sql :memory: ".progress 1000 --limit $limit --quiet" "SELECT count(*) FROM xplane_pf_slice('$p') s
    JOIN xplane_pf_args('$p') a ON a.arg_set_id = s.arg_set_id $on_file")
  [ "$got" = "$n_args" ] || fail "$p: the join has $got rows, want one per arg ($n_args)"

  # Flows to their slices by id.
  join="SELECT f.file, f.id, f.slice_out, f.slice_in, s.name, s.ts FROM xplane_pf_flow('$p') f
    JOIN xplane_pf_slice('$p') s ON s.id = f.slice_in ${on_file/a.file/f.file} ORDER BY f.file, f.id"
  mjoin="WITH f AS MATERIALIZED (SELECT * FROM xplane_pf_flow('$p')), s AS MATERIALIZED (SELECT * FROM xplane_pf_slice('$p'))
    SELECT f.file, f.id, f.slice_out, f.slice_in, s.name, s.ts FROM f JOIN s ON s.id = f.slice_in ${on_file/a.file/f.file} ORDER BY f.file, f.id"
  eqp=$(sql :memory: "EXPLAIN QUERY PLAN $join")
  echo "$eqp" | grep -q 'SCAN s VIRTUAL TABLE INDEX [0-9]*:path.*,id' || fail "$p: the flow join's plan does not seek the slices by id: $eqp"
  sql :memory: ".progress 1000 --limit $limit --quiet" "$join" > "$tmp/direct" || fail "$p: the flow join failed: $(tail -1 "$tmp/direct")"
  sql :memory: "$mjoin" > "$tmp/mat"
  cmp -s "$tmp/direct" "$tmp/mat" || fail "$p: the flow join differs from the MATERIALIZED join"
  local n_flows
  n_flows=$(sql :memory: "SELECT count(*) FROM xplane_pf_flow('$p')")

  # Args by id: the first, one in the middle, the last, and past the end.
  local ids="0, $((n_args / 2)), $((n_args - 1)), $n_args"
  got=$(sql :memory: "SELECT file, id, arg_set_id, key, int_value, string_value FROM xplane_pf_args('$p') WHERE id IN ($ids) ORDER BY file, id")
  local want=$(sql :memory: "WITH a AS MATERIALIZED (SELECT * FROM xplane_pf_args('$p'))
    SELECT file, id, arg_set_id, key, int_value, string_value FROM a WHERE id IN ($ids) ORDER BY file, id")
  [ "$got" = "$want" ] && [ -n "$got" ] || fail "$p: args by id: got [$got], want [$want]"
  echo "$(basename "$p"): join $n_slices slices x $n_args args = $n_args rows, $n_flows flows to slices, args by id: equal to the MATERIALIZED path"
}

for p in "${profiles[@]}"; do check_join "$p"; done
# A logdir of two copies of the first profile: ids restart per file.
mkdir -p "$tmp/logs/run"
cp "${profiles[0]}" "$tmp/logs/run/h1.xplane.pb"
cp "${profiles[0]}" "$tmp/logs/run/h2.xplane.pb"
check_join "$tmp/logs" file
echo "PASS"
