-- xplane.rules: the naming and classification rules of the analysis
-- (shared/spec/analysis.md), as PerfettoSQL functions in plain SQL. They
-- match the extension's C rules (sqlite_ext/semantics.c) byte for byte on
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
