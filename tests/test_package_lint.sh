#!/usr/bin/env bash
# test_package_lint.sh: the PerfettoSQL package tp_plugin/xplane follows the
# conventions of Perfetto's standard library, as tools/lint_perfetto_sql.py
# checks them (documented objects, columns and arguments; PerfettoSQL
# types; `_` for private objects; INCLUDEs matching what is used; no DROP;
# no statement gated by a constant WHERE term).
#
#   XPLANE_SRC=. bash tests/test_package_lint.sh
#
# First the linter itself on a small package written here with one fault of
# each kind (each must be reported, with its file and line), then the
# package, which must pass clean.
set -uo pipefail

. "$(dirname "$0")/test_env.sh"
PY=${PYTHON3:-/usr/bin/python3}
LINT=$SRC/tools/lint_perfetto_sql.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

mkdir -p "$tmp/pk"
cat > "$tmp/pk/a.sql" <<'SQL'
-- pk.a: fixtures for the linter.

-- A documented public table.
CREATE PERFETTO TABLE pk_good(
  -- The slice.
  slice_id JOINID(slice.id),
  -- A count.
  n LONG
) AS SELECT id AS slice_id, 1 AS n FROM slice;

CREATE PERFETTO TABLE pk_nocomment(
  x LONG
) AS SELECT 1 AS x;

-- Wrongly named.
CREATE PERFETTO VIEW other_name(
  -- A column.
  y INTEGER
) AS SELECT 1 AS y;

-- Private: no comments needed.
CREATE PERFETTO TABLE _pk_private(z LONG) AS SELECT 1 AS z;

CREATE TEMP TABLE pk_plain AS SELECT 1;
DROP TABLE IF EXISTS pk_plain;

-- Private: gated by a constant WHERE term.
CREATE PERFETTO TABLE _pk_gated(n LONG) AS
SELECT 1 AS n FROM slice WHERE (SELECT z FROM _pk_private);

-- Private: gated by LIMIT, and a subquery compared with a column (fine).
CREATE PERFETTO TABLE _pk_limited(n LONG) AS
SELECT 1 AS n FROM slice WHERE id = (SELECT z FROM _pk_private) LIMIT (SELECT z FROM _pk_private);
SQL
cat > "$tmp/pk/b.sql" <<'SQL'
-- pk.b: uses pk.a without including it, includes pk.c without using it.
INCLUDE PERFETTO MODULE pk.c;

-- Uses another module's table.
CREATE PERFETTO FUNCTION pk_f(
  -- An argument.
  a LONG,
  b STRING
)
RETURNS LONG AS SELECT n FROM pk_good WHERE n = $a;
SQL
cat > "$tmp/pk/c.sql" <<'SQL'
CREATE PERFETTO TABLE _pk_c(v LONG) AS SELECT 1 AS v;
SQL
"$PY" "$LINT" "$tmp/pk" > "$tmp/out"
rc=$?
expected='a.sql:11: public TABLE pk_nocomment has no comment above it
a.sql:12: column pk_nocomment.x of a public table has no comment above it
a.sql:16: VIEW other_name: name it pk_... (public) or _pk_... (private)
a.sql:18: column other_name.y: type '"'"'INTEGER'"'"' is not a PerfettoSQL type
a.sql:24: plain CREATE TABLE: use CREATE PERFETTO TABLE / VIEW / FUNCTION
a.sql:25: DROP: a module never drops objects
a.sql:29: a subquery alone as a WHERE term reads every row all the same: switch the statement off with LIMIT (SELECT ...) instead
b.sql:1: uses pk_good (module pk.a) without INCLUDE PERFETTO MODULE pk.a
b.sql:2: INCLUDE of pk.c: nothing of it is used here
b.sql:8: argument pk_f.b of a public function has no comment above it
c.sql:1: the file does not start with a comment saying what the module is'
if [ $rc -ne 1 ] || [ "$(sort "$tmp/out")" != "$expected" ]; then
  fail=1
  echo "FAIL: the linter on its fixture package (status $rc):"
  diff <(echo "$expected") <(sort "$tmp/out")
fi

if ! "$PY" "$LINT" "$SRC/tp_plugin/xplane" > "$tmp/pkg"; then
  fail=1
  echo "FAIL: tp_plugin/xplane does not follow the stdlib conventions:"
  cat "$tmp/pkg"
fi
[ $fail -eq 0 ] && echo "PASS: the linter reports each fault; tp_plugin/xplane is clean"
exit $fail
