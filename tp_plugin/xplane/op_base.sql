-- xplane.op_base: the device ops and what xplane.ops, xplane.steps,
-- xplane.scopes and xplane.aggregates read of them (private tables; the
-- public view of an op is xplane_ops).
--
--   INCLUDE PERFETTO MODULE xplane.op_base;
--
-- A device op is an analysis event on a device-op line (`XLA Ops`,
-- `Async XLA Ops`, `Stream #...` of a `/device:` plane), numbered as the
-- extension numbers them (op_id: plane, track, line, event order). Stats are
-- read as the extension reads them: the last value of a key (the one arg of
-- the key that trace processor keeps); text stats count
-- when non-empty strings (bytes stats are hex strings in the trace, raw
-- bytes in the extension); numeric stats are integers or reals (a uint64
-- over 2^63 - 1 as its exact decimal text).

INCLUDE PERFETTO MODULE xplane.rules;
INCLUDE PERFETTO MODULE xplane.semantics;
INCLUDE PERFETTO MODULE xplane.slices;

-- The device-op lines: the lines of the analysis events where the
-- device-op line rule (xplane_is_device_op_line) holds, evaluated once per
-- line, in line_key order. The rule depends on the plane and line names
-- only, so the ops are the slices on the tracks of these lines' planes
-- whose category is one of these lines' names (_xplane_op_stat), the
-- region windows the other analysis events (_xplane_window_tf).
CREATE PERFETTO TABLE _xplane_op_line(
  -- The line as one integer (_xplane_slice_core.line_key).
  line_key LONG,
  -- Its process (XPlane plane).
  upid JOINID(process.id),
  -- Its raw name.
  line_name STRING
) AS
SELECT line_key, upid, line_name
FROM _xplane_event_line
WHERE xplane_is_device_op_line(plane_name, line_name) AND line_key IS NOT NULL
ORDER BY line_key;

