#!/usr/bin/env bash
# run_sql_tests.sh: run the SQL script tests in tests/sql/ and compare each
# output byte for byte with its .expected file. Most of each .sql states its
# expected values next to the query (self-checking rows `SELECT x = y`, or
# values derived by hand in a comment); the .expected file is the snapshot
# that holds them, so a change shows as a diff.
#
#   bash tests/run_sql_tests.sh            # every tests/sql/*.sql
#   bash tests/run_sql_tests.sh tiny ...   # only tests/sql/tiny.sql, ...
#
# Environment (ctest sets it; defaults suit a build in ./build): XPLANE_EXT
# (the extension, no suffix), XPLANE_BUILD (holds tests/make_tiny_xspace),
# XPLANE_DATA (the real profiles), SQLITE3 (the shell).
#
# Each NAME.sql runs as `sqlite3 -bail -batch -header -nullvalue NULL
# :memory:`, stdout and stderr together, after these placeholders are
# replaced:
#   @EXT@   the extension to .load        @DATA@  the real profiles folder
#   @TMP@   a fresh scratch folder        @TINY@  the tiny profile (below)
# In the output, the scratch and data paths are turned back into @TMP@ and
# @DATA@, so expected files do not depend on where things live, and the
# column mask of query plans (" cols:<hex>") is dropped.
#
# The scratch folder holds a small logdir of profiles written by
# make_tiny_xspace (see tests/make_tiny_xspace.c), each with the mtime
# 2024-01-02T03:04:05.123456789Z (mtime_ns 1704164645123456789):
#   @TMP@/logs/plugins/profile/run_a/tiny.xplane.pb       (= @TINY@)
#   @TMP@/logs/plugins/profile/run_b/tiny.xplane.pb       (a copy)
#   @TMP@/logs/plugins/profile/run_b/worker-1.xplane.pb   (a copy)
# @FIXTURES@ is a folder holding each tests/fixtures/NAME.textproto (a
# hand-written XSpace in protobuf text format) encoded as NAME.xplane.pb with
# protoc and schema/xplane.proto, and each NAME.hlo.textproto (an HloProto)
# encoded as NAME.hlo_proto.pb with schema/hlo.proto.
# A script that mentions @DATA@ is skipped when the data folder holds no
# profile. A script that expects an SQL error turns `.bail off` before it.
# Prints a diff for each mismatch and ends with the line `N passed, M failed`
# (after `K skipped` if any); exits 1 on a failure, 77 when all were skipped.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=${XPLANE_SRC:-$(dirname "$HERE")}
BUILD=${XPLANE_BUILD:-$SRC/build}
EXT=${XPLANE_EXT:-$BUILD/xplane}
DATA=${XPLANE_DATA:-$SRC/../shared/data}
SQLITE3=${SQLITE3:-sqlite3}
MAKE_TINY=$BUILD/tests/make_tiny_xspace
MTIME='2024-01-02 03:04:05.123456789 UTC'

if [ ! -x "$MAKE_TINY" ]; then
  echo "error: $MAKE_TINY is missing: build the project first (cmake --build)" >&2
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=$tmp/logs/plugins/profile
mkdir -p "$runs/run_a" "$runs/run_b"
"$MAKE_TINY" "$runs/run_a/tiny.xplane.pb" || exit 1
cp "$runs/run_a/tiny.xplane.pb" "$runs/run_b/tiny.xplane.pb"
cp "$runs/run_a/tiny.xplane.pb" "$runs/run_b/worker-1.xplane.pb"
touch -d "$MTIME" "$runs"/run_*/*.xplane.pb
TINY=$runs/run_a/tiny.xplane.pb
FIXTURES=$tmp/fixtures
mkdir -p "$FIXTURES"
for f in "$HERE"/fixtures/*.hlo.textproto; do
  [ -e "$f" ] || continue
  protoc --encode=xla.HloProto -I "$SRC/schema" "$SRC/schema/hlo.proto" < "$f" \
    > "$FIXTURES/$(basename "$f" .hlo.textproto).hlo_proto.pb" || { echo "error: protoc could not encode $f" >&2; exit 1; }
done
for f in "$HERE"/fixtures/*.textproto; do
  [ -e "$f" ] || continue
  case $f in *.hlo.textproto) continue ;; esac
  protoc --encode=tensorflow.profiler.XSpace -I "$SRC/schema" "$SRC/schema/xplane.proto" < "$f" \
    > "$FIXTURES/$(basename "$f" .textproto).xplane.pb" || { echo "error: protoc could not encode $f" >&2; exit 1; }
done

have_data=0
compgen -G "$DATA/*.xplane.pb" > /dev/null && have_data=1

# Escape a literal for use in a sed pattern (delimiter #).
sed_literal() { printf '%s' "$1" | sed 's/[]\/$*.^[#]/\\&/g'; }
sed_replacement() { printf '%s' "$1" | sed 's/[\&#]/\\&/g'; }

if [ $# -gt 0 ]; then
  names=("$@")
else
  names=()
  for f in "$HERE"/sql/*.sql; do names+=("$(basename "$f" .sql)"); done
fi

passed=0 failed=0 skipped=0
for name in "${names[@]}"; do
  script=$HERE/sql/$name.sql expected=$HERE/sql/$name.expected
  if [ ! -f "$script" ] || [ ! -f "$expected" ]; then
    echo "FAIL $name: $script or $expected is missing"
    failed=$((failed + 1))
    continue
  fi
  if grep -q '@DATA@' "$script" && [ $have_data -eq 0 ]; then
    echo "SKIP $name: no *.xplane.pb in $DATA (set XPLANE_DATA to the real profiles)"
    skipped=$((skipped + 1))
    continue
  fi
  work=$tmp/work-$name
  mkdir -p "$work"
  sed "s#@EXT@#$(sed_replacement "$EXT")#g; s#@DATA@#$(sed_replacement "$DATA")#g;
       s#@TINY@#$(sed_replacement "$TINY")#g; s#@FIXTURES@#$(sed_replacement "$FIXTURES")#g;
       s#@TMP@#$(sed_replacement "$tmp")#g" \
    "$script" > "$work/script.sql"
  (cd "$work" && "$SQLITE3" -bail -batch -header -nullvalue NULL :memory: < script.sql > raw.out 2>&1)
  # The column mask of a query plan (" cols:<hex>") shifts whenever a table
  # gains a column; the pushed constraints before it are what the tests pin.
  sed "s#$(sed_literal "$tmp")#@TMP@#g; s#$(sed_literal "$DATA")#@DATA@#g; s# cols:[0-9a-f]*##g" \
    "$work/raw.out" > "$work/actual"
  if cmp -s "$expected" "$work/actual"; then
    echo "ok   $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name (--- expected, +++ actual):"
    diff -u "$expected" "$work/actual" | sed 's/^/  /'
    failed=$((failed + 1))
  fi
done

[ $skipped -gt 0 ] && echo "$skipped skipped"
echo "$passed passed, $failed failed"
[ $failed -gt 0 ] && exit 1
[ $passed -eq 0 ] && [ $skipped -gt 0 ] && exit 77
exit 0
