-- xplane.format: the text formatting of the canned reports as PerfettoSQL
-- functions in plain SQL, with the names and results of the extension's C
-- functions (sqlite_ext/functions_format.c), so a report prints the same
-- bytes on both engines.
--
--   INCLUDE PERFETTO MODULE xplane.format;
--   SELECT xplane_repr(1e-05);                   -- '1e-05' (Python's json.dumps)
--   SELECT xplane_format(0.125, '.2f');          -- '0.12' (half to even, exact)
--   SELECT xplane_json_pretty('{"b":1,"a":[]}');  -- json.dumps(indent=2, sort_keys=True)
--
-- How: a finite double x is M * 2^E exactly (M < 2^53), found by scaling by
-- powers of two, which is exact. Its exact decimal expansion, the integer
-- M * 2^E * 10^max(0, -E), is computed by long multiplication in base 10^9
-- limbs (a recursive CTE) from a table of 2^(62q) and 5^(27q). Every rounding
-- is then done on decimal digit strings, half to even on the exact value, as
-- glibc's printf does; xplane_repr tries 1 to 17 significant digits as the C
-- code does and keeps the first that reads back as x (strictly inside x's
-- rounding interval, or on an end when M is even: strtod's tie to even).
-- No floating-point formatting or parsing of SQLite is used: it differs
-- between SQLite versions and is not exact.
--
-- `LIMIT -1 OFFSET 0` on a subquery keeps SQLite from flattening it, which
-- would call an expensive function again at each use of its column (a
-- MATERIALIZED CTE would also do, but costs a temporary table per call).
--
-- Where the module differs from the C functions:
-- - -0.0 prints as 0.0 ('0.00', '0', ...): plain SQL cannot see the sign of
--   a zero (division by zero is NULL, printf drops the sign);
-- - the argument x is a DOUBLE: trace processor (and the test shim, which
--   checks types as it does) refuses an integer or a text there, where the
--   C functions print an integer as its digits ('5'); pass doubles (every
--   call of the canned queries does: tests/test_engines.sh);
-- - xplane_format: a precision of more than 9 digits ('.9999999999f') is
--   undefined behaviour in C (int overflow); here it is capped at 40 like
--   any precision over 40; the error for an unsupported spec is SQLite's
--   JSON path error holding C's message;
-- - xplane_json_pretty reads the JSON with json_tree, so a number token is
--   printed from its value (doubles with xplane_repr, integers as digits),
--   not copied: both agree on every token written by json(xplane_repr(x))
--   or by SQLite for an integer (all the numbers of the canned reports),
--   provided SQLite's JSON parser reads such a token to the nearest double
--   (true of the sqlite3 3.40 of the tests); other spellings ('1E5', '1.50',
--   '-0', '-0.0', integers beyond int64) come out normalized. The input must
--   be JSON that json_tree accepts: the C printer copies any other bare
--   token (NaN, 0x1F) verbatim, and fails on JSON5 that a newer SQLite
--   reads; a string holding U+0000 is cut there by SQLite; bytes that are
--   not UTF-8 are not replaced by U+FFFD as in C; nesting deeper than C's
--   limit of 500 levels is accepted.

-- The decimal integer t times a times b1, b2 and b3, exactly, as three
-- decimal integers joined by ','. Long multiplication in one pass over t's
-- limbs (9 digits, from the right): limb i of t * a, and one limb later
-- limb i-1 of (t * a) * b for each b. The sums stay below 2^63: limbs are
-- < 10^9, a and each b < 8 * 10^18, split as hi * 10^9 + lo (so each sum
-- is < 10^18 + 8 * 10^18 + its carry < 9 * 10^9).
CREATE PERFETTO FUNCTION _xplane_mul(
  -- Decimal digits.
  t STRING,
  -- A multiplier, 0 .. 8 * 10^18.
  a LONG,
  -- First multiplier of t * a, 0 .. 8 * 10^18.
  b1 LONG,
  -- Second multiplier of t * a, 0 .. 8 * 10^18.
  b2 LONG,
  -- Third multiplier of t * a, 0 .. 8 * 10^18.
  b3 LONG
)
RETURNS STRING AS
WITH RECURSIVE
  -- Row i: l = limb i of t, lp = limb i-1, u = the sum making limb i-1 of
  -- t * a (its carry is u / 10^9), gp = limb i-2 of t * a, w1..w3 = the
  -- sums making limb i-2 of t * a * b (carries w / 10^9).
  w(i, l, lp, u, gp, w1, w2, w3) AS (
    SELECT 0, CAST(substr($t, -9, 9) AS INT), 0, 0, 0, 0, 0, 0
    UNION ALL
    SELECT
      i + 1,
      CAST(substr($t, -9 * i - 18, 9) AS INT),
      l,
      l * ($a % 1000000000) + lp * ($a / 1000000000) + u / 1000000000,
      u % 1000000000,
      (u % 1000000000) * ($b1 % 1000000000) + gp * ($b1 / 1000000000) + w1 / 1000000000,
      (u % 1000000000) * ($b2 % 1000000000) + gp * ($b2 / 1000000000) + w2 / 1000000000,
      (u % 1000000000) * ($b3 % 1000000000) + gp * ($b3 / 1000000000) + w3 / 1000000000
    FROM w
    WHERE 9 * i < length($t) + 9 OR u > 0 OR gp > 0 OR w1 > 0 OR w2 > 0 OR w3 > 0
  )
SELECT
  coalesce(nullif(ltrim(group_concat(substr(w1 % 1000000000 + 1000000000, 2), ''), '0'), ''), '0') || ','
  || coalesce(nullif(ltrim(group_concat(substr(w2 % 1000000000 + 1000000000, 2), ''), '0'), ''), '0') || ','
  || coalesce(nullif(ltrim(group_concat(substr(w3 % 1000000000 + 1000000000, 2), ''), '0'), ''), '0')
FROM (SELECT w1, w2, w3 FROM w WHERE i >= 2 ORDER BY i DESC);

-- The exact decimal digits of 2^(62q) (q = 0..15) and of 5^(27q) (q =
-- 1..40), each the previous times 2^62 or 5^27.
CREATE PERFETTO TABLE _xplane_pow(
  -- The power of two: 62q, or -27q.
  e LONG,
  -- 2^e if e >= 0, else 5^-e, in decimal.
  digits STRING
) AS
WITH RECURSIVE g(step, k, digits) AS (
  SELECT -27, 0, '1'
  UNION ALL
  SELECT 62, 0, '1'
  UNION ALL
  SELECT step, k + 1,
    replace(_xplane_mul(digits, CASE step WHEN -27 THEN 7450580596923828125 ELSE 4611686018427387904 END, 1, 0, 0) || '#',
            ',0,0#', '')
  FROM g
  WHERE k < CASE step WHEN -27 THEN 40 ELSE 15 END
)
SELECT step * k AS e, digits
FROM g
WHERE step > 0 OR k > 0
ORDER BY e;

-- b1, b2, b3 times 2^e * 10^max(0, -e), exactly, by _xplane_mul: 2^e is a
-- row of _xplane_pow times 2^r (r < 62) or 5^r (r < 27).
CREATE PERFETTO FUNCTION _xplane_mul3(
  -- The power of two, -1076 .. 991.
  e LONG,
  -- First multiplier, 0 .. 2^62.
  b1 LONG,
  -- Second multiplier, 0 .. 2^62.
  b2 LONG,
  -- Third multiplier, 0 .. 2^62.
  b3 LONG
)
RETURNS STRING AS
SELECT _xplane_mul(digits, a, $b1, $b2, $b3)
FROM (
  SELECT
    CASE WHEN $e >= 0 THEN 62 * ($e / 62) ELSE -27 * (-$e / 27) END AS base,
    CASE
      WHEN $e >= 0 THEN 1 << ($e % 62)
      -- 5^r = 10^s / 2^s * 5^(r - s), s = r or r - 13
      ELSE CAST('1' || substr('0000000000000', 1, s) AS INT) / (1 << s) * CASE WHEN r >= 13 THEN 1220703125 ELSE 1 END
    END AS a
  FROM (SELECT r, CASE WHEN r >= 13 THEN r - 13 ELSE r END AS s FROM (SELECT -$e % 27 AS r))
)
JOIN _xplane_pow ON e = base;

-- A finite double ax > 0 as 'E,M' with ax = M * 2^E exactly: M in [2^52,
-- 2^53) and E >= -1074, or E = -1074 and M < 2^52 (a subnormal). Found by
-- scaling ax by 2^512, 2^512, 2^256, ..., 2^1 (up or down, each at most
-- once) into [2^52, 2^53): scaling by a power of two is exact here.
CREATE PERFETTO FUNCTION _xplane_split(
  -- A finite double > 0.
  ax DOUBLE
)
RETURNS STRING AS
WITH RECURSIVE s(j, y, k, sh, p, p64) AS (
  SELECT 0, $ax, 0, 512, p64 * p64 * p64 * p64 * p64 * p64 * p64 * p64, p64
  FROM (SELECT CAST(4294967296 AS REAL) * 4294967296 AS p64)
  UNION ALL
  SELECT
    j + 1,
    CASE
      WHEN y >= 9007199254740992 AND y / p >= 4503599627370496 THEN y / p
      WHEN y < 4503599627370496 AND y * p < 9007199254740992 THEN y * p
      ELSE y
    END,
    CASE
      WHEN y >= 9007199254740992 AND y / p >= 4503599627370496 THEN k - sh
      WHEN y < 4503599627370496 AND y * p < 9007199254740992 THEN k + sh
      ELSE k
    END,
    CASE WHEN j = 0 THEN 512 ELSE sh / 2 END,
    CASE
      WHEN j = 0 THEN p
      WHEN sh = 512 THEN p64 * p64 * p64 * p64
      WHEN sh = 256 THEN p64 * p64
      WHEN sh = 128 THEN p64
      ELSE CAST(1 << (sh / 2) AS REAL)
    END,
    p64
  FROM s
  WHERE j <= 10
)
SELECT
  CASE
    WHEN k > 1074 THEN '-1074,' || CAST(y / (1 << (k - 1074)) AS INT)
    ELSE -k || ',' || CAST(y AS INT)
  END
FROM s
WHERE j = 11;

-- A finite double ax >= 0 exactly in decimal, as 'scale,digits': ax =
-- digits * 10^-scale (digits without leading zeros; '0,0' for 0).
CREATE PERFETTO FUNCTION _xplane_decimal(
  -- A finite double >= 0.
  ax DOUBLE
)
RETURNS STRING AS
SELECT coalesce(
  (SELECT max(0, -e) || ',' || substr(v, 1, instr(v, ',') - 1)
   FROM (
     SELECT e, _xplane_mul3(e, CAST(substr(em, instr(em, ',') + 1) AS INT), 0, 0) AS v
     FROM (SELECT em, CAST(substr(em, 1, instr(em, ',') - 1) AS INT) AS e
           FROM (SELECT _xplane_split($ax) AS em WHERE $ax > 0 LIMIT -1 OFFSET 0))
     LIMIT -1 OFFSET 0
   )),
  '0,0');

-- The decimal digits s rounded half to even to n leading digits: the
-- integer round(s / 10^(length(s) - n)) in decimal ('0' when it is 0).
-- One digit longer than n when the rounding carries out (999 -> 1000);
-- zeros appended when n > length(s).
CREATE PERFETTO FUNCTION _xplane_round(
  -- Decimal digits, no leading zeros (or '0').
  s STRING,
  -- The number of leading digits kept (may be <= 0 or > length(s)).
  n LONG
)
RETURNS STRING AS
SELECT
  CASE
    WHEN $n >= length($s) THEN $s || substr(hex(zeroblob($n - length($s))), 1, $n - length($s))
    WHEN $n < 0 THEN '0'
    WHEN NOT (d > '5' OR (d = '5' AND (rtrim(substr($s, $n + 2), '0') <> '' OR substr(kept, -1) IN ('1', '3', '5', '7', '9'))))
    THEN coalesce(nullif(kept, ''), '0')
    WHEN t = '' THEN '1' || substr(hex(zeroblob($n)), 1, $n)
    ELSE substr(t, 1, length(t) - 1) || (substr(t, -1) + 1) || substr(hex(zeroblob($n - length(t))), 1, $n - length(t))
  END
FROM (SELECT kept, rtrim(kept, '9') AS t, substr($s, $n + 1, 1) AS d FROM (SELECT substr($s, 1, $n) AS kept));

-- Is x +-infinity? (x * 2 = x holds only for 0 and the infinities; no
-- literal for DBL_MAX: SQLite need not parse one exactly.)
CREATE PERFETTO FUNCTION _xplane_is_inf(
  -- A double.
  x DOUBLE
)
RETURNS BOOL AS
SELECT $x <> 0 AND $x * 2 = $x;

-- The exponent as C's %e writes it: 'e', the sign, at least two digits.
CREATE PERFETTO FUNCTION _xplane_exponent(
  -- The decimal exponent.
  x LONG
)
RETURNS STRING AS
SELECT 'e' || CASE WHEN $x < 0 THEN '-' ELSE '+' END || CASE WHEN abs($x) < 10 THEN '0' ELSE '' END || abs($x);

-- printf("%.*f", prec, x) as glibc prints it: exact, half to even.
CREATE PERFETTO FUNCTION _xplane_fixed(
  -- A double.
  x DOUBLE,
  -- Digits after the point, 0 .. 40.
  prec LONG
)
RETURNS STRING AS
SELECT
  CASE WHEN $x < 0 THEN '-' ELSE '' END
  || CASE
    WHEN _xplane_is_inf($x) THEN 'inf'
    ELSE CASE WHEN length(r) > $prec THEN substr(r, 1, length(r) - $prec) ELSE '0' END
      || CASE WHEN $prec > 0 THEN '.' || substr(substr(hex(zeroblob($prec)), 1, $prec) || r, -$prec) ELSE '' END
  END
FROM (
  SELECT coalesce(
    (SELECT _xplane_round(substr(d, instr(d, ',') + 1),
                          length(d) - instr(d, ',') - CAST(substr(d, 1, instr(d, ',') - 1) AS INT) + $prec)
     -- |x| < 1e-50 rounds to 0 at any precision up to 40, and without a tie
     FROM (SELECT _xplane_decimal(abs($x)) AS d WHERE NOT _xplane_is_inf($x) AND abs($x) >= 1e-50 LIMIT -1 OFFSET 0)),
    '0') AS r
  LIMIT -1 OFFSET 0
);

-- The digits of a finite x rounded to n significant digits, with the
-- decimal exponent of the first: 'exponent,digits' (exactly n digits).
CREATE PERFETTO FUNCTION _xplane_significant(
  -- A finite double.
  x DOUBLE,
  -- Significant digits, >= 1.
  n LONG
)
RETURNS STRING AS
SELECT (len - scale - 1 + length(r) - $n) || ',' || substr(r, 1, $n)
FROM (
  SELECT length(d) - instr(d, ',') AS len, CAST(substr(d, 1, instr(d, ',') - 1) AS INT) AS scale,
    _xplane_round(substr(d, instr(d, ',') + 1), $n) AS r
  FROM (SELECT _xplane_decimal(abs($x)) AS d LIMIT -1 OFFSET 0)
  LIMIT -1 OFFSET 0
);

-- printf("%.*e", prec, x) as glibc prints it: exact, half to even.
CREATE PERFETTO FUNCTION _xplane_sci(
  -- A double.
  x DOUBLE,
  -- Digits after the point, 0 .. 40.
  prec LONG
)
RETURNS STRING AS
SELECT
  CASE WHEN $x < 0 THEN '-' ELSE '' END
  || CASE
    WHEN _xplane_is_inf($x) THEN 'inf'
    ELSE substr(m, 1, 1) || CASE WHEN $prec > 0 THEN '.' || substr(m, 2) ELSE '' END || _xplane_exponent(ex)
  END
FROM (
  SELECT CAST(substr(v, 1, instr(v, ',') - 1) AS INT) AS ex, substr(v, instr(v, ',') + 1) AS m
  FROM (
    SELECT CASE WHEN _xplane_is_inf($x) THEN '0,' ELSE _xplane_significant($x, $prec + 1) END AS v
    LIMIT -1 OFFSET 0
  )
);

-- printf("%.*g", prec, x) as glibc prints it: prec significant digits (0
-- means 1); %e style when the exponent X is < -4 or >= prec, else %f style
-- with prec - 1 - X decimals; trailing zeros and a trailing point dropped.
CREATE PERFETTO FUNCTION _xplane_general(
  -- A double.
  x DOUBLE,
  -- Significant digits, 0 .. 40.
  prec LONG
)
RETURNS STRING AS
SELECT
  CASE WHEN $x < 0 THEN '-' ELSE '' END
  || CASE
    WHEN _xplane_is_inf($x) THEN 'inf'
    WHEN ex < -4 OR ex >= max($prec, 1)
    THEN substr(m, 1, 1) || CASE WHEN rtrim(substr(m, 2), '0') <> '' THEN '.' || rtrim(substr(m, 2), '0') ELSE '' END
      || _xplane_exponent(ex)
    ELSE CASE WHEN ex >= 0 THEN substr(m, 1, ex + 1) ELSE '0' END
      || CASE WHEN frac <> '' THEN '.' || frac ELSE '' END
  END
FROM (
  SELECT ex, m,
    rtrim(CASE WHEN ex >= 0 THEN substr(m, ex + 2) ELSE substr(hex(zeroblob(-ex - 1)), 1, -ex - 1) || m END, '0') AS frac
  FROM (
    SELECT CAST(substr(v, 1, instr(v, ',') - 1) AS INT) AS ex, substr(v, instr(v, ',') + 1) AS m
    FROM (
      SELECT CASE WHEN _xplane_is_inf($x) THEN '0,' ELSE _xplane_significant($x, max($prec, 1)) END AS v
      LIMIT -1 OFFSET 0
    )
  )
);

-- A stat's double as the extension writes it into a stats JSON object
-- (core/util.c xp_buf_append_g17): glibc's %.17g, with '.0' put before the
-- exponent (or at the end) when it has no decimal point. Exact on every
-- SQLite: printf('%!.17g') prints 17 digits on SQLite 3.40 but the shortest
-- round-trip digits on 3.52 and later (0.1 there, 0.10000000000000001 here).
CREATE PERFETTO FUNCTION _xplane_g17(
  -- A finite double.
  x DOUBLE
)
RETURNS STRING AS
SELECT CASE
  WHEN instr(g, '.') > 0 OR g GLOB '*inf*' THEN g
  WHEN instr(g, 'e') > 0 THEN substr(g, 1, instr(g, 'e') - 1) || '.0' || substr(g, instr(g, 'e'))
  ELSE g || '.0'
END
FROM (SELECT _xplane_general($x, 17) AS g LIMIT -1 OFFSET 0);

-- printf("%.0f", trunc(x)) as glibc prints it ('-0' for -1 < x < 0).
CREATE PERFETTO FUNCTION _xplane_trunc(
  -- A double.
  x DOUBLE
)
RETURNS STRING AS
SELECT
  CASE WHEN $x < 0 THEN '-' ELSE '' END
  || CASE
    WHEN _xplane_is_inf($x) THEN 'inf'
    WHEN abs($x) < 1 THEN '0'
    ELSE (SELECT substr(d, instr(d, ',') + 1, length(d) - instr(d, ',') - CAST(substr(d, 1, instr(d, ',') - 1) AS INT))
          FROM (SELECT _xplane_decimal(abs($x)) AS d LIMIT -1 OFFSET 0))
  END;

-- The integer digit run of a formatted number (after an optional '-')
-- with ',' every three digits.
CREATE PERFETTO FUNCTION _xplane_group(
  -- A formatted number ('-1234.5', 'inf').
  s STRING
)
RETURNS STRING AS
WITH RECURSIVE g(head, tail) AS (
  SELECT
    substr(b, 1, length(b) - length(ltrim(b, '0123456789'))),
    ltrim(b, '0123456789')
  FROM (SELECT CASE WHEN substr($s, 1, 1) = '-' THEN substr($s, 2) ELSE $s END AS b)
  UNION ALL
  SELECT substr(head, 1, length(head) - 3), ',' || substr(head, -3) || tail FROM g WHERE length(head) > 3
)
SELECT CASE WHEN substr($s, 1, 1) = '-' THEN '-' ELSE '' END || head || tail FROM g WHERE length(head) <= 3;

-- Is the decimal integer d inside (lo, hi), or on an end when inclusive?
-- (Digit strings without leading zeros, compared as numbers.)
CREATE PERFETTO FUNCTION _xplane_inside(
  -- The candidate.
  d STRING,
  -- Lower end.
  lo STRING,
  -- Upper end.
  hi STRING,
  -- Are the ends inside?
  inclusive BOOL
)
RETURNS BOOL AS
SELECT
  (length($d) > length($lo) OR (length($d) = length($lo) AND ($d > $lo OR ($inclusive AND $d = $lo))))
  AND (length($d) < length($hi) OR (length($d) = length($hi) AND ($d < $hi OR ($inclusive AND $d = $hi))));

-- One candidate of xplane_repr: mid rounded to p digits, prefixed with '+'
-- when it reads back as x (mid padded back with zeros lies inside (lo,
-- hi), or on an end when even), else with '-'.
CREATE PERFETTO FUNCTION _xplane_candidate(
  -- x in units of 2^(E-2) * 10^-scale (decimal digits).
  mid STRING,
  -- The lower end of x's rounding interval, same units.
  lo STRING,
  -- The upper end, same units.
  hi STRING,
  -- Is x's significand even (the ends read back as x)?
  even BOOL,
  -- Significant digits, 1 .. 17.
  p LONG
)
RETURNS STRING AS
SELECT
  CASE
    WHEN _xplane_inside(r || substr(hex(zeroblob(length($mid) - $p)), 1, length($mid) - $p), $lo, $hi, $even) THEN '+'
    ELSE '-'
  END || r
FROM (SELECT _xplane_round($mid, $p) AS r LIMIT -1 OFFSET 0);

-- Significant digits d (no leading or trailing 0) with the decimal point
-- after the first decpt of them, in Python's repr layout: fixed for
-- -4 < decpt <= 16 ('0.0001', '123.0', '1.5'), else one digit, a fraction
-- and the exponent ('1e-05', '1.5e+300').
CREATE PERFETTO FUNCTION _xplane_repr_layout(
  -- The digits.
  d STRING,
  -- Where the decimal point goes.
  decpt LONG
)
RETURNS STRING AS
SELECT
  CASE
    WHEN $decpt > -4 AND $decpt <= 16 THEN
      CASE
        WHEN $decpt <= 0 THEN '0.' || substr(hex(zeroblob(-$decpt)), 1, -$decpt) || $d
        WHEN $decpt < length($d) THEN substr($d, 1, $decpt) || '.' || substr($d, $decpt + 1)
        ELSE $d || substr(hex(zeroblob($decpt - length($d))), 1, $decpt - length($d)) || '.0'
      END
    ELSE substr($d, 1, 1) || CASE WHEN length($d) > 1 THEN '.' || substr($d, 2) ELSE '' END
         || _xplane_exponent($decpt - 1)
  END;

-- Python's repr of a finite double ax > 0 that is the double nearest a
-- decimal of at most 15 significant digits, else NULL (_xplane_repr_real
-- then): printf's 15 digits written as N / 10^k (N < 10^15, k <= 18), taken
-- when N / 10^k in double arithmetic is ax. That test is exact: N and 10^k
-- are doubles exactly and IEEE division rounds correctly, so ax is the
-- double nearest N / 10^k; and no other decimal of at most 15 digits has
-- that nearest double (15 digits read back through a double unchanged), so
-- N / 10^k, its trailing zeros dropped, is the shortest that reads back:
-- Python's digits. The summaries' microseconds (ps / 10^6) are such
-- doubles: 217 of the 292 floats of the TPU profile's summary, whose
-- printing took 107 M instructions through _xplane_repr_real's exact
-- decimal arithmetic alone, 41 M with this first.
CREATE PERFETTO FUNCTION _xplane_repr_short(
  -- A finite double > 0.
  ax DOUBLE
)
RETURNS STRING AS
SELECT
  CASE
    WHEN CAST(n AS REAL) / CAST(substr('1000000000000000000', 1, k + 1) AS INT) = $ax
    THEN _xplane_repr_layout(rtrim(CAST(n AS TEXT), '0'), length(CAST(n AS TEXT)) - k)
  END
FROM (
  SELECT CAST(replace(t, '.', '') AS INT) AS n, CASE WHEN instr(t, '.') > 0 THEN length(t) - instr(t, '.') ELSE 0 END AS k
  FROM (SELECT printf('%.15g', $ax) AS t)
  WHERE instr(t, 'e') = 0 AND instr(t, 'n') = 0 AND instr(t, 'I') = 0
);

-- Python's repr of a finite double ax > 0 by C's algorithm: the first of
-- p = 1 .. 17 significant digits (correctly rounded) that reads back as x,
-- in Python's layout ('0.0001', '123.0', '1e-05', '1.5e+300'). lo, mid, hi:
-- the ends of x's rounding interval and x, (4M - 2 or 4M - 1 at a power of
-- two, 4M, 4M + 2) times 2^(E-2), in decimal. No p below p0 can read back:
-- mid's digits p+1 .. len(4M) - 2, above the interval's scale, would have
-- to be all 0 or all 9.
CREATE PERFETTO FUNCTION _xplane_repr_real(
  -- A finite double > 0.
  ax DOUBLE
)
RETURNS STRING AS
WITH RECURSIVE
  c(p, t, lo, mid, hi, even, scale) AS (
    SELECT p0, _xplane_candidate(mid, lo, hi, even, p0), lo, mid, hi, even, scale
    FROM (
      SELECT lo, mid, hi, even, scale,
        max(1, min(length(rtrim(substr(mid, 1, length(4 * m) - 2), '0')), length(rtrim(substr(mid, 1, length(4 * m) - 2), '9'))))
        AS p0
      FROM (
        SELECT m, m % 2 = 0 AS even, max(0, 2 - e) AS scale,
          substr(v, 1, instr(v, ',') - 1) AS lo,
          substr(v, instr(v, ',') + 1, instr(substr(v, instr(v, ',') + 1), ',') - 1) AS mid,
          substr(substr(v, instr(v, ',') + 1), instr(substr(v, instr(v, ',') + 1), ',') + 1) AS hi
        FROM (
          SELECT e, m,
            _xplane_mul3(e - 2, 4 * m - CASE WHEN m = 4503599627370496 AND e > -1074 THEN 1 ELSE 2 END, 4 * m, 4 * m + 2)
            AS v
          FROM (
            SELECT CAST(substr(em, 1, instr(em, ',') - 1) AS INT) AS e, CAST(substr(em, instr(em, ',') + 1) AS INT) AS m
            FROM (SELECT _xplane_split($ax) AS em LIMIT -1 OFFSET 0)
          )
          LIMIT -1 OFFSET 0
        )
      )
    )
    UNION ALL
    SELECT p + 1, _xplane_candidate(mid, lo, hi, even, p + 1), lo, mid, hi, even, scale
    FROM c
    WHERE substr(t, 1, 1) = '-' AND p < 17
  )
SELECT _xplane_repr_layout(d, decpt)
FROM (
  -- the candidate that read back, or p = 17 (exactly one row)
  SELECT rtrim(substr(t, 2), '0') AS d, length(mid) - scale + length(t) - 1 - p AS decpt
  FROM c
  WHERE substr(t, 1, 1) = '+' OR p = 17
);

-- A number as Python's json.dumps writes it: an integer as its digits, a
-- double as its shortest repr ('60.0', '1e-05', '0.1', '1e+16',
-- 'Infinity'); NULL stays NULL. Text and blobs are read as doubles, as the
-- C function reads them.
CREATE PERFETTO FUNCTION xplane_repr(
  -- A number.
  x DOUBLE
)
RETURNS STRING AS
SELECT
  CASE
    WHEN $x IS NULL THEN NULL
    WHEN typeof($x) = 'integer' THEN CAST($x AS TEXT)
    WHEN CAST($x AS REAL) = 0 THEN '0.0'
    WHEN _xplane_is_inf(CAST($x AS REAL)) THEN CASE WHEN CAST($x AS REAL) < 0 THEN '-Infinity' ELSE 'Infinity' END
    ELSE CASE WHEN CAST($x AS REAL) < 0 THEN '-' ELSE '' END
         || coalesce(_xplane_repr_short(abs(CAST($x AS REAL))), _xplane_repr_real(abs(CAST($x AS REAL))))
  END;

-- A Python format spec of the subset the C function takes, parsed:
-- [,][.digits][type] with type f, e, %, g or d (default: g after a
-- precision, else d) and nothing after it, as ',' or '' then the type then
-- the precision (6 by default, at most 40): '.3f' -> 'f3', ',' -> ',d6'.
-- NULL for any other spec.
CREATE PERFETTO FUNCTION _xplane_spec(
  -- A format spec (NULL is '').
  spec STRING
)
RETURNS STRING AS
SELECT
  CASE
    WHEN r = '' THEN g || 'd6'
    WHEN length(r) = 1 THEN CASE WHEN r IN ('f', 'e', '%', 'g', 'd') THEN g || r || '6' END
    WHEN substr(r, 1, 1) <> '.' THEN NULL
    WHEN NOT substr(r, 2) GLOB '*[^0-9]*' THEN g || 'g' || min(CAST(substr(r, 2) AS INT), 40)
    WHEN NOT substr(r, 2, length(r) - 2) GLOB '*[^0-9]*' AND substr(r, -1) IN ('f', 'e', '%', 'g', 'd')
    THEN g || substr(r, -1) || min(CAST(substr(r, 2, length(r) - 2) AS INT), 40)
  END
FROM (
  SELECT
    CASE WHEN substr(s, 1, 1) = ',' THEN ',' ELSE '' END AS g,
    CASE WHEN substr(s, 1, 1) = ',' THEN substr(s, 2) ELSE s END AS r
  FROM (SELECT coalesce(CAST($spec AS TEXT), '') AS s)
);

-- A number printed as C's printf does for a spec type and precision:
-- 'd' an integer's digits, a double truncated; 'f', '%' (x * 100, then '%'),
-- 'e', 'g' exact, half to even.
CREATE PERFETTO FUNCTION _xplane_body(
  -- A number (not NULL).
  x DOUBLE,
  -- f, e, %, g or d.
  type STRING,
  -- The precision, 0 .. 40.
  prec LONG
)
RETURNS STRING AS
SELECT
  CASE $type
    WHEN 'd' THEN CASE WHEN typeof($x) = 'integer' THEN CAST($x AS TEXT) ELSE _xplane_trunc(CAST($x AS REAL)) END
    WHEN 'f' THEN _xplane_fixed(CAST($x AS REAL), $prec)
    WHEN '%' THEN _xplane_fixed(CAST($x AS REAL) * 100.0, $prec) || '%'
    WHEN 'e' THEN _xplane_sci(CAST($x AS REAL), $prec)
    ELSE _xplane_general(CAST($x AS REAL), $prec)
  END;

-- A number formatted with a Python format spec, the subset of the C
-- function: [,][.precision][type], type f, e, %, g or d (default: g with a
-- precision, else d); ',' groups the integer digits by three; precision
-- defaults to 6 and is capped at 40. 'd' prints an integer's digits and a
-- double truncated toward zero. Rounding is exact, half to even (glibc).
-- NULL stays NULL; any other spec is an error ('unsupported format spec').
CREATE PERFETTO FUNCTION xplane_format(
  -- A number.
  x DOUBLE,
  -- The format spec ('.3f', ',', ',.1f', '.2%', '.3e').
  spec STRING
)
RETURNS STRING AS
SELECT
  CASE
    WHEN $x IS NULL THEN NULL
    -- a failing JSON path raises the error, with the message in it
    WHEN p IS NULL THEN json_extract('{}', 'xplane_format: unsupported format spec ''' || coalesce($spec, '') || '''')
    WHEN substr(p, 1, 1) = ',' THEN _xplane_group(_xplane_body($x, substr(p, 2, 1), CAST(substr(p, 3) AS INT)))
    ELSE _xplane_body($x, substr(p, 1, 1), CAST(substr(p, 2) AS INT))
  END
FROM (SELECT _xplane_spec($spec) AS p);

-- One character of a JSON string as Python's json.dumps (ensure_ascii)
-- writes it: \n \r \t \b \f, other control characters and DEL as \u00XX,
-- printable ASCII as is, any other code point as \uXXXX (a surrogate pair
-- above U+FFFF), lower-case hex. ('"' and '\' are escaped by the caller.)
-- The code point is decoded from the UTF-8 bytes, as the C code does:
-- SQLite's unicode() gives U+FFFD for U+FFFE, U+FFFF and surrogates.
CREATE PERFETTO FUNCTION _xplane_json_char(
  -- One character.
  c STRING
)
RETURNS STRING AS
SELECT
  CASE
    WHEN u = 8 THEN '\b'
    WHEN u = 9 THEN '\t'
    WHEN u = 10 THEN '\n'
    WHEN u = 12 THEN '\f'
    WHEN u = 13 THEN '\r'
    WHEN u >= 32 AND u < 127 THEN $c
    WHEN u < 65536 THEN printf('\u%04x', u)
    ELSE printf('\u%04x\u%04x', 55296 + ((u - 65536) >> 10), 56320 + ((u - 65536) & 1023))
  END
FROM (
  SELECT
    CASE length(h)
      WHEN 2 THEN b0
      WHEN 4 THEN ((b0 & 31) << 6) | (b1 & 63)
      WHEN 6 THEN ((b0 & 15) << 12) | ((b1 & 63) << 6) | (b2 & 63)
      ELSE ((b0 & 7) << 18) | ((b1 & 63) << 12) | ((b2 & 63) << 6) | (b3 & 63)
    END AS u
  FROM (
    SELECT h,
      (instr('0123456789ABCDEF', substr(h, 1, 1)) - 1) * 16 + instr('0123456789ABCDEF', substr(h, 2, 1)) - 1 AS b0,
      (instr('0123456789ABCDEF', substr(h, 3, 1)) - 1) * 16 + instr('0123456789ABCDEF', substr(h, 4, 1)) - 1 AS b1,
      (instr('0123456789ABCDEF', substr(h, 5, 1)) - 1) * 16 + instr('0123456789ABCDEF', substr(h, 6, 1)) - 1 AS b2,
      (instr('0123456789ABCDEF', substr(h, 7, 1)) - 1) * 16 + instr('0123456789ABCDEF', substr(h, 8, 1)) - 1 AS b3
    FROM (SELECT hex($c) AS h)
  )
);

-- A text with every character through _xplane_json_char.
CREATE PERFETTO FUNCTION _xplane_json_chars(
  -- A text.
  x STRING
)
RETURNS STRING AS
WITH RECURSIVE ch(i, piece) AS (
  SELECT 0, ''
  UNION ALL
  SELECT i + 1, _xplane_json_char(substr($x, i + 1, 1)) FROM ch WHERE i < length($x)
)
SELECT group_concat(piece, '') FROM (SELECT piece FROM ch ORDER BY i);

-- A JSON string literal as Python's json.dumps writes it (ensure_ascii):
-- '"' and '\' escaped, then a text with characters outside printable ASCII
-- through _xplane_json_chars.
CREATE PERFETTO FUNCTION _xplane_json_quote(
  -- A text.
  s STRING
)
RETURNS STRING AS
SELECT '"' || CASE WHEN x GLOB '*[^ -~]*' THEN _xplane_json_chars(x) ELSE x END || '"'
FROM (SELECT replace(replace($s, '\', '\\'), '"', '\"') AS x);

-- A JSON text as Python's json.dumps(obj, indent=2, sort_keys=True) writes
-- it: keys sorted by code point at every level (duplicates kept in order),
-- 2-space indent, ',' at line ends, ': ' after keys, '{}' and '[]' for
-- empty containers, strings by _xplane_json_quote, numbers as the module
-- header says. NULL stays NULL; text that is not JSON is an error.
CREATE PERFETTO FUNCTION xplane_json_pretty(
  -- A JSON text.
  json STRING
)
RETURNS STRING AS
WITH RECURSIVE
  n AS MATERIALIZED (SELECT id, parent, key, type, atom FROM json_tree($json)),
  kids AS MATERIALIZED (SELECT parent AS id, count(*) AS k FROM n WHERE parent IS NOT NULL GROUP BY parent),
  -- sk orders the lines: a member adds its key as hex UTF-8 bytes, '.'
  -- (below any hex digit: a key sorts before its extensions) and its node
  -- id; an element adds its index, zero-padded; a closing bracket is its
  -- container's sk || '~', after the container's other lines.
  s(id, parent, type, atom, sk, depth, line_key) AS (
    SELECT id, parent, type, atom, '', 0, '' FROM n WHERE parent IS NULL
    UNION ALL
    SELECT
      n.id, n.parent, n.type, n.atom,
      s.sk || CASE WHEN s.type = 'object' THEN hex(n.key) || '.' || printf('%010d', n.id) ELSE printf('%010d', n.key) END,
      s.depth + 1,
      CASE WHEN s.type = 'object' THEN _xplane_json_quote(n.key) || ': ' ELSE '' END
    FROM s JOIN n ON n.parent = s.id
  ),
  placed AS MATERIALIZED (
    SELECT s.*, coalesce(kids.k, 0) AS k, row_number() OVER (PARTITION BY parent ORDER BY sk DESC) > 1 AS comma
    FROM s LEFT JOIN kids USING (id)
  ),
  lines(sk, line) AS (
    SELECT
      sk,
      printf('%*s', 2 * depth, '') || line_key
      || CASE type
        WHEN 'object' THEN CASE WHEN k > 0 THEN '{' ELSE '{}' END
        WHEN 'array' THEN CASE WHEN k > 0 THEN '[' ELSE '[]' END
        WHEN 'text' THEN _xplane_json_quote(atom)
        WHEN 'integer' THEN CASE WHEN typeof(atom) = 'integer' THEN CAST(atom AS TEXT) ELSE xplane_repr(atom) END
        WHEN 'real' THEN xplane_repr(atom)
        ELSE type
      END
      || CASE WHEN comma AND (k = 0 OR type NOT IN ('object', 'array')) THEN ',' ELSE '' END
    FROM placed
    UNION ALL
    SELECT sk || '~',
      printf('%*s', 2 * depth, '') || CASE type WHEN 'object' THEN '}' ELSE ']' END || CASE WHEN comma THEN ',' ELSE '' END
    FROM placed
    WHERE k > 0 AND type IN ('object', 'array')
  )
SELECT group_concat(line, char(10)) FROM (SELECT line FROM lines ORDER BY sk);
