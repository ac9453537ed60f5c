-- xplane.ops: the device ops, one row per op invocation, with the columns
-- and meanings of the extension's xplane_ops table (sqlite_ext/tables_ops.c),
-- so the same queries run on trace processor and on the extension.
--
--   INCLUDE PERFETTO MODULE xplane.ops;
--   SELECT name, count(*), sum(self_ps) / 1e6 AS self_us
--   FROM xplane_ops GROUP BY name ORDER BY 3 DESC LIMIT 10;
--
-- A device op is an analysis event on a device-op line (`XLA Ops`,
-- `Async XLA Ops`, `Stream #...` of a `/device:` plane). Times are exact
-- picoseconds (from the xplane.start_ps / dur_ps annotations); ts and dur
-- are the slice's nanoseconds. self_ps is the analysis exclusive time
-- (xplane.slices); the pre-op gap is computed per track over its device ops
-- ordered by (start, end, line, event): an op that starts after every op
-- before it has ended is a marker and its gap is start - the latest end;
-- its payload is itself unless it is marker-like, else the first
-- non-marker-like op among the next 8 whose chain of ends stays unbroken.

INCLUDE PERFETTO MODULE xplane.rules;
INCLUDE PERFETTO MODULE xplane.slices;

-- Device ops in the extension's op order (plane, track, line, event), with
-- their running maximum end for the gap.
CREATE PERFETTO TABLE _xplane_op_base AS
WITH op AS (
  SELECT
    e.*,
    row_number() OVER (ORDER BY e.tid, e.line_index, e.event_index) - 1 AS op_id
  FROM xplane_analysis_event e
  WHERE xplane_is_device_op_line(e.plane_name, e.line_name)
)
SELECT
  op.*,
  row_number() OVER win AS rn,
  max(end_ps) OVER (win ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_max_end,
  xplane_marker_like(name) AS marker_like
FROM op
WINDOW win AS (PARTITION BY utid ORDER BY start_ps, end_ps, line_index, event_index);

-- Gap markers and their payload op (the marker when none qualifies).
CREATE PERFETTO TABLE _xplane_op_payload AS
WITH
  marker AS (
    SELECT * FROM _xplane_op_base WHERE prev_max_end IS NOT NULL AND start_ps > prev_max_end
  ),
  candidate AS (
    SELECT
      m.op_id AS marker_id,
      m.end_ps AS marker_end,
      n.rn - m.rn AS k,
      n.op_id,
      n.start_ps,
      n.marker_like,
      max(n.end_ps) OVER (PARTITION BY m.op_id ORDER BY n.rn ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
    FROM marker m
    JOIN _xplane_op_base n ON n.utid = m.utid AND n.rn BETWEEN m.rn + 1 AND m.rn + 8
  ),
  firsts AS (
    SELECT
      marker_id,
      min(CASE WHEN start_ps > max(marker_end, coalesce(prev_end, marker_end)) THEN k END) AS first_break,
      min(CASE WHEN NOT marker_like THEN k END) AS first_payload
    FROM candidate
    GROUP BY marker_id
  )
SELECT
  m.op_id,
  CASE
    WHEN NOT m.marker_like THEN m.op_id
    WHEN f.first_payload IS NOT NULL AND (f.first_break IS NULL OR f.first_payload < f.first_break)
      THEN (SELECT c.op_id FROM candidate c WHERE c.marker_id = m.op_id AND c.k = f.first_payload)
    ELSE m.op_id
  END AS payload_op_id
FROM marker m
LEFT JOIN firsts f ON f.marker_id = m.op_id;

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

-- The stats the ops table shows, one row per op (text stats: non-empty
-- strings; numeric stats: integer or real values).
CREATE PERFETTO TABLE _xplane_op_stat AS
SELECT
  a.arg_set_id,
  max(CASE WHEN a.key = 'debug.hlo_category' AND a.string_value != '' THEN a.string_value END) AS hlo_category,
  max(CASE WHEN a.key = 'debug.hlo_module' AND a.string_value != '' THEN a.string_value END) AS hlo_module,
  max(CASE WHEN a.key = 'debug.source' AND a.string_value != '' THEN a.string_value END) AS source,
  max(CASE WHEN a.key = 'debug.source_file' AND a.string_value != '' THEN a.string_value END) AS source_file,
  max(CASE WHEN a.key = 'debug.file_name' AND a.string_value != '' THEN a.string_value END) AS file_name,
  max(CASE WHEN a.key = 'debug.program_id' THEN _xplane_num(a.value_type, a.int_value, a.real_value) END) AS program_id,
  max(CASE WHEN a.key = 'debug.flops' THEN _xplane_num(a.value_type, a.int_value, a.real_value) END) AS flops,
  max(CASE WHEN a.key = 'debug.bytes_accessed' THEN _xplane_num(a.value_type, a.int_value, a.real_value) END) AS bytes_accessed,
  max(CASE WHEN a.key = 'debug.correlation_id' THEN _xplane_num(a.value_type, a.int_value, a.real_value) END) AS correlation_id
FROM args a
JOIN _xplane_op_base b USING (arg_set_id)
WHERE a.key IN ('debug.hlo_category', 'debug.hlo_module', 'debug.source', 'debug.source_file',
                'debug.file_name', 'debug.program_id', 'debug.flops', 'debug.bytes_accessed',
                'debug.correlation_id')
GROUP BY a.arg_set_id;

-- The device ops.
CREATE PERFETTO TABLE xplane_ops(
  -- XPlane index of the device plane.
  plane_index LONG,
  -- Device plane name.
  plane_name STRING,
  -- XLine index of the op.
  line_index LONG,
  -- Raw XLine name.
  line_name STRING,
  -- XEvent index within its line.
  event_index LONG,
  -- Op number: plane, track, line, event order (as the extension).
  op_id LONG,
  -- Op name (display name, else name).
  name STRING,
  -- Canonical name (xplane_canonical_name).
  canonical_name STRING,
  -- stall, communication or compute.
  category STRING,
  -- Collective kind of a communication op, else NULL.
  collective_kind STRING,
  -- hlo_category stat.
  hlo_category STRING,
  -- hlo_module stat.
  hlo_module STRING,
  -- program_id stat.
  program_id LONG,
  -- source, source_file or file_name stat.
  source_file STRING,
  -- flops stat.
  flops DOUBLE,
  -- bytes_accessed stat.
  bytes_accessed DOUBLE,
  -- Exact start in ps.
  start_ps LONG,
  -- Exact duration in ps.
  dur_ps LONG,
  -- Exact end in ps.
  end_ps LONG,
  -- Exclusive time in ps.
  self_ps LONG,
  -- Idle time before this op on its track when it is a gap marker, else 0.
  gap_before_ps LONG,
  -- For a marker: op_id of the op where work resumes.
  gap_payload_op_id LONG,
  -- For a marker: name of that op.
  gap_payload_name STRING,
  -- correlation_id stat.
  correlation_id LONG,
  -- Start in ns.
  ts TIMESTAMP,
  -- Duration in ns.
  dur DURATION,
  -- The op's slice.
  slice_id LONG,
  -- Its thread (XPlane track).
  utid LONG
) AS
SELECT
  b.plane_index,
  b.plane_name,
  b.line_index,
  b.line_name,
  b.event_index,
  b.op_id,
  b.name,
  xplane_canonical_name(b.name) AS canonical_name,
  xplane_op_category(b.name) AS category,
  CASE WHEN xplane_is_communication(b.name) THEN xplane_collective_kind(b.name) END AS collective_kind,
  st.hlo_category,
  st.hlo_module,
  st.program_id,
  coalesce(st.source, st.source_file, st.file_name) AS source_file,
  st.flops,
  st.bytes_accessed,
  b.start_ps,
  b.dur_ps,
  b.end_ps,
  b.self_ps,
  CASE WHEN p.op_id IS NOT NULL THEN b.start_ps - b.prev_max_end ELSE 0 END AS gap_before_ps,
  p.payload_op_id AS gap_payload_op_id,
  pb.name AS gap_payload_name,
  st.correlation_id,
  b.ts,
  b.dur,
  b.id AS slice_id,
  b.utid
FROM _xplane_op_base b
LEFT JOIN _xplane_op_payload p USING (op_id)
LEFT JOIN _xplane_op_base pb ON pb.op_id = p.payload_op_id
LEFT JOIN _xplane_op_stat st ON st.arg_set_id = b.arg_set_id
ORDER BY b.op_id;
