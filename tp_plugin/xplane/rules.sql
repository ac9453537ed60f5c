-- xplane.rules: the naming and classification rules of the analysis
-- (docs/ANALYSIS.md), as PerfettoSQL functions in plain SQL. They
-- match the extension's C rules (core/semantics.c) byte for byte on
-- ASCII: lower() folds ASCII only, on both engines.
--
--   INCLUDE PERFETTO MODULE xplane.rules;
--   SELECT xplane_canonical_name('%fusion.12');  -- 'fusion'

-- Canonical op name: white space trimmed at both ends, leading '%' stripped,
-- one trailing '.<digits>' dropped ('fusion.12' -> 'fusion').
CREATE PERFETTO FUNCTION xplane_canonical_name(
  -- An op name.
  name STRING
)
RETURNS STRING AS
SELECT
  CASE
    WHEN length(r) < length(x) AND length(r) > 0 AND substr(r, -1) = '.'
    THEN substr(r, 1, length(r) - 1)
    ELSE x
  END
FROM (
  SELECT x, rtrim(x, '0123456789') AS r
  FROM (SELECT ltrim(trim($name, char(32, 9, 10, 13, 12, 11)), '%') AS x)
);

-- Is this a stall name? Case-insensitive search for wait, barrier,
-- dependency-wait, donation holds, semaphore, acquire, idle, blocked, sleep.
CREATE PERFETTO FUNCTION xplane_is_stall(
  -- An event name.
  name STRING
)
RETURNS BOOL AS
SELECT
  instr(l, 'wait') > 0 OR instr(l, 'barrier') > 0 OR instr(l, 'dependency-wait') > 0
  OR instr(l, 'donation holds') > 0 OR instr(l, 'semaphore') > 0 OR instr(l, 'acquire') > 0
  OR instr(l, 'idle') > 0 OR instr(l, 'blocked') > 0 OR instr(l, 'sleep') > 0
FROM (SELECT lower($name) AS l);

-- Is this a communication name? The lower-cased name contains a collective
-- keyword (all-reduce, all_gather, ..., nccl, send, recv).
CREATE PERFETTO FUNCTION xplane_is_communication(
  -- An event name.
  name STRING
)
RETURNS BOOL AS
SELECT
  instr(l, 'all-reduce') > 0 OR instr(l, 'all_gather') > 0 OR instr(l, 'all-gather') > 0
  OR instr(l, 'reduce-scatter') > 0 OR instr(l, 'all-to-all') > 0 OR instr(l, 'alltoall') > 0
  OR instr(l, 'collective') > 0 OR instr(l, 'collective-permute') > 0 OR instr(l, 'permute') > 0
  OR instr(l, 'psum') > 0 OR instr(l, 'send') > 0 OR instr(l, 'recv') > 0 OR instr(l, 'nccl') > 0
  OR instr(l, 'allgather') > 0 OR instr(l, 'allreduce') > 0 OR instr(l, 'reducescatter') > 0
FROM (SELECT lower($name) AS l);

-- Collective kind of a communication name, first match: all-reduce,
-- all-gather, reduce-scatter, all-to-all, collective-permute,
-- async-collective, send-recv, else other-collective.
CREATE PERFETTO FUNCTION xplane_collective_kind(
  -- An op name.
  name STRING
)
RETURNS STRING AS
SELECT
  CASE
    WHEN instr(l, 'all-reduce') > 0 OR instr(l, 'allreduce') > 0 OR instr(l, 'psum') > 0 THEN 'all-reduce'
    WHEN instr(l, 'all-gather') > 0 OR instr(l, 'all_gather') > 0 OR instr(l, 'allgather') > 0 THEN 'all-gather'
    WHEN instr(l, 'reduce-scatter') > 0 OR instr(l, 'reducescatter') > 0 THEN 'reduce-scatter'
    WHEN instr(l, 'all-to-all') > 0 OR instr(l, 'alltoall') > 0 THEN 'all-to-all'
    WHEN instr(l, 'collective-permute') > 0 OR instr(l, 'permute') > 0 THEN 'collective-permute'
    WHEN instr(l, 'async-collective') > 0 THEN 'async-collective'
    WHEN instr(l, 'send') > 0 OR instr(l, 'recv') > 0 THEN 'send-recv'
    ELSE 'other-collective'
  END
FROM (SELECT lower($name) AS l);

-- Event category, first match: stall (name), host (plane `/host:`),
-- communication (name), compute (plane `/device:`), else other.
CREATE PERFETTO FUNCTION xplane_event_category(
  -- The plane (process) name.
  plane STRING,
  -- The event name.
  name STRING
)
RETURNS STRING AS
SELECT
  CASE
    WHEN xplane_is_stall($name) THEN 'stall'
    WHEN $plane GLOB '/host:*' THEN 'host'
    WHEN xplane_is_communication($name) THEN 'communication'
    WHEN $plane GLOB '/device:*' THEN 'compute'
    ELSE 'other'
  END;

-- Op category, first match: stall, communication, else compute.
CREATE PERFETTO FUNCTION xplane_op_category(
  -- An op name.
  name STRING
)
RETURNS STRING AS
SELECT
  CASE
    WHEN xplane_is_stall($name) THEN 'stall'
    WHEN xplane_is_communication($name) THEN 'communication'
    ELSE 'compute'
  END;

-- Is this op a cheap setup op that marks the end of an idle period? Its
-- canonical name (any case) is iota, constant, bitcast, get-tuple-element,
-- parameter, tuple or after-all, or starts with copy-start or copy-done.
CREATE PERFETTO FUNCTION xplane_marker_like(
  -- An op name.
  name STRING
)
RETURNS BOOL AS
SELECT
  c IN ('iota', 'constant', 'bitcast', 'get-tuple-element', 'parameter', 'tuple', 'after-all')
  OR c GLOB 'copy-start*' OR c GLOB 'copy-done*'
