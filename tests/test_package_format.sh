#!/usr/bin/env bash
# test_package_format.sh: the PerfettoSQL module xplane.format
# (tp_plugin/xplane/format.sql) against the extension's C functions of the
# same names (sqlite_ext/functions_format.c), in SQLite through
# tests/perfetto_sql_shim (the C results are computed first: the module's
# CREATE PERFETTO FUNCTION replaces the C function of the same name).
#
#   XPLANE_BUILD=build XPLANE_SRC=. XPLANE_DATA=../shared/data bash tests/test_package_format.sh
#
# 1. Hand-written values with the exact strings expected from both: ties
#    (0.125 '.2f', 2.5 '.0f', 1.0625 '.3f'), doubles just below a tie (0.15
#    '.1f', 2.675 '.2f'), 1e16, 1e-05, 5e-324, DBL_MAX, infinities, huge
#    integers, NULL, text, every type of spec (f e % g d, ',', defaults, the
#    cap at 40 digits), and -0.0 (C: '-0.0'; the module cannot see the sign
#    of a zero and prints '0.0', as its header says). Unsupported specs are
#    errors on both.
# 2. 105,000 pseudo-random doubles from a fixed MINSTD sequence: random bit
#    patterns over the whole range (subnormals included), random significands
#    scaled to 2^-70 .. 2^71, picosecond counts k / 1e6 (k of 1 to 15
#    digits), dyadic values with exact decimal ties, and 5,000 integers (C
#    only); xplane_repr and 11 specs on the 100,000 doubles, 7 more specs on
#    every tenth: 0 mismatches. The module's arguments are DOUBLEs: an
#    integer or a text is refused with trace processor's type error (the
#    shim checks argument types as trace processor does).
# 3. xplane_json_pretty: hand-written JSON (nesting, empty containers, key
#    order by code point, duplicate keys, escapes, non-ASCII, surrogate
#    pairs) with the exact text expected from both; then, for every real
#    profile in $XPLANE_DATA (exit 77 without it, after 1 and 2), the
#    compact summary document of queries/lib/summary_json.sql pretty-printed
#    by the module is byte for byte the output of queries/summary.sql; the
#    time of the module on the largest document is printed.
set -euo pipefail