-- The names of the device ops, each with what the name rules give it (each
-- rule runs once per name: a function call costs more than the rest of an
-- op's row). From _xplane_line_name_agg's rows of the op lines, a few per
-- line, not from a scan of the ops.
CREATE PERFETTO TABLE _xplane_op_name(
  -- Op name.
  name STRING,
  -- xplane_marker_like(name).
  marker_like BOOL,
  -- xplane_canonical_name(name).
  canonical_name STRING,
  -- xplane_op_category(name).
  category STRING
) AS
SELECT name, xplane_marker_like(name) AS marker_like, xplane_canonical_name(name) AS canonical_name,
       xplane_op_category(name) AS category
FROM (SELECT DISTINCT name FROM _xplane_line_name_agg WHERE line_key IN (SELECT line_key FROM _xplane_op_line));

-- The device ops with their line, event index, exact times and the stats
-- that the other op tables read (the text columns of xplane_ops and the
-- step's correlation), picked from the analysis events of trace
-- processor's slice table (_xplane_analysis_raw) by track
-- (of a plane with op lines) and category (an op line's name,
-- _xplane_op_line),
-- one row per op in
-- slice id order (_xplane_op_base finds an op's row by binary search). Each
-- stat is the op's one arg of its key (trace processor keeps one arg per
-- key in an arg set: the stat's last value, as the extension reads it),
-- read with extract_arg (trace processor finds an arg set without a scan of
-- the args table; joining each op's args and grouping them cost more). The
-- numeric stats that only xplane_ops shows are read there, per op, when a
-- query reads them.
CREATE PERFETTO TABLE _xplane_op_stat(
  -- The op's slice id.
  slice_id LONG,
  -- Thread (XPlane track).
  utid JOINID(thread.id),
  -- Thread id (the op order's first key).
  tid LONG,
  -- Process (XPlane plane).
  upid JOINID(process.id),
  -- XPlane index of the plane.
  plane_index LONG,
  -- XLine index.
  line_index LONG,
  -- XEvent index within its line.
  event_index LONG,
  -- Op name.
  name STRING,
  -- Exact start in ps.
  start_ps LONG,
  -- Exact duration in ps.
  dur_ps LONG,
  -- Args of the slice.
  arg_set_id ARGSETID,
  -- source, source_file or file_name stat.
  source_file STRING,
  -- The effective tf_op (xplane_effective_tf_op of the tf_op and name stats).
  tf_op STRING,
  -- long_name stat, else the metadata name (xplane.metadata_name).
  long_name STRING,
  -- correlation_id read as an integer (xplane_int_like).
  correlation_int LONG
) AS
WITH
  -- (the ops' slices, in id order, in one of two arms (_xplane_arm): where
  -- the ns give every exact time, from the slice table's own columns
  -- (_xplane_analysis_ns), else with the exact times of
  -- _xplane_analysis_exact; the compound of
  -- the two gives the one arm's rows in its order)
  op AS (
    SELECT * FROM (
      SELECT id, track_id, category, name, arg_set_id, ts * 1000 AS start_ps, dur * 1000 AS dur_ps
      FROM _xplane_analysis_ns
      WHERE track_id IN (SELECT track_id FROM _xplane_event_track WHERE upid IN (SELECT upid FROM _xplane_op_line))
        AND category IN (SELECT line_name FROM _xplane_op_line)
      ORDER BY id
      LIMIT (SELECT ns_times FROM _xplane_arm)
    )
    UNION ALL
    SELECT * FROM (
      SELECT id, track_id, category, name, arg_set_id, start_ps, dur_ps
      FROM _xplane_analysis_exact
      WHERE track_id IN (SELECT track_id FROM _xplane_event_track WHERE upid IN (SELECT upid FROM _xplane_op_line))
        AND category IN (SELECT line_name FROM _xplane_op_line)
      ORDER BY id
      LIMIT (SELECT exact_times FROM _xplane_arm)
    )
  ),
  -- (the ops with what extract_arg reads of them, once per row: the
  -- subquery is not flattened; a key that no arg of the trace has is not
  -- looked up: _xplane_arg_key)
  raw AS (
    SELECT
      s.id, s.track_id, s.category, s.name, s.arg_set_id, s.start_ps, s.dur_ps,
      extract_arg(s.arg_set_id, 'debug.xplane_event_index') AS event_index,
      CASE WHEN (SELECT source FROM _xplane_arg_key) THEN extract_arg(s.arg_set_id, 'debug.source') END AS s1,
      CASE WHEN (SELECT source_file FROM _xplane_arg_key) THEN extract_arg(s.arg_set_id, 'debug.source_file') END AS s2,
      CASE WHEN (SELECT file_name FROM _xplane_arg_key) THEN extract_arg(s.arg_set_id, 'debug.file_name') END AS s3,
      CASE WHEN (SELECT tf_op FROM _xplane_arg_key) THEN extract_arg(s.arg_set_id, 'debug.tf_op') END AS tf,
      CASE WHEN (SELECT name FROM _xplane_arg_key) THEN extract_arg(s.arg_set_id, 'debug.name') END AS nm,
      CASE WHEN (SELECT long_name FROM _xplane_arg_key) THEN extract_arg(s.arg_set_id, 'debug.long_name') END AS ln,
      CASE WHEN (SELECT metadata_name FROM _xplane_arg_key) THEN extract_arg(s.arg_set_id, 'debug.xplane_metadata_name') END
        AS mn,
      CASE WHEN (SELECT correlation_id FROM _xplane_arg_key) THEN extract_arg(s.arg_set_id, 'debug.correlation_id') END AS co
    FROM op s
    LIMIT -1 OFFSET 0
  )
SELECT
  r.id AS slice_id,
  k.utid,
  k.tid,
  k.upid,
  -- (the plane and line indexes from the slice where its track and
  -- category do not give them: _xplane_slice_core's rule)
  coalesce(k.plane_index, extract_arg(r.arg_set_id, 'debug.xplane_plane_index')) AS plane_index,
  coalesce(l.line_index, CASE WHEN (SELECT line_index FROM _xplane_arg_key)
                           THEN extract_arg(r.arg_set_id, 'debug.xplane_line_index') END) AS line_index,
  r.event_index,
  r.name,
  r.start_ps,
  r.dur_ps,
  r.arg_set_id,
  -- (text stats count when non-empty strings)
  coalesce(
    CASE WHEN typeof(r.s1) = 'text' AND r.s1 != '' THEN r.s1 END,
    CASE WHEN typeof(r.s2) = 'text' AND r.s2 != '' THEN r.s2 END,
    CASE WHEN typeof(r.s3) = 'text' AND r.s3 != '' THEN r.s3 END
  ) AS source_file,
  -- (the rule only where it can change the tf_op, one that holds
  -- `XlaModule`: a function call per op costs more than the rest of the row)
  CASE
    WHEN typeof(r.tf) != 'text' OR r.tf = '' THEN NULL
    WHEN r.tf GLOB '*XlaModule*' THEN
      xplane_effective_tf_op(r.tf, CASE WHEN typeof(r.nm) = 'text' AND r.nm != '' THEN r.nm END)
    ELSE r.tf
  END AS tf_op,
  coalesce(
    CASE WHEN typeof(r.ln) = 'text' AND r.ln != '' THEN r.ln END,
    CASE WHEN typeof(r.mn) = 'text' AND r.mn != '' THEN r.mn END
  ) AS long_name,
  -- (a real or text correlation id as xplane_int_like reads it)
  CASE typeof(r.co)
    WHEN 'integer' THEN r.co
    WHEN 'real' THEN CASE WHEN r.co > -9.2e18 AND r.co < 9.2e18 THEN CAST(r.co AS INT) END
    WHEN 'text' THEN xplane_parse_int(r.co)
  END AS correlation_int
-- (CROSS JOIN: the ops stay the outer loop, in id order; each finds its
-- track and line by binary search)
FROM raw r
CROSS JOIN _xplane_event_track k ON k.track_id = r.track_id
LEFT JOIN _xplane_track_line l ON l.track_id = r.track_id AND l.category = coalesce(r.category, '');

-- The region path of each distinct (tf_op, name) of the ops, with its
-- number of parts (tf '' for no tf_op), and what the name rules give the
-- name (_xplane_op_name), in skey order: _xplane_op_base looks the pair's
-- number up once per op, the tables that read these columns per op find
-- them by that number (a binary search), those that group ops group by it.
CREATE PERFETTO TABLE _xplane_op_scope(
  -- The pair's number (in (tf, name) order, from 1): an integer key for
  -- the tables that group ops by name and tf_op (xplane_gaps).
  skey LONG,
  -- The effective tf_op ('' for none).
  tf STRING,
  -- The op name.
  name STRING,
  -- Region path (_xplane_scope's path).
  scope_path STRING,
  -- Its number of parts.
  scope_parts LONG,
  -- xplane_marker_like(name).
  marker_like BOOL,
  -- xplane_canonical_name(name).
  canonical_name STRING,
  -- xplane_op_category(name).
  category STRING
) AS
SELECT
  skey, tf, name,
  substr(s, instr(s, ':') + 1) AS scope_path,
  CAST(substr(s, 1, instr(s, ':') - 1) AS INT) AS scope_parts,
  marker_like, canonical_name, category
FROM (
  SELECT
    row_number() OVER (ORDER BY t.tf, t.name) AS skey,
    t.tf, t.name, _xplane_scope(nullif(t.tf, ''), t.name) AS s, n.marker_like, n.canonical_name, n.category
  -- (the distinct pairs of the table's own columns first, which trace
  -- processor finds itself; an expression in the DISTINCT made SQLite sort
  -- a copy of every op)
  FROM (SELECT DISTINCT coalesce(tf_op, '') AS tf, name FROM (SELECT DISTINCT tf_op, name FROM _xplane_op_stat)) t
  JOIN _xplane_op_name n USING (name)
)
ORDER BY skey;

-- The shape signature of each distinct long name of the ops.
CREATE PERFETTO TABLE _xplane_op_shape(
  -- A long name.
  long_name STRING,
  -- Its shape signature.
  shape_signature STRING
) AS
SELECT long_name, xplane_shape_signature(long_name) AS shape_signature
FROM (SELECT DISTINCT long_name FROM _xplane_op_stat WHERE long_name IS NOT NULL);

-- The device ops in track order (each track's ops by start, end, line,
-- event), with the running maximum end of the ops before them on their
-- track, for the pre-op gap. A table without an id column: its rowid
-- numbers its rows in the order they were written (from 0 in trace
-- processor, from 1 in SQLite's CREATE TABLE AS, the shim of the tests), so
-- the rowid orders the ops by track and position (_xplane_op_base.track_row,
-- which the payload lookahead looks up; the tests compare every op's number, gap and
-- payload with the extension's on every profile). (The window orders by
-- columns only, which trace processor sorts itself: a join or an
-- expression made SQLite sort a copy; a row_number() over the same window
-- cost more than the rowid.)
CREATE PERFETTO TABLE _xplane_op_order(
  -- Slice id of the op (not an `id` column: rowid stays the row number).
  slice_id LONG,
  -- Thread id (the op order's first key).
  tid LONG,
  -- XLine index.
  line_index LONG,
  -- XEvent index within its line.
  event_index LONG,
  -- The latest end of the ops before it on the track (NULL for the first).
  prev_max_end LONG
) AS
-- (the thread partitions the window and is not written: _xplane_op_base
-- reads it from _xplane_op_stat, a cell per op fewer here and in
-- _xplane_op_seq)
SELECT
  slice_id, tid, line_index, event_index,
  max(start_ps + dur_ps) OVER (
    PARTITION BY utid ORDER BY start_ps, dur_ps, line_index, event_index
    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
  ) AS prev_max_end
FROM _xplane_op_stat;
-- ((start, end) orders as (start, dur) does; the rows leave the window in
-- its order, the order they are written in)

-- The same ops in the extension's op order (thread id, line, event: the
-- order of plane, track, line and event, since the converter numbers the
-- threads in that order), sorted by trace processor: an op's rowid minus
-- the first is its op_id.
CREATE PERFETTO TABLE _xplane_op_seq(
  -- Slice id of the op.
  slice_id LONG,
  -- Its row in _xplane_op_order (position in track order, from 0).
  track_row LONG,
  -- The latest end of the ops before it on the track.
  prev_max_end LONG
) AS
SELECT slice_id, rowid AS track_row, prev_max_end
FROM _xplane_op_order
ORDER BY tid, line_index, event_index;

-- Device ops in the extension's op order, with their row in track order
-- and the running maximum end of their track (for the pre-op gap), their
-- times, exclusive time, the stats the op tables group by and (tf_op,
-- name) pair's number: the one table per op that the other op tables read,
-- its columns the ones they read of every op. (The op's name, tf_op, arg
-- set, plane, line and event indexes are _xplane_op_stat's, found by slice
-- id; what the name rules give and the region path _xplane_op_scope's,
-- once per pair; the shape _xplane_op_shape's, once per long name:
-- _xplane_op_info adds them all; the names of an op's plane and line are
-- _xplane_event_line's, its ns times the slice's: xplane_ops looks them up.)
CREATE PERFETTO TABLE _xplane_op_base(
  -- Op number (plane, track, line, event order, from 0).
  op_id LONG,
  -- Slice id.
  id LONG,
  -- Thread (XPlane track).
  utid JOINID(thread.id),
  -- Process (XPlane plane).
  upid JOINID(process.id),
  -- Exact start in ps.
  start_ps LONG,
  -- Exact duration in ps.
  dur_ps LONG,
  -- Exclusive time in ps.
  self_ps LONG,
  -- The latest end of the ops before it on the track.
  prev_max_end LONG,
  -- xplane_marker_like(name).
  marker_like BOOL,
  -- xplane_op_category(name) as an integer: 0 compute, 1 communication,
  -- 2 stall (the steps sum the ops' exclusive time by it; an integer cell
  -- costs less to write and carry than a string, which trace processor
  -- interns).
  category_code LONG,
  -- Its row in _xplane_op_order (position in track order over all tracks,
  -- from 0).
  track_row LONG,
  -- source, source_file or file_name stat (_xplane_op_stat).
  source_file STRING,
  -- Long name (_xplane_op_stat).
  long_name STRING,
  -- correlation_id read as an integer (_xplane_op_stat).
  correlation_int LONG,
  -- Its (tf_op, name) pair's number (_xplane_op_scope.skey: the name
  -- rules' columns and the region path are there, once per pair).
  skey LONG
) AS
WITH
  -- The first rowid of _xplane_op_seq: 0 in trace processor, 1 in SQLite,
  -- whose CREATE TABLE AS numbers its rows from 1 (the shim of
  -- tests/test_perfetto.sh). (The first row read, not min(rowid): trace
  -- processor v58.2 crashes on min(rowid), max(rowid) and ORDER BY rowid of
  -- a table without an id column.)
  zero AS MATERIALIZED (SELECT rowid AS row0 FROM _xplane_op_seq LIMIT 1),
  -- The parents' children's durations (_xplane_child_ps, few rows):
  -- a copy SQLite indexes, cheaper to look up per op than a table of
  -- trace processor.
  child AS MATERIALIZED (SELECT id, ps FROM _xplane_child_ps),
  -- (a copy SQLite indexes for the lookup per op)
  scope AS MATERIALIZED (
    SELECT skey, tf, name, marker_like,
           CASE category WHEN 'compute' THEN 0 WHEN 'communication' THEN 1 WHEN 'stall' THEN 2 END AS category_code
    FROM _xplane_op_scope)
SELECT
  q.rowid - z.row0 AS op_id, e.slice_id AS id, e.utid, e.upid, e.start_ps, e.dur_ps,
  -- (the exclusive time as _xplane_analysis_core defines it)
  max(0, e.dur_ps - coalesce(c.ps, 0)) AS self_ps,
  q.prev_max_end,
  sc.marker_like, sc.category_code, q.track_row,
  e.source_file, e.long_name, e.correlation_int,
  sc.skey
-- (CROSS JOIN: the ops stay the outer loop, so the rows come out in their
-- op_id order; each op finds its row of _xplane_op_stat by slice id, a
-- sorted column, without a scan)
FROM _xplane_op_seq q
CROSS JOIN zero z
CROSS JOIN _xplane_op_stat e ON e.slice_id = q.slice_id
CROSS JOIN scope sc ON sc.tf = coalesce(e.tf_op, '') AND sc.name = e.name
LEFT JOIN child c ON c.id = e.slice_id;

-- The ops summed per (tf_op, name) pair, long name and source file: the
-- groups that the op combinations (_xplane_op_combo) and the regions
-- (_xplane_scope_all) sum further, so the ops are grouped once for both.
CREATE PERFETTO TABLE _xplane_op_group(
  -- The pair's number (_xplane_op_scope.skey).
  skey LONG,
  -- Long name (NULL for none).
  long_name STRING,
  -- Source file (NULL for none).
  source_file STRING,
  -- Invocations.
  n LONG,
  -- Their summed duration in ps.
  total_ps LONG,
  -- Their summed exclusive time in ps.
  self_ps LONG,
  -- op_id of the first of them.
  first LONG
) AS
-- (grouped by columns of the table only: trace processor sorts them, skey
-- as an integer)
SELECT
  skey, long_name, source_file,
  count(*) AS n, sum(dur_ps) AS total_ps, sum(self_ps) AS self_ps, min(op_id) AS first
FROM _xplane_op_base
GROUP BY skey, long_name, source_file;

-- Each op with every column of its own: a view of _xplane_op_base that
-- looks each op's row of _xplane_op_stat up by slice id, its pair in
-- _xplane_op_scope by skey and its long name in _xplane_op_shape when read
-- (the tables that sum ops by these columns group by skey and long name
-- first).
CREATE PERFETTO VIEW _xplane_op_info(
  -- The op.
  op_id LONG,
  -- Slice id.
  id LONG,
  -- Thread (XPlane track).
  utid JOINID(thread.id),
  -- Process (XPlane plane).
  upid JOINID(process.id),
  -- XPlane index of the plane.
  plane_index LONG,
  -- XLine index.
  line_index LONG,
  -- XEvent index within its line.
  event_index LONG,
  -- Its arg set.
  arg_set_id ARGSETID,
  -- Op name.
  name STRING,
  -- Exact start in ps.
  start_ps LONG,
  -- Exact duration in ps.
  dur_ps LONG,
  -- Exclusive time in ps.
  self_ps LONG,
  -- The latest end of the ops before it on the track.
  prev_max_end LONG,
  -- source, source_file or file_name stat (_xplane_op_stat).
  source_file STRING,
  -- Canonical name.
  canonical_name STRING,
  -- Op category.
  category STRING,
  -- Effective tf_op.
  tf_op STRING,
  -- Long name.
  long_name STRING,
  -- Region path.
  scope_path STRING,
  -- Its number of parts.
  scope_parts LONG,
  -- Shape signature of the long name.
  shape_signature STRING
) AS
WITH
  -- (a copy SQLite indexes for the lookup by long name)
  shape AS MATERIALIZED (SELECT long_name, shape_signature FROM _xplane_op_shape)
SELECT
  b.op_id, b.id, b.utid, b.upid, e.plane_index, e.line_index, e.event_index, e.arg_set_id, e.name, b.start_ps,
  b.dur_ps, b.self_ps, b.prev_max_end, b.source_file, sc.canonical_name, sc.category, e.tf_op, b.long_name,
  sc.scope_path, sc.scope_parts, sh.shape_signature
-- (CROSS JOIN: the ops stay the outer loop; each finds its row of
-- _xplane_op_stat by slice id and its pair by skey, sorted columns)
FROM _xplane_op_base b
CROSS JOIN _xplane_op_stat e ON e.slice_id = b.id
CROSS JOIN _xplane_op_scope sc ON sc.skey = b.skey
LEFT JOIN shape sh ON sh.long_name = b.long_name;

-- A numeric arg as the extension shows the stat: integers, reals, and
-- uint64 values over 2^63 - 1 as exact decimal text; NULL for text.
CREATE PERFETTO FUNCTION _xplane_num(
  -- The arg's value_type.
  value_type STRING,
  -- Its int_value.
  int_value LONG,
  -- Its real_value.
  real_value DOUBLE
)
RETURNS STRING AS
SELECT
  CASE $value_type
    WHEN 'int' THEN $int_value
    WHEN 'uint' THEN xplane_uint64($int_value)
    WHEN 'real' THEN $real_value
  END;

