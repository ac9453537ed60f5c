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

-- The lines of the analysis events, each with the device-op line rule
-- (xplane_is_device_op_line) evaluated once: the ops are the events of the
-- lines where it holds, the region windows (xplane.regions) those of the
-- lines where it does not.
CREATE PERFETTO TABLE _xplane_event_line(
  -- Plane name.
  plane_name STRING,
  -- Raw XLine name.
  line_name STRING,
  -- xplane_is_device_op_line(plane_name, line_name).
  is_op_line BOOL
) AS
SELECT plane_name, line_name, xplane_is_device_op_line(plane_name, line_name) AS is_op_line
FROM (SELECT DISTINCT plane_name, line_name FROM xplane_analysis_event);

-- Device ops in the extension's op order, with the running maximum end of
-- their track for the pre-op gap.
CREATE PERFETTO TABLE _xplane_op_base(
  -- Op number (plane, track, line, event order, from 0).
  op_id LONG,
  -- Slice id.
  id LONG,
  -- Thread (XPlane track).
  utid JOINID(thread.id),
  -- Thread id (track order).
  tid LONG,
  -- Process (XPlane plane).
  upid JOINID(process.id),
  -- XPlane index of the plane.
  plane_index LONG,
  -- Plane name.
  plane_name STRING,
  -- XLine index.
  line_index LONG,
  -- Raw XLine name.
  line_name STRING,
  -- XEvent index within its line.
  event_index LONG,
  -- Op name.
  name STRING,
  -- Exact start in ps.
  start_ps LONG,
  -- Exact duration in ps.
  dur_ps LONG,
  -- Exact end in ps.
  end_ps LONG,
  -- Exclusive time in ps.
  self_ps LONG,
  -- Start in ns.
  ts TIMESTAMP,
  -- Duration in ns.
  dur DURATION,
  -- Args of the slice.
  arg_set_id ARGSETID,
  -- Position on its track in (start, end, line, event) order, from 1.
  rn LONG,
  -- The latest end of the ops before it on the track.
  prev_max_end LONG,
  -- xplane_marker_like(name).
  marker_like BOOL
) AS
WITH
  -- (the rule functions run once per distinct line and name, not per event:
  -- a function call costs more than the rest of the row)
  op_line AS MATERIALIZED (SELECT plane_name, line_name FROM _xplane_event_line WHERE is_op_line),
  -- (the numbering sorts only the columns it orders by; the other columns
  -- are looked up by id at the end, where trace processor finds a row of a
  -- table sorted by id without a scan: sorting the whole rows twice cost
  -- twice as much)
  op AS MATERIALIZED (
    SELECT e.id, e.utid, e.tid, e.line_index, e.event_index, e.start_ps, e.end_ps, e.name
    FROM xplane_analysis_event e
    JOIN op_line l ON l.plane_name = e.plane_name AND l.line_name = e.line_name
  ),
  -- (the track order first, then the op order: the rows leave the second
  -- sort in op_id order, which the final join keeps, so the table needs no
  -- third sort; one window over both orders sorted three times)
  track_order AS MATERIALIZED (
    SELECT
      id, tid, line_index, event_index,
      row_number() OVER win AS rn,
      max(end_ps) OVER (win ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_max_end
    FROM op
    WINDOW win AS (PARTITION BY utid ORDER BY start_ps, end_ps, line_index, event_index)
  ),
  num AS MATERIALIZED (
    SELECT id, row_number() OVER (ORDER BY tid, line_index, event_index) - 1 AS op_id, rn, prev_max_end
    FROM track_order
  ),
  op_name AS MATERIALIZED (
    SELECT name, xplane_marker_like(name) AS marker_like FROM (SELECT DISTINCT name FROM op)
  )
SELECT
  n.op_id, e.id, e.utid, e.tid, e.upid, e.plane_index, e.plane_name, e.line_index, e.line_name, e.event_index,
  e.name, e.start_ps, e.dur_ps, e.end_ps, e.self_ps, e.ts, e.dur, e.arg_set_id, n.rn, n.prev_max_end,
  nm.marker_like
-- (CROSS JOIN: num stays the outer loop, so the rows come out in its op_id
-- order; each op finds its event by id without a scan)
FROM num n
CROSS JOIN xplane_analysis_event e USING (id)
CROSS JOIN op_name nm ON nm.name = e.name;

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

-- The stats of each op that the other op tables read (the text columns of
-- xplane_ops and the step's correlation), pivoted from the op's args (trace
-- processor keeps one arg per key in an arg set: the stat's last value, as
-- the extension reads it), looked up per op by arg_set_id (trace processor
-- finds an arg set without a scan of the args table). Keyed by op_id, as
-- the tables that read it are: the ops are read in op_id order, each with
-- its args (grouped by arg_set_id, the args of every op were sorted again:
-- 0.9 % of the summary's instructions at 10 MB). The numeric stats that only
-- xplane_ops shows are read there, per op, when a query reads them.
CREATE PERFETTO TABLE _xplane_op_stat(
  -- The op.
  op_id LONG,
  -- source, source_file or file_name stat.
  source_file STRING,
  -- The effective tf_op (xplane_effective_tf_op of the tf_op and name stats).
  tf_op STRING,
  -- long_name stat, else the metadata name (xplane.metadata_name).
  long_name STRING,
  -- correlation_id read as an integer (xplane_int_like).
  correlation_int LONG
) AS
SELECT
  op_id,
  coalesce(
    max(CASE WHEN key = 'debug.source' AND value_type = 'string' AND string_value != '' THEN string_value END),
    max(CASE WHEN key = 'debug.source_file' AND value_type = 'string' AND string_value != '' THEN string_value END),
    max(CASE WHEN key = 'debug.file_name' AND value_type = 'string' AND string_value != '' THEN string_value END)
  ) AS source_file,
  xplane_effective_tf_op(
    max(CASE WHEN key = 'debug.tf_op' AND value_type = 'string' AND string_value != '' THEN string_value END),
    max(CASE WHEN key = 'debug.name' AND value_type = 'string' AND string_value != '' THEN string_value END)
  ) AS tf_op,
  coalesce(
    max(CASE WHEN key = 'debug.long_name' AND value_type = 'string' AND string_value != '' THEN string_value END),
    max(CASE WHEN key = 'debug.xplane_metadata_name' AND string_value != '' THEN string_value END)
  ) AS long_name,
  max(CASE WHEN key != 'debug.correlation_id' THEN NULL
           WHEN value_type IN ('int', 'uint') THEN int_value
           ELSE xplane_int_like(value_type, int_value, string_value, real_value) END)
    AS correlation_int
FROM (
  SELECT b.op_id, a.key, a.int_value, a.string_value, a.real_value, a.value_type
  FROM _xplane_op_base b
  JOIN args a ON a.arg_set_id = b.arg_set_id
  WHERE a.key IN ('debug.tf_op', 'debug.name', 'debug.source', 'debug.source_file', 'debug.file_name',
                  'debug.long_name', 'debug.correlation_id', 'debug.xplane_metadata_name')
)
GROUP BY op_id
ORDER BY op_id;

-- The region path of each distinct (tf_op, name) of the ops, with its
-- number of parts (tf '' for no tf_op).
CREATE PERFETTO TABLE _xplane_op_scope(
  -- The effective tf_op ('' for none).
  tf STRING,
  -- The op name.
  name STRING,
  -- _xplane_scope: `<parts>:<path>`.
  s STRING
) AS
SELECT tf, name, _xplane_scope(nullif(tf, ''), name) AS s
FROM (
  SELECT DISTINCT coalesce(st.tf_op, '') AS tf, b.name
  FROM _xplane_op_base b
  LEFT JOIN _xplane_op_stat st USING (op_id)
);

-- The shape signature of each distinct long name of the ops.
CREATE PERFETTO TABLE _xplane_op_shape(
  -- A long name.
  long_name STRING,
  -- Its shape signature.
  shape_signature STRING
) AS
SELECT long_name, xplane_shape_signature(long_name) AS shape_signature
FROM (SELECT DISTINCT long_name FROM _xplane_op_stat WHERE long_name IS NOT NULL);

-- Each op with its name-derived columns, and what the aggregates read of
-- _xplane_op_base and _xplane_op_stat (so they read one table per op, not
-- three: a join on a trace processor table is a lookup per row).
CREATE PERFETTO TABLE _xplane_op_info(
  -- The op.
  op_id LONG,
  -- Its arg set.
  arg_set_id ARGSETID,
  -- Op name.
  name STRING,
  -- Exact duration in ps.
  dur_ps LONG,
  -- Exclusive time in ps.
  self_ps LONG,
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
  -- (MATERIALIZED copies: SQLite indexes them for the lookups below, where it
  -- would scan a table of trace processor per op; the name rules run once
  -- per distinct name)
  scope AS MATERIALIZED (SELECT tf, name, s FROM _xplane_op_scope),
  shape AS MATERIALIZED (SELECT long_name, shape_signature FROM _xplane_op_shape),
  op_name AS MATERIALIZED (
    SELECT name, xplane_canonical_name(name) AS canonical_name, xplane_op_category(name) AS category
    FROM (SELECT DISTINCT name FROM _xplane_op_base)
  )
SELECT
  b.op_id,
  b.arg_set_id,
  b.name,
  b.dur_ps,
  b.self_ps,
  st.source_file,
  n.canonical_name,
  n.category,
  st.tf_op,
  st.long_name,
  substr(sc.s, instr(sc.s, ':') + 1) AS scope_path,
  CAST(substr(sc.s, 1, instr(sc.s, ':') - 1) AS INT) AS scope_parts,
  sh.shape_signature
FROM _xplane_op_base b
JOIN op_name n ON n.name = b.name
LEFT JOIN _xplane_op_stat st USING (op_id)
JOIN scope sc ON sc.tf = coalesce(st.tf_op, '') AND sc.name = b.name
LEFT JOIN shape sh ON sh.long_name = st.long_name
ORDER BY b.op_id;