. "$(dirname "$0")/test_env.sh"
SHIM=$BUILD/tests/perfetto_sql_shim
PKG=$SRC/tp_plugin/xplane
# XPLANE_FORMAT_SAMPLE=n: the module checks every n-th random value only
# (tests/run_sanitized.sh sets 10: memory errors do not need all of them).
SAMPLE=${XPLANE_FORMAT_SAMPLE:-1}
[[ $SAMPLE =~ ^(1|2|4|5|10)$ ]] || { echo "XPLANE_FORMAT_SAMPLE must divide 10"; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
"$BUILD/tests/make_tiny_xspace" "$tmp/tiny.pb"
# Every call of a module function runs statements whose temporary B-trees
# are allocated and freed; glibc's default would hand the top of the heap
# back to the kernel each time (half the run in page faults), so keep it.
shim() {
  GLIBC_TUNABLES=glibc.malloc.trim_threshold=1073741824:glibc.malloc.top_pad=16777216 \
    "$SHIM" "$EXT" "$PKG" "$tmp/tiny.pb" "$@"
}

# Exact powers of two 2^-1074 .. 2^1023 (doubling and halving are exact).
POW2="CREATE TEMP TABLE p2(e INTEGER PRIMARY KEY, v REAL);
WITH RECURSIVE up(e, v) AS (SELECT 0, 1.0 UNION ALL SELECT e + 1, v * 2 FROM up WHERE e < 1023),
  dn(e, v) AS (SELECT -1, 0.5 UNION ALL SELECT e - 1, v / 2 FROM dn WHERE e > -1074)
INSERT INTO p2 SELECT e, v FROM up UNION ALL SELECT e, v FROM dn;"

# ---- 1. hand-written values ----
# cases(x, spec, want, pkg_want): spec NULL means xplane_repr(x), else
# xplane_format(x, spec); want is C's result, pkg_want the module's where
# it differs (-0.0 only).
cat > "$tmp/edges.sql" <<EOF
$POW2
CREATE TEMP TABLE cases(id INTEGER PRIMARY KEY, x, spec, want, pkg_want);
INSERT INTO cases(x, spec, want) VALUES
  (0.125, NULL, '0.125'), (2.5, NULL, '2.5'), (1.0625, NULL, '1.0625'), (0.15, NULL, '0.15'),
  (1e16, NULL, '1e+16'), (1e15, NULL, '1000000000000000.0'), (9999999999999998.0, NULL, '9999999999999998.0'),
  (9007199254740992.0, NULL, '9007199254740992.0'), (1e22, NULL, '1e+22'), (1.5e300, NULL, '1.5e+300'),
  (1e-5, NULL, '1e-05'), (1e-4, NULL, '0.0001'), (0.000123, NULL, '0.000123'), (1e-7, NULL, '1e-07'),
  (123456789.0, NULL, '123456789.0'), (123456789012345680.0, NULL, '1.2345678901234568e+17'),
  ((SELECT v FROM p2 WHERE e = -1074), NULL, '5e-324'),
  (4503599627370496.0 * (SELECT v FROM p2 WHERE e = -1074), NULL, '2.2250738585072014e-308'),
  (9007199254740991.0 * (SELECT v FROM p2 WHERE e = 971), NULL, '1.7976931348623157e+308'),
  (0.1, NULL, '0.1'), (0.3, NULL, '0.3'), (4.35, NULL, '4.35'), (1 / 3.0, NULL, '0.3333333333333333'),
  (60.0, NULL, '60.0'), (100.0, NULL, '100.0'), (-1.5, NULL, '-1.5'), (0.0, NULL, '0.0'),
  (0, NULL, '0'), (42, NULL, '42'), (9223372036854775807, NULL, '9223372036854775807'),
  (-9223372036854775808, NULL, '-9223372036854775808'), (NULL, NULL, NULL),
  (1e999, NULL, 'Infinity'), (-1e999, NULL, '-Infinity'), ('1.5', NULL, '1.5'), ('abc', NULL, '0.0'),
  (0.125, '.2f', '0.12'), (0.375, '.2f', '0.38'), (2.5, '.0f', '2'), (3.5, '.0f', '4'), (0.5, '.0f', '0'),
  (1.5, '.0f', '2'), (1.0625, '.3f', '1.062'), (0.15, '.1f', '0.1'), (0.25, '.1f', '0.2'), (0.35, '.1f', '0.3'),
  (2.675, '.2f', '2.67'), (1e16, '.2f', '10000000000000000.00'), (1e16, '.1f', '10000000000000000.0'),
  (0.001, '.40f', '0.0010000000000000000208166817117216851329'),
  (0.1, '.50f', '0.1000000000000000055511151231257827021182'),
  (0.1, '.40e', '1.0000000000000000555111512312578270211816e-01'),
  (1 / 3.0, '.17e', '3.33333333333333315e-01'),
  ((SELECT v FROM p2 WHERE e = -1074), '.3e', '4.941e-324'),
  ((SELECT v FROM p2 WHERE e = -1074), '.40e', '4.9406564584124654417656879286822137236506e-324'),
  ((SELECT v FROM p2 WHERE e = -1074), '.2f', '0.00'),
  (9007199254740991.0 * (SELECT v FROM p2 WHERE e = 971), '.3e', '1.798e+308'),
  (9007199254740991.0 * (SELECT v FROM p2 WHERE e = 971), '.0f',
   '179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368'),
  (9007199254740991.0 * (SELECT v FROM p2 WHERE e = 971), '.1%', 'inf%'),
  (1e-5, '.3e', '1.000e-05'), (1e100, '.3e', '1.000e+100'), (2.5, '.0e', '2e+00'), (3.5, '.0e', '4e+00'),
  (0.0, '.3e', '0.000e+00'), (0.0, '.3', '0'), (0.0, 'g', '0'), (0, '.2f', '0.00'),
  (123456789.0, ',', '123,456,789'), (1234567.9, ',', '1,234,567'), (1234567.891, ',.1f', '1,234,567.9'),
  (-1234567.891, ',.2f', '-1,234,567.89'), (999.5, ',.0f', '1,000'), (123.0, ',', '123'),
  (0.0001234, '.1%', '0.0%'), (0.123456, '.1%', '12.3%'), (0.5, '.2%', '50.00%'), (-0.00001, '.2%', '-0.00%'),
  (-0.001, '.2f', '-0.00'), (12345.6789, '', '12345'), (-0.5, '', '-0'), (0.5, '', '0'), (-12.9, '', '-12'),
  (1e20, '', '100000000000000000000'), (1234.5, '.2d', '1234'), (42, '', '42'), (-42, ',', '-42'),
  (9223372036854775807, ',', '9,223,372,036,854,775,807'), (9223372036854775807, '.0f', '9223372036854775808'),
  (-9223372036854775808, '', '-9223372036854775808'),
  (1234.5, '.3', '1.23e+03'), (0.0001234, '.3', '0.000123'), (0.00001234, '.3', '1.23e-05'),
  (9.9999, '.2', '10'), (99.99, '.3', '100'), (1e16, '.2', '1e+16'), (1e22, '.3', '1e+22'),
  (100000.0, 'g', '100000'), (1000000.0, 'g', '1e+06'), (999999.5, 'g', '1e+06'), (1 / 3.0, '.12g', '0.333333333333'),
  (1.5, 'f', '1.500000'), (1.5, 'e', '1.500000e+00'), (1.5, '%', '150.000000%'), (2.5, '.f', '2'),
  (1e999, '.2f', 'inf'), (-1e999, ',', '-inf'), (1e999, '.1%', 'inf%'), (-1e999, '.3e', '-inf'), (1e999, 'g', 'inf'),
  ('abc', '.2f', '0.00'), ('2.5', '.1f', '2.5'), (NULL, '.2f', NULL), (NULL, 'bogus', NULL);
INSERT INTO cases(x, spec, want, pkg_want) VALUES
  (-0.0, NULL, '-0.0', '0.0'), (-0.0, '.2f', '-0.00', '0.00'), (-0.0, '', '-0', '0'), (-0.0, '.3e', '-0.000e+00', '0.000e+00');
CREATE TEMP TABLE c_got AS
SELECT id, CASE WHEN spec IS NULL THEN xplane_repr(x) ELSE xplane_format(x, spec) END AS got FROM cases;
INCLUDE PERFETTO MODULE xplane.format;
-- the module's argument is a DOUBLE: trace processor refuses an integer or a
-- text there (checked below), so only doubles and NULL reach the module
SELECT 'BAD', id, quote(x), quote(spec), quote(want), quote(pkg_want), quote(c.got), quote(p.got)
FROM cases
JOIN c_got c USING (id)
LEFT JOIN (SELECT id, CASE WHEN spec IS NULL THEN xplane_repr(x) ELSE xplane_format(x, spec) END AS got FROM cases
            WHERE typeof(x) IN ('real', 'null')) p USING (id)
WHERE c.got IS NOT want OR (typeof(x) IN ('real', 'null') AND p.got IS NOT coalesce(pkg_want, want));
SELECT 'cases', count(*), sum(typeof(x) IN ('real', 'null')) FROM cases;
EOF
out=$(shim "$tmp/edges.sql") || fail "edge values: the shim failed"
grep -q '^BAD' <<<"$out" && fail "edge values differ (id|x|spec|want|pkg_want|C|module):
$(grep '^BAD' <<<"$out")"
n_cases=$(sed -n 's/^cases|//p' <<<"$out")
[ "$n_cases" = "117|103" ] || fail "edge values: $n_cases cases ran (all|module), not 117|103"
echo "edge values: ${n_cases%|*} cases in C, ${n_cases#*|} (doubles, NULL) in the module, as expected"
# An integer or a text argument is an error in trace processor (its
# argument type check; the shim does the same), not a silent conversion.
for arg in "42" "'1.5'" "42, '.2f'"; do
  fn=xplane_repr; [ "$arg" = "42, '.2f'" ] && fn=xplane_format
  printf "INCLUDE PERFETTO MODULE xplane.format;\nSELECT %s(%s);\n" "$fn" "$arg" > "$tmp/type.sql"
  msg=$(shim "$tmp/type.sql" 2>&1 >/dev/null) && fail "$fn($arg) was accepted by the module"
  grep -q "argument 0 does not have expected type: expected FLOAT/DOUBLE" <<<"$msg" ||
    fail "$fn($arg): unexpected message: $msg"
done
echo "integer and text arguments: refused with trace processor's type error"

for spec in x .2x .2fx 5 ,, '.3f ' ' .3f' '.-1f' 'f%'; do
  "$SQLITE3" -batch -cmd ".load $EXT" :memory: "SELECT xplane_format(1.5, '$spec');" > "$tmp/c_err" 2>&1 \
    && fail "C accepted the spec '$spec'"
  grep -qF "unsupported format spec '$spec'" "$tmp/c_err" || fail "C error for '$spec': $(cat "$tmp/c_err")"
  printf "INCLUDE PERFETTO MODULE xplane.format;\nSELECT xplane_format(1.5, '%s');\n" "$spec" > "$tmp/err.sql"
  shim "$tmp/err.sql" > "$tmp/p_err" 2>&1 && fail "the module accepted the spec '$spec'"
  # the message is SQLite's JSON path error around C's ('' for ' in 3.40)
  grep -qF "unsupported format spec '" "$tmp/p_err" && grep -qF "$spec" "$tmp/p_err" \
    || fail "module error for '$spec': $(cat "$tmp/p_err")"
done
echo "unsupported specs: errors from both"

# ---- 2. pseudo-random doubles ----
FULL_SPECS=(.0f .2f .3f .4f .1% .2% .3e .3 '' , ,.1f)
SUBSET_SPECS=(g .0e .6e .17e .40f ,.2% .12g)
{
  echo "$POW2"
  cat <<'EOF'
-- MINSTD, s' = s * 48271 mod (2^31 - 1): three draws r0, r1, r2 per value
CREATE TEMP TABLE draws AS
SELECT i / 3 AS k, max(CASE i % 3 WHEN 0 THEN s END) AS r0, max(CASE i % 3 WHEN 1 THEN s END) AS r1,
       max(CASE i % 3 WHEN 2 THEN s END) AS r2
FROM (WITH RECURSIVE g(i, s) AS (SELECT 0, 20240601 UNION ALL SELECT i + 1, s * 48271 % 2147483647 FROM g WHERE i < 314999)
      SELECT i, s FROM g)
GROUP BY i / 3;
-- (kind, sign, m, e) for x = sign * m * 2^e, or an integer
CREATE TEMP TABLE parts AS
SELECT k, 'bits' AS kind, CASE WHEN b < 0 THEN -1 ELSE 1 END AS sign,
  CASE WHEN ex = 0 THEN b & 4503599627370495 ELSE (b & 4503599627370495) + 4503599627370496 END AS m,
  CASE WHEN ex = 0 THEN -1074 ELSE min(ex, 2046) - 1075 END AS e
FROM (SELECT k, b, (b >> 52) & 2047 AS ex FROM (SELECT k, (r0 << 33) | (r1 << 2) | (r2 & 3) AS b FROM draws WHERE k < 25000))
UNION ALL
SELECT k, 'scaled', CASE WHEN r2 & 1048576 THEN -1 ELSE 1 END, (((r0 << 21) | (r1 >> 10)) & 4503599627370495) + 4503599627370496,
  r2 % 141 - 122
FROM draws WHERE k >= 25000 AND k < 50000;
CREATE TEMP TABLE vals(k INTEGER PRIMARY KEY, kind, x);
INSERT INTO vals
SELECT k, kind, sign * CAST(m AS REAL) * (SELECT v FROM p2 WHERE p2.e = parts.e / 2)
                * (SELECT v FROM p2 WHERE p2.e = parts.e - parts.e / 2)
FROM parts;
-- picosecond counts of 1 to 15 digits, in microseconds; some negative
INSERT INTO vals
SELECT k, 'ps', CASE WHEN r2 % 7 = 0 THEN -1 ELSE 1 END
  * (((r0 << 31) | r1) % CAST('1' || substr('000000000000000', 1, 1 + r2 % 15) AS INT)) / 1e6
FROM draws WHERE k >= 50000 AND k < 90000;
-- dyadic values: exact decimal ties at many precisions
INSERT INTO vals
SELECT k, 'ties', (r0 % 2000001 - 1000000) / (SELECT v FROM p2 WHERE e = r1 % 12) FROM draws WHERE k >= 90000 AND k < 100000;
INSERT INTO vals
SELECT k, 'ints', ((r0 << 31) | r1) - 2305843009213693952 FROM draws WHERE k >= 100000;
SELECT 'kinds', group_concat(kind || '=' || n, ' ') FROM (SELECT kind, count(*) AS n FROM vals GROUP BY kind ORDER BY kind);
EOF
  echo "CREATE TEMP TABLE c_out AS SELECT k, x, xplane_repr(x) AS s0"
  i=1; for spec in "${FULL_SPECS[@]}"; do echo "  , xplane_format(x, '$spec') AS s$i"; i=$((i + 1)); done
  for spec in "${SUBSET_SPECS[@]}"; do echo "  , CASE WHEN k % 10 = 0 THEN xplane_format(x, '$spec') END AS s$i"; i=$((i + 1)); done
  echo "FROM vals;"
  echo "INCLUDE PERFETTO MODULE xplane.format;"
  echo "SELECT 'result', 0, 'xplane_repr', count(*), sum(s0 IS NOT xplane_repr(x)) FROM c_out WHERE typeof(x) = 'real' AND k % $SAMPLE = 0;"
  i=1; for spec in "${FULL_SPECS[@]}"; do
    echo "SELECT 'result', $i, '''$spec''', count(*), sum(s$i IS NOT xplane_format(x, '$spec')) FROM c_out WHERE typeof(x) = 'real' AND k % $SAMPLE = 0;"; i=$((i + 1)); done
  for spec in "${SUBSET_SPECS[@]}"; do
    echo "SELECT 'result', $i, '''$spec''', count(*), sum(s$i IS NOT xplane_format(x, '$spec')) FROM c_out WHERE k % (10 * $SAMPLE) = 0 AND typeof(x) = 'real';"
    i=$((i + 1)); done
  echo "SELECT 'example', kind, quote(c_out.x), s0, s3, s7 FROM c_out JOIN vals USING (k) WHERE k IN (7, 25007, 50007, 90007, 100007);"
} > "$tmp/random.sql"
out=$(PERFETTO_SHIM_TIMING=1 shim "$tmp/random.sql" 2> "$tmp/random_times") \
  || fail "random values: the shim failed: $(tail -5 "$tmp/random_times")"
kinds=$(sed -n 's/^kinds|//p' <<<"$out")
[ "$kinds" = "bits=25000 ints=5000 ps=40000 scaled=25000 ties=10000" ] || fail "random values: kinds $kinds"
echo "random values: $kinds"
sed -n 's/^example|/  e.g. /p' <<<"$out"
bad=0
while IFS='|' read -r _ i spec n mismatches; do
  t=$(grep -F "SELECT 'result', $i, " "$tmp/random_times" | awk '{print $1}')
  echo "  $spec: $n values, $mismatches mismatches (module: $t s)"
  [ "$n" = "$([ "$i" -le ${#FULL_SPECS[@]} ] && echo $((100000 / SAMPLE)) || echo $((10000 / SAMPLE)))" ] || bad=1
  [ "$mismatches" = 0 ] || bad=1
done < <(grep '^result|' <<<"$out")
[ "$(grep -c '^result|' <<<"$out")" = $((1 + ${#FULL_SPECS[@]} + ${#SUBSET_SPECS[@]})) ] || fail "random values: results missing"
[ "$bad" = 0 ] || fail "random values: the module differs from C"

# ---- 3. xplane_json_pretty ----
# docs(doc, want, pkg_want): want is C's text, pkg_want the module's where
# it differs ("\u0000": SQLite cuts the string there, the module's header).
cat > "$tmp/json.sql" <<'EOF'
CREATE TEMP TABLE docs(id INTEGER PRIMARY KEY, doc, want, pkg_want);
INSERT INTO docs(doc, want) VALUES
  ('{"b": [], "a": {"d": {}, "c": [1, 2.5, "x", [[]], [{}]]}, "": null}',
   '{
  "": null,
  "a": {
    "c": [
      1,
      2.5,
      "x",
      [
        []
      ],
      [
        {}
      ]
    ],
    "d": {}
  },
  "b": []
}'),
  ('{"ab": 1, "b": true, "a": false, "B": 2, "a": 3, "\u00e9": 4, "z": 5, "\ud83d\ude00": 6, "\uffff": 7}',
   '{
  "B": 2,
  "a": false,
  "a": 3,
  "ab": 1,
  "b": true,
  "z": 5,
  "\u00e9": 4,
  "\uffff": 7,
  "\ud83d\ude00": 6
}'),
  ('["\u00e9\ud83d\ude00\t\"\\\n\r\b\f\u0001\u001f\u007f/", "caf' || char(233) || '", "\ud800x"]',
   '[
  "\u00e9\ud83d\ude00\t\"\\\n\r\b\f\u0001\u001f\u007f/",
  "caf\u00e9",
  "\ud800x"
]'),
  ('[1e-05, 60.0, -3, 1e+16, 0.1, 1.7976931348623157e+308, 5e-324, 9223372036854775807, 0]',
   '[
  1e-05,
  60.0,
  -3,
  1e+16,
  0.1,
  1.7976931348623157e+308,
  5e-324,
  9223372036854775807,
  0
]'),
  ('"x"', '"x"'), ('1.5', '1.5'), ('null', 'null'), ('[]', '[]'), ('{}', '{}'),
  ('  {"a" : [ 1 , 2 ] }  ', '{
  "a": [
    1,
    2
  ]
}');
INSERT INTO docs(doc, want, pkg_want) VALUES ('["a\u0000b"]', '[
  "a\u0000b"
]', '[
  "a"
]');
CREATE TEMP TABLE c_got AS SELECT id, xplane_json_pretty(doc) AS got FROM docs;
INCLUDE PERFETTO MODULE xplane.format;
SELECT 'BAD', id, doc, want, c.got, p.got
FROM docs JOIN c_got c USING (id) JOIN (SELECT id, xplane_json_pretty(doc) AS got FROM docs) p USING (id)
WHERE c.got IS NOT want OR p.got IS NOT coalesce(pkg_want, want);
SELECT 'json', count(*) FROM docs;
SELECT 'null', xplane_json_pretty(NULL) IS NULL;
EOF
out=$(shim "$tmp/json.sql") || fail "JSON cases: the shim failed"
grep -q '^BAD' <<<"$out" && fail "JSON cases differ (id|doc|want|C|module):
$(grep -A12 '^BAD' <<<"$out")"
[ "$(sed -n 's/^null|//p' <<<"$out")" = 1 ] || fail "xplane_json_pretty(NULL) is not NULL"
[ "$(sed -n 's/^json|//p' <<<"$out")" = 11 ] || fail "JSON cases: not 11 documents"
echo "JSON cases: 11 documents as expected"
printf 'INCLUDE PERFETTO MODULE xplane.format;\nSELECT xplane_json_pretty(%s);\n' "'{\"a\": }'" > "$tmp/err.sql"
shim "$tmp/err.sql" > "$tmp/p_err" 2>&1 && fail "the module accepted malformed JSON"
grep -q "malformed JSON" "$tmp/p_err" || fail "module error for malformed JSON: $(cat "$tmp/p_err")"

if [ ! -d "$DATA" ] || ! ls "$DATA"/*.xplane.pb > /dev/null 2>&1; then
  echo "SKIP: no real profiles in $DATA (set XPLANE_DATA): the summary documents were not checked"
  exit 77
fi
largest='' largest_size=0 largest_time=''
for f in "$DATA"/*.xplane.pb; do
  name=$(basename "$f" .xplane.pb)
  # summary.sql's body (its lib files, without the clean-up that drops
  # temp.xq_summary) prints C's pretty document; the compact one is kept
  (cd "$SRC" && "$SQLITE3" -batch -bail -cmd ".load $EXT" -cmd ".parameter set @profile $f" "$tmp/$name.db" \
    '.read queries/lib/checks.sql' '.read queries/lib/params.sql' '.read queries/lib/input.sql' \
    '.read queries/lib/use_profile.sql' '.read queries/lib/summary_json.sql' \
    'SELECT xplane_json_pretty(doc) FROM xq_summary' 'CREATE TABLE doc AS SELECT doc FROM temp.xq_summary') > "$tmp/$name.c.json" \
    || fail "$name: queries/summary.sql failed"
  printf "ATTACH '%s' AS d;\nINCLUDE PERFETTO MODULE xplane.format;\nSELECT xplane_json_pretty(doc) FROM d.doc;\n" \
    "$tmp/$name.db" > "$tmp/pretty.sql"
  PERFETTO_SHIM_TIMING=1 shim "$tmp/pretty.sql" > "$tmp/$name.pkg.json" 2> "$tmp/pretty_times" \
    || fail "$name: the module failed: $(tail -3 "$tmp/pretty_times")"
  cmp -s "$tmp/$name.c.json" "$tmp/$name.pkg.json" \
    || fail "$name: the module's document differs from queries/summary.sql: $(diff "$tmp/$name.c.json" "$tmp/$name.pkg.json" | head -5)"
  size=$(wc -c < "$tmp/$name.c.json")
  t=$(grep 'SELECT xplane_json_pretty' "$tmp/pretty_times" | awk '{print $1}')
  echo "  $name: summary document of $size bytes, identical (module: $t s)"
  if [ "$size" -gt "$largest_size" ]; then largest=$name largest_size=$size largest_time=$t; fi
done
echo "summary documents: identical for every profile; the largest ($largest, $largest_size bytes) took $largest_time s"
echo "PASS"