FROM (SELECT lower(xplane_canonical_name($name)) AS c);

-- Is a line of a plane a device-op line? The plane name starts with
-- `/device:` and the raw line name is `XLA Ops` or `Async XLA Ops` or starts
-- with `Stream #`.
CREATE PERFETTO FUNCTION xplane_is_device_op_line(
  -- The plane name.
  plane STRING,
  -- The raw XLine name (the slice category).
  line STRING
)
RETURNS BOOL AS
SELECT
  $plane GLOB '/device:*'
  AND ($line IN ('XLA Ops', 'Async XLA Ops') OR $line GLOB 'Stream #*');

-- A uint64 stat value as the extension shows it: trace processor keeps a
-- uint annotation wrapped into int64 (values over 2^63 - 1 turn negative);
-- those come back as their exact decimal text, other values unchanged.
CREATE PERFETTO FUNCTION xplane_uint64(
  -- The int_value of a 'uint' arg.
  value LONG
)
RETURNS STRING AS
SELECT
  CASE
    WHEN $value >= 0 THEN $value
    ELSE (w / 10000000000 + 922337203 + (w % 10000000000 + 6854775808) / 10000000000)
      || printf('%010d', (w % 10000000000 + 6854775808) % 10000000000)
  END
FROM (SELECT $value & 9223372036854775807 AS w);

-- An integer as the step rules read names and text stats: white space
-- (space, tab, CR, LF) trimmed, an optional sign, then digits with single
-- `_` between digits (`1_000`); NULL when that is not the text or the value
-- is beyond int64.
CREATE PERFETTO FUNCTION xplane_parse_int(
  -- A text.
  s STRING
)
RETURNS LONG AS
SELECT
  CASE
    WHEN b GLOB '[0-9]*' AND NOT b GLOB '*[^0-9_]*' AND instr(b, '__') = 0 AND substr(b, -1) != '_'
      AND (length(d) < 19 OR (length(d) = 19 AND d <= '9223372036854775807'))
    THEN CASE WHEN neg THEN -CAST(d AS INT) ELSE CAST(d AS INT) END
  END
FROM (
  SELECT b, neg, ltrim(replace(b, '_', ''), '0') AS d
  FROM (
    SELECT
      CASE WHEN substr(t, 1, 1) IN ('+', '-') THEN substr(t, 2) ELSE t END AS b,
      substr(t, 1, 1) = '-' AS neg
    FROM (SELECT trim($s, char(32, 9, 10, 13)) AS t)
  )
);

-- A stat read as an integer the way the step rules read it: integers as
-- they are (a uint64 wrapped into int64), doubles truncated (NULL beyond
-- +-9.2e18), text by xplane_parse_int.
CREATE PERFETTO FUNCTION xplane_int_like(
  -- The arg's value_type.
  value_type STRING,
  -- Its int_value.
  int_value LONG,
  -- Its string_value.
  string_value STRING,
  -- Its real_value.
  real_value DOUBLE
)
RETURNS LONG AS
SELECT
  CASE $value_type
    WHEN 'int' THEN $int_value
    WHEN 'uint' THEN $int_value
    WHEN 'real' THEN CASE WHEN $real_value > -9.2e18 AND $real_value < 9.2e18 THEN CAST($real_value AS INT) END
    WHEN 'string' THEN xplane_parse_int($string_value)
  END;

-- The name-scope text of an op: its tf_op stat, except that a tf_op of
-- `XlaModule` (white space and trailing `:` aside: the module, not a name
-- scope) defers to the `name` stat when that is set.
CREATE PERFETTO FUNCTION xplane_effective_tf_op(
  -- The tf_op stat (NULL or empty: none).
  tf_op STRING,
  -- The name stat (NULL or empty: none).
  name_stat STRING
)
RETURNS STRING AS
SELECT
  CASE
    WHEN rtrim(trim($tf_op, char(32, 9, 10, 13, 12, 11)), ':') = 'XlaModule' AND coalesce($name_stat, '') != ''
    THEN $name_stat
    ELSE nullif($tf_op, '')
  END;

-- Control characters of a text (`"` and `\` already escaped) escaped as
-- the extension does: tab, LF, CR as \t \n \r, others as \u00XX.
CREATE PERFETTO FUNCTION _xplane_json_escape_controls(
  -- A text.
  x STRING
)
RETURNS STRING AS
WITH RECURSIVE esc(c, x) AS (
  SELECT 1, $x
  UNION ALL
  SELECT
    c + 1,
    replace(x, char(c), CASE c WHEN 9 THEN '\t' WHEN 10 THEN '\n' WHEN 13 THEN '\r' ELSE printf('\u%04x', c) END)
  FROM esc
  WHERE c < 32
)
SELECT x FROM esc WHERE c = 32;

-- A JSON string literal of a text as the extension writes it: `"` and `\`
-- escaped, tab, LF and CR as \t \n \r, other control characters as
-- \u00XX (lower-case hex), everything else as is.
CREATE PERFETTO FUNCTION xplane_json_string(
  -- A text.
  s STRING
)
RETURNS STRING AS
SELECT
  '"' ||
  CASE
    WHEN x GLOB '*[' || char(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
                             26, 27, 28, 29, 30, 31) || ']*'
    THEN _xplane_json_escape_controls(x)
    ELSE x
  END
  || '"'
FROM (SELECT replace(replace($s, '\', '\\'), '"', '\"') AS x);
